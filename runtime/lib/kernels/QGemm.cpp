//===- QGemm.cpp - Integer matrix product ----------------------------------===//
//
// Part of AMK. QGEMM (kernel_params.h): uint8 activations times int8
// weights summed in int32, then a float epilogue per output. The weights
// are packed at compile time as [N/16][K/4][16][4]: one 64-byte vector
// holds 4 reduction steps of 16 output columns, vpdpbusd's signed operand.
// The activations are not packed: 4 consecutive bytes of a row are one
// 32-bit broadcast. A register tile is 6 rows x 64 columns (24 int32
// accumulators); rows past the tile's end read a zero row.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Vnni.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define AMK_QGEMM_X86 1
#endif

namespace amk::rt {

namespace {

constexpr int64_t kMR = 6, kNV = 4, kNR = 16 * kNV;

struct GParams {
  int64_t rows, n, k, k4s, aSigned, azp, yType, yzp, act;
  float actA, actB, invYScale;
  GParams(const int64_t *ip, const float *fp)
      : rows(ip[AMK_QG_ROWS]), n(ip[AMK_QG_N]), k(ip[AMK_QG_K]),
        k4s((ip[AMK_QG_K] + 3) / 4), aSigned(ip[AMK_QG_A_SIGNED]),
        azp(ip[AMK_QG_A_ZP]), yType(ip[AMK_QG_Y_DTYPE]),
        yzp(ip[AMK_QG_Y_ZP]), act(ip[AMK_QG_ACT]),
        actA(fp[AMK_QG_ACT_ALPHA]), actB(fp[AMK_QG_ACT_BETA]),
        invYScale(fp[AMK_QG_INV_Y_SCALE]) {}
};

/// The 4-byte groups of one row of A as 32-bit words, the last one
/// zero-padded when K is not a multiple of 4 (the packed weights are zero
/// there), so the kernels never read past the row.
const uint32_t *rowWords(const uint8_t *a, const GParams &g,
                         std::vector<uint32_t> &tmp) {
  if (g.k % 4 == 0)
    return reinterpret_cast<const uint32_t *>(a);
  tmp.assign(g.k4s, 0);
  std::memcpy(tmp.data(), a, g.k);
  return tmp.data();
}

#if AMK_QGEMM_X86
/// The epilogue below on 16 lanes at a time, over a block of `rows` rows
/// of `cols` columns, sums `ld` int32 apart: each pair of column vectors'
/// weight sums, scales and bias is loaded once for every row of the block.
/// The scalar loops, run once per row of a tile, took as long as the AMX
/// products of a 1024-column layer; vectorized but called per row of a 32
/// x 32 AMX block, still more (38% of a 128 x 256 x 1024 layer against
/// 25%). Activations it inlines (none, Relu, Clip); 8-bit or float32
/// outputs. The 8-bit values are the float steps' (clamp, multiply by the
/// reciprocal scale, round half to even, add the zero point, saturate) in
/// fewer instructions: the rounding by vcvtps2dq, the zero point added to
/// the int16 values with saturation, the type's bounds applied by the
/// saturating packs, 32 outputs per store. Above 2^30 the product is
/// clamped first, so a huge value saturates high as the float clamp did
/// (a huge negative one, or NaN, converts to INT_MIN and saturates low).
/// `SubW`: the sums still hold the weight-sum correction (the AMX blocks
/// start their accumulators from it instead).
template <int32_t YType, bool HasBias, bool Clamp, bool SubW>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
epilogueBlockT(const GParams &g, const int32_t *acc, int64_t ld, int64_t rows,
               int64_t n0, int64_t cols, const int32_t *wz, int32_t wzMul,
               const float *m, float mMul, const float *bias, void *y,
               int64_t at) {
  constexpr bool f32 = YType == AMK_RT_F32;
  __m512 lo = _mm512_set1_ps(-INFINITY), hi = _mm512_set1_ps(INFINITY);
  if (g.act == AMK_OP_RELU)
    lo = _mm512_setzero_ps();
  else if (g.act == AMK_OP_CLIP)
    lo = _mm512_set1_ps(g.actA), hi = _mm512_set1_ps(g.actB);
  const __m512i wzm = _mm512_set1_epi32(wzMul);
  const __m512 mm = _mm512_set1_ps(mMul), inv = _mm512_set1_ps(g.invYScale);
  const __m512i order =
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i yz16 = _mm512_set1_epi16((int16_t)g.yzp);
  const __m512 big = _mm512_set1_ps(1073741824.f);
  for (int64_t i = 0; i < cols; i += 32) {
    __mmask16 k[2];
    __m512i w[2];
    __m512 sc[2], b[2];
    for (int v = 0; v < 2; ++v) {
      const int64_t c = std::clamp<int64_t>(cols - i - 16 * v, 0, 16);
      k[v] = c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << c) - 1);
      const int64_t at0 = n0 + i + 16 * v;
      w[v] = SubW ? _mm512_mullo_epi32(_mm512_maskz_loadu_epi32(k[v], wz + at0),
                                       wzm)
                  : _mm512_setzero_si512();
      sc[v] = _mm512_mul_ps(_mm512_maskz_loadu_ps(k[v], m + at0), mm);
      b[v] = HasBias ? _mm512_maskz_loadu_ps(k[v], bias + at0)
                     : _mm512_setzero_ps();
    }
    const int64_t c = std::min<int64_t>(cols - i, 32);
    const __mmask32 kout = c >= 32 ? ~0u : (1u << c) - 1;
    // One row's 32 sums: float32 stored, or the 8-bit steps up to the
    // int32 values with the zero point added.
    auto rowValues = [&](int64_t r, __m512i iv[2])
        __attribute__((target("avx512f,avx512bw,avx512vl"))) {
      for (int v = 0; v < 2; ++v) {
        __m512i a = _mm512_maskz_loadu_epi32(k[v], acc + r * ld + i + 16 * v);
        if (SubW)
          a = _mm512_sub_epi32(a, w[v]);
        __m512 x = _mm512_mul_ps(_mm512_cvtepi32_ps(a), sc[v]);
        if (HasBias)
          x = _mm512_add_ps(x, b[v]);
        if (Clamp)
          x = _mm512_min_ps(_mm512_max_ps(x, lo), hi);
        if (f32) {
          _mm512_mask_storeu_ps(
              static_cast<float *>(y) + at + r * g.n + i + 16 * v, k[v], x);
          continue;
        }
        // min(big, x) keeps a NaN, which converts to INT_MIN as -big did.
        iv[v] = _mm512_cvtps_epi32(_mm512_min_ps(big, _mm512_mul_ps(x, inv)));
      }
    };
    // Rows in pairs: the packs leave row r's 32 bytes in the low half and
    // row r + 1's in the high half, so two rows take the shuffles one did.
    for (int64_t r = 0; r < rows; r += 2) {
      const bool two = r + 1 < rows;
      __m512i iv[2], jv[2];
      rowValues(r, iv);
      if (two)
        rowValues(r + 1, jv);
      if (f32)
        continue;
      if (!two)
        jv[0] = iv[0], jv[1] = iv[1];
      // The zero point is added to the int16 values with saturation: a
      // value that saturated there is past the 8-bit range either way.
      const __m512i wr = _mm512_adds_epi16(_mm512_packs_epi32(iv[0], iv[1]),
                                           yz16),
                    wr1 = _mm512_adds_epi16(_mm512_packs_epi32(jv[0], jv[1]),
                                            yz16);
      const __m512i bytes = _mm512_permutexvar_epi32(
          order, YType == AMK_RT_U8 ? _mm512_packus_epi16(wr, wr1)
                                    : _mm512_packs_epi16(wr, wr1));
      uint8_t *out = static_cast<uint8_t *>(y) + at + r * g.n + i;
      _mm256_mask_storeu_epi8(out, kout, _mm512_castsi512_si256(bytes));
      if (two)
        _mm256_mask_storeu_epi8(out + g.n, kout,
                                _mm512_extracti64x4_epi64(bytes, 1));
    }
  }
}

