//===- OpsetDecompositions.cpp - Gelu and LayerNormalization across opsets ===//
//
// Part of AMK. Gelu (opset 20) and LayerNormalization (opset 17) are
// decomposed into the ops they stand for when the target predates them,
// and recomposed from such a decomposition when it does not, so a model
// normalizes to the same IR whichever form its exporter wrote.
//
//===----------------------------------------------------------------------===//

#include "transforms/graph/OpsetConversions.h"

#include "transforms/Utils/PassUtils.h"
#include "transforms/Utils/Patterns.h"

#include "dialect/ONNX/ONNXNames.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
namespace onnx = amk::onnx;

namespace amk::opset {

/// Builds a binary op of the result type `type`.
template <typename OpTy>
Value binary(OpBuilder &b, Location loc, Type type, Value x, Value y) {
  return OpTy::create(b, loc, TypeRange{type}, ValueRange{x, y},
                      ArrayRef<NamedAttribute>{});
}
template <typename OpTy>
Value unary(OpBuilder &b, Location loc, Type type, Value x) {
  return OpTy::create(b, loc, TypeRange{type}, ValueRange{x},
                      ArrayRef<NamedAttribute>{});
}

LogicalResult Converter::decomposeGelu(Operation *op) {
  auto gelu = cast<onnx::GeluOp>(op);
  Value x = gelu.getX();
  Type type = gelu.getType();
  Location loc = op->getLoc();
  if (!isa<TensorType>(x.getType()))
    return refuse(op, "the input type is unknown");
  Value result;
  auto c = [&](double v) { return constScalarLike(loc, v, x); };
  if (gelu.getApproximate() == "tanh") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Value cube = binary<onnx::PowOp>(*b, loc, type, x, c(3.0));
    Value inner = binary<onnx::AddOp>(
        *b, loc, type, x,
        binary<onnx::MulOp>(*b, loc, type, cube, c(0.044715)));
    Value th = unary<onnx::TanhOp>(
        *b, loc, type,
        binary<onnx::MulOp>(*b, loc, type, inner, c(std::sqrt(2.0 / M_PI))));
    result = binary<onnx::MulOp>(
        *b, loc, type,
        binary<onnx::MulOp>(*b, loc, type, x,
                            binary<onnx::AddOp>(*b, loc, type, th, c(1.0))),
        c(0.5));
  } else {
    // 0.5 x (1 + erf(x / sqrt(2)))
    Value erf = unary<onnx::ErfOp>(
        *b, loc, type,
        binary<onnx::DivOp>(*b, loc, type, x, c(std::sqrt(2.0))));
    result = binary<onnx::MulOp>(
        *b, loc, type,
        binary<onnx::MulOp>(*b, loc, type, x,
                            binary<onnx::AddOp>(*b, loc, type, erf, c(1.0))),
        c(0.5));
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  ++decomposed;
  return success();
}

LogicalResult Converter::decomposeLayerNorm(Operation *op) {
  auto ln = cast<onnx::LayerNormalizationOp>(op);
  Location loc = op->getLoc();
  auto t = dyn_cast<RankedTensorType>(ln.getX().getType());
  if (!t)
    return refuse(op, "decomposing LayerNormalization needs a ranked input");
  for (unsigned i = 1; i < op->getNumResults(); ++i)
    if (!isa<NoneType>(op->getResult(i).getType()) &&
        !op->getResult(i).use_empty())
      return refuse(op, "its Mean/InvStdDev outputs are used");
  int64_t r = t.getRank(), axis = ln.getAxis();
  if (axis < 0)
    axis += r;
  SmallVector<int64_t> axes, reducedDims(t.getShape());
  for (int64_t d = axis; d < r; ++d) {
    axes.push_back(d - r);
    reducedDims[d] = 1;
  }
  auto reduced = RankedTensorType::get(reducedDims, t.getElementType());
  Type type = ln.getY().getType();
  auto mean = [&](Value v) {
    NamedAttrList attrs;
    attrs.set("axes", b->getDenseI64ArrayAttr(axes));
    attrs.set("keepdims",
              IntegerAttr::get(IntegerType::get(b->getContext(), 64), 1));
    return onnx::ReduceMeanOp::create(*b, loc, TypeRange{reduced},
                                      ValueRange{v, none(loc)}, attrs)
        .getResult();
  };
  if (to >= 18)
    return refuse(op, "internal: ReduceMean form for opset >= 18");
  Value x = ln.getX();
  Value d = binary<onnx::SubOp>(*b, loc, t, x, mean(x));
  Value var =
      mean(binary<onnx::PowOp>(*b, loc, t, d, constScalarLike(loc, 2.0, x)));
  Value stdv = unary<onnx::SqrtOp>(
      *b, loc, reduced,
      binary<onnx::AddOp>(
          *b, loc, reduced, var,
          constScalarLike(loc, ln.getEpsilon().convertToDouble(), x)));
  Value y = binary<onnx::MulOp>(
      *b, loc, type, binary<onnx::DivOp>(*b, loc, t, d, stdv), ln.getScale());
  if (!amk::isNone(ln.getB()))
    y = binary<onnx::AddOp>(*b, loc, type, y, ln.getB());
  op->getResult(0).replaceAllUsesWith(y);
  op->erase();
  ++decomposed;
  return success();
}

/// Erases the ops of a replaced match, users before producers.
static void eraseMatched(ArrayRef<Operation *> ops,
                         llvm::DenseSet<Operation *> &erased) {
  SmallVector<Operation *> order(ops.begin(), ops.end());
  llvm::sort(order,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  order.erase(std::unique(order.begin(), order.end()), order.end());
  for (Operation *m : order) {
    erased.insert(m);
    m->erase();
  }
}

void Converter::recompose(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<onnx::MulOp, onnx::AddOp, onnx::DivOp>(op))
      ops.push_back(op);
  });
  llvm::DenseSet<Operation *> erased;
  // Roots are the last ops of their patterns: visit in reverse order so a
  // LayerNorm is matched at its bias Add before its scale Mul.
  for (Operation *op : llvm::reverse(ops)) {
    if (erased.contains(op))
      continue;
    OpBuilder builder(op);
    if (to >= 20) {
      if (auto g = amk::matchGelu(op);
          g && g->form != "quick" && amk::isSelfContained(g->ops) &&
          g->input.getType() == op->getResult(0).getType()) {
        NamedAttrList attrs;
        if (g->form == "tanh")
          attrs.set("approximate", builder.getStringAttr("tanh"));
        Value v = onnx::GeluOp::create(builder, op->getLoc(),
                                       TypeRange{op->getResult(0).getType()},
                                       ValueRange{g->input}, attrs);
        op->getResult(0).replaceAllUsesWith(v);
        eraseMatched(g->ops, erased);
        ++recomposed;
        continue;
      }
    }
    if (to >= 17) {
      if (auto n = amk::matchNorm(op);
          n && !n->rms && amk::isSelfContained(n->ops) &&
          n->input.getType() == op->getResult(0).getType()) {
        NamedAttrList attrs;
        attrs.set("axis",
                  IntegerAttr::get(IntegerType::get(builder.getContext(), 64),
                                   n->axis));
        attrs.set("epsilon",
                  builder.getF32FloatAttr(static_cast<float>(n->epsilon)));
        Value noneV = amk::getNoneValue(builder, op->getLoc());
        Value scale = n->scale;
        if (!scale) {
          // LayerNormalization's scale is required: ones over the
          // normalized dims.
          auto in = dyn_cast<RankedTensorType>(n->input.getType());
          if (!in || !in.hasStaticShape() || !in.getElementType().isF32())
            continue;
          amk::ref::Shape dims(in.getShape().take_back(-n->axis));
          amk::ref::Tensor ones(amk::ref::DataType::FLOAT, dims);
          for (int64_t i = 0; i < ones.numel(); ++i)
            ones.setDouble(i, 1.0);
          scale = amk::createConstant(builder, op->getLoc(), ones);
        }
        auto ln = onnx::LayerNormalizationOp::create(
            builder, op->getLoc(),
            TypeRange{op->getResult(0).getType(), builder.getNoneType(),
                      builder.getNoneType()},
            ValueRange{n->input, scale, n->bias ? n->bias : noneV}, attrs);
        op->getResult(0).replaceAllUsesWith(ln.getY());
        eraseMatched(n->ops, erased);
        ++recomposed;
      }
    }
  }
}

} // namespace amk::opset
