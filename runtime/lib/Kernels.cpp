//===- Kernels.cpp - The runtime's kernel library -------------------------===//
//
// Part of AMK. GEMM blocks run on libxsmm's JIT microkernels (measured at
// 220-226 GFLOP/s on one core of this machine, about its FMA peak); the
// rest are written here as plain loops the compiler vectorizes, because no
// library offers them as tile-callable functions (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "EwProgram.h"

#include "amk/kernel_params.h"

#include <libxsmm.h>
#ifdef __AVX512F__
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace amk::rt {

//===----------------------------------------------------------------------===//
// Math
//===----------------------------------------------------------------------===//

/// Sixteen floats as one vector (GCC/Clang vector extension: one AVX-512
/// register, or split by the compiler on narrower targets).
typedef float V16 __attribute__((vector_size(64)));
typedef int32_t I16 __attribute__((vector_size(64)));

static inline V16 loadV16(const float *p) {
  V16 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

/// 1 / x on 16 lanes: the 14-bit hardware estimate and one Newton step
/// (relative error about 2^-28, below float's rounding) instead of a
/// division, which costs ten times as much per vector.
static inline V16 recipV(V16 x) {
#ifdef __AVX512F__
  V16 r = (V16)_mm512_rcp14_ps((__m512)x);
  // The step is NaN where the estimate is exact and infinite or zero
  // (x = 0, x = +-inf): keep the estimate there.
  V16 n = r * (2.f - x * r);
  return n == n ? n : r;
#else
  return 1.f / x;
#endif
}

/// exp(x) = 2^n * exp(r), r = x - n ln2 in [-ln2/2, ln2/2], on 16 lanes.
/// Below -87.3 the result would be subnormal: 0 instead (an absolute error
/// under FLT_MIN), because subnormal operands slow every later multiply on
/// x86 by one to two orders of magnitude. A NaN stays NaN.
static inline V16 fastExpV(V16 x) {
  I16 under = x < -87.3f;
  x = x > 88.3f ? 88.3f : x;
  V16 n = __builtin_elementwise_roundeven(x * 1.44269504f);
  V16 r = x - n * 0.693145752f;
  r = r - n * 1.42860677e-6f;
  V16 p = r * (1.f / 5040) + 1.f / 720;
  p = p * r + 1.f / 120;
  p = p * r + 1.f / 24;
  p = p * r + 1.f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  I16 e = __builtin_convertvector(n, I16) + 127;
  V16 v = p * (V16)(e << 23);
  return under ? 0.f : v;
}

float fastExp(float x) {
  V16 v = fastExpV((V16){} + x);
  return v[0];
}

/// erf(|x|) by Abramowitz & Stegun 7.1.26 alone: absolute error <= 1.5e-7,
/// enough where erf is added to 1 (GELU), not near 0 on its own.
static inline V16 erfAbsV(V16 a) {
  V16 t = recipV(1.f + 0.3275911f * a);
  V16 y =
      t * (0.254829592f +
           t * (-0.284496736f +
                t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  return 1.f - y * fastExpV(-a * a);
}

/// erf with the Taylor series near 0, where a relative error matters.
static inline V16 fastErfV(V16 x) {
  V16 a = __builtin_elementwise_abs(x);
  V16 big = erfAbsV(a);
  V16 x2 = x * x;
  V16 small =
      a * (1.12837917f +
           x2 * (-0.376126389f + x2 * (0.112837917f - x2 * 0.0268661706f)));
  V16 r = a < 0.125f ? small : big;
  return x < 0.f ? -r : r;
}

/// tanh from exp(-2|x|), with the Taylor series near 0.
static inline V16 fastTanhV(V16 x) {
  V16 a = __builtin_elementwise_abs(x);
  V16 e = fastExpV(-2.f * a);
  V16 big = (1.f - e) * recipV(1.f + e);
  V16 x2 = x * x;
  V16 small =
      a * (1.f + x2 * (-1.f / 3 + x2 * (2.f / 15 + x2 * (-17.f / 315))));
  V16 r = a < 0.0625f ? small : big;
  return x < 0.f ? -r : r;
}

/// Below about -87 the logistic is subnormal: 0 instead (see fastExp).
static inline V16 sigmoidV(V16 x) {
  V16 s = recipV(1.f + fastExpV(-x));
  return s < std::numeric_limits<float>::min() ? 0.f : s;
}

/// y[i] = f(x[i]) 16 lanes at a time; the tail goes through the same
/// vector code in a padded buffer, so an element's result does not depend
/// on where its row or tile starts. x and y may be the same.
template <typename F>
static inline void mapV16(const float *x, float *y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    V16 v = f(loadV16(x + i));
    std::memcpy(y + i, &v, sizeof(v));
  }
  if (i < n) {
    float t[16] = {};
    std::memcpy(t, x + i, (n - i) * sizeof(float));
    V16 v = f(loadV16(t));
    std::memcpy(y + i, &v, (n - i) * sizeof(float));
  }
}

/// The transcendental activations, through mapV16.
template <int Op> static void unaryLoopV(float *x, int64_t n, float alpha) {
  auto f = [=](V16 v) -> V16 {
    if constexpr (Op == AMK_OP_SIGMOID)
      return sigmoidV(v);
    else if constexpr (Op == AMK_OP_TANH)
      return fastTanhV(v);
    else if constexpr (Op == AMK_OP_GELU) {
      V16 e = erfAbsV(__builtin_elementwise_abs(v) * 0.70710678f);
      return 0.5f * v * (1.f + (v < 0.f ? -e : e));
    } else if constexpr (Op == AMK_OP_GELU_TANH)
      return 0.5f * v *
             (1.f + fastTanhV(0.7978845608f * (v + 0.044715f * v * v * v)));
    else if constexpr (Op == AMK_OP_QUICK_GELU)
      return v * sigmoidV(alpha * v);
    else if constexpr (Op == AMK_OP_EXP)
      return fastExpV(v);
    else
      return fastErfV(v);
  };
  mapV16(x, x, n, f);
}

/// The cheap activations, one element at a time (the compiler vectorizes
/// these loops); the transcendental ones go to unaryLoopV.
template <int Op>
static void unaryLoop(float *x, int64_t n, float alpha, float beta) {
  if constexpr (Op == AMK_OP_SIGMOID || Op == AMK_OP_TANH ||
                Op == AMK_OP_GELU || Op == AMK_OP_GELU_TANH ||
                Op == AMK_OP_QUICK_GELU || Op == AMK_OP_EXP ||
                Op == AMK_OP_ERF) {
    unaryLoopV<Op>(x, n, alpha);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      float v = x[i];
      if constexpr (Op == AMK_OP_RELU)
        v = v > 0 ? v : 0;
      else if constexpr (Op == AMK_OP_CLIP)
        v = std::min(std::max(v, alpha), beta);
      else if constexpr (Op == AMK_OP_LEAKY_RELU)
        v = v >= 0 ? v : alpha * v;
      else if constexpr (Op == AMK_OP_HARD_SWISH)
        v = v * std::min(std::max(v / 6.f + 0.5f, 0.f), 1.f);
      else if constexpr (Op == AMK_OP_HARD_SIGMOID)
        v = std::min(std::max(alpha * v + beta, 0.f), 1.f);
      else if constexpr (Op == AMK_OP_NEG)
        v = -v;
      else if constexpr (Op == AMK_OP_ABS)
        v = std::fabs(v);
      else if constexpr (Op == AMK_OP_RECIPROCAL)
        v = 1.f / v;
      x[i] = v;
    }
  }
}

void applyActivation(float *x, int64_t n, int act, float alpha, float beta) {
  switch (act) {
  case AMK_OP_NONE:
  case AMK_OP_COPY:
    return;
  case AMK_OP_RELU:
    return unaryLoop<AMK_OP_RELU>(x, n, alpha, beta);
  case AMK_OP_CLIP:
    return unaryLoop<AMK_OP_CLIP>(x, n, alpha, beta);
  case AMK_OP_LEAKY_RELU:
    return unaryLoop<AMK_OP_LEAKY_RELU>(x, n, alpha, beta);
  case AMK_OP_SIGMOID:
    return unaryLoop<AMK_OP_SIGMOID>(x, n, alpha, beta);
  case AMK_OP_HARD_SWISH:
    return unaryLoop<AMK_OP_HARD_SWISH>(x, n, alpha, beta);
  case AMK_OP_HARD_SIGMOID:
    return unaryLoop<AMK_OP_HARD_SIGMOID>(x, n, alpha, beta);
  case AMK_OP_TANH:
    return unaryLoop<AMK_OP_TANH>(x, n, alpha, beta);
  case AMK_OP_GELU:
    return unaryLoop<AMK_OP_GELU>(x, n, alpha, beta);
  case AMK_OP_GELU_TANH:
    return unaryLoop<AMK_OP_GELU_TANH>(x, n, alpha, beta);
  case AMK_OP_QUICK_GELU:
    return unaryLoop<AMK_OP_QUICK_GELU>(x, n, alpha, beta);
  case AMK_OP_NEG:
    return unaryLoop<AMK_OP_NEG>(x, n, alpha, beta);
  case AMK_OP_EXP:
    return unaryLoop<AMK_OP_EXP>(x, n, alpha, beta);
  case AMK_OP_ABS:
    return unaryLoop<AMK_OP_ABS>(x, n, alpha, beta);
  case AMK_OP_RECIPROCAL:
    return unaryLoop<AMK_OP_RECIPROCAL>(x, n, alpha, beta);
  case AMK_OP_ERF:
    return unaryLoop<AMK_OP_ERF>(x, n, alpha, beta);
  // Rare ones: exact library calls.
  case AMK_OP_LOG:
    for (int64_t i = 0; i < n; ++i)
      x[i] = std::log(x[i]);
    return;
  case AMK_OP_SQRT:
    for (int64_t i = 0; i < n; ++i)
      x[i] = std::sqrt(x[i]);
    return;
  case AMK_OP_FLOOR:
    for (int64_t i = 0; i < n; ++i)
      x[i] = std::floor(x[i]);
    return;
  case AMK_OP_CEIL:
    for (int64_t i = 0; i < n; ++i)
      x[i] = std::ceil(x[i]);
    return;
  case AMK_OP_SOFTPLUS:
    for (int64_t i = 0; i < n; ++i)
      x[i] = std::log1p(std::exp(x[i]));
    return;
  case AMK_OP_ROUND:
    // The default rounding mode rounds halves to even.
    for (int64_t i = 0; i < n; ++i)
      x[i] = std::nearbyint(x[i]);
    return;
  }
}

static bool isUnaryOp(int64_t op) { return op >= 1 && op <= AMK_OP_ROUND; }
static bool isBinaryOp(int64_t op) { return op >= 32 && op <= 38; }

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

namespace {
constexpr int64_t kRowBlock = 32;
constexpr int64_t kColBlock = AMK_GEMM_PANEL;
constexpr int64_t kDepthBlock = 512;

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
               float *C, int64_t ldc, int64_t M, int64_t N, int64_t K) {
  BlockKernels bk;
  bk.lda = lda, bk.ldb = ldb, bk.ldc = ldc;
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

bool gemmTile(const KernelCall &call, const int64_t *tile,
              std::string &error) {
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
  if (ip[AMK_GEMM_B_PANELS] && c0 % kColBlock) {
    error = "column tile " + std::to_string(c0) + " is not on a B panel";
    return false;
  }
  // Scratch for packed operands, per worker thread.
  thread_local std::vector<float> panel, aRows;
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
    bk.lda = ldaUse, bk.ldb = packB || panels ? kColBlock : ldb, bk.ldc = ldc;
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
        if (K == 0) {
          for (int64_t i = 0; i < mb; ++i)
            std::fill_n(Cb + (m0 + i) * ldc + n0, nb, 0.f);
        } else {
          for (int64_t k0 = 0; k0 < K; k0 += kDepthBlock) {
            int64_t kb = std::min(kDepthBlock, K - k0);
            if (!bk.get(mb, nb, kb)) {
              error = "libxsmm has no kernel for a " + std::to_string(mb) +
                      "x" + std::to_string(nb) + "x" + std::to_string(kb) +
                      " block";
              return false;
            }
            (k0 == 0 ? bk.first : bk.accum)(Bp + k0 * ldbUse, Ap + k0,
                                            Cb + m0 * ldc + n0);
          }
        }
        gemmEpilogue(Cb, ldc, m0, mb, n0, nb, N, e);
      }
    }
    r += rows;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

struct Spatial {
  int64_t n, c, h, w, oc, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw, group,
      mode;
  explicit Spatial(const int64_t *ip)
      : n(ip[AMK_SP_N]), c(ip[AMK_SP_C]), h(ip[AMK_SP_H]), w(ip[AMK_SP_W]),
        oc(ip[AMK_SP_OC]), kh(ip[AMK_SP_KH]), kw(ip[AMK_SP_KW]),
        oh(ip[AMK_SP_OH]), ow(ip[AMK_SP_OW]), sh(ip[AMK_SP_SH]),
        sw(ip[AMK_SP_SW]), ph(ip[AMK_SP_PH]), pw(ip[AMK_SP_PW]),
        dh(ip[AMK_SP_DH]), dw(ip[AMK_SP_DW]), group(ip[AMK_SP_GROUP]),
        mode(ip[AMK_SP_MODE]) {}
};

/// The buffers of DWCONV and CONV: X, W, Y, bias, residual (null where
/// absent).
struct ConvBuffers {
  const float *X, *W;
  float *Y;
  const float *bias, *res;
  static ConvBuffers of(const KernelCall &call) {
    return {static_cast<const float *>(call.buffers[0]),
            static_cast<const float *>(call.buffers[1]),
            static_cast<float *>(call.buffers[2]),
            static_cast<const float *>(call.buffers[3]),
            static_cast<const float *>(call.buffers[4])};
  }
};

void convEpilogue(float *y, int64_t P, int64_t channel, const float *bias,
                  const float *res, int act, const float *fp);

/// Implicit-GEMM convolution (group 1): Y[oc][p] = sum_k W[oc][k] col[k][p]
/// where the columns of each (depth block, pixel block) are packed into a
/// small per-task buffer that stays in cache, instead of materializing the
/// whole im2col matrix in memory.
bool convGemmTile(const KernelCall &call, const int64_t *tile,
                  std::string &error) {
  Spatial s(call.ip);
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  int64_t kk = s.kh * s.kw, K = s.c * kk, P = s.oh * s.ow;
  thread_local std::vector<float> packed;
  packed.resize(kDepthBlock * kColBlock);
  BlockKernels bk;
  bk.lda = K, bk.ldb = kColBlock, bk.ldc = P;
  for (int64_t r = tile[0]; r < tile[1];) {
    int64_t img = r / s.oc, mStart = r % s.oc;
    int64_t mEnd = std::min(s.oc, mStart + (tile[1] - r));
    const float *x = X + img * s.c * s.h * s.w;
    float *y = Y + img * s.oc * P;
    for (int64_t n0 = tile[2]; n0 < tile[3]; n0 += kColBlock) {
      int64_t nb = std::min(kColBlock, tile[3] - n0);
      for (int64_t k0 = 0; k0 < K; k0 += kDepthBlock) {
        int64_t kb = std::min(kDepthBlock, K - k0);
        // Pack rows k0..k0+kb of the column matrix for pixels n0..n0+nb.
        for (int64_t k = 0; k < kb; ++k) {
          int64_t kg = k0 + k, ch = kg / kk, ky = (kg % kk) / s.kw,
                  kx = kg % s.kw;
          const float *xc = x + ch * s.h * s.w;
          float *dst = packed.data() + k * kColBlock;
          for (int64_t p = n0; p < n0 + nb;) {
            int64_t oy = p / s.ow, ox0 = p % s.ow;
            int64_t run = std::min(s.ow - ox0, n0 + nb - p);
            float *o = dst + (p - n0);
            int64_t iy = oy * s.sh - s.ph + ky * s.dh;
            if (iy < 0 || iy >= s.h) {
              std::fill_n(o, run, 0.f);
            } else {
              const float *xr = xc + iy * s.w;
              int64_t base = kx * s.dw - s.pw;
              if (s.sw == 1) {
                int64_t lo = std::clamp<int64_t>(-base - ox0, 0, run);
                int64_t hi = std::clamp<int64_t>(s.w - base - ox0, lo, run);
                std::fill_n(o, lo, 0.f);
                std::memcpy(o + lo, xr + base + ox0 + lo,
                            (hi - lo) * sizeof(float));
                std::fill(o + hi, o + run, 0.f);
              } else {
                for (int64_t i = 0; i < run; ++i) {
                  int64_t ix = (ox0 + i) * s.sw + base;
                  o[i] = ix >= 0 && ix < s.w ? xr[ix] : 0.f;
                }
              }
            }
            p += run;
          }
        }
        for (int64_t m0 = mStart; m0 < mEnd; m0 += kRowBlock) {
          int64_t mb = std::min(kRowBlock, mEnd - m0);
          if (!bk.get(mb, nb, kb)) {
            error = "libxsmm has no kernel for a conv block";
            return false;
          }
          (k0 == 0 ? bk.first : bk.accum)(packed.data(), W + m0 * K + k0,
                                          y + m0 * P + n0);
        }
      }
      for (int64_t m = mStart; m < mEnd; ++m)
        convEpilogue(y + m * P + n0, nb, m, bias,
                     res ? res + (img * s.oc + m) * P + n0 : nullptr,
                     (int)s.mode, call.fp);
    }
    r += mEnd - mStart;
  }
  return true;
}

void convEpilogue(float *y, int64_t P, int64_t channel, const float *bias,
                  const float *res, int act, const float *fp) {
  if (bias) {
    float b = bias[channel];
    for (int64_t i = 0; i < P; ++i)
      y[i] += b;
  }
  if (res)
    for (int64_t i = 0; i < P; ++i)
      y[i] += res[i];
  applyActivation(y, P, act, fp[0], fp[1]);
}

/// Stores the first n <= 16 lanes of v (a full vector as one store, a
/// partial one masked, not as a library memcpy of variable length).
inline void storeV16(float *p, V16 v, int64_t n) {
  if (n == 16) {
    std::memcpy(p, &v, sizeof(v));
    return;
  }
#ifdef __AVX512F__
  _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1), (__m512)v);
#else
  std::memcpy(p, &v, n * sizeof(float));
#endif
}

