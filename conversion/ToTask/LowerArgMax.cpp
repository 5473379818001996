//===- LowerArgMax.cpp - ArgMax and ArgMin --------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: onnx.ArgMax and onnx.ArgMin on the
// ARGMAX kernel, any numeric element type (design.md).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "dialect/ONNX/ONNXDialect.h"

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

LogicalResult Scheduler::lowerArgMax(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t dtype = runtimeDtype(xt.getElementType());
  if (dtype < 0 || xt.getElementType().isInteger(1))
    return unsupported(op, "its element type has no kernel");
  int64_t eb = elemBytes(xt.getElementType());
  int64_t rank = xt.getRank(), axis = intAttr(op, "axis", 0);
  if (axis < -rank || axis >= rank)
    return unsupported(op, "axis " + Twine(axis) + " is out of range");
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> s = xt.getShape();
  int64_t outer = product(s.take_front(axis)), len = s[axis],
          inner = product(s.drop_front(axis + 1));
  if (len == 0)
    return unsupported(op, "the reduced axis is empty");
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  // keepdims only changes the result's type, not its bytes.
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_ARGMAX);
  k.variant = isa<onnx::ArgMinOp>(op) ? AMK_ARGMAX_VARIANT_MIN
                                      : AMK_ARGMAX_VARIANT_MAX;
  k.slots = {*xi, yi};
  k.ip = {outer, len, inner, intAttr(op, "select_last_index", 0) != 0, dtype};
  k.rows = outer;
  k.flops = 1.0 * outer * len * inner;
  k.bytes = eb * outer * len * inner + 8.0 * outer * inner;
  int xs = *xi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * len * inner * eb, r1 * len * inner * eb));
    wr.push_back(span(yi, r0 * inner * 8, r1 * inner * 8));
  };
  return success();
}

} // namespace amk::totask
