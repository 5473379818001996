//===- Quant.cpp - Quantization and integer arithmetic ops ----------------===//
//
// Part of AMK. Quantization rounds half to even and saturates to the
// target type; integer convolutions and products accumulate in int32 as
// the spec requires (wrap-around on overflow).
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include <vector>

using namespace mlir;

namespace amk::ref {
namespace {

/// The range of an integer element type.
std::pair<double, double> intRange(DataType dt) {
  switch (dt) {
  case DataType::UINT8:
    return {0, 255};
  case DataType::INT8:
    return {-128, 127};
  case DataType::UINT16:
    return {0, 65535};
  case DataType::INT16:
    return {-32768, 32767};
  case DataType::INT32:
    return {-2147483648.0, 2147483647.0};
  case DataType::UINT4:
    return {0, 15};
  case DataType::INT4:
    return {-8, 7};
  default:
    return {-std::numeric_limits<double>::infinity(),
            std::numeric_limits<double>::infinity()};
  }
}

/// Index of the scale/zero point applying to element `i`: per tensor, per
/// axis, or (block_size > 0) per block along the axis.
struct QuantParams {
  int64_t axis = -1, inner = 1, dim = 1, block = 0;
  int64_t index(int64_t i) const {
    if (axis < 0)
      return 0;
    int64_t c = (i / inner) % dim;
    if (!block)
      return c;
    // The scale has the input's shape with the axis cut into blocks.
    int64_t blocks = (dim + block - 1) / block;
    return ((i / inner / dim) * blocks + c / block) * inner + i % inner;
  }
};

FailureOr<QuantParams> quantParams(KernelContext &ctx, const Tensor &x,
                                   const Tensor &scale) {
  QuantParams p;
  if (scale.numel() == 1 && scale.rank() <= 1)
    return p;
  auto axis = normalizeAxis(ctx.getInt("axis", 1), x.rank());
  if (!axis)
    return ctx.error("axis out of range");
  p.axis = *axis;
  p.dim = x.dim(*axis);
  for (int64_t d = *axis + 1; d < x.rank(); ++d)
    p.inner *= x.dim(d);
  p.block = ctx.getInt("block_size", 0);
  if (p.block < 0)
    return ctx.error("block_size must be >= 0");
  if (p.block) {
    // Blocked (opset 21): the scale has the input's rank, the blocked axis
    // ceil(dim / block_size) long and the others the input's.
    std::vector<int64_t> want(x.shape().begin(), x.shape().end());
    want[*axis] = (p.dim + p.block - 1) / p.block;
    if (scale.shape() != llvm::ArrayRef<int64_t>(want))
      return ctx.error("blocked quantization: scale of shape " +
                       shapeToString(scale.shape()) + " where input " +
                       shapeToString(x.shape()) + " with axis " +
                       std::to_string(*axis) + " and block_size " +
                       std::to_string(p.block) + " needs " +
                       shapeToString(want));
    return p;
  }
  if (scale.rank() != 1 || scale.dim(0) != p.dim) {
    return ctx.error("scale of shape " + shapeToString(scale.shape()) +
                     " does not match axis " + std::to_string(*axis) +
                     " of size " + std::to_string(p.dim));
  }
  return p;
}

LogicalResult quantizeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &scale = ctx.in(1);
  DataType outType = DataType::UINT8;
  if (ctx.has(2))
    outType = ctx.in(2).dtype();
  else if (int64_t od = ctx.getInt("output_dtype", 0))
    outType = static_cast<DataType>(od);
  auto [lo, hi] = intRange(outType);
  if (!std::isfinite(lo))
    return ctx.unsupported("quantizing to " + typeName(outType));
  auto p = quantParams(ctx, x, scale);
  if (failed(p))
    return failure();
  Tensor y(outType, x.shape());
  // x / scale is computed in the input's precision (float32 unless the
  // input is double), as the spec's reference does; then rounded.
  bool inDouble = x.dtype() == DataType::DOUBLE;
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t q = p->index(i);
    double zp = ctx.has(2) ? ctx.in(2).getDouble(q) : 0;
    double ratio = inDouble ? x.getDouble(i) / scale.getDouble(q)
                            : static_cast<float>(x.getDouble(i)) /
                                  static_cast<float>(scale.getDouble(q));
    double v = roundHalfEven(ratio) + zp;
    y.setDouble(i, std::min(hi, std::max(lo, v)));
  }
  ctx.set(0, y);
  return success();
}

