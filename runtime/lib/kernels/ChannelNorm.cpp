//===- ChannelNorm.cpp - InstanceNormalization, LRN -----------------------===//
//
// Part of AMK. Per-plane and across-channel normalizations of [N, C, S]
// (kernel_params.h); one row is one (n, c) plane.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace amk::rt {

template <>
bool KernelImpl<AMK_RT_K_INSTANCE_NORM>::run(const KernelCall &call,
                                             const int64_t *tile,
                                             std::string &) {
  int64_t C = call.ip[AMK_CN_C], S = call.ip[AMK_CN_S];
  const float *X = static_cast<const float *>(call.buffers[0]);
  const float *scale = static_cast<const float *>(call.buffers[1]);
  const float *bias = static_cast<const float *>(call.buffers[2]);
  float *Y = static_cast<float *>(call.buffers[3]);
  double eps = call.fp[0];
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    const float *x = X + r * S;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < S; ++i)
      mean += x[i];
    mean /= (double)S;
    for (int64_t i = 0; i < S; ++i)
      var += (x[i] - mean) * (x[i] - mean);
    var /= (double)S;
    int64_t c = r % C;
    double a = scale[c] / std::sqrt(var + eps), b = bias[c] - mean * a;
    for (int64_t i = 0; i < S; ++i)
      Y[r * S + i] = (float)(x[i] * a + b);
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_INSTANCE_NORM>::check(const amk_rt_kernel &k,
                                               const int64_t *ip,
                                               const float *,
                                               std::string &error) {
  if (!hasParams(k, 3, 1, error))
    return false;
  if (k.num_buffers != 4 || ip[AMK_CN_C] < 1 || ip[AMK_CN_S] < 1) {
    error = "bad instance normalization parameters";
    return false;
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_LRN>::run(const KernelCall &call, const int64_t *tile,
                                   std::string &) {
  int64_t C = call.ip[AMK_CN_C], S = call.ip[AMK_CN_S],
          size = call.ip[AMK_CN_SIZE];
  const float *X = static_cast<const float *>(call.buffers[0]);
  float *Y = static_cast<float *>(call.buffers[1]);
  double alpha = call.fp[0], beta = call.fp[1], bias = call.fp[2];
  // The window: channels c - floor((size-1)/2) .. c + ceil((size-1)/2).
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t n = r / C, c = r % C;
    int64_t c0 = std::max<int64_t>(0, c - before),
            c1 = std::min<int64_t>(C - 1, c + after);
    for (int64_t i = 0; i < S; ++i) {
      double sq = 0;
      for (int64_t k = c0; k <= c1; ++k) {
        double v = X[(n * C + k) * S + i];
        sq += v * v;
      }
      Y[r * S + i] = (float)(X[r * S + i] /
                             std::pow(bias + alpha / size * sq, beta));
    }
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_LRN>::check(const amk_rt_kernel &k, const int64_t *ip,
                                     const float *, std::string &error) {
  if (!hasParams(k, 4, 3, error))
    return false;
  if (k.num_buffers != 2 || ip[AMK_CN_C] < 1 || ip[AMK_CN_SIZE] < 1) {
    error = "bad LRN parameters";
    return false;
  }
  return true;
}

} // namespace amk::rt
