//===- WGemm.cpp - Weight-only quantized matrix product ------------------===//
//
// Part of AMK. WGEMM (kernel_params.h): float activations times int8 or
// int4 weights. Few rows (a decoder's token) are bound by reading the
// weights, so the tile streams each 64-column panel once, widening the
// integers to float in registers and multiplying every row of the tile
// by them; the scale is applied once per group (per column, or per block
// of k) to the group's partial sums rather than to every weight. Many
// rows are bound by arithmetic: each panel is dequantized once into a
// float panel and multiplied on libxsmm's blocks, as GEMM does, so the
// conversion is paid once per panel rather than once per row.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/BlockGemm.h"
#include "runtime/lib/kernels/Dtypes.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Vnni.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define AMK_WGEMM_X86 1
#endif

namespace amk::rt {

namespace {

constexpr int64_t kP = AMK_GEMM_PANEL; // Columns per panel.
/// Rows at which a tile dequantizes panels instead of streaming them: the
/// streaming path converts every weight once per kMaxStreamRows rows.
constexpr int64_t kDequantRows = 6;
constexpr int kMaxStreamRows = 3;
/// 16^-t for nibble t < 7 of an int4 word (read in place as n * 16^t), 1
/// for nibble 7 (shifted down): powers of two, so the products are exact.
constexpr float kNibbleScale[8] = {1.f,        1.f / 16,       1.f / 256,
                                   1.f / 4096, 1.f / 65536,    1.f / 1048576,
                                   1.f / 16777216, 1.f};

struct WParams {
  int64_t rows, n, k, bits, group, groups, act, aBits;
  float actA, actB, resBeta;
  WParams(const int64_t *ip, const float *fp)
      : rows(ip[AMK_WG_ROWS]), n(ip[AMK_WG_N]), k(ip[AMK_WG_K]),
        bits(ip[AMK_WG_BITS]), group(ip[AMK_WG_GROUP]),
        groups((ip[AMK_WG_K] + ip[AMK_WG_GROUP] - 1) / ip[AMK_WG_GROUP]),
        act(ip[AMK_WG_ACT]), aBits(ip[AMK_WG_A_BITS]),
        actA(fp[AMK_WG_ACT_ALPHA]), actB(fp[AMK_WG_ACT_BETA]),
        resBeta(fp[AMK_WG_RES_BETA]) {}
  /// Whether the activations are quantized to int8 (kernel_params.h):
  /// decided on the product's rows, so every tile computes alike.
  bool int8Activations() const {
    return aBits == 8 && bits == 4 && rows < kDequantRows;
  }
  /// Whether the activations are rounded to bfloat16 (a_bits 16, int8
  /// weights with one scale per column): products of many rows, where
  /// the arithmetic bounds the time; decided on the product's rows too.
  bool bf16Activations() const {
    return aBits == 16 && bits == 8 && rows >= kDequantRows;
  }
  /// 32-bit words of one column of a 4-bit panel: 8 k each.
  int64_t words() const { return (k + 7) / 8; }
  /// Bytes of one packed panel: int8 [K][64]; int4 [K/8][64] words of 8
  /// nibbles (k to k+7 of one column).
  int64_t panelBytes() const {
    return bits == 8 ? k * kP : (k + 7) / 8 * kP * 4;
  }
  const uint8_t *panel(const uint8_t *w, int64_t p) const {
    return w + p * panelBytes();
  }
};

struct WBuffers {
  const float *a;
  const uint8_t *w;
  float *y;
  const float *s, *sz, *bias, *res;
  /// The product's row that `a` starts at (a tile's rounded copy of its
  /// rows starts at the tile's first row).
  int64_t aRow0 = 0;
  const float *row(const WParams &g, int64_t r) const {
    return a + (r - aRow0) * g.k;
  }
};

/// Panel p's scale and scale x zero point tables ([groups][64]; the
/// second null when every zero point is 0).
struct PanelTables {
  const float *s, *sz;
  PanelTables(const WParams &g, const WBuffers &bf, int64_t p)
      : s(bf.s + p * g.groups * kP),
        sz(bf.sz ? bf.sz + p * g.groups * kP : nullptr) {}
};

/// Weight (k, j) of a packed panel as an integer (int8, or the unsigned
/// nibble).
inline float weightAt(const WParams &g, const uint8_t *panel, int64_t k,
                      int64_t j) {
  if (g.bits == 8)
    return (float)(int8_t)panel[k * kP + j];
  uint32_t word;
  std::memcpy(&word, panel + ((k / 8) * kP + j) * 4, 4);
  return (float)((word >> (4 * (k % 8))) & 15);
}

/// Sums of each row's activations per group: the zero points' term.
void groupSums(const WParams &g, const float *a, float *out) {
  for (int64_t q = 0; q < g.groups; ++q) {
    int64_t k0 = q * g.group, k1 = std::min(g.k, k0 + g.group);
    float s = 0;
    for (int64_t k = k0; k < k1; ++k)
      s += a[k];
    out[q] = s;
  }
}

/// out[r][0..64) = the panel's products for `mr` rows: the portable loop.
void streamPanelPortable(const WParams &g, const WBuffers &bf, int64_t p,
                         const float *const *a, const float *const *asum,
                         int mr, float out[kMaxStreamRows][kP]) {
  const uint8_t *w = g.panel(bf.w, p);
  const auto [s, sz] = PanelTables(g, bf, p);
  for (int r = 0; r < mr; ++r)
    std::fill_n(out[r], kP, 0.f);
  float part[kMaxStreamRows][kP];
  for (int64_t q = 0; q < g.groups; ++q) {
    int64_t k0 = q * g.group, k1 = std::min(g.k, k0 + g.group);
    for (int r = 0; r < mr; ++r)
      std::fill_n(part[r], kP, 0.f);
    for (int64_t k = k0; k < k1; ++k) {
      float wf[kP];
      for (int64_t j = 0; j < kP; ++j)
        wf[j] = weightAt(g, w, k, j);
      for (int r = 0; r < mr; ++r)
        for (int64_t j = 0; j < kP; ++j)
          part[r][j] += a[r][k] * wf[j];
    }
    for (int r = 0; r < mr; ++r)
      for (int64_t j = 0; j < kP; ++j)
        out[r][j] += part[r][j] * s[q * kP + j] -
                     (sz ? sz[q * kP + j] * asum[r][q] : 0.f);
  }
}

/// Panel p dequantized into dst[K][64]: weight x scale - scale x zero
/// point (alpha included).
void dequantPanelPortable(const WParams &g, const WBuffers &bf, int64_t p,
                          float *dst) {
  const uint8_t *w = g.panel(bf.w, p);
  const auto [s, sz] = PanelTables(g, bf, p);
  for (int64_t k = 0; k < g.k; ++k) {
    int64_t q = k / g.group;
    for (int64_t j = 0; j < kP; ++j)
      dst[k * kP + j] = weightAt(g, w, k, j) * s[q * kP + j] -
                        (sz ? sz[q * kP + j] : 0.f);
  }
}

/// One row's activations quantized to int8 per group (a_bits 8): for each
/// 8-k word of the 4-bit panels, the activations its low nibbles meet
/// (k = 0, 2, 4, 6 as the bytes of `even`) and its high ones (`odd`), so
/// that u8 x s8 byte products line up; per group the scale and the sum of
/// the quantized values (the zero points' term).
struct QuantizedRow {
  const uint32_t *even, *odd; // [words]
  const float *scale;         // [groups]
  const int32_t *sum;         // [groups]
};

/// Quantizes row `a` into `words` (2 x words) and `scales`/`sums`
/// ([groups]): symmetric, scale max|a| / 127, rounding half to even. The
/// same scalar code on every CPU, so every path computes the same values.
void quantizeRow(const WParams &g, const float *a, uint32_t *words,
                 float *scales, int32_t *sums) {
  const int64_t nw = g.words();
  std::fill_n(words, 2 * nw, 0u);
  for (int64_t q = 0; q < g.groups; ++q) {
    int64_t k0 = q * g.group, k1 = std::min(g.k, k0 + g.group);
    float amax = 0;
    bool finite = true;
    for (int64_t k = k0; k < k1; ++k) {
      finite &= std::isfinite(a[k]);
      amax = std::max(amax, std::fabs(a[k]));
    }
    if (!finite) {
      // A NaN or infinite activation: the group's products are NaN, as
      // in the interpreter, rather than a converted NaN's arbitrary int.
      scales[q] = std::numeric_limits<float>::quiet_NaN(), sums[q] = 0;
      continue;
    }
    float scale = amax / 127.f;
    int32_t sum = 0;
    for (int64_t k = k0; k < k1; ++k) {
      int32_t v = scale > 0 ? (int32_t)std::nearbyint(a[k] / scale) : 0;
      v = std::clamp(v, -127, 127);
      sum += v;
      uint32_t byte = (uint32_t)(uint8_t)(int8_t)v;
      uint32_t &word = (k % 2 ? words + nw : words)[k / 8];
      word |= byte << (8 * ((k % 8) / 2));
    }
    scales[q] = scale, sums[q] = sum;
  }
}

/// out[r][0..64) = the panel's products for `mr` rows on int8 activations:
/// the portable loop (the reference the vector one matches bit for bit:
/// exact int32 sums, then the same fused float operations).
void streamPanelQ8Portable(const WParams &g, const WBuffers &bf, int64_t p,
                           const QuantizedRow *qa, int mr,
                           float out[kMaxStreamRows][kP]) {
  const uint8_t *w = g.panel(bf.w, p);
  const auto [s, sz] = PanelTables(g, bf, p);
  for (int r = 0; r < mr; ++r)
    std::fill_n(out[r], kP, 0.f);
  for (int64_t q = 0; q < g.groups; ++q) {
    int64_t w0 = q * g.group / 8,
            w1 = std::min(g.words(), (q * g.group + g.group + 7) / 8);
    for (int r = 0; r < mr; ++r)
      for (int64_t j = 0; j < kP; ++j) {
        int32_t acc = 0;
        for (int64_t wi = w0; wi < w1; ++wi) {
          uint32_t word;
          std::memcpy(&word, w + (wi * kP + j) * 4, 4);
          for (int b = 0; b < 4; ++b) {
            int32_t lo = (word >> (8 * b)) & 15,
                    hi = (word >> (8 * b + 4)) & 15;
            acc += lo * (int8_t)(qa[r].even[wi] >> (8 * b)) +
                   hi * (int8_t)(qa[r].odd[wi] >> (8 * b));
          }
        }
        float o =
            std::fma((float)acc, s[q * kP + j] * qa[r].scale[q], out[r][j]);
        if (sz)
          o = std::fma(-sz[q * kP + j], qa[r].scale[q] * (float)qa[r].sum[q],
                       o);
        out[r][j] = o;
      }
  }
}

#if AMK_WGEMM_X86
/// The AVX2 int8-activation stream: columns [c0, c0 + 8 * NV) for MR rows.
/// Per word, the low and high nibbles of 8 columns become two byte vectors
/// that vpmaddubsw multiplies by the row's broadcast activation bytes
/// (u4 x s8 pairs: at most 2 x 15 x 127 per 16-bit lane, and the two
/// vectors' sum 4 x 15 x 127, so nothing saturates); vpmaddwd folds the
/// pairs into the int32 sums. A third of the float stream's instructions
/// per weight, which is what bounds a 4-bit decoder's token.
template <int MR, int NV>
__attribute__((target("avx2,fma"))) void
streamColumnsQ8Avx2(const WParams &g, const uint8_t *w, const PanelTables &t,
                    const QuantizedRow *qa, int64_t c0,
                    float out[kMaxStreamRows][kP]) {
  const __m256i low = _mm256_set1_epi8(15), ones = _mm256_set1_epi16(1);
  for (int r = 0; r < MR; ++r)
    std::fill_n(out[r] + c0, 8 * NV, 0.f);
  for (int64_t q = 0; q < g.groups; ++q) {
    int64_t w0 = q * g.group / 8,
            w1 = std::min(g.words(), (q * g.group + g.group + 7) / 8);
    __m256i acc[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v)
        acc[r][v] = _mm256_setzero_si256();
    for (int64_t wi = w0; wi < w1; ++wi) {
      const uint8_t *blk = w + (wi * kP + c0) * 4;
      _mm_prefetch(reinterpret_cast<const char *>(blk + 4 * kP * 4),
                   _MM_HINT_T0);
      __m256i ae[MR], ao[MR];
      for (int r = 0; r < MR; ++r) {
        ae[r] = _mm256_set1_epi32((int)qa[r].even[wi]);
        ao[r] = _mm256_set1_epi32((int)qa[r].odd[wi]);
      }
      for (int v = 0; v < NV; ++v) {
        __m256i x =
            _mm256_loadu_si256(reinterpret_cast<const __m256i *>(blk + 32 * v));
        __m256i lo = _mm256_and_si256(x, low);
        __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low);
        for (int r = 0; r < MR; ++r) {
          __m256i pr = _mm256_add_epi16(_mm256_maddubs_epi16(lo, ae[r]),
                                        _mm256_maddubs_epi16(hi, ao[r]));
          acc[r][v] = _mm256_add_epi32(acc[r][v], _mm256_madd_epi16(pr, ones));
        }
      }
    }
    for (int v = 0; v < NV; ++v) {
      int64_t c = c0 + 8 * v;
      __m256 sv = _mm256_loadu_ps(t.s + q * kP + c);
      for (int r = 0; r < MR; ++r) {
        __m256 o =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[r][v]),
                            _mm256_mul_ps(sv, _mm256_set1_ps(qa[r].scale[q])),
                            _mm256_loadu_ps(out[r] + c));
        if (t.sz)
          o = _mm256_fnmadd_ps(
              _mm256_loadu_ps(t.sz + q * kP + c),
              _mm256_set1_ps(qa[r].scale[q] * (float)qa[r].sum[q]), o);
        _mm256_storeu_ps(out[r] + c, o);
      }
    }
  }
}

