//===- CostModel.cpp - Op classes and FLOP estimates ----------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace amk {

llvm::StringRef opClassName(OpClass c) {
  switch (c) {
  case OpClass::Conv:
    return "conv";
  case OpClass::MatMul:
    return "matmul";
  case OpClass::Attention:
    return "attention";
  case OpClass::Elementwise:
    return "elementwise";
  case OpClass::Normalization:
    return "normalization";
  case OpClass::Pooling:
    return "pooling";
  case OpClass::DataMovement:
    return "data_movement";
  case OpClass::Other:
    return "other";
  }
  return "other";
}

namespace {

/// "Conv" for onnx.Conv and for an onnx.Generic of op_type Conv; "amk.conv"
/// for AMK's fused ops.
std::string kindOf(Operation *op) {
  llvm::StringRef dialect = op->getName().getDialectNamespace();
  if (dialect == "onnx") {
    if (op->getName().getStringRef() == "onnx.Generic")
      if (auto t = op->getAttrOfType<StringAttr>("op_type"))
        return t.str();
    return op->getName().stripDialect().str();
  }
  return op->getName().getStringRef().str();
}

std::optional<OpClass> classOfKind(llvm::StringRef k) {
  using C = std::optional<OpClass>;
  return llvm::StringSwitch<C>(k)
      .Cases({"Constant", "NoValue", "Yield"}, std::nullopt)
      .Cases({"Conv", "ConvTranspose", "ConvInteger", "QLinearConv",
              "DeformConv", "amk.conv"},
             OpClass::Conv)
      .Cases({"MatMul", "Gemm", "MatMulInteger", "QLinearMatMul", "Einsum",
              "amk.gemm"},
             OpClass::MatMul)
      .Case("amk.attention", OpClass::Attention)
      .Cases({"Add",         "Sub",       "Mul",      "Div",      "Pow",
              "Mod",         "Max",       "Min",      "Sum",      "Mean",
              "Neg",         "Abs",       "Exp",      "Log",      "Sqrt",
              "Reciprocal",  "Erf",       "Tanh",     "Sigmoid",  "Relu",
              "LeakyRelu",   "PRelu",     "Elu",      "Selu",     "Celu",
              "HardSigmoid", "HardSwish", "Softplus", "Softsign", "Gelu",
              "Mish",        "Clip",      "Floor",    "Ceil",     "Round",
              "Sign"},
             OpClass::Elementwise)
      .Cases({"Sin",
              "Cos",
              "Tan",
              "Asin",
              "Acos",
              "Atan",
              "Sinh",
              "Cosh",
              "Asinh",
              "Acosh",
              "Atanh",
              "Not",
              "And",
              "Or",
              "Xor",
              "Equal",
              "Less",
              "LessOrEqual",
              "Greater",
              "GreaterOrEqual",
              "Where",
              "Cast",
              "CastLike",
              "IsNaN",
              "IsInf",
              "BitShift",
              "ThresholdedRelu",
              "Shrink",
              "QuantizeLinear",
              "DequantizeLinear",
              "BitwiseAnd",
              "BitwiseOr",
              "BitwiseXor",
              "BitwiseNot",
              "amk.gelu",
              "amk.fused_elementwise",
              "amk.rope"},
             OpClass::Elementwise)
      .Cases({"BatchNormalization", "LayerNormalization",
              "InstanceNormalization", "GroupNormalization", "LpNormalization",
              "MeanVarianceNormalization", "LRN", "Softmax", "LogSoftmax",
              "Hardmax", "amk.layer_norm", "amk.bias_softmax"},
             OpClass::Normalization)
      .Cases({"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
              "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
              "ReduceSumSquare", "ArgMax", "ArgMin", "CumSum"},
             OpClass::Normalization)
      .Cases({"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
              "LpPool", "GlobalLpPool", "MaxRoiPool", "RoiAlign"},
             OpClass::Pooling)
      .Cases({"Reshape",
              "Transpose",
              "Squeeze",
              "Unsqueeze",
              "Flatten",
              "Identity",
              "Concat",
              "Split",
              "Slice",
              "Gather",
              "GatherElements",
              "GatherND",
              "Expand",
              "Tile",
              "Pad",
              "Shape",
              "Size",
              "DepthToSpace",
              "SpaceToDepth",
              "ScatterElements",
              "ScatterND",
              "Scatter",
              "Dropout",
              "Resize",
              "Upsample",
              "ConstantOfShape"},
             OpClass::DataMovement)
      .Default(OpClass::Other);
}

/// Shape of `v` with each dynamic dimension counted as 1, or nullopt when
/// the rank is unknown. A model's costs scale with its batch and image
/// size alike, so shares of the total (what the fusion gates compare) hold
/// without knowing them.
std::optional<llvm::SmallVector<int64_t, 4>> staticShape(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return std::nullopt;
  llvm::SmallVector<int64_t, 4> dims;
  for (int64_t d : t.getShape())
    dims.push_back(ShapedType::isDynamic(d) ? 1 : d);
  return dims;
}

int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

/// Elements of result 0 (0 when not static).
int64_t resultElements(Operation *op) {
  if (op->getNumResults() == 0)
    return 0;
  auto s = staticShape(op->getResult(0));
  return s ? product(*s) : 0;
}

int64_t operandElements(Operation *op, unsigned i) {
  if (i >= op->getNumOperands())
    return 0;
  auto s = staticShape(op->getOperand(i));
  return s ? product(*s) : 0;
}

int64_t intAttr(Operation *op, llvm::StringRef name, int64_t dflt) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return dflt;
}

