//===- Dtypes.h - Element type conversions for kernels ----------*- C++ -*-===//
//
// Part of AMK. Loading any runtime element type (amk_rt_dtype) as a
// compute type and storing back, float16/bfloat16 rounded to nearest even,
// float to integer saturating instead of undefined: shared by the kernels
// that serve every type (TYPED_ELEMENTWISE, REDUCE, EINSUM).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELS_DTYPES_H
#define AMK_RUNTIME_KERNELS_DTYPES_H

#include "amk/runtime.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace amk::rt {

inline float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f,
           man = h & 0x3ff, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (man << 13);
  } else if (exp) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man) {
    // Subnormal: normalize into float's range.
    int shift = 0;
    while (!(man & 0x400)) {
      man <<= 1;
      ++shift;
    }
    bits = sign | ((uint32_t)(113 - shift) << 23) | ((man & 0x3ff) << 13);
  } else {
    bits = sign;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// float -> float16, rounding to nearest even (overflow to infinity).
inline uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = (x >> 16) & 0x8000;
  uint32_t ax = x & 0x7fffffff;
  if (ax >= 0x7f800000) // inf or NaN (a quiet NaN keeps a payload bit)
    return sign | 0x7c00 | (ax > 0x7f800000 ? 0x200 : 0);
  if (ax >= 0x477ff000) // rounds to >= 65520: infinity
    return sign | 0x7c00;
  if (ax < 0x38800000) { // below float16's smallest normal
    if (ax < 0x33000000) // below half the smallest subnormal
      return sign;
    uint32_t man = (ax & 0x7fffff) | 0x800000;
    int shift = 126 - (int)(ax >> 23); // 14..24
    uint32_t half = man >> shift, rest = man & ((1u << shift) - 1),
             mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return sign | (uint16_t)half;
  }
  uint32_t r = ax + 0xc8000fff + ((ax >> 13) & 1); // rebias, round to even
  return sign | (uint16_t)(r >> 13);
}

inline float bf16ToFloat(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return (uint16_t)((x >> 16) | 0x40); // quiet NaN
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

/// One element of `dtype` at `p` as the compute type C.
template <typename C>
inline C loadAs(const void *p, int64_t dtype, int64_t i) {
  switch (dtype) {
  case AMK_RT_F32:
    return (C) static_cast<const float *>(p)[i];
  case AMK_RT_F64:
    return (C) static_cast<const double *>(p)[i];
  case AMK_RT_F16:
    return (C)halfToFloat(static_cast<const uint16_t *>(p)[i]);
  case AMK_RT_BF16:
    return (C)bf16ToFloat(static_cast<const uint16_t *>(p)[i]);
  case AMK_RT_I64:
    return (C) static_cast<const int64_t *>(p)[i];
  case AMK_RT_U64:
    return (C) static_cast<const uint64_t *>(p)[i];
  case AMK_RT_I32:
    return (C) static_cast<const int32_t *>(p)[i];
  case AMK_RT_U32:
    return (C) static_cast<const uint32_t *>(p)[i];
  case AMK_RT_I16:
    return (C) static_cast<const int16_t *>(p)[i];
  case AMK_RT_U16:
    return (C) static_cast<const uint16_t *>(p)[i];
  case AMK_RT_I8:
    return (C) static_cast<const int8_t *>(p)[i];
  case AMK_RT_BOOL:
    return (C)(static_cast<const uint8_t *>(p)[i] != 0);
  default:
    return (C) static_cast<const uint8_t *>(p)[i];
  }
}

/// How a kernel that compares or copies elements reads a dtype: float32
/// as it is, other floats as double, integers as 64-bit integers.
enum class DtypeClass { F32, Float, Signed, Unsigned };
inline DtypeClass dtypeClass(int64_t dtype) {
  switch (dtype) {
  case AMK_RT_F32:
    return DtypeClass::F32;
  case AMK_RT_F64:
  case AMK_RT_F16:
  case AMK_RT_BF16:
    return DtypeClass::Float;
  case AMK_RT_I64:
  case AMK_RT_I32:
  case AMK_RT_I16:
  case AMK_RT_I8:
    return DtypeClass::Signed;
  default:
    return DtypeClass::Unsigned;
  }
}

/// Bytes of one element of `dtype`.
inline int64_t dtypeBytes(int64_t dtype) {
  switch (dtype) {
  case AMK_RT_F64:
  case AMK_RT_I64:
  case AMK_RT_U64:
    return 8;
  case AMK_RT_F32:
  case AMK_RT_I32:
  case AMK_RT_U32:
    return 4;
  case AMK_RT_F16:
  case AMK_RT_BF16:
  case AMK_RT_I16:
  case AMK_RT_U16:
    return 2;
  default:
    return 1;
  }
}

/// A double as a 64-bit integer the way x86's truncating conversion does
/// within range; NaN and out-of-range values saturate instead of being
/// undefined behaviour (ONNX leaves them unspecified).
inline int64_t truncToInt(double v) {
  if (std::isnan(v))
    return 0;
  if (v >= 9.2233720368547758e18)
    return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18)
    return std::numeric_limits<int64_t>::min();
  return (int64_t)v;
}

