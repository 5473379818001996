//===- FuseGelu.cpp - amk-fuse-gelu ---------------------------------------===//
//
// Part of AMK. amk-fuse-gelu: the erf and tanh GELU forms into amk.gelu (Passes.td has the contract). It rewrites a
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
#define GEN_PASS_DEF_FUSEGELU
#include "transforms/fusion/Passes.h.inc"
} // namespace amk

using namespace mlir;
using namespace amk::fusion;
namespace onnx = amk::onnx;
namespace fused = amk::fused;

namespace {

class FuseGeluPass : public amk::impl::FuseGeluBase<FuseGeluPass> {
public:
  using FuseGeluBase::FuseGeluBase;

  void runOnOperation() override {
    auto candidates = collect<onnx::MulOp, onnx::GeluOp>(getOperation());
    int64_t count = fuseAtRoots(
        this, candidates, [](Operation *op) -> std::optional<Rewrite> {
          OpBuilder b(op);
          NamedAttrList attrs;
          if (auto g = dyn_cast<onnx::GeluOp>(op)) {
            attrs.set("approximate", b.getStringAttr(g.getApproximate()));
            return Rewrite{{op},
                           fused::GeluOp::create(b, g->getLoc(),
                                                 g.getY().getType(), g.getX(),
                                                 attrs)};
          }
          auto m = amk::matchGelu(op);
          if (!m || !amk::isSelfContained(m->ops) ||
              m->input.getType() != op->getResult(0).getType())
            return std::nullopt;
          attrs.set("approximate", b.getStringAttr(m->form));
          return Rewrite{m->ops,
                         fused::GeluOp::create(
                             b, amk::fusedNodeLoc(m->ops, op, op->getResult(0)),
                             op->getResult(0).getType(), m->input, attrs)};
        });
    numFused = count;
    finishFusion(this, getOperation(), count, "amk.gelu ops created");
  }
};

} // namespace
