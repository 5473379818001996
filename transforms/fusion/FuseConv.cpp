//===- FuseConv.cpp - amk-fuse-conv ---------------------------------------===//
//
// Part of AMK. Density-gated Conv fusion (see Passes.td for the contract).
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/CostModel.h"
#include "transforms/Utils/PassUtils.h"
#include "transforms/fusion/Passes.h"
#include "transforms/Utils/Patterns.h"
#include "transforms/fusion/TargetProfile.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace amk {
#define GEN_PASS_DEF_FUSECONV
#include "transforms/fusion/Passes.h.inc"
} // namespace amk

using namespace mlir;
namespace onnx = amk::onnx;

namespace {

/// A constant for a rewritten weight, named after the one it replaces.
Value weightConstant(OpBuilder &b, Value original, const amk::ref::Tensor &t,
                     llvm::StringRef suffix) {
  Location loc = original.getLoc();
  llvm::StringRef name = onnx::findInitializerName(loc);
  if (!name.empty())
    loc = onnx::makeInitializerLoc(b.getContext(), "amk-fuse-conv",
                                   (name + suffix).str());
  return amk::createConstant(b, loc, t);
}

/// W' = W * s and B' = (B - mean) * s + beta per output channel, with
/// s = gamma / sqrt(var + eps). Fails (nothing changed) on non-float data.
LogicalResult foldBatchNorm(OpBuilder &b, onnx::ConvOp conv,
                            onnx::BatchNormalizationOp bn, Value &w,
                            Value &bias) {
  auto wt = amk::getConstantTensor(conv.getW());
  auto gamma = amk::getConstantTensor(bn.getScale());
  auto beta = amk::getConstantTensor(bn.getB());
  auto mean = amk::getConstantTensor(bn.getInputMean());
  auto var = amk::getConstantTensor(bn.getInputVar());
  if (!wt || !gamma || !beta || !mean || !var ||
      wt->dtype() != amk::ref::DataType::FLOAT)
    return failure();
  std::optional<amk::ref::Tensor> b0;
  if (!amk::isNone(conv.getB())) {
    b0 = amk::getConstantTensor(conv.getB());
    if (!b0)
      return failure();
  }
  int64_t m = wt->dim(0), per = wt->numel() / std::max<int64_t>(m, 1);
  double eps = bn.getEpsilon().convertToDouble();
  amk::ref::Tensor w2(wt->dtype(), wt->shape());
  amk::ref::Tensor b2(wt->dtype(), {m});
  for (int64_t o = 0; o < m; ++o) {
    double s = gamma->getDouble(o) / std::sqrt(var->getDouble(o) + eps);
    for (int64_t i = 0; i < per; ++i)
      w2.setDouble(o * per + i, wt->getDouble(o * per + i) * s);
    double bo = b0 ? b0->getDouble(o) : 0.0;
    b2.setDouble(o, (bo - mean->getDouble(o)) * s + beta->getDouble(o));
  }
  w = weightConstant(b, conv.getW(), w2, "_bn");
  bias = weightConstant(b, amk::isNone(conv.getB()) ? bn.getB() : conv.getB(),
                        b2, "_bn");
  return success();
}

class FuseConvPass : public amk::impl::FuseConvBase<FuseConvPass> {
public:
  using FuseConvBase::FuseConvBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    auto profile = amk::loadTargetProfile(target, targetsDir, error);
    if (failed(profile)) {
      module.emitError() << "amk-fuse-conv: " << error;
      return signalPassFailure();
    }
    if (densityThreshold > 1) {
      module.emitError() << "amk-fuse-conv: density-threshold must be at "
                            "most 1 (a FLOP share), got "
                         << densityThreshold;
      return signalPassFailure();
    }
    amk::GraphProfile gp = amk::profileGraph(module);
    const amk::ClassProfile &conv = gp.of(amk::OpClass::Conv);
    double flopShare = gp.flopShare(amk::OpClass::Conv);
    double countShare = gp.countShare(amk::OpClass::Conv);
    bool overridden = densityThreshold >= 0;
    double flopLimit =
        overridden ? static_cast<double>(densityThreshold)
                   : profile->maxConvFlopShare;
    double countLimit = overridden ? 1.0 : profile->maxConvCountShare;
    std::string density = llvm::formatv(
        "Conv density {0:F3} of FLOPs ({1} of {2} ops, {3:F3})", flopShare,
        conv.count, gp.totalOps, countShare);
    std::string threshold =
        overridden
            ? llvm::formatv("threshold {0:F3} of FLOPs (density-threshold)",
                            flopLimit)
                  .str()
            : llvm::formatv("threshold {0:F3} of FLOPs, {1:F3} of ops "
                            "(target '{2}', {3})",
                            flopLimit, countLimit, profile->name,
                            profile->path)
                  .str();
    if (conv.count == 0) {
      amk::emitPassRemark(this, module, amk::RemarkKind::Analysis, "NoConv",
                          "no Conv in the graph: nothing to fuse");
      return markAllAnalysesPreserved();
    }
    if (flopShare > flopLimit || countShare > countLimit) {
      amk::emitPassRemark(this, module, amk::RemarkKind::Missed, "NotProfitable",
                          density + " exceeds the " + threshold +
                              ": Conv fusion does not pay on this target; "
                              "graph left unchanged");
      amk::PassCounters::add(this, "skipped-dense", 1,
                             "graphs left alone: Conv density above the "
                             "threshold");
      return markAllAnalysesPreserved();
    }

