//===- QConv.cpp - Integer convolution
//-------------------------------------===//
//
// Part of AMK. QCONV (kernel_params.h): uint8 activations times int8
// weights summed in int32, then one float epilogue per output that
// dequantizes, adds bias and residual, applies the activation and
// requantizes, so activations stay 8-bit between layers.
//
// Variant 1 (group 1) is an implicit GEMM. Per task and per block of
// pixels the input columns are packed as [K/4][pixels][4] bytes, four
// consecutive reduction steps of one pixel in one 32-bit lane: that is the
// operand layout of vpdpbusd, which multiplies 4 u8 by 4 s8 and adds the
// sum to an int32 lane. The weights, packed at compile time as
// [OC/8][K/4][8][4], are broadcast 4 bytes at a time, so one instruction
// does 64 multiply-adds for 16 pixels of one output channel. A register
// tile is 8 channels x 48 pixels (24 accumulators). The VNNI code is
// compiled for its target with a function attribute and chosen when the
// CPU reports the feature at run time; CPUs with AVX2 but no VNNI run the
// same packed layout through an exact AVX2 emulation (Vnni.h), others
// through portable loops.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/ConvCommon.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Vnni.h"
#include "runtime/lib/kernels/Vector.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define AMK_QCONV_X86 1
#endif

namespace amk::rt {

namespace {

constexpr int64_t kMR = AMK_QCONV_OC_BLOCK; // output channels per tile
constexpr int64_t kNR = 48;                 // pixels per register tile
constexpr int64_t kPixelBlock = 96;         // pixels packed at once
// Rows a register tile's positions may fall in for the epilogue in
// registers (vnniDirectRequant): rows of kNR / 6 = 8 positions or more.
constexpr int64_t kMaxTileRuns = 7;

struct QParams {
  Spatial s;
  int64_t xzp, xSigned, yType, yzp, zType, zzp, kdepth;
  float actA, actB, invYScale, zScale;
  explicit QParams(const int64_t *ip, const float *fp)
      : s(ip), xzp(ip[AMK_QC_X_ZP]), xSigned(ip[AMK_QC_X_SIGNED]),
        yType(ip[AMK_QC_Y_DTYPE]), yzp(ip[AMK_QC_Y_ZP]),
        zType(ip[AMK_QC_Z_DTYPE]), zzp(ip[AMK_QC_Z_ZP]),
        kdepth(ip[AMK_QC_KDEPTH]), actA(fp[AMK_QC_ACT_ALPHA]),
        actB(fp[AMK_QC_ACT_BETA]), invYScale(fp[AMK_QC_INV_Y_SCALE]),
        zScale(fp[AMK_QC_Z_SCALE]) {}
};

/// The parameters of a call: X's zero point read at run time when the
/// call has one (it is also the padding value).
QParams paramsOf(const KernelCall &call) {
  QParams q(call.ip, call.fp);
  if (call.kernel->num_buffers > 7 && call.buffers[7])
    q.xzp = q.xSigned ? (int64_t) * static_cast<const int8_t *>(call.buffers[7])
                      : (int64_t) * static_cast<const uint8_t *>(call.buffers[7]);
  return q;
}

struct QBuffers {
  const uint8_t *x;
  const int8_t *w;
  void *y;
  const int32_t *wz;
  const float *m, *b;
  const void *z;
  /// WZ's multiplier: 1, or X's zero point read at run time (buffer 7,
  /// ConvInteger after DynamicQuantizeLinear; WZ then holds the weight
  /// sums), moved by 128 for int8 input.
  int32_t wzMul;
  static QBuffers of(const KernelCall &call) {
    int32_t mul = 1;
    if (call.kernel->num_buffers > 7 && call.buffers[7])
      mul = call.ip[AMK_QC_X_SIGNED]
                ? (int32_t) * static_cast<const int8_t *>(call.buffers[7]) + 128
                : (int32_t) * static_cast<const uint8_t *>(call.buffers[7]);
    return {static_cast<const uint8_t *>(call.buffers[0]),
            static_cast<const int8_t *>(call.buffers[1]),
            call.buffers[2],
            static_cast<const int32_t *>(call.buffers[3]),
            static_cast<const float *>(call.buffers[4]),
            static_cast<const float *>(call.buffers[5]),
            call.buffers[6],
            mul};
  }
};

/// The bounds of a requantized 8-bit output in units of its scale, offset
/// by its zero point: the type's range narrowed by ReLU or Clip, so the
/// activation and the saturation are one clamp.
void requantBounds(const QParams &q, float &lo, float &hi) {
  const float inv = q.invYScale, yz = (float)q.yzp;
  lo = q.yType == AMK_RT_U8 ? 0.f : -128.f;
  hi = q.yType == AMK_RT_U8 ? 255.f : 127.f;
  if (q.s.mode == AMK_OP_RELU)
    lo = std::max(lo, yz);
  else if (q.s.mode == AMK_OP_CLIP)
    lo = std::max(lo, q.actA * inv + yz), hi = std::min(hi, q.actB * inv + yz);
}

/// The epilogue of n outputs of channel `oc` (image-relative row offset
/// `at` into Y and Z): int32 sums to float, bias, residual, activation,
/// then float32 or requantized 8-bit. Written as plain loops over a small
/// float buffer so the compiler vectorizes each step.
void epiloguePortable(const QParams &q, const QBuffers &bf,
                      const int32_t *acc, int64_t n, int64_t oc, int64_t at) {
  int32_t wz = bf.wz[oc] * bf.wzMul;
  if (q.yType == AMK_RT_I32) { // ConvInteger: the sums themselves
    int32_t *y = static_cast<int32_t *>(bf.y) + at;
    for (int64_t i = 0; i < n; ++i)
      y[i] = acc[i] - wz;
    return;
  }
  float v[kNR];
  float m = bf.m[oc], b = bf.b[oc];
  for (int64_t i = 0; i < n; ++i)
    v[i] = (float)(acc[i] - wz) * m + b;
  if (bf.z) {
    float zs = q.zScale, zz = (float)q.zzp;
    if (q.zType == AMK_RT_U8) {
      const uint8_t *z = static_cast<const uint8_t *>(bf.z) + at;
      for (int64_t i = 0; i < n; ++i)
        v[i] += ((float)z[i] - zz) * zs;
    } else {
      const int8_t *z = static_cast<const int8_t *>(bf.z) + at;
      for (int64_t i = 0; i < n; ++i)
        v[i] += ((float)z[i] - zz) * zs;
    }
  }
  applyActivation(v, n, (int)q.s.mode, q.actA, q.actB);
  if (q.yType == AMK_RT_F32) {
    std::memcpy(static_cast<float *>(bf.y) + at, v, n * sizeof(float));
    return;
  }
  float lo = q.yType == AMK_RT_U8 ? 0.f : -128.f,
        hi = q.yType == AMK_RT_U8 ? 255.f : 127.f, zp = (float)q.yzp;
  // roundeven(v / s) as ONNX QuantizeLinear; the reciprocal may differ
  // from the division in the last bit of a tie, which moves a value by
  // one step at most (docs/quantization.md).
  for (int64_t i = 0; i < n; ++i)
    v[i] = std::clamp(__builtin_roundevenf(v[i] * q.invYScale) + zp, lo, hi);
  if (q.yType == AMK_RT_U8) {
    uint8_t *y = static_cast<uint8_t *>(bf.y) + at;
    for (int64_t i = 0; i < n; ++i)
      y[i] = (uint8_t)(int)v[i];
  } else {
    int8_t *y = static_cast<int8_t *>(bf.y) + at;
    for (int64_t i = 0; i < n; ++i)
      y[i] = (int8_t)(int)v[i];
  }
}

#if AMK_QCONV_X86
/// The epilogue for the common cases (no activation, Relu, Clip; 8-bit or
/// float output) on 16 lanes at a time: the portable version's loops run
/// through a buffer and a call per activation, which costs as much as the
/// sums themselves when the reduction is short (1x1 convolutions of 16
/// channels).
__attribute__((target("avx512f,avx512bw,avx512vl"))) bool
epilogueAvx512(const QParams &q, const QBuffers &bf, const int32_t *acc,
               int64_t n, int64_t oc, int64_t at) {
  int act = (int)q.s.mode;
  if ((act != AMK_OP_NONE && act != AMK_OP_RELU && act != AMK_OP_CLIP) ||
      q.yType == AMK_RT_I32)
    return false;
  const __m512i wz = _mm512_set1_epi32(bf.wz[oc] * bf.wzMul);
  if (!bf.z && q.yType != AMK_RT_F32) {
    // Requantized without a residual: scale, bias, activation bounds and
    // the output's scale and zero point folded into one FMA and one clamp
    // (round(clamp(v) / s) + z = round(clamp'(v / s + z)) where clamp'
    // maps the bounds the same way, and the integer type's bounds are
    // integers). 9 instructions per 16 outputs instead of 14: the
    // epilogue of a 1x1 convolution over 16 channels costs as much as its
    // products. The value may differ from the two-step one in the last
    // float bit, which moves a result by one step on a rounding tie, as
    // the reciprocal of the scale already does (docs/quantization.md).
    const float inv = q.invYScale, yz = (float)q.yzp;
    float lo, hi;
    requantBounds(q, lo, hi);
    const __m512 m2 = _mm512_set1_ps(bf.m[oc] * inv),
                 b2 = _mm512_set1_ps(bf.b[oc] * inv + yz);
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    // Rounds half to even (the default MXCSR mode, which the runtime
    // never changes).
    // (A lambda does not inherit the function's target: without its own,
    // the file does not build where -march lacks AVX-512.)
    auto value = [&](__m512i sums)
        __attribute__((target("avx512f,avx512bw,avx512vl"))) {
      __m512 v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(sums, wz)),
                                 m2, b2);
      return _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(v, vlo), vhi));
    };
    uint8_t *y = static_cast<uint8_t *>(bf.y) + at;
    int64_t i = 0;
    // 64 outputs per store: two rounds of packs (in range already, so
    // they only narrow) leave each 128-bit lane holding 4 bytes of each
    // vector, and one dword permute puts them in order. A masked narrowing
    // store per 16 outputs took a third of a 1x1 convolution over 16
    // channels.
    const __m512i order =
        _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    for (; i + 64 <= n; i += 64) {
      __m512i w01 = _mm512_packs_epi32(value(_mm512_loadu_si512(acc + i)),
                                       value(_mm512_loadu_si512(acc + i + 16))),
              w23 = _mm512_packs_epi32(value(_mm512_loadu_si512(acc + i + 32)),
                                       value(_mm512_loadu_si512(acc + i + 48)));
      __m512i b = q.yType == AMK_RT_U8 ? _mm512_packus_epi16(w01, w23)
                                       : _mm512_packs_epi16(w01, w23);
      _mm512_storeu_si512(y + i, _mm512_permutexvar_epi32(order, b));
    }
    for (; i < n; i += 16) {
      __mmask16 k =
          n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
      _mm_mask_storeu_epi8(
          y + i, k,
          _mm512_cvtepi32_epi8(value(_mm512_maskz_loadu_epi32(k, acc + i))));
    }
    return true;
  }
  const __m512 m = _mm512_set1_ps(bf.m[oc]), b = _mm512_set1_ps(bf.b[oc]);
  __m512 lo = _mm512_set1_ps(-INFINITY), hi = _mm512_set1_ps(INFINITY);
  if (act == AMK_OP_RELU)
    lo = _mm512_setzero_ps();
  else if (act == AMK_OP_CLIP)
    lo = _mm512_set1_ps(q.actA), hi = _mm512_set1_ps(q.actB);
  const __m512 zs = _mm512_set1_ps(q.zScale), zz = _mm512_set1_ps((float)q.zzp);
  const __m512 inv = _mm512_set1_ps(q.invYScale),
               yz = _mm512_set1_ps((float)q.yzp);
  const __m512 qlo = _mm512_set1_ps(q.yType == AMK_RT_U8 ? 0.f : -128.f),
               qhi = _mm512_set1_ps(q.yType == AMK_RT_U8 ? 255.f : 127.f);
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 k = n - i >= 16 ? (__mmask16)0xffff
                              : (__mmask16)((1u << (n - i)) - 1);
    __m512i a = _mm512_maskz_loadu_epi32(k, acc + i);
    __m512 v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(a, wz)),
                               m, b);
    if (bf.z) {
      __m128i zb = _mm_maskz_loadu_epi8(
          k, static_cast<const uint8_t *>(bf.z) + at + i);
      __m512i zi = q.zType == AMK_RT_U8 ? _mm512_cvtepu8_epi32(zb)
                                        : _mm512_cvtepi8_epi32(zb);
      v = _mm512_fmadd_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(zi), zz), zs, v);
    }
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    if (q.yType == AMK_RT_F32) {
      _mm512_mask_storeu_ps(static_cast<float *>(bf.y) + at + i, k, v);
      continue;
    }
    v = _mm512_roundscale_ps(_mm512_mul_ps(v, inv),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(v, yz), qlo), qhi);
    __m128i out = _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v));
    _mm_mask_storeu_epi8(static_cast<uint8_t *>(bf.y) + at + i, k, out);
  }
  return true;
}

/// epilogueAvx512's steps on 8 lanes, for CPUs without AVX-512: the
/// portable loops cost more than the products of a 1x1 convolution over
/// 16 channels. A tail under 8 outputs takes the portable loops.
__attribute__((target("avx2,fma"))) bool
epilogueAvx2(const QParams &q, const QBuffers &bf, const int32_t *acc,
             int64_t n, int64_t oc, int64_t at) {
  int act = (int)q.s.mode;
  if ((act != AMK_OP_NONE && act != AMK_OP_RELU && act != AMK_OP_CLIP) ||
      q.yType == AMK_RT_I32)
    return false;
  const __m256 m = _mm256_set1_ps(bf.m[oc]), b = _mm256_set1_ps(bf.b[oc]);
  const __m256i wz = _mm256_set1_epi32(bf.wz[oc] * bf.wzMul);
  __m256 lo = _mm256_set1_ps(-INFINITY), hi = _mm256_set1_ps(INFINITY);
  if (act == AMK_OP_RELU)
    lo = _mm256_setzero_ps();
  else if (act == AMK_OP_CLIP)
    lo = _mm256_set1_ps(q.actA), hi = _mm256_set1_ps(q.actB);
  const __m256 zs = _mm256_set1_ps(q.zScale), zz = _mm256_set1_ps((float)q.zzp);
  const __m256 inv = _mm256_set1_ps(q.invYScale),
               yz = _mm256_set1_ps((float)q.yzp);
  const __m256 qlo = _mm256_set1_ps(q.yType == AMK_RT_U8 ? 0.f : -128.f),
               qhi = _mm256_set1_ps(q.yType == AMK_RT_U8 ? 255.f : 127.f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(acc + i));
    __m256 v =
        _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(a, wz)), m, b);
    if (bf.z) {
      __m128i zb = _mm_loadl_epi64(
          (const __m128i *)(static_cast<const uint8_t *>(bf.z) + at + i));
      __m256i zi = q.zType == AMK_RT_U8 ? _mm256_cvtepu8_epi32(zb)
                                        : _mm256_cvtepi8_epi32(zb);
      v = _mm256_fmadd_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(zi), zz), zs, v);
    }
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    if (q.yType == AMK_RT_F32) {
      _mm256_storeu_ps(static_cast<float *>(bf.y) + at + i, v);
      continue;
    }
    v = _mm256_round_ps(_mm256_mul_ps(v, inv),
                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, yz), qlo), qhi);
    // In range already, so the saturating packs only narrow.
    __m256i w = _mm256_cvtps_epi32(v);
    __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(w),
                                  _mm256_extracti128_si256(w, 1));
    __m128i w8 = q.yType == AMK_RT_U8 ? _mm_packus_epi16(w16, w16)
                                      : _mm_packs_epi16(w16, w16);
    _mm_storel_epi64((__m128i *)(static_cast<uint8_t *>(bf.y) + at + i), w8);
  }
  if (i < n)
    epiloguePortable(q, bf, acc + i, n - i, oc, at + i);
  return true;
}
#endif

