//===- NN.cpp - Resampling, RoI and unpooling ops -------------------------===//
//
// Part of AMK. Resize follows ONNX's reference algorithm: per axis, the
// output coordinate maps back to an input coordinate by the coordinate
// transformation mode; the n nearest input positions (ties to the lower
// index, edges replicated) are weighted by the mode's coefficients; axes
// combine separably.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include <vector>

using namespace mlir;

namespace amk::ref {
namespace {

/// One axis of a resampling: for every output position, the input indices
/// and their weights (an empty list means "use the extrapolation value").
struct AxisTaps {
  std::vector<std::vector<std::pair<int64_t, double>>> taps;
};

std::vector<double> cubicCoeffs(double r, double a) {
  auto f = [&](double x) {
    x = std::abs(x);
    if (x <= 1)
      return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2)
      return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0.0;
  };
  return {f(r + 1), f(r), f(1 - r), f(2 - r)};
}

struct ResizeSpec {
  std::string mode, coord, nearest;
  double cubicA = -0.75;
  bool excludeOutside = false;
};

/// Taps of one axis of Resize.
LogicalResult resizeAxis(KernelContext &ctx, const ResizeSpec &spec,
                         int64_t in, int64_t out, double scale,
                         double roiStart, double roiEnd, AxisTaps &axis) {
  axis.taps.resize(out);
  double outWidth = scale * in; // The reference's (fractional) width.
  for (int64_t x = 0; x < out; ++x) {
    double xo;
    const std::string &c = spec.coord;
    if (c == "half_pixel") {
      xo = (x + 0.5) / scale - 0.5;
    } else if (c == "half_pixel_symmetric") {
      double adjust = out / (scale * in);
      double center = in / 2.0;
      xo = center * (1 - adjust) + (x + 0.5) / scale - 0.5;
    } else if (c == "pytorch_half_pixel") {
      xo = outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    } else if (c == "align_corners") {
      xo = outWidth == 1 ? 0 : x * (in - 1) / (outWidth - 1);
    } else if (c == "asymmetric") {
      xo = x / scale;
    } else if (c == "tf_half_pixel_for_nn") { // Resize-11 only.
      xo = (x + 0.5) / scale;
    } else if (c == "tf_crop_and_resize") {
      xo = outWidth == 1 ? (roiEnd - roiStart) * (in - 1) / 2
                         : x * (roiEnd - roiStart) * (in - 1) / (outWidth - 1);
      xo += roiStart * (in - 1);
      if (xo < 0 || xo > in - 1)
        continue; // Extrapolated.
    } else {
      return ctx.error("unknown coordinate_transformation_mode '" + c + "'");
    }
    double fl = std::floor(xo);
    double ratio = xo == fl ? 1.0 : xo - fl;
    std::vector<double> coeffs;
    if (spec.mode == "nearest") {
      if (xo == fl)
        coeffs = {0, 1};
      else if (spec.nearest == "round_prefer_floor")
        coeffs = {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0};
      else if (spec.nearest == "round_prefer_ceil")
        coeffs = {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
      else if (spec.nearest == "floor")
        coeffs = {1, 0};
      else if (spec.nearest == "ceil")
        coeffs = {0, 1};
      else
        return ctx.error("unknown nearest_mode '" + spec.nearest + "'");
    } else if (spec.mode == "linear") {
      coeffs = {1 - ratio, ratio};
    } else if (spec.mode == "cubic") {
      coeffs = cubicCoeffs(ratio, spec.cubicA);
    } else {
      return ctx.error("unknown mode '" + spec.mode + "'");
    }
    int64_t n = coeffs.size();
    // The n positions nearest to xo, ties to the lower one: for a
    // non-integer xo they are floor(xo) - n/2 + 1 .. floor(xo) + n/2; for an
    // integer xo the window shifts left by one (ratio 1 weights its right
    // end).
    int64_t first = static_cast<int64_t>(fl) - n / 2 + 1;
    if (xo == fl)
      first -= 1;
    double sum = 0;
    for (int64_t k = 0; k < n; ++k) {
      int64_t idx = first + k;
      double w = coeffs[k];
      if (spec.excludeOutside && (idx < 0 || idx >= in))
        w = 0;
      sum += w;
      axis.taps[x].push_back({std::clamp<int64_t>(idx, 0, in - 1), w});
    }
    if (spec.excludeOutside && sum != 0)
      for (auto &t : axis.taps[x])
        t.second /= sum;
  }
  return success();
}

/// Combines per-axis taps into the output.
Tensor resample(const Tensor &x, const std::vector<AxisTaps> &axes,
                const Shape &outShape, double extrapolation) {
  Tensor y(x.dtype(), outShape);
  Shape xs = stridesOf(x.shape());
  int64_t r = x.rank();
  Shape idx(r);
  for (int64_t o = 0; o < y.numel(); ++o) {
    int64_t rem = o;
    for (int64_t d = r - 1; d >= 0; --d) {
      idx[d] = rem % outShape[d];
      rem /= outShape[d];
    }
    bool extrapolate = false;
    for (int64_t d = 0; d < r; ++d)
      if (axes[d].taps[idx[d]].empty())
        extrapolate = true;
    if (extrapolate) {
      y.setDouble(o, extrapolation);
      continue;
    }
    // Sum over the tap combinations (odometer over the axes).
    double acc = 0;
    Shape t(r, 0);
    while (true) {
      double w = 1;
      int64_t off = 0;
      for (int64_t d = 0; d < r; ++d) {
        const auto &tap = axes[d].taps[idx[d]][t[d]];
        w *= tap.second;
        off += tap.first * xs[d];
      }
      if (w != 0)
        acc += w * x.getDouble(off);
      int64_t d = r - 1;
      for (; d >= 0; --d) {
        if (++t[d] < static_cast<int64_t>(axes[d].taps[idx[d]].size()))
          break;
        t[d] = 0;
      }
      if (d < 0)
        break;
    }
    bool isInt = !dispatch<kFloats>(x.dtype(), [](auto) {});
    y.setDouble(o, isInt ? std::nearbyint(acc) : acc);
  }
  return y;
}

LogicalResult resizeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  int64_t r = x.rank();
  ResizeSpec spec;
  spec.mode = ctx.getString("mode", "nearest");
  bool v10 = ctx.version() < 11;
  spec.coord = v10 ? "asymmetric"
                   : ctx.getString("coordinate_transformation_mode",
                                   "half_pixel");
  spec.nearest = v10 ? "floor"
                     : ctx.getString("nearest_mode", "round_prefer_floor");
  spec.cubicA = ctx.getFloat("cubic_coeff_a", -0.75f);
  spec.excludeOutside = ctx.getInt("exclude_outside", 0) != 0;
  double extrapolation = ctx.getFloat("extrapolation_value", 0.0f);
  if (ctx.getInt("antialias", 0) != 0)
    return ctx.unsupported("Resize with antialias");
  std::vector<int64_t> axesList;
  if (auto a = ctx.getInts("axes")) {
    for (int64_t ax : *a) {
      auto n = normalizeAxis(ax, r);
      if (!n)
        return ctx.error("axis out of range");
      axesList.push_back(*n);
    }
  } else {
    for (int64_t d = 0; d < r; ++d)
      axesList.push_back(d);
  }
  std::vector<double> scales(r, 1.0);
  Shape out(x.shape());
  std::vector<double> roiStart(r, 0.0), roiEnd(r, 1.0);
  if (ctx.has(1) && ctx.in(1).numel() > 0) {
    const Tensor &roi = ctx.in(1);
    int64_t k = axesList.size();
    if (roi.numel() != 2 * k)
      return ctx.error("roi must have 2 values per resized axis");
    for (int64_t i = 0; i < k; ++i) {
      roiStart[axesList[i]] = roi.getDouble(i);
      roiEnd[axesList[i]] = roi.getDouble(i + k);
    }
  }
  bool hasScales = ctx.has(2) && ctx.in(2).numel() > 0;
  bool hasSizes = ctx.has(3) && ctx.in(3).numel() > 0;
  if (hasScales == hasSizes)
    return ctx.error("exactly one of scales and sizes must be given");
  if (hasScales) {
    const Tensor &s = ctx.in(2);
    if (s.numel() != static_cast<int64_t>(axesList.size()))
      return ctx.error("scales must have one value per resized axis");
    for (size_t i = 0; i < axesList.size(); ++i) {
      int64_t d = axesList[i];
      scales[d] = s.getDouble(i);
      if (scales[d] <= 0)
        return ctx.error("scales must be positive");
      if (!(x.dim(d) * scales[d] <= (double)kMaxComputedElements))
        return ctx.error("scales make a dimension of more than 2^30");
      out[d] = static_cast<int64_t>(x.dim(d) * scales[d]);
    }
  } else {
    std::vector<int64_t> sizes = ctx.in(3).toInt64Vector();
    if (sizes.size() != axesList.size())
      return ctx.error("sizes must have one value per resized axis");
    std::string policy = ctx.getString("keep_aspect_ratio_policy", "stretch");
    double keep = policy == "not_larger" ? std::numeric_limits<double>::max()
                                         : 0;
    for (size_t i = 0; i < axesList.size(); ++i) {
      double s = double(sizes[i]) / x.dim(axesList[i]);
      keep = policy == "not_larger" ? std::min(keep, s) : std::max(keep, s);
    }
    for (size_t i = 0; i < axesList.size(); ++i) {
      int64_t d = axesList[i];
      if (policy == "stretch") {
        out[d] = sizes[i];
        scales[d] = double(sizes[i]) / x.dim(d);
      } else {
        scales[d] = keep;
        out[d] = static_cast<int64_t>(std::floor(x.dim(d) * keep + 0.5));
      }
    }
  }
  if (failed(checkComputedSize(ctx, out)))
    return failure();
  std::vector<AxisTaps> axes(r);
  for (int64_t d = 0; d < r; ++d) {
    if (out[d] < 0)
      return ctx.error("negative output size");
    if (failed(resizeAxis(ctx, spec, x.dim(d), out[d], scales[d], roiStart[d],
                          roiEnd[d], axes[d])))
      return failure();
  }
  ctx.set(0, resample(x, axes, out, extrapolation));
  return success();
}

LogicalResult upsampleK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::vector<double> scales;
  if (auto s = ctx.getFloats("scales"))
    scales.assign(s->begin(), s->end());
  else if (ctx.has(1))
    for (int64_t i = 0; i < ctx.in(1).numel(); ++i)
      scales.push_back(ctx.in(1).getDouble(i));
  if (static_cast<int64_t>(scales.size()) != x.rank())
    return ctx.error("scales must have one value per dimension");
  ResizeSpec spec;
  spec.mode = ctx.getString("mode", "nearest");
  if (spec.mode == "bilinear")
    spec.mode = "linear";
  spec.coord = "asymmetric";
  spec.nearest = "floor";
  std::vector<AxisTaps> axes(x.rank());
  Shape out;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (!(x.dim(d) * scales[d] >= 0 &&
          x.dim(d) * scales[d] <= (double)kMaxComputedElements))
      return ctx.error("scales must be positive and make dimensions of at "
                       "most 2^30");
  for (int64_t d = 0; d < x.rank(); ++d) {
    out.push_back(static_cast<int64_t>(x.dim(d) * scales[d]));
    if (failed(resizeAxis(ctx, spec, x.dim(d), out[d], scales[d], 0, 1,
                          axes[d])))
      return failure();
  }
  ctx.set(0, resample(x, axes, out, 0));
  return success();
}

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//

