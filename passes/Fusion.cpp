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
#include "llvm/ADT/EquivalenceClasses.h"

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

/// Ops of `root`'s kind in program order.
template <typename... OpTys>
SmallVector<Operation *> collect(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<OpTys...>(op))
      ops.push_back(op);
  });
  return ops;
}

std::string describeMatch(ArrayRef<Operation *> ops) {
  std::string s;
  for (Operation *o : ops)
    s += (s.empty() ? "" : " + ") + amk::nodeLabel(o);
  return s;
}

/// Replaces `root`'s result by `v`, remarks, erases the match.
void replaceMatch(Pass *pass, ArrayRef<Operation *> ops, Operation *root,
                  Operation *replacement) {
  amk::emitPassRemark(pass, replacement, amk::RemarkKind::Passed, "Fused",
                      "fused " + describeMatch(ops) + " into " +
                          replacement->getName().getStringRef());
  root->getResult(0).replaceAllUsesWith(replacement->getResult(0));
  amk::eraseOps(ops);
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
    amk::updateSignaturesAndErase(getOperation());
    numFused = fusedCount;
    amk::PassCounters::add(this, "fused", fusedCount, "amk.gemm ops created");
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
    int64_t count = 0;
    llvm::DenseSet<Operation *> erased;
    // Roots last: visit in reverse so the whole Gelu matches first.
    SmallVector<Operation *> candidates =
        collect<onnx::MulOp, onnx::GeluOp>(getOperation());
    for (Operation *op : llvm::reverse(candidates)) {
      if (erased.contains(op))
        continue;
      OpBuilder b(op);
      if (auto g = dyn_cast<onnx::GeluOp>(op)) {
        NamedAttrList attrs;
        attrs.set("approximate", b.getStringAttr(g.getApproximate()));
        auto n = fused::GeluOp::create(b, g->getLoc(), g.getY().getType(),
                                       g.getX(), attrs);
        replaceMatch(this, {op}, op, n);
        ++count;
        continue;
      }
      auto m = amk::matchGelu(op);
      if (!m || !amk::isSelfContained(m->ops) ||
          m->input.getType() != op->getResult(0).getType())
        continue;
      NamedAttrList attrs;
      attrs.set("approximate", b.getStringAttr(m->form));
      auto n = fused::GeluOp::create(
          b, amk::fusedNodeLoc(m->ops, op, op->getResult(0)),
          op->getResult(0).getType(), m->input, attrs);
      erased.insert(m->ops.begin(), m->ops.end());
      replaceMatch(this, m->ops, op, n);
      ++count;
    }
    amk::updateSignaturesAndErase(getOperation());
    numFused = count;
    amk::PassCounters::add(this, "fused", count, "amk.gelu ops created");
  }
};

//===----------------------------------------------------------------------===//
// amk-fuse-norm
//===----------------------------------------------------------------------===//

class FuseNormPass : public amk::impl::FuseNormBase<FuseNormPass> {
public:
  using FuseNormBase::FuseNormBase;

