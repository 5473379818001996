//===- LowerResize.cpp - Resize -------------------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: Resize (and Upsample, normalized to
// it) as one RESIZE kernel whose per-axis tap indices and weights are
// computed here, following the ONNX reference: the coordinate
// transformation maps each output coordinate to an input one, the n
// nearest input coordinates (2 linear, 4 cubic; edge-clamped) are the
// taps, and the mode gives their weights.
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "transforms/Utils/PassUtils.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXDialect.h"

#include <cmath>

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

namespace {

struct ResizeAttrs {
  StringRef mode, transform, nearest;
  double cubicA;
  bool excludeOutside;
};

/// The input coordinate of output coordinate `x` along one axis.
/// `outLen` is the scale times the input length, not rounded, as in the
/// ONNX reference (it differs from the result's length for scales like
/// 0.6 of 4).
double originalCoordinate(StringRef transform, double x, double scale,
                          double outLen, int64_t inLen, double roiStart,
                          double roiEnd) {
  if (transform == "half_pixel")
    return (x + 0.5) / scale - 0.5;
  if (transform == "half_pixel_symmetric") {
    double adjustment = outLen / (scale * inLen);
    double center = inLen / 2.0, offset = center * (1 - adjustment);
    return offset + (x + 0.5) / scale - 0.5;
  }
  if (transform == "pytorch_half_pixel")
    return outLen > 1 ? (x + 0.5) / scale - 0.5 : 0;
  if (transform == "align_corners")
    return outLen == 1 ? 0 : x * (inLen - 1) / (outLen - 1);
  if (transform == "tf_half_pixel_for_nn")
    return (x + 0.5) / scale;
  if (transform == "tf_crop_and_resize")
    return outLen > 1 ? roiStart * (inLen - 1) +
                            x * (roiEnd - roiStart) * (inLen - 1) /
                                (outLen - 1)
                      : 0.5 * (roiStart + roiEnd) * (inLen - 1);
  return x / scale; // asymmetric
}

SmallVector<double> cubicCoeffs(double r, double A) {
  auto far = [&](double t) { // |t| in [1, 2)
    return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A;
  };
  auto near = [&](double t) { // |t| in [0, 1)
    return ((A + 2) * t - (A + 3)) * t * t + 1;
  };
  return {far(r + 1), near(r), near(1 - r), far(2 - r)};
}

} // namespace

