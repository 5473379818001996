//===- ONNXVerifiers.cpp - Op-specific checks of typed ONNX ops -----------===//
//
// Part of AMK. Every typed op is first checked against its schema version
// (verifyAgainstSchema); the ops below add the structural rules a schema
// cannot express: shapes that must agree where they are static, attribute
// values in range, branch and loop signatures. Dynamic dimensions are never
// an error here: shape inference resolves them later.
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace amk::onnx {
namespace {

bool isNone(Value v) { return isa<NoneType>(v.getType()); }

RankedTensorType ranked(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

bool isStatic(int64_t d) { return !ShapedType::isDynamic(d); }

std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ",";
    s += isStatic(d) ? std::to_string(d) : "?";
  }
  return s + "]";
}

/// Checks that `axis` lies in [-rank, rank) (or [-rank, rank] when
/// `inclusive`).
LogicalResult checkAxis(Operation *op, StringRef what, int64_t axis,
                        int64_t rank, bool inclusive = false) {
  int64_t hi = inclusive ? rank : rank - 1;
  if (axis < -rank || axis > hi)
    return op->emitOpError() << what << " " << axis << " is out of range [-"
                             << rank << ", " << hi << "] for rank " << rank;
  return success();
}

/// Multidirectional (numpy) broadcasting of the present ranked `inputs`,
/// and agreement of the result shape with it.
LogicalResult verifyBroadcast(Operation *op, ValueRange inputs) {
  SmallVector<ArrayRef<int64_t>> shapes;
  bool allRanked = true;
  for (Value v : inputs)
    if (!isNone(v)) {
      if (auto t = ranked(v))
        shapes.push_back(t.getShape());
      else
        allRanked = false;
    }
  std::string why;
  auto bcast = broadcastShapes(shapes, &why);
  if (failed(bcast))
    return op->emitOpError() << "operands are not broadcastable: " << why;
  if (!allRanked)
    return success(); // An unranked operand: nothing more to check.
  int64_t rank = bcast->size();
  for (Value r : op->getResults()) {
    auto rt = ranked(r);
    if (!rt)
      continue;
    if (rt.getRank() != rank)
      return op->emitOpError() << "result rank " << rt.getRank()
                               << " differs from the broadcast rank " << rank;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = rt.getDimSize(i), b = (*bcast)[i];
      if (isStatic(d) && isStatic(b) && d != b)
        return op->emitOpError()
               << "result dimension " << i << " is " << d
               << " but broadcasting the operands gives " << b;
    }
  }
  return success();
}

/// Unidirectional broadcasting: `from` must broadcast to `to`.
LogicalResult verifyUnidirectional(Operation *op, Value from, Value to,
                                   StringRef fromName, StringRef toName) {
  auto f = ranked(from), t = ranked(to);
  if (!f || !t)
    return success();
  if (f.getRank() > t.getRank())
    return op->emitOpError()
           << fromName << " of rank " << f.getRank() << " cannot broadcast to "
           << toName << " of rank " << t.getRank();
  int64_t off = t.getRank() - f.getRank();
  for (int64_t i = 0; i < f.getRank(); ++i) {
    int64_t a = f.getDimSize(i), b = t.getDimSize(off + i);
    if (isStatic(a) && isStatic(b) && a != 1 && a != b)
      return op->emitOpError()
             << fromName << " of shape " << shapeStr(f.getShape())
             << " cannot broadcast to " << toName << " of shape "
             << shapeStr(t.getShape());
  }
  return success();
}