/// p[0], p[2], ..., p[30] (reads p[0..31]).
inline V16 loadV16Stride2(const float *p) {
  V16 a = loadV16(p), b = loadV16(p + 16);
  return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                 22, 24, 26, 28, 30);
}

/// Reductions over a row, 16 lanes at a time (a float reduction does not
/// vectorize on its own: the compiler keeps the sequential order). The
/// lanes are added in a fixed order, so a result does not depend on the
/// tiling or the thread.
inline float sumFloats(const float *x, int64_t n) {
  V16 acc = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    acc += loadV16(x + i);
  float s = 0;
  for (int k = 0; k < 16; ++k)
    s += acc[k];
  for (; i < n; ++i)
    s += x[i];
  return s;
}

inline float maxFloats(const float *x, int64_t n) {
  float m = -std::numeric_limits<float>::infinity();
  int64_t i = 0;
  if (n >= 16) {
    V16 acc = loadV16(x);
    for (i = 16; i + 16 <= n; i += 16) {
      V16 v = loadV16(x + i);
      acc = v > acc ? v : acc;
    }
    for (int k = 0; k < 16; ++k)
      m = std::max(m, acc[k]);
  }
  for (; i < n; ++i)
    m = std::max(m, x[i]);
  return m;
}

/// sum((x[i] - mean)^2).
inline float sumSquaredDiff(const float *x, int64_t n, float mean) {
  V16 acc = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    V16 d = loadV16(x + i) - mean;
    acc += d * d;
  }
  float s = 0;
  for (int k = 0; k < 16; ++k)
    s += acc[k];
  for (; i < n; ++i)
    s += (x[i] - mean) * (x[i] - mean);
  return s;
}

