//===- FuseAttention.cpp - amk-fuse-attention -----------------------------===//
//
// Part of AMK. amk-fuse-attention: scaled dot-product attention into amk.attention (Passes.td has the contract). It rewrites a
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
#define GEN_PASS_DEF_FUSEATTENTION
#include "transforms/fusion/Passes.h.inc"
} // namespace amk

using namespace mlir;
using namespace amk::fusion;
namespace onnx = amk::onnx;
namespace fused = amk::fused;

namespace {

class FuseAttentionPass
    : public amk::impl::FuseAttentionBase<FuseAttentionPass> {
public:
  using FuseAttentionBase::FuseAttentionBase;

  void runOnOperation() override {
    auto candidates = collect<onnx::MatMulOp>(getOperation());
    int64_t count = fuseAtRoots(
        this, candidates, [](Operation *op) -> std::optional<Rewrite> {
          auto m = amk::matchAttention(op);
          if (!m || !amk::isSelfContained(m->ops))
            return std::nullopt;
          for (Value v : {m->query, m->key, m->value}) {
            auto t = dyn_cast<RankedTensorType>(v.getType());
            if (!t || t.getRank() < 2)
              return std::nullopt;
          }
          OpBuilder b(op);
          Value none = amk::getNoneValue(b, op->getLoc());
          NamedAttrList attrs;
          attrs.set("scale", b.getF32FloatAttr(static_cast<float>(m->scale)));
          attrs.set("key_transposed", b.getBoolAttr(m->keyTransposed));
          return Rewrite{
              m->ops,
              fused::AttentionOp::create(
                  b, amk::fusedNodeLoc(m->ops, op, op->getResult(0)),
                  op->getResult(0).getType(),
                  ValueRange{m->query, m->key, m->value,
                             m->mask ? m->mask : none},
                  attrs)};
        });
    numFused = count;
    finishFusion(this, getOperation(), count, "amk.attention ops created");
  }
};

} // namespace