__attribute__((target("avx2,fma"))) void
streamPanelQ8Avx2(const WParams &g, const WBuffers &bf, int64_t p,
                  const QuantizedRow *qa, int mr,
                  float out[kMaxStreamRows][kP]) {
  const uint8_t *w = g.panel(bf.w, p);
  PanelTables t(g, bf, p);
  for (int64_t c0 = 0; c0 < kP; c0 += 32) {
    if (mr == 1)
      streamColumnsQ8Avx2<1, 4>(g, w, t, qa, c0, out);
    else if (mr == 2)
      streamColumnsQ8Avx2<2, 4>(g, w, t, qa, c0, out);
    else
      for (int64_t c1 = c0; c1 < c0 + 32; c1 += 16)
        streamColumnsQ8Avx2<3, 2>(g, w, t, qa, c1, out);
  }
}
#endif

void streamPanelQ8(const WParams &g, const WBuffers &bf, int64_t p,
                   const QuantizedRow *qa, int mr,
                   float out[kMaxStreamRows][kP]) {
#if AMK_WGEMM_X86
  if (hasAvx2()) {
    streamPanelQ8Avx2(g, bf, p, qa, mr, out);
    return;
  }
#endif
  streamPanelQ8Portable(g, bf, p, qa, mr, out);
}

