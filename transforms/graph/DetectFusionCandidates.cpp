//===- FusionCandidates.cpp - amk-detect-fusion-candidates ----------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "transforms/graph/FusionCandidates.h"

#include "transforms/Utils/PassUtils.h"
#include "transforms/graph/Passes.h"
#include "transforms/Utils/Patterns.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

#include <nlohmann/json.hpp>

namespace amk {
#define GEN_PASS_DEF_DETECTFUSIONCANDIDATES
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;
namespace onnx = amk::onnx;

namespace amk {

const std::vector<std::string> &FusionCandidates::patternNames() {
  static const std::vector<std::string> names = {
      "conv_bn",        "conv_add",
      "conv_activation", "matmul_add",
      "matmul_transpose", "gemm_activation",
      "gelu_erf",       "gelu_tanh",
      "gelu_quick",     "layer_norm",
      "rms_norm",       "attention",
      "bias_softmax",   "reshape_transpose_chain",
      "elementwise_chain"};
  return names;
}

const std::vector<std::vector<Operation *>> &
FusionCandidates::get(llvm::StringRef pattern) const {
  static const std::vector<std::vector<Operation *>> empty;
  for (const auto &[name, instances] : patterns)
    if (name == pattern)
      return instances;
  return empty;
}

static bool isLayoutOp(Operation *op) {
  return isa<onnx::ReshapeOp, onnx::TransposeOp, onnx::SqueezeOp,
             onnx::UnsqueezeOp, onnx::FlattenOp>(op);
}

FusionCandidates findFusionCandidates(ModuleOp module) {
  FusionCandidates fc;
  for (const std::string &name : FusionCandidates::patternNames())
    fc.patterns.push_back({name, {}});
  auto add = [&](llvm::StringRef pattern, std::vector<Operation *> ops) {
    for (auto &[name, instances] : fc.patterns)
      if (name == pattern)
        instances.push_back(std::move(ops));
  };
  auto asVector = [](llvm::ArrayRef<Operation *> ops) {
    return std::vector<Operation *>(ops.begin(), ops.end());
  };

  // Program order (regions included).
  std::vector<Operation *> ops;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<onnx::ONNXDialect>(op->getDialect()) &&
        !isa<onnx::ConstantOp, onnx::NoValueOp, onnx::YieldOp>(op))
      ops.push_back(op);
  });
  // Ops that belong to a fused pattern (for elementwise grouping).
  llvm::DenseSet<Operation *> covered;

  // Attention, Gelu and norms are matched at their roots, last op first, so
  // the largest match wins and its inner ops are not matched again.
  llvm::DenseSet<Operation *> inGelu, inNorm;
  for (Operation *op : llvm::reverse(ops)) {
    if (isa<onnx::MatMulOp>(op) && !fc.attentionOps.contains(op))
      if (auto m = matchAttention(op)) {
        fc.attentionOps.insert(m->ops.begin(), m->ops.end());
        covered.insert(m->ops.begin(), m->ops.end());
        add("attention", asVector(m->ops));
      }
    if (isa<onnx::MulOp>(op) && !inGelu.contains(op))
      if (auto g = matchGelu(op)) {
        inGelu.insert(g->ops.begin(), g->ops.end());
        covered.insert(g->ops.begin(), g->ops.end());
        add(g->form == "none"   ? "gelu_erf"
            : g->form == "tanh" ? "gelu_tanh"
                                : "gelu_quick",
            asVector(g->ops));
      }
    if (isa<onnx::AddOp, onnx::MulOp, onnx::DivOp>(op) && !inNorm.contains(op))
      if (auto n = matchNorm(op)) {
        inNorm.insert(n->ops.begin(), n->ops.end());
        covered.insert(n->ops.begin(), n->ops.end());
        add(n->rms ? "rms_norm" : "layer_norm", asVector(n->ops));
      }
  }
  // Lists were filled root-last-first: restore program order.
  for (auto &[name, instances] : fc.patterns)
    std::reverse(instances.begin(), instances.end());

  // Conv chains, in program order: an Add joining two chains goes to the
  // first.
  llvm::DenseSet<Operation *> inChain;
  for (Operation *op : ops) {
    auto chain = matchConvChain(
        op, [&](Operation *o) { return inChain.contains(o); });
    if (!chain)
      continue;
    inChain.insert(chain->ops.begin(), chain->ops.end());
    if (chain->ops.size() > 1)
      covered.insert(chain->ops.begin(), chain->ops.end());
    if (chain->bn)
      add("conv_bn", {chain->conv, chain->bn});
    if (chain->add) {
      std::vector<Operation *> inst;
      for (Operation *o : chain->ops) {
        inst.push_back(o);
        if (o == chain->add)
          break;
      }
      add("conv_add", inst);
    }
    if (chain->act)
      add("conv_activation", asVector(chain->ops));
  }

  for (Operation *op : ops) {
    // A Transpose read only by matrix products folds into their operand
    // addressing.
    if (isa<onnx::MatMulOp>(op) && !fc.attentionOps.contains(op)) {
      std::vector<Operation *> inst;
      for (Value operand : op->getOperands())
        if (auto t = operand.getDefiningOp<onnx::TransposeOp>();
            t && llvm::all_of(t->getUsers(), [](Operation *u) {
              return isa<onnx::MatMulOp>(u);
            }))
          inst.push_back(t);
      if (!inst.empty()) {
        inst.push_back(op);
        add("matmul_transpose", inst);
      }
    }
    // Gemm, MatMul or MatMul + bias, then an activation.
    Value product;
    auto bias = matchMatMulBias(op);
    if (isa<onnx::GemmOp>(op))
      product = op->getResult(0);
    else if (bias)
      product = bias->add->getResult(0);
    else if (isa<onnx::MatMulOp>(op) && !fc.attentionOps.contains(op) &&
             !(op->getResult(0).hasOneUse() &&
               matchMatMulBias(*op->getResult(0).getUsers().begin())))
      product = op->getResult(0);
    // MatMul + bias.
    if (bias) {
      add("matmul_add", {bias->matmul, bias->add});
      covered.insert(bias->add);
    }
    if (product)
      if (auto act = matchActivationOf(product, /*convKinds=*/false)) {
        std::vector<Operation *> inst;
        if (bias)
          inst.push_back(bias->matmul);
        inst.push_back(op);
        inst.insert(inst.end(), act->ops.begin(), act->ops.end());
        covered.insert(act->ops.begin(), act->ops.end());
        add("gemm_activation", inst);
      }
    // Softmax of a sum.
    if (auto sm = dyn_cast<onnx::SoftmaxOp>(op))
      if (auto a = sm.getInput().getDefiningOp<onnx::AddOp>();
          a && a.getC().hasOneUse()) {
        add("bias_softmax", {a, sm});
        covered.insert(a);
      }
    // Maximal single-use chains of layout ops, from their first op.
    if (isLayoutOp(op)) {
      Operation *prev = op->getOperand(0).getDefiningOp();
      bool continues = prev && isLayoutOp(prev) &&
                       prev->getResult(0).hasOneUse();
      if (!continues) {
        std::vector<Operation *> chain = {op};
        Operation *cur = op;
        while (cur->getResult(0).hasOneUse()) {
          Operation *next = *cur->getResult(0).getUsers().begin();
          if (!isLayoutOp(next) || next->getOperand(0) != cur->getResult(0))
            break;
          chain.push_back(next);
          cur = next;
        }
        if (chain.size() >= 2)
          add("reshape_transpose_chain", chain);
      }
    }
  }

  // Elementwise ops outside every pattern, joined along single-use edges
  // (what amk-group-elementwise groups).
  for (auto &group : singleUseGroups(ops, [&](Operation *op) {
         return classifyOp(op) == OpClass::Elementwise &&
                !covered.contains(op) && op->getNumResults() == 1 &&
                op->getNumRegions() == 0;
       }))
    if (group.size() >= 2)
      add("elementwise_chain", std::move(group));
  // Each instance in program order (its root, which every other op of the
  // instance feeds, last).
  llvm::DenseMap<Operation *, size_t> position;
  for (auto [i, op] : llvm::enumerate(ops))
    position[op] = i;
  for (auto &[name, instances] : fc.patterns)
    for (auto &inst : instances)
      llvm::stable_sort(inst, [&](Operation *a, Operation *b) {
        return position.lookup(a) < position.lookup(b);
      });
  return fc;
}

} // namespace amk