using BlockEpilogue = void (*)(const GParams &, const int32_t *, int64_t,
                               int64_t, int64_t, int64_t, const int32_t *,
                               int32_t, const float *, float, const float *,
                               void *, int64_t);

template <int32_t YType, bool SubW>
BlockEpilogue blockEpilogueFor(bool bias, bool clamp) {
  if (bias)
    return clamp ? epilogueBlockT<YType, true, true, SubW>
                 : epilogueBlockT<YType, true, false, SubW>;
  return clamp ? epilogueBlockT<YType, false, true, SubW>
               : epilogueBlockT<YType, false, false, SubW>;
}

template <bool SubW>
BlockEpilogue blockEpilogueFor(const GParams &g, bool bias) {
  const bool clamp = g.act != AMK_OP_NONE;
  if (g.yType == AMK_RT_F32)
    return blockEpilogueFor<AMK_RT_F32, SubW>(bias, clamp);
  if (g.yType == AMK_RT_U8)
    return blockEpilogueFor<AMK_RT_U8, SubW>(bias, clamp);
  return blockEpilogueFor<AMK_RT_I8, SubW>(bias, clamp);
}

/// The block epilogue for this call's output type, bias and activation,
/// chosen once per call: tested inside the row loop, the three choices
/// cost a fifth of a 128 x 256 x 1024 layer's epilogue and pushed its
/// constants out of registers. `subW`: the sums still hold the weight-sum
/// correction (the AMX blocks start their accumulators from it instead).
BlockEpilogue blockEpilogueFor(const GParams &g, const float *bias, bool subW) {
  return subW ? blockEpilogueFor<true>(g, bias != nullptr)
              : blockEpilogueFor<false>(g, bias != nullptr);
}

