//===- RoiAlign.cpp - RoiAlign --------------------------------------------===//
//
// Part of AMK. ROI_ALIGN (kernel_params.h): each row is one (region,
// channel) plane of the output; every output bin averages (or takes the
// maximum of) a grid of bilinear samples inside the region, as ONNX
// Runtime and the reference interpreter compute them, in double.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"
#include "amk/runtime.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace amk::rt {

template <>
bool KernelImpl<AMK_RT_K_ROI_ALIGN>::run(const KernelCall &call,
                                         const int64_t *tile,
                                         std::string &error) {
  const int64_t *ip = call.ip;
  int64_t N = ip[AMK_ROI_N], C = ip[AMK_ROI_C], H = ip[AMK_ROI_H],
          W = ip[AMK_ROI_W], oh = ip[AMK_ROI_HO], ow = ip[AMK_ROI_WO],
          ratio = ip[AMK_ROI_RATIO];
  bool isMax = ip[AMK_ROI_MAX] != 0, halfPixel = ip[AMK_ROI_HALF_PIXEL] != 0;
  const float *X = static_cast<const float *>(call.buffers[0]);
  const float *rois = static_cast<const float *>(call.buffers[1]);
  const void *batch = call.buffers[2];
  float *Y = static_cast<float *>(call.buffers[3]);
  double scale = call.fp[0], offset = halfPixel ? 0.5 : 0.0;
  for (int64_t row = tile[0]; row < tile[1]; ++row) {
    int64_t r = row / C, c = row % C;
    int64_t b = ip[AMK_ROI_IDX_DTYPE] == AMK_RT_I32
                    ? static_cast<const int32_t *>(batch)[r]
                    : static_cast<const int64_t *>(batch)[r];
    if (b < 0 || b >= N) {
      error = "RoiAlign batch index " + std::to_string(b) + " of region " +
              std::to_string(r) + " is out of range [0, " + std::to_string(N) +
              ")";
      return false;
    }
    const float *x = X + (b * C + c) * H * W;
    double x1 = rois[r * 4] * scale - offset,
           y1 = rois[r * 4 + 1] * scale - offset;
    double x2 = rois[r * 4 + 2] * scale - offset,
           y2 = rois[r * 4 + 3] * scale - offset;
    double rw = x2 - x1, rh = y2 - y1;
    if (!halfPixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    double bh = rh / oh, bw = rw / ow;
    int64_t gh = ratio > 0 ? ratio : (int64_t)std::ceil(rh / oh);
    int64_t gw = ratio > 0 ? ratio : (int64_t)std::ceil(rw / ow);
    int64_t count = std::max<int64_t>(gh * gw, 1);
    auto sample = [&](double yy, double xx, bool &valid) {
      valid = !(yy < -1.0 || yy > H || xx < -1.0 || xx > W);
      if (!valid)
        return 0.0;
      yy = std::max(yy, 0.0);
      xx = std::max(xx, 0.0);
      int64_t y0 = (int64_t)yy, x0 = (int64_t)xx, y1i = y0 + 1, x1i = x0 + 1;
      if (y0 >= H - 1) {
        y0 = y1i = H - 1;
        yy = (double)y0;
      }
      if (x0 >= W - 1) {
        x0 = x1i = W - 1;
        xx = (double)x0;
      }
      double ly = yy - y0, lx = xx - x0, hy = 1 - ly, hx = 1 - lx;
      double t[4] = {hy * hx * x[y0 * W + x0], hy * lx * x[y0 * W + x1i],
                     ly * hx * x[y1i * W + x0], ly * lx * x[y1i * W + x1i]};
      if (isMax)
        return std::max(std::max(t[0], t[1]), std::max(t[2], t[3]));
      return t[0] + t[1] + t[2] + t[3];
    };
    float *y = Y + row * oh * ow;
    for (int64_t ph = 0; ph < oh; ++ph)
      for (int64_t pw = 0; pw < ow; ++pw) {
        double acc = isMax ? -std::numeric_limits<double>::infinity() : 0;
        for (int64_t iy = 0; iy < gh; ++iy)
          for (int64_t ix = 0; ix < gw; ++ix) {
            double yy = y1 + ph * bh + (iy + 0.5) * bh / gh;
            double xx = x1 + pw * bw + (ix + 0.5) * bw / gw;
            bool valid;
            double v = sample(yy, xx, valid);
            acc = isMax ? std::max(acc, valid ? v : 0.0) : acc + v;
          }
        y[ph * ow + pw] = (float)(isMax ? acc : acc / count);
      }
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_ROI_ALIGN>::check(const amk_rt_kernel &k,
                                           const int64_t *ip, const float *,
                                           std::string &error) {
  if (!hasParams(k, AMK_ROI_NUM_IPARAMS, 1, error))
    return false;
  if (k.num_buffers != 4 || ip[AMK_ROI_H] < 1 || ip[AMK_ROI_W] < 1 ||
      ip[AMK_ROI_HO] < 1 || ip[AMK_ROI_WO] < 1 ||
      (ip[AMK_ROI_IDX_DTYPE] != AMK_RT_I32 &&
       ip[AMK_ROI_IDX_DTYPE] != AMK_RT_I64)) {
    error = "bad RoiAlign parameters (4 buffers, positive sizes, int32 or "
            "int64 batch indices)";
    return false;
  }
  return true;
}

} // namespace amk::rt