LogicalResult checkAutoPad(Operation *op, StringRef autoPad) {
  if (autoPad != "NOTSET" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER" && autoPad != "VALID")
    return op->emitOpError() << "auto_pad '" << autoPad
                             << "' is not one of NOTSET, SAME_UPPER, "
                                "SAME_LOWER, VALID";
  return success();
}

/// Lengths and signs of the spatial attributes shared by Conv and pools.
LogicalResult checkSpatialAttrs(Operation *op, int64_t spatial,
                                std::optional<ArrayRef<int64_t>> kernel,
                                std::optional<ArrayRef<int64_t>> strides,
                                std::optional<ArrayRef<int64_t>> dilations,
                                std::optional<ArrayRef<int64_t>> pads) {
  auto check = [&](StringRef name, std::optional<ArrayRef<int64_t>> vals,
                   int64_t len, int64_t minValue) -> LogicalResult {
    if (!vals)
      return success();
    if (spatial >= 0 && static_cast<int64_t>(vals->size()) != len)
      return op->emitOpError()
             << name << " has " << vals->size() << " values but the input has "
             << spatial << " spatial dimensions (expected " << len << ")";
    for (int64_t v : *vals)
      if (v < minValue)
        return op->emitOpError()
               << name << " value " << v << " must be >= " << minValue;
    return success();
  };
  if (failed(check("kernel_shape", kernel, spatial, 1)) ||
      failed(check("strides", strides, spatial, 1)) ||
      failed(check("dilations", dilations, spatial, 1)) ||
      failed(check("pads", pads, 2 * spatial, 0)))
    return failure();
  return success();
}

int64_t spatialRank(Value x) {
  auto t = ranked(x);
  return t ? t.getRank() - 2 : -1;
}

template <typename OpT> LogicalResult verifyPool(OpT op) {
  auto x = ranked(op.getX());
  if (x && x.getRank() < 3)
    return op.emitOpError()
           << "input X must have rank >= 3, got " << x.getRank();
  if (failed(checkAutoPad(op, op.getAutoPad())))
    return failure();
  if (op.getCeilMode() != 0 && op.getCeilMode() != 1)
    return op.emitOpError("ceil_mode must be 0 or 1");
  return checkSpatialAttrs(op, spatialRank(op.getX()), op.getKernelShape(),
                           op.getStrides(), op.getDilations(), op.getPads());
}

template <typename OpT> LogicalResult verifySoftmaxLike(OpT op) {
  auto x = ranked(op.getInput());
  if (x && op.getAxis())
    return checkAxis(op, "axis", *op.getAxis(), x.getRank());
  return success();
}

LogicalResult verifyDepthSpace(Operation *op, Value input, int64_t blocksize,
                               bool toSpace) {
  if (blocksize < 1)
    return op->emitOpError() << "blocksize must be >= 1, got " << blocksize;
  auto t = ranked(input);
  if (!t)
    return success();
  if (t.getRank() != 4)
    return op->emitOpError() << "input must have rank 4, got " << t.getRank();
  if (toSpace) {
    // Without forming blocksize^2, which can overflow (and wrap to 0).
    int64_t c = t.getDimSize(1);
    if (isStatic(c) && (c % blocksize != 0 || (c / blocksize) % blocksize != 0))
      return op->emitOpError() << "channel count " << c
                               << " is not divisible by blocksize^2 (blocksize "
                               << blocksize << ")";
  } else {
    for (int i = 2; i < 4; ++i) {
      int64_t d = t.getDimSize(i);
      if (isStatic(d) && d % blocksize != 0)
        return op->emitOpError()
               << "spatial dimension " << i << " (" << d
               << ") is not divisible by blocksize " << blocksize;
    }
  }
  return success();
}

LogicalResult verifyVariadicBroadcast(Operation *op) {
  if (op->getNumOperands() == 0)
    return op->emitOpError("requires at least one input");
  return verifyBroadcast(op, op->getOperands());
}

} // namespace
} // namespace amk::onnx

using namespace amk::onnx;

#define AMK_SCHEMA_FIRST                                                       \
  if (failed(verifyAgainstSchema(*this)))                                      \
    return failure();

//===----------------------------------------------------------------------===//
// Elementwise ops with broadcasting
//===----------------------------------------------------------------------===//

#define AMK_BINARY_BROADCAST_VERIFIER(OP)                                      \
  LogicalResult OP::verify() {                                                 \
    AMK_SCHEMA_FIRST                                                           \
    return verifyBroadcast(*this, getOperands());                              \
  }