/// One row; activations other than Relu and Clip go through
/// applyActivation on the row's float values, the same operations before
/// and after it.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
epilogueAvx512(const GParams &g, const int32_t *acc, int64_t n0, int64_t cols,
               const int32_t *wz, int32_t wzMul, const float *m, float mMul,
               const float *bias, void *y, int64_t at) {
  const int act = (int)g.act;
  if (act == AMK_OP_NONE || act == AMK_OP_RELU || act == AMK_OP_CLIP)
    return blockEpilogueFor(g, bias, true)(g, acc, cols, 1, n0, cols, wz, wzMul,
                                           m, mMul, bias, y, at);
  const __m512i wzm = _mm512_set1_epi32(wzMul);
  const __m512 mm = _mm512_set1_ps(mMul);
  alignas(64) float v[kNR];
  for (int64_t i = 0; i < cols; i += 16) {
    __mmask16 k = cols - i >= 16 ? (__mmask16)0xffff
                                 : (__mmask16)((1u << (cols - i)) - 1);
    __m512i a = _mm512_sub_epi32(
        _mm512_maskz_loadu_epi32(k, acc + i),
        _mm512_mullo_epi32(_mm512_maskz_loadu_epi32(k, wz + n0 + i), wzm));
    __m512 x =
        _mm512_mul_ps(_mm512_cvtepi32_ps(a),
                      _mm512_mul_ps(_mm512_maskz_loadu_ps(k, m + n0 + i), mm));
    if (bias)
      x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(k, bias + n0 + i));
    _mm512_store_ps(v + i, x);
  }
  applyActivation(v, cols, act, g.actA, g.actB);
  if (g.yType == AMK_RT_F32) {
    std::memcpy(static_cast<float *>(y) + at, v, cols * sizeof(float));
    return;
  }
  const __m512 inv = _mm512_set1_ps(g.invYScale),
               yz = _mm512_set1_ps((float)g.yzp);
  const __m512 qlo = _mm512_set1_ps(g.yType == AMK_RT_U8 ? 0.f : -128.f),
               qhi = _mm512_set1_ps(g.yType == AMK_RT_U8 ? 255.f : 127.f);
  for (int64_t i = 0; i < cols; i += 16) {
    __mmask16 k = cols - i >= 16 ? (__mmask16)0xffff
                                 : (__mmask16)((1u << (cols - i)) - 1);
    __m512 x =
        _mm512_roundscale_ps(_mm512_mul_ps(_mm512_load_ps(v + i), inv),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    x = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(x, yz), qlo), qhi);
    _mm_mask_storeu_epi8(static_cast<uint8_t *>(y) + at + i, k,
                         _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(x)));
  }
}
#endif

