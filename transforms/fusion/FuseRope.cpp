//===- FuseRope.cpp - amk-fuse-rope ---------------------------------------===//
//
// Part of AMK. amk-fuse-rope: rotary position embeddings into amk.rope
// (Passes.td has the contract). It rewrites a match only when its inner
// values have no use outside it, so no value is computed twice.
//
//===----------------------------------------------------------------------===//

#include "transforms/fusion/FusionUtils.h"
#include "transforms/fusion/Passes.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXNames.h"

namespace amk {
#define GEN_PASS_DEF_FUSEROPE
#include "transforms/fusion/Passes.h.inc"
} // namespace amk

using namespace mlir;
using namespace amk::fusion;
namespace onnx = amk::onnx;
namespace fused = amk::fused;

namespace {

class FuseRopePass : public amk::impl::FuseRopeBase<FuseRopePass> {
public:
  using FuseRopeBase::FuseRopeBase;

  void runOnOperation() override {
    auto candidates = collect<onnx::AddOp, onnx::ReshapeOp>(getOperation());
    int64_t count = fuseAtRoots(
        this, candidates, [](Operation *op) -> std::optional<Rewrite> {
          auto m = amk::matchRope(op);
          if (!m || !amk::isSelfContained(m->ops))
            return std::nullopt;
          OpBuilder b(op);
          NamedAttrList attrs;
          if (m->interleaved)
            attrs.set("interleaved", b.getBoolAttr(true));
          Value y = op->getResult(0);
          return Rewrite{m->ops,
                         fused::RopeOp::create(
                             b, amk::fusedNodeLoc(m->ops, op, y), y.getType(),
                             ValueRange{m->input, m->cos, m->sin}, attrs)};
        });
    numFused = count;
    finishFusion(this, getOperation(), count, "amk.rope ops created");
  }
};

} // namespace