LogicalResult gridSampleK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &grid = ctx.in(1);
  if (x.rank() != 4 || grid.rank() != 4 || grid.dim(3) != 2)
    return ctx.unsupported("GridSample on other than 4-D inputs");
  std::string mode = ctx.getString("mode", ctx.version() >= 20 ? "linear"
                                                               : "bilinear");
  if (mode == "bilinear")
    mode = "linear";
  if (mode == "bicubic")
    mode = "cubic";
  std::string padding = ctx.getString("padding_mode", "zeros");
  bool align = ctx.getInt("align_corners", 0) != 0;
  int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  int64_t Ho = grid.dim(1), Wo = grid.dim(2);
  Tensor y(x.dtype(), {N, C, Ho, Wo});
  auto denorm = [&](double g, int64_t size) {
    return align ? (g + 1) / 2 * (size - 1) : ((g + 1) * size - 1) / 2;
  };
  auto reflect = [&](double v, int64_t size) {
    double lo = align ? 0 : -0.5, hi = align ? size - 1 : size - 0.5;
    double span = hi - lo;
    if (span <= 0)
      return 0.0;
    if (v < lo || v > hi) {
      double d = std::abs(v - lo);
      int64_t flips = static_cast<int64_t>(d / span);
      double extra = d - flips * span;
      v = flips % 2 == 0 ? lo + extra : hi - extra;
    }
    return v;
  };
  auto fixCoord = [&](double v, int64_t size) {
    if (padding == "border")
      return std::clamp(v, 0.0, double(size - 1));
    if (padding == "reflection")
      return std::clamp(reflect(v, size), 0.0, double(size - 1));
    return v;
  };
  // A pixel value, 0 outside the image (zeros padding); border and
  // reflection taps are clamped into the image.
  auto pixel = [&](int64_t n, int64_t c, int64_t yy, int64_t xx) {
    if (padding != "zeros") {
      yy = std::clamp<int64_t>(yy, 0, H - 1);
      xx = std::clamp<int64_t>(xx, 0, W - 1);
    }
    if (yy < 0 || yy >= H || xx < 0 || xx >= W)
      return 0.0;
    return x.getDouble(((n * C + c) * H + yy) * W + xx);
  };
  for (int64_t n = 0; n < N; ++n)
    for (int64_t i = 0; i < Ho; ++i)
      for (int64_t j = 0; j < Wo; ++j) {
        int64_t g = ((n * Ho + i) * Wo + j) * 2;
        double px = fixCoord(denorm(grid.getDouble(g), W), W);
        double py = fixCoord(denorm(grid.getDouble(g + 1), H), H);
        for (int64_t c = 0; c < C; ++c) {
          double v;
          if (mode == "nearest") {
            v = pixel(n, c, static_cast<int64_t>(std::nearbyint(py)),
                      static_cast<int64_t>(std::nearbyint(px)));
          } else if (mode == "linear") {
            double x0 = std::floor(px), y0 = std::floor(py);
            double dx = px - x0, dy = py - y0;
            int64_t ix = x0, iy = y0;
            v = pixel(n, c, iy, ix) * (1 - dx) * (1 - dy) +
                pixel(n, c, iy, ix + 1) * dx * (1 - dy) +
                pixel(n, c, iy + 1, ix) * (1 - dx) * dy +
                pixel(n, c, iy + 1, ix + 1) * dx * dy;
          } else if (mode == "cubic") {
            double x0 = std::floor(px), y0 = std::floor(py);
            auto wx = cubicCoeffs(px - x0, -0.75);
            auto wy = cubicCoeffs(py - y0, -0.75);
            v = 0;
            for (int a = 0; a < 4; ++a)
              for (int b = 0; b < 4; ++b)
                v += wy[a] * wx[b] *
                     pixel(n, c, static_cast<int64_t>(y0) - 1 + a,
                           static_cast<int64_t>(x0) - 1 + b);
          } else {
            return ctx.error("unknown mode '" + mode + "'");
          }
          y.setDouble(((n * C + c) * Ho + i) * Wo + j, v);
        }
      }
  ctx.set(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// RoI ops
//===----------------------------------------------------------------------===//

LogicalResult roiAlignK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &rois = ctx.in(1), &batch = ctx.in(2);
  if (x.rank() != 4 || rois.rank() != 2 || rois.dim(1) != 4)
    return ctx.error("X must be 4-D and rois [num_rois, 4]");
  int64_t oh = ctx.getInt("output_height", 1), ow = ctx.getInt("output_width",
                                                               1);
  int64_t ratio = ctx.getInt("sampling_ratio", 0);
  double scale = ctx.getFloat("spatial_scale", 1.0f);
  bool isMax = ctx.getString("mode", "avg") == "max";
  // RoiAlign-10 behaves as output_half_pixel; 16 defaults to half_pixel.
  std::string coord = ctx.getString(
      "coordinate_transformation_mode",
      ctx.version() >= 16 ? "half_pixel" : "output_half_pixel");
  double offset = coord == "half_pixel" ? 0.5 : 0.0;
  int64_t C = x.dim(1), H = x.dim(2), W = x.dim(3), R = rois.dim(0);
  Tensor y(x.dtype(), {R, C, oh, ow});
  auto bilinear = [&](int64_t base, double yy, double xx, bool &valid) {
    valid = !(yy < -1.0 || yy > H || xx < -1.0 || xx > W);
    if (!valid)
      return 0.0;
    yy = std::max(yy, 0.0);
    xx = std::max(xx, 0.0);
    int64_t y0 = static_cast<int64_t>(yy), x0 = static_cast<int64_t>(xx);
    int64_t y1 = y0 + 1, x1 = x0 + 1;
    if (y0 >= H - 1) {
      y0 = y1 = H - 1;
      yy = y0;
    }
    if (x0 >= W - 1) {
      x0 = x1 = W - 1;
      xx = x0;
    }
    double ly = yy - y0, lx = xx - x0, hy = 1 - ly, hx = 1 - lx;
    double v[4] = {x.getDouble(base + y0 * W + x0),
                   x.getDouble(base + y0 * W + x1),
                   x.getDouble(base + y1 * W + x0),
                   x.getDouble(base + y1 * W + x1)};
    double w[4] = {hy * hx, hy * lx, ly * hx, ly * lx};
    if (isMax) // ONNX Runtime's max mode: the largest weighted term.
      return std::max({w[0] * v[0], w[1] * v[1], w[2] * v[2], w[3] * v[3]});
    return w[0] * v[0] + w[1] * v[1] + w[2] * v[2] + w[3] * v[3];
  };
  for (int64_t r = 0; r < R; ++r) {
    int64_t b = batch.getInt(r);
    if (b < 0 || b >= x.dim(0))
      return ctx.error("batch index out of range");
    double x1 = rois.getDouble(r * 4) * scale - offset;
    double y1 = rois.getDouble(r * 4 + 1) * scale - offset;
    double x2 = rois.getDouble(r * 4 + 2) * scale - offset;
    double y2 = rois.getDouble(r * 4 + 3) * scale - offset;
    double rw = x2 - x1, rh = y2 - y1;
    if (coord != "half_pixel") {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    double bh = rh / oh, bw = rw / ow;
    int64_t gh = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(rh / oh));
    int64_t gw = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(rw / ow));
    int64_t count = std::max<int64_t>(gh * gw, 1);
    for (int64_t c = 0; c < C; ++c) {
      int64_t base = (b * C + c) * H * W;
      for (int64_t ph = 0; ph < oh; ++ph)
        for (int64_t pw = 0; pw < ow; ++pw) {
          double acc = isMax ? -std::numeric_limits<double>::infinity() : 0;
          for (int64_t iy = 0; iy < gh; ++iy)
            for (int64_t ix = 0; ix < gw; ++ix) {
              double yy = y1 + ph * bh + (iy + 0.5) * bh / gh;
              double xx = x1 + pw * bw + (ix + 0.5) * bw / gw;
              bool valid;
              double v = bilinear(base, yy, xx, valid);
              acc = isMax ? std::max(acc, valid ? v : 0.0) : acc + v;
            }
          y.setDouble(((r * C + c) * oh + ph) * ow + pw,
                      isMax ? acc : acc / count);
        }
    }
  }
  ctx.set(0, y);
  return success();
}