/// Elementwise epilogue of AMK's fused ops: one FLOP per output element
/// for the bias, the residual and the activation each.
int64_t epilogueFlops(Operation *op, bool hasBias) {
  int64_t n = resultElements(op), per = hasBias ? 1 : 0;
  if (op->getNumOperands() > 3 &&
      !isa<NoneType>(op->getOperand(3).getType()))
    ++per;
  if (auto act = op->getAttrOfType<StringAttr>("activation"))
    if (act.getValue() != "none")
      ++per;
  return n * per;
}

int64_t convFlops(Operation *op) {
  auto x = staticShape(op->getOperand(0));
  auto w = staticShape(op->getOperand(1));
  int64_t out = resultElements(op);
  if (!x || !w || w->size() < 2 || out == 0)
    return 0;
  // Each output element: (C / group) * kernel multiply-adds.
  int64_t perOut = (*w)[1] * product(llvm::ArrayRef<int64_t>(*w).drop_front(2));
  bool hasBias = op->getNumOperands() > 2 &&
                 !isa<NoneType>(op->getOperand(2).getType());
  return 2 * out * perOut + epilogueFlops(op, hasBias);
}

int64_t convTransposeFlops(Operation *op) {
  auto x = staticShape(op->getOperand(0));
  auto w = staticShape(op->getOperand(1));
  if (!x || !w || w->size() < 2)
    return 0;
  // Every input element scatters into (M / group) * kernel outputs.
  return 2 * product(*x) * (*w)[1] * product(llvm::ArrayRef<int64_t>(*w).drop_front(2));
}

/// K of a matrix product: A's contracted dimension.
int64_t contractedDim(Operation *op, llvm::StringRef kind) {
  auto a = staticShape(op->getOperand(0));
  if (!a || a->empty())
    return 0;
  if (kind == "Gemm")
    return intAttr(op, "transA", 0) ? (*a)[0] : a->back();
  if (kind == "amk.gemm") {
    if (auto perm = op->getAttrOfType<DenseI64ArrayAttr>("perm_a"))
      if (!perm.empty() &&
          static_cast<size_t>(perm.asArrayRef().back()) < a->size())
        return (*a)[perm.asArrayRef().back()];
    return a->back();
  }
  return a->back();
}