/// Prefetches part `i` of `parts` of the `bytes` at `next` (nothing when
/// `next` is null): a kernel working through a plane in `parts` steps
/// fetches the next plane a share per step, so its reads from memory
/// overlap this plane's arithmetic.
inline void prefetchShare(const char *next, int64_t bytes, int64_t i,
                          int64_t parts) {
  if (!next)
    return;
  int64_t lines = (bytes + 63) / 64,
          per = (lines + parts - 1) / std::max<int64_t>(1, parts);
  for (int64_t l = i * per; l < std::min(lines, (i + 1) * per); ++l)
    __builtin_prefetch(next + l * 64);
}

/// One output plane of a 3x3 depthwise convolution, stride SW (1 or 2),
/// dilation 1, from the zero-padded input plane (readable 32 floats past
/// its end): every 16-pixel block of an output row is nine vector FMAs on
/// one register of accumulators, then the bias and a ReLU/Clip, then one
/// store. The taps are added in the generic loop's order.
template <int SW>
void dw3x3Plane(const float *plane, int64_t PW, int64_t sh, int64_t oh,
                int64_t ow, const float *wk, float bias, int act, float lo,
                float hi, float *y, const char *next, int64_t nextBytes) {
  constexpr int64_t V = 16;
  for (int64_t oy = 0; oy < oh; ++oy) {
    prefetchShare(next, nextBytes, oy, oh);
    const float *r0 = plane + oy * sh * PW;
    float *yr = y + oy * ow;
    for (int64_t ox0 = 0; ox0 < ow; ox0 += V) {
      V16 acc = {};
      const float *src = r0 + ox0 * SW;
      for (int ky = 0; ky < 3; ++ky, src += PW)
        for (int kx = 0; kx < 3; ++kx) {
          V16 x = SW == 1 ? loadV16(src + kx) : loadV16Stride2(src + kx);
          acc += wk[ky * 3 + kx] * x;
        }
      acc += bias;
      if (act == AMK_OP_RELU) {
        V16 zero = {};
        acc = acc > zero ? acc : zero;
      } else if (act == AMK_OP_CLIP) {
        V16 l = lo - (V16){}, h = hi - (V16){};
        acc = acc < l ? l : acc;
        acc = acc > h ? h : acc;
      }
      storeV16(yr + ox0, acc, std::min(V, ow - ox0));
    }
  }
}

/// Depthwise: output channel o reads input channel o / multiplier. The
/// input plane is copied once into a zero-padded buffer so the inner loops
/// carry no bounds checks and vectorize.
void dwconvTile(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  int64_t mult = s.oc / s.c, P = s.oh * s.ow;
  // Output rows are computed 16 pixels at a time in registers (one vector
  // of accumulators, every tap added before one store), so the row is
  // rounded up to 16 and the padded plane covers every tap of that.
  constexpr int64_t V = 16;
  int64_t OWr = (s.ow + V - 1) / V * V;
  int64_t PH = std::max(s.h + s.ph, (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1);
  int64_t PW = std::max(s.w + s.pw, (OWr - 1) * s.sw + (s.kw - 1) * s.dw + 1);
  thread_local std::vector<float> plane, row;
  // 32 floats of slack: the 3x3 path reads whole vectors.
  plane.assign(PH * PW + 32, 0.f);
  row.resize(OWr);
  bool fast3x3 = s.kh == 3 && s.kw == 3 && s.dh == 1 && s.dw == 1 &&
                 (s.sw == 1 || s.sw == 2);
  int64_t loaded = -1;
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t img = r / s.oc, o = r % s.oc, ch = o / mult;
    int64_t key = img * s.c + ch;
    if (key != loaded) {
      const float *x = X + key * s.h * s.w;
      for (int64_t iy = 0; iy < s.h; ++iy)
        std::memcpy(plane.data() + (iy + s.ph) * PW + s.pw, x + iy * s.w,
                    s.w * sizeof(float));
      loaded = key;
    }
    const float *wk = W + o * s.kh * s.kw;
    float *y = Y + r * P;
    // The common 3x3 shapes, with the epilogue fused when it is only a
    // bias and a ReLU/Clip.
    if (fast3x3) {
      // The activation runs in the kernel only when nothing comes between
      // the bias and it (a residual is added first).
      bool fuseAct = !res && (s.mode == AMK_OP_NONE || s.mode == AMK_OP_RELU ||
                              s.mode == AMK_OP_CLIP);
      int act = fuseAct ? (int)s.mode : AMK_OP_NONE;
      float b = bias ? bias[o] : 0.f;
      // The next row's input plane, when it is another channel.
      const char *next = nullptr;
      if (r + 1 < tile[1] && ((r + 1) % s.oc) / mult != ch)
        next = reinterpret_cast<const char *>(X + (key + 1) * s.h * s.w);
      int64_t nextBytes = s.h * s.w * sizeof(float);
      if (s.sw == 1)
        dw3x3Plane<1>(plane.data(), PW, s.sh, s.oh, s.ow, wk, b, act,
                      call.fp[0], call.fp[1], y, next, nextBytes);
      else
        dw3x3Plane<2>(plane.data(), PW, s.sh, s.oh, s.ow, wk, b, act,
                      call.fp[0], call.fp[1], y, next, nextBytes);
      if (!fuseAct)
        convEpilogue(y, P, o, nullptr, res ? res + r * P : nullptr, (int)s.mode,
                     call.fp);
      continue;
    }
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      for (int64_t ox0 = 0; ox0 < OWr; ox0 += V) {
        float acc[V] = {};
        for (int64_t ky = 0; ky < s.kh; ++ky) {
          const float *__restrict prow =
              plane.data() + (oy * s.sh + ky * s.dh) * PW + ox0 * s.sw;
          for (int64_t kx = 0; kx < s.kw; ++kx) {
            float wv = wk[ky * s.kw + kx];
            const float *__restrict src = prow + kx * s.dw;
            if (s.sw == 1) {
              for (int64_t i = 0; i < V; ++i)
                acc[i] += wv * src[i];
            } else if (s.sw == 2) {
              for (int64_t i = 0; i < V; ++i)
                acc[i] += wv * src[2 * i];
            } else {
              for (int64_t i = 0; i < V; ++i)
                acc[i] += wv * src[i * s.sw];
            }
          }
        }
        std::memcpy(row.data() + ox0, acc, sizeof(acc));
      }
      std::memcpy(y + oy * s.ow, row.data(), s.ow * sizeof(float));
    }
    convEpilogue(y, P, o, bias, res ? res + r * P : nullptr, (int)s.mode,
                 call.fp);
  }
}

