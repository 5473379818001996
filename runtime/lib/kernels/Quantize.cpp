//===- Quantize.cpp - QuantizeLinear and DequantizeLinear ------------------===//
//
// Part of AMK. QUANTIZE (kernel_params.h): the Q and DQ ops that stay at
// the edges of the integer regions (graph inputs and outputs, float-only
// consumers). Quantization divides by the scale, as ONNX specifies,
// rather than multiplying by its reciprocal, so the result equals the
// reference interpreter's bit for bit.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Vnni.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace amk::rt {

namespace {

bool quantType(int64_t d) {
  return d == AMK_RT_U8 || d == AMK_RT_I8 || d == AMK_RT_U16 ||
         d == AMK_RT_I16 || d == AMK_RT_I32;
}

template <typename T> int64_t readInt(const void *p, int64_t i) {
  return static_cast<const T *>(p)[i];
}

int64_t intAt(const void *p, int64_t dtype, int64_t i) {
  switch (dtype) {
  case AMK_RT_U8:
    return readInt<uint8_t>(p, i);
  case AMK_RT_I8:
    return readInt<int8_t>(p, i);
  case AMK_RT_U16:
    return readInt<uint16_t>(p, i);
  case AMK_RT_I16:
    return readInt<int16_t>(p, i);
  default:
    return readInt<int32_t>(p, i);
  }
}

/// Quantizes elements [begin, end) into T, within T's range. 8- and
/// 16-bit results are computed in float (exact: |v| < 2^24), so the loop
/// vectorizes; int32 in double.
template <typename T>
void quantize(const float *x, const float *s, const void *z, int64_t zType,
              T *y, int64_t axisDim, int64_t inner, int64_t begin,
              int64_t end) {
  using C = std::conditional_t<sizeof(T) <= 2, float, double>;
  const C lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  for (int64_t i = begin; i < end;) {
    int64_t c = (i / inner) % axisDim;
    int64_t run = std::min(end, (i / inner + 1) * inner) - i;
    float scale = s[c];
    C zp = z ? (C)intAt(z, zType, c) : C(0);
    for (int64_t j = i; j < i + run; ++j) {
      C v = (C)__builtin_roundevenf(x[j] / scale) + zp;
      y[j] = static_cast<T>(std::min(std::max(v, lo), hi));
    }
    i += run;
  }
}

/// The scale and zero point entry of element i under blocked quantization
/// (AMK_QUANT_BLOCK).
inline int64_t blockEntry(int64_t i, int64_t axisDim, int64_t inner,
                          int64_t block) {
  const int64_t blocks = (axisDim + block - 1) / block;
  const int64_t o = i / (axisDim * inner), a = (i / inner) % axisDim,
                j = i % inner;
  return (o * blocks + a / block) * inner + j;
}

/// QuantizeLinear with blocked scales: one scale per element, so a plain
/// loop (opset 21's blocked form is rare outside weights, which the
/// weight-only kernels take before they get here).
template <typename T>
void quantizeBlocked(const float *x, const float *s, const void *z,
                     int64_t zType, T *y, int64_t axisDim, int64_t inner,
                     int64_t block, int64_t begin, int64_t end) {
  using C = std::conditional_t<sizeof(T) <= 2, float, double>;
  const C lo = std::numeric_limits<T>::min(),
          hi = std::numeric_limits<T>::max();
  for (int64_t i = begin; i < end; ++i) {
    const int64_t e = blockEntry(i, axisDim, inner, block);
    C v = (C)__builtin_roundevenf(x[i] / s[e]) +
          (z ? (C)intAt(z, zType, e) : C(0));
    y[i] = static_cast<T>(std::min(std::max(v, lo), hi));
  }
}

template <typename T>
void dequantizeBlocked(const T *x, const float *s, const void *z, int64_t zType,
                       float *y, int64_t axisDim, int64_t inner, int64_t block,
                       int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    const int64_t e = blockEntry(i, axisDim, inner, block);
    y[i] = (float)((int64_t)x[i] - (z ? intAt(z, zType, e) : 0)) * s[e];
  }
}

