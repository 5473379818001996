//===- SymbolicShapes.cpp - amk-infer-shapes' symbolic rules --------------===//
//
// Part of AMK. One rule per op family. A rule may know a result's rank and
// only some of its sizes; what it cannot express stays unknown (nullopt),
// never guessed: a wrong size here would surface as a type conflict once
// the model is bound to real sizes.
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

namespace {
/// Integer tensors up to this many elements have their values tracked.
constexpr int64_t kMaxTrackedInts = 64;
} // namespace

namespace amk::sym::detail {

std::optional<int64_t> attrInt(Operation *op, StringRef name) {
  if (auto a = dyn_cast_or_null<IntegerAttr>(
          op->getInherentAttr(name).value_or(Attribute())))
    return a.getInt();
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> attrInts(Operation *op, StringRef name) {
  Attribute a = op->getInherentAttr(name).value_or(Attribute());
  if (auto arr = dyn_cast_or_null<DenseI64ArrayAttr>(a))
    return SmallVector<int64_t>(arr.asArrayRef());
  if (auto arr = dyn_cast_or_null<ArrayAttr>(a)) {
    SmallVector<int64_t> out;
    for (Attribute e : arr) {
      auto i = dyn_cast<IntegerAttr>(e);
      if (!i)
        return std::nullopt;
      out.push_back(i.getInt());
    }
    return out;
  }
  return std::nullopt;
}

Type elementOf(Value v) {
  auto t = dyn_cast<TensorType>(v.getType());
  return t ? t.getElementType() : Type();
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

Dim product(ArrayRef<Dim> dims) {
  Dim p = cst(1);
  for (const Dim &d : dims)
    p = p * d;
  return p;
}

/// Whether a known expression can only be >= 0: shapes are, and sums and
/// products of them with non-negative coefficients stay so.
bool nonNegative(const Dim &d) {
  if (!d)
    return false;
  if (auto c = d->getConstant())
    return *c >= 0;
  // Negative coefficients print with a '-' outside the symbol names.
  std::string s = d->str();
  return s.front() != '-' && s.find("-") == std::string::npos;
}

/// Multidirectional broadcasting. A size other than 1 decides a position;
/// where only symbols are left they must agree, else the size is unknown.
std::optional<Dims> broadcast(ArrayRef<Dims> shapes) {
  size_t rank = 0;
  for (const Dims &s : shapes)
    rank = std::max(rank, s.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    std::optional<int64_t> fixed;
    SmallVector<Dim> symbolic;
    bool unknown = false;
    for (const Dims &s : shapes) {
      size_t off = rank - s.size();
      if (i < off)
        continue;
      const Dim &d = s[i - off];
      if (!d) {
        unknown = true;
        continue;
      }
      if (auto c = d->getConstant()) {
        if (*c == 1)
          continue;
        if (fixed && *fixed != *c)
          return std::nullopt; // The verifier names the mismatch.
        fixed = *c;
        continue;
      }
      symbolic.push_back(d);
    }
    if (fixed)
      out[i] = cst(*fixed);
    else if (unknown)
      out[i] = std::nullopt;
    else if (symbolic.empty())
      out[i] = cst(1);
    else if (llvm::all_of(symbolic,
                          [&](const Dim &d) { return same(d, symbolic[0]); }))
      out[i] = symbolic[0];
  }
  return out;
}

/// The length of a slice [start, end) by step of a dimension of size n.
int64_t sliceLength(int64_t n, int64_t start, int64_t end, int64_t step) {
  if (n <= 0 || step == 0)
    return 0;
  if (start < 0)
    start += n;
  if (end < 0)
    end += n;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, n);
    end = std::clamp<int64_t>(end, 0, n);
    return end > start ? (end - start + step - 1) / step : 0;
  }
  start = std::clamp<int64_t>(start, 0, n - 1);
  end = std::clamp<int64_t>(end, -1, n - 1);
  return start > end ? (start - end - step - 1) / -step : 0;
}

/// Sliced size of one dimension; symbolic where the slice runs from a
/// non-negative start to the end.
Dim sliceDim(const Dim &d, const Dim &start, const Dim &end, int64_t step) {
  auto s = start ? start->getConstant() : std::nullopt;
  auto e = end ? end->getConstant() : std::nullopt;
  if (auto n = d ? d->getConstant() : std::nullopt; n && s && e)
    return cst(sliceLength(*n, *s, *e, step));
  if (step != 1 || !s || *s < 0)
    return std::nullopt;
  if ((e && *e >= kSliceToEnd) || same(end, d))
    return d - start;
  return std::nullopt;
}

ResultShape shaped(std::optional<Dims> dims, Type elt) {
  return ResultShape{std::move(dims), elt};
}

} // namespace amk::sym::detail