//===----------------------------------------------------------------------===//
// Direct convolution on packed weights
//===----------------------------------------------------------------------===//

/// Output channels per packed weight block (two vectors).
constexpr int64_t kOcBlock = AMK_CONV_OC_BLOCK;
/// Most output pixels one register tile holds: R x 2 accumulators, plus
/// the two weight vectors, fit AVX-512's 32 registers.
constexpr int kMaxTilePixels = 14;

/// R1 + R2 output pixels times 32 output channels, summed over every input
/// channel and tap, in registers: per tap, two weight vectors and R1 + R2
/// broadcast inputs feed 2 (R1 + R2) FMAs. The first R1 pixels are
/// consecutive along a row (S input columns apart) from `x`, the first
/// pixel's input at tap (0, 0) of channel 0; the other R2 continue on the
/// next output row, `step` floats further (rows narrower than a register
/// tile are taken two at a time). `taps` are the taps' offsets; `w` is the
/// packed block, [C][taps][32]. The sum runs channel by channel and tap by
/// tap whatever the tiling, so every tiling gives the same bits. Writes
/// out[R1 + R2][32].
template <int R1, int R2, int S>
void convMicroTile(const float *x, int64_t step, int64_t cs, int64_t C,
                   const int64_t *taps, int64_t ntaps, const float *w,
                   float *out) {
  V16 acc[R1 + R2][2] = {};
  const int64_t next = C * ntaps * kOcBlock;
  for (int64_t c = 0; c < C; ++c, x += cs) {
    for (int64_t t = 0; t < ntaps; ++t, w += kOcBlock) {
      const float *xt = x + taps[t];
      V16 w0 = loadV16(w), w1 = loadV16(w + 16);
      // This block's weights ahead into L1, the next block's into L2 (the
      // next register tile over other channels streams them from there).
      __builtin_prefetch(w + 16 * kOcBlock);
      __builtin_prefetch(w + 16 * kOcBlock + 16);
      __builtin_prefetch(w + next, 0, 2);
      __builtin_prefetch(w + next + 16, 0, 2);
      for (int j = 0; j < R1 + R2; ++j) {
        float v = j < R1 ? xt[j * S] : xt[step + (j - R1) * S];
        acc[j][0] += w0 * v;
        acc[j][1] += w1 * v;
      }
    }
  }
  std::memcpy(out, acc, sizeof(acc));
}

using MicroTileFn = void (*)(const float *, int64_t, int64_t, int64_t,
                             const int64_t *, int64_t, const float *, float *);

/// The register tiles of one row, by pixel count.
template <int S, int... Rs>
constexpr std::array<MicroTileFn, sizeof...(Rs)>
rowTiles(std::integer_sequence<int, Rs...>) {
  return {&convMicroTile<Rs + 1, 0, S>...};
}

/// The register tiles of two rows, by pixels per row.
template <int S, int... Rs>
constexpr std::array<MicroTileFn, sizeof...(Rs)>
pairTiles(std::integer_sequence<int, Rs...>) {
  return {&convMicroTile<Rs + 1, Rs + 1, S>...};
}

