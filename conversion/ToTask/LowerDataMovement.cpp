//===- LowerDataMovement.cpp - Data movement ------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: Transpose, Slice, Concat, Split and Gather as strided copies and gathers (design.md).
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

void Scheduler::addCopy(Operation *op, int src, int dst,
                        ArrayRef<int64_t> dims, ArrayRef<int64_t> srcStrides,
                        int64_t srcOff, ArrayRef<int64_t> dstStrides,
                        int64_t dstOff, int64_t eb, bool dstContiguous) {
  KOp &k = newKOp(op, AMK_RT_K_COPY);
  k.slots = {src, dst};
  int64_t rank = dims.size();
  k.ip = {eb, rank, srcOff, dstOff};
  k.ip.append(dims.begin(), dims.end());
  k.ip.append(srcStrides.begin(), srcStrides.end());
  k.ip.append(dstStrides.begin(), dstStrides.end());
  int64_t last = rank ? dims.back() : 1;
  k.rows = rank ? product(dims.drop_back()) : 1;
  int64_t numel = product(dims);
  k.bytes = 2.0 * numel * eb;
  k.flops = 0;
  int64_t srcBytes = tensors[src].bytes, dstBytes = tensors[dst].bytes;
  // Bytes of the destination a piece spans (for non-contiguous pieces).
  int64_t lo = dstOff, hi = dstOff;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t ext = (dims[d] - 1) * dstStrides[d];
    (ext < 0 ? lo : hi) += ext;
  }
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(src, srcBytes));
    if (dstContiguous)
      wr.push_back(span(dst, (dstOff + r0 * last) * eb,
                        (dstOff + r1 * last) * eb));
    else
      wr.push_back(span(dst, lo * eb, std::min(dstBytes, (hi + 1) * eb)));
  };
}

LogicalResult Scheduler::lowerTranspose(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> perm = intsAttr(op, "perm");
  int64_t rank = xt.getRank();
  if (perm.empty())
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  SmallVector<int64_t> inStrides = contiguousStrides(xt.getShape()), src;
  for (int64_t p : perm)
    src.push_back(inStrides[p]);
  addCopy(op, *xi, yi, yt.getShape(), src, 0,
          contiguousStrides(yt.getShape()), 0,
          elemBytes(xt.getElementType()), true);
  return success();
}

LogicalResult Scheduler::lowerSlice(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = xt.getRank();
  auto starts = amk::onnx::getIntValues(op->getOperand(1));
  auto ends = amk::onnx::getIntValues(op->getOperand(2));
  std::optional<SmallVector<int64_t>> axes, steps;
  if (op->getNumOperands() > 3 && !isNoneValue(op->getOperand(3)))
    axes = amk::onnx::getIntValues(op->getOperand(3));
  if (op->getNumOperands() > 4 && !isNoneValue(op->getOperand(4)))
    steps = amk::onnx::getIntValues(op->getOperand(4));
  if (!starts || !ends || (op->getNumOperands() > 3 &&
                           !isNoneValue(op->getOperand(3)) && !axes) ||
      (op->getNumOperands() > 4 && !isNoneValue(op->getOperand(4)) && !steps))
    return unsupported(op, "Slice with non-constant starts/ends/axes/steps");
  SmallVector<int64_t> st(rank, 0), sp(rank, 1);
  for (size_t i = 0; i < starts->size(); ++i) {
    int64_t ax = axes ? (*axes)[i] : (int64_t)i;
    if (ax < 0)
      ax += rank;
    int64_t dim = xt.getDimSize(ax), step = steps ? (*steps)[i] : 1;
    int64_t s = (*starts)[i];
    if (s < 0)
      s += dim;
    s = step > 0 ? std::clamp<int64_t>(s, 0, dim)
                 : std::clamp<int64_t>(s, 0, dim - 1);
    st[ax] = s;
    sp[ax] = step;
  }
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  SmallVector<int64_t> inStrides = contiguousStrides(xt.getShape()), src;
  int64_t off = 0;
  for (int64_t d = 0; d < rank; ++d) {
    off += st[d] * inStrides[d];
    src.push_back(inStrides[d] * sp[d]);
  }
  addCopy(op, *xi, yi, yt.getShape(), src, off,
          contiguousStrides(yt.getShape()), 0, elemBytes(xt.getElementType()),
          true);
  return success();
}