using namespace amk::sym::detail;

void SymbolicShapes::seedArgument(Value arg, ArrayRef<StringRef> names,
                                  StringRef inputName) {
  auto t = dyn_cast<RankedTensorType>(arg.getType());
  if (!t)
    return;
  Dims d;
  for (int64_t i = 0; i < t.getRank(); ++i) {
    if (!t.isDynamicDim(i))
      d.push_back(cst(t.getDimSize(i)));
    else if (i < (int64_t)names.size() && !names[i].empty())
      d.push_back(Expr::symbol(names[i]));
    else
      d.push_back(Expr::symbol(std::string(1, Expr::kAnonymous) +
                               inputName.str() + "." + std::to_string(i)));
  }
  dims[arg] = std::move(d);
}

std::optional<Dims> SymbolicShapes::dimsOf(Value v) const {
  if (auto it = dims.find(v); it != dims.end())
    return it->second;
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return std::nullopt;
  Dims d;
  for (int64_t s : t.getShape())
    d.push_back(ShapedType::isDynamic(s) ? Dim() : cst(s));
  return d;
}

std::optional<Dims> SymbolicShapes::intsOf(Value v) const {
  if (auto it = ints.find(v); it != ints.end())
    return it->second;
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() > 1 || !t.hasStaticShape() ||
      t.getNumElements() > kMaxTrackedInts ||
      !isa<IntegerType>(t.getElementType()))
    return std::nullopt;
  auto c = amk::getConstantTensor(v);
  if (!c)
    return std::nullopt;
  Dims out;
  for (int64_t x : c->toInt64Vector())
    out.push_back(cst(x));
  return out;
}