LogicalResult maxRoiPoolK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &rois = ctx.in(1);
  auto pooled = ctx.getInts("pooled_shape");
  if (!pooled || pooled->size() != 2 || x.rank() != 4 || rois.dim(1) != 5)
    return ctx.error("needs 4-D X, [num_rois, 5] rois and pooled_shape");
  double scale = ctx.getFloat("spatial_scale", 1.0f);
  int64_t ph = (*pooled)[0], pw = (*pooled)[1];
  int64_t C = x.dim(1), H = x.dim(2), W = x.dim(3), R = rois.dim(0);
  Tensor y(x.dtype(), {R, C, ph, pw});
  for (int64_t r = 0; r < R; ++r) {
    int64_t b = rois.getInt(r * 5);
    auto rd = [&](int k) {
      return static_cast<int64_t>(std::round(rois.getDouble(r * 5 + k) *
                                             scale));
    };
    int64_t x1 = rd(1), y1 = rd(2), x2 = rd(3), y2 = rd(4);
    double bh = std::max<int64_t>(y2 - y1 + 1, 1) / double(ph);
    double bw = std::max<int64_t>(x2 - x1 + 1, 1) / double(pw);
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < ph; ++i)
        for (int64_t j = 0; j < pw; ++j) {
          int64_t hs = std::clamp<int64_t>(std::floor(i * bh) + y1, 0, H);
          int64_t he = std::clamp<int64_t>(std::ceil((i + 1) * bh) + y1, 0, H);
          int64_t ws = std::clamp<int64_t>(std::floor(j * bw) + x1, 0, W);
          int64_t we = std::clamp<int64_t>(std::ceil((j + 1) * bw) + x1, 0, W);
          double m = he <= hs || we <= ws
                         ? 0
                         : -std::numeric_limits<double>::infinity();
          for (int64_t yy = hs; yy < he; ++yy)
            for (int64_t xx = ws; xx < we; ++xx)
              m = std::max(m, x.getDouble(((b * C + c) * H + yy) * W + xx));
          y.setDouble(((r * C + c) * ph + i) * pw + j, m);
        }
  }
  ctx.set(0, y);
  return success();
}

