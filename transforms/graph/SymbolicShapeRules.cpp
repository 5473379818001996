//===- SymbolicShapeRules.cpp - The symbolic rule of each op family -----===//
//
// Part of AMK. amk-infer-shapes' rules (SymbolicShapes.h): one per ONNX op
// family, and the fused ops' after the ONNX ops they replace.
//
//===----------------------------------------------------------------------===//

#include "transforms/graph/SymbolicShapes.h"

#include "transforms/Utils/PassUtils.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "reference/Tensor.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

using namespace mlir;
using namespace amk::sym;
using namespace amk::sym::detail;

std::optional<SmallVector<ResultShape>> SymbolicShapes::infer(Operation *op) {
  if (isa<amk::onnx::GenericOp>(op) || op->getNumOperands() == 0)
    return std::nullopt;
  if (isa<amk::fused::AMKDialect>(op->getDialect()))
    return inferFused(op);
  return inferShape(op);
}

/// The fused ops' shapes follow the ONNX ops they replace.
std::optional<SmallVector<ResultShape>>
SymbolicShapes::inferFused(Operation *op) {
  SmallVector<ResultShape> out(op->getNumResults());
  std::optional<Dims> xd = dimsOf(op->getOperand(0));
  if (isa<amk::fused::GeluOp, amk::fused::LayerNormOp,
          amk::fused::BiasSoftmaxOp, amk::fused::RopeOp>(op)) {
    out[0] = shaped(xd);
    return out;
  }
  if (auto group = dyn_cast<amk::fused::FusedElementwiseOp>(op)) {
    Value y = group.getBody().front().getTerminator()->getOperand(0);
    out[0] = shaped(dimsOf(y), elementOf(y));
    return out;
  }
  if (auto attn = dyn_cast<amk::fused::AttentionOp>(op)) {
    auto v = dimsOf(attn.getV());
    if (!xd || !v || xd->size() < 2 || v->size() < 2)
      return std::nullopt;
    auto kd = dimsOf(attn.getK());
    if (!kd || kd->size() < 2)
      return std::nullopt;
    // Q x K' x V: the batch dimensions of all three broadcast.
    auto batch = broadcast({Dims(xd->begin(), xd->end() - 2),
                            Dims(kd->begin(), kd->end() - 2),
                            Dims(v->begin(), v->end() - 2)});
    // Grouped key/value heads (fewer than Q's) do not broadcast: the
    // result has Q's batch dimensions.
    if (!batch && xd->size() == kd->size())
      batch = Dims(xd->begin(), xd->end() - 2);
    if (!batch)
      return std::nullopt;
    batch->push_back((*xd)[xd->size() - 2]);
    batch->push_back(v->back());
    out[0] = shaped(batch);
    return out;
  }
  if (auto gemm = dyn_cast<amk::fused::GemmOp>(op)) {
    auto b = dimsOf(gemm.getB());
    if (!xd || !b)
      return std::nullopt;
    auto permute =
        [](Dims d,
           std::optional<ArrayRef<int64_t>> perm) -> std::optional<Dims> {
      if (!perm)
        return d;
      if (perm->size() != d.size())
        return std::nullopt;
      Dims p;
      for (int64_t i : *perm) {
        if (i < 0 || i >= (int64_t)d.size())
          return std::nullopt;
        p.push_back(d[i]);
      }
      return p;
    };
    auto a = permute(*xd, gemm.getPermA());
    auto bb = permute(*b, gemm.getPermB());
    if (!a || !bb || a->size() < 2 || bb->size() < 2)
      return std::nullopt;
    auto batch = broadcast(
        {Dims(a->begin(), a->end() - 2), Dims(bb->begin(), bb->end() - 2)});
    if (!batch)
      return std::nullopt;
    batch->push_back((*a)[a->size() - 2]);
    batch->push_back(bb->back());
    out[0] = shaped(batch);
    return out;
  }
  if (isa<amk::fused::ConvOp>(op))
    return inferShape(op); // Conv's attributes, Conv's rule.
  return std::nullopt;
}

