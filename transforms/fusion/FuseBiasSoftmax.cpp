//===- FuseBiasSoftmax.cpp - amk-fuse-bias-softmax ------------------------===//
//
// Part of AMK. amk-fuse-bias-softmax: Add + Softmax into amk.bias_softmax (Passes.td has the contract). It rewrites a
// match only when its inner values have no use outside it, so no value is
// computed twice.
//
//===----------------------------------------------------------------------===//

#include "transforms/fusion/FusionUtils.h"
#include "transforms/fusion/Passes.h"

#include "transforms/Utils/CostModel.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXSchema.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

namespace amk {
#define GEN_PASS_DEF_FUSEBIASSOFTMAX
#include "transforms/fusion/Passes.h.inc"
} // namespace amk

using namespace mlir;
using namespace amk::fusion;
namespace onnx = amk::onnx;
namespace fused = amk::fused;

namespace {

class FuseBiasSoftmaxPass
    : public amk::impl::FuseBiasSoftmaxBase<FuseBiasSoftmaxPass> {
public:
  using FuseBiasSoftmaxBase::FuseBiasSoftmaxBase;

  void runOnOperation() override {
    auto candidates = collect<onnx::SoftmaxOp>(getOperation());
    int64_t count = fuseAtRoots(
        this, candidates, [](Operation *op) -> std::optional<Rewrite> {
          auto sm = cast<onnx::SoftmaxOp>(op);
          auto add = sm.getInput().getDefiningOp<onnx::AddOp>();
          auto t = dyn_cast<RankedTensorType>(sm.getInput().getType());
          if (!add || !add.getC().hasOneUse() || !t)
            return std::nullopt;
          const onnx::VersionInfo *v = onnx::getVersionInfo(op);
          bool opset13 = v && v->since >= 13;
          int64_t rank = t.getRank();
          int64_t axis = sm.getAxis().value_or(opset13 ? -1 : 1);
          if (axis < 0)
            axis += rank;
          // Before opset 13 Softmax flattens to 2-D at `axis`: the same
          // only for the last axis.
          if (axis < 0 || axis >= rank || (!opset13 && axis != rank - 1))
            return std::nullopt;
          Value x, bias;
          for (int i = 0; i < 2 && !x; ++i)
            if (add->getOperand(i).getType() == t &&
                amk::broadcastsOnto(add->getOperand(1 - i),
                                    add->getOperand(i))) {
              x = add->getOperand(i);
              bias = add->getOperand(1 - i);
            }
          if (!x)
            return std::nullopt;
          OpBuilder b(op);
          NamedAttrList attrs;
          attrs.set("axis", b.getI64IntegerAttr(axis));
          SmallVector<Operation *> ops = {add, op};
          return Rewrite{ops, fused::BiasSoftmaxOp::create(
                                  b, amk::fusedNodeLoc(ops, op, sm.getOutput()),
                                  t, ValueRange{x, bias}, attrs)};
        });
    numFused = count;
    finishFusion(this, getOperation(), count, "amk.bias_softmax ops created");
  }
};

} // namespace