template <typename T>
void dequantize(const T *x, const float *s, const void *z, int64_t zType,
                float *y, int64_t axisDim, int64_t inner, int64_t begin,
                int64_t end) {
  for (int64_t i = begin; i < end;) {
    int64_t c = (i / inner) % axisDim;
    int64_t run = std::min(end, (i / inner + 1) * inner) - i;
    float scale = s[c];
    int64_t zp = z ? intAt(z, zType, c) : 0;
    for (int64_t j = i; j < i + run; ++j)
      y[j] = (float)((int64_t)x[j] - zp) * scale;
    i += run;
  }
}

#if defined(__x86_64__)
/// Sixteen 8-bit values widened to 32 bits. A helper, not a lambda: clang
/// does not give lambdas their enclosing function's target features.
template <typename T>
__attribute__((target("avx512f,avx512bw,avx512vl"),
               always_inline)) inline __m512i
widenBytes(__m128i v) {
  if constexpr (std::is_signed_v<T>)
    return _mm512_cvtepi8_epi32(v);
  else
    return _mm512_cvtepu8_epi32(v);
}

#endif

/// One row of quantized Add or Mul (variants 2 and 3): n outputs reading
/// A and B at element strides sa and sb (0: one value repeated). Each step
/// is the float operation the QDQ graph's kernels do, in the same order,
/// so the result is theirs bit for bit; separate statements, so that no
/// multiply-add is contracted, and a division by the output scale, not a
/// reciprocal.
template <typename TA, typename TY>
void qbinaryRowPortable(const TA *a, int64_t sa, const TA *b, int64_t sb, TY *y,
                        int64_t n, const float *fp, const int64_t *ip,
                        bool mul) {
  const float lo = std::numeric_limits<TY>::lowest(),
              hi = std::numeric_limits<TY>::max();
  const int32_t za = (int32_t)ip[AMK_QADD_ZA], zb = (int32_t)ip[AMK_QADD_ZB];
  const float zy = (float)ip[AMK_QADD_ZY];
  const bool relu = ip[AMK_QADD_RELU] != 0;
  for (int64_t i = 0; i < n; ++i) {
    float fa = (float)((int32_t)a[i * sa] - za);
    fa = fa * fp[AMK_QADD_SA];
    float fb = (float)((int32_t)b[i * sb] - zb);
    fb = fb * fp[AMK_QADD_SB];
    float v;
    if (mul)
      v = fa * fb;
    else
      v = fa + fb;
    if (relu)
      v = v < 0.f ? 0.f : v;
    if constexpr (std::is_same_v<TY, float>) {
      y[i] = v;
      continue;
    }
    float r = __builtin_roundevenf(v / fp[AMK_QADD_SY]);
    r = r + zy;
    y[i] = static_cast<TY>(std::min(std::max(r, lo), hi));
  }
}

#if defined(__x86_64__)
/// The same on 16 lanes, for unit or zero strides.
template <typename TA, typename TY>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
qbinaryRowAvx512(const TA *a, int64_t sa, const TA *b, int64_t sb, TY *y,
                 int64_t n, const float *fp, const int64_t *ip, bool mul) {
  const __m512 vsa = _mm512_set1_ps(fp[AMK_QADD_SA]),
               vsb = _mm512_set1_ps(fp[AMK_QADD_SB]),
               vsy = _mm512_set1_ps(fp[AMK_QADD_SY]),
               vzy = _mm512_set1_ps((float)ip[AMK_QADD_ZY]),
               lo = _mm512_set1_ps(std::numeric_limits<TY>::lowest()),
               hi = _mm512_set1_ps(std::numeric_limits<TY>::max()),
               zero = _mm512_setzero_ps();
  const __m512i vza = _mm512_set1_epi32((int32_t)ip[AMK_QADD_ZA]),
                vzb = _mm512_set1_epi32((int32_t)ip[AMK_QADD_ZB]);
  const bool relu = ip[AMK_QADD_RELU] != 0;
  // A repeated operand is dequantized once.
  const __m512 fa0 = _mm512_mul_ps(
      _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_set1_epi32(a[0]), vza)), vsa);
  const __m512 fb0 = _mm512_mul_ps(
      _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_set1_epi32(b[0]), vzb)), vsb);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m =
        n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
    __m512 fa =
        sa == 0 ? fa0
                : _mm512_mul_ps(
                      _mm512_cvtepi32_ps(_mm512_sub_epi32(
                          widenBytes<TA>(_mm_maskz_loadu_epi8(m, a + i)), vza)),
                      vsa);
    __m512 fb =
        sb == 0 ? fb0
                : _mm512_mul_ps(
                      _mm512_cvtepi32_ps(_mm512_sub_epi32(
                          widenBytes<TA>(_mm_maskz_loadu_epi8(m, b + i)), vzb)),
                      vsb);
    __m512 v = mul ? _mm512_mul_ps(fa, fb) : _mm512_add_ps(fa, fb);
    if (relu)
      v = _mm512_max_ps(v, zero);
    if constexpr (std::is_same_v<TY, float>) {
      _mm512_mask_storeu_ps(y + i, m, v);
      continue;
    }
    __m512 r = _mm512_add_ps(
        _mm512_roundscale_ps(_mm512_div_ps(v, vsy),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
        vzy);
    r = _mm512_min_ps(_mm512_max_ps(r, lo), hi);
    _mm_mask_storeu_epi8(y + i, m, _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(r)));
  }
}