    int64_t folded = 0, fused = 0;
    llvm::DenseSet<Operation *> claimed;
    SmallVector<Operation *> convs;
    module.walk([&](onnx::ConvOp c) { convs.push_back(c); });
    for (Operation *op : convs) {
      auto chain = amk::matchConvChain(
          op, [&](Operation *o) { return claimed.contains(o); });
      if (!chain || chain->ops.size() == 1)
        continue;
      claimed.insert(chain->ops.begin(), chain->ops.end());
      auto c = cast<onnx::ConvOp>(chain->conv);
      OpBuilder b(chain->root());
      Value w = c.getW(), bias = c.getB();
      if (chain->bn) {
        if (!foldBN)
          continue; // The epilogue cannot be fused past an unfolded BN.
        OpBuilder cb(chain->bn);
        if (failed(foldBatchNorm(cb, c,
                                 cast<onnx::BatchNormalizationOp>(chain->bn),
                                 w, bias)))
          continue;
        ++folded;
      }
      bool epilogue = fuseEpilogue && (chain->add || chain->act);
      if (!epilogue) {
        if (!chain->bn)
          continue;
        // BN folding alone: an onnx.Conv with the folded weights.
        OpBuilder cb(chain->bn);
        auto nc = cast<onnx::ConvOp>(cb.clone(*c));
        nc->setOperand(1, w);
        nc->setOperand(2, bias);
        nc->setLoc(amk::fusedNodeLoc({c, chain->bn}, c, chain->bn->getResult(0)));
        nc.getY().setType(cast<onnx::BatchNormalizationOp>(chain->bn)
                              .getY()
                              .getType());
        amk::emitPassRemark(this, nc, amk::RemarkKind::Passed, "FoldedBN",
                            "folded " + onnx::describeOp(chain->bn) +
                                " into " + onnx::describeOp(c));
        chain->bn->getResult(0).replaceAllUsesWith(nc.getY());
        amk::eraseOps({c, chain->bn});
        continue;
      }
      // The epilogue ends at the Add when there is no activation, or when
      // it was not asked for.
      SmallVector<Operation *> ops(chain->ops.begin(), chain->ops.end());
      Operation *root = chain->root();
      Value none = amk::getNoneValue(b, c.getLoc());
      NamedAttrList attrs;
      for (llvm::StringRef name :
           {"auto_pad", "dilations", "group", "kernel_shape", "pads",
            "strides"})
        if (Attribute a = c->getAttr(name))
          attrs.set(name, a);
      if (chain->act) {
        attrs.set("activation", b.getStringAttr(chain->act->kind));
        if (chain->act->kind == "clip" || chain->act->kind == "leaky_relu" ||
            chain->act->kind == "quick_gelu")
          attrs.set("activation_alpha",
                    b.getF32FloatAttr(static_cast<float>(chain->act->alpha)));
        if (chain->act->kind == "clip")
          attrs.set("activation_beta",
                    b.getF32FloatAttr(static_cast<float>(chain->act->beta)));
      }
      Value result = root->getResult(0);
      auto fusedOp = amk::fused::ConvOp::create(
          b, amk::fusedNodeLoc(ops, c, result), TypeRange{result.getType()},
          ValueRange{c.getX(), w, amk::isNone(bias) ? none : bias,
                     chain->addend ? chain->addend : none},
          attrs);
      amk::emitPassRemark(this, fusedOp, amk::RemarkKind::Passed, "Fused",
                          "fused " + amk::describeMatch(ops) +
                              " into amk.conv");
      result.replaceAllUsesWith(fusedOp.getY());
      amk::eraseOps(ops);
      ++fused;
    }
    amk::updateSignaturesAndErase(module);
    amk::emitPassRemark(this, module, amk::RemarkKind::Passed, "Profitable",
                        density + " is within the " + threshold +
                            ": fused " + llvm::Twine(fused) +
                            " Conv chains, folded " + llvm::Twine(folded) +
                            " BatchNormalizations");
    numFoldedBN = folded;
    numFused = fused;
    amk::PassCounters::add(this, "folded-bn", folded,
                           "BatchNormalizations folded");
    amk::PassCounters::add(this, "fused", fused, "amk.conv ops created");
  }
};

} // namespace
