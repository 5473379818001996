//===- SpeculateIf.cpp - amk-speculate-if ---------------------------------===//
//
// Part of AMK. Replaces an If with a run-time condition by both of its
// branches and a Where per result (Passes.td has the contract), so the
// model stays one static program.
//
//===----------------------------------------------------------------------===//

#include "transforms/graph/Passes.h"

#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

namespace amk {
#define GEN_PASS_DEF_SPECULATEIF
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;

namespace {

class SpeculateIfPass : public amk::impl::SpeculateIfBase<SpeculateIfPass> {
public:
  using SpeculateIfBase::SpeculateIfBase;

  /// Whether `op` can be replaced: static tensor results that both
  /// branches yield with exactly their types, and a condition that can
  /// broadcast against every result.
  bool canSpeculate(amk::onnx::IfOp op) {
    auto cond = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!cond || cond.getNumElements() != 1 || cond.getRank() > 1 ||
        !cond.getElementType().isInteger(1))
      return false;
    for (Region &r : op->getRegions()) {
      Block &b = r.front();
      if (b.getNumArguments() != 0 ||
          (int64_t)b.getOperations().size() - 1 > maxBranchOps)
        return false;
      Operation *yield = b.getTerminator();
      if (yield->getNumOperands() != op->getNumResults())
        return false;
      for (auto [v, res] :
           llvm::zip(yield->getOperands(), op->getResults()))
        if (v.getType() != res.getType())
          return false;
    }
    for (Value res : op->getResults()) {
      auto t = dyn_cast<RankedTensorType>(res.getType());
      if (!t || !t.hasStaticShape() || t.getRank() < cond.getRank())
        return false;
    }
    return true;
  }

  void runOnOperation() override {
    SmallVector<amk::onnx::IfOp> ifs;
    // Outer Ifs first: inlining one exposes its nested Ifs, visited next.
    getOperation().walk<WalkOrder::PreOrder>([&](amk::onnx::IfOp op) {
      if (isa<func::FuncOp>(op->getParentOp()))
        ifs.push_back(op);
    });
    int64_t count = 0;
    while (!ifs.empty()) {
      amk::onnx::IfOp op = ifs.pop_back_val();
      if (!canSpeculate(op))
        continue;
      OpBuilder b(op);
      SmallVector<SmallVector<Value>> branchValues;
      for (Region &r : op->getRegions()) {
        IRMapping map;
        for (Operation &inner : r.front().without_terminator()) {
          Operation *clone = b.clone(inner, map);
          if (auto nested = dyn_cast<amk::onnx::IfOp>(clone))
            ifs.push_back(nested);
        }
        SmallVector<Value> vals;
        for (Value v : r.front().getTerminator()->getOperands())
          vals.push_back(map.lookupOrDefault(v));
        branchValues.push_back(vals);
      }
      for (auto [i, res] : llvm::enumerate(op->getResults())) {
        OperationState st(op->getLoc(), "onnx.Where");
        st.addOperands({op->getOperand(0), branchValues[0][i],
                        branchValues[1][i]});
        st.addTypes(res.getType());
        // The If's location (its ONNX node) names the Where in errors.
        Operation *where = b.create(st);
        res.replaceAllUsesWith(where->getResult(0));
      }
      op->erase();
      ++count;
    }
    numSpeculated = count;
  }
};

} // namespace