#if AMK_QCONV_X86
/// Depthwise planes: elements [lo, hi) of a float row from every SW-th
/// input byte (SW 1 or 2), flipped to unsigned, 16 at a time. The
/// compiler's own vectorization of the strided widening loop ran on 4
/// lanes, and building the planes took most of a depthwise layer.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
widenRowAvx512(const uint8_t *xs, int64_t lo, int64_t hi, int64_t sw,
               uint8_t flip, float *row) {
  const __m512i f = _mm512_set1_epi32(flip), low = _mm512_set1_epi32(0xff);
  for (int64_t x = lo; x < hi; x += 16) {
    int64_t n = std::min<int64_t>(16, hi - x);
    __mmask16 k = (__mmask16)((1u << n) - 1);
    __m512i v;
    if (sw == 1) {
      v = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(k, xs + x));
    } else {
      // Bytes 2x .. 2(x + n - 1): never the odd byte past the last one.
      __mmask32 kb = (__mmask32)((1ull << (2 * n - 1)) - 1);
      v = _mm512_and_si512(
          _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi8(kb, xs + 2 * x)), low);
    }
    _mm512_mask_storeu_ps(row + x, k,
                          _mm512_cvtepi32_ps(_mm512_xor_si512(v, f)));
  }
}
#endif

/// The epilogue of n outputs of channel `oc` at `at` (the vector versions
/// take any n, the portable one kNR at a time).
void epilogue(const QParams &q, const QBuffers &bf, const int32_t *acc,
              int64_t n, int64_t oc, int64_t at) {
#if AMK_QCONV_X86
  if (hasAvx512() && epilogueAvx512(q, bf, acc, n, oc, at))
    return;
  if (hasAvx2() && epilogueAvx2(q, bf, acc, n, oc, at))
    return;
#endif
  for (int64_t i = 0; i < n; i += kNR)
    epiloguePortable(q, bf, acc + i, std::min(kNR, n - i), oc, at + i);
}

/// Fills `row` with input row k (channel, ky, kx of the reduction) for
/// pixels [p0, p0 + n) of one image, padding with the zero point; the
/// bytes are the input's (the int8 flip happens after interleaving).
void fillRow(const QParams &q, const uint8_t *x, int64_t k, int64_t p0,
             int64_t n, uint8_t *row) {
  const Spatial &s = q.s;
  int64_t kk = s.kh * s.kw;
  int64_t K = s.c / s.group * kk;
  uint8_t pad = (uint8_t)q.xzp;
  if (k >= K) {
    std::memset(row, 0, n);
    return;
  }
  int64_t ch = k / kk, ky = (k % kk) / s.kw, kx = k % s.kw;
  const uint8_t *xc = x + ch * s.h * s.w;
  for (int64_t p = p0; p < p0 + n;) {
    int64_t oy = p / s.ow, ox0 = p % s.ow;
    int64_t run = std::min(s.ow - ox0, p0 + n - p);
    uint8_t *o = row + (p - p0);
    int64_t iy = oy * s.sh - s.ph + ky * s.dh;
    if (iy < 0 || iy >= s.h) {
      std::memset(o, pad, run);
    } else {
      const uint8_t *xr = xc + iy * s.w;
      int64_t base = kx * s.dw - s.pw;
      if (s.sw == 1) {
        int64_t lo = std::clamp<int64_t>(-base - ox0, 0, run);
        int64_t hi = std::clamp<int64_t>(s.w - base - ox0, lo, run);
        std::memset(o, pad, lo);
        std::memcpy(o + lo, xr + base + ox0 + lo, hi - lo);
        std::memset(o + hi, pad, run - hi);
      } else {
        for (int64_t i = 0; i < run; ++i) {
          int64_t ix = (ox0 + i) * s.sw + base;
          o[i] = ix >= 0 && ix < s.w ? xr[ix] : pad;
        }
      }
    }
    p += run;
  }
}

/// dst[p][j] = rows[j][p] ^ flip for p < n (n a multiple of 16): four
/// byte rows interleaved into 32-bit lanes, vpdpbusd's operand layout.
void interleave4(const uint8_t *const rows[4], int64_t n, uint8_t flip,
                 uint8_t *dst) {
#if AMK_QCONV_X86
  const __m128i f = _mm_set1_epi8((char)flip);
  for (int64_t p = 0; p < n; p += 16) {
    __m128i r0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(rows[0] + p)), f);
    __m128i r1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(rows[1] + p)), f);
    __m128i r2 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(rows[2] + p)), f);
    __m128i r3 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(rows[3] + p)), f);
    __m128i t0 = _mm_unpacklo_epi8(r0, r1), t1 = _mm_unpackhi_epi8(r0, r1);
    __m128i t2 = _mm_unpacklo_epi8(r2, r3), t3 = _mm_unpackhi_epi8(r2, r3);
    __m128i *o = (__m128i *)(dst + p * 4);
    _mm_storeu_si128(o + 0, _mm_unpacklo_epi16(t0, t2));
    _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(t0, t2));
    _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(t1, t3));
    _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(t1, t3));
  }
#else
  for (int64_t p = 0; p < n; ++p)
    for (int j = 0; j < 4; ++j)
      dst[p * 4 + j] = rows[j][p] ^ flip;
#endif
}

/// Packs pixels [p0, p0 + n) of one image as [K/4][kPixelBlock][4].
void packColumns(const QParams &q, const uint8_t *x, int64_t p0, int64_t n,
                 uint8_t *packed) {
  alignas(64) uint8_t rows[4][kPixelBlock];
  const uint8_t *rp[4] = {rows[0], rows[1], rows[2], rows[3]};
  for (int64_t k4 = 0; k4 < q.kdepth / 4; ++k4) {
    for (int j = 0; j < 4; ++j) {
      fillRow(q, x, 4 * k4 + j, p0, n, rows[j]);
      std::memset(rows[j] + n, 0, kPixelBlock - n);
    }
    interleave4(rp, kPixelBlock, q.xSigned ? 0x80 : 0,
                packed + k4 * kPixelBlock * 4);
  }
}

/// acc[r][p] = sum over K of packed columns times packed weights of one
/// 8-channel block, for `n` <= kNR pixels starting at column `c` of the
/// packed block: the portable version.
void microKernelPortable(const uint8_t *cols, const int8_t *w, int64_t k4s,
                         int64_t c, int64_t n, int32_t acc[kMR][kNR]) {
  for (int64_t r = 0; r < kMR; ++r)
    std::fill_n(acc[r], kNR, 0);
  for (int64_t k4 = 0; k4 < k4s; ++k4) {
    const uint8_t *a = cols + (k4 * kPixelBlock + c) * 4;
    const int8_t *b = w + k4 * kMR * 4;
    for (int64_t r = 0; r < kMR; ++r) {
      int32_t b0 = b[r * 4], b1 = b[r * 4 + 1], b2 = b[r * 4 + 2],
              b3 = b[r * 4 + 3];
      for (int64_t p = 0; p < n; ++p)
        acc[r][p] += a[p * 4] * b0 + a[p * 4 + 1] * b1 + a[p * 4 + 2] * b2 +
                     a[p * 4 + 3] * b3;
    }
  }
}

#if AMK_QCONV_X86
/// The same with vpdpbusd: 8 channels x NV vectors of 16 pixels; `a` walks
/// the packed columns with `aStride` bytes per 4-deep step. NV follows the
/// pixels left so a short tail does not pay for three vectors.
template <int NV>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) void
vnniTile(const uint8_t *a, int64_t aStride, const int8_t *w, int64_t k4s,
         int32_t acc[kMR][kNR]) {
  __m512i c[kMR][NV];
  for (int64_t r = 0; r < kMR; ++r)
    for (int v = 0; v < NV; ++v)
      c[r][v] = _mm512_setzero_si512();
  for (int64_t k4 = 0; k4 < k4s; ++k4) {
    __m512i x[NV];
    for (int v = 0; v < NV; ++v)
      x[v] = _mm512_loadu_si512(a + 64 * v);
    const int32_t *b = reinterpret_cast<const int32_t *>(w + k4 * kMR * 4);
#pragma clang loop unroll(full)
    for (int64_t r = 0; r < kMR; ++r) {
      __m512i wb = _mm512_set1_epi32(b[r]);
      for (int v = 0; v < NV; ++v)
        c[r][v] = _mm512_dpbusd_epi32(c[r][v], x[v], wb);
    }
    a += aStride;
  }
  for (int64_t r = 0; r < kMR; ++r)
    for (int v = 0; v < NV; ++v)
      _mm512_storeu_si512(acc[r] + 16 * v, c[r][v]);
}

void microKernelVnni(const uint8_t *cols, const int8_t *w, int64_t k4s,
                     int64_t c, int64_t n, int32_t acc[kMR][kNR]) {
  const uint8_t *a = cols + c * 4;
  if (n > 32)
    vnniTile<3>(a, kPixelBlock * 4, w, k4s, acc);
  else if (n > 16)
    vnniTile<2>(a, kPixelBlock * 4, w, k4s, acc);
  else
    vnniTile<1>(a, kPixelBlock * 4, w, k4s, acc);
}

/// The products of variant 2's register tile, added to `c`: the reduction
/// runs over channel quads and taps (TAPS 1: one tap at offset 0; 0: `taps`
/// read at run time); each tap reads the blocked input at a fixed offset
/// from the output position.
template <int NV, int TAPS>
__attribute__((always_inline,
               target("avx512f,avx512bw,avx512vl,avx512vnni"))) inline void
vnniTileSums(const uint8_t *xb, int64_t plane, const int64_t *offs,
             int64_t taps, const int8_t *w, int64_t c4s,
             __m512i (&c)[kMR][NV]) {
  for (int64_t c4 = 0; c4 < c4s; ++c4) {
    for (int64_t t = 0; t < (TAPS ? TAPS : taps); ++t) {
      const uint8_t *a = xb + (c4 * plane + (TAPS == 1 ? 0 : offs[t])) * 4;
      __m512i x[NV];
      for (int v = 0; v < NV; ++v)
        x[v] = _mm512_loadu_si512(a + 64 * v);
      const int32_t *b = reinterpret_cast<const int32_t *>(w);
#pragma clang loop unroll(full)
      for (int64_t r = 0; r < kMR; ++r) {
        __m512i wb = _mm512_set1_epi32(b[r]);
        for (int v = 0; v < NV; ++v)
          c[r][v] = _mm512_dpbusd_epi32(c[r][v], x[v], wb);
      }
      w += kMR * 4;
    }
  }
}

/// Variant 2's register tile (vnniTileSums), the sums stored `ld` apart
/// per channel for the epilogue.
template <int NV>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) void
vnniDirectTile(const uint8_t *xb, int64_t plane, const int64_t *offs,
               int64_t taps, const int8_t *w, int64_t c4s, int32_t *out,
               int64_t ld) {
  __m512i c[kMR][NV];
  for (int64_t r = 0; r < kMR; ++r)
    for (int v = 0; v < NV; ++v)
      c[r][v] = _mm512_setzero_si512();
  vnniTileSums<NV, 0>(xb, plane, offs, taps, w, c4s, c);
  for (int64_t r = 0; r < kMR; ++r)
    for (int v = 0; v < NV; ++v)
      _mm512_storeu_si512(out + r * ld + 16 * v, c[r][v]);
}

/// The requantization of a register tile, per output channel: the
/// weight-sum correction, the folded scale and bias (epilogueAvx512's
/// one FMA and one clamp).
struct TileRequant {
  alignas(64) int32_t wz[kMR];
  alignas(64) float m2[kMR], b2[kMR];
  float lo, hi;
  bool u8;
};

/// A run of a register tile's positions that lands on consecutive outputs
/// of a row: bytes [first, ...) of the tile's 64 (those in `keep`) go to
/// output position `p` onwards of each channel's plane.
struct TileRun {
  int64_t p, first;
  __mmask64 keep;
};

/// The runs of valid outputs among `n` (<= 64) consecutive positions of
/// the blocked rows (`wp` per row, the first at output row oy, column ox),
/// inside the task's positions [tile[2], tile[3]), as storeRun walks them.
/// Returns how many it wrote to `runs`.
int64_t tileRuns(const Spatial &s, int64_t wp, int64_t oy, int64_t ox,
                 int64_t n, const int64_t *tile, TileRun *runs) {
  int64_t nruns = 0;
  for (int64_t i = 0; i < n; i += wp - ox, ox = 0, ++oy) {
    if (ox >= s.ow)
      continue;
    const int64_t p = oy * s.ow + ox;
    const int64_t lo = std::max(p, tile[2]),
                  hi = std::min(p + std::min(s.ow - ox, n - i), tile[3]);
    if (hi > lo) {
      const int64_t a = i + (lo - p), e = i + (hi - p);
      runs[nruns++] = {lo, a,
                       (__mmask64)((e >= 64 ? ~0ull : (1ull << e) - 1) &
                                   ~((1ull << a) - 1))};
    }
  }
  return nruns;
}