LogicalResult Scheduler::lowerResize(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = xt.getRank();
  if (rank < 1 || rank > AMK_RESIZE_MAX_RANK)
    return unsupported(op, "its rank is not 1 to 8");
  ResizeAttrs a{strAttr(op, "mode", "nearest"),
                strAttr(op, "coordinate_transformation_mode", "half_pixel"),
                strAttr(op, "nearest_mode", "round_prefer_floor"),
                floatAttr(op, "cubic_coeff_a", -0.75f),
                intAttr(op, "exclude_outside", 0) != 0};
  if (a.mode != "nearest" && a.mode != "linear" && a.mode != "cubic")
    return unsupported(op, "mode '" + a.mode + "' is unknown");
  if (intAttr(op, "antialias", 0))
    return unsupported(op, "antialias is not implemented");
  // amk.qresize: 8-bit in and out, dequantized taps weighted in float
  // (nearest ones too: weight 1), the sum requantized.
  const bool quant = isa<fused::QResizeOp>(op);
  bool nearest = a.mode == "nearest" && !quant;
  if (!nearest && !quant && !xt.getElementType().isF32())
    return unsupported(op, "linear and cubic resizing are implemented for "
                           "float32 only");
  // Operands: X, roi, scales, sizes (opset 11+); X, scales (opset 10).
  auto operand = [&](unsigned i) -> Value {
    return op->getNumOperands() > i && !isNoneValue(op->getOperand(i))
               ? op->getOperand(i)
               : Value();
  };
  bool v10 = op->getNumOperands() == 2;
  Value roiV = v10 ? Value() : operand(1);
  Value scalesV = v10 ? operand(1) : operand(2);
  Value sizesV = v10 ? Value() : operand(3);
  SmallVector<int64_t> axes = intsAttr(op, "axes");
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  for (int64_t &ax : axes)
    ax = ax < 0 ? ax + rank : ax;
  // Scales per axis: given, or the sizes over the input's (one common
  // scale under keep_aspect_ratio_policy not_larger / not_smaller).
  SmallVector<double> scale(rank, 1.0);
  std::optional<amk::ref::Tensor> scalesT, sizesT, roiT;
  if (scalesV)
    scalesT = amk::getConstantTensor(scalesV);
  if (sizesV)
    sizesT = amk::getConstantTensor(sizesV);
  if (roiV)
    roiT = amk::getConstantTensor(roiV);
  if (scalesT && scalesT->numel() == (int64_t)axes.size()) {
    for (auto [i, ax] : llvm::enumerate(axes))
      scale[ax] = scalesT->getDouble(i);
  } else if (sizesT && sizesT->numel() == (int64_t)axes.size()) {
    StringRef policy = strAttr(op, "keep_aspect_ratio_policy", "stretch");
    double common = policy == "not_larger" ? INFINITY : 0;
    for (auto [i, ax] : llvm::enumerate(axes)) {
      double s = (double)sizesT->getInt(i) / xt.getDimSize(ax);
      scale[ax] = s;
      common = policy == "not_larger" ? std::min(common, s)
                                      : std::max(common, s);
    }
    if (policy != "stretch")
      for (int64_t ax : axes)
        scale[ax] = common;
  } else if (scalesV || sizesV) {
    return unsupported(op, "its scales or sizes are not constants");
  } else {
    return unsupported(op, "it has neither scales nor sizes");
  }
  bool crop = a.transform == "tf_crop_and_resize";
  if (crop && (!roiT || roiT->numel() != 2 * (int64_t)axes.size()))
    return unsupported(op, "tf_crop_and_resize needs a constant roi");
  int64_t taps = a.mode == "nearest" ? 1 : a.mode == "linear" ? 2 : 4;
  bool extrapolated = false;
  SmallVector<int32_t> idx;
  SmallVector<float> wts;
  SmallVector<int64_t> tapsOf(rank), offOf(rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = xt.getDimSize(d), out = yt.getDimSize(d);
    offOf[d] = idx.size();
    bool resized = llvm::is_contained(axes, d);
    if (!resized || (in == out && scale[d] == 1.0 && !crop)) {
      if (in != out)
        return unsupported(op, "axis " + Twine(d) + " changes size but is "
                                                    "not resized");
      tapsOf[d] = 1;
      for (int64_t o = 0; o < out; ++o) {
        idx.push_back(o);
        wts.push_back(1.f);
      }
      continue;
    }
    tapsOf[d] = taps;
    double roiStart = 0, roiEnd = 1;
    if (crop) {
      int64_t i = llvm::find(axes, d) - axes.begin();
      roiStart = roiT->getDouble(i);
      roiEnd = roiT->getDouble(i + axes.size());
    }
    for (int64_t o = 0; o < out; ++o) {
      double x = originalCoordinate(a.transform, o, scale[d],
                                    scale[d] * in, in, roiStart, roiEnd);
      // Outside the input a crop reads no taps: index -1 tells the kernel
      // to write extrapolation_value there.
      if (crop && (x < 0 || x > in - 1)) {
        if (!xt.getElementType().isF32())
          return unsupported(op, "tf_crop_and_resize outside the input "
                                 "is implemented for float32 only");
        extrapolated = true;
        for (int64_t t = 0; t < taps; ++t) {
          idx.push_back(-1);
          wts.push_back(0.f);
        }
        continue;
      }
      // The reference takes the n nearest input coordinates: for an
      // integer x, x - n/2 .. x + n/2 - 1 with ratio 1.
      double fl = std::floor(x), r = x - fl;
      int64_t xi = (int64_t)fl;
      if (r == 0)
        xi -= 1, r = 1;
      auto clampIdx = [&](int64_t i) {
        return (int32_t)std::clamp<int64_t>(i, 0, in - 1);
      };
      if (nearest) {
        bool up = r == 1 ? true
                  : a.nearest == "round_prefer_ceil" ? r >= 0.5
                  : a.nearest == "floor"             ? false
                  : a.nearest == "ceil"              ? true
                                                     : r > 0.5;
        idx.push_back(clampIdx(up ? xi + 1 : xi));
        wts.push_back(1.f);
        continue;
      }
      SmallVector<double> c = taps == 2 ? SmallVector<double>{1 - r, r}
                                        : cubicCoeffs(r, a.cubicA);
      int64_t base = xi - (taps / 2 - 1);
      if (a.excludeOutside) {
        double sum = 0;
        for (int64_t t = 0; t < taps; ++t) {
          if (base + t < 0 || base + t >= in)
            c[t] = 0;
          sum += c[t];
        }
        for (double &v : c)
          v = sum != 0 ? v / sum : 0;
      }
      for (int64_t t = 0; t < taps; ++t) {
        idx.push_back(clampIdx(base + t));
        wts.push_back((float)c[t]);
      }
    }
  }
  MLIRContext *ctx = op->getContext();
  auto idxType = RankedTensorType::get({(int64_t)idx.size()},
                                       IntegerType::get(ctx, 32));
  auto wType =
      RankedTensorType::get({(int64_t)wts.size()}, Float32Type::get(ctx));
  int ii = newConstTensor(
      idxType, DenseElementsAttr::get(idxType, ArrayRef<int32_t>(idx)),
      "resize.index");
  int wi = newConstTensor(
      wType, DenseElementsAttr::get(wType, ArrayRef<float>(wts)),
      "resize.weight");
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_RESIZE);
  k.variant = quant     ? AMK_RESIZE_VARIANT_WEIGHTED_Q8
              : nearest ? AMK_RESIZE_VARIANT_NEAREST
                        : AMK_RESIZE_VARIANT_WEIGHTED;
  k.slots = {*xi, yi, ii, wi};
  if (extrapolated) {
    if (quant)
      return unsupported(op, "an extrapolated crop has no 8-bit value");
    k.fp = {floatAttr(op, "extrapolation_value", 0.f)};
  }
  int64_t eb = elemBytes(xt.getElementType());
  k.ip = {rank, eb};
  k.ip.append(xt.getShape().begin(), xt.getShape().end());
  k.ip.append(yt.getShape().begin(), yt.getShape().end());
  k.ip.append(tapsOf.begin(), tapsOf.end());
  k.ip.append(offOf.begin(), offOf.end());
  if (quant) {
    auto q = cast<fused::QResizeOp>(op);
    if (failed(appendQuantEdges(op, k, q.getX(), q.getXScale(),
                                q.getXZeroPoint(), q.getY(), q.getYScale(),
                                q.getYZeroPoint())))
      return failure();
  }
  int64_t rows = product(yt.getShape().drop_back()),
          lastOut = yt.getShape().back();
  int64_t tapProduct = 1;
  for (int64_t t : tapsOf)
    tapProduct *= t;
  k.rows = rows;
  k.flops = 2.0 * yt.getNumElements() * tapProduct;
  k.bytes = (double)eb * (xt.getNumElements() + yt.getNumElements());
  int64_t xBytes = tensors[*xi].bytes, iBytes = tensors[ii].bytes,
          wBytes = tensors[wi].bytes;
  int xs = *xi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(xs, xBytes));
    rd.push_back(whole(ii, iBytes));
    rd.push_back(whole(wi, wBytes));
    wr.push_back(span(yi, r0 * lastOut * eb, r1 * lastOut * eb));
  };
  return success();
}

} // namespace amk::totask

