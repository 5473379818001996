//===- FuseNorm.cpp - amk-fuse-norm ---------------------------------------===//
//
// Part of AMK. amk-fuse-norm: LayerNorm/RMS-style subgraphs into amk.layer_norm (Passes.td has the contract). It rewrites a
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
#define GEN_PASS_DEF_FUSENORM
#include "transforms/fusion/Passes.h.inc"
} // namespace amk

using namespace mlir;
using namespace amk::fusion;
namespace onnx = amk::onnx;
namespace fused = amk::fused;

namespace {

class FuseNormPass : public amk::impl::FuseNormBase<FuseNormPass> {
public:
  using FuseNormBase::FuseNormBase;

  void runOnOperation() override {
    auto candidates = collect<onnx::AddOp, onnx::MulOp, onnx::DivOp,
                              onnx::LayerNormalizationOp>(getOperation());
    int64_t count = fuseAtRoots(
        this, candidates, [](Operation *op) -> std::optional<Rewrite> {
          OpBuilder b(op);
          NamedAttrList attrs;
          if (auto ln = dyn_cast<onnx::LayerNormalizationOp>(op)) {
            if (!ln.getMean().use_empty() || !ln.getInvStdDev().use_empty())
              return std::nullopt;
            attrs.set("axis", b.getI64IntegerAttr(ln.getAxis()));
            attrs.set("epsilon",
                      b.getF32FloatAttr(ln.getEpsilon().convertToFloat()));
            return Rewrite{
                {op}, fused::LayerNormOp::create(
                          b, ln->getLoc(), ln.getY().getType(),
                          ValueRange{ln.getX(), ln.getScale(), ln.getB()},
                          attrs)};
          }
          auto m = amk::matchNorm(op);
          if (!m || !amk::isSelfContained(m->ops) ||
              m->input.getType() != op->getResult(0).getType())
            return std::nullopt;
          Value none = amk::getNoneValue(b, op->getLoc());
          attrs.set("axis", b.getI64IntegerAttr(m->axis));
          attrs.set("epsilon",
                    b.getF32FloatAttr(static_cast<float>(m->epsilon)));
          if (m->rms)
            attrs.set("rms", b.getBoolAttr(true));
          return Rewrite{
              m->ops, fused::LayerNormOp::create(
                          b, amk::fusedNodeLoc(m->ops, op, op->getResult(0)),
                          op->getResult(0).getType(),
                          ValueRange{m->input, m->scale ? m->scale : none,
                                     m->bias ? m->bias : none},
                          attrs)};
        });
    numFused = count;
    finishFusion(this, getOperation(), count, "amk.layer_norm ops created");
  }
};

} // namespace