#if AMK_WGEMM_X86
/// int8: the 64 weights of k row `row` as four float vectors.
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline void
loadInt8(const uint8_t *row, __m512 w[4]) {
  for (int v = 0; v < 4; ++v)
    w[v] = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + 16 * v))));
}

/// int4: nibble t of each of four vectors of words (k + t of 64 columns)
/// as floats, left in place: n * 16^t for t < 7 (one mask, no shift; the
/// activation it meets was scaled by 16^-t, exactly), n for t = 7 (one
/// shift). Within each 32-bit lane: no cross-lane widening.
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline void
nibblesInPlace(const __m512i x[4], int t, __m512 w[4]) {
  if (t == 7) {
    for (int v = 0; v < 4; ++v)
      w[v] = _mm512_cvtepi32_ps(_mm512_srli_epi32(x[v], 28));
    return;
  }
  const __m512i m = _mm512_set1_epi32(15 << (4 * t));
  for (int v = 0; v < 4; ++v)
    w[v] = _mm512_cvtepi32_ps(_mm512_and_si512(x[v], m));
}

/// int4 as n, for the dequantized panels.
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline void
nibbles(const __m512i x[4], int t, __m512 w[4]) {
  const __m512i m = _mm512_set1_epi32(15);
  for (int v = 0; v < 4; ++v)
    w[v] = _mm512_cvtepi32_ps(
        _mm512_and_si512(_mm512_srli_epi32(x[v], 4 * t), m));
}

template <int MR>
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline void
fmaRows(const __m512 wv[4], const float *const *a, int64_t k,
        __m512 part[][4]) {
  for (int r = 0; r < MR; ++r) {
    __m512 av = _mm512_set1_ps(a[r][k]);
    for (int v = 0; v < 4; ++v)
      part[r][v] = _mm512_fmadd_ps(wv[v], av, part[r][v]);
  }
}

template <int Bits, int MR>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
streamPanelAvx512(const WParams &g, const WBuffers &bf, int64_t p,
                  const float *const *a, const float *const *asum,
                  float out[kMaxStreamRows][kP]) {
  const uint8_t *w = g.panel(bf.w, p);
  const auto [s, sz] = PanelTables(g, bf, p);
  __m512 acc[MR][4];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < 4; ++v)
      acc[r][v] = _mm512_setzero_ps();
  for (int64_t q = 0; q < g.groups; ++q) {
    int64_t k0 = q * g.group, k1 = std::min(g.k, k0 + g.group);
    __m512 part[MR][4];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < 4; ++v)
        part[r][v] = _mm512_setzero_ps();
    if constexpr (Bits == 8) {
      for (int64_t k = k0; k < k1; ++k) {
        const uint8_t *row = w + k * kP;
        // A few rows ahead of the stream: the hardware prefetcher, seeing
        // one stream per panel, can lag.
        _mm_prefetch(reinterpret_cast<const char *>(row + 8 * kP),
                     _MM_HINT_T0);
        __m512 wv[4];
        loadInt8(row, wv);
        fmaRows<MR>(wv, a, k, part);
      }
    } else {
      // Groups of 4-bit weights start on a multiple of 8 (the lowering
      // stores others as int8).
      for (int64_t k8 = k0; k8 < k1; k8 += 8) {
        const uint8_t *blk = w + (k8 / 8) * kP * 4;
        _mm_prefetch(reinterpret_cast<const char *>(blk + 4 * kP * 4),
                     _MM_HINT_T0);
        __m512i x[4];
        for (int v = 0; v < 4; ++v)
          x[v] = _mm512_loadu_si512(blk + 64 * v);
        int n = (int)std::min<int64_t>(8, k1 - k8);
        for (int t = 0; t < n; ++t) {
          __m512 wv[4];
          nibblesInPlace(x, t, wv);
          fmaRows<MR>(wv, a, k8 + t, part);
        }
      }
    }
    for (int v = 0; v < 4; ++v) {
      __m512 sv = _mm512_loadu_ps(s + q * kP + 16 * v);
      for (int r = 0; r < MR; ++r)
        acc[r][v] = _mm512_fmadd_ps(part[r][v], sv, acc[r][v]);
      if (sz) {
        __m512 zv = _mm512_loadu_ps(sz + q * kP + 16 * v);
        for (int r = 0; r < MR; ++r)
          acc[r][v] =
              _mm512_fnmadd_ps(zv, _mm512_set1_ps(asum[r][q]), acc[r][v]);
      }
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < 4; ++v)
      _mm512_storeu_ps(out[r] + 16 * v, acc[r][v]);
}

