//===- Gemm.cpp - The interpreter's float matrix multiply -----------------===//
//
// Part of AMK. A straightforward cache-blocked GEMM: B is packed into
// contiguous row panels so the inner loop is a unit-stride axpy the
// compiler vectorizes. It is not meant to compete with the runtime's
// kernels, only to keep ViT-B/16 and ResNet under a minute in the oracle.
// Each C element is a sum over k in increasing order, so results do not
// depend on the blocking.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include <vector>

namespace amk::ref {

void gemmF32(bool transA, bool transB, int64_t M, int64_t N, int64_t K,
             float alpha, const float *A, int64_t lda, const float *B,
             int64_t ldb, float beta, float *C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i) {
    float *c = C + i * ldc;
    if (beta == 0)
      std::fill(c, c + N, 0.0f);
    else if (beta != 1)
      for (int64_t j = 0; j < N; ++j)
        c[j] *= beta;
  }
  if (M == 0 || N == 0 || K == 0)
    return;
  constexpr int64_t kBlockN = 512, kBlockK = 256;
  std::vector<float> panel(kBlockK * kBlockN);
  for (int64_t n0 = 0; n0 < N; n0 += kBlockN) {
    int64_t nb = std::min(kBlockN, N - n0);
    for (int64_t k0 = 0; k0 < K; k0 += kBlockK) {
      int64_t kb = std::min(kBlockK, K - k0);
      // panel[k][n] = op(B)[k0 + k][n0 + n]
      for (int64_t k = 0; k < kb; ++k)
        for (int64_t n = 0; n < nb; ++n)
          panel[k * nb + n] = transB ? B[(n0 + n) * ldb + (k0 + k)]
                                     : B[(k0 + k) * ldb + (n0 + n)];
      for (int64_t i = 0; i < M; ++i) {
        float *c = C + i * ldc + n0;
        for (int64_t k = 0; k < kb; ++k) {
          float a = alpha * (transA ? A[(k0 + k) * lda + i]
                                    : A[i * lda + (k0 + k)]);
          const float *p = panel.data() + k * nb;
          for (int64_t n = 0; n < nb; ++n)
            c[n] += a * p[n];
        }
      }
    }
  }
}

} // namespace amk::ref
