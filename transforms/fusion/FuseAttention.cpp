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
    int64_t grouped = 0;
    getOperation().walk(
        [&](fused::AttentionOp op) { grouped += foldGroupedHeads(op); });
    numGrouped = grouped;
    amk::PassCounters::add(this, "grouped", grouped,
                           "key/value head repeats folded into "
                           "amk.attention");
  }

  /// `kv` [B, Hkv, T, D] when `v` is it repeated to [B, Hkv * G, T, D]
  /// head by head (Reshape(Expand|Tile(Unsqueeze|Reshape(kv)))); else
  /// null.
  static Value repeatedHeads(Value v) {
    auto name = [](Operation *op) {
      return op ? op->getName().getStringRef() : llvm::StringRef();
    };
    Operation *reshape = v.getDefiningOp();
    if (name(reshape) != "onnx.Reshape")
      return {};
    Operation *rep = reshape->getOperand(0).getDefiningOp();
    if (name(rep) != "onnx.Expand" && name(rep) != "onnx.Tile")
      return {};
    Operation *unsq = rep->getOperand(0).getDefiningOp();
    if (name(unsq) != "onnx.Unsqueeze" && name(unsq) != "onnx.Reshape")
      return {};
    Value kv = unsq->getOperand(0);
    auto y = dyn_cast<RankedTensorType>(v.getType());
    auto e = dyn_cast<RankedTensorType>(rep->getResult(0).getType());
    auto u = dyn_cast<RankedTensorType>(unsq->getResult(0).getType());
    auto k = dyn_cast<RankedTensorType>(kv.getType());
    if (!y || !e || !u || !k || !y.hasStaticShape() || !e.hasStaticShape() ||
        !u.hasStaticShape() || !k.hasStaticShape() || k.getRank() != 4 ||
        y.getRank() != 4 || e.getRank() != 5 || u.getRank() != 5)
      return {};
    ArrayRef<int64_t> ks = k.getShape(), us = u.getShape(), es = e.getShape(),
                      ys = y.getShape();
    int64_t g = es[2];
    // [B, Hkv, T, D] -> [B, Hkv, 1, T, D] -> [B, Hkv, G, T, D] ->
    // [B, Hkv * G, T, D]: head h of the result is kv head h / G.
    if (us != ArrayRef<int64_t>{ks[0], ks[1], 1, ks[2], ks[3]} ||
        es != ArrayRef<int64_t>{ks[0], ks[1], g, ks[2], ks[3]} ||
        ys != ArrayRef<int64_t>{ks[0], ks[1] * g, ks[2], ks[3]} || g < 2)
      return {};
    return kv;
  }

  /// Folds the head repeats of `op`'s K and V; returns 1 if it did.
  static int64_t foldGroupedHeads(fused::AttentionOp op) {
    Value k = op.getK();
    bool keyT = op.getKeyTransposed();
    if (keyT) {
      Operation *t = k.getDefiningOp();
      auto perm = t && t->getName().getStringRef() == "onnx.Transpose"
                      ? t->getAttrOfType<DenseI64ArrayAttr>("perm")
                      : DenseI64ArrayAttr();
      if (!perm || perm.asArrayRef() != ArrayRef<int64_t>{0, 1, 3, 2})
        return 0;
      k = t->getOperand(0);
    }
    Value kv = repeatedHeads(k), vv = repeatedHeads(op.getV());
    if (!kv || !vv ||
        cast<RankedTensorType>(kv.getType()).getDimSize(1) !=
            cast<RankedTensorType>(vv.getType()).getDimSize(1))
      return 0;
    SmallVector<Operation *> dead;
    for (Value old : {op.getK(), op.getV()})
      for (Operation *d = old.getDefiningOp(); d && d->getNumOperands();
           d = d->getOperand(0).getDefiningOp()) {
        if (d->getOperand(0) == kv || d->getOperand(0) == vv) {
          dead.push_back(d);
          break;
        }
        dead.push_back(d);
      }
    op.getKMutable().assign(kv);
    op.getVMutable().assign(vv);
    op.setKeyTransposed(false);
    amk::eraseOps(dead);
    return 1;
  }
};

} // namespace