namespace amk::totask {

LogicalResult Scheduler::lowerGridSample(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto gt = cast<RankedTensorType>(op->getOperand(1).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  if (!xt.getElementType().isF32() || !gt.getElementType().isF32())
    return unsupported(op, "only float32 GridSample is implemented");
  if (xt.getRank() != 4)
    return unsupported(op, "only 2-D GridSample (4-D input) is implemented");
  StringRef m = strAttr(op, "mode", "bilinear");
  int64_t mode = m == "bilinear" || m == "linear" ? 0
                 : m == "nearest"                 ? 1
                 : m == "bicubic" || m == "cubic" ? 2
                                                  : -1;
  StringRef p = strAttr(op, "padding_mode", "zeros");
  int64_t padding = p == "zeros" ? 0 : p == "border" ? 1 : p == "reflection" ? 2 : -1;
  if (mode < 0 || padding < 0)
    return unsupported(op, "mode '" + m + "' or padding_mode '" + p +
                               "' is unknown");
  auto xi = getTensor(op->getOperand(0), op);
  auto gi = getTensor(op->getOperand(1), op);
  if (failed(xi) || failed(gi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_GRID_SAMPLE);
  k.slots = {*xi, *gi, yi};
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), Ho = yt.getDimSize(2),
          Wo = yt.getDimSize(3);
  k.ip = {N,  C,    xt.getDimSize(2), xt.getDimSize(3), Ho, Wo,
          mode, padding, intAttr(op, "align_corners", 0) != 0};
  k.rows = N * C;
  k.flops = 16.0 * N * C * Ho * Wo;
  k.bytes = 4.0 * (xt.getNumElements() + gt.getNumElements() +
                   yt.getNumElements());
  int64_t plane = xt.getDimSize(2) * xt.getDimSize(3) * 4,
          gBytes = tensors[*gi].bytes;
  int xs = *xi, gs = *gi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * plane, r1 * plane));
    rd.push_back(whole(gs, gBytes));
    wr.push_back(span(yi, r0 * Ho * Wo * 4, r1 * Ho * Wo * 4));
  };
  return success();
}

} // namespace amk::totask

