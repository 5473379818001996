//===- ShapeInference.cpp - amk-infer-shapes ------------------------------===//
//
// Part of AMK. Refines the result types of typed ops, in program order:
//
//  1. Shape computations on constants fold to constants (Shape of a static
//     tensor, then Gather/Concat/Unsqueeze/... on constants), so a
//     Shape -> Gather -> Concat -> Reshape chain ends in a constant shape.
//  2. Symbolic rules for the ops models are made of (elementwise,
//     broadcasting, MatMul/Gemm, Conv/pooling, data movement with constant
//     operands) propagate dynamic dimensions such as a batch size.
//  3. Any other op whose inputs have static shapes, and whose
//     shape-determining operands are constants, is evaluated by its
//     reference kernel on placeholder inputs: the kernels define each op's
//     semantics once, shapes included.
//
// A refined type must agree with the one the IR already has; a conflict is
// an error at the op naming the ONNX node.
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"
#include "transforms/graph/Passes.h"
#include "transforms/graph/SymbolicShapes.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringSet.h"

namespace amk {
#define GEN_PASS_DEF_INFERSHAPES
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;
using amk::ref::RValue;
using amk::ref::Tensor;

namespace {

/// Operands whose values (not only shapes) determine the result shapes.
llvm::SmallVector<unsigned> shapeOperands(llvm::StringRef op) {
  static const llvm::StringMap<llvm::SmallVector<unsigned>> table = {
      {"Reshape", {1}},
      {"Expand", {1}},
      {"Tile", {1}},
      {"Slice", {1, 2, 3, 4}},
      {"Range", {0, 1, 2}},
      {"ConstantOfShape", {0}},
      {"Resize", {1, 2, 3}},
      {"Upsample", {1}},
      {"Pad", {1, 3}},
      {"Squeeze", {1}},
      {"Unsqueeze", {1}},
      {"Split", {1}},
      {"TopK", {1}},
      {"OneHot", {1}},
      {"CenterCropPad", {1}},
      {"Col2Im", {1, 2}},
      {"AffineGrid", {1}},
      {"DFT", {1, 2}},
      {"STFT", {1, 3}},
      {"HannWindow", {0}},
      {"HammingWindow", {0}},
      {"BlackmanWindow", {0}},
      {"MelWeightMatrix", {0, 1, 2, 3, 4}},
      {"MaxUnpool", {2}},
      {"ReduceSum", {1}},
      {"ReduceMean", {1}},
      {"ReduceMax", {1}},
      {"ReduceMin", {1}},
      {"ReduceProd", {1}},
      {"ReduceL1", {1}},
      {"ReduceL2", {1}},
      {"ReduceLogSum", {1}},
      {"ReduceLogSumExp", {1}},
      {"ReduceSumSquare", {1}}};
  auto it = table.find(op);
  return it == table.end() ? llvm::SmallVector<unsigned>{} : it->second;
}

/// Ops whose result shapes depend on input values in general.
bool isDataDependent(llvm::StringRef op) {
  static const llvm::StringSet<> ops = {"NonZero",
                                        "Unique",
                                        "Compress",
                                        "NonMaxSuppression",
                                        "StringSplit",
                                        "StringNormalizer",
                                        "ImageDecoder",
                                        "Loop",
                                        "If",
                                        "Scan",
                                        "SequenceMap",
                                        "SequenceAt",
                                        "SequenceConstruct",
                                        "SequenceEmpty",
                                        "SequenceInsert",
                                        "SequenceErase",
                                        "SequenceLength",
                                        "SplitToSequence",
                                        "ConcatFromSequence",
                                        "Optional",
                                        "OptionalGetElement",
                                        "OptionalHasElement"};
  return ops.contains(op);
}

/// Largest number of input elements evaluated on placeholders.
constexpr int64_t kMaxEvaluatedElements = int64_t(1) << 22;

RankedTensorType rankedOf(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

class InferShapesPass : public amk::impl::InferShapesBase<InferShapesPass> {
public:
  using InferShapesBase::InferShapesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failedAny = false;
    shapes = amk::sym::SymbolicShapes(); // Nothing from an earlier run.
    SmallVector<func::FuncOp> funcs;
    module.walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      for (BlockArgument arg : func.getArguments()) {
        SmallVector<StringRef> names;
        if (auto p = func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(),
                                                      "onnx.dim_params"))
          for (Attribute a : p)
            names.push_back(isa<StringAttr>(a) ? cast<StringAttr>(a).getValue()
                                               : StringRef());
        auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                      amk::onnx::kNameAttr);
        std::string input =
            name ? name.str() : "input" + std::to_string(arg.getArgNumber());
        shapes.seedArgument(arg, names, input);
      }
      if (failed(processBlock(func.getBody().front())))
        failedAny = true;
      funcs.push_back(func);
    });
    amk::updateSignaturesAndErase(module);
    for (func::FuncOp func : funcs)
      nameResultDims(func);
    amk::PassCounters::add(this, "refined", refined, "result types refined");
    amk::PassCounters::add(this, "folded", folded,
                           "shape computations folded to constants");
    amk::PassCounters::add(this, "unresolved", unresolved,
                           "results left without a static shape");
    numRefined = refined;
    numFolded = folded;
    numUnresolved = unresolved;
    if (failedAny)
      signalPassFailure();
  }