AMK_BINARY_BROADCAST_VERIFIER(AddOp)
AMK_BINARY_BROADCAST_VERIFIER(SubOp)
AMK_BINARY_BROADCAST_VERIFIER(MulOp)
AMK_BINARY_BROADCAST_VERIFIER(DivOp)
AMK_BINARY_BROADCAST_VERIFIER(PowOp)
AMK_BINARY_BROADCAST_VERIFIER(EqualOp)
AMK_BINARY_BROADCAST_VERIFIER(LessOp)
AMK_BINARY_BROADCAST_VERIFIER(GreaterOp)
AMK_BINARY_BROADCAST_VERIFIER(LessOrEqualOp)
AMK_BINARY_BROADCAST_VERIFIER(GreaterOrEqualOp)
AMK_BINARY_BROADCAST_VERIFIER(AndOp)
AMK_BINARY_BROADCAST_VERIFIER(OrOp)
AMK_BINARY_BROADCAST_VERIFIER(XorOp)
AMK_BINARY_BROADCAST_VERIFIER(WhereOp)
#undef AMK_BINARY_BROADCAST_VERIFIER

#define AMK_VARIADIC_BROADCAST_VERIFIER(OP)                                    \
  LogicalResult OP::verify() {                                                 \
    AMK_SCHEMA_FIRST                                                           \
    return verifyVariadicBroadcast(*this);                                     \
  }
AMK_VARIADIC_BROADCAST_VERIFIER(MaxOp)
AMK_VARIADIC_BROADCAST_VERIFIER(MinOp)
AMK_VARIADIC_BROADCAST_VERIFIER(SumOp)
AMK_VARIADIC_BROADCAST_VERIFIER(MeanOp)
#undef AMK_VARIADIC_BROADCAST_VERIFIER

LogicalResult PReluOp::verify() {
  AMK_SCHEMA_FIRST
  return verifyUnidirectional(*this, getSlope(), getX(), "slope", "X");
}

//===----------------------------------------------------------------------===//
// Convolution, pooling, normalization
//===----------------------------------------------------------------------===//

/// The checks Conv, ConvTranspose and QLinearConv share: auto_pad, group,
/// ranks of the input and the weights, spatial attribute lengths.
template <typename OpT>
static LogicalResult verifyConvLike(OpT op, Value xValue, Value wValue) {
  if (failed(checkAutoPad(op, op.getAutoPad())))
    return failure();
  if (op.getGroup() < 1)
    return op.emitOpError() << "group must be >= 1, got " << op.getGroup();
  auto x = ranked(xValue), w = ranked(wValue);
  if (x && x.getRank() < 3)
    return op.emitOpError()
           << "input X must have rank >= 3, got " << x.getRank();
  if (w && w.getRank() < 3)
    return op.emitOpError()
           << "weights W must have rank >= 3, got " << w.getRank();
  if (x && w && x.getRank() != w.getRank())
    return op.emitOpError()
           << "X has rank " << x.getRank() << " but W has rank " << w.getRank();
  int64_t spatial = x ? x.getRank() - 2 : w ? w.getRank() - 2 : -1;
  return checkSpatialAttrs(op, spatial, op.getKernelShape(), op.getStrides(),
                           op.getDilations(), op.getPads());
}

/// A 1-D bias with one value per output channel.
static LogicalResult verifyBias(Operation *op, Value bias, int64_t channels) {
  auto b = ranked(bias);
  if (!b)
    return success();
  if (b.getRank() != 1)
    return op->emitOpError() << "bias B must have rank 1, got " << b.getRank();
  if (isStatic(channels) && isStatic(b.getDimSize(0)) &&
      b.getDimSize(0) != channels)
    return op->emitOpError()
           << "bias B has " << b.getDimSize(0) << " values but there are "
           << channels << " output channels";
  return success();
}

LogicalResult ConvOp::verify() {
  AMK_SCHEMA_FIRST
  if (failed(verifyConvLike(*this, getX(), getW())))
    return failure();
  auto x = ranked(getX()), w = ranked(getW());
  if (!w)
    return success();
  int64_t group = getGroup();
  int64_t m = w.getDimSize(0);
  if (isStatic(m) && m % group != 0)
    return emitOpError() << "W dimension 0 (" << m
                         << " output channels) is not divisible by group "
                         << group;
  if (auto kernel = getKernelShape())
    for (auto [i, k] : llvm::enumerate(*kernel)) {
      int64_t d = w.getDimSize(i + 2);
      if (isStatic(d) && d != k)
        return emitOpError()
               << "kernel_shape " << shapeStr(*kernel)
               << " disagrees with W of shape " << shapeStr(w.getShape());
    }
  if (x) {
    int64_t c = x.getDimSize(1), wc = w.getDimSize(1);
    if (isStatic(c) && isStatic(wc) && c != wc * group)
      return emitOpError() << "X has " << c
                           << " input channels but W dimension 1 (" << wc
                           << ") * group (" << group << ") is " << wc * group;
  }
  return verifyBias(*this, getB(), m);
}

