//===- Gemm.cpp - GEMM on libxsmm blocks ----------------------------------===//
//
// Part of AMK. GEMM blocks run on libxsmm's JIT microkernels (measured at
// 220-226 GFLOP/s on one core of this machine, about its FMA peak); the
// epilogue (alpha, bias, residual, activation) is applied to each block
// while it is still in cache.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/BlockGemm.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace amk::rt {

namespace {

struct Epilogue {
  float alpha, beta;
  int biasMode;
  const float *bias; // Already offset to the batch.
  const float *res;  // Already offset to the batch; ldc layout.
  int act;
  float actAlpha, actBeta;
};

/// Applies the epilogue to rows [m0, m0+mb) and columns [n0, n0+nb) of C.
void gemmEpilogue(float *c, int64_t ldc, int64_t m0, int64_t mb, int64_t n0,
                  int64_t nb, int64_t n, const Epilogue &e) {
  for (int64_t i = 0; i < mb; ++i) {
    float *row = c + (m0 + i) * ldc + n0;
    if (e.alpha != 1.f)
      for (int64_t j = 0; j < nb; ++j)
        row[j] *= e.alpha;
    switch (e.biasMode) {
    case 1:
      for (int64_t j = 0; j < nb; ++j)
        row[j] += e.beta * e.bias[n0 + j];
      break;
    case 2: {
      float b = e.beta * e.bias[m0 + i];
      for (int64_t j = 0; j < nb; ++j)
        row[j] += b;
      break;
    }
    case 3:
      for (int64_t j = 0; j < nb; ++j)
        row[j] += e.beta * e.bias[(m0 + i) * n + n0 + j];
      break;
    case 4:
      for (int64_t j = 0; j < nb; ++j)
        row[j] += e.beta * e.bias[0];
      break;
    default:
      break;
    }
    if (e.res) {
      const float *r = e.res + (m0 + i) * ldc + n0;
      for (int64_t j = 0; j < nb; ++j)
        row[j] += r[j];
    }
    applyActivation(row, nb, e.act, e.actAlpha, e.actBeta);
  }
}

bool gemmTile(const KernelCall &call, const int64_t *tile, std::string &error) {
  const int64_t *ip = call.ip;
  const float *fp = call.fp;
  int64_t M = ip[AMK_GEMM_M], N = ip[AMK_GEMM_N], K = ip[AMK_GEMM_K];
  int64_t lda = ip[AMK_GEMM_LDA], ldb = ip[AMK_GEMM_LDB],
          ldc = ip[AMK_GEMM_LDC];
  bool transA = ip[AMK_GEMM_TRANS_A], transB = ip[AMK_GEMM_TRANS_B];
  const float *A = static_cast<const float *>(call.buffers[0]);
  const float *B = static_cast<const float *>(call.buffers[1]);
  float *C = static_cast<float *>(call.buffers[2]);
  const float *bias = static_cast<const float *>(call.buffers[3]);
  const float *res = static_cast<const float *>(call.buffers[4]);
  Epilogue e{fp[AMK_GEMM_ALPHA],
             fp[AMK_GEMM_BETA],
             bias ? (int)ip[AMK_GEMM_BIAS_MODE] : 0,
             nullptr,
             nullptr,
             (int)ip[AMK_GEMM_ACT],
             fp[AMK_GEMM_ACT_ALPHA],
             fp[AMK_GEMM_ACT_BETA]};
  int64_t c0 = tile[2], c1 = tile[3];
  bool gated =
      call.kernel->num_iparams > AMK_GEMM_GATED && ip[AMK_GEMM_GATED] != 0;
  if (ip[AMK_GEMM_B_PANELS] && c0 % kColBlock) {
    error = "column tile " + std::to_string(c0) + " is not on a B panel";
    return false;
  }
  // Scratch for packed operands and gated blocks, per worker thread.
  thread_local std::vector<float> panel, aRows, gatedBlock;
  if (gated)
    gatedBlock.resize(kRowBlock * kColBlock);
  for (int64_t r = tile[0]; r < tile[1];) {
    int64_t b = r / M, mStart = r % M;
    int64_t mEnd = std::min(M, mStart + (tile[1] - r));
    int64_t rows = mEnd - mStart;
    const float *Ab = A + b * ip[AMK_GEMM_A_BSTRIDE];
    const float *Bb = B + b * ip[AMK_GEMM_B_BSTRIDE];
    float *Cb = C + b * ip[AMK_GEMM_C_BSTRIDE];
    e.bias = bias ? bias + b * ip[AMK_GEMM_BIAS_BSTRIDE] : nullptr;
    e.res = res ? res + b * ip[AMK_GEMM_RES_BSTRIDE] : nullptr;
    // A transposed A is packed once per tile into row-major rows.
    const float *Ause = Ab;
    int64_t ldaUse = lda, aRow0 = 0;
    if (transA) {
      aRows.resize(rows * K);
      for (int64_t k = 0; k < K; ++k)
        for (int64_t i = 0; i < rows; ++i)
          aRows[i * K + k] = Ab[k * lda + mStart + i];
      Ause = aRows.data(), ldaUse = K, aRow0 = mStart;
    }
    // A B panel (K x 64 columns) is packed contiguously when B is
    // transposed, or when enough row blocks reuse it: rows of B at a large
    // power-of-two-ish stride map to few cache sets and thrash L1.
    bool panels = ip[AMK_GEMM_B_PANELS] != 0;
    bool packB =
        !panels && (transB || (rows >= 2 * kRowBlock && ldb != kColBlock));
    BlockKernels bk;
    bk.lda = ldaUse, bk.ldb = packB || panels ? kColBlock : ldb,
    bk.ldc = gated ? kColBlock : ldc;
    if (packB)
      panel.resize(K * kColBlock);
    // Column blocks outside, row blocks inside: a K x 64 panel of B stays
    // in cache while every row block of A passes over it, so B (often the
    // large operand) is read from memory once per tile.
    for (int64_t n0 = c0; n0 < c1; n0 += kColBlock) {
      int64_t nb = std::min(kColBlock, c1 - n0);
      const float *Bp = Bb + n0; // Column n0 of row 0.
      int64_t ldbUse = ldb;
      if (panels) {
        Bp = Bb + (n0 / kColBlock) * K * kColBlock, ldbUse = kColBlock;
      } else if (packB) {
        float *dst = panel.data();
        if (transB)
          for (int64_t k = 0; k < K; ++k)
            for (int64_t j = 0; j < nb; ++j)
              dst[k * kColBlock + j] = Bb[(n0 + j) * ldb + k];
        else
          for (int64_t k = 0; k < K; ++k)
            std::memcpy(dst + k * kColBlock, Bb + k * ldb + n0, nb * 4);
        Bp = dst, ldbUse = kColBlock;
      }
      for (int64_t m0 = mStart; m0 < mEnd; m0 += kRowBlock) {
        int64_t mb = std::min(kRowBlock, mEnd - m0);
        const float *Ap = Ause + (m0 - aRow0) * ldaUse;
        // A gated product computes the whole panel (gate and up halves)
        // into the block, then writes act(gate) * up.
        float *Cblock = gated ? gatedBlock.data() : Cb + m0 * ldc + n0;
        int64_t ldBlock = gated ? kColBlock : ldc;
        int64_t nbUse = gated ? kColBlock : nb;
        if (K == 0) {
          for (int64_t i = 0; i < mb; ++i)
            std::fill_n(Cblock + i * ldBlock, nbUse, 0.f);
        } else {
          for (int64_t k0 = 0; k0 < K; k0 += kDepthBlock) {
            int64_t kb = std::min(kDepthBlock, K - k0);
            if (!bk.get(mb, nbUse, kb)) {
              error = "libxsmm has no kernel for a " + std::to_string(mb) +
                      "x" + std::to_string(nbUse) + "x" + std::to_string(kb) +
                      " block";
              return false;
            }
            (k0 == 0 ? bk.first : bk.accum)(Bp + k0 * ldbUse, Ap + k0, Cblock);
          }
        }
        if (!gated) {
          gemmEpilogue(Cb, ldc, m0, mb, n0, nb, N, e);
          continue;
        }
        const int64_t half = kColBlock / 2, out0 = n0 / 2;
        int64_t outs = std::min(half, ldc - out0);
        for (int64_t i = 0; i < mb; ++i) {
          float *g = Cblock + i * kColBlock;
          applyActivation(g, outs, e.act, e.actAlpha, e.actBeta);
          float *y = Cb + (m0 + i) * ldc + out0;
          for (int64_t j = 0; j < outs; ++j)
            y[j] = g[j] * g[half + j];
        }
      }
    }
    r += rows;
  }
  return true;
}

} // namespace

