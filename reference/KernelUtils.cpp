//===- KernelUtils.cpp - Helpers for reference kernels --------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include <cmath>

namespace amk::ref {

std::optional<Shape> broadcastShapes(llvm::ArrayRef<Shape> shapes) {
  size_t rank = 0;
  for (const Shape &s : shapes)
    rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape &s : shapes) {
    size_t off = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t d = s[i];
      int64_t &o = out[off + i];
      if (d == o || d == 1)
        continue;
      if (o == 1) {
        o = d;
        continue;
      }
      return std::nullopt;
    }
  }
  return out;
}

Shape broadcastStrides(llvm::ArrayRef<int64_t> in,
                       llvm::ArrayRef<int64_t> out) {
  Shape strides(out.size(), 0);
  Shape own = stridesOf(in);
  size_t off = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    strides[off + i] = in[i] == 1 ? 0 : own[i];
  return strides;
}

mlir::LogicalResult checkComputedSize(KernelContext &ctx,
                                      llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return ctx.error("the result shape " + shapeToString(shape) +
                       " has a negative dimension");
    if (d != 0 && n > kMaxComputedElements / d)
      return ctx.error("the result shape " + shapeToString(shape) +
                       " has more than 2^30 elements (computed from the "
                       "input values)");
    n *= d;
  }
  if (n > kMaxComputedElements)
    return ctx.error("the result shape " + shapeToString(shape) +
                     " has more than 2^30 elements (computed from the input "
                     "values)");
  return mlir::success();
}

Tensor convertTensor(const Tensor &t, DataType dt) {
  if (t.dtype() == dt)
    return t;
  Tensor out(dt, t.shape());
  int64_t n = t.numel();
  bool srcFloat = t.dtype() == DataType::FLOAT ||
                  t.dtype() == DataType::DOUBLE ||
                  t.dtype() == DataType::FLOAT16 ||
                  t.dtype() == DataType::BFLOAT16;
  for (int64_t i = 0; i < n; ++i) {
    if (srcFloat)
      out.setDouble(i, t.getDouble(i));
    else if (t.dtype() == DataType::UINT64)
      out.setDouble(i, static_cast<double>(t.data<uint64_t>()[i]));
    else
      out.setInt(i, t.getInt(i));
  }
  return out;
}

std::pair<double, double> meanInvStd(const Tensor &x, int64_t base, int64_t n,
                                     double eps, bool centered) {
  double m = 0, v = 0;
  if (centered) {
    for (int64_t i = 0; i < n; ++i)
      m += x.getDouble(base + i);
    m /= n;
  }
  for (int64_t i = 0; i < n; ++i) {
    double d = x.getDouble(base + i) - m;
    v += d * d;
  }
  v /= n;
  return {m, 1 / std::sqrt(v + eps)};
}

} // namespace amk::ref