LogicalResult dequantizeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &scale = ctx.in(1);
  auto p = quantParams(ctx, x, scale);
  if (failed(p))
    return failure();
  Tensor y(scale.dtype(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t q = p->index(i);
    double zp = ctx.has(2) ? ctx.in(2).getDouble(q) : 0;
    y.setDouble(i, (x.getDouble(i) - zp) * scale.getDouble(q));
  }
  ctx.set(0, y);
  return success();
}

LogicalResult dynamicQuantizeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  double mn = 0, mx = 0; // The range always includes zero.
  for (int64_t i = 0; i < x.numel(); ++i) {
    mn = std::min(mn, x.getDouble(i));
    mx = std::max(mx, x.getDouble(i));
  }
  // Computed in float as the spec's reference does.
  float scale = static_cast<float>((mx - mn) / 255.0);
  float zpf = scale == 0 ? 0.0f
                         : static_cast<float>(-mn) / scale;
  double zp = std::min(255.0, std::max(0.0, roundHalfEven(zpf)));
  Tensor y(DataType::UINT8, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    double v = scale == 0 ? zp
                          : roundHalfEven(static_cast<float>(x.getDouble(i)) /
                                          scale) +
                                zp;
    y.setDouble(i, std::min(255.0, std::max(0.0, v)));
  }
  ctx.set(0, y);
  ctx.set(1, Tensor::scalar(DataType::FLOAT, scale));
  Tensor z(DataType::UINT8, {});
  z.setDouble(0, zp);
  ctx.set(2, z);
  return success();
}

/// x - zero_point as int32, with a per-tensor or per-row zero point along
/// `axis` (the axis per-channel zero points index).
Tensor centered(const Tensor &x, const Tensor *zp, int64_t axis) {
  Tensor y(DataType::INT32, x.shape());
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < x.rank(); ++d)
    inner *= x.dim(d);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t z = 0;
    if (zp && zp->numel() == 1)
      z = zp->getInt(0);
    else if (zp)
      z = zp->getInt((i / inner) % x.dim(axis));
    y.data<int32_t>()[i] = static_cast<int32_t>(x.getInt(i) - z);
  }
  return y;
}

/// Integer matrix product with broadcasting batch dims; int32 result.
FailureOr<Tensor> intMatMul(KernelContext &ctx, const Tensor &a,
                            const Tensor &b) {
  Tensor a2 = a.rank() == 1 ? a.reshaped({1, a.dim(0)}) : a;
  Tensor b2 = b.rank() == 1 ? b.reshaped({b.dim(0), 1}) : b;
  int64_t M = a2.dim(-2), K = a2.dim(-1), N = b2.dim(-1);
  if (b2.dim(-2) != K)
    return ctx.error("inner dimensions disagree");
  Shape aBatch(a2.shape().drop_back(2)), bBatch(b2.shape().drop_back(2));
  auto batch = broadcastShapes({aBatch, bBatch});
  if (!batch)
    return ctx.error("batch dimensions do not broadcast");
  Shape out = *batch;
  out.push_back(M);
  out.push_back(N);
  Tensor c(DataType::INT32, out);
  std::array<Shape, 2> strides = {broadcastStrides(aBatch, *batch),
                                  broadcastStrides(bBatch, *batch)};
  forEachBroadcast<2>(*batch, strides, [&](int64_t i, const auto &off) {
    const int32_t *pa = a2.data<int32_t>() + off[0] * M * K;
    const int32_t *pb = b2.data<int32_t>() + off[1] * K * N;
    int32_t *pc = c.data<int32_t>() + i * M * N;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        uint32_t acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += static_cast<uint32_t>(pa[m * K + k]) *
                 static_cast<uint32_t>(pb[k * N + n]);
        pc[m * N + n] = static_cast<int32_t>(acc);
      }
  });
  Shape finalShape(out);
  if (b.rank() == 1)
    finalShape.erase(finalShape.end() - 1);
  if (a.rank() == 1)
    finalShape.erase(finalShape.end() - (b.rank() == 1 ? 1 : 2));
  return c.reshaped(finalShape);
}