/// Transposes 16 vectors in place: afterwards r[k][j] is the old r[j][k].
/// Three rounds of two-source shuffles (element pairs, then 128-bit and
/// 256-bit halves), the usual 16x16 pattern.
inline void transpose16(V16 r[16]) {
  V16 t[16];
  for (int i = 0; i < 16; i += 2) {
    // Pairs of rows interleaved by element, per 128-bit lane.
    t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 16, 1, 17, 4, 20, 5, 21,
                                   8, 24, 9, 25, 12, 28, 13, 29);
    t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 18, 3, 19, 6, 22, 7,
                                       23, 10, 26, 11, 27, 14, 30, 15, 31);
  }
  for (int i = 0; i < 16; i += 4)
    for (int h = 0; h < 2; ++h) {
      // Element pairs of rows i+h and i+2+h: a 4x4 block per 128-bit lane.
      r[i + 2 * h] =
          __builtin_shufflevector(t[i + h], t[i + 2 + h], 0, 1, 16, 17, 4, 5,
                                  20, 21, 8, 9, 24, 25, 12, 13, 28, 29);
      r[i + 2 * h + 1] =
          __builtin_shufflevector(t[i + h], t[i + 2 + h], 2, 3, 18, 19, 6, 7,
                                  22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
    }
  // r[4q + c] now holds, in 128-bit lane L, column 4L + c of rows 4q..4q+3.
  for (int c = 0; c < 4; ++c) {
    V16 a0 = __builtin_shufflevector(r[c], r[4 + c], 0, 1, 2, 3, 16, 17, 18, 19,
                                     8, 9, 10, 11, 24, 25, 26, 27);
    V16 a1 = __builtin_shufflevector(r[c], r[4 + c], 4, 5, 6, 7, 20, 21, 22, 23,
                                     12, 13, 14, 15, 28, 29, 30, 31);
    V16 b0 = __builtin_shufflevector(r[8 + c], r[12 + c], 0, 1, 2, 3, 16, 17,
                                     18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
    V16 b1 = __builtin_shufflevector(r[8 + c], r[12 + c], 4, 5, 6, 7, 20, 21,
                                     22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
    t[c] = __builtin_shufflevector(a0, b0, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18,
                                   19, 20, 21, 22, 23);
    t[8 + c] = __builtin_shufflevector(a0, b0, 8, 9, 10, 11, 12, 13, 14, 15, 24,
                                       25, 26, 27, 28, 29, 30, 31);
    t[4 + c] = __builtin_shufflevector(a1, b1, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17,
                                       18, 19, 20, 21, 22, 23);
    t[12 + c] = __builtin_shufflevector(a1, b1, 8, 9, 10, 11, 12, 13, 14, 15,
                                        24, 25, 26, 27, 28, 29, 30, 31);
  }
  for (int i = 0; i < 16; ++i)
    r[i] = t[i];
}

/// The end of a direct-convolution register tile: `acc` holds n <= 16
/// pixels x 32 channels (block `ob`); channels [o0, o1) of it are written
/// to the NCHW output `y` (pixel 0 at y[o * P]) with the bias, then the
/// residual (same layout as y), then the activation.
void storeConvTile(const float *acc, int64_t n, int64_t ob, int64_t o0,
                   int64_t o1, const float *bias, const float *res, float *y,
                   int64_t P, int act, const float *fp) {
  for (int64_t h = 0; h < kOcBlock; h += 16) {
    int64_t lo = std::max<int64_t>(0, o0 - ob - h),
            hi = std::min<int64_t>(16, o1 - ob - h);
    if (lo >= hi)
      continue;
    V16 b = {};
    if (bias)
      for (int64_t k = lo; k < hi; ++k)
        b[k] = bias[ob + h + k];
    V16 r[16];
    for (int64_t j = 0; j < 16; ++j)
      r[j] = j < n ? loadV16(acc + j * kOcBlock + h) + b : V16{};
    transpose16(r);
    for (int64_t k = lo; k < hi; ++k) {
      float *yo = y + (ob + h + k) * P;
      const float *ro = res ? res + (ob + h + k) * P : nullptr;
      V16 v = r[k];
#ifdef __AVX512F__
      __mmask16 m = (__mmask16)((1u << n) - 1);
      if (ro)
        v += (V16)_mm512_maskz_loadu_ps(m, ro);
      if (act == AMK_OP_RELU) {
        v = v > 0 ? v : 0;
      } else if (act == AMK_OP_CLIP) {
        v = v < fp[0] ? fp[0] : v;
        v = v > fp[1] ? fp[1] : v;
      } else if (act != AMK_OP_NONE) {
        alignas(64) float t[16];
        std::memcpy(t, &v, sizeof(t));
        applyActivation(t, n, act, fp[0], fp[1]);
        std::memcpy(&v, t, sizeof(t));
      }
      _mm512_mask_storeu_ps(yo, m, (__m512)v);
#else
      float t[16];
      std::memcpy(t, &v, sizeof(t));
      if (ro)
        for (int64_t j = 0; j < n; ++j)
          t[j] += ro[j];
      applyActivation(t, n, act, fp[0], fp[1]);
      std::memcpy(yo, t, n * sizeof(float));
#endif
    }
  }
}

/// Direct convolution (group 1, stride 1 or 2) on weights the scheduler
/// packed as [ceil(OC/32)][C][KH][KW][32] (zero past OC). The input rows a
/// tile needs are copied once into a zero-padded buffer, so the register
/// tiles read it without bounds checks; a 1x1 convolution without padding
/// reads the input in place. No im2col: the inputs are read by broadcasts
/// straight from the (padded) planes, and each tap's weights are two
/// vectors. The register tile holds pixels x channels, so it is transposed
/// into the NCHW output, after the bias and before the residual and the
/// activation.
void directConvTile(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  using Rows = std::make_integer_sequence<int, kMaxTilePixels>;
  using Pairs = std::make_integer_sequence<int, kMaxTilePixels / 2>;
  static constexpr auto row1 = rowTiles<1>(Rows()), row2 = rowTiles<2>(Rows());
  static constexpr auto pair1 = pairTiles<1>(Pairs()),
                        pair2 = pairTiles<2>(Pairs());
  const auto &tiles = s.sw == 1 ? row1 : row2;
  const auto &pairs = s.sw == 1 ? pair1 : pair2;
  int64_t P = s.oh * s.ow, ntaps = s.kh * s.kw;
  // A 1x1 stride-1 convolution without padding reads pixel p at p: one
  // long row.
  bool flat = s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.ph == 0 &&
              s.pw == 0 && s.oh == s.h && s.ow == s.w;
  int64_t ow = flat ? P : s.ow;
  // The input is read in place only when no tap of any output falls
  // outside it: no begin padding, and no end padding either (SAME_UPPER
  // with an odd total pads only the end).
  bool pad = s.ph != 0 || s.pw != 0 ||
             (s.oh - 1) * s.sh + (s.kh - 1) * s.dh >= s.h ||
             (s.ow - 1) * s.sw + (s.kw - 1) * s.dw >= s.w;
  // Padded rows: wide enough for every tap of every output column.
  int64_t PW = pad ? (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1 : s.w;
  thread_local std::vector<float> padded;
  thread_local std::vector<int64_t> taps;
  alignas(64) float acc[kMaxTilePixels * kOcBlock];
  for (int64_t r = tile[0]; r < tile[1];) {
    int64_t img = r / s.oc, m0 = r % s.oc;
    int64_t m1 = std::min(s.oc, m0 + (tile[1] - r));
    int64_t oy0 = tile[2] / ow, oy1 = (tile[3] - 1) / ow;
    const float *x = X + img * s.c * s.h * s.w;
    // Where output row oy's tap (0, 0) reads, channel 0.
    const float *base;
    int64_t cs, rs;
    if (!pad) {
      base = x, cs = s.h * s.w, rs = s.w;
    } else {
      int64_t iy0 = oy0 * s.sh - s.ph;
      int64_t nr = (oy1 - oy0) * s.sh + (s.kh - 1) * s.dh + 1;
      padded.resize(s.c * nr * PW);
      for (int64_t c = 0; c < s.c; ++c)
        for (int64_t i = 0; i < nr; ++i) {
          float *dst = padded.data() + (c * nr + i) * PW;
          int64_t iy = iy0 + i;
          if (iy < 0 || iy >= s.h) {
            std::fill_n(dst, PW, 0.f);
            continue;
          }
          int64_t lo = std::min(s.pw, PW), n = std::min(s.w, PW - lo);
          std::fill_n(dst, lo, 0.f);
          std::memcpy(dst + lo, x + (c * s.h + iy) * s.w, n * sizeof(float));
          std::fill(dst + lo + n, dst + PW, 0.f);
        }
      // Row oy0 of the output starts at padded row 0.
      base = padded.data() - oy0 * s.sh * PW, cs = nr * PW, rs = PW;
    }
    taps.clear();
    for (int64_t ky = 0; ky < s.kh; ++ky)
      for (int64_t kx = 0; kx < s.kw; ++kx)
        taps.push_back(ky * s.dh * rs + kx * s.dw);
    for (int64_t ob = m0 / kOcBlock * kOcBlock; ob < m1; ob += kOcBlock) {
      const float *wb = W + ob / kOcBlock * s.c * ntaps * kOcBlock;
      int64_t o0 = std::max(ob, m0), o1 = std::min(ob + kOcBlock, m1);
      for (int64_t oy = oy0; oy <= oy1;) {
        int64_t ox0 = oy == oy0 ? tile[2] % ow : 0;
        int64_t ox1 = oy == oy1 ? (tile[3] - 1) % ow + 1 : ow;
        // Two whole rows narrower than half a register tile share one; a
        // wider row is cut into even pieces of at most 14 pixels.
        bool pair = 2 * ow <= kMaxTilePixels && ox0 == 0 && ox1 == ow &&
                    oy + 1 <= oy1 && (oy + 1 < oy1 || tile[3] % ow == 0);
        int64_t pieces =
            pair ? 1 : (ox1 - ox0 + kMaxTilePixels - 1) / kMaxTilePixels;
        for (int64_t i = 0; i < pieces; ++i) {
          int64_t a = ox0 + (ox1 - ox0) * i / pieces,
                  b = ox0 + (ox1 - ox0) * (i + 1) / pieces, n = b - a;
          const float *xp = base + oy * s.sh * rs + a * s.sw;
          if (pair)
            pairs[ow - 1](xp, s.sh * rs, cs, s.c, taps.data(), ntaps, wb, acc);
          else
            tiles[n - 1](xp, 0, cs, s.c, taps.data(), ntaps, wb, acc);
          // A pair's pixels are consecutive in the output too.
          n = pair ? 2 * ow : n;
          storeConvTile(acc, n, ob, o0, o1, bias,
                        res ? res + img * s.oc * P + oy * ow + a : nullptr,
                        Y + img * s.oc * P + oy * ow + a, P, (int)s.mode,
                        call.fp);
        }
        oy += pair ? 2 : 1;
      }
    }
    r += m1 - m0;
  }
}

/// Direct convolution for any group count (the general fallback).
void convTile(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  int64_t icg = s.c / s.group, ocg = s.oc / s.group, P = s.oh * s.ow;
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t img = r / s.oc, o = r % s.oc, g = o / ocg;
    float *y = Y + r * P;
    std::fill_n(y, P, 0.f);
    for (int64_t ic = 0; ic < icg; ++ic) {
      const float *x = X + (img * s.c + g * icg + ic) * s.h * s.w;
      const float *wk = W + (o * icg + ic) * s.kh * s.kw;
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          float wv = wk[ky * s.kw + kx];
          for (int64_t oy = 0; oy < s.oh; ++oy) {
            int64_t iy = oy * s.sh - s.ph + ky * s.dh;
            if (iy < 0 || iy >= s.h)
              continue;
            for (int64_t ox = 0; ox < s.ow; ++ox) {
              int64_t ix = ox * s.sw - s.pw + kx * s.dw;
              if (ix >= 0 && ix < s.w)
                y[oy * s.ow + ox] += wv * x[iy * s.w + ix];
            }
          }
        }
    }
    convEpilogue(y, P, o, bias, res ? res + r * P : nullptr, (int)s.mode,
                 call.fp);
  }
}

void poolTile(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  const float *X = static_cast<const float *>(call.buffers[0]);
  float *Y = static_cast<float *>(call.buffers[1]);
  if (s.mode != 0 && s.oh == 1 && s.ow == 1 && s.kh == s.h && s.kw == s.w &&
      s.ph == 0 && s.pw == 0) {
    // Global average: one vector sum per plane.
    for (int64_t r = tile[0]; r < tile[1]; ++r)
      Y[r] = sumFloats(X + r * s.h * s.w, s.h * s.w) / (float)(s.h * s.w);
    return;
  }
  if (s.mode == 0 && s.dh == 1 && s.dw == 1) {
    // Max pooling over a -inf padded plane: no bounds checks inside. Rows
    // are computed 16 outputs at a time (strides 1 and 2 as vectors), so
    // the plane is padded for a row rounded up to 16, plus a vector's
    // slack for the stride-2 loads.
    constexpr int64_t V = 16;
    bool vec = s.sw == 1 || s.sw == 2;
    int64_t OWr = vec ? (s.ow + V - 1) / V * V : s.ow;
    int64_t PH = std::max(s.h + s.ph, (s.oh - 1) * s.sh + s.kh);
    int64_t PW = std::max(s.w + s.pw, (OWr - 1) * s.sw + s.kw);
    thread_local std::vector<float> plane;
    plane.assign(PH * PW + 2 * V, -std::numeric_limits<float>::infinity());
    for (int64_t r = tile[0]; r < tile[1]; ++r) {
      const float *x = X + r * s.h * s.w;
      for (int64_t iy = 0; iy < s.h; ++iy)
        std::memcpy(plane.data() + (iy + s.ph) * PW + s.pw, x + iy * s.w,
                    s.w * sizeof(float));
      float *y = Y + r * s.oh * s.ow;
      const char *next = r + 1 < tile[1]
                             ? reinterpret_cast<const char *>(x + s.h * s.w)
                             : nullptr;
      for (int64_t oy = 0; oy < s.oh; ++oy) {
        prefetchShare(next, s.h * s.w * sizeof(float), oy, s.oh);
        float *yr = y + oy * s.ow;
        if (vec) {
          for (int64_t ox0 = 0; ox0 < s.ow; ox0 += V) {
            V16 acc = -std::numeric_limits<float>::infinity() - (V16){};
            for (int64_t ky = 0; ky < s.kh; ++ky) {
              const float *src =
                  plane.data() + (oy * s.sh + ky) * PW + ox0 * s.sw;
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                V16 v =
                    s.sw == 1 ? loadV16(src + kx) : loadV16Stride2(src + kx);
                acc = v > acc ? v : acc;
              }
            }
            storeV16(yr + ox0, acc, std::min(V, s.ow - ox0));
          }
          continue;
        }
        std::fill_n(yr, s.ow, -std::numeric_limits<float>::infinity());
        for (int64_t ky = 0; ky < s.kh; ++ky) {
          const float *prow = plane.data() + (oy * s.sh + ky) * PW;
          for (int64_t kx = 0; kx < s.kw; ++kx)
            for (int64_t ox = 0; ox < s.ow; ++ox)
              yr[ox] = std::max(yr[ox], prow[ox * s.sw + kx]);
        }
      }
    }
    return;
  }
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    const float *x = X + r * s.h * s.w;
    float *y = Y + r * s.oh * s.ow;
    for (int64_t oy = 0; oy < s.oh; ++oy)
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        float acc = s.mode == 0 ? -std::numeric_limits<float>::infinity() : 0;
        int64_t count = 0;
        for (int64_t ky = 0; ky < s.kh; ++ky) {
          int64_t iy = oy * s.sh - s.ph + ky * s.dh;
          for (int64_t kx = 0; kx < s.kw; ++kx) {
            int64_t ix = ox * s.sw - s.pw + kx * s.dw;
            bool in = iy >= 0 && iy < s.h && ix >= 0 && ix < s.w;
            if (s.mode == 0) {
              if (in)
                acc = std::max(acc, x[iy * s.w + ix]);
            } else if (in) {
              acc += x[iy * s.w + ix];
              ++count;
            } else if (s.mode == 1 && iy < s.h + s.ph && ix < s.w + s.pw) {
              // Counted padding stops at the declared pads (ONNX).
              ++count;
            }
          }
        }
        y[oy * s.ow + ox] =
            s.mode == 0 ? acc : (count ? acc / (float)count : 0.f);
      }
  }
}

