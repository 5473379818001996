//===- GridSample.cpp - GridSample ----------------------------------------===//
//
// Part of AMK. GRID_SAMPLE (kernel_params.h), PyTorch's definition (which
// ONNX Runtime follows): a grid point is unnormalized, border and
// reflection padding move it inside before bilinear and nearest sampling,
// bicubic moves each of its 16 taps; zeros padding reads 0 outside.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace amk::rt {

namespace {

struct Sampler {
  int64_t H, W, padding;
  bool align;

  double unnormalize(double g, int64_t size) const {
    return align ? (g + 1) / 2 * (size - 1) : ((g + 1) * size - 1) / 2;
  }
  static double reflect(double x, double twiceLow, double twiceHigh) {
    if (twiceLow == twiceHigh)
      return 0;
    double lo = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
    x = std::fabs(x - lo);
    double extra = std::fmod(x, span);
    int64_t flips = (int64_t)std::floor(x / span);
    return flips % 2 == 0 ? extra + lo : span - extra + lo;
  }
  /// Border and reflection padding: a coordinate moved inside [0, size-1].
  double inside(double x, int64_t size) const {
    if (padding == 1)
      return std::clamp(x, 0.0, (double)(size - 1));
    if (padding == 2) {
      x = align ? reflect(x, 0, 2.0 * (size - 1))
                : reflect(x, -1, 2.0 * size - 1);
      return std::clamp(x, 0.0, (double)(size - 1));
    }
    return x;
  }
  float at(const float *x, int64_t iy, int64_t ix) const {
    if (iy < 0 || iy >= H || ix < 0 || ix >= W)
      return 0.f;
    return x[iy * W + ix];
  }
};

double cubic(double t, int k) { // weight of tap k (0..3) at fraction t
  const double A = -0.75;
  auto near = [&](double d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };
  auto far = [&](double d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };
  switch (k) {
  case 0:
    return far(t + 1);
  case 1:
    return near(t);
  case 2:
    return near(1 - t);
  default:
    return far(2 - t);
  }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_GRID_SAMPLE>::run(const KernelCall &call,
                                           const int64_t *tile,
                                           std::string &) {
  const int64_t *ip = call.ip;
  int64_t C = ip[AMK_GS_C], Ho = ip[AMK_GS_HO], Wo = ip[AMK_GS_WO],
          mode = ip[AMK_GS_MODE];
  Sampler s{ip[AMK_GS_H], ip[AMK_GS_W], ip[AMK_GS_PADDING],
            ip[AMK_GS_ALIGN] != 0};
  const float *X = static_cast<const float *>(call.buffers[0]);
  const float *G = static_cast<const float *>(call.buffers[1]);
  float *Y = static_cast<float *>(call.buffers[2]);
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t n = r / C;
    const float *x = X + r * s.H * s.W;
    const float *g = G + n * Ho * Wo * 2;
    float *y = Y + r * Ho * Wo;
    for (int64_t p = 0; p < Ho * Wo; ++p) {
      double fx = s.unnormalize(g[2 * p], s.W),
             fy = s.unnormalize(g[2 * p + 1], s.H);
      if (mode == 2) {
        double x0 = std::floor(fx), y0 = std::floor(fy);
        double tx = fx - x0, ty = fy - y0, acc = 0;
        for (int ky = 0; ky < 4; ++ky)
          for (int kx = 0; kx < 4; ++kx) {
            double cx = s.inside(x0 - 1 + kx, s.W),
                   cy = s.inside(y0 - 1 + ky, s.H);
            acc += cubic(tx, kx) * cubic(ty, ky) *
                   s.at(x, (int64_t)cy, (int64_t)cx);
          }
        y[p] = (float)acc;
        continue;
      }
      fx = s.inside(fx, s.W);
      fy = s.inside(fy, s.H);
      if (mode == 1) {
        y[p] = s.at(x, (int64_t)std::nearbyint(fy),
                    (int64_t)std::nearbyint(fx));
        continue;
      }
      double x0 = std::floor(fx), y0 = std::floor(fy);
      double tx = fx - x0, ty = fy - y0;
      int64_t ix = (int64_t)x0, iy = (int64_t)y0;
      y[p] = (float)((1 - ty) * ((1 - tx) * s.at(x, iy, ix) +
                                 tx * s.at(x, iy, ix + 1)) +
                     ty * ((1 - tx) * s.at(x, iy + 1, ix) +
                           tx * s.at(x, iy + 1, ix + 1)));
    }
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_GRID_SAMPLE>::check(const amk_rt_kernel &k,
                                             const int64_t *ip, const float *,
                                             std::string &error) {
  if (!hasParams(k, AMK_GS_NUM_IPARAMS, 0, error))
    return false;
  if (k.num_buffers != 3 || ip[AMK_GS_MODE] < 0 || ip[AMK_GS_MODE] > 2 ||
      ip[AMK_GS_PADDING] < 0 || ip[AMK_GS_PADDING] > 2 || ip[AMK_GS_H] < 1 ||
      ip[AMK_GS_W] < 1) {
    error = "bad grid sample parameters";
    return false;
  }
  return true;
}

} // namespace amk::rt