/// Epilogue of one row's `cols` columns from n0: int32 sums to float,
/// per-column scale and bias, activation, float32 or requantized store.
void epilogue(const GParams &g, const int32_t *acc, int64_t n0,
              int64_t cols, const int32_t *wz, int32_t wzMul, const float *m,
              float mMul, const float *bias, void *y, int64_t at) {
  if (g.yType == AMK_RT_I32) {
    int32_t *out = static_cast<int32_t *>(y) + at;
    for (int64_t i = 0; i < cols; ++i)
      out[i] = acc[i] - wz[n0 + i] * wzMul;
    return;
  }
#if AMK_QGEMM_X86
  if (hasAvx512())
    return epilogueAvx512(g, acc, n0, cols, wz, wzMul, m, mMul, bias, y, at);
#endif
  float v[kNR];
  for (int64_t i = 0; i < cols; ++i)
    v[i] = (float)(acc[i] - wz[n0 + i] * wzMul) * (m[n0 + i] * mMul) +
           (bias ? bias[n0 + i] : 0.f);
  applyActivation(v, cols, (int)g.act, g.actA, g.actB);
  if (g.yType == AMK_RT_F32) {
    std::memcpy(static_cast<float *>(y) + at, v, cols * sizeof(float));
    return;
  }
  float lo = g.yType == AMK_RT_U8 ? 0.f : -128.f,
        hi = g.yType == AMK_RT_U8 ? 255.f : 127.f, zp = (float)g.yzp;
  for (int64_t i = 0; i < cols; ++i)
    v[i] = std::clamp(__builtin_roundevenf(v[i] * g.invYScale) + zp, lo, hi);
  if (g.yType == AMK_RT_U8)
    for (int64_t i = 0; i < cols; ++i)
      static_cast<uint8_t *>(y)[at + i] = (uint8_t)(int)v[i];
  else
    for (int64_t i = 0; i < cols; ++i)
      static_cast<int8_t *>(y)[at + i] = (int8_t)(int)v[i];
}

/// acc[r][c] for kMR rows (`a[r]` their words) and the kNV 16-column
/// blocks from `bp` (each k4s * 64 bytes apart): the portable version.
void tilePortable(const uint32_t *const a[kMR], const int8_t *bp, int64_t k4s,
                  uint32_t flip, int32_t acc[kMR][kNR]) {
  for (int64_t r = 0; r < kMR; ++r)
    std::fill_n(acc[r], kNR, 0);
  for (int64_t v = 0; v < kNV; ++v) {
    const int8_t *b = bp + v * k4s * 64;
    for (int64_t k4 = 0; k4 < k4s; ++k4, b += 64)
      for (int64_t r = 0; r < kMR; ++r) {
        uint32_t w = a[r][k4] ^ flip;
        int32_t a0 = w & 0xff, a1 = (w >> 8) & 0xff, a2 = (w >> 16) & 0xff,
                a3 = w >> 24;
        int32_t *c = acc[r] + v * 16;
        for (int64_t j = 0; j < 16; ++j)
          c[j] += a0 * b[j * 4] + a1 * b[j * 4 + 1] + a2 * b[j * 4 + 2] +
                  a3 * b[j * 4 + 3];
      }
  }
}