template <typename C> inline int64_t asInt(C v) {
  if constexpr (std::is_floating_point_v<C>)
    return truncToInt(v);
  else
    return (int64_t)v;
}

template <typename C> inline uint64_t asUint(C v) {
  if constexpr (std::is_floating_point_v<C>) {
    if (!(v > 0))
      return (uint64_t)truncToInt(v);
    return v >= 1.8446744073709552e19 ? std::numeric_limits<uint64_t>::max()
                                      : (uint64_t)v;
  } else {
    return (uint64_t)v;
  }
}

template <typename C>
inline void storeChunk(void *y, int64_t dtype, int64_t off, const C *v,
                       int64_t n) {
  switch (dtype) {
  case AMK_RT_F32:
    for (int64_t i = 0; i < n; ++i)
      static_cast<float *>(y)[off + i] = (float)v[i];
    return;
  case AMK_RT_F64:
    for (int64_t i = 0; i < n; ++i)
      static_cast<double *>(y)[off + i] = (double)v[i];
    return;
  case AMK_RT_F16:
    for (int64_t i = 0; i < n; ++i)
      static_cast<uint16_t *>(y)[off + i] = floatToHalf((float)v[i]);
    return;
  case AMK_RT_BF16:
    for (int64_t i = 0; i < n; ++i)
      static_cast<uint16_t *>(y)[off + i] = floatToBf16((float)v[i]);
    return;
  case AMK_RT_BOOL:
    for (int64_t i = 0; i < n; ++i)
      static_cast<uint8_t *>(y)[off + i] = v[i] != 0;
    return;
  case AMK_RT_I64:
    for (int64_t i = 0; i < n; ++i)
      static_cast<int64_t *>(y)[off + i] = asInt(v[i]);
    return;
  case AMK_RT_U64:
    for (int64_t i = 0; i < n; ++i)
      static_cast<uint64_t *>(y)[off + i] = asUint(v[i]);
    return;
  case AMK_RT_I32:
    for (int64_t i = 0; i < n; ++i)
      static_cast<int32_t *>(y)[off + i] = (int32_t)asInt(v[i]);
    return;
  case AMK_RT_U32:
    for (int64_t i = 0; i < n; ++i)
      static_cast<uint32_t *>(y)[off + i] = (uint32_t)asUint(v[i]);
    return;
  case AMK_RT_I16:
    for (int64_t i = 0; i < n; ++i)
      static_cast<int16_t *>(y)[off + i] = (int16_t)asInt(v[i]);
    return;
  case AMK_RT_U16:
    for (int64_t i = 0; i < n; ++i)
      static_cast<uint16_t *>(y)[off + i] = (uint16_t)asUint(v[i]);
    return;
  case AMK_RT_I8:
    for (int64_t i = 0; i < n; ++i)
      static_cast<int8_t *>(y)[off + i] = (int8_t)asInt(v[i]);
    return;
  default:
    for (int64_t i = 0; i < n; ++i)
      static_cast<uint8_t *>(y)[off + i] = (uint8_t)asUint(v[i]);
    return;
  }
}

inline bool knownDtype(int64_t t) {
  switch (t) {
  case AMK_RT_F32:
  case AMK_RT_F64:
  case AMK_RT_F16:
  case AMK_RT_BF16:
  case AMK_RT_I64:
  case AMK_RT_U64:
  case AMK_RT_I32:
  case AMK_RT_U32:
  case AMK_RT_I16:
  case AMK_RT_U16:
  case AMK_RT_I8:
  case AMK_RT_U8:
  case AMK_RT_BOOL:
    return true;
  }
  return false;
}

} // namespace amk::rt

#endif // AMK_RUNTIME_KERNELS_DTYPES_H