namespace amk::totask {

/// RoiAlign on the ROI_ALIGN kernel: one row per (region, channel).
LogicalResult Scheduler::lowerRoiAlign(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto rt = cast<RankedTensorType>(op->getOperand(1).getType());
  auto bt = cast<RankedTensorType>(op->getOperand(2).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  if (!xt.getElementType().isF32() || !rt.getElementType().isF32())
    return unsupported(op, "only float32 RoiAlign is implemented");
  if (xt.getRank() != 4 || rt.getRank() != 2 || rt.getDimSize(1) != 4 ||
      bt.getRank() != 1)
    return unsupported(op, "X must be 4-D, rois [R, 4], batch indices [R]");
  if (!bt.getElementType().isInteger(32) && !bt.getElementType().isInteger(64))
    return unsupported(op, "its batch indices are not int32 or int64");
  StringRef mode = strAttr(op, "mode", "avg");
  const amk::onnx::VersionInfo *v = amk::onnx::getVersionInfo(op);
  StringRef coord =
      strAttr(op, "coordinate_transformation_mode",
              v && v->since >= 16 ? "half_pixel" : "output_half_pixel");
  if ((mode != "avg" && mode != "max") ||
      (coord != "half_pixel" && coord != "output_half_pixel"))
    return unsupported(op, "mode '" + mode + "' or coordinate mode '" + coord +
                               "' is unknown");
  auto xi = getTensor(op->getOperand(0), op);
  auto ri = getTensor(op->getOperand(1), op);
  auto bi = getTensor(op->getOperand(2), op);
  if (failed(xi) || failed(ri) || failed(bi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_ROI_ALIGN);
  k.slots = {*xi, *ri, *bi, yi};
  int64_t R = rt.getDimSize(0), C = xt.getDimSize(1), oh = yt.getDimSize(2),
          ow = yt.getDimSize(3);
  k.ip = {xt.getDimSize(0),
          C,
          xt.getDimSize(2),
          xt.getDimSize(3),
          R,
          oh,
          ow,
          intAttr(op, "sampling_ratio", 0),
          mode == "max",
          coord == "half_pixel",
          runtimeDtype(bt.getElementType())};
  k.fp = {floatAttr(op, "spatial_scale", 1.f)};
  k.rows = R * C;
  k.flops = 16.0 * R * C * oh * ow * 4;
  k.bytes = 4.0 * (R * C * oh * ow) + tensors[*xi].bytes;
  int64_t xBytes = tensors[*xi].bytes, rBytes = tensors[*ri].bytes,
          bBytes = tensors[*bi].bytes, plane = oh * ow * 4;
  int xs = *xi, rs = *ri, bs = *bi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(xs, xBytes));
    rd.push_back(whole(rs, rBytes));
    rd.push_back(whole(bs, bBytes));
    wr.push_back(span(yi, r0 * plane, r1 * plane));
  };
  return success();
}

} // namespace amk::totask