LogicalResult maxUnpoolK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &idx = ctx.in(1);
  auto kernel = ctx.getInts("kernel_shape");
  int64_t n = x.rank() - 2;
  if (!kernel || static_cast<int64_t>(kernel->size()) != n)
    return ctx.error("kernel_shape must match the spatial rank");
  auto strides = ctx.getInts("strides").value_or(std::vector<int64_t>(n, 1));
  auto pads = ctx.getInts("pads").value_or(std::vector<int64_t>(2 * n, 0));
  // The indices address the default unpooled layout; an explicit
  // output_shape only enlarges the canvas they are placed on.
  Shape dflt = {x.dim(0), x.dim(1)};
  for (int64_t d = 0; d < n; ++d)
    dflt.push_back((x.dim(d + 2) - 1) * strides[d] + (*kernel)[d] - pads[d] -
                   pads[d + n]);
  Shape out = dflt;
  if (ctx.has(2)) {
    out.clear();
    for (int64_t v : ctx.in(2).toInt64Vector())
      out.push_back(v);
    if (static_cast<int64_t>(out.size()) != x.rank())
      return ctx.error("output_shape must have one value per dimension");
  }
  Tensor y(x.dtype(), out);
  Shape ds = stridesOf(dflt), os = stridesOf(out);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t j = idx.getInt(i);
    if (j < 0 || j >= numElements(dflt))
      return ctx.error("index " + std::to_string(j) + " out of range");
    int64_t rem = j, dst = 0;
    for (int64_t d = 0; d < x.rank(); ++d) {
      int64_t c = rem / ds[d];
      rem %= ds[d];
      if (c >= out[d])
        return ctx.error("index " + std::to_string(j) +
                         " falls outside output_shape");
      dst += c * os[d];
    }
    copyElement(x, i, y, dst);
  }
  ctx.set(0, y);
  return success();
}

