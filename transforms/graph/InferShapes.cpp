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

constexpr int64_t kDyn = ShapedType::kDynamic;

/// Operands whose values (not only shapes) determine the result shapes.
llvm::SmallVector<unsigned> shapeOperands(llvm::StringRef op) {
  static const llvm::StringMap<llvm::SmallVector<unsigned>> table = {
      {"Reshape", {1}},       {"Expand", {1}},        {"Tile", {1}},
      {"Slice", {1, 2, 3, 4}}, {"Range", {0, 1, 2}},  {"ConstantOfShape", {0}},
      {"Resize", {1, 2, 3}},  {"Upsample", {1}},      {"Pad", {1, 3}},
      {"Squeeze", {1}},       {"Unsqueeze", {1}},     {"Split", {1}},
      {"TopK", {1}},          {"OneHot", {1}},        {"CenterCropPad", {1}},
      {"Col2Im", {1, 2}},     {"AffineGrid", {1}},    {"DFT", {1, 2}},
      {"STFT", {1, 3}},       {"HannWindow", {0}},    {"HammingWindow", {0}},
      {"BlackmanWindow", {0}}, {"MelWeightMatrix", {0, 1, 2, 3, 4}},
      {"MaxUnpool", {2}},     {"ReduceSum", {1}},     {"ReduceMean", {1}},
      {"ReduceMax", {1}},     {"ReduceMin", {1}},     {"ReduceProd", {1}},
      {"ReduceL1", {1}},      {"ReduceL2", {1}},      {"ReduceLogSum", {1}},
      {"ReduceLogSumExp", {1}}, {"ReduceSumSquare", {1}}};
  auto it = table.find(op);
  return it == table.end() ? llvm::SmallVector<unsigned>{} : it->second;
}