LogicalResult matMulIntegerK(KernelContext &ctx) {
  const Tensor &a = ctx.in(0), &b = ctx.in(1);
  Tensor ca = centered(a, ctx.has(2) ? &ctx.in(2) : nullptr,
                       std::max<int64_t>(0, a.rank() - 2));
  // B's zero point is per column (its last axis).
  Tensor cb = centered(b, ctx.has(3) ? &ctx.in(3) : nullptr, b.rank() - 1);
  auto c = intMatMul(ctx, ca, cb);
  if (failed(c))
    return failure();
  ctx.set(0, *c);
  return success();
}

/// Convolution of int32 tensors with Conv's geometry (groups, strides,
/// dilations, pads, auto_pad), accumulating in int32 with wrap-around.
LogicalResult intConv(KernelContext &ctx, const Tensor &x, const Tensor &w,
                      Tensor &out) {
  int64_t group = ctx.getInt("group", 1);
  int64_t N = x.dim(0), C = x.dim(1), M = w.dim(0);
  if (x.rank() < 3 || w.rank() != x.rank() || C % group ||
      w.dim(1) != C / group)
    return ctx.error("X and W shapes do not match");
  int64_t n = x.rank() - 2;
  auto vec = [&](llvm::StringRef name, int64_t size, int64_t dflt) {
    auto v = ctx.getInts(name);
    return v ? Shape(v->begin(), v->end()) : Shape(size, dflt);
  };
  Shape stride = vec("strides", n, 1), dil = vec("dilations", n, 1),
        pads = vec("pads", 2 * n, 0);
  Shape in(x.shape().drop_front(2)), kernel(w.shape().drop_front(2)), o(n);
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  Shape padBegin(pads.begin(), pads.begin() + n);
  for (int64_t d = 0; d < n; ++d) {
    int64_t span = (kernel[d] - 1) * dil[d] + 1;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      o[d] = (in[d] + stride[d] - 1) / stride[d];
      int64_t total =
          std::max<int64_t>(0, (o[d] - 1) * stride[d] + span - in[d]);
      padBegin[d] = autoPad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
    } else {
      if (autoPad == "VALID")
        padBegin[d] = pads[d] = pads[d + n] = 0;
      o[d] = (in[d] + pads[d] + pads[d + n] - span) / stride[d] + 1;
    }
  }
  Shape outShape = {N, M};
  outShape.append(o.begin(), o.end());
  out = Tensor(DataType::INT32, outShape);
  int64_t Cg = C / group, Mg = M / group, kN = numElements(kernel),
          oN = numElements(o), iN = numElements(in);
  Shape inStrides = stridesOf(in);
  Shape oi(n), ki(n);
  for (int64_t b = 0; b < N; ++b)
    for (int64_t m = 0; m < M; ++m) {
      int64_t g = m / Mg;
      for (int64_t p = 0; p < oN; ++p) {
        int64_t rem = p;
        for (int64_t d = n - 1; d >= 0; --d) {
          oi[d] = rem % o[d];
          rem /= o[d];
        }
        uint32_t acc = 0;
        for (int64_t c = 0; c < Cg; ++c)
          for (int64_t k = 0; k < kN; ++k) {
            int64_t r = k, off = 0;
            bool inside = true;
            for (int64_t d = n - 1; d >= 0; --d) {
              ki[d] = r % kernel[d];
              r /= kernel[d];
            }
            for (int64_t d = 0; d < n && inside; ++d) {
              int64_t pos = oi[d] * stride[d] - padBegin[d] + ki[d] * dil[d];
              inside = pos >= 0 && pos < in[d];
              off += pos * inStrides[d];
            }
            if (!inside)
              continue;
            acc += static_cast<uint32_t>(
                       x.data<int32_t>()[(b * C + g * Cg + c) * iN + off]) *
                   static_cast<uint32_t>(
                       w.data<int32_t>()[(m * Cg + c) * kN + k]);
          }
        out.data<int32_t>()[(b * M + m) * oN + p] = static_cast<int32_t>(acc);
      }
    }
  return success();
}

