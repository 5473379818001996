//===- FoldConstants.cpp - amk-fold-constants -----------------------------===//
//
// Part of AMK. Evaluates ops whose operands are all constants with their
// reference kernels (see Passes.td for the contract).
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"
#include "transforms/graph/Passes.h"

#include "dialect/ONNX/ONNXNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace amk {
#define GEN_PASS_DEF_FOLDCONSTANTS
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;

namespace {

class FoldConstantsPass
    : public amk::impl::FoldConstantsBase<FoldConstantsPass> {
public:
  using FoldConstantsBase::FoldConstantsBase;

  void runOnOperation() override {
    int64_t folded = 0, tooLarge = 0;
    // Program order: an op's constant operands are folded before it.
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (keepQDQ &&
          isa<amk::onnx::QuantizeLinearOp, amk::onnx::DequantizeLinearOp>(op))
        return WalkResult::skip();
      switch (amk::foldOp(op, maxElements)) {
      case amk::FoldResult::Folded:
        ++folded;
        return WalkResult::skip();
      case amk::FoldResult::TooLarge:
        ++tooLarge;
        amk::emitPassRemark(this, op, amk::RemarkKind::Missed, "TooLarge",
                            amk::onnx::describeOp(op) +
                                ": constant inputs or result above "
                                   "max-elements=" +
                                llvm::Twine(maxElements));
        break;
      default:
        break;
      }
      return WalkResult::advance();
    });
    amk::updateSignaturesAndErase(getOperation());
    amk::emitPassRemark(this, getOperation(), amk::RemarkKind::Passed,
                        "Folded",
                        "folded " + llvm::Twine(folded) +
                            " ops with constant inputs; " +
                            llvm::Twine(tooLarge) +
                            " left alone (above max-elements)");
    numFolded = folded;
    numTooLarge = tooLarge;
    amk::PassCounters::add(this, "folded", folded, "ops folded to constants");
    amk::PassCounters::add(this, "too-large", tooLarge,
                           "constant ops left alone: above max-elements");
  }
};

} // namespace
