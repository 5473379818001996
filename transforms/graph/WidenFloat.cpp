//===- WidenFloat.cpp - amk-widen-float -----------------------------------===//
//
// Part of AMK. Makes float16 and bfloat16 ops compute in float32 with casts
// at their boundaries (Passes.td has the contract): the runtime's arithmetic
// kernels are float32 kernels, and this is what "computed in float32,
// stored in their type" means for every one of them at once.
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"
#include "transforms/graph/Passes.h"

#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"

namespace amk {
#define GEN_PASS_DEF_WIDENFLOAT
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;
namespace onnx = amk::onnx;

namespace {

bool isNarrowFloat(Type t) {
  auto tt = dyn_cast<TensorType>(t);
  return tt && (tt.getElementType().isF16() || tt.getElementType().isBF16());
}

/// Ops that move, select or describe data without arithmetic: the runtime
/// handles them in every element type, and widening them would only add
/// copies. Also ops whose type is an attribute, and bodies' owners.
bool keepsItsType(Operation *op) {
  if (op->getNumRegions() != 0)
    return true;
  llvm::StringRef name = op->getName().stripDialect();
  if (auto g = dyn_cast<onnx::GenericOp>(op))
    name = g.getOpType();
  static const llvm::StringSet<> kept = {
      "Cast",
      "CastLike",
      "Identity",
      "Reshape",
      "Flatten",
      "Squeeze",
      "Unsqueeze",
      "Transpose",
      "Concat",
      "Split",
      "Slice",
      "Gather",
      "GatherElements",
      "GatherND",
      "Scatter",
      "ScatterElements",
      "ScatterND",
      "Expand",
      "Tile",
      "Pad",
      "Shape",
      "Size",
      "DepthToSpace",
      "SpaceToDepth",
      "Where",
      "Compress",
      "ReverseSequence",
      "Trilu",
      "Constant",
      "ConstantOfShape",
      "NonZero",
      "Unique",
      "EyeLike",
      "OneHot",
      "Dropout",
      "Yield",
      "NoValue",
      "SequenceConstruct",
      "SequenceAt",
      "SequenceInsert",
      "SequenceErase",
      "SequenceLength",
      "SplitToSequence",
      "ConcatFromSequence",
      "Optional",
      "OptionalGetElement",
      "OptionalHasElement",
      "RandomUniform",
      "RandomNormal",
      "RandomUniformLike",
      "RandomNormalLike",
      "Bernoulli",
      "Multinomial",
  };
  return kept.contains(name);
}

Value castTo(OpBuilder &b, Location loc, Value v, Type elem, int64_t onnxType) {
  auto tt = cast<TensorType>(v.getType());
  Type t = tt.clone(elem);
  return onnx::CastOp::create(b, loc, TypeRange{t}, ValueRange{v},
                              ArrayRef<NamedAttribute>{b.getNamedAttr(
                                  "to", b.getI64IntegerAttr(onnxType))})
      .getResult();
}

class WidenFloatPass : public amk::impl::WidenFloatBase<WidenFloatPass> {
public:
  using WidenFloatBase::WidenFloatBase;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "onnx" &&
          !keepsItsType(op) &&
          (llvm::any_of(op->getOperandTypes(), isNarrowFloat) ||
           llvm::any_of(op->getResultTypes(), isNarrowFloat)))
        ops.push_back(op);
    });
    OpBuilder b(&getContext());
    Type f32 = b.getF32Type();
    for (Operation *op : ops) {
      b.setInsertionPoint(op);
      for (OpOperand &use : op->getOpOperands())
        if (isNarrowFloat(use.get().getType()))
          use.set(castTo(b, op->getLoc(), use.get(), f32,
                         (int64_t)onnx::DataType::FLOAT));
      b.setInsertionPointAfter(op);
      for (OpResult r : op->getResults()) {
        if (!isNarrowFloat(r.getType()))
          continue;
        auto tt = cast<TensorType>(r.getType());
        auto dt = onnx::getDataType(tt.getElementType());
        r.setType(tt.clone(f32));
        Value back =
            castTo(b, op->getLoc(), r, tt.getElementType(), (int64_t)*dt);
        r.replaceAllUsesExcept(back, back.getDefiningOp());
      }
    }
    int64_t widened = ops.size();
    numWidened = widened;
    amk::PassCounters::add(this, "widened", widened, "ops computed in float32");
  }
};

} // namespace