/// One dequantized k row: w * s - s * zero point. A helper, not a lambda:
/// clang does not give lambdas their enclosing function's target features.
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline void
storeScaled(float *row, const __m512 wv[4], const __m512 sv[4],
            const __m512 zv[4]) {
  for (int v = 0; v < 4; ++v)
    _mm512_storeu_ps(row + 16 * v, _mm512_fmsub_ps(wv[v], sv[v], zv[v]));
}

template <int Bits>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
dequantPanelAvx512(const WParams &g, const WBuffers &bf, int64_t p,
                   float *dst) {
  const uint8_t *w = g.panel(bf.w, p);
  const auto [s, sz] = PanelTables(g, bf, p);
  for (int64_t q = 0; q < g.groups; ++q) {
    int64_t k0 = q * g.group, k1 = std::min(g.k, k0 + g.group);
    __m512 sv[4], zv[4];
    for (int v = 0; v < 4; ++v) {
      sv[v] = _mm512_loadu_ps(s + q * kP + 16 * v);
      zv[v] = sz ? _mm512_loadu_ps(sz + q * kP + 16 * v) : _mm512_setzero_ps();
    }
    if constexpr (Bits == 8) {
      for (int64_t k = k0; k < k1; ++k) {
        __m512 wv[4];
        loadInt8(w + k * kP, wv);
        storeScaled(dst + k * kP, wv, sv, zv);
      }
    } else {
      for (int64_t k8 = k0; k8 < k1; k8 += 8) {
        __m512i x[4];
        for (int v = 0; v < 4; ++v)
          x[v] = _mm512_loadu_si512(w + (k8 / 8) * kP * 4 + 64 * v);
        int n = (int)std::min<int64_t>(8, k1 - k8);
        for (int t = 0; t < n; ++t) {
          __m512 wv[4];
          nibbles(x, t, wv);
          storeScaled(dst + (k8 + t) * kP, wv, sv, zv);
        }
      }
    }
  }
}
#endif

#if AMK_WGEMM_X86
/// The AVX2 stream (CPUs without AVX-512): columns [c0, c0 + 8 * NV) of
/// the panel for MR rows, with MR x NV partial sums in registers (one row
/// takes the whole panel, more rows a half: AVX2 has 16 registers). int8
/// weights widen from memory operands (vpmovsxbd); int4 nibbles are read
/// in place as in the AVX-512 path, against activations scaled by 16^-t.
/// The group's scale goes into `out`, which holds the running sums.
template <int Bits, int MR, int NV>
__attribute__((target("avx2,fma"))) void
streamColumnsAvx2(const WParams &g, const uint8_t *w, const PanelTables &t,
                  const float *const *a, const float *const *asum, int64_t c0,
                  float out[kMaxStreamRows][kP]) {
  for (int r = 0; r < MR; ++r)
    std::fill_n(out[r] + c0, 8 * NV, 0.f);
  for (int64_t q = 0; q < g.groups; ++q) {
    int64_t k0 = q * g.group, k1 = std::min(g.k, k0 + g.group);
    __m256 part[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v)
        part[r][v] = _mm256_setzero_ps();
    if constexpr (Bits == 8) {
      for (int64_t k = k0; k < k1; ++k) {
        const uint8_t *row = w + k * kP + c0;
        _mm_prefetch(reinterpret_cast<const char *>(row + 8 * kP), _MM_HINT_T0);
        __m256 av[MR];
        for (int r = 0; r < MR; ++r)
          av[r] = _mm256_set1_ps(a[r][k]);
        for (int v = 0; v < NV; ++v) {
          __m256 wv = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
              _mm_loadl_epi64(reinterpret_cast<const __m128i *>(row + 8 * v))));
          for (int r = 0; r < MR; ++r)
            part[r][v] = _mm256_fmadd_ps(wv, av[r], part[r][v]);
        }
      }
    } else {
      for (int64_t k8 = k0; k8 < k1; k8 += 8) {
        const uint8_t *blk = w + ((k8 / 8) * kP + c0) * 4;
        _mm_prefetch(reinterpret_cast<const char *>(blk + 4 * kP * 4),
                     _MM_HINT_T0);
        int n = (int)std::min<int64_t>(8, k1 - k8);
        for (int tt = 0; tt < n; ++tt) {
          __m256 av[MR];
          for (int r = 0; r < MR; ++r)
            av[r] = _mm256_set1_ps(a[r][k8 + tt]);
          for (int v = 0; v < NV; ++v) {
            __m256i x = _mm256_loadu_si256(
                reinterpret_cast<const __m256i *>(blk + 32 * v));
            __m256 wv = _mm256_cvtepi32_ps(
                tt == 7
                    ? _mm256_srli_epi32(x, 28)
                    : _mm256_and_si256(x, _mm256_set1_epi32(15 << (4 * tt))));
            for (int r = 0; r < MR; ++r)
              part[r][v] = _mm256_fmadd_ps(wv, av[r], part[r][v]);
          }
        }
      }
    }
    for (int v = 0; v < NV; ++v) {
      int64_t c = c0 + 8 * v;
      __m256 sv = _mm256_loadu_ps(t.s + q * kP + c);
      for (int r = 0; r < MR; ++r) {
        __m256 o = _mm256_fmadd_ps(part[r][v], sv, _mm256_loadu_ps(out[r] + c));
        if (t.sz)
          o = _mm256_fnmadd_ps(_mm256_loadu_ps(t.sz + q * kP + c),
                               _mm256_set1_ps(asum[r][q]), o);
        _mm256_storeu_ps(out[r] + c, o);
      }
    }
  }
}

