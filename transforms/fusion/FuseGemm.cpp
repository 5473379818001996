//===- FuseGemm.cpp - amk-fuse-gemm ---------------------------------------===//
//
// Part of AMK. amk-fuse-gemm: MatMul/Gemm with transposes, bias and activation into amk.gemm (Passes.td has the contract). It rewrites a
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
#define GEN_PASS_DEF_FUSEGEMM
#include "transforms/fusion/Passes.h.inc"
} // namespace amk

using namespace mlir;
using namespace amk::fusion;
namespace onnx = amk::onnx;
namespace fused = amk::fused;

namespace {

/// perm applied after `inner`: the composed permutation of the source.
SmallVector<int64_t> compose(ArrayRef<int64_t> inner, ArrayRef<int64_t> outer) {
  SmallVector<int64_t> r;
  for (int64_t q : outer)
    r.push_back(inner[q]);
  return r;
}

SmallVector<int64_t> identity(int64_t rank) {
  SmallVector<int64_t> p;
  for (int64_t i = 0; i < rank; ++i)
    p.push_back(i);
  return p;
}

bool isIdentity(ArrayRef<int64_t> p) {
  for (auto [i, v] : llvm::enumerate(p))
    if (v != static_cast<int64_t>(i))
      return false;
  return true;
}

/// Whether `perm` of a tensor of `type` keeps the order of the axes larger
/// than 1, so that it does not move any element.
bool movesOnlyUnitAxes(RankedTensorType type, ArrayRef<int64_t> perm) {
  int64_t last = -1;
  for (int64_t axis : perm) {
    if (type.isDynamicDim(axis))
      return false;
    if (type.getDimSize(axis) == 1)
      continue;
    if (axis < last)
      return false;
    last = axis;
  }
  return true;
}

class FuseGemmPass : public amk::impl::FuseGemmBase<FuseGemmPass> {
public:
  using FuseGemmBase::FuseGemmBase;

  void runOnOperation() override {
    int64_t fusedCount = 0;
    for (Operation *p : collect<onnx::MatMulOp, onnx::GemmOp>(getOperation()))
      if (fuse(p))
        ++fusedCount;
    numFused = fusedCount;
    finishFusion(this, getOperation(), fusedCount, "amk.gemm ops created");
  }

private:
  bool fuse(Operation *p) {
    auto isProduct = [](Operation *u) {
      return isa<onnx::MatMulOp, onnx::GemmOp>(u);
    };
    SmallVector<Operation *> ops = {p};
    Value a = p->getOperand(0), b = p->getOperand(1), c;
    auto at = dyn_cast<RankedTensorType>(a.getType());
    auto bt = dyn_cast<RankedTensorType>(b.getType());
    if (!at || !bt || at.getRank() < 2 || bt.getRank() < 2 ||
        !at.getElementType().isF32())
      return false;
    SmallVector<int64_t> pa = identity(at.getRank()), pb = identity(bt.getRank());
    float alpha = 1, beta = 1;
    bool changed = false;
    if (auto g = dyn_cast<onnx::GemmOp>(p)) {
      if (g.getTransA())
        pa = {1, 0};
      if (g.getTransB())
        pb = {1, 0};
      alpha = g.getAlpha().convertToFloat();
      beta = g.getBeta().convertToFloat();
      if (!amk::isNone(g.getC()))
        c = g.getC();
    }
    SmallVector<Operation *> transposes;
    if (foldTranspose)
      for (auto [operand, perm] :
           {std::pair{&a, &pa}, std::pair{&b, &pb}}) {
        auto t = operand->getDefiningOp<onnx::TransposeOp>();
        if (!t || !llvm::all_of(t->getUsers(), isProduct))
          continue;
        auto srcType = cast<RankedTensorType>(t.getData().getType());
        SmallVector<int64_t> tp;
        if (auto attr = t.getPerm())
          tp.assign(attr->begin(), attr->end());
        else
          for (int64_t i = srcType.getRank() - 1; i >= 0; --i)
            tp.push_back(i);
        // A Transpose that only moves axes of size 1 (a batch-1 [1, S, D]
        // to [S, 1, D]) is a view in the runtime: left as it is, the product
        // keeps the plain operand the integer and weight-only kernels take.
        if (movesOnlyUnitAxes(srcType, tp))
          continue;
        *perm = compose(tp, *perm);
        *operand = t.getData();
        transposes.push_back(t);
        changed = true;
      }
    Value out = p->getResult(0);
    if (isa<onnx::MatMulOp>(p) && out.hasOneUse())
      if (auto mb = amk::matchMatMulBias(*out.getUsers().begin())) {
        c = mb->bias;
        ops.push_back(mb->add);
        out = mb->add->getResult(0);
        changed = true;
      }
    std::optional<amk::ActivationMatch> act;
    if (fuseActivation && (act = amk::matchActivationOf(out, false))) {
      ops.append(act->ops.begin(), act->ops.end());
      out = act->ops.back()->getResult(0);
      changed = true;
    }
    if (!changed)
      return false;
    Operation *root = out.getDefiningOp();
    OpBuilder builder(root);
    NamedAttrList attrs;
    if (!isIdentity(pa))
      attrs.set("perm_a", builder.getDenseI64ArrayAttr(pa));
    if (!isIdentity(pb))
      attrs.set("perm_b", builder.getDenseI64ArrayAttr(pb));
    if (alpha != 1)
      attrs.set("alpha", builder.getF32FloatAttr(alpha));
    if (beta != 1)
      attrs.set("beta", builder.getF32FloatAttr(beta));
    if (act) {
      attrs.set("activation", builder.getStringAttr(act->kind));
      if (act->kind == "clip" || act->kind == "leaky_relu" ||
          act->kind == "quick_gelu")
        attrs.set("activation_alpha",
                  builder.getF32FloatAttr(static_cast<float>(act->alpha)));
      if (act->kind == "clip")
        attrs.set("activation_beta",
                  builder.getF32FloatAttr(static_cast<float>(act->beta)));
    }
    Value none = amk::getNoneValue(builder, p->getLoc());
    SmallVector<Operation *> all(transposes.begin(), transposes.end());
    all.append(ops.begin(), ops.end());
    auto g = fused::GemmOp::create(builder, amk::fusedNodeLoc(all, p, out),
                                   TypeRange{out.getType()},
                                   ValueRange{a, b, c ? c : none}, attrs);
    // A Transpose other products still read stays until they fold it too.
    replaceMatch(this, all, root, g);
    return true;
  }
};

} // namespace
