//===- Fusion.cpp - Fusions into the amk dialect --------------------------===//
//
// Part of AMK. amk-fuse-gemm, amk-fuse-gelu, amk-fuse-norm,
// amk-fuse-attention, amk-fuse-bias-softmax and amk-group-elementwise (see
// Passes.td for each contract). Each rewrites a matched subgraph only when
// its inner values have no use outside it, so no value is computed twice.
//
//===----------------------------------------------------------------------===//

#include "passes/CostModel.h"
#include "passes/PassUtils.h"
#include "passes/Passes.h"
#include "passes/Patterns.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXSchema.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

namespace amk {
#define GEN_PASS_DEF_FUSEGEMM
#define GEN_PASS_DEF_FUSEGELU
#define GEN_PASS_DEF_FUSENORM
#define GEN_PASS_DEF_FUSEATTENTION
#define GEN_PASS_DEF_FUSEBIASSOFTMAX
#define GEN_PASS_DEF_GROUPELEMENTWISE
#include "passes/Passes.h.inc"
} // namespace amk

using namespace mlir;
namespace onnx = amk::onnx;
namespace fused = amk::fused;

namespace {

/// The ops of the given kinds, in program order.
template <typename... OpTys>
SmallVector<Operation *> collect(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<OpTys...>(op))
      ops.push_back(op);
  });
  return ops;
}

/// Replaces `root`'s result by `replacement`'s, remarks, erases the match.
void replaceMatch(Pass *pass, ArrayRef<Operation *> ops, Operation *root,
                  Operation *replacement) {
  amk::emitPassRemark(pass, replacement, amk::RemarkKind::Passed, "Fused",
                      "fused " + amk::describeMatch(ops) + " into " +
                          replacement->getName().getStringRef());
  root->getResult(0).replaceAllUsesWith(replacement->getResult(0));
  amk::eraseOps(ops);
}

/// A match `tryFuse` rewrote: the ops it covers and the op replacing its
/// root.
struct Rewrite {
  SmallVector<Operation *> ops;
  Operation *replacement;
};

/// Offers every candidate root to `tryFuse`, last first: a pattern's root
/// is its last op, so the largest match is seen before the matches inside
/// it, whose ops are then skipped. Returns how many matches were fused.
template <typename Fn>
int64_t fuseAtRoots(Pass *pass, ArrayRef<Operation *> candidates,
                    Fn &&tryFuse) {
  llvm::DenseSet<Operation *> covered;
  int64_t count = 0;
  for (Operation *root : llvm::reverse(candidates)) {
    if (covered.contains(root))
      continue;
    std::optional<Rewrite> r = tryFuse(root);
    if (!r)
      continue;
    covered.insert(r->ops.begin(), r->ops.end());
    replaceMatch(pass, r->ops, root, r->replacement);
    ++count;
  }
  return count;
}

/// Drops what the rewrites left unused and records the pass's counter.
void finish(Pass *pass, ModuleOp module, int64_t fused,
            llvm::StringRef description) {
  amk::updateSignaturesAndErase(module);
  amk::PassCounters::add(pass, "fused", fused, description);
}

//===----------------------------------------------------------------------===//
// amk-fuse-gemm
//===----------------------------------------------------------------------===//

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

class FuseGemmPass : public amk::impl::FuseGemmBase<FuseGemmPass> {
public:
  using FuseGemmBase::FuseGemmBase;

  void runOnOperation() override {
    int64_t fusedCount = 0;
    for (Operation *p : collect<onnx::MatMulOp, onnx::GemmOp>(getOperation()))
      if (fuse(p))
        ++fusedCount;
    numFused = fusedCount;
    finish(this, getOperation(), fusedCount, "amk.gemm ops created");
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

//===----------------------------------------------------------------------===//
// amk-fuse-gelu
//===----------------------------------------------------------------------===//

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
    finish(this, getOperation(), count, "amk.gelu ops created");
  }
};

//===----------------------------------------------------------------------===//
// amk-fuse-norm
//===----------------------------------------------------------------------===//

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
    finish(this, getOperation(), count, "amk.layer_norm ops created");
  }
};