  void runOnOperation() override {
    int64_t count = 0;
    llvm::DenseSet<Operation *> erased;
    SmallVector<Operation *> candidates =
        collect<onnx::AddOp, onnx::MulOp, onnx::DivOp,
                onnx::LayerNormalizationOp>(getOperation());
    for (Operation *op : llvm::reverse(candidates)) {
      if (erased.contains(op))
        continue;
      OpBuilder b(op);
      Value none = amk::getNoneValue(b, op->getLoc());
      if (auto ln = dyn_cast<onnx::LayerNormalizationOp>(op)) {
        if (!ln.getMean().use_empty() || !ln.getInvStdDev().use_empty())
          continue;
        NamedAttrList attrs;
        attrs.set("axis", b.getI64IntegerAttr(ln.getAxis()));
        attrs.set("epsilon", b.getF32FloatAttr(ln.getEpsilon().convertToFloat()));
        auto n = fused::LayerNormOp::create(
            b, ln->getLoc(), ln.getY().getType(),
            ValueRange{ln.getX(), ln.getScale(), ln.getB()}, attrs);
        replaceMatch(this, {op}, op, n);
        ++count;
        continue;
      }
      auto m = amk::matchNorm(op);
      if (!m || !amk::isSelfContained(m->ops) ||
          m->input.getType() != op->getResult(0).getType())
        continue;
      NamedAttrList attrs;
      attrs.set("axis", b.getI64IntegerAttr(m->axis));
      attrs.set("epsilon",
                b.getF32FloatAttr(static_cast<float>(m->epsilon)));
      if (m->rms)
        attrs.set("rms", b.getBoolAttr(true));
      auto n = fused::LayerNormOp::create(
          b, amk::fusedNodeLoc(m->ops, op, op->getResult(0)),
          op->getResult(0).getType(),
          ValueRange{m->input, m->scale ? m->scale : none,
                     m->bias ? m->bias : none},
          attrs);
      erased.insert(m->ops.begin(), m->ops.end());
      replaceMatch(this, m->ops, op, n);
      ++count;
    }
    amk::updateSignaturesAndErase(getOperation());
    numFused = count;
    amk::PassCounters::add(this, "fused", count, "amk.layer_norm ops created");
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
    int64_t count = 0;
    llvm::DenseSet<Operation *> erased;
    SmallVector<Operation *> candidates = collect<onnx::MatMulOp>(getOperation());
    for (Operation *op : llvm::reverse(candidates)) {
      if (erased.contains(op))
        continue;
      auto m = amk::matchAttention(op);
      if (!m || !amk::isSelfContained(m->ops))
        continue;
      auto rankOf = [](Value v) {
        auto t = dyn_cast<RankedTensorType>(v.getType());
        return t ? t.getRank() : 0;
      };
      if (rankOf(m->query) < 2 || rankOf(m->key) < 2 || rankOf(m->value) < 2)
        continue;
      OpBuilder b(op);
      Value none = amk::getNoneValue(b, op->getLoc());
      NamedAttrList attrs;
      attrs.set("scale", b.getF32FloatAttr(static_cast<float>(m->scale)));
      attrs.set("key_transposed", b.getBoolAttr(m->keyTransposed));
      auto n = fused::AttentionOp::create(
          b, amk::fusedNodeLoc(m->ops, op, op->getResult(0)),
          op->getResult(0).getType(),
          ValueRange{m->query, m->key, m->value, m->mask ? m->mask : none},
          attrs);
      erased.insert(m->ops.begin(), m->ops.end());
      replaceMatch(this, m->ops, op, n);
      ++count;
    }
    amk::updateSignaturesAndErase(getOperation());
    numFused = count;
    amk::PassCounters::add(this, "fused", count, "amk.attention ops created");
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
    int64_t count = 0;
    for (Operation *op : collect<onnx::SoftmaxOp>(getOperation())) {
      auto sm = cast<onnx::SoftmaxOp>(op);
      auto add = sm.getInput().getDefiningOp<onnx::AddOp>();
      auto t = dyn_cast<RankedTensorType>(sm.getInput().getType());
      if (!add || !add.getC().hasOneUse() || !t)
        continue;
      const onnx::VersionInfo *v = onnx::getVersionInfo(op);
      int64_t rank = t.getRank();
      int64_t axis = sm.getAxis().value_or(v && v->since >= 13 ? -1 : 1);
      if (axis < 0)
        axis += rank;
      // Before opset 13 Softmax flattens to 2-D at `axis`: the same only
      // for the last axis.
      if (axis < 0 || axis >= rank || (!(v && v->since >= 13) && axis != rank - 1))
        continue;
      Value x, bias;
      for (int i = 0; i < 2 && !x; ++i)
        if (add->getOperand(i).getType() == t &&
            amk::broadcastsOnto(add->getOperand(1 - i), add->getOperand(i))) {
          x = add->getOperand(i);
          bias = add->getOperand(1 - i);
        }
      if (!x)
        continue;
      OpBuilder b(op);
      NamedAttrList attrs;
      attrs.set("axis", b.getI64IntegerAttr(axis));
      SmallVector<Operation *> ops = {add, op};
      auto n = fused::BiasSoftmaxOp::create(
          b, amk::fusedNodeLoc(ops, op, sm.getOutput()), t,
          ValueRange{x, bias}, attrs);
      replaceMatch(this, ops, op, n);
      ++count;
    }
    numFused = count;
    amk::PassCounters::add(this, "fused", count,
                           "amk.bias_softmax ops created");
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
    getOperation().walk([&](Operation *op) {
      if (groupable(op))
        ops.push_back(op);
    });
    llvm::EquivalenceClasses<Operation *> groups;
    for (Operation *op : ops) {
      groups.insert(op);
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            groupable(def) && operand.hasOneUse() &&
            def->getBlock() == op->getBlock())
          groups.unionSets(def, op);
    }
    llvm::DenseMap<Operation *, SmallVector<Operation *>> members;
    SmallVector<Operation *> leaders;
    for (Operation *op : ops) {
      Operation *leader = groups.getLeaderValue(op);
      if (!members.count(leader))
        leaders.push_back(leader);
      members[leader].push_back(op);
    }
    int64_t numGroupsMade = 0, moved = 0;
    for (Operation *leader : leaders) {
      SmallVector<Operation *> &group = members[leader];
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
                        "grouped " + describeMatch(group) +
                            " into amk.fused_elementwise");
    root->getResult(0).replaceAllUsesWith(g.getY());
    amk::eraseOps(group);
    return success();
  }
};

} // namespace