private:
  LogicalResult processBlock(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      // A fused group's body sees its operands as block arguments: they
      // take the operands' refined types first (after binding, say).
      if (auto group = dyn_cast<amk::fused::FusedElementwiseOp>(op))
        for (auto [arg, in] :
             llvm::zip(group.getBody().getArguments(), group.getInputs()))
          if (arg.getType() != in.getType())
            arg.setType(merge(arg.getType(), in.getType()));
      for (Region &r : op.getRegions())
        for (Block &b : r)
          if (failed(processBlock(b)))
            return failure();
      // The fused ops are refined too, so a model fused before its sizes
      // were known becomes static when they are bound.
      if (!isa_and_nonnull<amk::onnx::ONNXDialect, amk::fused::AMKDialect>(
              op.getDialect()) ||
          isa<amk::onnx::NoValueOp, amk::onnx::YieldOp, amk::onnx::ConstantOp,
              amk::fused::YieldOp>(op))
        continue;
      // Quantized weights stay behind their DequantizeLinear, as
      // amk-fold-constants{keep-qdq} keeps them: amk-lower-qdq reads them.
      if (foldShapeComputations &&
          !isa<amk::onnx::QuantizeLinearOp, amk::onnx::DequantizeLinearOp>(
              op) &&
          amk::foldOp(&op, foldLimit) == amk::FoldResult::Folded) {
        ++folded;
        continue;
      }
      if (failed(refine(&op)))
        return failure();
      if (foldShapeComputations && materializeKnownInts(&op))
        ++folded;
    }
    return success();
  }

  /// Replaces a shape computation whose every element the symbolic values
  /// know (a static dimension read through Shape -> Gather of a dynamic
  /// tensor, say) by a constant.
  bool materializeKnownInts(Operation *op) {
    if (op->getNumResults() != 1 || op->getNumRegions() ||
        !isa<amk::onnx::ONNXDialect>(op->getDialect()))
      return false;
    Value r = op->getResult(0);
    auto t = dyn_cast<RankedTensorType>(r.getType());
    if (!t || !t.hasStaticShape() || !isa<IntegerType>(t.getElementType()) ||
        t.getNumElements() > foldLimit)
      return false;
    auto values = shapes.intsOf(r);
    if (!values || (int64_t)values->size() != t.getNumElements())
      return false;
    SmallVector<APInt> elems;
    unsigned width = t.getElementType().getIntOrFloatBitWidth();
    for (const amk::sym::Dim &d : *values) {
      auto c = d ? d->getConstant() : std::nullopt;
      if (!c)
        return false;
      elems.push_back(
          APInt(width, *c, /*isSigned=*/true, /*implicitTrunc=*/true));
    }
    OpBuilder b(op);
    Value cst = amk::onnx::ConstantOp::create(
                    b, op->getLoc(), TypeRange{t}, ValueRange{},
                    ArrayRef<NamedAttribute>{b.getNamedAttr(
                        "value", DenseElementsAttr::get(t, elems))})
                    .getResult();
    r.replaceAllUsesWith(cst);
    shapes.forget(r);
    op->erase();
    return true;
  }

  /// Whether `inferred` may replace `existing` (equal or more precise).
  LogicalResult checkCompatible(Operation *op, Type existing, Type inferred) {
    if (isa<amk::onnx::UnknownType>(existing) || existing == inferred)
      return success();
    auto e = dyn_cast<TensorType>(existing);
    auto i = dyn_cast<TensorType>(inferred);
    if (!e || !i)
      return success(); // Sequences: keep what the IR says.
    if (e.getElementType() != i.getElementType() ||
        (e.hasRank() && i.hasRank() &&
         failed(verifyCompatibleShape(e.getShape(), i.getShape()))))
      return op->emitOpError() << "inferred type " << inferred
                               << " conflicts with the declared " << existing;
    return success();
  }

  /// The more precise of two compatible types.
  static Type merge(Type existing, Type inferred) {
    auto e = dyn_cast<TensorType>(existing);
    auto i = dyn_cast<RankedTensorType>(inferred);
    if (!i)
      return existing;
    if (!e || !e.hasRank())
      return i;
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < i.getRank(); ++d)
      dims.push_back(ShapedType::isDynamic(e.getDimSize(d)) ? i.getDimSize(d)
                                                            : e.getDimSize(d));
    return RankedTensorType::get(dims, i.getElementType());
  }

  /// The type a rule gives a result, or null when it knows too little.
  static Type typeFrom(const amk::sym::ResultShape &r, Type existing) {
    Type elt = r.elementType;
    if (!elt)
      if (auto t = dyn_cast<TensorType>(existing))
        elt = t.getElementType();
    if (!elt || !r.dims)
      return Type();
    SmallVector<int64_t> dims;
    for (const amk::sym::Dim &d : *r.dims)
      dims.push_back(amk::sym::staticSize(d));
    return RankedTensorType::get(dims, elt);
  }

  static bool isStatic(Type t) {
    auto tt = dyn_cast_or_null<RankedTensorType>(t);
    return tt && tt.hasStaticShape();
  }

  /// A Reshape whose target is known must fit its input: a -1 must come
  /// out whole and the element counts agree (bound sizes can make an
  /// exporter's target wrong; refused here, not truncated).
  LogicalResult checkReshape(Operation *op) {
    auto x = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    auto target = shapes.intsOf(op->getOperand(1));
    if (!x || !x.hasStaticShape() || !target)
      return success();
    bool allowZero =
        cast<amk::onnx::ReshapeOp>(op).getAllowzero() != 0;
    int64_t known = 1, minusOnes = 0;
    std::string text;
    for (auto [i, d] : llvm::enumerate(*target)) {
      auto c = d ? d->getConstant() : std::nullopt;
      if (!c)
        return success();
      text += (i ? ", " : "") + std::to_string(*c);
      int64_t v = *c;
      if (v == 0 && !allowZero)
        v = (int64_t)i < x.getRank() ? x.getDimSize(i) : 0;
      if (v == -1)
        ++minusOnes;
      else if (v < 0)
        return op->emitOpError() << "the target shape [" << text
                                 << "...] has the size " << v;
      else
        known *= v;
    }
    int64_t n = x.getNumElements();
    bool fits = minusOnes == 0   ? known == n
                : minusOnes == 1 ? (known ? n % known == 0 : n == 0)
                                 : false;
    if (!fits)
      return op->emitOpError()
             << "the target shape [" << text << "] does not fit the input's "
             << n << " elements (" << x << ")";
    return success();
  }

  LogicalResult refine(Operation *op) {
    if (isa<amk::onnx::ReshapeOp>(op) && failed(checkReshape(op)))
      return failure();
    auto rule = shapes.infer(op);
    SmallVector<Type> inferred(op->getNumResults());
    if (rule)
      for (auto [i, r] : llvm::enumerate(*rule))
        inferred[i] = typeFrom(r, op->getResult(i).getType());
    // Rules are cheap and also check types that are already static. The
    // kernels are evaluated only where a result is left without a static
    // shape, on inputs that have one.
    bool needed = llvm::any_of(llvm::enumerate(op->getResults()), [&](auto it) {
      Type t = it.value().getType();
      if (isa<NoneType>(t))
        return false;
      return !isStatic(t) && !isStatic(inferred[it.index()]);
    });
    if (needed)
      if (auto evaluated = inferByEvaluation(op))
        for (auto [i, t] : llvm::enumerate(*evaluated))
          if (t && !isStatic(inferred[i]))
            inferred[i] = t;
    bool any = llvm::any_of(inferred, [](Type t) { return bool(t); });
    if (!any && needed)
      unresolved += op->getNumResults();
    for (auto [result, t] : llvm::zip(op->getResults(), inferred)) {
      if (!t || isa<NoneType>(result.getType()))
        continue;
      if (failed(checkCompatible(op, result.getType(), t)))
        return failure();
      Type m = merge(result.getType(), t);
      if (m != result.getType()) {
        result.setType(m);
        ++refined;
      }
    }
    shapes.record(op, rule);
    return success();
  }

  /// Runs the op's kernel on placeholders of the static input shapes.
  std::optional<SmallVector<Type>> inferByEvaluation(Operation *op) {
    llvm::StringRef type = op->getName().stripDialect();
    if (isa<amk::onnx::GenericOp>(op) || op->getNumRegions() ||
        isDataDependent(type))
      return std::nullopt;
    auto valueOperands = shapeOperands(type);
    std::vector<RValue> inputs;
    int64_t total = 0;
    for (auto [i, v] : llvm::enumerate(op->getOperands())) {
      if (amk::isNone(v)) {
        inputs.push_back(RValue::none());
        continue;
      }
      if (auto c = amk::getConstantTensor(v)) {
        inputs.push_back(RValue(*c));
        continue;
      }
      if (llvm::is_contained(valueOperands, i))
        return std::nullopt; // Its value decides the shape.
      auto t = rankedOf(v);
      if (!t || !t.hasStaticShape())
        return std::nullopt;
      auto dt = amk::onnx::getDataType(t.getElementType());
      if (!dt)
        return std::nullopt;
      total += t.getNumElements();
      if (total > kMaxEvaluatedElements)
        return std::nullopt;
      // Integer placeholders are zero, floats one: indices stay in range
      // and divisions stay finite.
      Tensor p(*dt, t.getShape());
      if (isa<FloatType>(t.getElementType()))
        for (int64_t k = 0; k < p.numel(); ++k)
          p.setDouble(k, 1.0);
      inputs.push_back(RValue(p));
    }
    auto out = amk::ref::Interpreter::evaluate(op, inputs);
    if (failed(out))
      return std::nullopt;
    SmallVector<Type> types;
    for (const RValue &v : *out)
      types.push_back(v.isNone() ? Type()
                                 : amk::typeOfValue(v, op->getContext()));
    return types;
  }

  /// Names the dynamic dimensions of the graph outputs after the inputs'
  /// (ONNX dim_params): a dimension that is an input's `seq` is `seq`, one
  /// computed from named dimensions gets its expression (`batch*seq`).
  /// Names the model gave its outputs are kept.
  void nameResultDims(func::FuncOp func) {
    Operation *ret = func.getBody().front().getTerminator();
    for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      auto d = shapes.dimsOf(v);
      if (!t || t.hasStaticShape() || !d || (int64_t)d->size() != t.getRank())
        continue;
      auto given = func.getResultAttrOfType<ArrayAttr>(i, "onnx.dim_params");
      SmallVector<Attribute> names;
      bool any = false;
      for (int64_t k = 0; k < t.getRank(); ++k) {
        std::string name;
        if (given && k < (int64_t)given.size())
          if (auto s = dyn_cast<StringAttr>(given[k]))
            name = s.str();
        const amk::sym::Dim &e = (*d)[k];
        if (name.empty() && t.isDynamicDim(k) && e && e->isNamed())
          name = e->str();
        any |= !name.empty();
        names.push_back(StringAttr::get(func.getContext(), name));
      }
      if (any)
        func.setResultAttr(i, "onnx.dim_params",
                           ArrayAttr::get(func.getContext(), names));
    }
  }

  amk::sym::SymbolicShapes shapes;
  int64_t refined = 0, folded = 0, unresolved = 0;
};

} // namespace
