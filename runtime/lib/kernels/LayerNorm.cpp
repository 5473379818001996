//===- LayerNorm.cpp - Layer and RMS normalization ------------------------===//
//
// Part of AMK. LAYERNORM (and its RMS form) over the last axis, row by row:
// the mean and variance as 16-lane reductions, then one pass to normalize.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Vector.h"

#include "amk/kernel_params.h"

#include <cmath>
#include <string>

namespace amk::rt {

namespace {

void layerNormTile(const KernelCall &call, const int64_t *tile) {
  const float *X = static_cast<const float *>(call.buffers[0]);
  float *Y = static_cast<float *>(call.buffers[1]);
  const float *scale = static_cast<const float *>(call.buffers[2]);
  const float *bias = static_cast<const float *>(call.buffers[3]);
  // Optional: the mean and 1/sqrt(var + eps) of each row.
  float *Mean = call.kernel->num_buffers > 4
                    ? static_cast<float *>(call.buffers[4])
                    : nullptr;
  float *InvStd = call.kernel->num_buffers > 5
                      ? static_cast<float *>(call.buffers[5])
                      : nullptr;
  int64_t cols = call.ip[AMK_LN_COLS];
  bool rms = call.ip[AMK_LN_RMS];
  float eps = call.fp[0];
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    const float *x = X + r * cols;
    float *y = Y + r * cols;
    float mean = rms ? 0.f : sumFloats(x, cols) / (float)cols;
    float var = sumSquaredDiff(x, cols, mean) / (float)cols;
    float inv = 1.f / std::sqrt(var + eps);
    if (Mean)
      Mean[r] = mean;
    if (InvStd)
      InvStd[r] = inv;
    for (int64_t i = 0; i < cols; ++i) {
      float v = (x[i] - mean) * inv;
      if (scale)
        v *= scale[i];
      if (bias)
        v += bias[i];
      y[i] = v;
    }
  }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_LAYERNORM>::run(const KernelCall &call,
                                         const int64_t *tile, std::string &) {
  layerNormTile(call, tile);
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_LAYERNORM>::check(const amk_rt_kernel &k,
                                           const int64_t *, const float *,
                                           std::string &error) {
  return hasParams(k, AMK_LN_NUM_IPARAMS, 1, error) && k.num_buffers >= 4;
}

} // namespace amk::rt
