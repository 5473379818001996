//===- EmulateQDQ.cpp - amk-emulate-qdq -----------------------------------===//
//
// Part of AMK. Turns a QDQ graph into float32 arithmetic with the same
// values (see Passes.td for the contract).
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"
#include "transforms/quantization/Passes.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace amk {
#define GEN_PASS_DEF_EMULATEQDQ
#include "transforms/quantization/Passes.h.inc"
} // namespace amk

using namespace mlir;
namespace onnx = amk::onnx;

namespace {

/// A per-tensor scale or zero point: a one-element constant (an omitted
/// zero point is 0).
std::optional<double> scalarParam(Value v) {
  if (!v || amk::isNone(v))
    return 0.0;
  auto t = dyn_cast<ShapedType>(v.getType());
  if (!t || !t.hasStaticShape() || t.getNumElements() != 1)
    return std::nullopt;
  return onnx::getSplatValue(v);
}

class EmulateQDQPass : public amk::impl::EmulateQDQBase<EmulateQDQPass> {
public:
  using EmulateQDQBase::EmulateQDQBase;

  void runOnOperation() override {
    SmallVector<Operation *> qdq;
    getOperation().walk([&](Operation *op) {
      if (isa<onnx::QuantizeLinearOp, onnx::DequantizeLinearOp>(op))
        qdq.push_back(op);
    });
    int64_t pairs = 0, folded = 0;
    // Program order: a Q of a constant folds before the DQ that reads it.
    for (Operation *op : qdq) {
      if (amk::foldOp(op, maxElements) == amk::FoldResult::Folded) {
        ++folded;
        continue;
      }
      auto dq = dyn_cast<onnx::DequantizeLinearOp>(op);
      if (!dq)
        continue;
      std::string why;
      if (succeeded(rewritePair(dq, why)))
        ++pairs;
      else
        amk::emitPassRemark(this, dq, amk::RemarkKind::Missed, "Kept",
                            onnx::describeOp(dq) + ": " + why);
    }
    // Quantize ops whose pairs were all rewritten have no reader left.
    getOperation().walk([&](onnx::QuantizeLinearOp q) {
      if (q->use_empty())
        q->erase();
    });
    amk::updateSignaturesAndErase(getOperation());
    int64_t left = 0;
    getOperation().walk([&](Operation *op) {
      if (isa<onnx::QuantizeLinearOp, onnx::DequantizeLinearOp>(op)) {
        ++left;
        if (!isa<onnx::DequantizeLinearOp>(op))
          amk::emitPassRemark(this, op, amk::RemarkKind::Missed, "Kept",
                              onnx::describeOp(op) +
                                  ": not read by a DequantizeLinear only");
      }
    });
    numPairs = pairs;
    numFolded = folded;
    numLeft = left;
    amk::PassCounters::add(this, "pairs", pairs,
                           "Q->DQ pairs rewritten to float arithmetic");
    amk::PassCounters::add(this, "folded", folded,
                           "Q/DQ ops of constants folded");
    amk::PassCounters::add(this, "left", left, "Q/DQ ops left in place");
  }

private:
  LogicalResult rewritePair(onnx::DequantizeLinearOp dq, std::string &why) {
    auto q = dq.getX().getDefiningOp<onnx::QuantizeLinearOp>();
    if (!q)
      return why = "its input is not a QuantizeLinear or a constant", failure();
    auto yt = dyn_cast<RankedTensorType>(dq.getY().getType());
    auto xt = dyn_cast<RankedTensorType>(q.getX().getType());
    auto qt = dyn_cast<RankedTensorType>(q.getY().getType());
    if (!yt || !xt || !qt || !yt.getElementType().isF32() ||
        !xt.getElementType().isF32() || xt.getShape() != yt.getShape())
      return why = "only float32 tensors of one static rank are emulated",
             failure();
    auto it = dyn_cast<IntegerType>(qt.getElementType());
    if (!it || it.getWidth() > 16)
      return why = "only 8- and 16-bit integer types are emulated", failure();
    auto sq = scalarParam(q.getYScale()), zq = scalarParam(q.getYZeroPoint());
    auto sd = scalarParam(dq.getXScale()), zd = scalarParam(dq.getXZeroPoint());
    if (!sq || !zq || !sd || !zd)
      return why = "per-axis or non-constant scales and zero points are not "
                   "emulated",
             failure();
    if (*sq == 0 || !std::isfinite(*sq))
      return why = "the QuantizeLinear scale is zero or not finite", failure();
    bool isUnsigned = it.isUnsigned();
    double lo = isUnsigned ? 0 : -std::ldexp(1.0, it.getWidth() - 1);
    double hi = isUnsigned ? std::ldexp(1.0, it.getWidth()) - 1
                           : std::ldexp(1.0, it.getWidth() - 1) - 1;

    OpBuilder b(dq);
    Location loc = dq.getLoc();
    auto scalar = [&](double v) {
      amk::ref::Tensor t(amk::ref::DataType::FLOAT, {});
      t.setDouble(0, static_cast<float>(v));
      return amk::createConstant(b, loc, t);
    };
    auto make = [&](llvm::StringRef name, ValueRange operands) {
      OperationState st(loc, name);
      st.addOperands(operands);
      st.addTypes(yt);
      return b.create(st)->getResult(0);
    };
    Value v = make("onnx.Div", {q.getX(), scalar(*sq)});
    v = make("onnx.Round", {v});
    if (*zq != 0)
      v = make("onnx.Add", {v, scalar(*zq)});
    v = make("onnx.Max", {v, scalar(lo)});
    v = make("onnx.Min", {v, scalar(hi)});
    if (*zd != 0)
      v = make("onnx.Sub", {v, scalar(*zd)});
    v = make("onnx.Mul", {v, scalar(*sd)});
    dq.getY().replaceAllUsesWith(v);
    dq->erase();
    return success();
  }
};

} // namespace