/// vnniDirectTile with the requantizing epilogue applied to the sums in
/// registers. TAPS 1 (1x1 convolutions read in place): the bytes of
/// channels [rlo, rhi) of the block, positions [lo, hi) of the tile, go
/// to `y` + r * `P`. TAPS 0 (any kernel, `taps` read at run time, the
/// tile's positions crossing rows with dropped columns): one masked store
/// per run of `runs`. Storing the sums and reading them back for the
/// epilogue took a third of a 1x1 convolution over 16 input channels
/// (MobileNetV2's 112x112 expansion, 0.2 ms of 2.6) and a fifth of the
/// RGB stems. The sums start at minus the correction; the result is
/// epilogueAvx512's, bit for bit.
template <int NV, int TAPS>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) void
vnniDirectRequant(const uint8_t *xb, int64_t plane, const int64_t *offs,
                  int64_t taps, const int8_t *w, int64_t c4s,
                  const TileRequant &rq, int64_t rlo, int64_t rhi, uint8_t *y,
                  int64_t P, int64_t lo, int64_t hi, const TileRun *runs,
                  int64_t nruns) {
  __m512i c[kMR][NV];
  for (int64_t r = 0; r < kMR; ++r)
    for (int v = 0; v < NV; ++v)
      c[r][v] = _mm512_set1_epi32(-rq.wz[r]);
  vnniTileSums<NV, TAPS>(xb, plane, offs, taps, w, c4s, c);
  const __m512 vlo = _mm512_set1_ps(rq.lo), vhi = _mm512_set1_ps(rq.hi);
  // Two rounds of packs leave each 128-bit lane holding 4 bytes of each
  // vector; one dword permute puts them in order (epilogueAvx512).
  const __m512i order =
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __mmask64 keep = (hi >= 64 ? ~0ull : (1ull << hi) - 1) &
                         ~(lo >= 64 ? ~0ull : (1ull << lo) - 1);
  // Byte i of a run goes to the run's address + i - first: the base may
  // lie before the plane, but only the kept bytes are written. Read into
  // locals once (the stores may alias `runs`).
  uintptr_t base[kMaxTileRuns];
  __mmask64 keeps[kMaxTileRuns];
  if constexpr (TAPS != 1)
    for (int64_t k = 0; k < nruns; ++k) {
      base[k] =
          reinterpret_cast<uintptr_t>(y + runs[k].p) - (uintptr_t)runs[k].first;
      keeps[k] = runs[k].keep;
    }
#pragma clang loop unroll(full)
  for (int64_t r = 0; r < kMR; ++r) {
    if (r < rlo || r >= rhi)
      continue;
    const __m512 m2 = _mm512_set1_ps(rq.m2[r]), b2 = _mm512_set1_ps(rq.b2[r]);
    __m512i iv[4];
    for (int v = 0; v < NV; ++v) {
      __m512 f = _mm512_fmadd_ps(_mm512_cvtepi32_ps(c[r][v]), m2, b2);
      iv[v] = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(f, vlo), vhi));
    }
    for (int v = NV; v < 4; ++v)
      iv[v] = iv[NV - 1];
    const __m512i w01 = _mm512_packs_epi32(iv[0], iv[1]),
                  w23 = _mm512_packs_epi32(iv[2], iv[3]);
    const __m512i bytes =
        _mm512_permutexvar_epi32(order, rq.u8 ? _mm512_packus_epi16(w01, w23)
                                              : _mm512_packs_epi16(w01, w23));
    if constexpr (TAPS == 1) {
      _mm512_mask_storeu_epi8(y + r * P, keep, bytes);
    } else {
      for (int64_t k = 0; k < nruns; ++k)
        _mm512_mask_storeu_epi8(reinterpret_cast<void *>(base[k] + r * P),
                                keeps[k], bytes);
    }
  }
}

/// The AVX2 tile's weights for one 8-channel block: `steps` packed 4-deep
/// steps of [8][4] s8 become per step and channel two words, the even
/// bytes (w0, w2) and the odd bytes (w1, w3) as int16 pairs, which
/// vpmaddwd multiplies by the activations' even and odd bytes.
void splitWeights(const int8_t *w, int64_t steps, std::vector<int32_t> &out) {
  out.resize(steps * kMR * 2);
  auto pair = [](int8_t lo, int8_t hi) {
    return (int32_t)((uint32_t)(uint16_t)(int16_t)lo |
                     (uint32_t)(uint16_t)(int16_t)hi << 16);
  };
  for (int64_t i = 0; i < steps * kMR; ++i) {
    const int8_t *b = w + i * 4;
    out[2 * i] = pair(b[0], b[2]);
    out[2 * i + 1] = pair(b[1], b[3]);
  }
}

/// vpdpbusd emulated exactly with AVX2, for CPUs without VNNI: 8 channels
/// x 8 positions per pass (8 accumulators of the 16 registers), `n`
/// positions in passes. Step (c4, t) reads 8 positions' 4 bytes at `a` +
/// c4 * `stepBytes` + offs[t] * 4; each lane's bytes are split into even
/// and odd 16-bit halves and multiplied pairwise with the split weights
/// `ws`, two vpmaddwd + two vpaddd per channel for 32 products.
__attribute__((target("avx2"))) void
avx2Tile(const uint8_t *a, int64_t stepBytes, const int64_t *offs, int64_t taps,
         int64_t c4s, const int32_t *ws, int64_t n, int32_t acc[kMR][kNR]) {
  const __m256i even = _mm256_set1_epi32(0x00ff00ff);
  for (int64_t p = 0; p < n; p += 8) {
    __m256i c[kMR];
    for (int64_t r = 0; r < kMR; ++r)
      c[r] = _mm256_setzero_si256();
    const int32_t *w = ws;
    for (int64_t c4 = 0; c4 < c4s; ++c4) {
      const uint8_t *ac = a + c4 * stepBytes + p * 4;
      for (int64_t t = 0; t < taps; ++t, w += 2 * kMR) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(ac + offs[t] * 4));
        __m256i xl = _mm256_and_si256(x, even), xh = _mm256_srli_epi16(x, 8);
#pragma clang loop unroll(full)
        for (int64_t r = 0; r < kMR; ++r) {
          c[r] = _mm256_add_epi32(
              c[r], _mm256_madd_epi16(xl, _mm256_set1_epi32(w[2 * r])));
          c[r] = _mm256_add_epi32(
              c[r], _mm256_madd_epi16(xh, _mm256_set1_epi32(w[2 * r + 1])));
        }
      }
    }
    for (int64_t r = 0; r < kMR; ++r)
      _mm256_storeu_si256((__m256i *)(acc[r] + p), c[r]);
  }
}

#endif

/// Variant 1: implicit GEMM on packed weights.
void qconvGemmTile(const KernelCall &call, const int64_t *tile) {
  QParams q = paramsOf(call);
  QBuffers bf = QBuffers::of(call);
  const Spatial &s = q.s;
  int64_t P = s.oh * s.ow, k4s = q.kdepth / 4;
  thread_local std::vector<uint8_t> packed;
  growScratch(packed, k4s * kPixelBlock * 4 + 256);
  auto micro = microKernelPortable;
  bool avx2 = false;
#if AMK_QCONV_X86
  if (hasVnni())
    micro = microKernelVnni;
  else
    avx2 = hasAvx2();
  const int64_t noOffset = 0;
  thread_local std::vector<int32_t> ws;
#endif
  alignas(64) int32_t acc[kMR][kNR];
  for (int64_t r = tile[0]; r < tile[1];) {
    int64_t img = r / s.oc, mStart = r % s.oc;
    int64_t mEnd = std::min(s.oc, mStart + (tile[1] - r));
    const uint8_t *x = bf.x + img * s.c * s.h * s.w;
    for (int64_t p0 = tile[2]; p0 < tile[3]; p0 += kPixelBlock) {
      int64_t pb = std::min(kPixelBlock, tile[3] - p0);
      packColumns(q, x, p0, pb, packed.data());
      // Row tiles start on 8-channel blocks (the scheduler aligns them).
      for (int64_t m0 = mStart / kMR * kMR; m0 < mEnd; m0 += kMR) {
        const int8_t *wb = bf.w + m0 / kMR * k4s * kMR * 4;
#if AMK_QCONV_X86
        if (avx2)
          splitWeights(wb, k4s, ws);
#endif
        for (int64_t c = 0; c < pb; c += kNR) {
          int64_t n = std::min(kNR, pb - c);
#if AMK_QCONV_X86
          if (avx2)
            avx2Tile(packed.data() + c * 4, kPixelBlock * 4, &noOffset, 1, k4s,
                     ws.data(), n, acc);
          else
#endif
            micro(packed.data(), wb, k4s, c, n, acc);
          for (int64_t rr = 0; rr < kMR; ++rr) {
            int64_t oc = m0 + rr;
            if (oc < mStart || oc >= mEnd)
              continue;
            epilogue(q, bf, acc[rr], n, oc, (img * s.oc + oc) * P + p0 + c);
          }
        }
      }
    }
    r += mEnd - mStart;
  }
}

/// Where each tap (ky, kx) reads in a phase-split input: phases of
/// `phase` elements, rows of `rowLength`; tap (ky, kx) reads phase
/// ((ky*DH) % SH, (kx*DW) % SW) at row (ky*DH) / SH, column (kx*DW) / SW
/// relative to the output position (variants 0 and 2).
std::vector<int64_t> tapOffsets(const Spatial &s, int64_t phase,
                                int64_t rowLength) {
  std::vector<int64_t> off(s.kh * s.kw);
  for (int64_t ky = 0; ky < s.kh; ++ky)
    for (int64_t kx = 0; kx < s.kw; ++kx) {
      int64_t y = ky * s.dh, x = kx * s.dw;
      off[ky * s.kw + kx] = ((y % s.sh) * s.sw + x % s.sw) * phase +
                            y / s.sh * rowLength + x / s.sw;
    }
  return off;
}

#if AMK_QCONV_X86
/// Variant 2's weights for AMX, once per session (KernelScratch): per
/// 16-channel block, tap and 16-quad chunk of the input channels, 1 KB:
/// as AMX's B operand (`asB`), 16 rows (the chunk's quads) of 64 bytes (16
/// output channels x the quad's 4 bytes); as its A operand, 16 rows (the
/// output channels) of 64 bytes (16 quads x 4). Zeros past the channels,
/// so a chunk may run past the input's last quad.
void packAmxWeights(const int8_t *w, const Spatial &s, int64_t c4s, bool asB,
                    std::vector<int8_t> &out) {
  const int64_t taps = s.kh * s.kw, chunks = (c4s + 15) / 16;
  const int64_t blocks = (s.oc + 15) / 16;
  out.assign(blocks * taps * chunks * 1024, 0);
  for (int64_t ob = 0; ob < blocks; ++ob)
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t cc = 0; cc < chunks; ++cc)
        for (int64_t r = 0; r < 16; ++r) {
          int64_t oc = ob * 16 + r;
          if (oc >= s.oc)
            break;
          for (int64_t c = 0; c < 16 && cc * 16 + c < c4s; ++c) {
            int64_t c4 = cc * 16 + c;
            std::memcpy(out.data() + ((ob * taps + t) * chunks + cc) * 1024 +
                            (asB ? c * 64 + r * 4 : r * 64 + c * 4),
                        w + (oc / kMR) * c4s * taps * kMR * 4 +
                            (c4 * taps + t) * kMR * 4 + (oc % kMR) * 4,
                        4);
          }
        }
}

/// Sixteen 16-lane rows transposed in registers: lane j of row i becomes
/// lane i of row j (unpacks within 128-bit lanes, then two rounds of lane
/// shuffles).
__attribute__((target("avx512f"))) inline void transpose16x16(__m512i r[16]) {
  __m512i t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    u[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    __m512i v0 = _mm512_shuffle_i32x4(u[k], u[4 + k], 0x88),
            v1 = _mm512_shuffle_i32x4(u[k], u[4 + k], 0xdd),
            v2 = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0x88),
            v3 = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0xdd);
    r[k] = _mm512_shuffle_i32x4(v0, v2, 0x88);
    r[4 + k] = _mm512_shuffle_i32x4(v1, v3, 0x88);
    r[8 + k] = _mm512_shuffle_i32x4(v0, v2, 0xdd);
    r[12 + k] = _mm512_shuffle_i32x4(v1, v3, 0xdd);
  }
}

/// dst row j = column j of the 16 x 16 int32 block at src (rows `ls`
/// apart; dst rows `ld` apart).
__attribute__((target("avx512f"))) inline void
transpose16x16(const int32_t *src, int64_t ls, int32_t *dst, int64_t ld) {
  __m512i r[16];
  for (int i = 0; i < 16; ++i)
    r[i] = _mm512_loadu_si512(src + i * ls);
  transpose16x16(r);
  for (int i = 0; i < 16; ++i)
    _mm512_storeu_si512(dst + i * ld, r[i]);
}

/// The requantizing epilogue of an AMX block (AVX-512 `epilogueAvx512`'s
/// formula, bit for bit), applied to 32 channels x 32 positions of sums
/// while they are in L1: channel rows [rlo, rhi) of `y` (`P` apart), group
/// g's bytes stored by its `nruns[g]` runs. Storing the sums of a run of
/// 256 positions and calling the epilogue per output row cost as much as
/// the products of a 3x3 layer over 64 channels.
struct AmxRequant {
  alignas(64) int32_t wz[32];
  alignas(64) float m2[32], b2[32];
  float lo, hi;
  bool u8;
  int64_t rlo, rhi, P;
  uint8_t *y;
  const TileRun *runs; ///< kMaxTileRuns per group of 32 positions.
  const int64_t *nruns;
};

__attribute__((target("avx512f,avx512bw,avx512vl"))) void
amxRequantGroup(const int32_t (*tb)[32], const AmxRequant &rq, int64_t g) {
  const int64_t nruns = rq.nruns[g];
  if (!nruns)
    return;
  const TileRun *runs = rq.runs + g * kMaxTileRuns;
  const __m512 vlo = _mm512_set1_ps(rq.lo), vhi = _mm512_set1_ps(rq.hi);
  const __m512i order =
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  for (int64_t r = rq.rlo; r < rq.rhi; ++r) {
    const __m512i wz = _mm512_set1_epi32(rq.wz[r]);
    const __m512 m2 = _mm512_set1_ps(rq.m2[r]), b2 = _mm512_set1_ps(rq.b2[r]);
    __m512i iv[2];
    for (int v = 0; v < 2; ++v) {
      __m512 f = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(
                                     _mm512_load_si512(tb[r] + 16 * v), wz)),
                                 m2, b2);
      iv[v] = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(f, vlo), vhi));
    }
    // Bytes 0..31 in order (the upper 32 repeat the second vector).
    const __m512i w01 = _mm512_packs_epi32(iv[0], iv[1]),
                  w11 = _mm512_packs_epi32(iv[1], iv[1]);
    const __m512i bytes =
        _mm512_permutexvar_epi32(order, rq.u8 ? _mm512_packus_epi16(w01, w11)
                                              : _mm512_packs_epi16(w01, w11));
    uint8_t *yr = rq.y + r * rq.P;
    for (int64_t k = 0; k < nruns; ++k)
      _mm512_mask_storeu_epi8(yr + runs[k].p - runs[k].first, runs[k].keep,
                              bytes);
  }
}