LogicalResult ConvTransposeOp::verify() {
  AMK_SCHEMA_FIRST
  if (failed(verifyConvLike(*this, getX(), getW())))
    return failure();
  auto x = ranked(getX()), w = ranked(getW());
  int64_t spatial = x ? x.getRank() - 2 : w ? w.getRank() - 2 : -1;
  for (auto [name, vals] : {std::pair{"output_padding", getOutputPadding()},
                            std::pair{"output_shape", getOutputShape()}})
    if (vals && spatial >= 0 && static_cast<int64_t>(vals->size()) != spatial)
      return emitOpError() << name << " has " << vals->size() << " values for "
                           << spatial << " spatial dimensions";
  if (!w)
    return success();
  if (x) {
    int64_t c = x.getDimSize(1), wc = w.getDimSize(0);
    if (isStatic(c) && isStatic(wc) && c != wc)
      return emitOpError() << "X has " << c
                           << " input channels but W dimension 0 is " << wc;
  }
  int64_t m = w.getDimSize(1);
  return verifyBias(*this, getB(),
                    isStatic(m) ? m * getGroup() : ShapedType::kDynamic);
}

LogicalResult QLinearConvOp::verify() {
  AMK_SCHEMA_FIRST
  return verifyConvLike(*this, getX(), getW());
}

LogicalResult MaxPoolOp::verify() {
  AMK_SCHEMA_FIRST
  if (getStorageOrder() != 0 && getStorageOrder() != 1)
    return emitOpError("storage_order must be 0 or 1");
  return verifyPool(*this);
}

LogicalResult AveragePoolOp::verify() {
  AMK_SCHEMA_FIRST
  return verifyPool(*this);
}

LogicalResult BatchNormalizationOp::verify() {
  AMK_SCHEMA_FIRST
  auto x = ranked(getX());
  if (x && x.getRank() < 2)
    return emitOpError() << "X must have rank >= 2, got " << x.getRank();
  int64_t c = x ? x.getDimSize(1) : ShapedType::kDynamic;
  std::pair<Value, StringRef> params[] = {{getScale(), "scale"},
                                          {getB(), "B"},
                                          {getInputMean(), "input_mean"},
                                          {getInputVar(), "input_var"}};
  for (auto [v, name] : params) {
    auto t = ranked(v);
    if (!t)
      continue;
    // Opset 7 with spatial=0 allows per-element parameters.
    if (getSpatial() == 0)
      continue;
    if (t.getRank() != 1)
      return emitOpError() << name << " must have rank 1, got " << t.getRank();
    if (isStatic(c) && isStatic(t.getDimSize(0)) && t.getDimSize(0) != c)
      return emitOpError() << name << " has " << t.getDimSize(0)
                           << " values but X has " << c << " channels";
  }
  return success();
}