//===----------------------------------------------------------------------===//
// amk-fuse-attention
//===----------------------------------------------------------------------===//

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
    finish(this, getOperation(), count, "amk.attention ops created");
  }
};

//===----------------------------------------------------------------------===//
// amk-fuse-bias-softmax
//===----------------------------------------------------------------------===//

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
    finish(this, getOperation(), count, "amk.bias_softmax ops created");
  }
};

//===----------------------------------------------------------------------===//
// amk-group-elementwise
//===----------------------------------------------------------------------===//

class GroupElementwisePass
    : public amk::impl::GroupElementwiseBase<GroupElementwisePass> {
public:
  using GroupElementwiseBase::GroupElementwiseBase;

  static bool groupable(Operation *op) {
    if (!op || !isa<onnx::ONNXDialect>(op->getDialect()) ||
        isa<onnx::QuantizeLinearOp, onnx::DequantizeLinearOp>(op) ||
        amk::classifyOp(op) != amk::OpClass::Elementwise ||
        op->getNumResults() != 1 || op->getNumRegions() != 0 ||
        !isa<func::FuncOp>(op->getParentOp()))
      return false;
    auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    return t && t.hasStaticShape();
  }

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) { ops.push_back(op); });
    auto groups = amk::singleUseGroups(ops, groupable);
    int64_t numGroupsMade = 0, moved = 0;
    for (const auto &group : groups) {
      if (static_cast<int64_t>(group.size()) < minSize)
        continue;
      if (succeeded(makeGroup(group))) {
        ++numGroupsMade;
        moved += group.size();
      }
    }
    numGroups = numGroupsMade;
    numGrouped = moved;
    amk::PassCounters::add(this, "groups", numGroupsMade,
                           "amk.fused_elementwise ops created");
    amk::PassCounters::add(this, "grouped", moved, "ops moved into groups");
  }

private:
  LogicalResult makeGroup(ArrayRef<Operation *> group) {
    llvm::SmallPtrSet<Operation *, 16> in(group.begin(), group.end());
    // The root: the one op whose result leaves the group.
    Operation *root = nullptr;
    for (Operation *op : group)
      for (Operation *user : op->getResult(0).getUsers())
        if (!in.contains(user)) {
          if (root && root != op)
            return failure();
          root = op;
        }
    if (!root)
      return failure();
    // Inputs: values from outside, constants and none excepted (cloned).
    SmallVector<Value> inputs;
    for (Operation *op : group)
      for (Value v : op->getOperands()) {
        Operation *def = v.getDefiningOp();
        if ((def && in.contains(def)) ||
            isa_and_nonnull<onnx::ConstantOp, onnx::NoValueOp>(def) ||
            llvm::is_contained(inputs, v))
          continue;
        if (!isa<RankedTensorType>(v.getType()))
          return failure();
        inputs.push_back(v);
      }
    OpBuilder b(root);
    auto g = fused::FusedElementwiseOp::create(
        b, amk::fusedNodeLoc(group, root, root->getResult(0)),
        root->getResult(0).getType(), inputs);
    Block *body = new Block();
    g.getBody().push_back(body);
    IRMapping map;
    for (Value v : inputs)
      map.map(v, body->addArgument(v.getType(), v.getLoc()));
    OpBuilder bb = OpBuilder::atBlockEnd(body);
    for (Operation *op : group) {
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp();
            isa_and_nonnull<onnx::ConstantOp, onnx::NoValueOp>(def) &&
            !map.contains(v))
          map.map(v, bb.clone(*def)->getResult(0));
      bb.clone(*op, map);
    }
    fused::YieldOp::create(bb, root->getLoc(), map.lookup(root->getResult(0)));
    amk::emitPassRemark(this, g, amk::RemarkKind::Passed, "Grouped",
                        "grouped " + amk::describeMatch(group) +
                            " into amk.fused_elementwise");
    root->getResult(0).replaceAllUsesWith(g.getY());
    amk::eraseOps(group);
    return success();
  }
};

} // namespace