LogicalResult Scheduler::lowerConcat(Operation *op) {
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = yt.getRank(), axis = intAttr(op, "axis", 0);
  if (axis < 0)
    axis += rank;
  SmallVector<int> ins;
  for (Value v : op->getOperands()) {
    auto t = getTensor(v, op);
    if (failed(t))
      return failure();
    ins.push_back(*t);
  }
  int yi = defineOutput(op->getResult(0));
  SmallVector<int64_t> outStrides = contiguousStrides(yt.getShape());
  int64_t at = 0;
  bool contiguous = product(yt.getShape().take_front(axis)) == 1;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    auto it = cast<RankedTensorType>(v.getType());
    if (it.getNumElements() == 0)
      continue;
    addCopy(op, ins[i], yi, it.getShape(), contiguousStrides(it.getShape()),
            0, outStrides, at * outStrides[axis],
            elemBytes(yt.getElementType()), contiguous);
    at += it.getDimSize(axis);
  }
  return success();
}

LogicalResult Scheduler::lowerSplit(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t rank = xt.getRank(), axis = intAttr(op, "axis", 0);
  if (axis < 0)
    axis += rank;
  // The pieces' extents are the results' static shapes, which shape
  // inference derived from the split sizes (operand, attribute or equal).
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  SmallVector<int64_t> inStrides = contiguousStrides(xt.getShape());
  int64_t at = 0;
  for (Value y : op->getResults()) {
    auto yt = cast<RankedTensorType>(y.getType());
    int yi = defineOutput(y);
    if (yt.getNumElements() != 0)
      addCopy(op, *xi, yi, yt.getShape(), inStrides, at * inStrides[axis],
              contiguousStrides(yt.getShape()), 0,
              elemBytes(xt.getElementType()), true);
    at += yt.getDimSize(axis);
  }
  if (at != xt.getDimSize(axis))
    return unsupported(op, "Split whose outputs do not cover the input");
  return success();
}

LogicalResult Scheduler::lowerGather(Operation *op) {
  auto dt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto it = cast<RankedTensorType>(op->getOperand(1).getType());
  int64_t axis = intAttr(op, "axis", 0);
  if (axis < 0)
    axis += dt.getRank();
  if (!it.getElementType().isInteger(64) && !it.getElementType().isInteger(32))
    return unsupported(op, "indices must be int32 or int64");
  auto di = getTensor(op->getOperand(0), op),
       ii = getTensor(op->getOperand(1), op);
  if (failed(di) || failed(ii))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_GATHER);
  k.slots = {*di, *ii, yi};
  int64_t outer = product(dt.getShape().take_front(axis));
  int64_t inner = product(dt.getShape().drop_front(axis + 1));
  int64_t nidx = it.getNumElements(), eb = elemBytes(dt.getElementType());
  k.ip = {outer, dt.getDimSize(axis), inner, nidx, eb,
          amk::task::runtimeDtype(it.getElementType())};
  k.rows = outer * nidx;
  k.bytes = 2.0 * outer * nidx * inner * eb;
  int ds = *di, is = *ii;
  int64_t dBytes = tensors[ds].bytes, iBytes = tensors[is].bytes;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(ds, dBytes));
    rd.push_back(whole(is, iBytes));
    wr.push_back(span(yi, r0 * inner * eb, r1 * inner * eb));
  };
  return success();
}

/// GatherElements: one task row per output element range; the data is
/// read whole (any element may be picked), the indices in step.
LogicalResult Scheduler::lowerGatherElements(Operation *op) {
  auto dt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto it = cast<RankedTensorType>(op->getOperand(1).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = dt.getRank(), axis = intAttr(op, "axis", 0);
  if (axis < 0)
    axis += rank;
  if (rank > AMK_GE_MAX_RANK || axis < 0 || axis >= rank)
    return unsupported(op, "the kernel handles rank 1 to " +
                               Twine(AMK_GE_MAX_RANK));
  if (!it.getElementType().isInteger(64) && !it.getElementType().isInteger(32))
    return unsupported(op, "indices must be int32 or int64");
  if (yt.getNumElements() == 0)
    return unsupported(op, "its result has no elements");
  auto di = getTensor(op->getOperand(0), op),
       ii = getTensor(op->getOperand(1), op);
  if (failed(di) || failed(ii))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_GATHER_ELEMENTS);
  k.slots = {*di, *ii, yi};
  int64_t eb = elemBytes(dt.getElementType());
  int64_t ib = elemBytes(it.getElementType());
  k.ip = {rank, axis, eb, amk::task::runtimeDtype(it.getElementType())};
  k.ip.append(yt.getShape().begin(), yt.getShape().end());
  k.ip.append(dt.getShape().begin(), dt.getShape().end());
  int64_t numel = yt.getNumElements();
  k.rows = numel, k.rowAlign = 64;
  k.bytes = numel * (2.0 * eb + ib);
  int ds = *di, is = *ii;
  int64_t dBytes = tensors[ds].bytes;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(ds, dBytes));
    rd.push_back(span(is, r0 * ib, r1 * ib));
    wr.push_back(span(yi, r0 * eb, r1 * eb));
  };
  return success();
}

} // namespace amk::totask
