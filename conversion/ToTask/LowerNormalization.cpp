//===- LowerNormalization.cpp - Normalization -----------------------------===//
//
// Part of AMK. amk-schedule-megakernel: Softmax and layer normalization (design.md).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "transforms/Utils/PassUtils.h"
#include "transforms/Utils/Patterns.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

LogicalResult Scheduler::lowerSoftmax(Operation *op, Value x, int64_t axis,
                                      Value y, bool log, int variant) {
  auto xt = cast<RankedTensorType>(x.getType());
  if (!xt.getElementType().isF32())
    return unsupported(op, "only float32 softmax and log-softmax are "
                           "implemented");
  auto xi = getTensor(x, op);
  if (failed(xi))
    return failure();
  ArrayRef<int64_t> s = xt.getShape();
  int64_t outer = product(s.take_front(axis)), len = s[axis],
          inner = product(s.drop_front(axis + 1));
  // In place when fused after an elementwise kernel (same tensor).
  int yi = (x == y) ? *xi : defineOutput(y);
  KOp &k = newKOp(op, AMK_RT_K_SOFTMAX);
  k.variant = variant >= 0 ? variant
              : log        ? AMK_SOFTMAX_VARIANT_LOG
                           : AMK_SOFTMAX_VARIANT_PLAIN;
  k.slots = {*xi, yi};
  k.ip = {outer, len, inner};
  k.rows = outer;
  k.flops = 5.0 * outer * len * inner;
  k.bytes = 8.0 * outer * len * inner;
  int xs = *xi;
  int64_t rowBytes = len * inner * 4;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * rowBytes, r1 * rowBytes));
    wr.push_back(span(yi, r0 * rowBytes, r1 * rowBytes));
  };
  return success();
}

LogicalResult Scheduler::lowerLayerNorm(Operation *op) {
  Value x = op->getOperand(0);
  auto xt = cast<RankedTensorType>(x.getType());
  // Mean and InvStdDev (ONNX LayerNormalization's optional outputs), one
  // float per normalized row, when something reads them.
  SmallVector<Value, 2> stats;
  for (Value r : op->getResults().drop_front())
    if (!isNoneValue(r) && !r.use_empty()) {
      auto t = dyn_cast<RankedTensorType>(r.getType());
      if (!t || !t.getElementType().isF32())
        return unsupported(op, "LayerNorm's mean and inverse-deviation "
                               "outputs are implemented in float32 only");
      stats.push_back(r);
    } else {
      stats.push_back(Value());
    }
  if (!xt.getElementType().isF32())
    return unsupported(op, "only float32 LayerNorm is implemented");
  int64_t rank = xt.getRank(), axis = intAttr(op, "axis", -1);
  if (axis < 0)
    axis += rank;
  int64_t rows = product(xt.getShape().take_front(axis)),
          cols = product(xt.getShape().drop_front(axis));
  auto xi = getTensor(x, op);
  if (failed(xi))
    return failure();
  SmallVector<int> opt = {-1, -1};
  for (int i = 0; i < 2; ++i) {
    Value v = (int)op->getNumOperands() > 1 + i ? op->getOperand(1 + i) : Value();
    if (isNoneValue(v))
      continue;
    if (cast<ShapedType>(v.getType()).getNumElements() != cols)
      return unsupported(op, "scale and bias must cover the normalized "
                             "axes exactly");
    auto t = getTensor(v, op);
    if (failed(t))
      return failure();
    opt[i] = *t;
  }
  int yi = defineOutput(op->getResult(0));
  int st[2] = {-1, -1};
  for (auto [i, v] : llvm::enumerate(stats))
    if (v) {
      if (cast<ShapedType>(v.getType()).getNumElements() != rows)
        return unsupported(op, "its mean/inverse-deviation output does not "
                               "have one element per normalized row");
      st[i] = defineOutput(v);
    }
  KOp &k = newKOp(op, AMK_RT_K_LAYERNORM);
  k.slots = {*xi, yi, opt[0], opt[1]};
  if (st[0] >= 0 || st[1] >= 0)
    k.slots.append({st[0], st[1]});
  k.ip = {rows, cols, (int64_t)op->hasAttr("rms") &&
                          op->getAttrOfType<BoolAttr>("rms") &&
                          op->getAttrOfType<BoolAttr>("rms").getValue()};
  k.fp = {floatAttr(op, "epsilon", 1e-5f)};
  k.rows = rows;
  k.flops = 8.0 * rows * cols;
  k.bytes = 8.0 * rows * cols;
  int xs = *xi, s0 = opt[0], s1 = opt[1], mi = st[0], ii = st[1];
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * cols * 4, r1 * cols * 4));
    if (s0 >= 0)
      rd.push_back(whole(s0, cols * 4));
    if (s1 >= 0)
      rd.push_back(whole(s1, cols * 4));
    wr.push_back(span(yi, r0 * cols * 4, r1 * cols * 4));
    for (int t : {mi, ii})
      if (t >= 0)
        wr.push_back(span(t, r0 * 4, r1 * 4));
  };
  return success();
}

} // namespace amk::totask

namespace amk::totask {

/// InstanceNormalization and LRN over [N, C, S] (S the spatial dims
/// flattened), one row per (n, c) plane.
LogicalResult Scheduler::lowerChannelNorm(Operation *op) {
  bool instance = isa<onnx::InstanceNormalizationOp>(op);
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  if (!xt.getElementType().isF32() || xt.getRank() < 2)
    return unsupported(op, "only float32 inputs of rank 2 or more are "
                           "implemented");
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1),
          S = product(xt.getShape().drop_front(2));
  SmallVector<int> ins;
  for (Value v : op->getOperands()) {
    auto t = getTensor(v, op);
    if (failed(t))
      return failure();
    ins.push_back(*t);
  }
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, instance ? AMK_RT_K_INSTANCE_NORM : AMK_RT_K_LRN);
  k.slots.assign(ins.begin(), ins.end());
  k.slots.push_back(yi);
  k.ip = {N, C, S};
  if (instance) {
    k.fp = {floatAttr(op, "epsilon", 1e-5f)};
  } else {
    k.ip.push_back(intAttr(op, "size", 1));
    k.fp = {floatAttr(op, "alpha", 1e-4f), floatAttr(op, "beta", 0.75f),
            floatAttr(op, "bias", 1.f)};
  }
  k.rows = N * C;
  k.flops = 4.0 * xt.getNumElements();
  k.bytes = 8.0 * xt.getNumElements();
  int64_t plane = S * 4;
  SmallVector<std::pair<int, int64_t>> params;
  for (size_t i = 1; i < ins.size(); ++i)
    params.push_back({ins[i], tensors[ins[i]].bytes});
  int xs = ins[0];
  int64_t xBytes = tensors[xs].bytes;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    // LRN reads neighbouring channels: the whole input.
    if (instance)
      rd.push_back(span(xs, r0 * plane, r1 * plane));
    else
      rd.push_back(whole(xs, xBytes));
    for (auto [t, b] : params)
      rd.push_back(whole(t, b));
    wr.push_back(span(yi, r0 * plane, r1 * plane));
  };
  return success();
}

} // namespace amk::totask
