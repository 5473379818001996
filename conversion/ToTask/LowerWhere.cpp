//===- LowerWhere.cpp - Where ---------------------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: onnx.Where on the WHERE kernel,
// any element type the runtime stores, with broadcasting (design.md).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "dialect/ONNX/ONNXDialect.h"

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

LogicalResult Scheduler::lowerWhere(Operation *op) {
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = yt.getRank();
  if (rank > AMK_WHERE_MAX_RANK)
    return unsupported(op, "the WHERE kernel handles rank up to " +
                               Twine(AMK_WHERE_MAX_RANK));
  if (yt.getNumElements() == 0)
    return unsupported(op, "its result has no elements");
  SmallVector<int> ids;
  SmallVector<SmallVector<int64_t>> strides;
  for (Value v : op->getOperands()) {
    auto t = getTensor(v, op);
    if (failed(t))
      return failure();
    ids.push_back(*t);
    // Right-aligned numpy broadcasting: a missing or size-1 axis has
    // stride 0 over the output.
    ArrayRef<int64_t> shape = cast<RankedTensorType>(v.getType()).getShape();
    SmallVector<int64_t> own = contiguousStrides(shape);
    SmallVector<int64_t> s(rank, 0);
    int64_t lead = rank - (int64_t)shape.size();
    for (int64_t d = 0; d < (int64_t)shape.size(); ++d)
      if (shape[d] != 1)
        s[lead + d] = own[d];
    strides.push_back(s);
  }
  int64_t eb = elemBytes(yt.getElementType());
  int yi = defineOutput(op->getResult(0));
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
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    bool sameShape = cast<RankedTensorType>(v.getType()).getShape() ==
                     yt.getShape();
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

} // namespace amk::totask