#if AMK_QGEMM_X86
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) void
tileVnni(const uint32_t *const a[kMR], const int8_t *bp, int64_t k4s,
         uint32_t flip, int32_t acc[kMR][kNR]) {
  __m512i c[kMR][kNV];
  for (int64_t r = 0; r < kMR; ++r)
    for (int v = 0; v < kNV; ++v)
      c[r][v] = _mm512_setzero_si512();
  const __m512i f = _mm512_set1_epi32((int)flip);
  const int64_t vs = k4s * 64;
  for (int64_t k4 = 0; k4 < k4s; ++k4) {
    __m512i b[kNV];
    for (int v = 0; v < kNV; ++v)
      b[v] = _mm512_loadu_si512(bp + v * vs + k4 * 64);
#pragma clang loop unroll(full)
    for (int64_t r = 0; r < kMR; ++r) {
      __m512i w = _mm512_xor_si512(_mm512_set1_epi32((int)a[r][k4]), f);
      for (int v = 0; v < kNV; ++v)
        c[r][v] = _mm512_dpbusd_epi32(c[r][v], w, b[v]);
    }
  }
  for (int64_t r = 0; r < kMR; ++r)
    for (int v = 0; v < kNV; ++v)
      _mm512_storeu_si512(acc[r] + 16 * v, c[r][v]);
}

/// The same without VNNI (Vnni.h): each row's 4-byte groups split once
/// into even (a0, a2) and odd (a1, a3) int16 pairs, each weight vector
/// into its even and odd bytes sign-extended in registers, and the pairs
/// multiplied with vpmaddwd. Per pass 6 rows x 8 columns (6 accumulators,
/// the split weights and two broadcasts).
__attribute__((target("avx2"))) void tileAvx2(const uint32_t *const a[kMR],
                                              const int8_t *bp, int64_t k4s,
                                              uint32_t flip,
                                              int32_t acc[kMR][kNR]) {
  thread_local std::vector<int32_t> split;
  split.resize(kMR * 2 * k4s);
  for (int64_t r = 0; r < kMR; ++r)
    for (int64_t k4 = 0; k4 < k4s; ++k4) {
      uint32_t w = a[r][k4] ^ flip;
      split[(k4 * kMR + r) * 2] =
          (int32_t)((w & 0xff) | (w >> 16 & 0xff) << 16);
      split[(k4 * kMR + r) * 2 + 1] =
          (int32_t)((w >> 8 & 0xff) | (w >> 24) << 16);
    }
  const int64_t vs = k4s * 64;
  for (int64_t v = 0; v < kNV; ++v)
    for (int64_t h = 0; h < 2; ++h) {
      __m256i c[kMR];
      for (int64_t r = 0; r < kMR; ++r)
        c[r] = _mm256_setzero_si256();
      const int8_t *b = bp + v * vs + h * 32;
      const int32_t *s = split.data();
      for (int64_t k4 = 0; k4 < k4s; ++k4, b += 64, s += 2 * kMR) {
        __m256i wv = _mm256_loadu_si256((const __m256i *)b);
        __m256i we = _mm256_srai_epi16(_mm256_slli_epi16(wv, 8), 8);
        __m256i wo = _mm256_srai_epi16(wv, 8);
#pragma clang loop unroll(full)
        for (int64_t r = 0; r < kMR; ++r) {
          c[r] = _mm256_add_epi32(
              c[r], _mm256_madd_epi16(_mm256_set1_epi32(s[2 * r]), we));
          c[r] = _mm256_add_epi32(
              c[r], _mm256_madd_epi16(_mm256_set1_epi32(s[2 * r + 1]), wo));
        }
      }
      for (int64_t r = 0; r < kMR; ++r)
        _mm256_storeu_si256((__m256i *)(acc[r] + v * 16 + h * 8), c[r]);
    }
}

