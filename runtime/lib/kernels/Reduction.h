//===- Reduction.h - One reduction over a run of values ---------*- C++ -*-===//
//
// Part of AMK. The reductions POOL's modes 5-10 and REDUCE share (modes of
// kernel_params.h), in double: `forEach(f)` calls f on each value, twice
// for log-sum-exp (the maximum first, so the exponentials cannot
// overflow).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELS_REDUCTION_H
#define AMK_RUNTIME_KERNELS_REDUCTION_H

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace amk::rt {

template <typename ForEach> double reduceValues(int64_t mode, ForEach forEach) {
  double shift = 0;
  if (mode == AMK_POOL_LOG_SUM_EXP) {
    shift = -INFINITY;
    forEach([&](double v) { shift = std::max(shift, v); });
    if (!std::isfinite(shift))
      shift = 0;
  }
  double acc = mode == 0               ? -INFINITY
               : mode == 4             ? INFINITY
               : mode == AMK_POOL_PROD ? 1
                                       : 0;
  int64_t count = 0;
  forEach([&](double v) {
    ++count;
    switch (mode) {
    case 0: // max; NaN wins
      acc = std::isnan(v) || std::isnan(acc) ? NAN : std::max(acc, v);
      break;
    case 4: // min
      acc = std::isnan(v) || std::isnan(acc) ? NAN : std::min(acc, v);
      break;
    case AMK_POOL_L1:
      acc += std::fabs(v);
      break;
    case AMK_POOL_L2:
    case AMK_POOL_SUM_SQUARE:
      acc += v * v;
      break;
    case AMK_POOL_LOG_SUM_EXP:
      acc += std::exp(v - shift);
      break;
    case AMK_POOL_PROD:
      acc *= v;
      break;
    default: // mean, sum, log-sum
      acc += v;
    }
  });
  if (mode == 2)
    acc /= (double)count;
  else if (mode == AMK_POOL_L2)
    acc = std::sqrt(acc);
  else if (mode == AMK_POOL_LOG_SUM)
    acc = std::log(acc);
  else if (mode == AMK_POOL_LOG_SUM_EXP)
    acc = std::log(acc) + shift;
  return acc;
}

} // namespace amk::rt

#endif // AMK_RUNTIME_KERNELS_REDUCTION_H