LogicalResult LayerNormalizationOp::verify() {
  AMK_SCHEMA_FIRST
  if (auto x = ranked(getX()))
    return checkAxis(*this, "axis", getAxis(), x.getRank());
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::verify() {
  AMK_SCHEMA_FIRST
  auto a = ranked(getA()), b = ranked(getB());
  if (a && a.getRank() != 2)
    return emitOpError() << "A must have rank 2, got " << a.getRank();
  if (b && b.getRank() != 2)
    return emitOpError() << "B must have rank 2, got " << b.getRank();
  if (a && b) {
    int64_t ka = a.getDimSize(getTransA() ? 0 : 1);
    int64_t kb = b.getDimSize(getTransB() ? 1 : 0);
    if (isStatic(ka) && isStatic(kb) && ka != kb)
      return emitOpError() << "inner dimensions disagree: A"
                           << (getTransA() ? "^T" : "") << " is "
                           << shapeStr(a.getShape()) << ", B"
                           << (getTransB() ? "^T" : "") << " is "
                           << shapeStr(b.getShape());
  }
  if (!isNone(getC()))
    return verifyUnidirectional(*this, getC(), getY(), "C", "the result");
  return success();
}

LogicalResult MatMulOp::verify() {
  AMK_SCHEMA_FIRST
  auto a = ranked(getA()), b = ranked(getB());
  if (!a || !b)
    return success();
  if (a.getRank() < 1 || b.getRank() < 1)
    return emitOpError("operands must have rank >= 1");
  int64_t ka = a.getDimSize(a.getRank() - 1);
  int64_t kb =
      b.getRank() == 1 ? b.getDimSize(0) : b.getDimSize(b.getRank() - 2);
  if (isStatic(ka) && isStatic(kb) && ka != kb)
    return emitOpError() << "inner dimensions disagree: A is "
                         << shapeStr(a.getShape()) << ", B is "
                         << shapeStr(b.getShape());
  // Batch dimensions broadcast.
  int64_t ba = a.getRank() - 2, bb = b.getRank() - 2;
  for (int64_t i = 1; i <= std::min(ba, bb); ++i) {
    int64_t x = a.getDimSize(ba - i), y = b.getDimSize(bb - i);
    if (isStatic(x) && isStatic(y) && x != y && x != 1 && y != 1)
      return emitOpError() << "batch dimensions are not broadcastable: A is "
                           << shapeStr(a.getShape()) << ", B is "
                           << shapeStr(b.getShape());
  }
  return success();
}

LogicalResult EinsumOp::verify() {
  AMK_SCHEMA_FIRST
  StringRef eq = getEquation();
  StringRef lhs = eq.split("->").first;
  size_t terms = lhs.count(',') + 1;
  if (terms != getNumOperands())
    return emitOpError() << "equation '" << eq << "' names " << terms
                         << " inputs but the op has " << getNumOperands();
  for (char c : eq)
    if (!llvm::isAlpha(c) && c != ',' && c != '-' && c != '>' && c != '.' &&
        c != ' ')
      return emitOpError() << "equation '" << eq
                           << "' contains invalid character '" << c << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  AMK_SCHEMA_FIRST
  auto perm = getPerm();
  if (!perm)
    return success();
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t p : *perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm->size()) ||
        !seen.insert(p).second)
      return emitOpError() << "perm " << shapeStr(*perm)
                           << " is not a permutation";
  }
  auto x = ranked(getData());
  if (x && x.getRank() != static_cast<int64_t>(perm->size()))
    return emitOpError() << "perm has " << perm->size()
                         << " entries but the input has rank " << x.getRank();
  auto y = ranked(getTransposed());
  if (y && y.getRank() != static_cast<int64_t>(perm->size()))
    return emitOpError() << "perm has " << perm->size()
                         << " entries but the result has rank " << y.getRank();
  if (x && y) {
    for (auto [i, p] : llvm::enumerate(*perm)) {
      int64_t a = x.getDimSize(p), b = y.getDimSize(i);
      if (isStatic(a) && isStatic(b) && a != b)
        return emitOpError()
               << "result shape " << shapeStr(y.getShape())
               << " is not the input shape " << shapeStr(x.getShape())
               << " permuted by " << shapeStr(*perm);
    }
  }
  return success();
}

LogicalResult ConcatOp::verify() {
  AMK_SCHEMA_FIRST
  if (getInputs().empty())
    return emitOpError("requires at least one input");
  RankedTensorType first;
  for (Value v : getInputs()) {
    auto t = ranked(v);
    if (!t)
      continue;
    // An empty input adds nothing and ONNX Runtime ignores its other dims
    // (torchvision's detection exports concatenate [N, 4] with [0, 0]).
    if (llvm::is_contained(t.getShape(), 0))
      continue;
    if (!first) {
      first = t;
      if (failed(checkAxis(*this, "axis", getAxis(), t.getRank())))
        return failure();
      continue;
    }
    if (t.getRank() != first.getRank())
      return emitOpError() << "inputs have different ranks: "
                           << shapeStr(first.getShape()) << " and "
                           << shapeStr(t.getShape());
    int64_t axis = getAxis() < 0 ? getAxis() + t.getRank() : getAxis();
    for (int64_t i = 0; i < t.getRank(); ++i) {
      int64_t a = first.getDimSize(i), b = t.getDimSize(i);
      if (i != axis && isStatic(a) && isStatic(b) && a != b)
        return emitOpError()
               << "inputs " << shapeStr(first.getShape()) << " and "
               << shapeStr(t.getShape())
               << " differ outside the concatenation axis " << axis;
    }
  }
  return success();
}

