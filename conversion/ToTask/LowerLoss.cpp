//===- LowerLoss.cpp - Losses ---------------------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss as one LOSS kernel each (kernel_params.h).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "transforms/Utils/PassUtils.h"

#include "dialect/ONNX/ONNXDialect.h"

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

LogicalResult Scheduler::lowerLoss(Operation *op) {
  bool sce = isa<amk::onnx::SoftmaxCrossEntropyLossOp>(op);
  Value x = op->getOperand(0), t = op->getOperand(1);
  Value w = op->getNumOperands() > 2 && !isNoneValue(op->getOperand(2))
                ? op->getOperand(2)
                : Value();
  auto xt = cast<RankedTensorType>(x.getType());
  auto tt = cast<RankedTensorType>(t.getType());
  if (!xt.getElementType().isF32() ||
      (w && !cast<ShapedType>(w.getType()).getElementType().isF32()))
    return unsupported(op, "only float32 losses are implemented");
  if (!tt.getElementType().isInteger(64) && !tt.getElementType().isInteger(32))
    return unsupported(op, "its targets are not int32 or int64");
  if (xt.getRank() < 2)
    return unsupported(op, "its input has rank below 2");
  StringRef red = strAttr(op, "reduction", "mean");
  int64_t reduction = red == "none" ? 0 : red == "sum" ? 1 : 2;
  if (red != "none" && red != "sum" && red != "mean")
    return unsupported(op, "reduction '" + red + "' is unknown");
  Attribute ignoreAttr = op->getAttr("ignore_index");
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1),
          D = product(xt.getShape().drop_front(2));
  auto xi = getTensor(x, op);
  auto ti = getTensor(t, op);
  if (failed(xi) || failed(ti))
    return failure();
  int wi = -1;
  if (w) {
    auto r = getTensor(w, op);
    if (failed(r))
      return failure();
    wi = *r;
  }
  int yi = defineOutput(op->getResult(0));
  int lpi = -1;
  if (sce && op->getNumResults() > 1 && !isNoneValue(op->getResult(1)))
    lpi = defineOutput(op->getResult(1));
  KOp &k = newKOp(op, AMK_RT_K_LOSS);
  k.variant = sce ? AMK_LOSS_VARIANT_SCE : AMK_LOSS_VARIANT_NLL;
  k.slots = {*xi, *ti, wi, yi, lpi};
  k.ip = {N,
          C,
          D,
          runtimeDtype(tt.getElementType()),
          reduction,
          ignoreAttr != nullptr,
          intAttr(op, "ignore_index", 0)};
  k.rows = 1;
  k.flops = (sce ? 4.0 : 1.0) * N * C * D;
  k.bytes = 4.0 * N * C * D;
  int64_t xBytes = tensors[*xi].bytes, tBytes = tensors[*ti].bytes,
          yBytes = tensors[yi].bytes;
  int64_t wBytes = wi >= 0 ? tensors[wi].bytes : 0,
          lpBytes = lpi >= 0 ? tensors[lpi].bytes : 0;
  int xs = *xi, ts = *ti;
  k.access = [=](int64_t, int64_t, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(xs, xBytes));
    rd.push_back(whole(ts, tBytes));
    if (wi >= 0)
      rd.push_back(whole(wi, wBytes));
    wr.push_back(whole(yi, yBytes));
    if (lpi >= 0)
      wr.push_back(whole(lpi, lpBytes));
  };
  return success();
}

} // namespace amk::totask