template <int Bits>
__attribute__((target("avx2,fma"))) void
streamPanelAvx2(const WParams &g, const WBuffers &bf, int64_t p,
                const float *const *a, const float *const *asum, int mr,
                float out[kMaxStreamRows][kP]) {
  const uint8_t *w = g.panel(bf.w, p);
  PanelTables t(g, bf, p);
  if (mr == 1) {
    streamColumnsAvx2<Bits, 1, 8>(g, w, t, a, asum, 0, out);
    return;
  }
  for (int64_t c0 = 0; c0 < kP; c0 += 32) {
    if (mr == 2)
      streamColumnsAvx2<Bits, 2, 4>(g, w, t, a, asum, c0, out);
    else
      streamColumnsAvx2<Bits, 3, 4>(g, w, t, a, asum, c0, out);
  }
}

template <int Bits>
__attribute__((target("avx2,fma"))) void
dequantPanelAvx2(const WParams &g, const WBuffers &bf, int64_t p, float *dst) {
  const uint8_t *w = g.panel(bf.w, p);
  PanelTables t(g, bf, p);
  for (int64_t k = 0; k < g.k; ++k) {
    int64_t q = k / g.group;
    for (int64_t c = 0; c < kP; c += 8) {
      __m256i x;
      if constexpr (Bits == 8)
        x = _mm256_cvtepi8_epi32(
            _mm_loadl_epi64(reinterpret_cast<const __m128i *>(w + k * kP + c)));
      else
        x = _mm256_and_si256(
            _mm256_srli_epi32(
                _mm256_loadu_si256(reinterpret_cast<const __m256i *>(
                    w + ((k / 8) * kP + c) * 4)),
                (int)(4 * (k % 8))),
            _mm256_set1_epi32(15));
      __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(x),
                               _mm256_loadu_ps(t.s + q * kP + c));
      if (t.sz)
        v = _mm256_sub_ps(v, _mm256_loadu_ps(t.sz + q * kP + c));
      _mm256_storeu_ps(dst + k * kP + c, v);
    }
  }
}
#endif

void streamPanel(const WParams &g, const WBuffers &bf, int64_t p,
                 const float *const *a, const float *const *asum, int mr,
                 float out[kMaxStreamRows][kP]) {
#if AMK_WGEMM_X86
  if (hasAvx512()) {
    auto run = [&](auto bits) {
      constexpr int B = decltype(bits)::value;
      switch (mr) {
      case 1:
        return streamPanelAvx512<B, 1>(g, bf, p, a, asum, out);
      case 2:
        return streamPanelAvx512<B, 2>(g, bf, p, a, asum, out);
      default:
        return streamPanelAvx512<B, 3>(g, bf, p, a, asum, out);
      }
    };
    if (g.bits == 8)
      run(std::integral_constant<int, 8>());
    else
      run(std::integral_constant<int, 4>());
    return;
  }
  if (hasAvx2()) {
    if (g.bits == 8)
      streamPanelAvx2<8>(g, bf, p, a, asum, mr, out);
    else
      streamPanelAvx2<4>(g, bf, p, a, asum, mr, out);
    return;
  }
#endif
  streamPanelPortable(g, bf, p, a, asum, mr, out);
}

void dequantPanel(const WParams &g, const WBuffers &bf, int64_t p,
                  float *dst) {
#if AMK_WGEMM_X86
  if (hasAvx512()) {
    if (g.bits == 8)
      dequantPanelAvx512<8>(g, bf, p, dst);
    else
      dequantPanelAvx512<4>(g, bf, p, dst);
    return;
  }
  if (hasAvx2()) {
    if (g.bits == 8)
      dequantPanelAvx2<8>(g, bf, p, dst);
    else
      dequantPanelAvx2<4>(g, bf, p, dst);
    return;
  }
#endif
  dequantPanelPortable(g, bf, p, dst);
}

/// A gated panel's products `o` (32 gate, then 32 up columns) as
/// act(gate) * up into outputs [n0 / 2, n0 / 2 + 32) of row `y` (`ldy`
/// outputs); the gate half is overwritten.
void storeGated(const WParams &g, float *o, float *y, int64_t n0, int64_t ldy) {
  const int64_t half = kP / 2, out0 = n0 / 2;
  const int64_t outs = std::min(half, ldy - out0);
  applyActivation(o, outs, (int)g.act, g.actA, g.actB);
  for (int64_t j = 0; j < outs; ++j)
    y[out0 + j] = o[j] * o[half + j];
}

/// Bias, addend and activation on `cols` outputs of row `r` from column
/// n0.
void finish(const WParams &g, const WBuffers &bf, int64_t r, int64_t n0,
            int64_t cols) {
  float *y = bf.y + r * g.n + n0;
  if (bf.bias)
    for (int64_t j = 0; j < cols; ++j)
      y[j] += bf.bias[n0 + j];
  if (bf.res) {
    const float *a = bf.res + r * g.n + n0;
    for (int64_t j = 0; j < cols; ++j)
      y[j] += g.resBeta * a[j];
  }
  applyActivation(y, cols, (int)g.act, g.actA, g.actB);
}