LogicalResult col2ImK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::vector<int64_t> image = ctx.in(1).toInt64Vector();
  std::vector<int64_t> block = ctx.in(2).toInt64Vector();
  int64_t n = image.size();
  if (static_cast<int64_t>(block.size()) != n || x.rank() != 3)
    return ctx.error("image_shape and block_shape must have equal length "
                     "and the input must be 3-D");
  auto vec = [&](llvm::StringRef name, int64_t size, int64_t dflt) {
    auto v = ctx.getInts(name);
    return v ? std::vector<int64_t>(v->begin(), v->end())
             : std::vector<int64_t>(size, dflt);
  };
  auto dil = vec("dilations", n, 1), pads = vec("pads", 2 * n, 0),
       stride = vec("strides", n, 1);
  int64_t kN = numElements(block), N = x.dim(0), C = x.dim(1) / kN;
  Shape counts(n);
  int64_t L = 1;
  for (int64_t d = 0; d < n; ++d) {
    counts[d] = (image[d] + pads[d] + pads[d + n] -
                 dil[d] * (block[d] - 1) - 1) /
                    stride[d] +
                1;
    L *= counts[d];
  }
  if (x.dim(2) != L || x.dim(1) != C * kN)
    return ctx.error("input shape does not match the blocks");
  Shape outShape = {N, C};
  outShape.append(image.begin(), image.end());
  Tensor y(x.dtype(), outShape);
  Shape imgStrides = stridesOf(image);
  int64_t imgN = numElements(image);
  Shape bi(n), li(n);
  for (int64_t b = 0; b < N; ++b)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t k = 0; k < kN; ++k)
        for (int64_t l = 0; l < L; ++l) {
          int64_t rk = k, rl = l, off = 0;
          bool inside = true;
          for (int64_t d = n - 1; d >= 0; --d) {
            bi[d] = rk % block[d];
            rk /= block[d];
            li[d] = rl % counts[d];
            rl /= counts[d];
          }
          for (int64_t d = 0; d < n && inside; ++d) {
            int64_t p = li[d] * stride[d] - pads[d] + bi[d] * dil[d];
            inside = p >= 0 && p < image[d];
            off += p * imgStrides[d];
          }
          if (!inside)
            continue;
          int64_t dst = (b * C + c) * imgN + off;
          y.setDouble(dst, y.getDouble(dst) +
                               x.getDouble(((b * C + c) * kN + k) * L + l));
        }
  ctx.set(0, y);
  return success();
}