/// Table lookup (variant 4) of 64 bytes a step: two two-source byte
/// permutes cover the table's halves, the index's top bit picks one.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void
tableVbmi(const uint8_t *x, const uint8_t *t, uint8_t *y, uint8_t flip,
          int64_t begin, int64_t end) {
  const __m512i t0 = _mm512_loadu_si512(t), t1 = _mm512_loadu_si512(t + 64),
                t2 = _mm512_loadu_si512(t + 128),
                t3 = _mm512_loadu_si512(t + 192),
                vf = _mm512_set1_epi8((char)flip);
  for (int64_t i = begin; i < end; i += 64) {
    const __mmask64 m =
        end - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (end - i)) - 1);
    __m512i v = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, x + i), vf);
    __m512i lo = _mm512_permutex2var_epi8(t0, v, t1);
    __m512i hi = _mm512_permutex2var_epi8(t2, v, t3);
    _mm512_mask_storeu_epi8(
        y + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), lo, hi));
  }
}
#endif

/// Variant 3 over Y's flat elements [begin, end): row by row of Y's last
/// (merged) dimension.
template <typename TA, typename TY>
void qbinary(const TA *a, const TA *b, TY *y, const float *fp,
             const int64_t *ip, int64_t begin, int64_t end) {
  const int64_t rank = ip[AMK_QBIN_RANK];
  const int64_t *dims = ip + AMK_QBIN_DIMS, *stA = dims + rank,
                *stB = stA + rank;
  const bool mul = ip[AMK_QBIN_OP] == AMK_QBIN_MUL;
  const int64_t inner = dims[rank - 1], sa = stA[rank - 1], sb = stB[rank - 1];
#if defined(__x86_64__)
  const bool vec = hasAvx512() && (sa == 0 || sa == 1) && (sb == 0 || sb == 1);
#endif
  for (int64_t e = begin; e < end;) {
    int64_t rem = e, offA = 0, offB = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t idx = rem % dims[d];
      rem /= dims[d];
      offA += idx * stA[d];
      offB += idx * stB[d];
    }
    const int64_t len = std::min(inner - e % inner, end - e);
#if defined(__x86_64__)
    if (vec) {
      qbinaryRowAvx512<TA, TY>(a + offA, sa, b + offB, sb, y + e, len, fp, ip,
                               mul);
      e += len;
      continue;
    }
#endif
    qbinaryRowPortable<TA, TY>(a + offA, sa, b + offB, sb, y + e, len, fp, ip,
                               mul);
    e += len;
  }
}