#if AMK_WGEMM_X86
/// Row `a` (k floats) as bfloat16 bits, rounded as floatToBf16 does (to
/// nearest even, NaN kept quiet), zero-padded to `kp`: k-step t (32
/// values, one 64-byte tile row) goes to dst + t * stepStride. Returns the
/// sum of the rounded values (the zero points' term).
__attribute__((target("avx512f,avx512bw,avx512vl"))) float
roundRowBf16(const float *a, int64_t k, int64_t kp, uint16_t *dst,
             int64_t stepStride) {
  const __m512i one = _mm512_set1_epi32(1), half = _mm512_set1_epi32(0x7FFF),
                abs = _mm512_set1_epi32(0x7FFFFFFF),
                inf = _mm512_set1_epi32(0x7F800000),
                quiet = _mm512_set1_epi32(0x400000),
                high = _mm512_set1_epi32((int)0xFFFF0000u);
  __m512 sum = _mm512_setzero_ps();
  for (int64_t i = 0; i < kp; i += 16) {
    __mmask16 m = i + 16 <= k ? (__mmask16)0xFFFF
                  : i < k     ? (__mmask16)((1u << (k - i)) - 1)
                              : (__mmask16)0;
    __m512i x = _mm512_castps_si512(_mm512_maskz_loadu_ps(m, a + i));
    __m512i r = _mm512_add_epi32(
        x, _mm512_add_epi32(half,
                            _mm512_and_si512(_mm512_srli_epi32(x, 16), one)));
    __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(x, abs), inf);
    r = _mm512_mask_or_epi32(r, nan, x, quiet);
    sum = _mm512_add_ps(sum, _mm512_castsi512_ps(_mm512_and_si512(r, high)));
    _mm256_storeu_si256(
        reinterpret_cast<__m256i *>(dst + i / 32 * stepStride + i % 32),
        _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16)));
  }
  return _mm512_reduce_add_ps(sum);
}

/// Weights [16 v, 16 v + 16) of an int8 row as float bits.
__attribute__((target("avx512f,avx512bw,avx512vl"),
               always_inline)) inline __m512i
widen(const uint8_t *row, int v) {
  return _mm512_castps_si512(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
      _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + 16 * v)))));
}

/// Panel `w` (int8 [k][64]) as AMX's B operand for bf16 products: k pairs
/// (2i, 2i + 1) of each column side by side, zero past k, laid out
/// [half][k step][16 pairs][32 columns][2] so that the two B tiles of a
/// half and step are 2 KB in a row (prefetched as one stream). An int8
/// weight is exact in bfloat16 (8 significant bits).
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
packPanelBf16(const uint8_t *w, int64_t k, int64_t kp, uint16_t *dst) {
  const __m512i high = _mm512_set1_epi32((int)0xFFFF0000u);
  const int64_t steps = kp / 32;
  for (int64_t i = 0; i < kp; i += 2) {
    const int64_t st = i / 32, pair = i / 2 % 16;
    for (int v = 0; v < 4; ++v) {
      __m512i lo = i < k ? _mm512_srli_epi32(widen(w + i * kP, v), 16)
                         : _mm512_setzero_si512();
      __m512i hi = i + 1 < k
                       ? _mm512_and_si512(widen(w + (i + 1) * kP, v), high)
                       : _mm512_setzero_si512();
      uint16_t *row = dst + ((v / 2 * steps + st) * 16 + pair) * 64;
      _mm512_storeu_si512(row + v % 2 * 32, _mm512_or_si512(lo, hi));
    }
  }
}

/// A tile of a bf16-activation product on AMX. The tile's rows are
/// rounded to bfloat16 once, into blocks of 32 rows laid out [k step][32
/// rows][32 k] (the two A tiles of a step 2 KB in a row); `packed` holds
/// every panel in packPanelBf16's layout (bf16Tile). Per half panel (32
/// columns) and chunk of kChunkSteps k steps (B's 32 KB stay in L1 while every
/// block of rows streams past them), 32 rows x 32 columns accumulate in four
/// tiles, carried between chunks in `acc`. The sums are float; the column's
/// scale (and zero point through the row's sum) comes after, as in the float
/// path.
constexpr int64_t kChunkSteps = 16;

__attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl"))) void
amxBf16Tile(const WParams &g, const WBuffers &bf, const int64_t *tile,
            int64_t ldy, const uint16_t *packed) {
  const int64_t r0 = tile[0], rows = tile[1] - tile[0];
  const int64_t kp = (g.k + 31) / 32 * 32, steps = kp / 32;
  const int64_t blocks = (rows + 31) / 32, blockElems = steps * 32 * 32;
  thread_local std::vector<uint16_t> apack;
  thread_local std::vector<float> asum, acc;
  growScratch(apack, blocks * blockElems);
  growScratch(asum, blocks * 32);
  growScratch(acc, blocks * 32 * kP);
  for (int64_t r = 0; r < blocks * 32; ++r) {
    uint16_t *dst = &apack[r / 32 * blockElems + r % 32 * 32];
    if (r < rows) {
      asum[r] = roundRowBf16(bf.row(g, r0 + r), g.k, kp, dst, 32 * 32);
    } else {
      for (int64_t st = 0; st < steps; ++st)
        std::memset(dst + st * 32 * 32, 0, 32 * sizeof(uint16_t));
      asum[r] = 0;
    }
  }
  AmxConfig cfg;
  _tile_loadconfig(&cfg);
  constexpr int64_t ldc = kP * sizeof(float);
  for (int64_t n0 = tile[2]; n0 < tile[3]; n0 += kP) {
    const int64_t nb = std::min(kP, tile[3] - n0), p = n0 / kP;
    const uint16_t *panel = packed + p * kp * kP;
    for (int64_t h = 0; h < 2; ++h) {
      for (int64_t c0 = 0; c0 < steps; c0 += kChunkSteps) {
        const int64_t c1 = std::min(steps, c0 + kChunkSteps);
        for (int64_t b = 0; b < blocks; ++b) {
          const bool two = rows - b * 32 > 16;
          float *c = &acc[b * 32 * kP + h * 32];
          if (c0 == 0) {
            _tile_zero(0);
            _tile_zero(1);
            _tile_zero(2);
            _tile_zero(3);
          } else {
            _tile_loadd(0, c, ldc);
            _tile_loadd(1, c + 16, ldc);
            _tile_loadd(2, c + 16 * kP, ldc);
            _tile_loadd(3, c + 16 * kP + 16, ldc);
          }
          const uint16_t *a = &apack[b * blockElems];
          const uint16_t *bp = panel + h * steps * 16 * 64;
          for (int64_t st = c0; st < c1; ++st) {
            const uint16_t *as = a + st * 32 * 32, *bs = bp + st * 16 * 64;
            _tile_loadd(4, as, 64);
            _tile_loadd(6, bs, 128);
            _tile_loadd(7, bs + 32, 128);
            _tile_dpbf16ps(0, 4, 6);
            _tile_dpbf16ps(1, 4, 7);
            if (two) {
              _tile_loadd(5, as + 16 * 32, 64);
              _tile_dpbf16ps(2, 5, 6);
              _tile_dpbf16ps(3, 5, 7);
            }
          }
          _tile_stored(0, c, ldc);
          _tile_stored(1, c + 16, ldc);
          _tile_stored(2, c + 16 * kP, ldc);
          _tile_stored(3, c + 16 * kP + 16, ldc);
        }
      }
    }
    const auto [s, sz] = PanelTables(g, bf, p);
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t r = r0 + i;
      float *o = &acc[i * kP];
      const __m512 rs = _mm512_set1_ps(asum[i]);
      for (int v = 0; v < 4; ++v) {
        __m512 y = _mm512_mul_ps(_mm512_loadu_ps(o + 16 * v),
                                 _mm512_loadu_ps(s + 16 * v));
        if (sz)
          y = _mm512_fnmadd_ps(_mm512_loadu_ps(sz + 16 * v), rs, y);
        _mm512_storeu_ps(o + 16 * v, y);
      }
      if (ldy) {
        storeGated(g, o, bf.y + r * ldy, n0, ldy);
        continue;
      }
      std::memcpy(bf.y + r * g.n + n0, o, nb * sizeof(float));
      finish(g, bf, r, n0, nb);
    }
  }
  _tile_release();
}
#endif