LogicalResult affineGridK(KernelContext &ctx) {
  const Tensor &theta = ctx.in(0);
  std::vector<int64_t> size = ctx.in(1).toInt64Vector();
  bool align = ctx.getInt("align_corners", 0) != 0;
  int64_t n = size.size() - 2; // Spatial rank: 2 or 3.
  if ((n != 2 && n != 3) || theta.rank() != 3 || theta.dim(1) != n ||
      theta.dim(2) != n + 1)
    return ctx.error("theta must be [N, 2, 3] with a 4-D size or "
                     "[N, 3, 4] with a 5-D size");
  int64_t N = size[0];
  Shape spatial(size.begin() + 2, size.end());
  Shape outShape = {N};
  outShape.append(spatial.begin(), spatial.end());
  outShape.push_back(n);
  Tensor y(theta.dtype(), outShape);
  // Normalized coordinates of position i along an axis of `len` points.
  auto coord = [&](int64_t i, int64_t len) {
    if (align)
      return len > 1 ? -1.0 + 2.0 * i / (len - 1) : 0.0;
    return (2.0 * i + 1) / len - 1;
  };
  int64_t points = numElements(spatial);
  Shape idx(n);
  for (int64_t b = 0; b < N; ++b)
    for (int64_t p = 0; p < points; ++p) {
      int64_t rem = p;
      for (int64_t d = n - 1; d >= 0; --d) {
        idx[d] = rem % spatial[d];
        rem /= spatial[d];
      }
      // The base point is (x, y[, z], 1): the last spatial axis is x.
      std::vector<double> base(n + 1, 1.0);
      for (int64_t d = 0; d < n; ++d)
        base[d] = coord(idx[n - 1 - d], spatial[n - 1 - d]);
      for (int64_t r = 0; r < n; ++r) {
        double v = 0;
        for (int64_t c = 0; c <= n; ++c)
          v += theta.getDouble((b * n + r) * (n + 1) + c) * base[c];
        y.setDouble((b * points + p) * n + r, v);
      }
    }
  ctx.set(0, y);
  return success();
}

