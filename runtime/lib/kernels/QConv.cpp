//===- QConv.cpp - Integer convolution -------------------------------------===//
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
// CPU reports the feature at run time; other CPUs run the same packed
// layout through portable loops.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/ConvCommon.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
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

struct QBuffers {
  const uint8_t *x;
  const int8_t *w;
  void *y;
  const int32_t *wz;
  const float *m, *b;
  const void *z;
  static QBuffers of(const KernelCall &call) {
    return {static_cast<const uint8_t *>(call.buffers[0]),
            static_cast<const int8_t *>(call.buffers[1]),
            call.buffers[2],
            static_cast<const int32_t *>(call.buffers[3]),
            static_cast<const float *>(call.buffers[4]),
            static_cast<const float *>(call.buffers[5]),
            call.buffers[6]};
  }
};

/// The epilogue of n outputs of channel `oc` (image-relative row offset
/// `at` into Y and Z): int32 sums to float, bias, residual, activation,
/// then float32 or requantized 8-bit. Written as plain loops over a small
/// float buffer so the compiler vectorizes each step.
void epilogue(const QParams &q, const QBuffers &bf, const int32_t *acc,
              int64_t n, int64_t oc, int64_t at) {
  float v[kNR];
  float m = bf.m[oc], b = bf.b[oc];
  int32_t wz = bf.wz[oc];
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

/// Packs pixels [p0, p0 + n) of one image as [K/4][kPixelBlock][4].
void packColumns(const QParams &q, const uint8_t *x, int64_t p0, int64_t n,
                 uint8_t *packed) {
  alignas(64) uint8_t rows[4][kPixelBlock];
  uint8_t flip = q.xSigned ? 0x80 : 0;
  for (int64_t k4 = 0; k4 < q.kdepth / 4; ++k4) {
    for (int j = 0; j < 4; ++j) {
      fillRow(q, x, 4 * k4 + j, p0, n, rows[j]);
      std::memset(rows[j] + n, 0, kPixelBlock - n);
    }
    uint8_t *dst = packed + k4 * kPixelBlock * 4;
#if AMK_QCONV_X86
    const __m128i f = _mm_set1_epi8((char)flip);
    for (int64_t p = 0; p < kPixelBlock; p += 16) {
      __m128i r0 = _mm_xor_si128(_mm_load_si128((const __m128i *)(rows[0] + p)), f);
      __m128i r1 = _mm_xor_si128(_mm_load_si128((const __m128i *)(rows[1] + p)), f);
      __m128i r2 = _mm_xor_si128(_mm_load_si128((const __m128i *)(rows[2] + p)), f);
      __m128i r3 = _mm_xor_si128(_mm_load_si128((const __m128i *)(rows[3] + p)), f);
      __m128i t0 = _mm_unpacklo_epi8(r0, r1), t1 = _mm_unpackhi_epi8(r0, r1);
      __m128i t2 = _mm_unpacklo_epi8(r2, r3), t3 = _mm_unpackhi_epi8(r2, r3);
      __m128i *o = (__m128i *)(dst + p * 4);
      _mm_storeu_si128(o + 0, _mm_unpacklo_epi16(t0, t2));
      _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(t0, t2));
      _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(t1, t3));
      _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(t1, t3));
    }
#else
    for (int64_t p = 0; p < kPixelBlock; ++p)
      for (int j = 0; j < 4; ++j)
        dst[p * 4 + j] = rows[j][p] ^ flip;
#endif
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
/// The same with vpdpbusd: 8 channels x 3 vectors of 16 pixels.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) void
microKernelVnni(const uint8_t *cols, const int8_t *w, int64_t k4s, int64_t c,
                int64_t, int32_t acc[kMR][kNR]) {
  __m512i a0[kMR], a1[kMR], a2[kMR];
  for (int64_t r = 0; r < kMR; ++r)
    a0[r] = a1[r] = a2[r] = _mm512_setzero_si512();
  const uint8_t *a = cols + c * 4;
  for (int64_t k4 = 0; k4 < k4s; ++k4) {
    __m512i x0 = _mm512_loadu_si512(a);
    __m512i x1 = _mm512_loadu_si512(a + 64);
    __m512i x2 = _mm512_loadu_si512(a + 128);
    const int32_t *b = reinterpret_cast<const int32_t *>(w + k4 * kMR * 4);
#pragma clang loop unroll(full)
    for (int64_t r = 0; r < kMR; ++r) {
      __m512i wb = _mm512_set1_epi32(b[r]);
      a0[r] = _mm512_dpbusd_epi32(a0[r], x0, wb);
      a1[r] = _mm512_dpbusd_epi32(a1[r], x1, wb);
      a2[r] = _mm512_dpbusd_epi32(a2[r], x2, wb);
    }
    a += kPixelBlock * 4;
  }
  for (int64_t r = 0; r < kMR; ++r) {
    _mm512_storeu_si512(acc[r], a0[r]);
    _mm512_storeu_si512(acc[r] + 16, a1[r]);
    _mm512_storeu_si512(acc[r] + 32, a2[r]);
  }
}