/// Ops whose result shapes depend on input values in general.
bool isDataDependent(llvm::StringRef op) {
  static const llvm::StringSet<> ops = {
      "NonZero", "Unique", "Compress", "NonMaxSuppression", "StringSplit",
      "StringNormalizer", "ImageDecoder", "Loop", "If", "Scan",
      "SequenceMap", "SequenceAt", "SequenceConstruct", "SequenceEmpty",
      "SequenceInsert", "SequenceErase", "SequenceLength", "SplitToSequence",
      "ConcatFromSequence", "Optional", "OptionalGetElement",
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
    module.walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      if (failed(processBlock(func.getBody().front())))
        failedAny = true;
    });
    amk::updateSignaturesAndErase(module);
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
      for (Region &r : op.getRegions())
        for (Block &b : r)
          if (failed(processBlock(b)))
            return failure();
      if (!isa_and_nonnull<amk::onnx::ONNXDialect>(op.getDialect()) ||
          isa<amk::onnx::NoValueOp, amk::onnx::YieldOp,
              amk::onnx::ConstantOp>(op))
        continue;
      if (foldShapeComputations &&
          amk::foldOp(&op, foldLimit) == amk::FoldResult::Folded) {
        ++folded;
        continue;
      }
      if (failed(refine(&op)))
        return failure();
    }
    return success();
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
      dims.push_back(ShapedType::isDynamic(e.getDimSize(d))
                         ? i.getDimSize(d)
                         : e.getDimSize(d));
    return RankedTensorType::get(dims, i.getElementType());
  }

  LogicalResult refine(Operation *op) {
    bool needed = llvm::any_of(op->getResultTypes(), [](Type t) {
      if (isa<amk::onnx::UnknownType>(t))
        return true;
      auto tt = dyn_cast<TensorType>(t);
      return tt && !tt.hasStaticShape();
    });
    // Symbolic rules are cheap: they also check types that are already
    // static. Evaluation runs only where something is left to learn.
    std::optional<SmallVector<Type>> inferred = inferByRules(op);
    if (!inferred && !needed)
      return success();
    if (!inferred)
      inferred = inferByEvaluation(op);
    if (!inferred) {
      unresolved += op->getNumResults();
      return success();
    }
    for (auto [result, t] : llvm::zip(op->getResults(), *inferred)) {
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
    return success();
  }

  /// Symbolic rules: these keep dynamic dimensions.
  std::optional<SmallVector<Type>> inferByRules(Operation *op) {
    llvm::StringRef type = op->getName().stripDialect();
    if (isa<amk::onnx::GenericOp>(op) || op->getNumOperands() == 0)
      return std::nullopt;
    auto x = rankedOf(op->getOperand(0));
    static const llvm::StringSet<> sameAsInput = {
        "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Erf", "Exp", "Log", "Sqrt",
        "Neg", "Abs", "Floor", "Ceil", "Reciprocal", "Softmax", "LogSoftmax",
        "HardSigmoid", "HardSwish", "Gelu", "Elu", "Selu", "Celu", "Softplus",
        "Softsign", "Sin", "Cos", "Tan", "Round", "Sign", "Identity", "Clip",
        "Dropout", "BatchNormalization", "InstanceNormalization",
        "LayerNormalization", "GroupNormalization", "LRN", "Hardmax", "Mish",
        "PRelu", "Not", "LpNormalization", "MeanVarianceNormalization",
        "CumSum", "Trilu"};
    if (sameAsInput.contains(type) && x) {
      SmallVector<Type> out(op->getNumResults(), nullptr);
      out[0] = x;
      return out;
    }
    static const llvm::StringSet<> broadcasting = {
        "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean",
        "Where", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
        "And", "Or", "Xor", "Mod", "BitwiseAnd", "BitwiseOr", "BitwiseXor"};
    if (broadcasting.contains(type)) {
      SmallVector<RankedTensorType> ts;
      SmallVector<ArrayRef<int64_t>> shapes;
      for (Value v : op->getOperands()) {
        auto t = rankedOf(v);
        if (!t)
          return std::nullopt;
        ts.push_back(t);
        shapes.push_back(t.getShape());
      }
      auto dims = amk::onnx::broadcastShapes(shapes);
      if (failed(dims))
        return std::nullopt;
      bool isCompare = type == "Equal" || type == "Less" ||
                       type == "Greater" || type == "LessOrEqual" ||
                       type == "GreaterOrEqual" || type == "And" ||
                       type == "Or" || type == "Xor";
      Type elt = isCompare ? IntegerType::get(op->getContext(), 1)
                 : type == "Where" ? ts[1].getElementType()
                                   : ts[0].getElementType();
      return SmallVector<Type>{RankedTensorType::get(*dims, elt)};
    }
    if (type == "Cast" && x) {
      Type elt = amk::onnx::getElementType(
          op->getContext(),
          static_cast<int32_t>(cast<amk::onnx::CastOp>(op).getTo()));
      return SmallVector<Type>{RankedTensorType::get(x.getShape(), elt)};
    }
    if (type == "MatMul") {
      auto a = x, b = rankedOf(op->getOperand(1));
      if (!a || !b || a.getRank() < 2 || b.getRank() < 2)
        return std::nullopt;
      auto batch = amk::onnx::broadcastShapes(
          {a.getShape().drop_back(2), b.getShape().drop_back(2)});
      if (failed(batch))
        return std::nullopt;
      batch->push_back(a.getDimSize(a.getRank() - 2));
      batch->push_back(b.getDimSize(b.getRank() - 1));
      return SmallVector<Type>{
          RankedTensorType::get(*batch, a.getElementType())};
    }
    if (type == "Gemm") {
      auto gemm = cast<amk::onnx::GemmOp>(op);
      auto a = x, b = rankedOf(op->getOperand(1));
      if (!a || !b || a.getRank() != 2 || b.getRank() != 2)
        return std::nullopt;
      int64_t m = a.getDimSize(gemm.getTransA() ? 1 : 0);
      int64_t n = b.getDimSize(gemm.getTransB() ? 0 : 1);
      return SmallVector<Type>{
          RankedTensorType::get({m, n}, a.getElementType())};
    }
    if (type == "Transpose" && x) {
      auto perm = cast<amk::onnx::TransposeOp>(op).getPerm();
      SmallVector<int64_t> dims;
      for (int64_t i = 0; i < x.getRank(); ++i)
        dims.push_back(x.getDimSize(perm ? (*perm)[i] : x.getRank() - 1 - i));
      return SmallVector<Type>{RankedTensorType::get(dims, x.getElementType())};
    }
    if (type == "Flatten" && x) {
      int64_t axis = cast<amk::onnx::FlattenOp>(op).getAxis();
      if (axis < 0)
        axis += x.getRank();
      auto prod = [&](int64_t lo, int64_t hi) {
        int64_t p = 1;
        for (int64_t d = lo; d < hi; ++d) {
          if (ShapedType::isDynamic(x.getDimSize(d)))
            return kDyn;
          p *= x.getDimSize(d);
        }
        return p;
      };
      return SmallVector<Type>{RankedTensorType::get(
          {prod(0, axis), prod(axis, x.getRank())}, x.getElementType())};
    }
    if (type == "Reshape" && x) {
      auto shape = amk::getConstantTensor(op->getOperand(1));
      if (!shape) {
        // The rank is the length of the shape operand.
        auto st = rankedOf(op->getOperand(1));
        if (!st || st.getRank() != 1 || st.isDynamicDim(0))
          return std::nullopt;
        return SmallVector<Type>{RankedTensorType::get(
            SmallVector<int64_t>(st.getDimSize(0), kDyn),
            x.getElementType())};
      }
      SmallVector<int64_t> dims;
      int64_t known = 1, inferIdx = -1;
      bool allowZero = cast<amk::onnx::ReshapeOp>(op).getAllowzero() != 0;
      auto values = shape->toInt64Vector();
      for (size_t i = 0; i < values.size(); ++i) {
        int64_t d = values[i];
        if (d == 0 && !allowZero)
          d = static_cast<int64_t>(i) < x.getRank() ? x.getDimSize(i) : kDyn;
        if (d == -1) {
          inferIdx = i;
          dims.push_back(kDyn);
          continue;
        }
        dims.push_back(d);
        if (ShapedType::isDynamic(d))
          known = kDyn;
        else if (!ShapedType::isDynamic(known))
          known *= d;
      }
      if (inferIdx >= 0 && x.hasStaticShape() && !ShapedType::isDynamic(known) &&
          known > 0)
        dims[inferIdx] = x.getNumElements() / known;
      return SmallVector<Type>{RankedTensorType::get(dims, x.getElementType())};
    }
    if ((type == "Conv" || type == "MaxPool" || type == "AveragePool") && x &&
        x.getRank() >= 3)
      return inferWindowed(op, x);
    if (type == "GlobalAveragePool" || type == "GlobalMaxPool") {
      if (!x || x.getRank() < 3)
        return std::nullopt;
      SmallVector<int64_t> dims = {x.getDimSize(0), x.getDimSize(1)};
      dims.append(x.getRank() - 2, 1);
      return SmallVector<Type>{RankedTensorType::get(dims, x.getElementType())};
    }
    if (type == "MaxUnpool" && x && x.getRank() >= 3)
      return inferUnpool(cast<amk::onnx::MaxUnpoolOp>(op), x);
    return std::nullopt;
  }

  /// MaxUnpool: the output_shape operand when it is a constant, else
  /// (in - 1) * stride + kernel - pads per spatial axis (the index input's
  /// shape is not needed; libonnx's rule crashes without it).
  std::optional<SmallVector<Type>> inferUnpool(amk::onnx::MaxUnpoolOp op,
                                               RankedTensorType x) {
    int64_t n = x.getRank() - 2;
    SmallVector<int64_t> dims;
    if (Value shapeOperand = op.getOutputShape();
        shapeOperand && !isa<NoneType>(shapeOperand.getType())) {
      auto shape = amk::getConstantTensor(shapeOperand);
      if (!shape)
        return std::nullopt;
      auto values = shape->toInt64Vector();
      dims.assign(values.begin(), values.end());
      if (static_cast<int64_t>(dims.size()) != x.getRank())
        return std::nullopt;
    } else {
      ArrayRef<int64_t> kernel = op.getKernelShape();
      if (static_cast<int64_t>(kernel.size()) != n)
        return std::nullopt;
      auto strides = op.getStrides().value_or(ArrayRef<int64_t>());
      auto pads = op.getPads().value_or(ArrayRef<int64_t>());
      if ((!strides.empty() && static_cast<int64_t>(strides.size()) != n) ||
          (!pads.empty() && static_cast<int64_t>(pads.size()) != 2 * n))
        return std::nullopt;
      dims = {x.getDimSize(0), x.getDimSize(1)};
      for (int64_t d = 0; d < n; ++d) {
        int64_t in = x.getDimSize(d + 2);
        int64_t stride = strides.empty() ? 1 : strides[d];
        int64_t pad = pads.empty() ? 0 : pads[d] + pads[d + n];
        dims.push_back(ShapedType::isDynamic(in)
                           ? kDyn
                           : (in - 1) * stride + kernel[d] - pad);
      }
    }
    for (int64_t d : dims)
      if (!ShapedType::isDynamic(d) && d < 0)
        return std::nullopt;
    return SmallVector<Type>{RankedTensorType::get(dims, x.getElementType())};
  }

  /// Conv and pools: spatial sizes from the attributes; batch and channels
  /// may stay dynamic.
  std::optional<SmallVector<Type>> inferWindowed(Operation *op,
                                                 RankedTensorType x) {
    int64_t n = x.getRank() - 2;
    SmallVector<int64_t> kernel;
    int64_t channels = x.getDimSize(1);
    if (auto conv = dyn_cast<amk::onnx::ConvOp>(op)) {
      auto w = rankedOf(conv.getW());
      if (!w || w.getRank() != x.getRank())
        return std::nullopt;
      channels = w.getDimSize(0);
      for (int64_t d = 0; d < n; ++d)
        kernel.push_back(w.getDimSize(d + 2));
    } else {
      auto ks = op->getInherentAttr("kernel_shape").value_or(Attribute());
      auto arr = dyn_cast_or_null<DenseI64ArrayAttr>(ks);
      if (!arr)
        return std::nullopt;
      kernel.assign(arr.asArrayRef().begin(), arr.asArrayRef().end());
    }
    auto ints = [&](llvm::StringRef name, int64_t len, int64_t dflt) {
      auto a = dyn_cast_or_null<DenseI64ArrayAttr>(
          op->getInherentAttr(name).value_or(Attribute()));
      return a ? SmallVector<int64_t>(a.asArrayRef())
               : SmallVector<int64_t>(len, dflt);
    };
    auto strides = ints("strides", n, 1), dil = ints("dilations", n, 1),
         pads = ints("pads", 2 * n, 0);
    auto autoPad = dyn_cast_or_null<StringAttr>(
        op->getInherentAttr("auto_pad").value_or(Attribute()));
    auto ceil = dyn_cast_or_null<IntegerAttr>(
        op->getInherentAttr("ceil_mode").value_or(Attribute()));
    bool ceilMode = ceil && ceil.getInt() != 0;
    llvm::StringRef ap = autoPad ? autoPad.getValue() : "NOTSET";
    SmallVector<int64_t> dims = {x.getDimSize(0), channels};
    for (int64_t d = 0; d < n; ++d) {
      int64_t in = x.getDimSize(d + 2);
      if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel[d])) {
        dims.push_back(kDyn);
        continue;
      }
      int64_t span = (kernel[d] - 1) * dil[d] + 1;
      if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
        dims.push_back((in + strides[d] - 1) / strides[d]);
        continue;
      }
      int64_t padded = ap == "VALID" ? in : in + pads[d] + pads[d + n];
      int64_t avail = padded - span;
      if (avail < 0)
        return std::nullopt;
      int64_t out = ceilMode ? (avail + strides[d] - 1) / strides[d] + 1
                             : avail / strides[d] + 1;
      if (ceilMode && ap != "VALID" && (out - 1) * strides[d] >= in + pads[d])
        --out;
      dims.push_back(out);
    }
    SmallVector<Type> out(op->getNumResults(), nullptr);
    out[0] = RankedTensorType::get(dims, x.getElementType());
    if (op->getNumResults() > 1 && !isa<NoneType>(op->getResult(1).getType()))
      out[1] = RankedTensorType::get(dims, IntegerType::get(op->getContext(),
                                                            64));
    return out;
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

  int64_t refined = 0, folded = 0, unresolved = 0;
};

} // namespace
