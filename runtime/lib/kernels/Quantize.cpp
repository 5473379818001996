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

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

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
  if (call.kernel->variant == AMK_QUANT_VARIANT_Q) {
    int64_t yType = ip[AMK_QUANT_Y_DTYPE];
    ok = byIntType(yType, [&](auto t) {
      using T = decltype(t);
      quantize<T>(static_cast<const float *>(call.buffers[0]), s, z, yType,
                  static_cast<T *>(call.buffers[3]), axisDim, inner, tile[0],
                  tile[1]);
    });
  } else {
    int64_t xType = ip[AMK_QUANT_X_DTYPE];
    ok = byIntType(xType, [&](auto t) {
      using T = decltype(t);
      dequantize<T>(static_cast<const T *>(call.buffers[0]), s, z, xType,
                    static_cast<float *>(call.buffers[3]), axisDim, inner,
                    tile[0], tile[1]);
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
  bool q = k.variant == AMK_QUANT_VARIANT_Q;
  int64_t intType = q ? ip[AMK_QUANT_Y_DTYPE] : ip[AMK_QUANT_X_DTYPE];
  int64_t floatType = q ? ip[AMK_QUANT_X_DTYPE] : ip[AMK_QUANT_Y_DTYPE];
  if (k.variant > AMK_QUANT_VARIANT_DQ || !quantType(intType) ||
      floatType != AMK_RT_F32 || ip[AMK_QUANT_AXIS_DIM] < 1 ||
      ip[AMK_QUANT_INNER] < 1) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': quantize needs float32 and an 8-, 16- or 32-bit integer "
            "type, and a positive axis size and inner size";
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