namespace {

class DetectFusionCandidatesPass
    : public amk::impl::DetectFusionCandidatesBase<
          DetectFusionCandidatesPass> {
public:
  using DetectFusionCandidatesBase::DetectFusionCandidatesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    amk::FusionCandidates fc = amk::findFusionCandidates(module);
    amk::GraphProfile profile = amk::profileGraph(module, fc.attentionOps);

    nlohmann::ordered_json doc;
    nlohmann::ordered_json patterns = nlohmann::ordered_json::object();
    int64_t total = 0;
    for (const auto &[name, instances] : fc.patterns) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const auto &inst : instances) {
        nlohmann::ordered_json names = nlohmann::ordered_json::array();
        for (Operation *op : inst)
          names.push_back(amk::nodeLabel(op));
        list.push_back(names);
        amk::emitPassRemark(this, inst.back(), amk::RemarkKind::Analysis,
                            "Candidate", name + ": " + amk::describeMatch(inst));
      }
      patterns[name] = {{"count", instances.size()}, {"instances", list}};
      total += instances.size();
      amk::PassCounters::add(this, name, instances.size(),
                             "instances of " + name);
    }
    doc["patterns"] = patterns;
    nlohmann::ordered_json classes = nlohmann::ordered_json::object();
    for (unsigned c = 0; c < amk::kNumOpClasses; ++c) {
      auto cls = static_cast<amk::OpClass>(c);
      classes[amk::opClassName(cls).str()] = {
          {"count", profile.of(cls).count},
          {"flops", profile.of(cls).flops},
          {"count_share", profile.countShare(cls)},
          {"flop_share", profile.flopShare(cls)}};
    }
    doc["profile"] = {{"ops", profile.totalOps},
                         {"flops", profile.totalFlops},
                         {"classes", classes}};
    doc["conv_density"] = {
        {"count", profile.of(amk::OpClass::Conv).count},
        {"count_share", profile.countShare(amk::OpClass::Conv)},
        {"flop_share", profile.flopShare(amk::OpClass::Conv)}};

    std::string err;
    auto out = mlir::openOutputFile(report, &err);
    if (!out) {
      module.emitError() << "amk-detect-fusion-candidates: cannot write the "
                            "report: "
                         << err;
      return signalPassFailure();
    }
    out->os() << doc.dump(2) << "\n";
    out->keep();
    numCandidates = total;
    amk::PassCounters::add(this, "candidates", total,
                           "pattern instances found (all patterns)");
    markAllAnalysesPreserved();
  }
};

} // namespace