/// Rows [tile[0], tile[1]) with AMX (Vnni.h), 32 rows x 32 columns at a
/// time in four accumulator tiles. B's packed layout is already AMX's B
/// operand (16 steps of [16 columns][4 bytes] are 16 rows of 64 bytes);
/// A's rows are copied once per 32 rows, flipped to unsigned and padded
/// with zeros to whole 64-byte steps and 32 rows, so no tile reads past a
/// row or past A. A step past the last packed K step reads the next
/// column block's bytes times those zeros; the last block and the blocks
/// past N come from a zero-padded copy instead, so no read leaves B.
/// `store(acc, ld, rows, r0, c0, cols)` runs the epilogue of a block of
/// rows from r0, their sums `ld` apart. With `init` (a value per column,
/// zero past N up to the next 32) the accumulators start from it rather
/// than from zero: one tile row loaded with stride 0 puts the weight-sum
/// correction in every row for nothing, where the epilogue would subtract
/// it from every sum.
template <typename Store>
__attribute__((target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl"))) void
tileAmx(const GParams &g, const uint8_t *A, const int8_t *B,
        const int64_t *tile, uint8_t flip, const int32_t *init, Store &&store) {
  const int64_t k4p = (g.k4s + 15) / 16 * 16, kp = k4p * 4;
  const int64_t steps = k4p / 16, nBlocks = (g.n + 15) / 16;
  const int64_t blockBytes = g.k4s * 64;
  thread_local std::vector<uint8_t> apack;
  thread_local std::vector<int8_t> bpad;
  bool padded = false;
  auto block = [&](int64_t nb) -> const int8_t * {
    bool tail = g.k4s != k4p && nb == nBlocks - 1;
    if (nb < nBlocks && !tail)
      return B + nb * blockBytes;
    if (!padded) {
      // [0]: the last block, zero-padded to k4p steps; [1]: zeros.
      bpad.assign(2 * k4p * 64, 0);
      std::memcpy(bpad.data(), B + (nBlocks - 1) * blockBytes, blockBytes);
      padded = true;
    }
    return bpad.data() + (tail ? 0 : k4p * 64);
  };
  AmxConfig cfg;
  _tile_loadconfig(&cfg);
  // Two sets of stored tiles: a block's epilogue comes after the next
  // block's products in program order, so the vector units run it while
  // the tile unit works (one after the other, the epilogue of a 128 x 256
  // x 1024 layer took more samples than its products).
  alignas(64) int32_t acc[2][32][32];
  struct Pending {
    int64_t rows, r0, c0, cols;
  } pending{0, 0, 0, 0};
  int buf = 0;
  // Unsigned rows whose K fills whole 64-byte steps are the tile rows as
  // they are (32 of them, so no load reads past A): no copy. Other blocks
  // of 32 rows are copied, flipped to unsigned and zero-padded.
  apack.resize(32 * kp);
  auto inPlace = [&](int64_t r0) {
    return !flip && g.k == kp && tile[1] - r0 >= 32;
  };
  auto pack = [&](int64_t r0, uint8_t *dst) {
    const int64_t mr = std::min<int64_t>(32, tile[1] - r0);
    for (int64_t r = 0; r < 32; ++r, dst += kp) {
      if (r >= mr) {
        std::memset(dst, 0, kp);
        continue;
      }
      const uint8_t *src = A + (r0 + r) * g.k;
      for (int64_t k = 0; k < g.k; ++k)
        dst[k] = src[k] ^ flip;
      std::memset(dst + g.k, 0, kp - g.k);
    }
  };
  auto product = [&](int64_t r0, const uint8_t *a0, int64_t c0)
      __attribute__((target("amx-tile,amx-int8"))) {
    const int64_t mr = std::min<int64_t>(32, tile[1] - r0);
    const uint8_t *a1 = a0 + 16 * kp;
    const int64_t cols = std::min<int64_t>(32, tile[3] - c0);
    const int8_t *b0 = block(c0 / 16), *b1 = block(c0 / 16 + 1);
    if (init) {
      _tile_loadd(0, init + c0, 0);
      _tile_loadd(1, init + c0 + 16, 0);
      _tile_loadd(2, init + c0, 0);
      _tile_loadd(3, init + c0 + 16, 0);
    } else {
      _tile_zero(0);
      _tile_zero(1);
      _tile_zero(2);
      _tile_zero(3);
    }
    if (mr > 16) {
      for (int64_t s = 0; s < steps; ++s) {
        _tile_loadd(4, a0 + s * 64, kp);
        _tile_loadd(5, a1 + s * 64, kp);
        _tile_loadd(6, b0 + s * 1024, 64);
        _tile_loadd(7, b1 + s * 1024, 64);
        _tile_dpbusd(0, 4, 6);
        _tile_dpbusd(1, 4, 7);
        _tile_dpbusd(2, 5, 6);
        _tile_dpbusd(3, 5, 7);
      }
    } else {
      for (int64_t s = 0; s < steps; ++s) {
        _tile_loadd(4, a0 + s * 64, kp);
        _tile_loadd(6, b0 + s * 1024, 64);
        _tile_loadd(7, b1 + s * 1024, 64);
        _tile_dpbusd(0, 4, 6);
        _tile_dpbusd(1, 4, 7);
      }
    }
    if (pending.rows)
      store(&acc[buf ^ 1][0][0], 32, pending.rows, pending.r0, pending.c0,
            pending.cols);
    _tile_stored(0, &acc[buf][0][0], 128);
    _tile_stored(1, &acc[buf][0][16], 128);
    _tile_stored(2, &acc[buf][16][0], 128);
    _tile_stored(3, &acc[buf][16][16], 128);
    pending = {mr, r0, c0, cols};
    buf ^= 1;
  };
  for (int64_t r0 = tile[0]; r0 < tile[1]; r0 += 32) {
    if (!inPlace(r0))
      pack(r0, apack.data());
    for (int64_t c0 = tile[2]; c0 < tile[3]; c0 += 32)
      product(r0, inPlace(r0) ? A + r0 * g.k : apack.data(), c0);
  }
  if (pending.rows)
    store(&acc[buf ^ 1][0][0], 32, pending.rows, pending.r0, pending.c0,
          pending.cols);
  _tile_release();
}

#endif

} // namespace

template <>
bool KernelImpl<AMK_RT_K_QGEMM>::run(const KernelCall &call,
                                     const int64_t *tile, std::string &) {
  GParams g(call.ip, call.fp);
  const uint8_t *A = static_cast<const uint8_t *>(call.buffers[0]);
  const int8_t *B = static_cast<const int8_t *>(call.buffers[1]);
  void *Y = call.buffers[2];
  const int32_t *wz = static_cast<const int32_t *>(call.buffers[3]);
  const float *m = static_cast<const float *>(call.buffers[4]);
  const float *bias = static_cast<const float *>(call.buffers[5]);
  // A run-time zero point (MatMulInteger after DynamicQuantizeLinear): WZ
  // holds B's column sums, times the zero point (moved by 128 for int8).
  int32_t wzMul = 1;
  if (call.kernel->num_buffers > 6 && call.buffers[6])
    wzMul = g.aSigned
                ? (int32_t) * static_cast<const int8_t *>(call.buffers[6]) + 128
                : (int32_t) * static_cast<const uint8_t *>(call.buffers[6]);
  // A run-time scale of A multiplies the per-column scales.
  float mMul = 1.f;
  if (call.kernel->num_buffers > 7 && call.buffers[7])
    mMul = *static_cast<const float *>(call.buffers[7]);
  const uint32_t flip = g.aSigned ? 0x80808080u : 0;
#if AMK_QGEMM_X86
  // AMX where a tile has a block's worth of rows; fewer rows (a decoder's
  // token) stay on vpdpbusd, whose tile is 6 rows.
  if (hasAmx() && tile[1] - tile[0] >= 16) {
    const bool block =
        hasAvx512() &&
        (g.yType == AMK_RT_U8 || g.yType == AMK_RT_I8 ||
         g.yType == AMK_RT_F32) &&
        (g.act == AMK_OP_NONE || g.act == AMK_OP_RELU || g.act == AMK_OP_CLIP);
    const BlockEpilogue blockEpilogue =
        block ? blockEpilogueFor(g, bias, false) : nullptr;
    thread_local std::vector<int32_t> negW;
    if (block) {
      // The tile's column blocks only (each task fills its own); zero past
      // N. Wrapping as the epilogue's vpmulld/vpsubd did (the sums do too).
      const int64_t end = tile[2] + (tile[3] - tile[2] + 31) / 32 * 32;
      negW.resize(end);
      for (int64_t c = tile[2]; c < end; ++c)
        negW[c] =
            c < g.n ? (int32_t)(0u - (uint32_t)wz[c] * (uint32_t)wzMul) : 0;
    }
    tileAmx(g, A, B, tile, (uint8_t)flip, block ? negW.data() : nullptr,
            [&](const int32_t *acc, int64_t ld, int64_t rows, int64_t r0,
                int64_t c0, int64_t cols) {
              if (block) {
                blockEpilogue(g, acc, ld, rows, c0, cols, wz, wzMul, m, mMul,
                              bias, Y, r0 * g.n + c0);
                return;
              }
              for (int64_t r = 0; r < rows; ++r)
                epilogue(g, acc + r * ld, c0, cols, wz, wzMul, m, mMul, bias, Y,
                         (r0 + r) * g.n + c0);
            });
    return true;
  }
#endif
  auto tileFn = tilePortable;
#if AMK_QGEMM_X86
  if (hasVnni())
    tileFn = tileVnni;
  else if (hasAvx2())
    tileFn = tileAvx2;
#endif
  thread_local std::vector<uint32_t> zero, tmp[kMR];
  zero.assign(g.k4s, flip); // reads as 0 after the flip
  alignas(64) int32_t acc[kMR][kNR];
  const int64_t nBlocks = (g.n + 15) / 16;
  for (int64_t r0 = tile[0]; r0 < tile[1]; r0 += kMR) {
    const uint32_t *rows[kMR];
    for (int64_t r = 0; r < kMR; ++r)
      rows[r] = r0 + r < tile[1] ? rowWords(A + (r0 + r) * g.k, g, tmp[r])
                                 : zero.data();
    for (int64_t c0 = tile[2]; c0 < tile[3]; c0 += kNR) {
      // The last column blocks may pass N: the packed weights are zero
      // there, and blocks past the packing read block 0 (never stored).
      const int8_t *bp = B + (c0 / 16) * g.k4s * 64;
      int64_t cols = std::min(kNR, tile[3] - c0);
      if (c0 / 16 + kNV > nBlocks) {
        // Fewer than kNV blocks left: run them from a padded copy.
        thread_local std::vector<int8_t> pad;
        pad.assign(kNV * g.k4s * 64, 0);
        std::memcpy(pad.data(), bp, (nBlocks - c0 / 16) * g.k4s * 64);
        bp = pad.data();
      }
      tileFn(rows, bp, g.k4s, flip, acc);
      for (int64_t r = 0; r < kMR && r0 + r < tile[1]; ++r)
        epilogue(g, acc[r], c0, cols, wz, wzMul, m, mMul, bias, Y,
                 (r0 + r) * g.n + c0);
    }
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_QGEMM>::check(const amk_rt_kernel &k,
                                       const int64_t *ip, const float *,
                                       std::string &error) {
  if (!hasParams(k, AMK_QG_NUM_IPARAMS, AMK_QG_NUM_FPARAMS, error) ||
      k.num_buffers < 6)
    return false;
  int64_t y = ip[AMK_QG_Y_DTYPE];
  if ((y != AMK_RT_U8 && y != AMK_RT_I8 && y != AMK_RT_F32 &&
       y != AMK_RT_I32) ||
      ip[AMK_QG_N] < 1 || ip[AMK_QG_K] < 1) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': qgemm stores uint8, int8, float32 or int32 and needs N, K >= "
            "1";
    return false;
  }
  return true;
}

} // namespace amk::rt