LogicalResult ReshapeOp::verify() {
  AMK_SCHEMA_FIRST
  if (auto s = ranked(getShape()); s && s.getRank() != 1)
    return emitOpError() << "shape must be a 1-D tensor, got rank "
                         << s.getRank();
  if (getAllowzero() != 0 && getAllowzero() != 1)
    return emitOpError("allowzero must be 0 or 1");
  return success();
}

LogicalResult FlattenOp::verify() {
  AMK_SCHEMA_FIRST
  if (auto x = ranked(getInput()))
    return checkAxis(*this, "axis", getAxis(), x.getRank(),
                     /*inclusive=*/true);
  return success();
}

LogicalResult GatherOp::verify() {
  AMK_SCHEMA_FIRST
  if (auto x = ranked(getData())) {
    if (x.getRank() < 1)
      return emitOpError("data must have rank >= 1");
    return checkAxis(*this, "axis", getAxis(), x.getRank());
  }
  return success();
}

LogicalResult SplitOp::verify() {
  AMK_SCHEMA_FIRST
  auto x = ranked(getInput());
  if (x && failed(checkAxis(*this, "axis", getAxis(), x.getRank())))
    return failure();
  if (auto split = getSplit()) {
    if (split->size() != getNumResults())
      return emitOpError() << "split has " << split->size()
                           << " sizes but the op has " << getNumResults()
                           << " outputs";
    if (x) {
      int64_t axis = getAxis() < 0 ? getAxis() + x.getRank() : getAxis();
      int64_t d = x.getDimSize(axis), sum = 0;
      for (int64_t s : *split) {
        if (s < 0)
          return emitOpError("split sizes must be >= 0");
        sum += s;
      }
      if (isStatic(d) && sum != d)
        return emitOpError()
               << "split sizes sum to " << sum << " but the dimension is " << d;
    }
  }
  if (auto n = getNumOutputs();
      n && *n != static_cast<int64_t>(getNumResults()))
    return emitOpError() << "num_outputs is " << *n << " but the op has "
                         << getNumResults() << " outputs";
  return success();
}

LogicalResult DepthToSpaceOp::verify() {
  AMK_SCHEMA_FIRST
  if (getMode() != "DCR" && getMode() != "CRD")
    return emitOpError() << "mode '" << getMode() << "' is not DCR or CRD";
  return verifyDepthSpace(*this, getInput(), getBlocksize(), true);
}

LogicalResult SpaceToDepthOp::verify() {
  AMK_SCHEMA_FIRST
  return verifyDepthSpace(*this, getInput(), getBlocksize(), false);
}

LogicalResult SoftmaxOp::verify() {
  AMK_SCHEMA_FIRST
  return verifySoftmaxLike(*this);
}

LogicalResult LogSoftmaxOp::verify() {
  AMK_SCHEMA_FIRST
  return verifySoftmaxLike(*this);
}

//===----------------------------------------------------------------------===//
// Types and constants
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  AMK_SCHEMA_FIRST
  int64_t to = getTo();
  Type elt = to >= 0 && to <= INT32_MAX
                 ? getElementType(getContext(), static_cast<int32_t>(to))
                 : Type();
  if (!elt)
    return emitOpError() << "'to' = " << getTo() << " is not an ONNX data type";
  if (auto t = dyn_cast<TensorType>(getOutput().getType());
      t && t.getElementType() != elt)
    return emitOpError() << "result element type " << t.getElementType()
                         << " differs from 'to' (" << elt << ")";
  return success();
}

