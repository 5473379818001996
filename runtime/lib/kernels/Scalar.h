//===- Scalar.h - Unary and binary ops on one value -------------*- C++ -*-===//
//
// Part of AMK. Every amk_rt_op on one float or double with the exact
// library functions: the float interpreter's path for the rare ops (the hot
// ones have vector code in Activation.cpp) and TYPED_ELEMENTWISE's for all
// of them, so both compute what ONNX specifies the same way.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELS_SCALAR_H
#define AMK_RUNTIME_KERNELS_SCALAR_H

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace amk::rt {

/// Whether `op` is a unary amk_rt_op that unaryScalar computes.
inline bool isUnaryScalarOp(int64_t op) {
  return (op >= AMK_OP_RELU && op <= AMK_OP_SIN) ||
         (op >= AMK_OP_COS && op <= AMK_OP_ATANH);
}

/// Whether `op` is one the float32 register program (ELEMENTWISE) runs.
inline bool isFloatProgramOp(int64_t op) {
  return isUnaryScalarOp(op) || (op >= AMK_OP_ADD && op <= AMK_OP_PRELU) ||
         op == AMK_OP_CONST;
}

template <typename T> T unaryScalar(int64_t op, T x, T alpha, T beta) {
  switch (op) {
  case AMK_OP_RELU:
    return x > 0 ? x : 0;
  case AMK_OP_CLIP:
    return std::min(std::max(x, alpha), beta);
  case AMK_OP_LEAKY_RELU:
    return x >= 0 ? x : alpha * x;
  case AMK_OP_SIGMOID:
    return 1 / (1 + std::exp(-x));
  case AMK_OP_HARD_SWISH:
    return x * std::min<T>(std::max<T>(x / 6 + T(0.5), 0), 1);
  case AMK_OP_TANH:
    return std::tanh(x);
  case AMK_OP_GELU:
    return T(0.5) * x * (1 + std::erf(x * T(0.70710678118654752)));
  case AMK_OP_GELU_TANH:
    return T(0.5) * x *
           (1 + std::tanh(T(0.79788456080286536) *
                          (x + T(0.044715) * x * x * x)));
  case AMK_OP_QUICK_GELU:
    return x / (1 + std::exp(-alpha * x));
  case AMK_OP_NEG:
    return -x;
  case AMK_OP_EXP:
    return std::exp(x);
  case AMK_OP_LOG:
    return std::log(x);
  case AMK_OP_SQRT:
    return std::sqrt(x);
  case AMK_OP_ABS:
    return std::fabs(x);
  case AMK_OP_RECIPROCAL:
    return 1 / x;
  case AMK_OP_ERF:
    return std::erf(x);
  case AMK_OP_COPY:
    return x;
  case AMK_OP_FLOOR:
    return std::floor(x);
  case AMK_OP_CEIL:
    return std::ceil(x);
  case AMK_OP_HARD_SIGMOID:
    return std::min<T>(std::max<T>(alpha * x + beta, 0), 1);
  case AMK_OP_SOFTPLUS:
    return std::log1p(std::exp(x));
  case AMK_OP_ROUND:
    // The default rounding mode rounds halves to even, as ONNX's Round.
    return std::nearbyint(x);
  case AMK_OP_ELU:
    return x >= 0 ? x : alpha * std::expm1(x);
  case AMK_OP_SELU:
    return beta * (x > 0 ? x : alpha * std::expm1(x));
  case AMK_OP_CELU:
    return std::max<T>(0, x) +
           std::min<T>(0, alpha * std::expm1(x / alpha));
  case AMK_OP_SOFTSIGN:
    return x / (1 + std::fabs(x));
  case AMK_OP_THRESHOLDED_RELU:
    return x > alpha ? x : 0;
  case AMK_OP_SHRINK:
    return x < -beta ? x + alpha : x > beta ? x - alpha : 0;
  case AMK_OP_MISH:
    return x * std::tanh(std::log1p(std::exp(x)));
  case AMK_OP_SIGN:
    return x > 0 ? 1 : x < 0 ? -1 : x; // NaN and zeros stay
  case AMK_OP_SIN:
    return std::sin(x);
  case AMK_OP_COS:
    return std::cos(x);
  case AMK_OP_TAN:
    return std::tan(x);
  case AMK_OP_ASIN:
    return std::asin(x);
  case AMK_OP_ACOS:
    return std::acos(x);
  case AMK_OP_ATAN:
    return std::atan(x);
  case AMK_OP_SINH:
    return std::sinh(x);
  case AMK_OP_COSH:
    return std::cosh(x);
  case AMK_OP_ASINH:
    return std::asinh(x);
  case AMK_OP_ACOSH:
    return std::acosh(x);
  case AMK_OP_ATANH:
    return std::atanh(x);
  }
  return x;
}

} // namespace amk::rt

#endif // AMK_RUNTIME_KERNELS_SCALAR_H