/// Variant 2's products on AMX for one or two 16-channel blocks (`wb1`
/// null: one) over every position run of 32. The activations are the A
/// operand: `xa` holds each position's channels as consecutive bytes
/// (`ldx` per position, 64 per chunk of 16 quads), so a tile is 16
/// positions' rows `ldx` apart (1 KB of consecutive bytes for 64
/// channels), loaded at the tap's offset. As the B operand, read in
/// place from the blocked planes, each tile row was a whole plane from
/// the next and the loop stalled on its loads. tdpbusd: unsigned
/// activations times signed weights. The tiles hold [position][channel];
/// they are transposed into `out` (32 channel rows of `ld` int32, ld >=
/// nq rounded up to 32), so the epilogue runs once per output row.
__attribute__((target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl"))) void
amxDirectBlock(const uint8_t *xa, int64_t ldx, const int64_t *offs,
               int64_t taps, int64_t chunks, const int8_t *wb0,
               const int8_t *wb1, int64_t nq, int32_t *out, int64_t ld,
               const AmxRequant *rq) {
  AmxConfig cfg;
  _tile_loadconfig(&cfg);
  // Two sets of stored tiles: a group's transposes and epilogue come
  // after the next group's products in program order, so they run on the
  // vector units while the tile unit works (one after the other, the
  // epilogue and transposes of a 64-channel layer cost two thirds of its
  // products).
  alignas(64) int32_t c[2][4][16][16];
  alignas(64) int32_t tb[32][32];
  auto finish = [&](int32_t(*t)[16][16], int64_t q0)
      __attribute__((target("avx512f,avx512bw,avx512vl"))) {
    // Into `out`, or into the block's 32 x 32 sums for the epilogue here.
    int32_t *o = rq ? &tb[0][0] : out + q0;
    const int64_t lo = rq ? 32 : ld;
    transpose16x16(&t[0][0][0], 16, o, lo);
    transpose16x16(&t[1][0][0], 16, o + 16, lo);
    if (wb1) {
      transpose16x16(&t[2][0][0], 16, o + 16 * lo, lo);
      transpose16x16(&t[3][0][0], 16, o + 16 * lo + 16, lo);
    }
    if (rq)
      amxRequantGroup(tb, *rq, q0 / 32);
  };
  int64_t prev = -1;
  for (int64_t q0 = 0; q0 < nq; q0 += 32) {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t cc = 0; cc < chunks; ++cc) {
        const uint8_t *a = xa + (q0 + offs[t]) * ldx + cc * 64;
        const int64_t w = (t * chunks + cc) * 1024;
        _tile_loadd(4, a, ldx);
        _tile_loadd(5, a + 16 * ldx, ldx);
        _tile_loadd(6, wb0 + w, 64);
        _tile_dpbusd(0, 4, 6);
        _tile_dpbusd(1, 5, 6);
        if (wb1) {
          _tile_loadd(7, wb1 + w, 64);
          _tile_dpbusd(2, 4, 7);
          _tile_dpbusd(3, 5, 7);
        }
      }
    if (prev >= 0)
      finish(c[(prev / 32) & 1], prev);
    int32_t(*t)[16][16] = c[(q0 / 32) & 1];
    _tile_stored(0, t[0], 64);
    _tile_stored(1, t[1], 64);
    if (wb1) {
      _tile_stored(2, t[2], 64);
      _tile_stored(3, t[3], 64);
    }
    prev = q0;
  }
  if (prev >= 0)
    finish(c[(prev / 32) & 1], prev);
  _tile_release();
}

/// The products of a 1x1 convolution without stride or padding for one or
/// two 16-channel blocks (`wa1` null: one) over every position run of 32,
/// with the weights as the A operand and the blocked planes read in place
/// as B: one tap, so each tile row is 64 bytes at a multiple of 128 from
/// the plane's start, and the planes need no rearrangement (which, with
/// the tiles' transposes, cost more than the few products of a 1x1 layer
/// over 32-96 channels). tdpbsud: signed weights times unsigned
/// activations; the tiles are [channel][position] as `out` is.
__attribute__((target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl"))) void
amxPointwiseBlock(const uint8_t *xb, int64_t quad, int64_t chunks,
                  const int8_t *wa0, const int8_t *wa1, int64_t nq,
                  int32_t *out, int64_t ld, const AmxRequant *rq) {
  AmxConfig cfg;
  _tile_loadconfig(&cfg);
  alignas(64) int32_t tb[32][32];
  const int64_t stride = quad * 4;
  for (int64_t q0 = 0; q0 < nq; q0 += 32) {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (int64_t cc = 0; cc < chunks; ++cc) {
      const uint8_t *b = xb + (cc * 16 * quad + q0) * 4;
      _tile_loadd(6, b, stride);
      _tile_loadd(7, b + 64, stride);
      _tile_loadd(4, wa0 + cc * 1024, 64);
      _tile_dpbsud(0, 4, 6);
      _tile_dpbsud(1, 4, 7);
      if (wa1) {
        _tile_loadd(5, wa1 + cc * 1024, 64);
        _tile_dpbsud(2, 5, 6);
        _tile_dpbsud(3, 5, 7);
      }
    }
    int32_t *o = rq ? &tb[0][0] : out + q0;
    const int64_t lo = rq ? 32 : ld;
    _tile_stored(0, o, lo * 4);
    _tile_stored(1, o + 16, lo * 4);
    if (wa1) {
      _tile_stored(2, o + 16 * lo, lo * 4);
      _tile_stored(3, o + 16 * lo + 16, lo * 4);
    }
    if (rq)
      amxRequantGroup(tb, *rq, q0 / 32);
  }
  _tile_release();
}

/// The task's input rows of one image (NCHW bytes `x`) straight into the
/// A operand's per-position rows, in the blocked planes' order: phase
/// (py, px) of a stride (SH, SW) convolution, then its `rows` rows from
/// output row oyA, then `wp` columns, column c of row ry reading input row
/// (oyA + ry) x SH + py - PH and column c x SW + px - PW; each position's
/// channels as consecutive bytes (`ldx` per position, chunks of 64),
/// flipped to unsigned, padding with the zero point. Per 64 channels and
/// 16 positions: 16 bytes of each channel row (every other one of 32 at
/// SW 2), four rows interleaved into a dword per position, and one 16 x 16
/// dword transpose. Building the blocked planes first (three library calls
/// per 4-channel row, then the interleave) and transposing those took a
/// quarter of a ResNet-18 3x3 layer. Positions up to 15 past a row's end
/// may be written (the next row overwrites them; the buffer has room past
/// the last). SW is 1 or 2.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
positionsDirect(const uint8_t *x, const Spatial &s, int64_t oyA, int64_t rows,
                int64_t wp, int64_t plane, int64_t chunks, uint8_t pad,
                uint8_t flip, uint8_t *xa, int64_t ldx) {
  const uint8_t padByte = pad ^ flip;
  static const uint8_t zeros[32] = {};
  const __m128i f = _mm_set1_epi8((char)flip);
  alignas(64) uint32_t quads[16][16];
  for (int64_t ph = 0; ph < s.sh * s.sw; ++ph) {
    const int64_t py = ph / s.sw, px = ph % s.sw;
    // Column c reads input column c x SW + first: [lo, hi) inside.
    const int64_t first = px - s.pw;
    const int64_t lo =
        std::clamp<int64_t>(first >= 0 ? 0 : (-first + s.sw - 1) / s.sw, 0, wp);
    const int64_t hi =
        std::clamp<int64_t>((s.w - first + s.sw - 1) / s.sw, lo, wp);
    for (int64_t ry = 0; ry < rows; ++ry) {
      uint8_t *row = xa + (ph * plane + ry * wp) * ldx;
      const int64_t iy = (oyA + ry) * s.sh + py - s.ph;
      if (iy < 0 || iy >= s.h) {
        std::memset(row, padByte, wp * ldx);
        continue;
      }
      std::memset(row, padByte, lo * ldx);
      for (int64_t c = lo; c < hi; c += 16) {
        const int64_t n = std::min<int64_t>(16, hi - c);
        const int64_t ix = c * s.sw + first;
        // SW 2: bytes ix .. ix + 2n - 2, never the odd one past the last.
        const __mmask16 k1 = (__mmask16)((1u << n) - 1);
        const __mmask32 k2 = (__mmask32)((1ull << (2 * n - 1)) - 1);
        for (int64_t cc = 0; cc < chunks; ++cc) {
          for (int64_t i = 0; i < 16; ++i) {
            __m128i r[4];
            for (int j = 0; j < 4; ++j) {
              const int64_t ch = cc * 64 + i * 4 + j;
              const bool in = ch < s.c;
              const uint8_t *src = in ? x + (ch * s.h + iy) * s.w + ix : zeros;
              const __m128i v =
                  s.sw == 1
                      ? _mm_maskz_loadu_epi8(in ? k1 : (__mmask16)0xffff, src)
                      : _mm256_cvtepi16_epi8(_mm256_maskz_loadu_epi8(
                            in ? k2 : (__mmask32)0xffffffff, src));
              r[j] = _mm_xor_si128(v, f);
            }
            const __m128i t0 = _mm_unpacklo_epi8(r[0], r[1]),
                          t1 = _mm_unpackhi_epi8(r[0], r[1]),
                          t2 = _mm_unpacklo_epi8(r[2], r[3]),
                          t3 = _mm_unpackhi_epi8(r[2], r[3]);
            __m128i *o = reinterpret_cast<__m128i *>(quads[i]);
            _mm_store_si128(o + 0, _mm_unpacklo_epi16(t0, t2));
            _mm_store_si128(o + 1, _mm_unpackhi_epi16(t0, t2));
            _mm_store_si128(o + 2, _mm_unpacklo_epi16(t1, t3));
            _mm_store_si128(o + 3, _mm_unpackhi_epi16(t1, t3));
          }
          transpose16x16(reinterpret_cast<const int32_t *>(&quads[0][0]), 16,
                         reinterpret_cast<int32_t *>(row + c * ldx + cc * 64),
                         ldx / 4);
        }
      }
      std::memset(row + hi * ldx, padByte, (wp - hi) * ldx);
    }
  }
}

/// The blocked planes' quads of every chunk ([quad][position][4]) as
/// positions of `ldx` bytes ([position][chunk][16 quads][4]), for the
/// first `positions` positions (a multiple of 16).
__attribute__((target("avx512f"))) void
blockedToPositions(const uint8_t *xb, int64_t quad, int64_t chunks,
                   int64_t positions, uint8_t *xa, int64_t ldx) {
  for (int64_t cc = 0; cc < chunks; ++cc)
    for (int64_t p = 0; p < positions; p += 16)
      transpose16x16(reinterpret_cast<const int32_t *>(xb) + cc * 16 * quad + p,
                     quad, reinterpret_cast<int32_t *>(xa + p * ldx + cc * 64),
                     ldx / 4);
}
#endif

#if AMK_QCONV_X86
/// dst[c] = src[2c] for c < n, 64 bytes per two loads and one two-source
/// permute: the stride-2 rows of the RGB stems (MobileNetV2's 3x3,
/// ResNet-18's 7x7) took a scalar loop a third of the layer. Never reads
/// past src[2n - 2]: the last 64 outputs go through masked loads.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi"))) void
evenBytesVbmi(const uint8_t *src, int64_t n, uint8_t *dst) {
  // Byte i of the permute selects byte 2i of the two loads' 128.
  static const struct EvenIndex {
    alignas(64) uint8_t b[64];
    EvenIndex() {
      for (int i = 0; i < 64; ++i)
        b[i] = (uint8_t)(2 * i);
    }
  } even;
  const __m512i idx = _mm512_load_si512(even.b);
  int64_t c = 0;
  for (; c + 64 < n; c += 64)
    _mm512_storeu_si512(dst + c, _mm512_permutex2var_epi8(
                                     _mm512_loadu_si512(src + 2 * c), idx,
                                     _mm512_loadu_si512(src + 2 * c + 64)));
  if (c < n) {
    // Bytes 2c .. 2(n - 1): 2(n - c) - 1 of them over the two loads.
    const int64_t bytes = 2 * (n - c) - 1;
    const __mmask64 ka = bytes >= 64 ? ~0ull : (1ull << bytes) - 1,
                    kb = bytes > 64 ? (1ull << (bytes - 64)) - 1 : 0;
    const __m512i v =
        _mm512_permutex2var_epi8(_mm512_maskz_loadu_epi8(ka, src + 2 * c), idx,
                                 _mm512_maskz_loadu_epi8(kb, src + 2 * c + 64));
    const int64_t m = n - c;
    _mm512_mask_storeu_epi8(dst + c, m >= 64 ? ~0ull : (1ull << m) - 1, v);
  }
}
#endif

/// Variant 2 (group 1): direct convolution on the input blocked per task
/// as [C/4][phase][rows][Wp][4] with the padding filled in. A stride S
/// convolution reads the padded input at (oy*S + ky*D, ...); split into
/// S x S phases (row and column residues mod S) it is a stride-1
/// convolution over the phases: tap (ky, kx) reads phase
/// ((ky*DH) % SH, (kx*DW) % SW) at offset ((ky*DH) / SH, (kx*DW) / SW).
/// So output position q = oy*Wp + ox reads each tap at q plus a fixed
/// offset: every operand is a plain load, and the input is rearranged
/// once per task instead of once per tap. The Wp - OW columns past each
/// row are computed and dropped.
void qconvBlockedTile(const KernelCall &call, const int64_t *tile) {
  QParams q = paramsOf(call);
  QBuffers bf = QBuffers::of(call);
  const Spatial &s = q.s;
  const int64_t P = s.oh * s.ow, taps = s.kh * s.kw, c4s = (s.c + 3) / 4;
  const int64_t phases = s.sh * s.sw;
  const int64_t wp = s.ow + (s.kw - 1) * s.dw / s.sw;
  const int64_t oyA = tile[2] / s.ow, oyB = (tile[3] - 1) / s.ow + 1;
  const int64_t rowsOut = oyB - oyA,
                rowsIn = rowsOut + (s.kh - 1) * s.dh / s.sh;
  const int64_t plane = rowsIn * wp, nq = rowsOut * wp;
  std::vector<int64_t> off = tapOffsets(s, plane, wp);
  const int64_t quad = phases * plane; // one channel quad's bytes / 4
  thread_local std::vector<uint8_t> xb, xa, rowBuf;
  // AMX (Vnni.h) where the reduction fills most of a 64-byte step; its
  // chunks of 16 quads read up to a chunk past the last quad and a run of
  // 32 positions past the last one (times zero weights, or dropped).
  const int64_t chunks = (c4s + 15) / 16;
  bool amx = false;
#if AMK_QCONV_X86
  amx = call.scratch && c4s >= 8 && hasAmx();
#endif
  // A 1x1 convolution without stride or padding (one tap, rows as they
  // are): AMX reads its planes in place.
  const bool pointwise = taps == 1 && phases == 1 && s.ph == 0 && s.pw == 0 &&
                         wp == s.w && s.oh == s.h;
  // AMX at column strides 1 and 2 (other than the in-place 1x1) builds its
  // per-position rows straight from the input, without the blocked planes.
  const bool directRows = amx && !pointwise && (s.sw == 1 || s.sw == 2);
  if (!directRows)
    growScratch(xb,
                ((amx ? chunks * 16 : c4s) * quad + wp + kNR + 64) * 4 + 64);
  // On a 64-byte boundary (the 64 bytes past the end leave room): a tile
  // or vector row across two lines costs two. (Unused with directRows.)
  uint8_t *const xbAt = reinterpret_cast<uint8_t *>(
      (reinterpret_cast<uintptr_t>(xb.data()) + 63) / 64 * 64);
  const int8_t *wAmx = nullptr;
#if AMK_QCONV_X86
  if (amx) {
    std::call_once(call.scratch->once, [&] {
      packAmxWeights(bf.w, s, c4s, !pointwise, call.scratch->bytes);
    });
    wAmx = call.scratch->bytes.data();
  }
#endif
  const int64_t wpPad = (wp + 15) / 16 * 16;
  rowBuf.resize(4 * wpPad);
  const uint8_t pad = (uint8_t)q.xzp, flip = q.xSigned ? 0x80 : 0;
  bool vnni = false, avx2 = false;
#if AMK_QCONV_X86
  vnni = hasVnni();
  avx2 = !vnni && hasAvx2();
  thread_local std::vector<int32_t> ws;
#endif
  // 1x1 convolutions read in place whose outputs are requantized without
  // a residual take their epilogue in registers (vnniDirectRequant).
  const int act = (int)s.mode;
  // Requantized 8-bit outputs without a residual, whose epilogue the tile
  // code applies itself (epilogueAvx512's fast formula).
  const bool requantOut =
      !bf.z && (q.yType == AMK_RT_U8 || q.yType == AMK_RT_I8) &&
      (act == AMK_OP_NONE || act == AMK_OP_RELU || act == AMK_OP_CLIP);
  const bool fusedRequant = vnni && requantOut && pointwise;
  // The other convolutions too where a register tile's positions fall in
  // at most kMaxTileRuns rows (rows of 8 positions or more).
  const bool fusedRuns =
      vnni && requantOut && !fusedRequant && wp >= kNR / (kMaxTileRuns - 1);
  float lo8 = 0.f, hi8 = 0.f;
  requantBounds(q, lo8, hi8);
  auto tileRequant = [&](int64_t m0) {
    TileRequant rq;
    rq.lo = lo8, rq.hi = hi8, rq.u8 = q.yType == AMK_RT_U8;
    for (int64_t rr = 0; rr < kMR; ++rr) {
      const int64_t oc = std::min(m0 + rr, s.oc - 1);
      rq.wz[rr] = bf.wz[oc] * bf.wzMul;
      rq.m2[rr] = bf.m[oc] * q.invYScale;
      rq.b2[rr] = bf.b[oc] * q.invYScale + (float)q.yzp;
    }
    return rq;
  };
  alignas(64) int32_t acc[kMR][kNR];
  for (int64_t r = tile[0]; r < tile[1];) {
    int64_t img = r / s.oc, mStart = r % s.oc;
    int64_t mEnd = std::min(s.oc, mStart + (tile[1] - r));
    const uint8_t *x = bf.x + img * s.c * s.h * s.w;
    // A 1x1 convolution without stride or padding reads each channel's
    // rows as they are: four channels' runs of rowsIn * W bytes are
    // interleaved in place. Copying row by row took most of a MobileNetV2
    // projection's time on 14x14 and 7x7 planes (four library calls per
    // 14-byte row).
    for (int64_t c4 = 0; pointwise && c4 < c4s; ++c4) {
      const uint8_t *rp[4];
      const int64_t n = plane, body = n / 16 * 16;
      for (int j = 0; j < 4; ++j) {
        int64_t ch = c4 * 4 + j;
        // Past the last channel: zeros, as the row-by-row copy writes.
        if (ch >= s.c) {
          std::memset(rowBuf.data() + j * wpPad, 0, wpPad);
          rp[j] = nullptr;
        } else {
          rp[j] = x + (ch * s.h + oyA) * s.w;
        }
      }
      uint8_t *dst = xbAt + c4 * quad * 4;
      const uint8_t *body4[4] = {rp[0], rp[1], rp[2], rp[3]}, *tail4[4];
      if (body > 0) {
        // Channels past the last read a zero row of the same length
        // (never written, so growing it is all it needs).
        thread_local std::vector<uint8_t> zeros;
        if (!rp[3]) {
          growScratch(zeros, body);
          for (int j = 0; j < 4; ++j)
            if (!rp[j])
              body4[j] = zeros.data();
        }
        interleave4(body4, body, flip, dst);
      }
      if (body < n) {
        for (int j = 0; j < 4; ++j) {
          uint8_t *row = rowBuf.data() + j * wpPad;
          if (rp[j]) {
            std::memcpy(row, rp[j] + body, n - body);
            std::memset(row + (n - body), pad, 16 - (n - body));
          }
          tail4[j] = row;
        }
        interleave4(tail4, 16, flip, dst + body * 4);
      }
    }
    for (int64_t c4 = 0; !pointwise && !directRows && c4 < c4s; ++c4)
      for (int64_t ph = 0; ph < phases; ++ph)
        for (int64_t ry = 0; ry < rowsIn; ++ry) {
          int64_t py = ph / s.sw, px = ph % s.sw;
          int64_t iy = (oyA + ry) * s.sh + py - s.ph;
          const uint8_t *rp[4];
          for (int j = 0; j < 4; ++j) {
            uint8_t *row = rowBuf.data() + j * wpPad;
            rp[j] = row;
            int64_t ch = c4 * 4 + j;
            if (ch >= s.c) {
              std::memset(row, 0, wpPad);
              continue;
            }
            if (iy < 0 || iy >= s.h) {
              std::memset(row, pad, wpPad);
              continue;
            }
            const uint8_t *xr = x + (ch * s.h + iy) * s.w;
            // Column X reads input column X*SW + px - PW: [lo, hi) inside.
            int64_t first = px - s.pw;
            int64_t lo = std::clamp<int64_t>(
                first >= 0 ? 0 : (-first + s.sw - 1) / s.sw, 0, wp);
            int64_t hi = std::clamp<int64_t>(
                (s.w - first + s.sw - 1) / s.sw, lo, wp);
            std::memset(row, pad, lo);
            if (s.sw == 1)
              std::memcpy(row + lo, xr + lo + first, hi - lo);
#if AMK_QCONV_X86
            else if (s.sw == 2 && hasVbmi())
              evenBytesVbmi(xr + lo * 2 + first, hi - lo, row + lo);
#endif
            else
              for (int64_t c = lo; c < hi; ++c)
                row[c] = xr[c * s.sw + first];
            std::memset(row + hi, pad, wpPad - hi);
          }
          interleave4(rp, wpPad, flip,
                      xbAt + (c4 * quad + ph * plane + ry * wp) * 4);
        }
    // The valid outputs of channel oc among positions [q0, q0 + n), row
    // by row.
    auto storeRun = [&](const int32_t *sums, int64_t oc, int64_t q0,
                        int64_t n) {
      for (int64_t i = 0; i < n;) {
        int64_t qq = q0 + i, ox = qq % wp, oy = oyA + qq / wp;
        if (ox >= s.ow) {
          i += wp - ox;
          continue;
        }
        // Without dropped columns (1x1 stride 1: wp == OW) the run
        // goes on across rows, so the epilogue is called once per tile.
        int64_t len = wp == s.ow ? n - i : std::min(s.ow - ox, n - i);
        int64_t p = oy * s.ow + ox;
        int64_t lo = std::max(p, tile[2]), hi = std::min(p + len, tile[3]);
        if (hi > lo)
          epilogue(q, bf, sums + i + (lo - p), hi - lo, oc,
                   (img * s.oc + oc) * P + lo);
        i += len;
      }
    };
#if AMK_QCONV_X86
    if (amx) {
      const int64_t blockBytes = taps * chunks * 1024;
      // Runs of 256 positions: 32 channels' sums (32 KB) stay in L1 for
      // the epilogue. Sums of the whole tile (1.6 MB for a 112x112 plane)
      // went to L2 and back.
      constexpr int64_t kAmxRun = 256;
      thread_local std::vector<int32_t> sums;
      growScratch(sums, 32 * kAmxRun);
      // Every position a run of 32 may read at any tap: past the plane's
      // end they are whatever the blocked rows hold there, and only
      // dropped outputs read them.
      const int64_t ldx = chunks * 64;
      const int64_t positions = (quad + 32 + wp + 15) / 16 * 16;
      uint8_t *xaAt = nullptr;
      if (!pointwise) {
        growScratch(xa, positions * ldx + 64);
        xaAt = reinterpret_cast<uint8_t *>(
            (reinterpret_cast<uintptr_t>(xa.data()) + 63) / 64 * 64);
        if (directRows)
          positionsDirect(x, s, oyA, rowsIn, wp, plane, chunks, pad, flip, xaAt,
                          ldx);
        else
          blockedToPositions(xbAt, quad, chunks, positions, xaAt, ldx);
      }
      // Requantized without a residual: the epilogue in the block
      // (amxRequantGroup), each group of 32 positions stored by its runs
      // of valid outputs (at most kMaxTileRuns of them).
      const bool fusedAmx = requantOut && wp * (kMaxTileRuns - 1) >= 32;
      TileRun groupRuns[kAmxRun / 32][kMaxTileRuns];
      int64_t groupCount[kAmxRun / 32];
      AmxRequant arq;
      arq.lo = lo8, arq.hi = hi8, arq.u8 = q.yType == AMK_RT_U8;
      arq.P = P;
      arq.runs = &groupRuns[0][0];
      arq.nruns = groupCount;
      // (oy, ox) of each group's first position, kept without divisions.
      int64_t goy = oyA, gox = 0;
      for (int64_t q0 = 0; q0 < nq; q0 += kAmxRun) {
        const int64_t n = std::min(kAmxRun, nq - q0);
        for (int64_t g = 0; fusedAmx && g * 32 < n; ++g) {
          if (q0 + g > 0)
            for (gox += 32; gox >= wp; gox -= wp)
              ++goy;
          groupCount[g] =
              tileRuns(s, wp, goy, gox, std::min<int64_t>(32, n - g * 32), tile,
                       groupRuns[g]);
        }
        for (int64_t m0 = mStart / 16 * 16; m0 < mEnd; m0 += 32) {
          const int8_t *wa0 = wAmx + m0 / 16 * blockBytes;
          const int8_t *wa1 = m0 + 16 < mEnd ? wa0 + blockBytes : nullptr;
          if (fusedAmx) {
            for (int64_t rr = 0; rr < 32; ++rr) {
              const int64_t oc = std::min(m0 + rr, s.oc - 1);
              arq.wz[rr] = bf.wz[oc] * bf.wzMul;
              arq.m2[rr] = bf.m[oc] * q.invYScale;
              arq.b2[rr] = bf.b[oc] * q.invYScale + (float)q.yzp;
            }
            arq.rlo = std::max<int64_t>(mStart - m0, 0);
            arq.rhi = std::min<int64_t>(mEnd - m0, wa1 ? 32 : 16);
            arq.y = static_cast<uint8_t *>(bf.y) + (img * s.oc + m0) * P;
          }
          const AmxRequant *rq = fusedAmx ? &arq : nullptr;
          if (pointwise)
            amxPointwiseBlock(xbAt + q0 * 4, quad, chunks, wa0, wa1, n,
                              sums.data(), kAmxRun, rq);
          else
            amxDirectBlock(xaAt + q0 * ldx, ldx, off.data(), taps, chunks, wa0,
                           wa1, n, sums.data(), kAmxRun, rq);
          for (int64_t rr = 0; !fusedAmx && rr < (wa1 ? 32 : 16); ++rr) {
            int64_t oc = m0 + rr;
            if (oc >= mStart && oc < mEnd)
              storeRun(sums.data() + rr * kAmxRun, oc, q0, n);
          }
        }
      }
      r += mEnd - mStart;
      continue;
    }
#endif
    for (int64_t m0 = mStart / kMR * kMR; m0 < mEnd; m0 += kMR) {
      const int8_t *wb = bf.w + m0 / kMR * c4s * taps * kMR * 4;
#if AMK_QCONV_X86
      if (avx2)
        splitWeights(wb, c4s * taps, ws);
#endif
#if AMK_QCONV_X86
      if (fusedRequant) {
        const TileRequant rq = tileRequant(m0);
        const int64_t rlo = std::max(mStart - m0, int64_t(0)),
                      rhi = std::min(mEnd - m0, kMR);
        // Position q of the blocked rows is output position oyA*OW + q.
        const int64_t pBase = oyA * s.ow;
        uint8_t *y = static_cast<uint8_t *>(bf.y) + (img * s.oc + m0) * P;
        for (int64_t q0 = 0; q0 < nq; q0 += kNR) {
          const int64_t n = std::min(kNR, nq - q0), p0 = pBase + q0;
          const int64_t lo = std::clamp<int64_t>(tile[2] - p0, 0, n),
                        hi = std::clamp<int64_t>(tile[3] - p0, lo, n);
          if (hi <= lo)
            continue;
          const uint8_t *a = xbAt + q0 * 4;
          if (n > 32)
            vnniDirectRequant<3, 1>(a, quad, nullptr, 1, wb, c4s, rq, rlo, rhi,
                                    y + p0, P, lo, hi, nullptr, 0);
          else if (n > 16)
            vnniDirectRequant<2, 1>(a, quad, nullptr, 1, wb, c4s, rq, rlo, rhi,
                                    y + p0, P, lo, hi, nullptr, 0);
          else
            vnniDirectRequant<1, 1>(a, quad, nullptr, 1, wb, c4s, rq, rlo, rhi,
                                    y + p0, P, lo, hi, nullptr, 0);
        }
        continue;
      }
      if (fusedRuns) {
        const TileRequant rq = tileRequant(m0);
        const int64_t rlo = std::max(mStart - m0, int64_t(0)),
                      rhi = std::min(mEnd - m0, kMR);
        uint8_t *y = static_cast<uint8_t *>(bf.y) + (img * s.oc + m0) * P;
        // (oy, ox) of each tile's first position, kept without divisions.
        int64_t toy = oyA, tox = 0;
        for (int64_t q0 = 0; q0 < nq; q0 += kNR) {
          const int64_t n = std::min(kNR, nq - q0);
          if (q0 > 0)
            for (tox += kNR; tox >= wp; tox -= wp)
              ++toy;
          TileRun runs[kMaxTileRuns];
          const int64_t nruns = tileRuns(s, wp, toy, tox, n, tile, runs);
          if (!nruns)
            continue;
          const uint8_t *a = xbAt + q0 * 4;
          if (n > 32)
            vnniDirectRequant<3, 0>(a, quad, off.data(), taps, wb, c4s, rq, rlo,
                                    rhi, y, P, 0, 0, runs, nruns);
          else if (n > 16)
            vnniDirectRequant<2, 0>(a, quad, off.data(), taps, wb, c4s, rq, rlo,
                                    rhi, y, P, 0, 0, runs, nruns);
          else
            vnniDirectRequant<1, 0>(a, quad, off.data(), taps, wb, c4s, rq, rlo,
                                    rhi, y, P, 0, 0, runs, nruns);
        }
        continue;
      }
      if (vnni) {
        // Sums of up to kRun positions per channel, then one epilogue call
        // per channel and run: per register tile (48 positions) the
        // epilogue's setup cost more than its arithmetic on the large
        // planes of 1x1 convolutions over few channels. 16 tiles keep the
        // sums (26 KB) in L1: with 32 (50 KB) the epilogue read them back
        // from L2, and a 1x1 convolution over 16 channels took 30% longer.
        constexpr int64_t kRun = 16 * kNR, ld = kRun + kNR;
        thread_local std::vector<int32_t> sums;
        growScratch(sums, kMR * ld);
        for (int64_t r0 = 0; r0 < nq; r0 += kRun) {
          const int64_t rn = std::min(kRun, nq - r0);
          for (int64_t q0 = r0; q0 < r0 + rn; q0 += kNR) {
            int64_t n = std::min(kNR, nq - q0);
            const uint8_t *a = xbAt + q0 * 4;
            int32_t *out = sums.data() + (q0 - r0);
            if (n > 32)
              vnniDirectTile<3>(a, quad, off.data(), taps, wb, c4s, out, ld);
            else if (n > 16)
              vnniDirectTile<2>(a, quad, off.data(), taps, wb, c4s, out, ld);
            else
              vnniDirectTile<1>(a, quad, off.data(), taps, wb, c4s, out, ld);
          }
          for (int64_t rr = 0; rr < kMR; ++rr) {
            int64_t oc = m0 + rr;
            if (oc >= mStart && oc < mEnd)
              storeRun(sums.data() + rr * ld, oc, r0, rn);
          }
        }
        continue;
      }
#endif
      for (int64_t q0 = 0; q0 < nq; q0 += kNR) {
        int64_t n = std::min(kNR, nq - q0);
        const uint8_t *a = xbAt + q0 * 4;
#if AMK_QCONV_X86
        if (avx2)
          avx2Tile(a, quad * 4, off.data(), taps, c4s, ws.data(), n, acc);
#endif
        if (!vnni && !avx2) {
          for (int64_t rr = 0; rr < kMR; ++rr)
            std::fill_n(acc[rr], kNR, 0);
          const int8_t *w = wb;
          for (int64_t c4 = 0; c4 < c4s; ++c4)
            for (int64_t t = 0; t < taps; ++t, w += kMR * 4) {
              const uint8_t *at = a + (c4 * quad + off[t]) * 4;
              for (int64_t rr = 0; rr < kMR; ++rr)
                for (int64_t i = 0; i < n; ++i)
                  acc[rr][i] += at[i * 4] * w[rr * 4] +
                                at[i * 4 + 1] * w[rr * 4 + 1] +
                                at[i * 4 + 2] * w[rr * 4 + 2] +
                                at[i * 4 + 3] * w[rr * 4 + 3];
            }
        }
        for (int64_t rr = 0; rr < kMR; ++rr) {
          int64_t oc = m0 + rr;
          if (oc >= mStart && oc < mEnd)
            storeRun(acc[rr], oc, q0, n);
        }
      }
    }
    r += mEnd - mStart;
  }
}

#if AMK_QCONV_X86
/// Up to four runs of 16 outputs of a depthwise plane: where each reads
/// the padded input (`base`), where it writes ([OH][OW] offset `at`) and
/// its mask. Idle slots repeat the last run, so the tap loops need no
/// count. `next` walks the plane a batch at a time.
struct DepthwiseRuns {
  const uint8_t *base[4];
  int64_t at[4];
  __mmask16 mask[4];
  int64_t count = 0;
  bool next(const uint8_t *plane, int64_t ld, const Spatial &s, int64_t &oy,
            int64_t &ox) {
    for (count = 0; count < 4 && oy < s.oh; ++count) {
      int64_t n = std::min<int64_t>(16, s.ow - ox);
      base[count] = plane + oy * s.sh * ld + ox * s.sw;
      at[count] = oy * s.ow + ox;
      mask[count] = (__mmask16)((1u << n) - 1);
      ox += 16;
      if (ox >= s.ow)
        ox = 0, ++oy;
    }
    for (int64_t j = count; j < 4 && count > 0; ++j)
      base[j] = base[count - 1], at[j] = at[count - 1],
      mask[j] = mask[count - 1];
    return count > 0;
  }
};

/// Variant 0's taps for strides 1 and 2 with AVX-512, when the sums are
/// exact in float: from one zero-point-padded 8-bit copy of the input
/// channel (`plane`, rows `ld` bytes apart, already flipped to unsigned),
/// each tap of 16 outputs is one load widened in registers (stride 2: 32
/// bytes, the even ones) and one FMA into `out` ([OH][OW] floats). Four
/// runs of 16 outputs at a time keep four FMA chains in flight. The phase
/// planes of the generic path cost a call and two fills per row, more
/// than the taps on 7x7 to 56x56 planes.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
depthwiseTapsAvx512(const uint8_t *plane, int64_t ld, const Spatial &s,
                    const float *wt, bool accumulate, float *out) {
  const __m512i low = _mm512_set1_epi32(0xff);
  DepthwiseRuns r;
  int64_t oy = 0, ox = 0;
  while (r.next(plane, ld, s, oy, ox)) {
    const uint8_t *const *base = r.base;
    __m512 acc[4];
    for (int64_t j = 0; j < 4; ++j)
      acc[j] = accumulate ? _mm512_maskz_loadu_ps(r.mask[j], out + r.at[j])
                          : _mm512_setzero_ps();
    for (int64_t ky = 0; ky < s.kh; ++ky)
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        const __m512 w = _mm512_set1_ps(wt[ky * s.kw + kx]);
        const int64_t at = ky * s.dh * ld + kx * s.dw;
        for (int64_t j = 0; j < 4; ++j) {
          __m512i v =
              s.sw == 1
                  ? _mm512_cvtepu8_epi32(
                        _mm_loadu_si128((const __m128i *)(base[j] + at)))
                  : _mm512_and_si512(_mm512_cvtepu16_epi32(_mm256_loadu_si256(
                                         (const __m256i *)(base[j] + at))),
                                     low);
          acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(v), w, acc[j]);
        }
      }
    for (int64_t j = 0; j < r.count; ++j)
      _mm512_mask_storeu_ps(out + r.at[j], r.mask[j], acc[j]);
  }
}

/// One plane row: input bytes [lo, hi) flipped, the rest the padding.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
fillPlaneRowAvx512(uint8_t *row, const uint8_t *src, int64_t lo, int64_t hi,
                   int64_t ld, uint8_t flip, uint8_t pad) {
  const __m512i f = _mm512_set1_epi8((char)flip),
                pv = _mm512_set1_epi8((char)pad);
  for (int64_t c = 0; c < ld; c += 64) {
    int64_t n = std::min<int64_t>(64, ld - c);
    __mmask64 k = n == 64 ? ~0ull : (1ull << n) - 1;
    // Lanes inside [lo, hi) load the input; the others keep the padding.
    int64_t a = std::clamp<int64_t>(lo - c, 0, 64),
            b = std::clamp<int64_t>(hi - c, 0, 64);
    __mmask64 in = (b >= 64 ? ~0ull : (1ull << b) - 1) &
                   ~(a >= 64 ? ~0ull : (1ull << a) - 1);
    __m512i v = _mm512_xor_si512(_mm512_maskz_loadu_epi8(in, src + c), f);
    v = _mm512_mask_blend_epi8(in, pv, v);
    _mm512_mask_storeu_epi8(row + c, k, v);
  }
}

/// The same taps in int32 with vpdpbusd: vpermb gathers, for each of 16
/// outputs, the bytes of up to four taps of one kernel row (columns 4g to
/// 4g + 3, the rest zero-weighted) from one 64-byte load into its 32-bit
/// lane, and one vpdpbusd multiplies them by that row's weights and adds:
/// a 3x3 kernel is 3 loads, 3 permutes and 3 multiply-adds per 16 outputs
/// instead of 9 widenings, conversions and FMAs, and the sums need no
/// conversion. `idx[g]` are the permutes, `wq[ky * groups + g]` the
/// weights' 32-bit words.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi"))) void
depthwiseTapsVnni(const uint8_t *plane, int64_t ld, const Spatial &s,
                  const __m512i *idx, int64_t groups, const int32_t *wq,
                  bool accumulate, int32_t *out) {
  DepthwiseRuns r;
  int64_t oy = 0, ox = 0;
  while (r.next(plane, ld, s, oy, ox)) {
    const uint8_t *const *base = r.base;
    __m512i acc[4];
    for (int64_t j = 0; j < 4; ++j)
      acc[j] = accumulate ? _mm512_maskz_loadu_epi32(r.mask[j], out + r.at[j])
                          : _mm512_setzero_si512();
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      const int64_t at = ky * s.dh * ld;
      for (int64_t g = 0; g < groups; ++g) {
        const __m512i w = _mm512_set1_epi32(wq[ky * groups + g]);
        const int64_t col = 4 * g * s.dw;
        for (int64_t j = 0; j < 4; ++j) {
          __m512i v = _mm512_permutexvar_epi8(
              idx[g], _mm512_loadu_si512(base[j] + at + col));
          acc[j] = _mm512_dpbusd_epi32(acc[j], v, w);
        }
      }
    }
    for (int64_t j = 0; j < r.count; ++j)
      _mm512_mask_storeu_epi32(out + r.at[j], r.mask[j], acc[j]);
  }
}