//===----------------------------------------------------------------------===//
// Elementwise programs
//===----------------------------------------------------------------------===//

constexpr int64_t kChunk = 256;
constexpr int kMaxRank = EwProgram::kMaxRank;
template <typename T>
void loadChunk(float *dst, const void *src, int64_t off, int64_t n) {
  const T *s = static_cast<const T *>(src) + off;
  for (int64_t i = 0; i < n; ++i)
    dst[i] = (float)s[i];
}

float loadOne(const void *src, int64_t dtype, int64_t off) {
  switch (dtype) {
  case AMK_RT_I64:
    return (float)static_cast<const int64_t *>(src)[off];
  case AMK_RT_I32:
    return (float)static_cast<const int32_t *>(src)[off];
  case AMK_RT_BOOL:
  case AMK_RT_U8:
    return (float)static_cast<const uint8_t *>(src)[off];
  case AMK_RT_I8:
    return (float)static_cast<const int8_t *>(src)[off];
  default:
    return static_cast<const float *>(src)[off];
  }
}

void loadContiguous(float *dst, const void *src, int64_t dtype, int64_t off,
                    int64_t n) {
  switch (dtype) {
  case AMK_RT_I64:
    return loadChunk<int64_t>(dst, src, off, n);
  case AMK_RT_I32:
    return loadChunk<int32_t>(dst, src, off, n);
  case AMK_RT_BOOL:
  case AMK_RT_U8:
    return loadChunk<uint8_t>(dst, src, off, n);
  case AMK_RT_I8:
    return loadChunk<int8_t>(dst, src, off, n);
  default:
    std::memcpy(dst, static_cast<const float *>(src) + off, n * 4);
  }
}