/// The operand's element values when every one is a constant.
std::optional<SmallVector<int64_t>>
amk::sym::detail::constants(const std::optional<Dims> &values) {
  if (!values)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const Dim &d : *values) {
    auto c = d ? d->getConstant() : std::nullopt;
    if (!c)
      return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

std::optional<Dims> SymbolicShapes::computeInts(Operation *op) {
  StringRef type = op->getName().stripDialect();
  if (op->getNumResults() != 1 || op->getNumOperands() == 0)
    return std::nullopt;
  Value x = op->getOperand(0);
  auto xi = [&] { return intsOf(x); };
  if (type == "Shape") {
    auto d = dimsOf(x);
    if (!d)
      return std::nullopt;
    int64_t rank = d->size();
    int64_t start = attrInt(op, "start").value_or(0);
    int64_t end = attrInt(op, "end").value_or(rank);
    if (start < 0)
      start += rank;
    if (end < 0)
      end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    return Dims(d->begin() + start, d->begin() + end);
  }
  if (type == "Size") {
    auto d = dimsOf(x);
    return d ? std::optional<Dims>(Dims{product(*d)}) : std::nullopt;
  }
  if (type == "Identity" || type == "Unsqueeze" || type == "Squeeze" ||
      type == "Reshape" || type == "Flatten")
    return xi();
  if (type == "Cast") {
    auto t = dyn_cast<TensorType>(op->getResult(0).getType());
    if (!t || !isa<IntegerType>(t.getElementType()) ||
        !isa<IntegerType>(elementOf(x)))
      return std::nullopt;
    return xi();
  }
  if (type == "Gather") {
    auto data = xi();
    auto idx = constants(intsOf(op->getOperand(1)));
    if (!data || !idx || attrInt(op, "axis").value_or(0) != 0)
      return std::nullopt;
    Dims d;
    for (int64_t i : *idx) {
      int64_t n = data->size();
      if (i < -n || i >= n)
        return std::nullopt;
      d.push_back((*data)[i < 0 ? i + n : i]);
    }
    return d;
  }
  if (type == "Concat") {
    Dims d;
    for (Value v : op->getOperands()) {
      auto e = intsOf(v);
      if (!e)
        return std::nullopt;
      d.append(e->begin(), e->end());
    }
    return d;
  }
  if (type == "Slice" && op->getNumOperands() >= 3) {
    auto data = xi();
    auto s = constants(intsOf(op->getOperand(1)));
    auto e = constants(intsOf(op->getOperand(2)));
    if (!data || !s || !e || s->size() != 1 || e->size() != 1)
      return std::nullopt;
    int64_t step = 1;
    if (op->getNumOperands() > 4 && !amk::isNone(op->getOperand(4))) {
      auto st = constants(intsOf(op->getOperand(4)));
      if (!st || st->size() != 1 || (*st)[0] == 0)
        return std::nullopt;
      step = (*st)[0];
    }
    int64_t n = data->size(), start = (*s)[0], end = (*e)[0];
    int64_t len = sliceLength(n, start, end, step);
    if (start < 0)
      start += n;
    start = step > 0 ? std::clamp<int64_t>(start, 0, n)
                     : std::clamp<int64_t>(start, 0, n - 1);
    Dims d;
    for (int64_t i = 0; i < len; ++i)
      d.push_back((*data)[start + i * step]);
    return d;
  }
  static const llvm::StringSet<> arith = {"Add", "Sub",   "Mul",
                                          "Div", "Equal", "Where"};
  if (!arith.contains(type))
    return std::nullopt;
  SmallVector<Dims> in;
  size_t len = 1;
  for (Value v : op->getOperands()) {
    auto e = intsOf(v);
    if (!e)
      return std::nullopt;
    if (e->empty())
      return std::nullopt; // An empty shape vector: nothing to compute.
    if (e->size() != 1 && len != 1 && e->size() != len)
      return std::nullopt;
    len = std::max(len, e->size());
    in.push_back(*e);
  }
  auto at = [&](unsigned k, size_t i) {
    return in[k].size() == 1 ? in[k][0] : in[k][i];
  };
  Dims d;
  for (size_t i = 0; i < len; ++i) {
    Dim a = at(0, i), b = at(1, i);
    if (type == "Add")
      d.push_back(a + b);
    else if (type == "Sub")
      d.push_back(a - b);
    else if (type == "Mul")
      d.push_back(a * b);
    else if (type == "Div")
      d.push_back(floorDiv(a, b));
    else if (type == "Equal") {
      auto ac = a ? a->getConstant() : std::nullopt;
      auto bc = b ? b->getConstant() : std::nullopt;
      if (ac && bc)
        d.push_back(cst(*ac == *bc));
      else if (same(a, b))
        d.push_back(cst(1));
      // A size compared with a negative marker (Expand's -1 idiom).
      else if ((ac && *ac < 0 && nonNegative(b)) ||
               (bc && *bc < 0 && nonNegative(a)))
        d.push_back(cst(0));
      else
        d.push_back(Dim());
    } else { // Where
      auto c = a ? a->getConstant() : std::nullopt;
      d.push_back(!c ? Dim() : *c ? b : at(2, i));
    }
  }
  return d;
}

void SymbolicShapes::record(
    Operation *op, const std::optional<SmallVector<ResultShape>> &rule) {
  for (auto [i, r] : llvm::enumerate(op->getResults())) {
    auto t = dyn_cast<RankedTensorType>(r.getType());
    std::optional<Dims> fromRule;
    if (rule && i < rule->size())
      fromRule = (*rule)[i].dims;
    if (!t) {
      if (fromRule)
        dims[r] = *fromRule;
      continue;
    }
    Dims d;
    for (int64_t k = 0; k < t.getRank(); ++k) {
      if (!t.isDynamicDim(k))
        d.push_back(cst(t.getDimSize(k)));
      else if (fromRule && (int64_t)fromRule->size() == t.getRank())
        d.push_back((*fromRule)[k]);
      else
        d.push_back(Dim());
    }
    dims[r] = std::move(d);
  }
  if (op->getNumResults() == 1) {
    auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (t && t.getRank() <= 1 && isa<IntegerType>(t.getElementType()))
      if (auto v = computeInts(op)) {
        bool fits =
            t.getRank() == 0
                ? v->size() == 1
                : t.isDynamicDim(0) || t.getDimSize(0) == (int64_t)v->size();
        if (fits && (int64_t)v->size() <= kMaxTrackedInts)
          ints[op->getResult(0)] = std::move(*v);
      }
  }
}