bool blockGemm(const float *A, int64_t lda, const float *B, int64_t ldb,
               float *C, int64_t ldc, int64_t M, int64_t N, int64_t K) {
  BlockKernels bk;
  bk.lda = lda, bk.ldb = ldb, bk.ldc = ldc;
  return blockGemm(bk, A, B, C, M, N, K);
}

bool blockGemm(BlockKernels &bk, const float *A, const float *B, float *C,
               int64_t M, int64_t N, int64_t K) {
  const int64_t lda = bk.lda, ldb = bk.ldb, ldc = bk.ldc;
  for (int64_t m0 = 0; m0 < M; m0 += kRowBlock) {
    int64_t mb = std::min(kRowBlock, M - m0);
    for (int64_t n0 = 0; n0 < N; n0 += kColBlock) {
      int64_t nb = std::min(kColBlock, N - n0);
      for (int64_t k0 = 0; k0 < K; k0 += kDepthBlock) {
        int64_t kb = std::min(kDepthBlock, K - k0);
        if (!bk.get(mb, nb, kb))
          return false;
        (k0 == 0 ? bk.first : bk.accum)(B + k0 * ldb + n0, A + m0 * lda + k0,
                                        C + m0 * ldc + n0);
      }
    }
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_GEMM>::run(const KernelCall &call, const int64_t *tile,
                                    std::string &error) {
  return gemmTile(call, tile, error);
}

template <>
bool KernelImpl<AMK_RT_K_GEMM>::check(const amk_rt_kernel &k, const int64_t *ip,
                                      const float *, std::string &error) {
  if (!hasParams(k, AMK_GEMM_NUM_IPARAMS, AMK_GEMM_NUM_FPARAMS, error) ||
      k.num_buffers < 5)
    return false;
  if (k.num_iparams > AMK_GEMM_GATED && ip[AMK_GEMM_GATED] != 0 &&
      (!ip[AMK_GEMM_B_PANELS] || ip[AMK_GEMM_BIAS_MODE] != 0 ||
       ip[AMK_GEMM_RES_BSTRIDE] != 0 || ip[AMK_GEMM_N] % kColBlock ||
       2 * ip[AMK_GEMM_LDC] > ip[AMK_GEMM_N] ||
       2 * ip[AMK_GEMM_LDC] <= ip[AMK_GEMM_N] - kColBlock)) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': a gated GEMM needs B in panels, no bias or residual, and N "
            "the panels covering 2 x ldc outputs";
    return false;
  }
  return true;
}

} // namespace amk::rt