bool elementwiseTile(const KernelCall &call, const int64_t *tile,
                     std::string &error) {
  if (amk_rt_elementwise_fn fn = call.kernel->elementwise_fn) {
    fn(static_cast<float *>(call.buffers[0]), call.buffers + 1, tile[0],
       tile[1]);
    return true;
  }
  EwProgram prog;
  if (!prog.parse(call.ip, call.kernel->num_iparams, error))
    return false;
  float *Y = static_cast<float *>(call.buffers[0]);
  int64_t nreg = prog.nin;
  for (int64_t i = 0; i < prog.ninstr; ++i)
    for (int f = 1; f <= 3; ++f)
      nreg = std::max(nreg, prog.instr[i * 5 + f] + 1);
  nreg = std::max(nreg, prog.result + 1);
  std::vector<float> regs(nreg * kChunk);
  for (int64_t start = tile[0]; start < tile[1]; start += kChunk) {
    int64_t n = std::min(kChunk, tile[1] - start);
    for (int64_t i = 0; i < prog.nin; ++i) {
      float *r = regs.data() + i * kChunk;
      const void *src = call.buffers[1 + i];
      const auto &in = prog.in[i];
      if (in.contiguous) {
        loadContiguous(r, src, in.dtype, start, n);
      } else if (in.scalar) {
        std::fill_n(r, n, loadOne(src, in.dtype, 0));
      } else {
        // Walk the output index and the broadcast input offset together.
        int64_t idx[kMaxRank], off = 0, flat = start;
        for (int64_t d = prog.rank - 1; d >= 0; --d) {
          idx[d] = flat % prog.dims[d];
          flat /= prog.dims[d];
          off += idx[d] * in.strides[d];
        }
        for (int64_t e = 0; e < n; ++e) {
          r[e] = loadOne(src, in.dtype, off);
          for (int64_t d = prog.rank - 1; d >= 0; --d) {
            off += in.strides[d];
            if (++idx[d] < prog.dims[d])
              break;
            off -= idx[d] * in.strides[d];
            idx[d] = 0;
          }
        }
      }
    }
    for (int64_t k = 0; k < prog.ninstr; ++k) {
      const int64_t *ins = prog.instr + k * 5;
      int64_t op = ins[0];
      float *d = regs.data() + ins[1] * kChunk;
      const float *a = regs.data() + ins[2] * kChunk;
      const float *b = regs.data() + ins[3] * kChunk;
      const float *imm = call.fp + ins[4];
      if (op == AMK_OP_CONST) {
        std::fill_n(d, n, imm[0]);
      } else if (isUnaryOp(op)) {
        if (d != a)
          std::memcpy(d, a, n * 4);
        applyActivation(d, n, (int)op, imm[0], imm[1]);
      } else {
        switch (op) {
        case AMK_OP_ADD:
          for (int64_t e = 0; e < n; ++e)
            d[e] = a[e] + b[e];
          break;
        case AMK_OP_SUB:
          for (int64_t e = 0; e < n; ++e)
            d[e] = a[e] - b[e];
          break;
        case AMK_OP_MUL:
          for (int64_t e = 0; e < n; ++e)
            d[e] = a[e] * b[e];
          break;
        case AMK_OP_DIV:
          for (int64_t e = 0; e < n; ++e)
            d[e] = a[e] / b[e];
          break;
        case AMK_OP_POW:
          for (int64_t e = 0; e < n; ++e)
            d[e] = std::pow(a[e], b[e]);
          break;
        case AMK_OP_MAX:
          for (int64_t e = 0; e < n; ++e)
            d[e] = std::isnan(a[e]) || std::isnan(b[e]) ? NAN
                                                         : std::max(a[e], b[e]);
          break;
        case AMK_OP_MIN:
          for (int64_t e = 0; e < n; ++e)
            d[e] = std::isnan(a[e]) || std::isnan(b[e]) ? NAN
                                                         : std::min(a[e], b[e]);
          break;
        }
      }
    }
    std::memcpy(Y + start, regs.data() + prog.result * kChunk, n * 4);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Softmax, normalization, attention
//===----------------------------------------------------------------------===//

void softmaxRow(float *y, const float *x, int64_t n, int64_t stride) {
  float m = -std::numeric_limits<float>::infinity();
  if (stride == 1)
    m = maxFloats(x, n);
  else
    for (int64_t i = 0; i < n; ++i)
      m = std::max(m, x[i * stride]);
  // A probability that would be subnormal after the division by the sum
  // (at most n) is 0: masked positions (a mask of -10000 or -inf) would
  // otherwise feed subnormals to the next GEMM (attention's P V), which
  // runs 10-40x slower on them; such a term is below n * FLT_MIN.
  float cut = -87.f + std::log((float)std::max<int64_t>(n, 1));
  float sum = 0;
  if (stride == 1) {
    // Two passes: the exponentials 16 lanes at a time (the tail through
    // the same code in a padded buffer), then the sum in its own lanes.
    mapV16(x, y, n, [m, cut](V16 v) {
      V16 d = v - m;
      return d < cut ? 0.f : fastExpV(d);
    });
    sum = sumFloats(y, n);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      float d = x[i * stride] - m;
      y[i * stride] = d < cut ? 0.f : fastExp(d);
      sum += y[i * stride];
    }
  }
  float inv = 1.f / sum;
  for (int64_t i = 0; i < n; ++i)
    y[i * stride] *= inv;
}

void softmaxTile(const KernelCall &call, const int64_t *tile) {
  const float *X = static_cast<const float *>(call.buffers[0]);
  float *Y = static_cast<float *>(call.buffers[1]);
  int64_t axis = call.ip[AMK_SOFTMAX_AXIS], inner = call.ip[AMK_SOFTMAX_INNER];
  for (int64_t r = tile[0]; r < tile[1]; ++r)
    for (int64_t j = 0; j < inner; ++j)
      softmaxRow(Y + r * axis * inner + j, X + r * axis * inner + j, axis,
                 inner);
}

void layerNormTile(const KernelCall &call, const int64_t *tile) {
  const float *X = static_cast<const float *>(call.buffers[0]);
  float *Y = static_cast<float *>(call.buffers[1]);
  const float *scale = static_cast<const float *>(call.buffers[2]);
  const float *bias = static_cast<const float *>(call.buffers[3]);
  int64_t cols = call.ip[AMK_LN_COLS];
  bool rms = call.ip[AMK_LN_RMS];
  float eps = call.fp[0];
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    const float *x = X + r * cols;
    float *y = Y + r * cols;
    float mean = rms ? 0.f : sumFloats(x, cols) / (float)cols;
    float var = sumSquaredDiff(x, cols, mean) / (float)cols;
    float inv = 1.f / std::sqrt(var + eps);
    for (int64_t i = 0; i < cols; ++i) {
      float v = (x[i] - mean) * inv;
      if (scale)
        v *= scale[i];
      if (bias)
        v += bias[i];
      y[i] = v;
    }
  }
}