std::optional<SmallVector<ResultShape>>
SymbolicShapes::inferShape(Operation *op) {
  StringRef type = op->getName().stripDialect();
  MLIRContext *ctx = op->getContext();
  Value x = op->getOperand(0);
  std::optional<Dims> xd = dimsOf(x);
  int64_t rank = xd ? (int64_t)xd->size() : -1;
  SmallVector<ResultShape> out(op->getNumResults());
  auto one = [&](std::optional<Dims> d, Type elt = Type()) {
    out[0] = shaped(std::move(d), elt);
    return out;
  };
  auto operandInts = [&](unsigned i) -> std::optional<Dims> {
    if (i >= op->getNumOperands() || amk::isNone(op->getOperand(i)))
      return std::nullopt;
    return intsOf(op->getOperand(i));
  };
  auto i64 = IntegerType::get(ctx, 64);

  static const llvm::StringSet<> sameAsInput = {"Relu",
                                                "LeakyRelu",
                                                "Sigmoid",
                                                "Tanh",
                                                "Erf",
                                                "Exp",
                                                "Log",
                                                "Sqrt",
                                                "Neg",
                                                "Abs",
                                                "Floor",
                                                "Ceil",
                                                "Reciprocal",
                                                "Softmax",
                                                "LogSoftmax",
                                                "HardSigmoid",
                                                "HardSwish",
                                                "Gelu",
                                                "Elu",
                                                "Selu",
                                                "Celu",
                                                "Softplus",
                                                "Softsign",
                                                "Sin",
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
                                                "Round",
                                                "Sign",
                                                "Identity",
                                                "Clip",
                                                "Dropout",
                                                "BatchNormalization",
                                                "InstanceNormalization",
                                                "LayerNormalization",
                                                "GroupNormalization",
                                                "LRN",
                                                "Hardmax",
                                                "Mish",
                                                "PRelu",
                                                "Not",
                                                "LpNormalization",
                                                "MeanVarianceNormalization",
                                                "CumSum",
                                                "Trilu",
                                                "ThresholdedRelu",
                                                "Shrink",
                                                "BitwiseNot",
                                                "ScatterElements",
                                                "ScatterND",
                                                "Scatter",
                                                "IsNaN",
                                                "IsInf",
                                                "ReverseSequence"};
  if (sameAsInput.contains(type)) {
    if (!xd)
      return std::nullopt;
    Type elt;
    if (type == "IsNaN" || type == "IsInf")
      elt = IntegerType::get(ctx, 1);
    return one(xd, elt);
  }

  static const llvm::StringSet<> broadcasting = {
      "Add",       "Sub",        "Mul",     "Div",         "Pow",
      "Max",       "Min",        "Sum",     "Mean",        "Where",
      "Equal",     "Less",       "Greater", "LessOrEqual", "GreaterOrEqual",
      "And",       "Or",         "Xor",     "Mod",         "BitwiseAnd",
      "BitwiseOr", "BitwiseXor", "BitShift"};
  if (broadcasting.contains(type)) {
    SmallVector<Dims> shapes;
    for (Value v : op->getOperands()) {
      auto d = dimsOf(v);
      if (!d)
        return std::nullopt;
      shapes.push_back(*d);
    }
    auto b = broadcast(shapes);
    if (!b)
      return std::nullopt;
    bool isCompare = type == "Equal" || type == "Less" || type == "Greater" ||
                     type == "LessOrEqual" || type == "GreaterOrEqual" ||
                     type == "And" || type == "Or" || type == "Xor";
    Type elt = isCompare         ? IntegerType::get(ctx, 1)
               : type == "Where" ? elementOf(op->getOperand(1))
                                 : elementOf(x);
    return one(b, elt);
  }

  if (type == "Cast" || type == "CastLike") {
    if (!xd)
      return std::nullopt;
    Type elt = type == "Cast"
                   ? amk::onnx::getElementType(
                         ctx, static_cast<int32_t>(*attrInt(op, "to")))
                   : elementOf(op->getOperand(1));
    return one(xd, elt);
  }

  if (type == "MatMul" || type == "MatMulInteger") {
    auto bd = dimsOf(op->getOperand(1));
    if (!xd || !bd || xd->empty() || bd->empty())
      return std::nullopt;
    Dims a = *xd, b = *bd;
    bool aVec = a.size() == 1, bVec = b.size() == 1;
    if (aVec)
      a.insert(a.begin(), cst(1));
    if (bVec)
      b.push_back(cst(1));
    auto batch =
        broadcast({Dims(a.begin(), a.end() - 2), Dims(b.begin(), b.end() - 2)});
    if (!batch)
      return std::nullopt;
    if (!aVec)
      batch->push_back(a[a.size() - 2]);
    if (!bVec)
      batch->push_back(b.back());
    return one(batch,
               type == "MatMulInteger" ? IntegerType::get(ctx, 32) : Type());
  }

  if (type == "Gemm") {
    auto bd = dimsOf(op->getOperand(1));
    if (!xd || !bd || xd->size() != 2 || bd->size() != 2)
      return std::nullopt;
    bool ta = attrInt(op, "transA").value_or(0),
         tb = attrInt(op, "transB").value_or(0);
    return one(Dims{(*xd)[ta ? 1 : 0], (*bd)[tb ? 0 : 1]});
  }

  if (type == "Transpose") {
    if (!xd)
      return std::nullopt;
    auto perm = attrInts(op, "perm");
    Dims d;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t p =
          perm ? (i < (int64_t)perm->size() ? (*perm)[i] : -1) : rank - 1 - i;
      if (p < 0 || p >= rank)
        return std::nullopt;
      d.push_back((*xd)[p]);
    }
    return one(d);
  }

  if (type == "Flatten") {
    if (!xd)
      return std::nullopt;
    // Flatten's axis is in [-r, r]; a negative one counts from r.
    int64_t a = attrInt(op, "axis").value_or(1);
    std::optional<int64_t> axis;
    if (a >= -rank && a <= rank)
      axis = a < 0 ? a + rank : a;
    if (!axis)
      return std::nullopt;
    ArrayRef<Dim> all(*xd);
    return one(
        Dims{product(all.take_front(*axis)), product(all.drop_front(*axis))});
  }

  if (type == "Reshape") {
    auto target = operandInts(1);
    if (!target) {
      // The rank is the length of the shape operand.
      auto st = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
      if (!st || st.getRank() != 1 || st.isDynamicDim(0))
        return std::nullopt;
      return one(Dims(st.getDimSize(0), Dim()));
    }
    bool allowZero = attrInt(op, "allowzero").value_or(0) != 0;
    Dims d;
    std::optional<size_t> inferIdx;
    for (auto [i, e] : llvm::enumerate(*target)) {
      auto c = e ? e->getConstant() : std::nullopt;
      if (c && *c == 0 && !allowZero) {
        d.push_back(xd && (int64_t)i < rank ? (*xd)[i] : Dim());
        continue;
      }
      if (c && *c == -1) {
        inferIdx = i;
        d.push_back(Dim());
        continue;
      }
      d.push_back(e);
    }
    if (inferIdx && xd) {
      Dims others(d);
      others.erase(others.begin() + *inferIdx);
      d[*inferIdx] = floorDiv(product(*xd), product(others));
    }
    return one(d);
  }

  if (type == "Conv" || type == "MaxPool" || type == "AveragePool" ||
      type == "LpPool" || type == "ConvInteger" || type == "conv") {
    if (!xd || rank < 3)
      return std::nullopt;
    int64_t n = rank - 2;
    SmallVector<int64_t> kernel;
    Dim channels = (*xd)[1];
    if (type == "Conv" || type == "ConvInteger" || type == "conv") {
      auto w = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
      if (!w || w.getRank() != rank)
        return std::nullopt;
      channels = staticSize(cst(w.getDimSize(0))) == ShapedType::kDynamic
                     ? Dim()
                     : cst(w.getDimSize(0));
      for (int64_t d = 0; d < n; ++d)
        kernel.push_back(w.getDimSize(d + 2));
    } else {
      auto ks = attrInts(op, "kernel_shape");
      if (!ks)
        return std::nullopt;
      kernel = *ks;
    }
    if ((int64_t)kernel.size() != n)
      return std::nullopt;
    auto ints = [&](StringRef name, int64_t len, int64_t dflt) {
      auto a = attrInts(op, name);
      return a && (int64_t)a->size() == len ? *a
                                            : SmallVector<int64_t>(len, dflt);
    };
    auto strides = ints("strides", n, 1), dil = ints("dilations", n, 1),
         pads = ints("pads", 2 * n, 0);
    auto ap = dyn_cast_or_null<StringAttr>(
        op->getInherentAttr("auto_pad").value_or(Attribute()));
    StringRef autoPad = ap ? ap.getValue() : "NOTSET";
    bool ceilMode = attrInt(op, "ceil_mode").value_or(0) != 0;
    if (llvm::any_of(strides, [](int64_t x) { return x <= 0; }) ||
        llvm::any_of(dil, [](int64_t x) { return x <= 0; }))
      return std::nullopt; // The verifier names it.
    Dims d = {(*xd)[0], channels};
    for (int64_t i = 0; i < n; ++i) {
      Dim in = (*xd)[i + 2];
      if (ShapedType::isDynamic(kernel[i])) {
        d.push_back(Dim());
        continue;
      }
      int64_t span = (kernel[i] - 1) * dil[i] + 1;
      if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        d.push_back(floorDiv(in + cst(strides[i] - 1), cst(strides[i])));
        continue;
      }
      int64_t padSum = autoPad == "VALID" ? 0 : pads[i] + pads[i + n];
      auto inSize = in ? in->getConstant() : std::nullopt;
      if (ceilMode) {
        if (!inSize) {
          d.push_back(Dim()); // Its last-window rule needs the size.
          continue;
        }
        int64_t avail = *inSize + padSum - span;
        if (avail < 0)
          return std::nullopt;
        int64_t o = (avail + strides[i] - 1) / strides[i] + 1;
        if (autoPad != "VALID" && (o - 1) * strides[i] >= *inSize + pads[i])
          --o;
        d.push_back(cst(o));
        continue;
      }
      if (inSize && *inSize + padSum - span < 0)
        return std::nullopt;
      d.push_back(floorDiv(in + cst(padSum - span), cst(strides[i])) + cst(1));
    }
    out[0] = shaped(d);
    if (op->getNumResults() > 1)
      out[1] = shaped(d, i64);
    if (type == "ConvInteger")
      out[0].elementType = IntegerType::get(ctx, 32);
    return out;
  }

  // ConvTranspose: out = stride (in - 1) + output_padding + span - pads,
  // or output_shape, or in * stride under SAME. Without this rule its
  // inference evaluated the op, which stops at a size limit: Mask R-CNN's
  // mask head (100 x 256 x 14 x 14) stayed dynamic and ran on the host's
  // reference kernel for 7 s.
  if (type == "ConvTranspose") {
    auto w = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    if (!xd || rank < 3 || !w || w.getRank() != rank)
      return std::nullopt;
    int64_t n = rank - 2;
    auto ints = [&](StringRef name, int64_t len, int64_t dflt) {
      auto a = attrInts(op, name);
      return a && (int64_t)a->size() == len ? *a
                                            : SmallVector<int64_t>(len, dflt);
    };
    auto strides = ints("strides", n, 1), dil = ints("dilations", n, 1),
         pads = ints("pads", 2 * n, 0), outPad = ints("output_padding", n, 0);
    auto ap = dyn_cast_or_null<StringAttr>(
        op->getInherentAttr("auto_pad").value_or(Attribute()));
    StringRef autoPad = ap ? ap.getValue() : "NOTSET";
    auto outShape = attrInts(op, "output_shape");
    int64_t group = attrInt(op, "group").value_or(1);
    if (w.isDynamicDim(1) || group < 1)
      return std::nullopt;
    Dims d = {(*xd)[0], cst(w.getDimSize(1) * group)};
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = w.getDimSize(i + 2);
      Dim in = (*xd)[i + 2];
      if (outShape && (int64_t)outShape->size() >= n) {
        d.push_back(cst((*outShape)[outShape->size() - n + i]));
        continue;
      }
      if (ShapedType::isDynamic(k) || strides[i] <= 0 || dil[i] <= 0) {
        d.push_back(Dim());
        continue;
      }
      if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        d.push_back(in * cst(strides[i]));
        continue;
      }
      int64_t padSum = autoPad == "VALID" ? 0 : pads[i] + pads[i + n];
      int64_t span = (k - 1) * dil[i] + 1;
      d.push_back((in - cst(1)) * cst(strides[i]) +
                  cst(outPad[i] + span - padSum));
    }
    return one(d);
  }

  if (type == "GlobalAveragePool" || type == "GlobalMaxPool" ||
      type == "GlobalLpPool") {
    if (!xd || rank < 3)
      return std::nullopt;
    Dims d = {(*xd)[0], (*xd)[1]};
    d.append(rank - 2, cst(1));
    return one(d);
  }

  if (type == "Concat") {
    SmallVector<Dims> ins;
    for (Value v : op->getOperands())
      if (auto d = dimsOf(v))
        ins.push_back(*d);
      else
        return std::nullopt;
    int64_t r = ins[0].size();
    auto axis = normalizeAxis(attrInt(op, "axis").value_or(0), r);
    if (!axis || llvm::any_of(ins, [&](const Dims &d) {
          return (int64_t)d.size() != r;
        }))
      return std::nullopt;
    // An input known to be empty whose other dims disagree with a known
    // nonzero one adds nothing and is ignored, as ONNX Runtime does
    // (torchvision concatenates boxes [N, 4] with an empty [0, 0]).
    auto isZero = [](const Dim &x) {
      return x && x->getConstant() && *x->getConstant() == 0;
    };
    auto isNonZero = [](const Dim &x) {
      return x && x->getConstant() && *x->getConstant() != 0;
    };
    SmallVector<bool> ignored(ins.size(), false);
    for (auto [k, in] : llvm::enumerate(ins))
      for (int64_t i = 0; i < r; ++i)
        if (i != *axis && isZero(in[i]) &&
            llvm::any_of(ins, [&](const Dims &o) { return isNonZero(o[i]); }))
          ignored[k] = true;
    Dims d(r);
    for (int64_t i = 0; i < r; ++i) {
      if (i == *axis) {
        Dim sum = cst(0);
        for (auto [k, in] : llvm::enumerate(ins))
          if (!ignored[k])
            sum = sum + in[i];
        d[i] = sum;
        continue;
      }
      for (auto [k, in] : llvm::enumerate(ins))
        if (!ignored[k] && in[i] && (!d[i] || in[i]->getConstant()))
          d[i] = in[i];
    }
    return one(d);
  }

  if (type == "Slice") {
    if (!xd)
      return std::nullopt;
    std::optional<Dims> starts, ends, axesV, stepsV;
    if (op->getNumOperands() > 1) {
      starts = operandInts(1);
      ends = operandInts(2);
      axesV = operandInts(3);
      stepsV = operandInts(4);
      if (!starts || !ends ||
          (op->getNumOperands() > 3 && !amk::isNone(op->getOperand(3)) &&
           !axesV) ||
          (op->getNumOperands() > 4 && !amk::isNone(op->getOperand(4)) &&
           !stepsV))
        return one(Dims(rank, Dim()));
    } else {
      auto s = attrInts(op, "starts"), e = attrInts(op, "ends");
      if (!s || !e)
        return std::nullopt;
      starts.emplace();
      ends.emplace();
      for (int64_t v : *s)
        starts->push_back(cst(v));
      for (int64_t v : *e)
        ends->push_back(cst(v));
      if (auto a = attrInts(op, "axes")) {
        axesV.emplace();
        for (int64_t v : *a)
          axesV->push_back(cst(v));
      }
    }
    auto axes = axesV ? constants(axesV) : std::nullopt;
    auto steps = stepsV ? constants(stepsV) : std::nullopt;
    if ((axesV && !axes) || (stepsV && !steps) ||
        starts->size() != ends->size() ||
        (axes && axes->size() != starts->size()) ||
        (steps && steps->size() != starts->size()))
      return std::nullopt;
    Dims d = *xd;
    for (size_t k = 0; k < starts->size(); ++k) {
      auto axis = normalizeAxis(axes ? (*axes)[k] : (int64_t)k, rank);
      int64_t step = steps ? (*steps)[k] : 1;
      if (!axis || step == 0)
        return std::nullopt;
      d[*axis] = sliceDim((*xd)[*axis], (*starts)[k], (*ends)[k], step);
    }
    return one(d);
  }

  if (type == "Squeeze" || type == "Unsqueeze") {
    std::optional<SmallVector<int64_t>> axes = attrInts(op, "axes");
    if (!axes && op->getNumOperands() > 1 &&
        !amk::isNone(op->getOperand(1))) {
      axes = constants(operandInts(1));
      if (!axes)
        return std::nullopt; // Axes given but not known: not "all".
    }
    if (type == "Unsqueeze") {
      if (!xd || !axes)
        return std::nullopt;
      int64_t r = rank + axes->size();
      Dims d(r, Dim());
      SmallVector<bool> inserted(r, false);
      for (int64_t a : *axes) {
        auto n = normalizeAxis(a, r);
        if (!n || inserted[*n])
          return std::nullopt;
        inserted[*n] = true;
        d[*n] = cst(1);
      }
      for (int64_t i = 0, j = 0; i < r; ++i)
        if (!inserted[i])
          d[i] = (*xd)[j++];
      return one(d);
    }
    if (!xd)
      return std::nullopt;
    Dims d;
    if (!axes) {
      // Without axes every size-1 dimension goes: all must be known.
      for (const Dim &s : *xd) {
        auto c = s ? s->getConstant() : std::nullopt;
        if (!c)
          return std::nullopt;
        if (*c != 1)
          d.push_back(s);
      }
      return one(d);
    }
    SmallVector<bool> drop(rank, false);
    for (int64_t a : *axes) {
      auto n = normalizeAxis(a, rank);
      if (!n)
        return std::nullopt;
      drop[*n] = true;
    }
    for (int64_t i = 0; i < rank; ++i)
      if (!drop[i])
        d.push_back((*xd)[i]);
    return one(d);
  }

  if (type == "Gather" || type == "GatherElements") {
    auto id = dimsOf(op->getOperand(1));
    if (!xd || !id)
      return std::nullopt;
    if (type == "GatherElements")
      return one(id);
    auto axis = normalizeAxis(attrInt(op, "axis").value_or(0), rank);
    if (!axis)
      return std::nullopt;
    Dims d(xd->begin(), xd->begin() + *axis);
    d.append(id->begin(), id->end());
    d.append(xd->begin() + *axis + 1, xd->end());
    return one(d);
  }

  if (type == "Shape") {
    if (!xd)
      return std::nullopt;
    int64_t start = attrInt(op, "start").value_or(0);
    int64_t end = attrInt(op, "end").value_or(rank);
    return one(Dims{cst(sliceLength(rank, start, end, 1))}, i64);
  }
  if (type == "Size")
    return one(Dims{}, i64);

  if (type == "Expand") {
    auto target = operandInts(1);
    if (!xd)
      return std::nullopt;
    if (!target) {
      auto st = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
      if (!st || st.getRank() != 1 || st.isDynamicDim(0))
        return std::nullopt;
      return one(Dims(std::max<int64_t>(rank, st.getDimSize(0)), Dim()));
    }
    return one(broadcast({*xd, *target}));
  }

  if (type == "ConstantOfShape") {
    auto target = operandInts(0);
    Type elt = Float32Type::get(ctx);
    if (auto v = dyn_cast_or_null<ElementsAttr>(
            op->getInherentAttr("value").value_or(Attribute())))
      elt = v.getElementType();
    if (!target) {
      auto st = dyn_cast<RankedTensorType>(x.getType());
      if (!st || st.getRank() != 1 || st.isDynamicDim(0))
        return std::nullopt;
      return one(Dims(st.getDimSize(0), Dim()), elt);
    }
    return one(target, elt);
  }

  if (type == "Range") {
    auto s = operandInts(0), l = operandInts(1), dl = operandInts(2);
    if (!s || !l || !dl || s->size() != 1 || l->size() != 1 || dl->size() != 1)
      return one(Dims{Dim()});
    auto delta = (*dl)[0] ? (*dl)[0]->getConstant() : std::nullopt;
    Dim len;
    auto sc = (*s)[0] ? (*s)[0]->getConstant() : std::nullopt;
    auto lc = (*l)[0] ? (*l)[0]->getConstant() : std::nullopt;
    if (delta && *delta != 0 && sc && lc)
      len = cst(std::max<int64_t>(
          0, (*lc - *sc + *delta - (*delta > 0 ? 1 : -1)) / *delta));
    else if (delta && *delta == 1)
      len = (*l)[0] - (*s)[0];
    return one(Dims{len});
  }

  if (type == "Tile") {
    auto reps = operandInts(1);
    if (!xd)
      return std::nullopt;
    if (!reps || (int64_t)reps->size() != rank)
      return one(Dims(rank, Dim()));
    Dims d;
    for (int64_t i = 0; i < rank; ++i)
      d.push_back((*xd)[i] * (*reps)[i]);
    return one(d);
  }

  if (type == "Split") {
    if (!xd)
      return std::nullopt;
    auto axis = normalizeAxis(attrInt(op, "axis").value_or(0), rank);
    if (!axis)
      return std::nullopt;
    unsigned k = op->getNumResults();
    std::optional<Dims> sizes;
    if (auto s = attrInts(op, "split")) {
      sizes.emplace();
      for (int64_t v : *s)
        sizes->push_back(cst(v));
    } else if (op->getNumOperands() > 1 && !amk::isNone(op->getOperand(1))) {
      sizes = operandInts(1);
      if (!sizes) { // Sizes given but not known: the axis is unknown.
        Dims d = *xd;
        d[*axis] = Dim();
        for (unsigned i = 0; i < k; ++i)
          out[i] = shaped(d);
        return out;
      }
    }
    const Dim &whole = (*xd)[*axis];
    if (!sizes) {
      auto n = whole ? whole->getConstant() : std::nullopt;
      sizes.emplace();
      if (n) {
        int64_t chunk = (*n + k - 1) / k; // opset 18: the last is smaller.
        for (unsigned i = 0; i < k; ++i)
          sizes->push_back(
              cst(std::max<int64_t>(0, std::min(chunk, *n - i * chunk))));
      } else {
        Dim chunk = whole ? exactDiv(*whole, Expr::constant(k)) : Dim();
        sizes->append(k, chunk);
      }
    }
    if (sizes->size() != k)
      return std::nullopt;
    for (unsigned i = 0; i < k; ++i) {
      Dims d = *xd;
      d[*axis] = (*sizes)[i];
      out[i] = shaped(d);
    }
    return out;
  }

  if (type.starts_with("Reduce") || type == "ArgMax" || type == "ArgMin") {
    if (!xd)
      return std::nullopt;
    bool keep = attrInt(op, "keepdims").value_or(1) != 0;
    SmallVector<int64_t> axes;
    bool arg = type == "ArgMax" || type == "ArgMin";
    if (arg) {
      axes.push_back(attrInt(op, "axis").value_or(0));
    } else if (auto a = attrInts(op, "axes")) {
      axes = *a;
    } else if (op->getNumOperands() > 1 && !amk::isNone(op->getOperand(1))) {
      auto c = constants(operandInts(1));
      if (!c)
        return std::nullopt;
      axes = *c;
    }
    if (axes.empty() && attrInt(op, "noop_with_empty_axes").value_or(0))
      return one(xd);
    SmallVector<bool> reduced(rank, axes.empty());
    for (int64_t a : axes) {
      auto n = normalizeAxis(a, rank);
      if (!n)
        return std::nullopt;
      reduced[*n] = true;
    }
    Dims d;
    for (int64_t i = 0; i < rank; ++i)
      if (!reduced[i])
        d.push_back((*xd)[i]);
      else if (keep)
        d.push_back(cst(1));
    return one(d, arg ? Type(i64) : Type());
  }

  if (type == "Pad") {
    if (!xd)
      return std::nullopt;
    std::optional<SmallVector<int64_t>> pads = attrInts(op, "pads");
    if (!pads)
      pads = constants(operandInts(1));
    SmallVector<int64_t> axes;
    if (auto a = constants(operandInts(3)))
      axes = *a;
    else if (op->getNumOperands() > 3 && !amk::isNone(op->getOperand(3)))
      return one(Dims(rank, Dim())); // Axes given but not known.
    else
      for (int64_t i = 0; i < rank; ++i)
        axes.push_back(i);
    if (!pads || pads->size() != 2 * axes.size())
      return one(Dims(rank, Dim()));
    Dims d = *xd;
    for (auto [k, a] : llvm::enumerate(axes)) {
      auto n = normalizeAxis(a, rank);
      if (!n)
        return std::nullopt;
      d[*n] = d[*n] + cst((*pads)[k] + (*pads)[k + axes.size()]);
    }
    return one(d);
  }

  if (type == "Resize" || type == "Upsample") {
    if (!xd)
      return std::nullopt;
    // Axes and aspect-ratio policies (opset 18) are the evaluator's.
    if (op->getInherentAttr("axes").value_or(Attribute()))
      return std::nullopt;
    if (auto policy = dyn_cast_or_null<StringAttr>(
            op->getInherentAttr("keep_aspect_ratio_policy")
                .value_or(Attribute()));
        policy && policy.getValue() != "stretch")
      return std::nullopt;
    if (auto sizes = operandInts(3); sizes && (int64_t)sizes->size() == rank)
      return one(sizes);
    unsigned scalesIdx =
        type == "Upsample" || op->getNumOperands() == 2 ? 1 : 2;
    if (scalesIdx >= op->getNumOperands() ||
        amk::isNone(op->getOperand(scalesIdx)))
      return std::nullopt;
    auto scales = amk::getConstantTensor(op->getOperand(scalesIdx));
    if (!scales || scales->numel() != rank)
      return one(Dims(rank, Dim()));
    Dims d;
    for (int64_t i = 0; i < rank; ++i) {
      double s = scales->getDouble(i);
      const Dim &in = (*xd)[i];
      auto c = in ? in->getConstant() : std::nullopt;
      if (c)
        d.push_back(cst((int64_t)std::floor(*c * s)));
      else if (s >= 1 && s == std::floor(s))
        d.push_back(in * cst((int64_t)s));
      else
        d.push_back(Dim());
    }
    return one(d);
  }

  if (type == "DepthToSpace" || type == "SpaceToDepth") {
    auto b = attrInt(op, "blocksize");
    if (!xd || rank != 4 || !b || *b <= 0)
      return std::nullopt;
    Dim bb = cst(*b), b2 = cst(*b * *b);
    const Dims &s = *xd;
    if (type == "DepthToSpace")
      return one(Dims{s[0], s[1] ? exactDiv(*s[1], *b2) : Dim(), s[2] * bb,
                      s[3] * bb});
    return one(Dims{s[0], s[1] * b2, s[2] ? exactDiv(*s[2], *bb) : Dim(),
                    s[3] ? exactDiv(*s[3], *bb) : Dim()});
  }

  if (type == "TopK") {
    auto k = operandInts(1);
    if (!xd)
      return std::nullopt;
    auto axis = normalizeAxis(attrInt(op, "axis").value_or(-1), rank);
    if (!axis)
      return std::nullopt;
    Dims d = *xd;
    d[*axis] = k && k->size() == 1 ? (*k)[0] : Dim();
    out[0] = shaped(d);
    if (op->getNumResults() > 1)
      out[1] = shaped(d, i64);
    return out;
  }

  if (type == "MaxUnpool") {
    if (!xd || rank < 3)
      return std::nullopt;
    if (auto shape = operandInts(2))
      return one(shape);
    auto kernel = attrInts(op, "kernel_shape");
    int64_t n = rank - 2;
    if (!kernel || (int64_t)kernel->size() != n)
      return std::nullopt;
    auto strides = attrInts(op, "strides").value_or(SmallVector<int64_t>());
    auto pads = attrInts(op, "pads").value_or(SmallVector<int64_t>());
    if ((!strides.empty() && (int64_t)strides.size() != n) ||
        (!pads.empty() && (int64_t)pads.size() != 2 * n))
      return std::nullopt;
    Dims d = {(*xd)[0], (*xd)[1]};
    for (int64_t i = 0; i < n; ++i) {
      int64_t stride = strides.empty() ? 1 : strides[i];
      int64_t pad = pads.empty() ? 0 : pads[i] + pads[i + n];
      d.push_back(((*xd)[i + 2] - cst(1)) * cst(stride) +
                  cst((*kernel)[i] - pad));
    }
    return one(d);
  }
  return std::nullopt;
}