/// Index vectors of the VBMI byte transposes of qconvDepthwiseLanes: a
/// 16x16 byte matrix in four registers, four rows of 16 bytes each, is
/// transposed with two two-source permutes and a blend per register.
/// `in[m]` gathers columns 4m..4m+3 of rows held in row order; `out[k]`
/// gathers them from the order the int32 -> int8 packs leave 16 pixels'
/// 16 channels in (pixel 4r + 2h + g, channel 4L + e at byte
/// 16L + 8h + 4g + e of register r).
struct ByteTransposeIndex {
  alignas(64) uint8_t in[4][64], out[4][64];
  ByteTransposeIndex() {
    for (int m = 0; m < 4; ++m)
      for (int pos = 0; pos < 64; ++pos) {
        int p = 4 * m + pos / 16, c = pos % 16;
        in[m][pos] = (uint8_t)(((c / 4) & 1) * 64 + (c % 4) * 16 + p);
        int e = pos / 16, px = pos % 16, r = px / 4, h = (px % 4) >> 1,
            g = px & 1;
        out[m][pos] = (uint8_t)((r & 1) * 64 + 16 * m + 8 * h + 4 * g + e);
      }
  }
};

/// One of those transposes: registers 0-1 hold the bytes destined for
/// positions whose byte-within-16 is below 8, registers 2-3 the others.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) inline __m512i
transposeBytes(const __m512i v[4], const uint8_t *idx) {
  const __m512i i = _mm512_loadu_si512(idx);
  __m512i lo = _mm512_permutex2var_epi8(v[0], i, v[1]),
          hi = _mm512_permutex2var_epi8(v[2], i, v[3]);
  return _mm512_mask_blend_epi8((__mmask64)0xff00ff00ff00ff00ull, lo, hi);
}

