//===- EmulateQDQ.cpp - amk-emulate-qdq -----------------------------------===//
//
// Part of AMK. Turns a QDQ graph into float32 arithmetic with the same
// values (see Passes.td for the contract).
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/CostModel.h"
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
    int64_t pairs = 0, folded = 0, lone = 0;
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
      else if (succeeded(rewriteLone(dq)))
        ++lone;
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
    numLone = lone;
    numLeft = left;
    amk::PassCounters::add(this, "pairs", pairs,
                           "Q->DQ pairs rewritten to float arithmetic");
    amk::PassCounters::add(this, "lone", lone,
                           "DequantizeLinear ops read by elementwise ops "
                           "rewritten to float arithmetic");
    amk::PassCounters::add(this, "folded", folded,
                           "Q/DQ ops of constants folded");
    amk::PassCounters::add(this, "left", left, "Q/DQ ops left in place");
  }

private:
  /// A float32 scalar constant.
  static Value scalarConstant(OpBuilder &b, Location loc, double v) {
    amk::ref::Tensor t(amk::ref::DataType::FLOAT, {});
    t.setDouble(0, static_cast<float>(v));
    return amk::createConstant(b, loc, t);
  }

  /// An ONNX op `name` of `operands` with result type `type`.
  static Value floatOp(OpBuilder &b, Location loc, llvm::StringRef name,
                       ValueRange operands, Type type) {
    OperationState st(loc, name);
    st.addOperands(operands);
    st.addTypes(type);
    return b.create(st)->getResult(0);
  }

  /// Ends a rewrite of `dq`: (v - z) * s, the DequantizeLinear's own
  /// float arithmetic on the integer-valued float v, replaces its result.
  static void replaceDequantize(OpBuilder &b, onnx::DequantizeLinearOp dq,
                                Value v, double z, double s) {
    Location loc = dq.getLoc();
    Type yt = dq.getY().getType();
    if (z != 0)
      v = floatOp(b, loc, "onnx.Sub", {v, scalarConstant(b, loc, z)}, yt);
    v = floatOp(b, loc, "onnx.Mul", {v, scalarConstant(b, loc, s)}, yt);
    dq.getY().replaceAllUsesWith(v);
    dq->erase();
  }

  /// A DequantizeLinear of an 8-bit activation that is not a pair's (an
  /// integer kernel's result) and is read only by elementwise ops (the
  /// residual Add of a QDQ ResNet block): Cast -> Sub(z) -> Mul(s), the
  /// same float32 arithmetic, so amk-group-elementwise loads the 8-bit
  /// tensor inside the consumers' group instead of a separate task writing
  /// a float copy.
  LogicalResult rewriteLone(onnx::DequantizeLinearOp dq) {
    auto xt = dyn_cast<RankedTensorType>(dq.getX().getType());
    auto yt = dyn_cast<RankedTensorType>(dq.getY().getType());
    if (!xt || !yt || !yt.getElementType().isF32() || dq.getY().use_empty())
      return failure();
    auto it = dyn_cast<IntegerType>(xt.getElementType());
    if (!it || it.getWidth() != 8)
      return failure();
    auto sd = scalarParam(dq.getXScale()), zd = scalarParam(dq.getXZeroPoint());
    if (!sd || !zd || !std::isfinite(*sd))
      return failure();
    for (Operation *user : dq.getY().getUsers())
      if (!isa<onnx::ONNXDialect>(user->getDialect()) ||
          isa<onnx::QuantizeLinearOp, onnx::DequantizeLinearOp>(user) ||
          amk::classifyOp(user) != amk::OpClass::Elementwise)
        return failure();
    OpBuilder b(dq);
    Location loc = dq.getLoc();
    OperationState cast(loc, "onnx.Cast");
    cast.addOperands(dq.getX());
    cast.addTypes(yt);
    cast.addAttribute("to", b.getI64IntegerAttr(1)); // FLOAT
    Value v = b.create(cast)->getResult(0);
    replaceDequantize(b, dq, v, *zd, *sd);
    return success();
  }

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
    auto scalar = [&](double v) { return scalarConstant(b, loc, v); };
    auto make = [&](llvm::StringRef name, ValueRange operands) {
      return floatOp(b, loc, name, operands, yt);
    };
    Value v = make("onnx.Div", {q.getX(), scalar(*sq)});
    v = make("onnx.Round", {v});
    if (*zq != 0)
      v = make("onnx.Add", {v, scalar(*zq)});
    v = make("onnx.Max", {v, scalar(lo)});
    v = make("onnx.Min", {v, scalar(hi)});
    replaceDequantize(b, dq, v, *zd, *sd);
    return success();
  }
};

} // namespace
