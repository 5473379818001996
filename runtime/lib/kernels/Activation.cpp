//===- Activation.cpp - Activations and fastExp ---------------------------===//
//
// Part of AMK. The unary functions that GEMM and convolution epilogues fuse
// and the elementwise interpreter runs. The transcendental ones use the
// polynomial vector code of Vector.h on 16 lanes, the tail included, so a
// result does not depend on where its row or tile starts.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/Scalar.h"
#include "runtime/lib/kernels/Vector.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>

namespace amk::rt {

float fastExp(float x) { return fastExpScalar(x); }

/// The transcendental activations, through mapV16.
template <int Op> static void unaryLoopV(float *x, int64_t n, float alpha) {
  auto f = [=](V16 v) -> V16 {
    if constexpr (Op == AMK_OP_SIGMOID)
      return sigmoidV(v);
    else if constexpr (Op == AMK_OP_TANH)
      return fastTanhV(v);
    else if constexpr (Op == AMK_OP_GELU)
      return geluV(v);
    else if constexpr (Op == AMK_OP_GELU_TANH)
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
  default:
    for (int64_t i = 0; i < n; ++i)
      x[i] = unaryScalar<float>(act, x[i], alpha, beta);
    return;
  }
}

} // namespace amk::rt
