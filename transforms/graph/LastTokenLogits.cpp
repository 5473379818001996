//===- LastTokenLogits.cpp - amk-last-token-logits ------------------------===//
//
// Part of AMK. Slices a decoder's LM-head input to its last position, so a
// prefill computes one row of logits instead of one per prompt token
// (Passes.td has the contract).
//
//===----------------------------------------------------------------------===//

#include "transforms/graph/Passes.h"

#include "transforms/Utils/PassUtils.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <limits>

namespace amk {
#define GEN_PASS_DEF_LASTTOKENLOGITS
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;

namespace {

class LastTokenLogitsPass
    : public amk::impl::LastTokenLogitsBase<LastTokenLogitsPass> {
public:
  using LastTokenLogitsBase::LastTokenLogitsBase;

  void runOnOperation() override {
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(rewrite(func)))
        return signalPassFailure();
    }
  }

  LogicalResult rewrite(func::FuncOp func) {
    Operation *ret = func.getBody().front().getTerminator();
    int index = -1;
    for (unsigned j = 0; j < func.getNumResults(); ++j)
      if (auto n = func.getResultAttrOfType<StringAttr>(j,
                                                        amk::onnx::kNameAttr);
          n && n.getValue() == output)
        index = j;
    if (index < 0)
      return func.emitError() << "amk-last-token-logits: the model has no "
                                 "output named '"
                              << output << "'";
    Value logits = ret->getOperand(index);
    Operation *head = logits.getDefiningOp();
    auto fail = [&](const Twine &why) {
      return (head ? head->emitError() : func.emitError())
             << "amk-last-token-logits: output '" << output << "' " << why;
    };
    if (!head || head->getName().getStringRef() != "onnx.MatMul")
      return fail("is not computed by a MatMul");
    if (!logits.hasOneUse())
      return fail("has users besides the graph's output");
    auto x = dyn_cast<RankedTensorType>(head->getOperand(0).getType());
    auto w = dyn_cast<RankedTensorType>(head->getOperand(1).getType());
    auto y = dyn_cast<RankedTensorType>(logits.getType());
    if (!x || !w || !y || x.getRank() != 3 || w.getRank() != 2 ||
        !x.hasStaticShape() || !y.hasStaticShape() ||
        !head->getOperand(1).getDefiningOp<amk::onnx::ConstantOp>())
      return fail("is not a product of static [B, S, D] activations and a "
                  "constant [D, V] head");
    if (x.getDimSize(1) == 1)
      return success();
    OpBuilder b(head);
    Location loc = head->getLoc();
    auto one = [&](int64_t v) {
      amk::ref::Tensor t(amk::ref::DataType::INT64, {1});
      *reinterpret_cast<int64_t *>(t.raw()) = v;
      return amk::createConstant(b, loc, t);
    };
    OperationState st(loc, "onnx.Slice");
    st.addOperands({head->getOperand(0), one(x.getDimSize(1) - 1),
                    one(x.getDimSize(1)), one(1), one(1)});
    st.addTypes(RankedTensorType::get({x.getDimSize(0), 1, x.getDimSize(2)},
                                      x.getElementType()));
    Value last = b.create(st)->getResult(0);
    head->setOperand(0, last);
    auto newType = RankedTensorType::get(
        {y.getDimSize(0), 1, y.getDimSize(2)}, y.getElementType());
    logits.setType(newType);
    SmallVector<Type> results(func.getResultTypes());
    results[index] = newType;
    func.setFunctionType(
        FunctionType::get(func.getContext(), func.getArgumentTypes(), results));
    return success();
  }
};

} // namespace