bool hasVnni() {
  static const bool has = __builtin_cpu_supports("avx512vnni") &&
                          __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl");
  return has;
}
#endif

/// Variant 1: implicit GEMM on packed weights.
void qconvGemmTile(const KernelCall &call, const int64_t *tile) {
  QParams q(call.ip, call.fp);
  QBuffers bf = QBuffers::of(call);
  const Spatial &s = q.s;
  int64_t P = s.oh * s.ow, k4s = q.kdepth / 4;
  thread_local std::vector<uint8_t> packed;
  packed.resize(k4s * kPixelBlock * 4 + 256);
  auto micro = microKernelPortable;
#if AMK_QCONV_X86
  if (hasVnni())
    micro = microKernelVnni;
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
        for (int64_t c = 0; c < pb; c += kNR) {
          int64_t n = std::min(kNR, pb - c);
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

/// Variant 0: direct loops for any group count.
void qconvDirectTile(const KernelCall &call, const int64_t *tile) {
  QParams q(call.ip, call.fp);
  QBuffers bf = QBuffers::of(call);
  const Spatial &s = q.s;
  int64_t icg = s.c / s.group, ocg = s.oc / s.group, P = s.oh * s.ow;
  int32_t flip = q.xSigned ? 128 : 0, pad = (int32_t)(uint8_t)q.xzp;
  std::vector<int32_t> acc(P);
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t img = r / s.oc, o = r % s.oc, g = o / ocg;
    std::fill(acc.begin(), acc.end(), 0);
    for (int64_t ic = 0; ic < icg; ++ic) {
      const uint8_t *x = bf.x + (img * s.c + g * icg + ic) * s.h * s.w;
      const int8_t *wk = bf.w + o * q.kdepth + ic * s.kh * s.kw;
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          int32_t wv = wk[ky * s.kw + kx];
          for (int64_t oy = 0; oy < s.oh; ++oy) {
            int64_t iy = oy * s.sh - s.ph + ky * s.dh;
            int32_t *ar = acc.data() + oy * s.ow;
            for (int64_t ox = 0; ox < s.ow; ++ox) {
              int64_t ix = ox * s.sw - s.pw + kx * s.dw;
              int32_t v = iy >= 0 && iy < s.h && ix >= 0 && ix < s.w
                              ? (int32_t)x[iy * s.w + ix]
                              : pad;
              ar[ox] += ((v ^ flip) & 0xff) * wv;
            }
          }
        }
    }
    for (int64_t p0 = 0; p0 < P; p0 += kNR)
      epilogue(q, bf, acc.data() + p0, std::min(kNR, P - p0), o, r * P + p0);
  }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_QCONV>::run(const KernelCall &call,
                                     const int64_t *tile, std::string &) {
  if (call.kernel->variant == 1)
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
  if (y != AMK_RT_U8 && y != AMK_RT_I8 && y != AMK_RT_F32)
    return bad("stores uint8, int8 or float32 only");
  if (z != 0 && z != AMK_RT_U8 && z != AMK_RT_I8)
    return bad("reads a uint8 or int8 residual only");
  if (ip[AMK_SP_GROUP] < 1 || ip[AMK_SP_C] % ip[AMK_SP_GROUP] ||
      ip[AMK_SP_OC] % ip[AMK_SP_GROUP])
    return bad("needs channels divisible by the group count");
  int64_t K = ip[AMK_SP_C] / ip[AMK_SP_GROUP] * ip[AMK_SP_KH] * ip[AMK_SP_KW];
  if (ip[AMK_QC_KDEPTH] < K || ip[AMK_QC_KDEPTH] % 4)
    return bad("needs the reduction depth rounded up to 4");
  if (k.variant == 1 && ip[AMK_SP_GROUP] != 1)
    return bad("variant 1 needs group 1");
  return true;
}

} // namespace amk::rt
