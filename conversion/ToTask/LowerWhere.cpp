//===- LowerWhere.cpp - Where ---------------------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: onnx.Where on the WHERE kernel,
// any element type the runtime stores, with broadcasting; Trilu as a
// WHERE over a constant mask (design.md).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "transforms/Utils/PassUtils.h"

#include "dialect/ONNX/ONNXDialect.h"

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

LogicalResult Scheduler::lowerWhere(Operation *op) {
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int> ids;
  SmallVector<SmallVector<int64_t>> shapes;
  for (Value v : op->getOperands()) {
    auto t = getTensor(v, op);
    if (failed(t))
      return failure();
    ids.push_back(*t);
    auto s = cast<RankedTensorType>(v.getType()).getShape();
    shapes.push_back(SmallVector<int64_t>(s.begin(), s.end()));
  }
  return emitWhere(op, ids, shapes, op->getResult(0), yt);
}

LogicalResult Scheduler::emitWhere(Operation *op, ArrayRef<int> ids,
                                   ArrayRef<SmallVector<int64_t>> shapes,
                                   Value result, RankedTensorType yt) {
  int64_t rank = yt.getRank();
  if (rank > AMK_WHERE_MAX_RANK)
    return unsupported(op, "the WHERE kernel handles rank up to " +
                               Twine(AMK_WHERE_MAX_RANK));
  if (yt.getNumElements() == 0)
    return unsupported(op, "its result has no elements");
  SmallVector<SmallVector<int64_t>> strides;
  for (ArrayRef<int64_t> shape : shapes) {
    // Right-aligned numpy broadcasting: a missing or size-1 axis has
    // stride 0 over the output.
    SmallVector<int64_t> own = contiguousStrides(shape);
    SmallVector<int64_t> s(rank, 0);
    int64_t lead = rank - (int64_t)shape.size();
    for (int64_t d = 0; d < (int64_t)shape.size(); ++d)
      if (shape[d] != 1)
        s[lead + d] = own[d];
    strides.push_back(s);
  }
  int64_t eb = elemBytes(yt.getElementType());
  int yi = defineOutput(result);
  KOp &k = newKOp(op, AMK_RT_K_WHERE);
  k.slots = {ids[0], ids[1], ids[2], yi};
  k.ip = {rank, eb};
  k.ip.append(yt.getShape().begin(), yt.getShape().end());
  for (const SmallVector<int64_t> &s : strides)
    k.ip.append(s.begin(), s.end());
  int64_t numel = yt.getNumElements();
  k.rows = numel, k.rowAlign = 64;
  k.flops = numel;
  k.bytes = numel * (1.0 + 3.0 * eb);
  // An operand of the output's shape is read in step with the output; a
  // broadcast one, conservatively, whole.
  SmallVector<std::pair<int, int64_t>> reads; // (tensor, element bytes or 0)
  for (auto [i, shape] : llvm::enumerate(shapes)) {
    bool sameShape = ArrayRef<int64_t>(shape) == yt.getShape();
    reads.push_back({ids[i], sameShape ? (i == 0 ? 1 : eb) : 0});
  }
  SmallVector<int64_t> readBytes;
  for (int id : ids)
    readBytes.push_back(tensors[id].bytes);
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    for (auto [i, r] : llvm::enumerate(reads))
      rd.push_back(r.second ? span(r.first, r0 * r.second, r1 * r.second)
                            : whole(r.first, readBytes[i]));
    wr.push_back(span(yi, r0 * eb, r1 * eb));
  };
  return success();
}

/// Trilu keeps the elements on one side of the k-th diagonal of the last
/// two axes and zeroes the rest: WHERE over a constant mask of those two
/// axes (broadcast over the leading ones) and a constant zero.
LogicalResult Scheduler::lowerTrilu(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  if (xt.getRank() < 2)
    return unsupported(op, "its input has rank below 2");
  int64_t k = 0;
  Value kv;
  if (op->getNumOperands() > 1 && !isNoneValue(op->getOperand(1))) {
    kv = op->getOperand(1);
    auto c = amk::getConstantTensor(kv);
    if (c && c->numel() == 1)
      k = c->toInt64Vector()[0], kv = Value();
  }
  bool upper = intAttr(op, "upper", 1) != 0;
  int64_t n = xt.getDimSize(xt.getRank() - 2), m = xt.getDimSize(xt.getRank() - 1);
  MLIRContext *ctx = op->getContext();
  auto maskType = RankedTensorType::get({n, m}, IntegerType::get(ctx, 1));
  int mask;
  if (!kv) {
    SmallVector<bool> keep;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        keep.push_back(upper ? j - i >= k : j - i <= k);
    mask = newConstTensor(maskType, DenseElementsAttr::get(maskType, keep),
                          "trilu.mask");
  } else {
    // k known at run time: the mask compares a constant j - i with it.
    auto kt = dyn_cast<RankedTensorType>(kv.getType());
    if (!kt || kt.getNumElements() != 1 || !kt.getElementType().isInteger(64))
      return unsupported(op, "its k is not one int64");
    SmallVector<int64_t> diag;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        diag.push_back(j - i);
    auto diagType = RankedTensorType::get({n, m}, IntegerType::get(ctx, 64));
    int di = newConstTensor(
        diagType, DenseElementsAttr::get(diagType, ArrayRef<int64_t>(diag)),
        "trilu.diagonal");
    auto ki = getTensor(kv, op);
    if (failed(ki))
      return failure();
    mask = newArenaTensor(maskType, "trilu.mask");
    emitTypedElementwise(op, upper ? AMK_OP_GREATER_EQUAL : AMK_OP_LESS_EQUAL,
                         AMK_TEW_I64, {di, *ki}, mask, maskType, 0, 0);
  }
  auto zeroType = RankedTensorType::get({1}, xt.getElementType());
  Attribute zero = isa<FloatType>(xt.getElementType())
                       ? Attribute(FloatAttr::get(xt.getElementType(), 0.0))
                       : Attribute(IntegerAttr::get(xt.getElementType(), 0));
  int zi = newConstTensor(zeroType, DenseElementsAttr::get(zeroType, zero),
                          "trilu.zero");
  auto x = getTensor(op->getOperand(0), op);
  if (failed(x))
    return failure();
  SmallVector<SmallVector<int64_t>> shapes = {
      {n, m},
      SmallVector<int64_t>(xt.getShape().begin(), xt.getShape().end()),
      {1}};
  return emitWhere(op, {mask, *x, zi}, shapes, op->getResult(0),
                   cast<RankedTensorType>(op->getResult(0).getType()));
}

} // namespace amk::totask