int64_t attentionFlops(Operation *op) {
  auto q = staticShape(op->getOperand(0));
  auto v = staticShape(op->getOperand(2));
  if (!q || !v || q->size() < 2 || v->size() < 2)
    return 0;
  int64_t batchSq = product(llvm::ArrayRef<int64_t>(*q).drop_back());
  int64_t d = q->back(), sk = (*v)[v->size() - 2], dv = v->back();
  // Q K^T, scale/mask/softmax (about 5 per score), P V.
  return 2 * batchSq * sk * d + 5 * batchSq * sk + 2 * batchSq * sk * dv;
}

} // namespace

std::optional<OpClass> classifyOp(Operation *op) {
  if (isa<func::FuncOp, func::ReturnOp, ModuleOp>(op) ||
      op->hasTrait<OpTrait::IsTerminator>())
    return std::nullopt;
  return classOfKind(kindOf(op));
}

int64_t estimateFlops(Operation *op) {
  std::string kind = kindOf(op);
  auto cls = classOfKind(kind);
  if (!cls)
    return 0;
  int64_t out = resultElements(op);
  switch (*cls) {
  case OpClass::Conv:
    if (kind == "ConvTranspose")
      return convTransposeFlops(op);
    return convFlops(op);
  case OpClass::MatMul: {
    if (kind == "Einsum")
      return 2 * out; // Unknown contraction: a lower bound.
    int64_t k = contractedDim(op, kind);
    bool hasBias = op->getNumOperands() > 2 &&
                   !isa<NoneType>(op->getOperand(2).getType());
    if (kind == "amk.gemm")
      return 2 * out * k + epilogueFlops(op, hasBias);
    return 2 * out * k + (hasBias ? out : 0);
  }
  case OpClass::Attention:
    return attentionFlops(op);
  case OpClass::Elementwise:
    if (kind == "amk.fused_elementwise") {
      // The ops of its body, each one per element.
      int64_t n = 0;
      for (Operation &inner : op->getRegion(0).front().without_terminator())
        n += resultElements(&inner);
      return n;
    }
    return out;
  case OpClass::Normalization:
    if (kind == "BatchNormalization")
      return 2 * out;
    if (kind == "Softmax" || kind == "LogSoftmax" || kind == "Hardmax" ||
        kind == "amk.bias_softmax")
      return 5 * out;
    if (llvm::StringRef(kind).starts_with("Reduce") || kind == "ArgMax" ||
        kind == "ArgMin" || kind == "CumSum")
      return operandElements(op, 0);
    return 8 * out; // Layer/instance/group norms: mean, variance, scale.
  case OpClass::Pooling: {
    if (llvm::StringRef(kind).starts_with("Global"))
      return operandElements(op, 0);
    int64_t window = 1;
    if (auto k = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape"))
      window = product(k.asArrayRef());
    return out * window;
  }
  case OpClass::DataMovement:
  case OpClass::Other:
    return 0;
  }
  return 0;
}

double GraphProfile::flopShare(OpClass c) const {
  return totalFlops ? static_cast<double>(of(c).flops) / totalFlops : 0.0;
}

double GraphProfile::countShare(OpClass c) const {
  return totalOps ? static_cast<double>(of(c).count) / totalOps : 0.0;
}

GraphProfile profileGraph(ModuleOp module,
                          const llvm::DenseSet<Operation *> &attentionOps) {
  GraphProfile p;
  module.walk([&](Operation *op) {
    // The body of a fused elementwise group is counted with the group.
    if (op->getParentOp() &&
        op->getParentOp()->getName().getStringRef() ==
            "amk.fused_elementwise")
      return;
    auto cls = classifyOp(op);
    if (!cls)
      return;
    if (attentionOps.contains(op))
      cls = OpClass::Attention;
    int64_t flops = estimateFlops(op);
    ClassProfile &c = p.classes[static_cast<unsigned>(*cls)];
    ++c.count;
    c.flops += flops;
    ++p.totalOps;
    p.totalFlops += flops;
  });
  return p;
}

} // namespace amk