const ByteTransposeIndex &byteTransposeIndex() {
  static const ByteTransposeIndex bt;
  return bt;
}

/// qconvDepthwiseLanes' input transpose with VBMI: `n` pixels of `nch`
/// channel rows (`x`, rows `hw` bytes apart) into `n` vectors of 16
/// channels as floats at `d`, flipped to unsigned.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi"))) void
depthwiseRowInVbmi(const uint8_t *x, int64_t hw, int64_t nch, int64_t n,
                   uint32_t flip, float *d) {
  const ByteTransposeIndex &bt = byteTransposeIndex();
  const __mmask16 k = (__mmask16)((1u << n) - 1);
  __m128i b[16];
  for (int64_t j = 0; j < 16; ++j)
    b[j] = j < nch ? _mm_maskz_loadu_epi8(k, x + j * hw) : _mm_setzero_si128();
  __m512i v[4];
  for (int m = 0; m < 4; ++m)
    v[m] = _mm512_inserti32x4(
        _mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(b[4 * m]),
                                              b[4 * m + 1], 1),
                           b[4 * m + 2], 2),
        b[4 * m + 3], 3);
  const __m512i f = _mm512_set1_epi8((char)flip);
  alignas(64) uint8_t t[256];
  for (int m = 0; m < 4; ++m)
    _mm512_store_si512(t + 64 * m,
                       _mm512_xor_si512(transposeBytes(v, bt.in[m]), f));
  for (int64_t p = 0; p < n; ++p)
    _mm512_storeu_ps(d + p * 16,
                     _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(
                         _mm_load_si128((const __m128i *)(t + 16 * p)))));
}

/// qconvDepthwiseLanes' output transpose with VBMI: 16 pixels of 16
/// channels' int32 results (`st`, in the output type's range, so the
/// saturating packs only narrow) to `nch` channel rows of `n` bytes at
/// `y`, `plane` bytes apart.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi"))) void
depthwiseRowOutVbmi(const int32_t *st, bool u8, uint8_t *y, int64_t plane,
                    int64_t nch, int64_t n) {
  const ByteTransposeIndex &bt = byteTransposeIndex();
  const __mmask16 k = (__mmask16)((1u << n) - 1);
  __m512i w[8], v[4];
  for (int i = 0; i < 8; ++i)
    w[i] = _mm512_packs_epi32(_mm512_loadu_si512(st + 32 * i),
                              _mm512_loadu_si512(st + 32 * i + 16));
  for (int i = 0; i < 4; ++i)
    v[i] = u8 ? _mm512_packus_epi16(w[2 * i], w[2 * i + 1])
              : _mm512_packs_epi16(w[2 * i], w[2 * i + 1]);
  alignas(64) uint8_t t[256];
  for (int m = 0; m < 4; ++m)
    _mm512_store_si512(t + 64 * m, transposeBytes(v, bt.out[m]));
  for (int64_t j = 0; j < nch; ++j)
    _mm_mask_storeu_epi8(y + j * plane, k,
                         _mm_load_si128((const __m128i *)(t + 16 * j)));
}

/// The first 64-byte boundary at or after `p` (buffers allocated 64 bytes
/// longer).
template <typename T> inline T *alignTo64(T *p) {
  return reinterpret_cast<T *>((reinterpret_cast<uintptr_t>(p) + 63) &
                               ~uintptr_t(63));
}

/// The requantizing epilogue of qconvDepthwiseLanes, per channel lane:
/// the weight-sum correction, the folded scale and bias, the bounds.
struct LaneEpilogue {
  __m512 wz, m2, b2, lo, hi;
};

/// The epilogue of `nb` pixels' sums (16 channels each) into `stage`.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) inline void
laneEpilogue(const __m512 *acc, int64_t nb, const LaneEpilogue &ep,
             int32_t *stage) {
  for (int64_t j = 0; j < nb; ++j) {
    // The sums are exact integers, so subtracting the zero point's
    // correction in float equals the int32 epilogue's.
    __m512 v = _mm512_fmadd_ps(_mm512_sub_ps(acc[j], ep.wz), ep.m2, ep.b2);
    v = _mm512_min_ps(_mm512_max_ps(v, ep.lo), ep.hi);
    _mm512_storeu_si512(stage + j * 16, _mm512_cvtps_epi32(v));
  }
}

/// One output row of qconvDepthwiseLanes: eight pixels at a time, each tap
/// one load and one FMA per pixel at a constant offset (SW the stride, 0
/// when it is only known at run time), then the epilogue into `stage`
/// ([OW][16] int32, each in its output type's range). The ring rows have room
/// for a last block of eight past the row's end, whose extra pixels are
/// computed and dropped. A 3-wide kernel at stride 1 without dilation loads
/// each input pixel of a kernel row once for the three outputs it reaches
/// (10 loads for 24 FMAs instead of 24): 56x56 and 14x14 layers 7-12%
/// faster. At stride 2 (17 loads) that measured no faster.
template <int SW>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) void
depthwiseRowLanes(const float *const *rows, const float *wv, const Spatial &s,
                  const LaneEpilogue &ep, int32_t *stage) {
  const int64_t sw = SW ? SW : s.sw;
  const bool reuse = SW == 1 && s.kw == 3 && s.dw == 1;
  for (int64_t ox0 = 0; ox0 < s.ow; ox0 += 8) {
    __m512 acc[8];
    for (int j = 0; j < 8; ++j)
      acc[j] = _mm512_setzero_ps();
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      const float *row = rows[ky] + ox0 * sw * 16;
      if constexpr (SW == 1) {
        if (reuse) {
          const float *w = wv + ky * 3 * 16;
          const __m512 w0 = _mm512_loadu_ps(w), w1 = _mm512_loadu_ps(w + 16),
                       w2 = _mm512_loadu_ps(w + 32);
          __m512 in[10];
          for (int p = 0; p < 10; ++p)
            in[p] = _mm512_loadu_ps(row + p * 16);
          for (int j = 0; j < 8; ++j) {
            acc[j] = _mm512_fmadd_ps(in[j], w0, acc[j]);
            acc[j] = _mm512_fmadd_ps(in[j + 1], w1, acc[j]);
            acc[j] = _mm512_fmadd_ps(in[j + 2], w2, acc[j]);
          }
          continue;
        }
      }
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        const __m512 w = _mm512_loadu_ps(wv + (ky * s.kw + kx) * 16);
        const float *base = row + kx * s.dw * 16;
        for (int j = 0; j < 8; ++j)
          acc[j] =
              _mm512_fmadd_ps(_mm512_loadu_ps(base + j * sw * 16), w, acc[j]);
      }
    }
    laneEpilogue(acc, std::min<int64_t>(8, s.ow - ox0), ep, stage + ox0 * 16);
  }
}

