//===- NormalizeOpset.cpp - amk-normalize-opset ---------------------------===//
//
// Part of AMK. Rewrites a model of any default-domain opset from 7 to 21
// into the canonical form at the target opset (see Passes.td and
// docs/passes.md). The conversion runs on a clone of the module; the
// module is replaced only when every op converted and verifies at the
// target opset, so a refusal leaves the input IR untouched and valid.
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"
#include "transforms/graph/OpsetConversions.h"
#include "transforms/graph/Passes.h"

#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXSchema.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

#include <algorithm>

namespace amk {
#define GEN_PASS_DEF_NORMALIZEOPSET
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;
namespace onnx = amk::onnx;

namespace {

/// The ONNX IR version an opset needs at least.
int64_t minIRVersion(int64_t opset) {
  static const int64_t table[] = {3, 3, 4, 5, 6, 7, 7, 7, 8, 8,
                                  8, 8, 9, 9, 10};
  return table[std::clamp<int64_t>(opset, 7, 21) - 7];
}

using amk::opset::Converter;

class NormalizeOpsetPass
    : public amk::impl::NormalizeOpsetBase<NormalizeOpsetPass> {
public:
  using NormalizeOpsetBase::NormalizeOpsetBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (targetOpset < onnx::kMinOpset || targetOpset > onnx::kMaxOpset) {
      module.emitError() << "amk-normalize-opset: target-opset must be in ["
                         << onnx::kMinOpset << ", " << onnx::kMaxOpset
                         << "], got " << static_cast<int64_t>(targetOpset);
      return signalPassFailure();
    }
    int64_t from = onnx::getDefaultOpset(module);
    // Convert a clone; the module changes only if everything converts.
    OwningOpRef<ModuleOp> work = module.clone();
    Converter conv(from, targetOpset);
    bool ok = true;
    SmallVector<Operation *> ops;
    work->walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops)
      if (failed(conv.convert(op)))
        ok = false;
    if (ok && recompose)
      work->walk([&](func::FuncOp f) { conv.recompose(f); });
    if (ok)
      work->walk([&](Operation *op) {
        if (isa_and_nonnull<onnx::ONNXDialect>(op->getDialect()))
          (void)conv.stripDefaults(op);
      });
    setOpset(*work);
    if (ok && failed(verify(*work))) {
      module.emitError() << "amk-normalize-opset: the model does not verify "
                            "at opset "
                         << static_cast<int64_t>(targetOpset)
                         << " (see the errors above)";
      ok = false;
    }
    if (!ok)
      return signalPassFailure();
    module.getBodyRegion().takeBody(work->getBodyRegion());
    module->setAttrs(work->getOperation()->getAttrDictionary());
    amk::updateSignaturesAndErase(module);
    amk::emitPassRemark(
        this, module, amk::RemarkKind::Passed, "Normalized",
        "opset " + Twine(from) + " -> " + Twine(targetOpset) + ": " +
            Twine(conv.converted) + " ops rewritten, " +
            Twine(conv.recomposed) + " Gelu/LayerNormalization recomposed, " +
            Twine(conv.decomposed) + " decomposed");
    numConverted = conv.converted;
    numRecomposed = conv.recomposed;
    numDecomposed = conv.decomposed;
    amk::PassCounters::add(this, "converted", conv.converted,
                           "ops rewritten to their target-opset form");
    amk::PassCounters::add(this, "recomposed", conv.recomposed,
                           "Gelu/LayerNormalization recomposed");
    amk::PassCounters::add(this, "decomposed", conv.decomposed,
                           "Gelu/LayerNormalization decomposed");
  }

private:
  void setOpset(ModuleOp m) {
    MLIRContext *ctx = m.getContext();
    NamedAttrList opsets;
    if (auto d = m->getAttrOfType<DictionaryAttr>(onnx::kOpsetImportAttr))
      opsets.append(d.getValue());
    // The opset the model was written at, for messages about its nodes
    // after they were rewritten to the target's forms.
    if (!m->hasAttr("onnx.model_opset"))
      m->setAttr("onnx.model_opset",
                 IntegerAttr::get(IntegerType::get(ctx, 64),
                                  onnx::getDefaultOpset(m)));
    opsets.set(onnx::kDefaultDomain,
               IntegerAttr::get(IntegerType::get(ctx, 64), targetOpset));
    m->setAttr(onnx::kOpsetImportAttr, opsets.getDictionary(ctx));
    auto ir = m->getAttrOfType<IntegerAttr>("onnx.ir_version");
    int64_t need = minIRVersion(targetOpset);
    if (ir && ir.getInt() < need)
      m->setAttr("onnx.ir_version",
                 IntegerAttr::get(IntegerType::get(ctx, 64), need));
  }
};

} // namespace
