//===- Softmax.cpp - Softmax ----------------------------------------------===//
//
// Part of AMK. SOFTMAX along one axis, row by row in two passes, the
// exponentials 16 lanes at a time.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/kernels/Softmax.h"
#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Vector.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace amk::rt {

/// The largest of n elements `stride` apart.
static float rowMax(const float *x, int64_t n, int64_t stride) {
  if (stride == 1)
    return maxFloats(x, n);
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i)
    m = std::max(m, x[i * stride]);
  return m;
}

void softmaxRow(float *y, const float *x, int64_t n, int64_t stride) {
  float m = rowMax(x, n, stride);
  // A probability that would be subnormal after the division by the sum
  // (at most n) is 0: masked positions (a mask of -10000 or -inf) would
  // otherwise feed subnormals to the next GEMM (attention's P V), which
  // runs 10-40x slower on them; such a term is below n * FLT_MIN.
  float cut = -87.f + std::log((float)std::max<int64_t>(n, 1));
  float sum = 0;
  if (stride == 1) {
    // Two passes: the exponentials 16 lanes at a time (the tail through
    // the same code in a padded buffer), then the sum in its own lanes.
    mapV16(x, y, n, [m, cut](V16 v) {
      V16 d = v - m;
      return d < cut ? 0.f : fastExpV(d);
    });
    sum = sumFloats(y, n);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      float d = x[i * stride] - m;
      y[i * stride] = d < cut ? 0.f : fastExpScalar(d);
      sum += y[i * stride];
    }
  }
  float inv = 1.f / sum;
  for (int64_t i = 0; i < n; ++i)
    y[i * stride] *= inv;
}

void logSoftmaxRow(float *y, const float *x, int64_t n, int64_t stride) {
  float m = rowMax(x, n, stride);
  // x - m - log(sum exp(x - m)): no exponential is taken of the result, so
  // a very negative log-probability stays finite (log(softmax) would be
  // log(0) = -inf there). The sum's error is the outputs' absolute error,
  // so it is taken with libm's exp, in double (the fast exponential's 1e-4
  // would show); log-softmax ends a network, it is not a hot loop.
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += std::exp((double)x[i * stride] - m);
  // (x - m) first: both may be large (1e4) where a float's step is 1e-3,
  // their difference is exact.
  float logSum = (float)std::log(sum);
  for (int64_t i = 0; i < n; ++i)
    y[i * stride] = (x[i * stride] - m) - logSum;
}

/// Hardmax: 1 at the row's first largest element, 0 elsewhere (a NaN is
/// never chosen over a number, as in ArgMax).
static void hardmaxRow(float *y, const float *x, int64_t n, int64_t stride) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i)
    if (x[i * stride] > x[best * stride] || std::isnan(x[best * stride]))
      best = i;
  for (int64_t i = 0; i < n; ++i)
    y[i * stride] = i == best ? 1.f : 0.f;
}

namespace {

void softmaxTile(const KernelCall &call, const int64_t *tile) {
  const float *X = static_cast<const float *>(call.buffers[0]);
  float *Y = static_cast<float *>(call.buffers[1]);
  int64_t axis = call.ip[AMK_SOFTMAX_AXIS], inner = call.ip[AMK_SOFTMAX_INNER];
  auto row = call.kernel->variant == AMK_SOFTMAX_VARIANT_LOG ? logSoftmaxRow
             : call.kernel->variant == AMK_SOFTMAX_VARIANT_HARDMAX
                 ? hardmaxRow
                 : softmaxRow;
  for (int64_t r = tile[0]; r < tile[1]; ++r)
    for (int64_t j = 0; j < inner; ++j)
      row(Y + r * axis * inner + j, X + r * axis * inner + j, axis, inner);
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_SOFTMAX>::run(const KernelCall &call,
                                       const int64_t *tile, std::string &) {
  softmaxTile(call, tile);
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_SOFTMAX>::check(const amk_rt_kernel &k,
                                         const int64_t *, const float *,
                                         std::string &error) {
  if (k.variant > AMK_SOFTMAX_VARIANT_HARDMAX) {
    error = "softmax variant " + std::to_string(k.variant) +
            " is not 0, 1 or 2";
    return false;
  }
  return hasParams(k, AMK_SOFTMAX_NUM_IPARAMS, 0, error);
}

} // namespace amk::rt
