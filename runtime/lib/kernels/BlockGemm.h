//===- BlockGemm.h - libxsmm blocks for GEMM-shaped kernels -----*- C++ -*-===//
//
// Part of AMK. The block sizes and the libxsmm kernel lookup that GEMM, the
// implicit-GEMM convolution and attention share: they multiply on the same
// blocks, so they reuse the same JIT kernels.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELS_BLOCKGEMM_H
#define AMK_RUNTIME_KERNELS_BLOCKGEMM_H

#include "amk/kernel_params.h"

#include <libxsmm.h>

#include <cstdint>

namespace amk::rt {

constexpr int64_t kRowBlock = 32;
constexpr int64_t kColBlock = AMK_GEMM_PANEL;
constexpr int64_t kDepthBlock = 512;

/// libxsmm's kernels for (rows, columns, depth) blocks, looked up once per
/// shape per tile (a few shapes: full blocks and the tails).
struct BlockKernels {
  int64_t lda = -1, ldb = -1, ldc = -1;
  struct Entry {
    int64_t key[3] = {-1, -1, -1};
    libxsmm_smmfunction first = nullptr, accum = nullptr;
  };
  Entry cache[4];
  unsigned next = 0;
  libxsmm_smmfunction first = nullptr, accum = nullptr;

  bool get(int64_t mb, int64_t nb, int64_t kb) {
    for (Entry &e : cache)
      if (e.key[0] == mb && e.key[1] == nb && e.key[2] == kb) {
        first = e.first, accum = e.accum;
        return first && accum;
      }
    Entry &e = cache[next++ % 4];
    e.key[0] = mb, e.key[1] = nb, e.key[2] = kb;
    // Row-major C = A B is column-major C^T = B^T A^T.
    libxsmm_blasint m = nb, n = mb, k = kb;
    libxsmm_blasint xlda = ldb, xldb = lda, xldc = ldc;
    float one = 1.f, zero = 0.f;
    int flags0 = LIBXSMM_GEMM_FLAG_BETA_0, flags1 = LIBXSMM_GEMM_FLAG_NONE;
    e.first = libxsmm_smmdispatch(m, n, k, &xlda, &xldb, &xldc, &one, &zero,
                                  &flags0, nullptr);
    e.accum = libxsmm_smmdispatch(m, n, k, &xlda, &xldb, &xldc, &one, &one,
                                  &flags1, nullptr);
    first = e.first, accum = e.accum;
    return first && accum;
  }
};

/// Row-major C[M][N] = A[M][K] B[K][N] on libxsmm blocks (overwrites C).
bool blockGemm(const float *A, int64_t lda, const float *B, int64_t ldb,
               float *C, int64_t ldc, int64_t M, int64_t N, int64_t K);

/// The same with the leading dimensions of `bk`, whose kernels stay
/// looked up across calls (a kernel that multiplies row by row).
bool blockGemm(BlockKernels &bk, const float *A, const float *B, float *C,
               int64_t M, int64_t N, int64_t K);

} // namespace amk::rt

#endif // AMK_RUNTIME_KERNELS_BLOCKGEMM_H