LogicalResult convIntegerK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &w = ctx.in(1);
  Tensor cx = centered(x, ctx.has(2) ? &ctx.in(2) : nullptr, 1);
  Tensor cw = centered(w, ctx.has(3) ? &ctx.in(3) : nullptr, 0);
  Tensor y;
  if (failed(intConv(ctx, cx, cw, y)))
    return failure();
  ctx.set(0, y);
  return success();
}

/// Requantizes an int32 accumulator with scale `s` and zero point `zp`.
double requantize(double acc, double s, double zp, DataType dt) {
  auto [lo, hi] = intRange(dt);
  return std::min(hi, std::max(lo, roundHalfEven(acc * s) + zp));
}

LogicalResult qlinearConvK(KernelContext &ctx) {
  // x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B
  const Tensor &x = ctx.in(0), &w = ctx.in(3);
  Tensor cx = centered(x, &ctx.in(2), 1);
  Tensor cw = centered(w, &ctx.in(5), 0);
  Tensor acc;
  if (failed(intConv(ctx, cx, cw, acc)))
    return failure();
  const Tensor &xs = ctx.in(1), &ws = ctx.in(4), &ys = ctx.in(6),
               &yzp = ctx.in(7);
  int64_t M = acc.dim(1), inner = acc.numel() / (acc.dim(0) * M);
  Tensor y(yzp.dtype(), acc.shape());
  for (int64_t i = 0; i < acc.numel(); ++i) {
    int64_t m = (i / inner) % M;
    double a = acc.data<int32_t>()[i];
    if (ctx.has(8))
      a += ctx.in(8).getDouble(m);
    double s = xs.getDouble(0) * ws.getDouble(ws.numel() == 1 ? 0 : m) /
               ys.getDouble(0);
    y.setDouble(i, requantize(a, s, yzp.getDouble(0), yzp.dtype()));
  }
  ctx.set(0, y);
  return success();
}

LogicalResult qlinearMatMulK(KernelContext &ctx) {
  // a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp
  const Tensor &a = ctx.in(0), &b = ctx.in(3);
  Tensor ca = centered(a, &ctx.in(2), std::max<int64_t>(0, a.rank() - 2));
  Tensor cb = centered(b, &ctx.in(5), b.rank() - 1);
  auto acc = intMatMul(ctx, ca, cb);
  if (failed(acc))
    return failure();
  const Tensor &as = ctx.in(1), &bs = ctx.in(4), &ys = ctx.in(6),
               &yzp = ctx.in(7);
  int64_t N = acc->dim(-1);
  Tensor y(yzp.dtype(), acc->shape());
  for (int64_t i = 0; i < acc->numel(); ++i) {
    int64_t col = i % N;
    double s = as.getDouble(0) * bs.getDouble(bs.numel() == 1 ? 0 : col) /
               ys.getDouble(0);
    // The spec computes in float: round the scaled value as float does.
    float scaled = static_cast<float>(acc->data<int32_t>()[i]) *
                   static_cast<float>(s);
    auto [lo, hi] = intRange(yzp.dtype());
    double v = roundHalfEven(scaled) + yzp.getDouble(0);
    y.setDouble(i, std::min(hi, std::max(lo, v)));
  }
  ctx.set(0, y);
  return success();
}

} // namespace

void registerQuantKernels(KernelRegistry &r) {
  r.add("QuantizeLinear", quantizeK);
  r.add("DequantizeLinear", dequantizeK);
  r.add("DynamicQuantizeLinear", dynamicQuantizeK);
  r.add("MatMulInteger", matMulIntegerK);
  r.add("ConvInteger", convIntegerK);
  r.add("QLinearConv", qlinearConvK);
  r.add("QLinearMatMul", qlinearMatMulK);
}

} // namespace amk::ref