LogicalResult ConstantOp::verify() {
  AMK_SCHEMA_FIRST
  StringRef forms[] = {"value",        "sparse_value", "value_float",
                       "value_floats", "value_int",    "value_ints",
                       "value_string", "value_strings"};
  int set = 0;
  for (StringRef f : forms)
    if (getOperation()->getInherentAttr(f).value_or(Attribute()))
      ++set;
  if (set != 1)
    return emitOpError() << "requires exactly one value attribute, got " << set;
  auto result = dyn_cast<TensorType>(getOutput().getType());
  if (!result)
    return success();
  // The type each value form implies.
  Builder b(getContext());
  ShapedType implied;
  StringRef form;
  if (auto v = getValueAttr()) {
    implied = cast<ShapedType>(v.getType());
    form = "value";
  } else if (auto v = getSparseValueAttr()) {
    implied = cast<ShapedType>(v.getType());
    form = "sparse_value";
  } else if (getValueFloatAttr()) {
    implied = RankedTensorType::get({}, b.getF32Type());
    form = "value_float";
  } else if (auto v = getValueFloatsAttr()) {
    implied = RankedTensorType::get({v.size()}, b.getF32Type());
    form = "value_floats";
  } else if (getValueIntAttr()) {
    implied = RankedTensorType::get({}, b.getI64Type());
    form = "value_int";
  } else if (auto v = getValueIntsAttr()) {
    implied = RankedTensorType::get({v.size()}, b.getI64Type());
    form = "value_ints";
  } else if (getValueStringAttr()) {
    implied = RankedTensorType::get({}, StringType::get(getContext()));
    form = "value_string";
  } else if (auto v = getValueStringsAttr()) {
    implied = RankedTensorType::get({static_cast<int64_t>(v.size())},
                                    StringType::get(getContext()));
    form = "value_strings";
  }
  if (implied &&
      (implied.getElementType() != result.getElementType() ||
       (result.hasRank() && result.getShape() != implied.getShape()))) {
    if (form == "value")
      return emitOpError() << "result type " << result
                           << " differs from the value's type " << implied;
    return emitOpError() << "result type " << result
                         << " differs from the type " << implied << " of "
                         << form;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

static LogicalResult checkBranch(Operation *op, Region &region,
                                 StringRef name) {
  // The last op, not getTerminator(): this verifier runs before MLIR's
  // check that a block is not empty and ends with a terminator.
  Block &block = region.front();
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield)
    return op->emitOpError() << name << " must end with onnx.Yield";
  if (yield.getNumOperands() != op->getNumResults())
    return op->emitOpError()
           << name << " yields " << yield.getNumOperands()
           << " values but the op has " << op->getNumResults() << " results";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(yield.getOperands(), op->getResults()))) {
    auto [v, r] = pair;
    std::string a = getONNXTypeString(v.getType());
    std::string b = getONNXTypeString(r.getType());
    // Shapes may differ between branches (If-11); element types may not.
    if (!a.empty() && !b.empty() && a != b)
      return op->emitOpError() << name << " output " << i << " is " << a
                               << " but result " << i << " is " << b;
  }
  return success();
}

LogicalResult IfOp::verify() {
  AMK_SCHEMA_FIRST
  if (getThenBranch().front().getNumArguments() ||
      getElseBranch().front().getNumArguments())
    return emitOpError("branches take no inputs");
  if (failed(checkBranch(*this, getThenBranch(), "then_branch")) ||
      failed(checkBranch(*this, getElseBranch(), "else_branch")))
    return failure();
  return success();
}

LogicalResult LoopOp::verify() {
  AMK_SCHEMA_FIRST
  Block &body = getBody().front();
  size_t carried = getVInitial().size();
  if (body.getNumArguments() != 2 + carried)
    return emitOpError() << "body takes " << body.getNumArguments()
                         << " inputs; expected 2 + " << carried
                         << " loop-carried values";
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end with onnx.Yield");
  if (yield.getNumOperands() != 1 + getNumResults())
    return emitOpError() << "body yields " << yield.getNumOperands()
                         << " values; expected the condition plus "
                         << getNumResults();
  if (getNumResults() < carried)
    return emitOpError() << "has " << getNumResults() << " results for "
                         << carried << " loop-carried values";
  return success();
}