/// A tile on float activations (int8 ones for few rows with a_bits 8).
bool floatTile(const WParams &g, const WBuffers &bf, const int64_t *tile,
               int64_t ldy, std::string &error) {
  const int64_t r0 = tile[0], r1 = tile[1], c0 = tile[2], c1 = tile[3];
  if (r1 - r0 >= kDequantRows) {
    thread_local std::vector<float> panel, block;
    panel.resize(g.k * kP);
    if (ldy)
      block.resize(kRowBlock * kP);
    BlockKernels bk;
    bk.lda = g.k, bk.ldb = kP, bk.ldc = ldy ? kP : g.n;
    for (int64_t n0 = c0; n0 < c1; n0 += kP) {
      int64_t nb = std::min(kP, c1 - n0);
      dequantPanel(g, bf, n0 / kP, panel.data());
      for (int64_t m0 = r0; m0 < r1; m0 += kRowBlock) {
        int64_t mb = std::min(kRowBlock, r1 - m0);
        for (int64_t k0 = 0; k0 < g.k; k0 += kDepthBlock) {
          int64_t kb = std::min(kDepthBlock, g.k - k0);
          if (!bk.get(mb, nb, kb)) {
            error = "libxsmm has no kernel for a " + std::to_string(mb) + "x" +
                    std::to_string(nb) + "x" + std::to_string(kb) + " block";
            return false;
          }
          (k0 == 0 ? bk.first
                   : bk.accum)(panel.data() + k0 * kP, bf.row(g, m0) + k0,
                               ldy ? block.data() : bf.y + m0 * g.n + n0);
        }
        for (int64_t i = 0; i < mb; ++i)
          if (ldy)
            storeGated(g, block.data() + i * kP, bf.y + (m0 + i) * ldy, n0,
                       ldy);
          else
            finish(g, bf, m0 + i, n0, nb);
      }
    }
    return true;
  }
  alignas(64) float out[kMaxStreamRows][kP];
  if (g.int8Activations()) {
    // Few rows on int8 activations: each row quantized once per tile.
    const int64_t nw = g.words(), rows = r1 - r0;
    thread_local std::vector<uint32_t> words;
    thread_local std::vector<float> scales;
    thread_local std::vector<int32_t> qsums;
    words.resize(rows * 2 * nw);
    scales.resize(rows * g.groups);
    qsums.resize(rows * g.groups);
    for (int64_t r = 0; r < rows; ++r)
      quantizeRow(g, bf.row(g, r0 + r), words.data() + r * 2 * nw,
                  scales.data() + r * g.groups, qsums.data() + r * g.groups);
    for (int64_t n0 = c0; n0 < c1; n0 += kP) {
      int64_t nb = std::min(kP, c1 - n0);
      for (int64_t m0 = r0; m0 < r1; m0 += kMaxStreamRows) {
        int mr = (int)std::min<int64_t>(kMaxStreamRows, r1 - m0);
        QuantizedRow qa[kMaxStreamRows];
        for (int r = 0; r < mr; ++r) {
          int64_t i = m0 + r - r0;
          qa[r] = {words.data() + i * 2 * nw, words.data() + i * 2 * nw + nw,
                   scales.data() + i * g.groups, qsums.data() + i * g.groups};
        }
        streamPanelQ8(g, bf, n0 / kP, qa, mr, out);
        for (int r = 0; r < mr; ++r) {
          if (ldy) {
            storeGated(g, out[r], bf.y + (m0 + r) * ldy, n0, ldy);
            continue;
          }
          std::memcpy(bf.y + (m0 + r) * g.n + n0, out[r], nb * sizeof(float));
          finish(g, bf, m0 + r, n0, nb);
        }
      }
    }
    return true;
  }
  // Few rows: stream the panels, every row of the tile at once.
  thread_local std::vector<float> sums;
  sums.assign((r1 - r0) * g.groups, 0.f);
  if (bf.sz)
    for (int64_t r = r0; r < r1; ++r)
      groupSums(g, bf.row(g, r), sums.data() + (r - r0) * g.groups);
  // The AVX-512 int4 path reads nibble t of a word in place (n * 16^t):
  // its activations come scaled by 16^-t (t < 7), a power of two, so the
  // products are the same.
  const float *aRows = bf.a;
  int64_t aRow0 = bf.aRow0;
#if AMK_WGEMM_X86
  thread_local std::vector<float> scaled;
  if (g.bits == 4 && (hasAvx512() || hasAvx2())) {
    scaled.resize((r1 - r0) * g.k);
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t k = 0; k < g.k; ++k)
        scaled[(r - r0) * g.k + k] = bf.row(g, r)[k] * kNibbleScale[k % 8];
    aRows = scaled.data(), aRow0 = r0;
  }