template <typename F> bool byIntType(int64_t dtype, F &&f) {
  switch (dtype) {
  case AMK_RT_U8:
    f(uint8_t());
    return true;
  case AMK_RT_I8:
    f(int8_t());
    return true;
  case AMK_RT_U16:
    f(uint16_t());
    return true;
  case AMK_RT_I16:
    f(int16_t());
    return true;
  case AMK_RT_I32:
    f(int32_t());
    return true;
  }
  return false;
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_QUANTIZE>::run(const KernelCall &call,
                                        const int64_t *tile,
                                        std::string &error) {
  const int64_t *ip = call.ip;
  const float *s = static_cast<const float *>(call.buffers[1]);
  const void *z = call.buffers[2];
  int64_t axisDim = ip[AMK_QUANT_AXIS_DIM], inner = ip[AMK_QUANT_INNER];
  bool ok;
  if (call.kernel->variant == AMK_QUANT_VARIANT_TABLE) {
    const uint8_t *x = static_cast<const uint8_t *>(call.buffers[0]);
    const uint8_t *t = static_cast<const uint8_t *>(call.buffers[1]);
    uint8_t *y = static_cast<uint8_t *>(call.buffers[3]);
    const uint8_t flip = ip[AMK_QUANT_X_DTYPE] == AMK_RT_I8 ? 0x80 : 0;
#if defined(__x86_64__)
    if (hasVbmi()) {
      tableVbmi(x, t, y, flip, tile[0], tile[1]);
      return true;
    }
#endif
    for (int64_t i = tile[0]; i < tile[1]; ++i)
      y[i] = t[x[i] ^ flip];
    return true;
  }
  if (call.kernel->variant == AMK_QUANT_VARIANT_ADD ||
      call.kernel->variant == AMK_QUANT_VARIANT_BINARY) {
    const float *fp = call.fp;
    const bool broadcast = call.kernel->variant == AMK_QUANT_VARIANT_BINARY;
    auto run = [&](auto ta, auto ty) {
      using TA = decltype(ta);
      using TY = decltype(ty);
      const TA *a = static_cast<const TA *>(call.buffers[0]);
      const TA *b = static_cast<const TA *>(call.buffers[1]);
      TY *y = static_cast<TY *>(call.buffers[3]);
      if (broadcast) {
        qbinary<TA, TY>(a, b, y, fp, ip, tile[0], tile[1]);
        return;
      }
      const int64_t t0 = tile[0], n = tile[1] - tile[0];
      if (n <= 0)
        return;
#if defined(__x86_64__)
      if (hasAvx512()) {
        qbinaryRowAvx512<TA, TY>(a + t0, 1, b + t0, 1, y + t0, n, fp, ip,
                                 false);
        return;
      }
#endif
      qbinaryRowPortable<TA, TY>(a + t0, 1, b + t0, 1, y + t0, n, fp, ip,
                                 false);
    };
    auto byY = [&](auto ta) {
      if (ip[AMK_QUANT_Y_DTYPE] == AMK_RT_U8)
        run(ta, uint8_t());
      else if (ip[AMK_QUANT_Y_DTYPE] == AMK_RT_I8)
        run(ta, int8_t());
      else
        run(ta, float());
    };
    if (ip[AMK_QUANT_X_DTYPE] == AMK_RT_U8)
      byY(uint8_t());
    else
      byY(int8_t());
    return true;
  }
  const int64_t block =
      call.kernel->num_iparams > AMK_QUANT_BLOCK ? ip[AMK_QUANT_BLOCK] : 0;
  if (call.kernel->variant == AMK_QUANT_VARIANT_Q) {
    int64_t yType = ip[AMK_QUANT_Y_DTYPE];
    ok = byIntType(yType, [&](auto t) {
      using T = decltype(t);
      const float *x = static_cast<const float *>(call.buffers[0]);
      T *y = static_cast<T *>(call.buffers[3]);
      if (block > 0)
        quantizeBlocked<T>(x, s, z, yType, y, axisDim, inner, block, tile[0],
                           tile[1]);
      else
        quantize<T>(x, s, z, yType, y, axisDim, inner, tile[0], tile[1]);
    });
  } else {
    int64_t xType = ip[AMK_QUANT_X_DTYPE];
    ok = byIntType(xType, [&](auto t) {
      using T = decltype(t);
      const T *x = static_cast<const T *>(call.buffers[0]);
      float *y = static_cast<float *>(call.buffers[3]);
      if (block > 0)
        dequantizeBlocked<T>(x, s, z, xType, y, axisDim, inner, block, tile[0],
                             tile[1]);
      else
        dequantize<T>(x, s, z, xType, y, axisDim, inner, tile[0], tile[1]);
    });
  }
  if (!ok)
    error = "quantize: unsupported integer type";
  return ok;
}

template <>
bool KernelImpl<AMK_RT_K_QUANTIZE>::check(const amk_rt_kernel &k,
                                          const int64_t *ip, const float *,
                                          std::string &error) {
  if (!hasParams(k, AMK_QUANT_NUM_IPARAMS, 0, error) || k.num_buffers < 4)
    return false;
  auto is8 = [](int64_t d) { return d == AMK_RT_U8 || d == AMK_RT_I8; };
  if (k.variant == AMK_QUANT_VARIANT_TABLE) {
    if (!is8(ip[AMK_QUANT_X_DTYPE]) || !is8(ip[AMK_QUANT_Y_DTYPE])) {
      error = "kernel '" + std::string(k.name ? k.name : "") +
              "': a table maps 8-bit integers to 8-bit integers";
      return false;
    }
    return true;
  }
  if (k.variant == AMK_QUANT_VARIANT_ADD ||
      k.variant == AMK_QUANT_VARIANT_BINARY) {
    if (!hasParams(k, AMK_QADD_NUM_IPARAMS, AMK_QADD_NUM_FPARAMS, error))
      return false;
    if (k.variant == AMK_QUANT_VARIANT_BINARY) {
      const int64_t rank =
          k.num_iparams > AMK_QBIN_RANK ? ip[AMK_QBIN_RANK] : 0;
      bool dimsOk = rank >= 1 && rank <= AMK_QBIN_MAX_RANK &&
                    k.num_iparams >= (uint32_t)(AMK_QBIN_DIMS + 3 * rank);
      for (int64_t d = 0; dimsOk && d < rank; ++d)
        dimsOk = ip[AMK_QBIN_DIMS + d] >= 1;
      if (!dimsOk) {
        error = "kernel '" + std::string(k.name ? k.name : "") +
                "': a broadcast quantized add or mul needs a rank of 1 to " +
                std::to_string(AMK_QBIN_MAX_RANK) +
                " with its positive dims and strides";
        return false;
      }
    }
    if (!is8(ip[AMK_QUANT_X_DTYPE]) ||
        (!is8(ip[AMK_QUANT_Y_DTYPE]) && ip[AMK_QUANT_Y_DTYPE] != AMK_RT_F32)) {
      error = "kernel '" + std::string(k.name ? k.name : "") +
              "': a quantized add takes 8-bit integers and makes 8-bit "
              "integers or float32";
      return false;
    }
    return true;
  }
  bool q = k.variant == AMK_QUANT_VARIANT_Q;
  int64_t intType = q ? ip[AMK_QUANT_Y_DTYPE] : ip[AMK_QUANT_X_DTYPE];
  int64_t floatType = q ? ip[AMK_QUANT_X_DTYPE] : ip[AMK_QUANT_Y_DTYPE];
  if (k.variant > AMK_QUANT_VARIANT_DQ || !quantType(intType) ||
      floatType != AMK_RT_F32 || ip[AMK_QUANT_AXIS_DIM] < 1 ||
      ip[AMK_QUANT_INNER] < 1 ||
      (k.num_iparams > AMK_QUANT_BLOCK && ip[AMK_QUANT_BLOCK] < 0)) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': quantize needs float32 and an 8-, 16- or 32-bit integer "
            "type, a positive axis size and inner size, and a block size "
            "of 0 or more";
    return false;
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_DYNAMIC_QUANTIZE>::run(const KernelCall &call,
                                                const int64_t *,
                                                std::string &) {
  const float *x = static_cast<const float *>(call.buffers[0]);
  uint8_t *y = static_cast<uint8_t *>(call.buffers[1]);
  int64_t n = call.ip[0];
  float mn = 0, mx = 0; // the range always includes zero
  for (int64_t i = 0; i < n; ++i) {
    mn = std::min(mn, x[i]);
    mx = std::max(mx, x[i]);
  }
  float scale = (float)(((double)mx - (double)mn) / 255.0);
  float zpf = scale == 0 ? 0.f : -mn / scale;
  float zp = std::clamp(__builtin_roundevenf(zpf), 0.f, 255.f);
  for (int64_t i = 0; i < n; ++i) {
    float v = scale == 0 ? zp : __builtin_roundevenf(x[i] / scale) + zp;
    y[i] = (uint8_t)(int)std::clamp(v, 0.f, 255.f);
  }
  *static_cast<float *>(call.buffers[2]) = scale;
  *static_cast<uint8_t *>(call.buffers[3]) = (uint8_t)(int)zp;
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_DYNAMIC_QUANTIZE>::check(const amk_rt_kernel &k,
                                                  const int64_t *,
                                                  const float *,
                                                  std::string &error) {
  return hasParams(k, 1, 0, error) && k.num_buffers >= 4;
}

} // namespace amk::rt
