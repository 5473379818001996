//===- Vector.h - Vector helpers shared by the kernels ----------*- C++ -*-===//
//
// Part of AMK. Sixteen-lane math, loads, stores and reductions that several
// kernel families use in their inner loops. They are defined inline here
// rather than in a .cpp so that every call inlines into the caller's loop:
// an out-of-line call per vector would cost more than the arithmetic it
// does.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELS_VECTOR_H
#define AMK_RUNTIME_KERNELS_VECTOR_H

#ifdef __AVX512F__
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace amk::rt {

/// Sixteen floats as one vector (GCC/Clang vector extension: one AVX-512
/// register, or split by the compiler on narrower targets).
typedef float V16 __attribute__((vector_size(64)));
typedef int32_t I16 __attribute__((vector_size(64)));

inline V16 loadV16(const float *p) {
  V16 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

/// 1 / x on 16 lanes: the 14-bit hardware estimate and one Newton step
/// (relative error about 2^-28, below float's rounding) instead of a
/// division, which costs ten times as much per vector.
inline V16 recipV(V16 x) {
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
inline V16 fastExpV(V16 x) {
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

/// fastExp for scalar loops that call it per element, where a call to the
/// out-of-line fastExp would cost more than the exponential.
inline float fastExpScalar(float x) {
  V16 v = fastExpV((V16){} + x);
  return v[0];
}

/// erf(|x|) by Abramowitz & Stegun 7.1.26 alone: absolute error <= 1.5e-7,
/// enough where erf is added to 1 (GELU), not near 0 on its own.
inline V16 erfAbsV(V16 a) {
  V16 t = recipV(1.f + 0.3275911f * a);
  V16 y =
      t * (0.254829592f +
           t * (-0.284496736f +
                t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  return 1.f - y * fastExpV(-a * a);
}

/// GELU(x) = x/2 (1 + erf(x / sqrt 2)) with erf(u) as u P(u^2) / Q(u^2),
/// |u| clamped to 3.925 (where erf is 1 to float precision): a rational
/// fit of degrees 11 and 10 made for AMK by utils/fit/erf_rational.py
/// (absolute error 2e-8 in exact arithmetic, about 4e-7 in float), 20
/// operations a vector against the
/// 35 of the reciprocal-and-exponential form, and no exponential to
/// underflow. erf's own kernel (fastErfV) keeps the relative accuracy near
/// 0 that GELU, which adds it to 1, does not need.
inline V16 geluV(V16 x) {
  // min/max return the bound for a NaN u; h below keeps the NaN.
  V16 u = __builtin_elementwise_max(
      __builtin_elementwise_min(x * 0.707106781f, (V16){} + 3.925f),
      (V16){} - 3.925f);
  V16 u2 = u * u;
  V16 p = u2 * 2.03053428e-06f + 0.000287418285f;
  p = p * u2 + 0.00387495045f;
  p = p * u2 + 0.0530800818f;
  p = p * u2 + 0.192946327f;
  p = p * u2 + 1.12837902f;
  V16 q = u2 * 3.80240442e-05f + 0.00118933321f;
  q = q * u2 + 0.0151856801f;
  q = q * u2 + 0.115155872f;
  q = q * u2 + 0.504325889f;
  q = q * u2 + 1.f;
  // q is in [1, 10] (u is clamped): the estimate and one Newton step
  // need none of recipV's guards.
#ifdef __AVX512F__
  V16 r = (V16)_mm512_rcp14_ps((__m512)q);
  r = r * (2.f - q * r);
#else
  V16 r = 1.f / q;
#endif
  V16 e = __builtin_elementwise_max(
      __builtin_elementwise_min(u * p * r, (V16){} + 1.f), (V16){} - 1.f);
  V16 h = 0.5f * x;
  return h + h * e;
}

/// erf with the Taylor series near 0, where a relative error matters.
inline V16 fastErfV(V16 x) {
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
inline V16 fastTanhV(V16 x) {
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
/// With AVX-512, from e = exp(-|x|): 1 / (1 + e) for x >= 0, e / (1 + e)
/// below, so the divisor lies in [1, 2] and the reciprocal estimate needs
/// no guards, and vscalefps applies 2^n, so the exponential needs no
/// integer exponent arithmetic or overflow clamp: about 23 operations a
/// vector instead of 33. SiLU (x * sigmoid x), EfficientNet-B0's
/// activation on every layer, went from 0.31 to 0.25 ns an element, the
/// largest relative error from 1.9e-7 to 2.9e-7 (one Taylor term fewer;
/// utils/bench/activation_rate.cpp).
inline V16 sigmoidV(V16 x) {
#ifdef __AVX512F__
  V16 a = __builtin_elementwise_abs(x);
  // exp(-88) is subnormal, so is every logistic it yields (flushed below);
  // a NaN fails the comparison and stays.
  a = a > 88.f ? 88.f : a;
  V16 n =
      (V16)_mm512_roundscale_ps((__m512)(a * -1.44269504f),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  V16 r = -a - n * 0.693145752f;
  r = r - n * 1.42860677e-6f;
  V16 p = r * (1.f / 720) + 1.f / 120;
  p = p * r + 1.f / 24;
  p = p * r + 1.f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  V16 e = (V16)_mm512_scalef_ps((__m512)p, (__m512)n);
  V16 d = 1.f + e;
  V16 q = (V16)_mm512_rcp14_ps((__m512)d);
  q = q * (2.f - d * q);
  V16 s = x < 0.f ? e * q : q;
#else
  V16 s = recipV(1.f + fastExpV(-x));
#endif
  return s < std::numeric_limits<float>::min() ? 0.f : s;
}

inline V16 loadV16(const float *p, int64_t n);
inline void storeV16(float *p, V16 v, int64_t n);

/// y[i] = f(x[i]) 16 lanes at a time; the tail goes through the same
/// vector code, zero-padded, so an element's result does not depend on
/// where its row or tile starts. x and y may be the same. The tail is a
/// masked load and store: as library copies of variable length it cost
/// more than the function on short rows (the convolution epilogues' 14
/// lanes).
template <typename F>
inline void mapV16(const float *x, float *y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    V16 v = f(loadV16(x + i));
    std::memcpy(y + i, &v, sizeof(v));
  }
  if (i < n)
    storeV16(y + i, f(loadV16(x + i, n - i)), n - i);
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

/// The first n <= 16 floats at p, zero beyond (a masked load: nothing past
/// p[n - 1] is read).
inline V16 loadV16(const float *p, int64_t n) {
  if (n == 16)
    return loadV16(p);
#ifdef __AVX512F__
  return (V16)_mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1), p);
#else
  float t[16] = {};
  std::memcpy(t, p, n * sizeof(float));
  return loadV16(t);
#endif
}

/// Lane i is x[start + i] where 0 <= start + i < n, else 0: a window of a
/// zero-padded row, read without a padded copy (a masked load: nothing
/// outside x[0..n) is read; masked-out lanes do not fault).
inline V16 loadV16Window(const float *x, int64_t n, int64_t start) {
  const int64_t lo = std::clamp<int64_t>(-start, 0, 16),
                hi = std::clamp<int64_t>(n - start, 0, 16);
  if (lo >= hi)
    return V16{};
#ifdef __AVX512F__
  const uint32_t mask = ((1u << hi) - 1) & ~((1u << lo) - 1);
  return (V16)_mm512_maskz_loadu_ps(
      (__mmask16)mask,
      reinterpret_cast<const float *>(reinterpret_cast<uintptr_t>(x) +
                                      start * (int64_t)sizeof(float)));
#else
  V16 v = {};
  for (int64_t i = lo; i < hi; ++i)
    v[i] = x[start + i];
  return v;
#endif
}

/// Stores the lanes of v whose bit is set in `mask`, lane i to x[start +
/// i]; start may be negative where the set lanes' addresses are not (the
/// address is formed as an integer, never as an out-of-range pointer).
inline void storeV16Lanes(float *x, int64_t start, V16 v, uint32_t mask) {
#ifdef __AVX512F__
  _mm512_mask_storeu_ps(
      reinterpret_cast<float *>(reinterpret_cast<uintptr_t>(x) +
                                start * (int64_t)sizeof(float)),
      (__mmask16)mask, (__m512)v);
#else
  for (int i = 0; i < 16; ++i)
    if (mask >> i & 1)
      x[start + i] = v[i];
#endif
}

/// v with the lanes whose bit is set in `mask` replaced by x[start + i]
/// (start as in storeV16Lanes).
inline V16 loadV16Lanes(V16 v, const float *x, int64_t start, uint32_t mask) {
#ifdef __AVX512F__
  return (V16)_mm512_mask_loadu_ps(
      (__m512)v, (__mmask16)mask,
      reinterpret_cast<const float *>(reinterpret_cast<uintptr_t>(x) +
                                      start * (int64_t)sizeof(float)));
#else
  for (int i = 0; i < 16; ++i)
    if (mask >> i & 1)
      v[i] = x[start + i];
  return v;
#endif
}

/// dst[0..n) = src[0..n) by vectors: the convolutions copy many short
/// rows (7 to 112 floats), where a library memcpy call costs more than the
/// copy.
inline void copyFloats(float *dst, const float *src, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    storeV16(dst + i, loadV16(src + i), 16);
  if (i < n)
    storeV16(dst + i, loadV16(src + i, n - i), n - i);
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

/// sum(a[i] * b[i]) in the fixed lane order of sumFloats: the dot
/// products of recurrences (a compiler keeps a scalar dot sequential).
inline float dotFloats(const float *a, const float *b, int64_t n) {
  V16 acc0 = {}, acc1 = {};
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    acc0 += loadV16(a + i) * loadV16(b + i);
    acc1 += loadV16(a + i + 16) * loadV16(b + i + 16);
  }
  for (; i + 16 <= n; i += 16)
    acc0 += loadV16(a + i) * loadV16(b + i);
  acc0 += acc1;
  float s = 0;
  for (int k = 0; k < 16; ++k)
    s += acc0[k];
  for (; i < n; ++i)
    s += a[i] * b[i];
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

} // namespace amk::rt

#endif // AMK_RUNTIME_KERNELS_VECTOR_H