#endif
  for (int64_t n0 = c0; n0 < c1; n0 += kP) {
    int64_t nb = std::min(kP, c1 - n0);
    for (int64_t m0 = r0; m0 < r1; m0 += kMaxStreamRows) {
      int mr = (int)std::min<int64_t>(kMaxStreamRows, r1 - m0);
      const float *a[kMaxStreamRows], *asum[kMaxStreamRows];
      for (int r = 0; r < mr; ++r) {
        a[r] = aRows + (m0 + r - aRow0) * g.k;
        asum[r] = sums.data() + (m0 + r - r0) * g.groups;
      }
      streamPanel(g, bf, n0 / kP, a, asum, mr, out);
      for (int r = 0; r < mr; ++r) {
        if (ldy) {
          storeGated(g, out[r], bf.y + (m0 + r) * ldy, n0, ldy);
          continue;
        }
        std::memcpy(bf.y + (m0 + r) * g.n + n0, out[r], nb * sizeof(float));
        finish(g, bf, m0 + r, n0, nb);
      }
    }
  }
  return true;
}

/// A tile of a bf16-activation product (a_bits 16): on AMX where the CPU
/// has it; elsewhere the tile's rows rounded to bfloat16 go through the
/// float paths, which compute the same values up to the order of the
/// sums (products of a bf16 and an int8 value are exact in float).
bool bf16Tile(const KernelCall &call, const WParams &g, WBuffers bf,
              const int64_t *tile, int64_t ldy, std::string &error) {
#if AMK_WGEMM_X86
  if (hasAmxBf16()) {
    // Every panel in AMX's bf16 layout once per session (2 bytes a
    // weight beside the program's int8 copy), so that tiles split by
    // rows do not each convert the same panels. A direct call without a
    // session (unit tests) packs into its own buffer.
    const int64_t kp = (g.k + 31) / 32 * 32, panels = (g.n + kP - 1) / kP;
    auto pack = [&](std::vector<int8_t> &bytes) {
      bytes.resize(panels * kp * kP * sizeof(uint16_t));
      auto *dst = reinterpret_cast<uint16_t *>(bytes.data());
      for (int64_t p = 0; p < panels; ++p)
        packPanelBf16(g.panel(bf.w, p), g.k, kp, dst + p * kp * kP);
    };
    thread_local std::vector<int8_t> own;
    std::vector<int8_t> *bytes = &own;
    if (call.scratch) {
      std::call_once(call.scratch->once, [&] { pack(call.scratch->bytes); });
      bytes = &call.scratch->bytes;
    } else {
      pack(own);
    }
    amxBf16Tile(g, bf, tile, ldy,
                reinterpret_cast<const uint16_t *>(bytes->data()));
    return true;
  }
#endif
  thread_local std::vector<float> rounded;
  growScratch(rounded, (tile[1] - tile[0]) * g.k);
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    const float *a = bf.row(g, r);
    float *dst = rounded.data() + (r - tile[0]) * g.k;
    for (int64_t k = 0; k < g.k; ++k)
      dst[k] = bf16ToFloat(floatToBf16(a[k]));
  }
  bf.a = rounded.data(), bf.aRow0 = tile[0];
  return floatTile(g, bf, tile, ldy, error);
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_WGEMM>::run(const KernelCall &call,
                                     const int64_t *tile, std::string &error) {
  WParams g(call.ip, call.fp);
  WBuffers bf{static_cast<const float *>(call.buffers[0]),
              static_cast<const uint8_t *>(call.buffers[1]),
              static_cast<float *>(call.buffers[2]),
              static_cast<const float *>(call.buffers[3]),
              static_cast<const float *>(call.buffers[4]),
              static_cast<const float *>(call.buffers[5]),
              call.kernel->num_buffers > 6
                  ? static_cast<const float *>(call.buffers[6])
                  : nullptr};
  if (tile[2] % kP) {
    error = "column tile " + std::to_string(tile[2]) + " is not on a panel";
    return false;
  }
  // Gated (kernel_params.h): Y has ldy outputs per row, written from each
  // panel's two halves.
  const int64_t ldy =
      call.kernel->num_iparams > AMK_WG_GATED ? call.ip[AMK_WG_GATED] : 0;
  if (g.bf16Activations())
    return bf16Tile(call, g, bf, tile, ldy, error);
  return floatTile(g, bf, tile, ldy, error);
}

template <>
bool KernelImpl<AMK_RT_K_WGEMM>::check(const amk_rt_kernel &k,
                                       const int64_t *ip, const float *,
                                       std::string &error) {
  if (!hasParams(k, AMK_WG_NUM_IPARAMS, AMK_WG_NUM_FPARAMS, error) ||
      k.num_buffers < 6)
    return false;
  if ((ip[AMK_WG_BITS] != 8 && ip[AMK_WG_BITS] != 4) || ip[AMK_WG_N] < 1 ||
      ip[AMK_WG_K] < 1 || ip[AMK_WG_GROUP] < 1) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': wgemm takes 8- or 4-bit weights and needs N, K and the "
            "group >= 1";
    return false;
  }
  if (k.num_iparams > AMK_WG_GATED && ip[AMK_WG_GATED] != 0 &&
      (ip[AMK_WG_N] % kP || 2 * ip[AMK_WG_GATED] > ip[AMK_WG_N] ||
       2 * ip[AMK_WG_GATED] <= ip[AMK_WG_N] - kP)) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': a gated wgemm needs N the panels covering 2 x gated outputs";
    return false;
  }
  // int8 activations meet 4-bit weights whose groups start on a word;
  // bf16 ones int8 weights with one scale per column.
  const int64_t aBits = ip[AMK_WG_A_BITS];
  const bool q8 =
      aBits == 8 && ip[AMK_WG_BITS] == 4 &&
      (ip[AMK_WG_GROUP] % 8 == 0 || ip[AMK_WG_GROUP] >= ip[AMK_WG_K]);
  const bool b16 =
      aBits == 16 && ip[AMK_WG_BITS] == 8 && ip[AMK_WG_GROUP] >= ip[AMK_WG_K];
  if (aBits != 0 && !q8 && !b16) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': wgemm's a_bits must be 0, 8 with 4-bit weights in groups "
            "of a multiple of 8, or 16 with 8-bit weights scaled per column";
    return false;
  }
  return true;
}

} // namespace amk::rt
