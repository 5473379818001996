//===- LowerRope.cpp - Rotary position embedding --------------------------===//
//
// Part of AMK. amk-schedule-megakernel: amk.rope on the ROPE kernel, a task
// per range of rows of X (design.md).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "dialect/AMK/AMKDialect.h"

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

LogicalResult Scheduler::lowerRope(Operation *op) {
  auto rope = cast<fused::RopeOp>(op);
  RankedTensorType xt = rope.getX().getType();
  if (!xt.getElementType().isF32())
    return unsupported(op, "the ROPE kernel computes float32 only");
  int64_t rank = xt.getRank() - 1, d = xt.getShape().back();
  if (rank > AMK_ROPE_MAX_RANK)
    return unsupported(op, "X has more than " + Twine(AMK_ROPE_MAX_RANK + 1) +
                               " axes");
  ArrayRef<int64_t> rowDims = xt.getShape().drop_back();
  // Each table's stride along the rows' axes (its own last axis is read
  // contiguously).
  auto rowStrides = [&](Value table) {
    SmallVector<int64_t> st = broadcastStrides(
        cast<RankedTensorType>(table.getType()).getShape(), rank + 1);
    st.pop_back();
    return st;
  };
  auto xi = getTensor(rope.getX(), op);
  auto ci = getTensor(rope.getCos(), op);
  auto si = getTensor(rope.getSin(), op);
  if (failed(xi) || failed(ci) || failed(si))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_ROPE);
  k.slots = {*xi, *ci, *si, yi};
  k.ip = {d, rope.getInterleaved() ? 1 : 0, rank};
  k.ip.append(rowDims.begin(), rowDims.end());
  k.ip.append(rowStrides(rope.getCos()));
  k.ip.append(rowStrides(rope.getSin()));
  int64_t rows = product(rowDims);
  k.rows = rows;
  k.flops = 3.0 * rows * d;
  int64_t cBytes = tensors[*ci].bytes, sBytes = tensors[*si].bytes;
  k.bytes = 8.0 * rows * d + cBytes + sBytes;
  int x = *xi, c = *ci, s = *si;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(x, r0 * d * 4, r1 * d * 4));
    rd.push_back(whole(c, cBytes));
    rd.push_back(whole(s, sBytes));
    wr.push_back(span(yi, r0 * d * 4, r1 * d * 4));
  };
  return success();
}

} // namespace amk::totask