LogicalResult deformConvK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &w = ctx.in(1), &offset = ctx.in(2);
  if (x.rank() != 4 || w.rank() != 4)
    return ctx.unsupported("DeformConv on other than 2-D images");
  int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  int64_t M = w.dim(0), kh = w.dim(2), kw = w.dim(3);
  int64_t group = ctx.getInt("group", 1);
  int64_t og = ctx.getInt("offset_group", 1);
  if (group < 1 || og < 1 || C % group || C % og || w.dim(1) != C / group)
    return ctx.error("channels do not match group and offset_group");
  auto vec = [&](llvm::StringRef name, size_t len, int64_t dflt) {
    auto v = ctx.getInts(name);
    return v ? *v : std::vector<int64_t>(len, dflt);
  };
  auto stride = vec("strides", 2, 1), dil = vec("dilations", 2, 1),
       pads = vec("pads", 4, 0);
  int64_t oh = (H + pads[0] + pads[2] - dil[0] * (kh - 1) - 1) / stride[0] + 1;
  int64_t ow = (W + pads[1] + pads[3] - dil[1] * (kw - 1) - 1) / stride[1] + 1;
  if (offset.rank() != 4 || offset.dim(1) != og * 2 * kh * kw ||
      offset.dim(2) != oh || offset.dim(3) != ow)
    return ctx.error("offset must be [N, offset_group * 2 * kH * kW, oH, oW]");
  bool hasMask = ctx.has(4);
  Tensor y(x.dtype(), {N, M, oh, ow});
  int64_t Cg = C / group, Mg = M / group, Cog = C / og;
  auto sample = [&](int64_t n, int64_t c, double py, double px) {
    if (py <= -1 || py >= H || px <= -1 || px >= W)
      return 0.0;
    int64_t y0 = static_cast<int64_t>(std::floor(py));
    int64_t x0 = static_cast<int64_t>(std::floor(px));
    double ly = py - y0, lx = px - x0, v = 0;
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) {
        int64_t yy = y0 + dy, xx = x0 + dx;
        if (yy < 0 || yy >= H || xx < 0 || xx >= W)
          continue;
        v += (dy ? ly : 1 - ly) * (dx ? lx : 1 - lx) *
             x.getDouble(((n * C + c) * H + yy) * W + xx);
      }
    return v;
  };
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      int64_t g = m / Mg;
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = ctx.has(3) ? ctx.in(3).getDouble(m) : 0;
          for (int64_t cc = 0; cc < Cg; ++cc) {
            int64_t c = g * Cg + cc, o = c / Cog;
            for (int64_t a = 0; a < kh; ++a)
              for (int64_t b = 0; b < kw; ++b) {
                int64_t k = a * kw + b;
                auto off = [&](int64_t ch) {
                  return offset.getDouble(((n * offset.dim(1) + ch) * oh + i) *
                                              ow +
                                          j);
                };
                double dy = off(o * 2 * kh * kw + 2 * k);
                double dx = off(o * 2 * kh * kw + 2 * k + 1);
                double py = i * stride[0] - pads[0] + a * dil[0] + dy;
                double px = j * stride[1] - pads[1] + b * dil[1] + dx;
                double mask =
                    hasMask ? ctx.in(4).getDouble(
                                  ((n * og * kh * kw + o * kh * kw + k) * oh +
                                   i) *
                                      ow +
                                  j)
                            : 1.0;
                acc += mask * sample(n, c, py, px) *
                       w.getDouble(((m * Cg + cc) * kh + a) * kw + b);
              }
          }
          y.setDouble(((n * M + m) * oh + i) * ow + j, acc);
        }
    }
  ctx.set(0, y);
  return success();
}

} // namespace

void registerNNKernels(KernelRegistry &r) {
  r.add("AffineGrid", affineGridK);
  r.add("DeformConv", deformConvK);
  r.add("Resize", resizeK);
  r.add("Upsample", upsampleK);
  r.add("GridSample", gridSampleK);
  r.add("RoiAlign", roiAlignK);
  r.add("MaxRoiPool", maxRoiPoolK);
  r.add("MaxUnpool", maxUnpoolK);
  r.add("Col2Im", col2ImK);
}

} // namespace amk::ref