bool attentionTile(const KernelCall &call, const int64_t *tile,
                   std::string &error) {
  const int64_t *ip = call.ip;
  int64_t H = ip[AMK_ATT_H], S = ip[AMK_ATT_S], T = ip[AMK_ATT_T],
          D = ip[AMK_ATT_D], DV = ip[AMK_ATT_DV];
  bool kt = ip[AMK_ATT_KEY_TRANSPOSED];
  const float *Q = static_cast<const float *>(call.buffers[0]);
  const float *Kp = static_cast<const float *>(call.buffers[1]);
  const float *V = static_cast<const float *>(call.buffers[2]);
  float *O = static_cast<float *>(call.buffers[3]);
  const float *mask = static_cast<const float *>(call.buffers[4]);
  float scale = call.fp[0];
  int64_t rows = tile[3] - tile[2];
  thread_local std::vector<float> scores, kT;
  scores.resize(rows * T);
  if (!kt)
    kT.resize(D * T);
  for (int64_t bh = tile[0]; bh < tile[1]; ++bh) {
    int64_t b = bh / H, h = bh % H;
    const float *q = Q + (bh * S + tile[2]) * D;
    const float *k = Kp + bh * T * D;
    const float *v = V + bh * T * DV;
    float *o = O + (bh * S + tile[2]) * DV;
    // Keys as [D][T]: scores = Q K^T is then a plain row-major product.
    const float *kd = k;
    if (!kt) {
      for (int64_t t = 0; t < T; ++t)
        for (int64_t d = 0; d < D; ++d)
          kT[d * T + t] = k[t * D + d];
      kd = kT.data();
    }
    if (!blockGemm(q, D, kd, T, scores.data(), T, rows, T, D)) {
      error = "libxsmm has no kernel for the attention scores";
      return false;
    }
    for (int64_t i = 0; i < rows; ++i) {
      float *srow = scores.data() + i * T;
      for (int64_t t = 0; t < T; ++t)
        srow[t] *= scale;
      if (mask) {
        const float *m = mask + b * ip[AMK_ATT_MASK_SB] +
                         h * ip[AMK_ATT_MASK_SH] +
                         (tile[2] + i) * ip[AMK_ATT_MASK_SS];
        int64_t st = ip[AMK_ATT_MASK_ST];
        for (int64_t t = 0; t < T; ++t)
          srow[t] += m[t * st];
      }
      softmaxRow(srow, srow, T, 1);
    }
    if (!blockGemm(scores.data(), T, v, DV, o, DV, rows, DV, T)) {
      error = "libxsmm has no kernel for the attention output";
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

void copyTile(const KernelCall &call, const int64_t *tile) {
  const int64_t *ip = call.ip;
  int64_t eb = ip[0], rank = ip[1], srcOff = ip[2], dstOff = ip[3];
  const int64_t *dims = ip + 4, *ss = dims + rank, *ds = ss + rank;
  const char *X = static_cast<const char *>(call.buffers[0]);
  char *Y = static_cast<char *>(call.buffers[1]);
  int64_t last = rank ? dims[rank - 1] : 1;
  int64_t lss = rank ? ss[rank - 1] : 1, lds = rank ? ds[rank - 1] : 1;
  // A transpose of the last two axes (the source contiguous along the
  // second-to-last, the destination along the last) moves 16 x 16 blocks
  // through registers instead of one strided float at a time.
  int64_t rowDim = rank >= 2 ? dims[rank - 2] : 0;
  bool blocks = eb == 4 && rank >= 2 && lds == 1 && lss != 1 &&
                ss[rank - 2] == 1 && last >= 16;
  for (int64_t r = tile[0]; r < tile[1];) {
    int64_t s = srcOff, d = dstOff, flat = r;
    for (int64_t dim = rank - 2; dim >= 0; --dim) {
      int64_t i = flat % dims[dim];
      flat /= dims[dim];
      s += i * ss[dim];
      d += i * ds[dim];
    }
    if (blocks && r + 16 <= tile[1] && r % rowDim + 16 <= rowDim) {
      const float *xs = reinterpret_cast<const float *>(X) + s;
      float *yd = reinterpret_cast<float *>(Y) + d;
      int64_t drow = ds[rank - 2], j = 0;
      for (; j + 16 <= last; j += 16) {
        V16 v[16];
        for (int k = 0; k < 16; ++k)
          v[k] = loadV16(xs + (j + k) * lss);
        transpose16(v);
        for (int k = 0; k < 16; ++k)
          std::memcpy(yd + k * drow + j, &v[k], sizeof(V16));
      }
      for (int k = 0; k < 16; ++k)
        for (int64_t i = j; i < last; ++i)
          yd[k * drow + i] = xs[i * lss + k];
      r += 16;
      continue;
    }
    ++r;
    if (lss == 1 && lds == 1) {
      std::memcpy(Y + d * eb, X + s * eb, last * eb);
    } else if (eb == 4) {
      const float *xs = reinterpret_cast<const float *>(X) + s;
      float *yd = reinterpret_cast<float *>(Y) + d;
      for (int64_t i = 0; i < last; ++i)
        yd[i * lds] = xs[i * lss];
    } else {
      for (int64_t i = 0; i < last; ++i)
        std::memcpy(Y + (d + i * lds) * eb, X + (s + i * lss) * eb, eb);
    }
  }
}

bool gatherTile(const KernelCall &call, const int64_t *tile,
                std::string &error) {
  const int64_t *ip = call.ip;
  int64_t axis = ip[AMK_GATHER_AXIS], inner = ip[AMK_GATHER_INNER],
          nidx = ip[AMK_GATHER_NIDX], eb = ip[AMK_GATHER_ELEM_BYTES];
  const char *data = static_cast<const char *>(call.buffers[0]);
  const void *idx = call.buffers[1];
  char *Y = static_cast<char *>(call.buffers[2]);
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t o = r / nidx, j = r % nidx;
    int64_t i = ip[AMK_GATHER_IDX_DTYPE] == AMK_RT_I32
                    ? static_cast<const int32_t *>(idx)[j]
                    : static_cast<const int64_t *>(idx)[j];
    if (i < 0)
      i += axis;
    if (i < 0 || i >= axis) {
      error = "Gather index " + std::to_string(i) + " is out of range [0, " +
              std::to_string(axis) + ")";
      return false;
    }
    std::memcpy(Y + r * inner * eb, data + (o * axis + i) * inner * eb,
                inner * eb);
  }
  return true;
}

} // namespace

bool runTile(const KernelCall &call, const int64_t tile[4],
             std::string &error) {
  switch (call.kernel->kind) {
  case AMK_RT_K_NOP:
    return true;
  case AMK_RT_K_GEMM:
    return gemmTile(call, tile, error);
  case AMK_RT_K_DWCONV:
    dwconvTile(call, tile);
    return true;
  case AMK_RT_K_CONV:
    if (call.kernel->variant == 1)
      return convGemmTile(call, tile, error);
    if (call.kernel->variant == 2) {
      directConvTile(call, tile);
      return true;
    }
    convTile(call, tile);
    return true;
  case AMK_RT_K_POOL:
    poolTile(call, tile);
    return true;
  case AMK_RT_K_ELEMENTWISE:
    return elementwiseTile(call, tile, error);
  case AMK_RT_K_SOFTMAX:
    softmaxTile(call, tile);
    return true;
  case AMK_RT_K_LAYERNORM:
    layerNormTile(call, tile);
    return true;
  case AMK_RT_K_ATTENTION:
    return attentionTile(call, tile, error);
  case AMK_RT_K_COPY:
    copyTile(call, tile);
    return true;
  case AMK_RT_K_GATHER:
    return gatherTile(call, tile, error);
  }
  error = "unknown kernel kind " + std::to_string(call.kernel->kind);
  return false;
}

bool checkKernel(const amk_rt_kernel &k, const int64_t *ip, const float *fp,
                 std::string &error) {
  (void)fp;
  auto needI = [&](uint32_t n, uint32_t f) {
    if (k.num_iparams >= n && k.num_fparams >= f)
      return true;
    error = "kernel '" + std::string(k.name ? k.name : "") + "' has " +
            std::to_string(k.num_iparams) + " iparams and " +
            std::to_string(k.num_fparams) + " fparams, expected at least " +
            std::to_string(n) + " and " + std::to_string(f);
    return false;
  };
  switch (k.kind) {
  case AMK_RT_K_NOP:
    return true;
  case AMK_RT_K_GEMM:
    return needI(AMK_GEMM_NUM_IPARAMS, AMK_GEMM_NUM_FPARAMS) &&
           k.num_buffers >= 5;
  case AMK_RT_K_POOL:
    return needI(AMK_SP_NUM_IPARAMS, 0);
  case AMK_RT_K_DWCONV:
    return needI(AMK_SP_NUM_IPARAMS, 2) && k.num_buffers >= 5;
  case AMK_RT_K_CONV:
    if (!needI(AMK_SP_NUM_IPARAMS, 2) || k.num_buffers < 5)
      return false;
    if (k.variant == 2 &&
        (ip[AMK_SP_GROUP] != 1 || (ip[AMK_SP_SW] != 1 && ip[AMK_SP_SW] != 2))) {
      error = "kernel '" + std::string(k.name ? k.name : "") +
              "': the direct convolution needs group 1 and a column stride "
              "of 1 or 2";
      return false;
    }
    return true;
  case AMK_RT_K_ELEMENTWISE: {
    EwProgram p;
    if (!p.parse(ip, k.num_iparams, error)) {
      error = "bad elementwise program: " + error;
      return false;
    }
    for (int64_t i = 0; i < p.ninstr; ++i) {
      const int64_t *ins = p.instr + i * 5;
      bool usesImm = ins[0] == AMK_OP_CONST || isUnaryOp(ins[0]);
      bool known = usesImm || isBinaryOp(ins[0]);
      int64_t regs = std::max<int64_t>(p.nin, ins[1] + 1);
      if (!known || ins[1] < 0 || ins[2] < 0 || ins[3] < 0 ||
          (!usesImm && (ins[2] >= regs || ins[3] >= regs)) ||
          (usesImm && (ins[4] < 0 || ins[4] + 2 > (int64_t)k.num_fparams))) {
        error = "bad elementwise instruction " + std::to_string(i);
        return false;
      }
    }
    return k.num_buffers == (uint32_t)p.nin + 1;
  }
  case AMK_RT_K_SOFTMAX:
    return needI(AMK_SOFTMAX_NUM_IPARAMS, 0);
  case AMK_RT_K_LAYERNORM:
    return needI(AMK_LN_NUM_IPARAMS, 1) && k.num_buffers >= 4;
  case AMK_RT_K_ATTENTION:
    return needI(AMK_ATT_NUM_IPARAMS, 1) && k.num_buffers >= 5;
  case AMK_RT_K_COPY:
    return needI(4, 0) && k.num_iparams >= 4 + 3 * (uint64_t)ip[1];
  case AMK_RT_K_GATHER:
    return needI(AMK_GATHER_NUM_IPARAMS, 0);
  }
  error = "unknown kernel kind " + std::to_string(k.kind);
  return false;
}

} // namespace amk::rt
