//===- Loss.cpp - NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss ------===//
//
// Part of AMK. LOSS (kernel_params.h): the training losses ONNX exports
// put at the end of a graph. One task computes the whole loss in double
// (a sum over every sample), after the log-softmax for the cross entropy.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"
#include "amk/runtime.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace amk::rt {

template <>
bool KernelImpl<AMK_RT_K_LOSS>::run(const KernelCall &call, const int64_t *,
                                    std::string &error) {
  const int64_t *ip = call.ip;
  int64_t N = ip[AMK_LOSS_N], C = ip[AMK_LOSS_C], D = ip[AMK_LOSS_D];
  int64_t reduction = ip[AMK_LOSS_REDUCTION];
  bool hasIgnore = ip[AMK_LOSS_HAS_IGNORE] != 0;
  int64_t ignore = ip[AMK_LOSS_IGNORE_INDEX];
  const float *X = static_cast<const float *>(call.buffers[0]);
  const void *T = call.buffers[1];
  const float *W = static_cast<const float *>(call.buffers[2]);
  float *Y = static_cast<float *>(call.buffers[3]);
  float *LP = static_cast<float *>(call.buffers[4]);
  bool t32 = ip[AMK_LOSS_T_DTYPE] == AMK_RT_I32;
  bool sce = call.kernel->variant == AMK_LOSS_VARIANT_SCE;
  // The log-probabilities: X itself, or X's log-softmax over C.
  std::vector<float> own;
  const float *logp = X;
  if (sce) {
    float *dst = LP;
    if (!dst) {
      own.resize(N * C * D);
      dst = own.data();
    }
    for (int64_t n = 0; n < N; ++n)
      for (int64_t d = 0; d < D; ++d) {
        const float *x = X + n * C * D + d;
        double m = -std::numeric_limits<double>::infinity(), sum = 0;
        for (int64_t c = 0; c < C; ++c)
          m = std::max(m, (double)x[c * D]);
        for (int64_t c = 0; c < C; ++c)
          sum += std::exp((double)x[c * D] - m);
        double lse = m + std::log(sum);
        for (int64_t c = 0; c < C; ++c)
          dst[n * C * D + c * D + d] = (float)((double)x[c * D] - lse);
      }
    logp = dst;
  }
  double total = 0, weights = 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t d = 0; d < D; ++d) {
      int64_t i = n * D + d;
      int64_t t = t32 ? static_cast<const int32_t *>(T)[i]
                      : static_cast<const int64_t *>(T)[i];
      double loss = 0, w = 0;
      if (!(hasIgnore && t == ignore)) {
        if (t < 0 || t >= C) {
          error = "loss target " + std::to_string(t) +
                  " is out of range [0, " + std::to_string(C) + ")";
          return false;
        }
        w = W ? W[t] : 1.0;
        loss = -(double)logp[n * C * D + t * D + d] * w;
      }
      if (reduction == 0)
        Y[i] = (float)loss;
      total += loss;
      weights += w;
    }
  if (reduction == 1)
    Y[0] = (float)total;
  else if (reduction == 2)
    Y[0] = (float)(total / weights);
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_LOSS>::check(const amk_rt_kernel &k,
                                      const int64_t *ip, const float *,
                                      std::string &error) {
  if (!hasParams(k, AMK_LOSS_NUM_IPARAMS, 0, error))
    return false;
  if (k.num_buffers != 5 || k.variant > AMK_LOSS_VARIANT_SCE ||
      ip[AMK_LOSS_REDUCTION] < 0 || ip[AMK_LOSS_REDUCTION] > 2 ||
      (ip[AMK_LOSS_T_DTYPE] != AMK_RT_I32 &&
       ip[AMK_LOSS_T_DTYPE] != AMK_RT_I64) ||
      ip[AMK_LOSS_N] < 0 || ip[AMK_LOSS_C] < 1 || ip[AMK_LOSS_D] < 0) {
    error = "bad loss parameters (5 buffers, variant 0 or 1, reduction "
            "0-2, int32/int64 targets, C >= 1)";
    return false;
  }
  return true;
}

} // namespace amk::rt