/// Depthwise (one input channel per output channel) with 16 channels in
/// the vector lanes. Per group of 16 channels, each padded input row is
/// transposed once into floats, one vector per pixel ([W][16]), into a
/// ring of kernel-height rows; each tap of 8 output pixels is then one
/// load and one FMA per pixel against a vector of 16 channels' weights,
/// and the requantizing epilogue works on 16 channels at once, with
/// per-channel scales in a vector. Output rows are transposed back to the
/// NCHW planes. The per-plane path (qconvDepthwiseAvx512) spends about 3
/// cycles per output on MobileNetV2's 14x14 and 7x7 planes: the plane
/// copy, the runs' setup and an epilogue call per channel cost more than
/// the taps. Handles the requantized outputs without a residual (the
/// MobileNet layers); returns false for the others.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) bool
qconvDepthwiseLanes(const QParams &q, const QBuffers &bf, const int64_t *tile) {
  const Spatial &s = q.s;
  const int act = (int)s.mode;
  if (s.group != s.c || s.oc != s.c || bf.z || s.kh > 64 ||
      (q.yType != AMK_RT_U8 && q.yType != AMK_RT_I8) ||
      (act != AMK_OP_NONE && act != AMK_OP_RELU && act != AMK_OP_CLIP))
    return false;
  const int64_t taps = s.kh * s.kw, P = s.oh * s.ow, HW = s.h * s.w;
  const uint32_t flip = q.xSigned ? 0x80 : 0;
  const __m512i vflip = _mm512_set1_epi32((int)flip);
  const __m512 pad = _mm512_set1_ps((float)(((uint32_t)q.xzp ^ flip) & 0xff));
  // Padded columns the taps read; the ring holds the kernel's rows.
  const int64_t wp = (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1;
  const int64_t ringRows = (s.kh - 1) * s.dh + 1;
  // Room for depthwiseRowLanes' last block of eight pixels.
  const int64_t ld = wp + 8 * s.sw;
  const int64_t hp = (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1;
  thread_local std::vector<float> ring, wv;
  thread_local std::vector<int32_t> stage;
  // 64-byte aligned: every tap is a whole-vector load, and one split
  // across two cache lines costs two.
  growScratch(ring, ringRows * ld * 16 + 16);
  growScratch(wv, taps * 16 + 16);
  float *ringAt = alignTo64(ring.data()), *wvAt = alignTo64(wv.data());
  growScratch(stage, (s.ow + 17) * 16);
  int32_t *stageAt = alignTo64(stage.data());
  const bool vbmi = hasVbmi();
  const float inv = q.invYScale, yz = (float)q.yzp;
  float lo, hi;
  requantBounds(q, lo, hi);
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  for (int64_t r0 = tile[0]; r0 < tile[1];) {
    // 16 channels of one image at most.
    const int64_t img = r0 / s.oc, o0 = r0 % s.oc;
    const int64_t nch = std::min({int64_t(16), tile[1] - r0, s.oc - o0});
    alignas(64) float wzs[16] = {}, m2s[16] = {}, b2s[16] = {};
    for (int64_t j = 0; j < 16; ++j)
      for (int64_t t = 0; t < taps; ++t)
        wvAt[t * 16 + j] = j < nch ? (float)bf.w[(o0 + j) * q.kdepth + t] : 0.f;
    for (int64_t j = 0; j < nch; ++j) {
      int64_t oc = o0 + j;
      wzs[j] = (float)(bf.wz[oc] * bf.wzMul);
      m2s[j] = bf.m[oc] * inv;
      b2s[j] = bf.b[oc] * inv + yz;
    }
    const LaneEpilogue ep{_mm512_loadu_ps(wzs), _mm512_loadu_ps(m2s),
                          _mm512_loadu_ps(b2s), vlo, vhi};
    const uint8_t *x = bf.x + (img * s.c + o0) * HW;
    // Padded input row py into its ring slot.
    auto fillRow = [&](int64_t py)
        __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) {
      float *dst = ringAt + (py % ringRows) * ld * 16;
      const int64_t iy = py - s.ph;
      const int64_t left = std::min(s.pw, wp);
      const int64_t cols = std::clamp<int64_t>(wp - s.pw, 0, s.w);
      if (iy < 0 || iy >= s.h) {
        for (int64_t px = 0; px < wp; ++px)
          _mm512_storeu_ps(dst + px * 16, pad);
        return;
      }
      for (int64_t px = 0; px < left; ++px)
        _mm512_storeu_ps(dst + px * 16, pad);
      for (int64_t ix0 = 0; ix0 < cols; ix0 += 16) {
        const int64_t n = std::min<int64_t>(16, cols - ix0);
        const __mmask16 k = (__mmask16)((1u << n) - 1);
        float *d = dst + (s.pw + ix0) * 16;
        if (vbmi) {
          depthwiseRowInVbmi(x + iy * s.w + ix0, HW, nch, n, flip, d);
          continue;
        }
        __m512i v[16];
        for (int64_t j = 0; j < 16; ++j)
          v[j] =
              j < nch
                  ? _mm512_xor_si512(_mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(
                                         k, x + j * HW + iy * s.w + ix0)),
                                     vflip)
                  : _mm512_setzero_si512();
        transpose16x16(v);
        for (int64_t p = 0; p < n; ++p)
          _mm512_storeu_ps(d + p * 16, _mm512_cvtepi32_ps(v[p]));
      }
      for (int64_t px = s.pw + cols; px < wp; ++px)
        _mm512_storeu_ps(dst + px * 16, pad);
    };
    int64_t filled = 0; // padded rows [0, filled) are in the ring
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      const int64_t last = std::min(oy * s.sh + (s.kh - 1) * s.dh, hp - 1);
      for (; filled <= last; ++filled)
        fillRow(filled);
      const float *rows[64];
      for (int64_t ky = 0; ky < s.kh && ky < 64; ++ky)
        rows[ky] = ringAt + ((oy * s.sh + ky * s.dh) % ringRows) * ld * 16;
      if (s.sw == 1)
        depthwiseRowLanes<1>(rows, wvAt, s, ep, stageAt);
      else if (s.sw == 2)
        depthwiseRowLanes<2>(rows, wvAt, s, ep, stageAt);
      else
        depthwiseRowLanes<0>(rows, wvAt, s, ep, stageAt);
      // The row back to the channels' planes, 16 pixels at a time.
      uint8_t *y = static_cast<uint8_t *>(bf.y) + r0 * P + oy * s.ow;
      for (int64_t ox0 = 0; ox0 < s.ow; ox0 += 16) {
        const int64_t n = std::min<int64_t>(16, s.ow - ox0);
        const __mmask16 k = (__mmask16)((1u << n) - 1);
        const int32_t *st = stageAt + ox0 * 16;
        if (vbmi) {
          depthwiseRowOutVbmi(st, q.yType == AMK_RT_U8, y + ox0, P, nch, n);
          continue;
        }
        __m512i v[16];
        for (int64_t p = 0; p < 16; ++p)
          v[p] = _mm512_loadu_si512(st + p * 16);
        transpose16x16(v);
        for (int64_t j = 0; j < nch; ++j)
          _mm_mask_storeu_epi8(y + j * P + ox0, k, _mm512_cvtepi32_epi8(v[j]));
      }
    }
    r0 += nch;
  }
  return true;
}

/// Depthwise with the output positions in the lanes, straight from the
/// NCHW planes: for 16 outputs of one channel, vpermb gathers from one
/// 64-byte load the bytes of up to four taps of one kernel row into each
/// output's 32-bit lane, and one vpdpbusd multiplies them by that row's
/// weights. A 3x3 kernel is 3 loads, 3 permutes and 3 multiply-adds per 16
/// outputs, and the requantizing epilogue runs on the sums in registers.
/// The channels-in-lanes kernel (qconvDepthwiseLanes) transposes every
/// input pixel into floats and every output back: at stride 2 that is four
/// input pixels an output, and it spent 0.6 ns an output on MobileNetV2's
/// 112x112 -> 56x56 layer. Padding: bytes whose tap falls outside the
/// image are replaced by the zero point after the permute (a blend under a
/// mask that depends only on the block's columns and the rows' validity),
/// and each load is masked to the channel's plane, so nothing is copied.
/// Planes at most 8 wide put two output rows in one vector (lanes 0-7 and
/// 8-15) when both rows' taps fit the load. Eight channels run together:
/// they share the masks and offsets, and their dependency chains (the
/// taps, then the epilogue's) overlap; with four the layer was latency
/// bound (30% slower), with sixteen the accumulators spilled. KH and GR
/// fix the kernel height and the groups of four columns at compile time
/// (0: read at run time) so the tap loops unroll. Handles what
/// qconvDepthwiseLanes handles; the sums are the same integers, so the
/// outputs are the same bytes.
template <int KH, int GR>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,"
                      "avx512vbmi"))) bool
qconvDepthwisePlanes(const QParams &q, const QBuffers &bf,
                     const int64_t *tile) {
  const Spatial &s = q.s;
  const int act = (int)s.mode;
  if (s.group != s.c || s.oc != s.c || bf.z ||
      (q.yType != AMK_RT_U8 && q.yType != AMK_RT_I8) ||
      (act != AMK_OP_NONE && act != AMK_OP_RELU && act != AMK_OP_CLIP))
    return false;
  const int64_t groups = GR ? GR : (s.kw + 3) / 4, kh = KH ? KH : s.kh;
  const int64_t span = (4 * groups - 1) * s.dw; // one lane's taps
  const bool twoRows = s.ow <= 8 && s.sh * s.w + 7 * s.sw + span < 64;
  if (groups > 4 || s.kh > 16 || (!twoRows && 15 * s.sw + span >= 64))
    return false;
  const int64_t HW = s.h * s.w, P = s.oh * s.ow;
  const int64_t lanesPerRow = twoRows ? 8 : 16, rowsPerVec = twoRows ? 2 : 1;
  const uint32_t flip = q.xSigned ? 0x80 : 0;
  const __m512i vflip = _mm512_set1_epi8((char)flip);
  const __m512i pad = _mm512_set1_epi8((char)(((uint32_t)q.xzp ^ flip) & 0xff));
  // Lane i's byte j of group g: tap column 4g + j of its output.
  __m512i idx[4];
  for (int64_t g = 0; g < groups; ++g) {
    alignas(64) uint8_t b[64];
    for (int64_t i = 0; i < 16; ++i)
      for (int64_t j = 0; j < 4; ++j)
        b[4 * i + j] = (uint8_t)((i / lanesPerRow) * s.sh * s.w +
                                 (i % lanesPerRow) * s.sw + j * s.dw);
    idx[g] = _mm512_load_si512(b);
  }
  // Per column block and group: the bytes whose tap column is inside the
  // image, for lanes holding outputs (taps past the kernel have zero
  // weights, so their bytes may be anything).
  const int64_t blocks = twoRows ? 1 : (s.ow + 15) / 16;
  std::vector<uint64_t> colMask(blocks * groups);
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t g = 0; g < groups; ++g) {
      uint64_t m = 0;
      for (int64_t i = 0; i < 16; ++i) {
        const int64_t ox = b * 16 + i % lanesPerRow;
        for (int64_t j = 0; j < 4; ++j) {
          const int64_t kx = 4 * g + j, ix = ox * s.sw + kx * s.dw - s.pw;
          if (kx >= s.kw || (ox < s.ow && ix >= 0 && ix < s.w))
            m |= 1ull << (4 * i + j);
        }
      }
      colMask[b * groups + g] = m;
    }
  const float inv = q.invYScale, yz = (float)q.yzp;
  float lo, hi;
  requantBounds(q, lo, hi);
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  constexpr int64_t kCh = 8;
  for (int64_t r0 = tile[0], nch = 0; r0 < tile[1]; r0 += nch) {
    // Up to eight channels of one image; idle slots repeat the last one.
    const int64_t img = r0 / s.oc, o0 = r0 % s.oc;
    nch = std::min({kCh, tile[1] - r0, s.oc - o0});
    const uint8_t *plane[kCh];
    uint8_t *out[kCh];
    int32_t wq[kCh][16][4];
    __m512i wz[kCh];
    __m512 m2[kCh], b2[kCh];
    for (int64_t c = 0; c < kCh; ++c) {
      const int64_t oc = o0 + std::min(c, nch - 1);
      plane[c] = bf.x + (img * s.c + oc) * HW;
      out[c] = static_cast<uint8_t *>(bf.y) + (img * s.oc + oc) * P;
      const int8_t *wk = bf.w + oc * q.kdepth;
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t g = 0; g < groups; ++g) {
          uint32_t word = 0;
          for (int64_t j = 0; j < 4 && 4 * g + j < s.kw; ++j)
            word |= (uint32_t)(uint8_t)wk[ky * s.kw + 4 * g + j] << (8 * j);
          wq[c][ky][g] = (int32_t)word;
        }
      // The sums start at minus the zero point's correction.
      wz[c] = _mm512_set1_epi32(-(bf.wz[oc] * bf.wzMul));
      m2[c] = _mm512_set1_ps(bf.m[oc] * inv);
      b2[c] = _mm512_set1_ps(bf.b[oc] * inv + yz);
    }
    for (int64_t oy = 0; oy < s.oh; oy += rowsPerVec) {
      const bool second = twoRows && oy + 1 < s.oh;
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t ox0 = b * 16;
        __m512i acc[kCh];
        for (int64_t c = 0; c < kCh; ++c)
          acc[c] = wz[c];
#pragma clang loop unroll(full)
        for (int64_t ky = 0; ky < kh; ++ky) {
          const int64_t iy = oy * s.sh - s.ph + ky * s.dh;
          const uint64_t rows =
              (iy >= 0 && iy < s.h ? (twoRows ? 0xffffffffull : ~0ull) : 0) |
              (second && iy + s.sh >= 0 && iy + s.sh < s.h
                   ? 0xffffffff00000000ull
                   : 0);
#pragma clang loop unroll(full)
          for (int64_t g = 0; g < groups; ++g) {
            const uint64_t valid = rows & colMask[b * groups + g];
            // Rows or columns of padding only: the zero point's bytes,
            // which the correction takes back out.
            if (!valid) {
              for (int64_t c = 0; c < kCh; ++c)
                acc[c] = _mm512_dpbusd_epi32(acc[c], pad,
                                             _mm512_set1_epi32(wq[c][ky][g]));
              continue;
            }
            const int64_t off = iy * s.w + ox0 * s.sw + 4 * g * s.dw - s.pw;
            // Loads inside the plane need no mask (all but the first and
            // last rows').
            __mmask64 k = ~0ull;
            if (off < 0 || off + 64 > HW) {
              const int64_t a = std::clamp<int64_t>(-off, 0, 64),
                            e = std::clamp<int64_t>(HW - off, 0, 64);
              k = (e >= 64 ? ~0ull : (1ull << e) - 1) &
                  ~(a >= 64 ? ~0ull : (1ull << a) - 1);
            }
#pragma clang loop unroll(full)
            for (int64_t c = 0; c < kCh; ++c) {
              __m512i v = _mm512_permutexvar_epi8(
                  idx[g], k == ~0ull
                              ? _mm512_loadu_si512(plane[c] + off)
                              : _mm512_maskz_loadu_epi8(k, plane[c] + off));
              if (flip)
                v = _mm512_xor_si512(v, vflip);
              if (valid != ~0ull)
                v = _mm512_mask_blend_epi8((__mmask64)valid, pad, v);
              acc[c] = _mm512_dpbusd_epi32(acc[c], v,
                                           _mm512_set1_epi32(wq[c][ky][g]));
            }
          }
        }
        // All four slots, so that `acc` stays in registers: an idle slot
        // stores its channel's bytes again.
#pragma clang loop unroll(full)
        for (int64_t c = 0; c < kCh; ++c) {
          __m512 v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[c]), m2[c], b2[c]);
          v = _mm512_min_ps(_mm512_max_ps(v, vlo), vhi);
          const __m128i bytes = _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v));
          if (twoRows) {
            const __mmask16 row = (__mmask16)((1u << s.ow) - 1);
            _mm_mask_storeu_epi8(out[c] + oy * s.ow, row, bytes);
            if (second)
              _mm_mask_storeu_epi8(out[c] + (oy + 1) * s.ow - 8,
                                   (__mmask16)(row << 8), bytes);
          } else {
            const int64_t n = std::min<int64_t>(16, s.ow - ox0);
            _mm_mask_storeu_epi8(out[c] + oy * s.ow + ox0,
                                 (__mmask16)((1u << n) - 1), bytes);
          }
        }
      }
    }
  }
  return true;
}

/// Variant 0 through depthwiseTapsAvx512 (see there).
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
qconvDepthwiseAvx512(const QParams &q, const QBuffers &bf,
                     const int64_t *tile) {
  const Spatial &s = q.s;
  const int64_t icg = s.c / s.group, ocg = s.oc / s.group, P = s.oh * s.ow;
  const uint8_t flip = q.xSigned ? 0x80 : 0, pad = (uint8_t)q.xzp ^ flip;
  // Rows and columns the taps read, from the padding's first; 32 bytes of
  // slack past the last column for the whole-vector loads.
  const int64_t rows = (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1;
  const int64_t ld = (s.ow + 16) * s.sw + (s.kw - 1) * s.dw + 64;
  thread_local std::vector<uint8_t> plane;
  thread_local std::vector<float> sums;
  thread_local std::vector<int32_t> acc;
  growScratch(plane, rows * ld + 64);
  growScratch(sums, P);
  growScratch(acc, P);
  const int64_t taps = s.kh * s.kw;
  std::vector<float> wt(taps);
  // The integer taps (depthwiseTapsVnni) where each 16 outputs' taps of a
  // kernel row group fit one 64-byte load.
  const int64_t groups = (s.kw + 3) / 4;
  const bool vbmi = hasVbmi() && 15 * s.sw + (4 * groups - 1) * s.dw < 64;
  __m512i idx[16];
  std::vector<int32_t> wq(s.kh * groups);
  if (vbmi) {
    for (int64_t g = 0; g < groups && g < 16; ++g) {
      alignas(64) uint8_t b[64];
      for (int64_t i = 0; i < 16; ++i)
        for (int64_t j = 0; j < 4; ++j)
          b[4 * i + j] = (uint8_t)(i * s.sw + j * s.dw);
      idx[g] = _mm512_load_si512(b);
    }
  }
  int64_t builtFor = -1;
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t img = r / s.oc, o = r % s.oc, g = o / ocg;
    for (int64_t ic = 0; ic < icg; ++ic) {
      int64_t ch = img * s.c + g * icg + ic;
      if (builtFor != ch) {
        const uint8_t *x = bf.x + ch * s.h * s.w;
        // Input columns [lo, hi) of a plane row are inside the image.
        int64_t lo = std::min<int64_t>(s.pw, ld), hi = std::min(s.pw + s.w, ld);
        for (int64_t py = 0; py < rows; ++py) {
          uint8_t *row = plane.data() + py * ld;
          int64_t iy = py - s.ph;
          if (iy < 0 || iy >= s.h) {
            std::memset(row, pad, ld);
            continue;
          }
          fillPlaneRowAvx512(row, x + iy * s.w - s.pw, lo, hi, ld, flip, pad);
        }
        builtFor = ch;
      }
      const int8_t *wk = bf.w + o * q.kdepth + ic * taps;
      if (vbmi) {
        for (int64_t ky = 0; ky < s.kh; ++ky)
          for (int64_t g = 0; g < groups; ++g) {
            uint32_t word = 0;
            for (int64_t j = 0; j < 4 && 4 * g + j < s.kw; ++j)
              word |= (uint32_t)(uint8_t)wk[ky * s.kw + 4 * g + j] << (8 * j);
            wq[ky * groups + g] = (int32_t)word;
          }
        depthwiseTapsVnni(plane.data(), ld, s, idx, groups, wq.data(), ic > 0,
                          acc.data());
        continue;
      }
      for (int64_t t = 0; t < taps; ++t)
        wt[t] = (float)wk[t];
      depthwiseTapsAvx512(plane.data(), ld, s, wt.data(), ic > 0, sums.data());
    }
    // Exact integers in float: the conversion is exact too.
    if (!vbmi)
      for (int64_t i = 0; i < P; ++i)
        acc[i] = (int32_t)sums[i];
    epilogue(q, bf, acc.data(), P, o, r * P);
  }
}
#endif

/// Variant 0: any group count (depthwise included). Per input channel the
/// padded input plane is widened once to int16 and split into SH x SW
/// phases (row and column residues mod the stride), like variant 2's
/// blocked input, so output position q = oy*WPS + ox reads every tap at q
/// plus a fixed offset: each tap is one long contiguous multiply-add over
/// the whole plane instead of a short one per row (depthwise planes are
/// as small as 7x7). A u8 x s8 product fits int16, so the multiply is the
/// 16-bit one and only the sum is widened. Columns past OW are dropped.
void qconvDirectTile(const KernelCall &call, const int64_t *tile) {
  QParams q = paramsOf(call);
  QBuffers bf = QBuffers::of(call);
  const Spatial &s = q.s;
  int64_t icg = s.c / s.group, ocg = s.oc / s.group, P = s.oh * s.ow;
  const int16_t flip = q.xSigned ? 128 : 0;
  const int16_t pad = (int16_t)(((int16_t)(uint8_t)q.xzp ^ flip) & 0xff);
  const int64_t hps = s.oh + (s.kh - 1) * s.dh / s.sh,
                wps = s.ow + (s.kw - 1) * s.dw / s.sw;
  const int64_t phase = hps * wps, nq = s.oh * wps;
  // Whole 64-position blocks: the float taps run four vectors at a time.
  const int64_t nqPad = (nq + 63) / 64 * 64;
  // Sums of u8 x s8 products are exact in float while their magnitude
  // stays below 2^24: 514 products of 255 x 128. Below that (depthwise
  // 3x3 and 5x5, small groups) the taps accumulate in float registers
  // over a whole 16-position vector, as the float depthwise kernel does;
  // above it, in int32 through 16-bit products.
  const bool exactFloat = icg * s.kh * s.kw * 255 * 128 < (1 << 24);
#if AMK_QCONV_X86
  // Strided depthwise layers read their planes in place with the outputs
  // in the lanes; at stride 1 the channels-in-lanes kernel is faster
  // (docs/runtime.md, twenty-second session).
  if (s.sw >= 2 && hasVbmi() &&
      (s.kh == 3 && s.kw <= 4 ? qconvDepthwisePlanes<3, 1>(q, bf, tile)
                              : qconvDepthwisePlanes<0, 0>(q, bf, tile)))
    return;
  if (exactFloat && hasAvx512() && qconvDepthwiseLanes(q, bf, tile))
    return;
  if (exactFloat && (s.sw == 1 || s.sw == 2) && hasAvx512())
    return qconvDepthwiseAvx512(q, bf, tile);
#endif
  thread_local std::vector<float> planeF;
  thread_local std::vector<int16_t> plane;
  thread_local std::vector<int32_t> accq, acc;
  thread_local std::vector<float> accF;
  const int64_t planeSize = s.sh * s.sw * phase + wps + nqPad;
  if (exactFloat)
    growScratch(planeF, planeSize);
  else
    growScratch(plane, planeSize);
  growScratch(accq, nqPad + 16);
  growScratch(accF, nqPad + 16);
  growScratch(acc, P);
  std::vector<int64_t> off = tapOffsets(s, phase, wps);
  int64_t builtFor = -1;
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t img = r / s.oc, o = r % s.oc, g = o / ocg;
    if (exactFloat)
      std::fill_n(accF.data(), nqPad, 0.f);
    else
      std::fill_n(accq.data(), nqPad, 0);
    for (int64_t ic = 0; ic < icg; ++ic) {
      int64_t ch = img * s.c + g * icg + ic;
      if (builtFor != ch) {
        // Depthwise with a multiplier reuses the plane across its outputs.
        const uint8_t *x = bf.x + ch * s.h * s.w;
        for (int64_t fy = 0; fy < s.sh; ++fy)
          for (int64_t fx = 0; fx < s.sw; ++fx)
            for (int64_t Y = 0; Y < hps; ++Y) {
              int64_t rowAt = (fy * s.sw + fx) * phase + Y * wps;
              int64_t iy = Y * s.sh + fy - s.ph;
              int64_t first = fx - s.pw; // input column of X = 0
              int64_t lo = 0, hi = 0;
              const uint8_t *xs = x + iy * s.w + first;
              if (iy >= 0 && iy < s.h) {
                lo = std::clamp<int64_t>(
                    first >= 0 ? 0 : (-first + s.sw - 1) / s.sw, 0, wps);
                hi = std::clamp<int64_t>((s.w - first + s.sw - 1) / s.sw,
                                         lo, wps);
              }
              auto fill = [&](auto *row, auto padValue) {
                using T = std::remove_reference_t<decltype(*row)>;
                std::fill_n(row, lo, padValue);
                // Constant strides, so the compiler vectorizes the gather.
                if (s.sw == 1)
                  for (int64_t X = lo; X < hi; ++X)
                    row[X] = (T)((xs[X] ^ flip) & 0xff);
                else if (s.sw == 2)
                  for (int64_t X = lo; X < hi; ++X)
                    row[X] = (T)((xs[2 * X] ^ flip) & 0xff);
                else
                  for (int64_t X = lo; X < hi; ++X)
                    row[X] = (T)((xs[X * s.sw] ^ flip) & 0xff);
                std::fill(row + hi, row + wps, padValue);
              };
              if (exactFloat) {
#if AMK_QCONV_X86
                if (hasAvx512() && s.sw <= 2) {
                  float *row = planeF.data() + rowAt;
                  std::fill_n(row, lo, (float)pad);
                  widenRowAvx512(xs, lo, hi, s.sw, (uint8_t)flip, row);
                  std::fill(row + hi, row + wps, (float)pad);
                  continue;
                }
#endif
                fill(planeF.data() + rowAt, (float)pad);
              } else
                fill(plane.data() + rowAt, pad);
            }
        builtFor = ch;
      }
      const int8_t *wk = bf.w + o * q.kdepth + ic * s.kh * s.kw;
      const int64_t taps = s.kh * s.kw;
      if (exactFloat) {
        float wf[64 * 4];
        std::vector<float> bigW;
        float *wt = wf;
        if (taps > 256) {
          bigW.resize(taps);
          wt = bigW.data();
        }
        for (int64_t t = 0; t < taps; ++t)
          wt[t] = (float)wk[t];
        const float *pl = planeF.data();
        // Four independent sums: one chain of FMAs per vector waited on
        // each FMA's latency and ran at a quarter of the rate.
        for (int64_t q0 = 0; q0 < nq; q0 += 64) {
          float *af = accF.data() + q0;
          V16 a0 = loadV16(af), a1 = loadV16(af + 16), a2 = loadV16(af + 32),
              a3 = loadV16(af + 48);
          for (int64_t t = 0; t < taps; ++t) {
            const float *pt = pl + q0 + off[t];
            float w = wt[t];
            a0 += loadV16(pt) * w;
            a1 += loadV16(pt + 16) * w;
            a2 += loadV16(pt + 32) * w;
            a3 += loadV16(pt + 48) * w;
          }
          std::memcpy(af, &a0, sizeof(a0));
          std::memcpy(af + 16, &a1, sizeof(a1));
          std::memcpy(af + 32, &a2, sizeof(a2));
          std::memcpy(af + 48, &a3, sizeof(a3));
        }
        continue;
      }
      int32_t *dst = accq.data();
      for (int64_t t = 0; t < taps; ++t) {
        int16_t wv = wk[t];
        const int16_t *src = plane.data() + off[t];
        for (int64_t i = 0; i < nq; ++i)
          dst[i] += (int16_t)(src[i] * wv);
      }
    }
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      int32_t *out = acc.data() + oy * s.ow;
      if (exactFloat) {
        const float *in = accF.data() + oy * wps;
        for (int64_t ox = 0; ox < s.ow; ++ox)
          out[ox] = (int32_t)in[ox];
      } else {
        std::memcpy(out, accq.data() + oy * wps, s.ow * sizeof(int32_t));
      }
    }
    epilogue(q, bf, acc.data(), P, o, r * P);
  }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_QCONV>::run(const KernelCall &call,
                                     const int64_t *tile, std::string &) {
  if (call.kernel->variant == 2)
    qconvBlockedTile(call, tile);
  else if (call.kernel->variant == 1)
    qconvGemmTile(call, tile);
  else
    qconvDirectTile(call, tile);
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_QCONV>::check(const amk_rt_kernel &k,
                                       const int64_t *ip, const float *,
                                       std::string &error) {
  if (!hasParams(k, AMK_QC_NUM_IPARAMS, AMK_QC_NUM_FPARAMS, error) ||
      k.num_buffers < 7)
    return false;
  auto bad = [&](const char *what) {
    error = "kernel '" + std::string(k.name ? k.name : "") + "': qconv " + what;
    return false;
  };
  int64_t y = ip[AMK_QC_Y_DTYPE], z = ip[AMK_QC_Z_DTYPE];
  if (y != AMK_RT_U8 && y != AMK_RT_I8 && y != AMK_RT_F32 && y != AMK_RT_I32)
    return bad("stores uint8, int8, float32 or int32 only");
  if (z != 0 && z != AMK_RT_U8 && z != AMK_RT_I8)
    return bad("reads a uint8 or int8 residual only");
  if (ip[AMK_SP_GROUP] < 1 || ip[AMK_SP_C] % ip[AMK_SP_GROUP] ||
      ip[AMK_SP_OC] % ip[AMK_SP_GROUP])
    return bad("needs channels divisible by the group count");
  int64_t K = ip[AMK_SP_C] / ip[AMK_SP_GROUP] * ip[AMK_SP_KH] * ip[AMK_SP_KW];
  if (ip[AMK_QC_KDEPTH] < K || ip[AMK_QC_KDEPTH] % 4)
    return bad("needs the reduction depth rounded up to 4");
  if (k.variant >= 1 && ip[AMK_SP_GROUP] != 1)
    return bad("variants 1 and 2 need group 1");
  if (k.variant == 2 && ip[AMK_QC_KDEPTH] != (ip[AMK_SP_C] + 3) / 4 * 4 *
                                                  ip[AMK_SP_KH] * ip[AMK_SP_KW])
    return bad("variant 2 needs the channels rounded up to 4");
  return true;
}

} // namespace amk::rt
