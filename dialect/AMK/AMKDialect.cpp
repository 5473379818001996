//===- AMKDialect.cpp - AMK's fused ops -----------------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "dialect/AMK/AMKDialect.h"

#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace amk::fused;

#include "dialect/AMK/AMKOpsDialect.cpp.inc"

void AMKDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/AMK/AMKOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "dialect/AMK/AMKOps.cpp.inc"

bool amk::fused::isKnownActivation(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases({"none", "relu", "clip", "leaky_relu", "sigmoid", "hard_swish",
              "tanh", "gelu", "gelu_tanh", "quick_gelu"},
             true)
      .Default(false);
}

namespace {

LogicalResult verifyActivation(Operation *op, llvm::StringRef act) {
  if (!isKnownActivation(act))
    return op->emitOpError() << "unknown activation '" << act << "'";
  return success();
}

/// `v` (when a tensor) broadcasts onto `shape` without changing it.
LogicalResult verifyBroadcastsOnto(Operation *op, Value v,
                                   llvm::StringRef what, RankedTensorType to) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return success();
  std::string why;
  auto b = amk::onnx::broadcastShapes({t.getShape(), to.getShape()}, &why);
  if (failed(b))
    return op->emitOpError() << what << " does not broadcast to the result: "
                             << why;
  for (auto [got, want] : llvm::zip(*b, to.getShape()))
    if (!ShapedType::isDynamic(got) && !ShapedType::isDynamic(want) &&
        got != want)
      return op->emitOpError()
             << what << " " << t << " broadcasts the result to a larger shape";
  return success();
}

/// `axis` (an I64Attr, read unsigned) indexes X's dims, and the result
/// has X's type.
LogicalResult verifyAxisAndType(Operation *op, uint64_t rawAxis,
                                TypedValue<RankedTensorType> x, Value y) {
  int64_t r = x.getType().getRank();
  auto axis = static_cast<int64_t>(rawAxis);
  if (axis < -r || axis >= r)
    return op->emitOpError() << "axis " << axis << " out of range for rank "
                             << r;
  if (y.getType() != x.getType())
    return op->emitOpError("result type differs from X's");
  return success();
}

bool isPermutation(llvm::ArrayRef<int64_t> perm, int64_t rank) {
  if (static_cast<int64_t>(perm.size()) != rank)
    return false;
  llvm::SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return false;
    seen[p] = true;
  }
  return true;
}

/// The shape of `t` with its axes permuted by `perm` (identity if absent).
llvm::SmallVector<int64_t> permuted(RankedTensorType t,
                                    std::optional<llvm::ArrayRef<int64_t>> perm) {
  llvm::SmallVector<int64_t> s;
  for (int64_t i = 0; i < t.getRank(); ++i)
    s.push_back(t.getDimSize(perm ? (*perm)[i] : i));
  return s;
}

bool staticMismatch(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

} // namespace

LogicalResult ConvOp::verify() {
  auto x = getX().getType(), w = getW().getType();
  if (x.getRank() < 3 || w.getRank() != x.getRank())
    return emitOpError("X and W must have the same rank >= 3");
  if (x.getElementType() != getY().getType().getElementType())
    return emitOpError("result element type differs from X's");
  if (auto b = dyn_cast<RankedTensorType>(getB().getType());
      b && (b.getRank() != 1 || staticMismatch(b.getDimSize(0),
                                               w.getDimSize(0))))
    return emitOpError("B must be 1-D with one value per output channel");
  if (failed(verifyBroadcastsOnto(*this, getZ(), "Z", getY().getType())))
    return failure();
  return verifyActivation(*this, getActivation());
}

LogicalResult QConvOp::verify() {
  auto x = getX().getType(), w = getW().getType(), y = getY().getType();
  if (x.getRank() < 3 || w.getRank() != x.getRank())
    return emitOpError("X and W must have the same rank >= 3");
  auto isInt8 = [](Type t) {
    auto i = dyn_cast<IntegerType>(t);
    return i && i.getWidth() == 8;
  };
  if (!isInt8(x.getElementType()) || !isInt8(w.getElementType()))
    return emitOpError("X and W must be 8-bit integers");
  bool quantOut = !isa<NoneType>(getYScale().getType());
  if (quantOut ? !isInt8(y.getElementType()) : !y.getElementType().isF32())
    return emitOpError("Y must be an 8-bit integer with Y_scale, float32 "
                       "without");
  if (auto z = dyn_cast<RankedTensorType>(getZ().getType())) {
    if (!isInt8(z.getElementType()) ||
        isa<NoneType>(getZScale().getType()))
      return emitOpError("Z must be an 8-bit integer with Z_scale");
    if (failed(verifyBroadcastsOnto(*this, getZ(), "Z", y)))
      return failure();
  }
  if (auto b = dyn_cast<RankedTensorType>(getB().getType());
      b && (b.getRank() != 1 || !b.getElementType().isF32() ||
            staticMismatch(b.getDimSize(0), w.getDimSize(0))))
    return emitOpError("B must be float32, 1-D, one value per output "
                       "channel");
  return verifyActivation(*this, getActivation());
}

/// amk.qadd and amk.qmul: 8-bit operands of one type broadcasting to Y,
/// one scale and zero point each.
template <typename OpT> static LogicalResult verifyQBinary(OpT op) {
  auto isInt8 = [](Type t) {
    auto i = dyn_cast<IntegerType>(mlir::getElementTypeOrSelf(t));
    return i && i.getWidth() == 8;
  };
  auto scalar = [](Value v, bool f32) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.hasStaticShape() && t.getNumElements() == 1 &&
           (!f32 || t.getElementType().isF32());
  };
  const bool quantOut = !isa<NoneType>(op.getYScale().getType());
  if (!isInt8(op.getA().getType()) || !isInt8(op.getB().getType()) ||
      (quantOut ? !isInt8(op.getY().getType())
                : !op.getY().getType().getElementType().isF32()))
    return op.emitOpError("A and B must be 8-bit integers, Y one with "
                          "Y_scale and float32 without");
  SmallVector<int64_t> shape;
  if (op.getA().getType().getElementType() !=
      op.getB().getType().getElementType())
    return op.emitOpError("A and B must have one element type");
  if (!OpTrait::util::getBroadcastedShape(op.getA().getType().getShape(),
                                          op.getB().getType().getShape(),
                                          shape) ||
      ArrayRef<int64_t>(shape) != op.getY().getType().getShape())
    return op.emitOpError("A and B must broadcast to Y's shape");
  if (!scalar(op.getAScale(), true) || !scalar(op.getBScale(), true) ||
      (quantOut && !scalar(op.getYScale(), true)))
    return op.emitOpError("the scales must be one float32 value each");
  if (!quantOut && !isa<NoneType>(op.getYZeroPoint().getType()))
    return op.emitOpError("a float result has no Y_zero_point");
  for (auto [zp, q] : {std::pair<Value, Value>{op.getAZeroPoint(), op.getA()},
                       std::pair<Value, Value>{op.getBZeroPoint(), op.getB()},
                       std::pair<Value, Value>{op.getYZeroPoint(), op.getY()}})
    if (!isa<NoneType>(zp.getType()) &&
        (!scalar(zp, false) || mlir::getElementTypeOrSelf(zp.getType()) !=
                                   mlir::getElementTypeOrSelf(q.getType())))
      return op.emitOpError("each zero point must be one value of its "
                            "tensor's type");
  if (op.getActivation() != "none" && op.getActivation() != "relu")
    return op.emitOpError() << "activation must be none or relu, not '"
                            << op.getActivation() << "'";
  return success();
}

LogicalResult QAddOp::verify() { return verifyQBinary(*this); }

LogicalResult QMulOp::verify() { return verifyQBinary(*this); }

/// amk.qresize and amk.qaverage_pool: 8-bit X and Y of one rank, one
/// float32 scale and one zero point of its tensor's type on each side.
static LogicalResult verifyQuantEdges(Operation *op, Value x, Value xScale,
                                      Value xZp, Value y, Value yScale,
                                      Value yZp) {
  auto is8 = [](Type t) {
    auto i = dyn_cast<IntegerType>(mlir::getElementTypeOrSelf(t));
    return i && i.getWidth() == 8;
  };
  auto scalar = [](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.hasStaticShape() && t.getNumElements() == 1;
  };
  if (!is8(x.getType()) || !is8(y.getType()))
    return op->emitOpError("X and Y must be 8-bit integers");
  if (cast<ShapedType>(x.getType()).getRank() !=
      cast<ShapedType>(y.getType()).getRank())
    return op->emitOpError("X and Y must have one rank");
  for (Value s : {xScale, yScale})
    if (!scalar(s) || !mlir::getElementTypeOrSelf(s.getType()).isF32())
      return op->emitOpError("the scales must be one float32 value each");
  for (auto [zp, q] :
       {std::pair<Value, Value>{xZp, x}, std::pair<Value, Value>{yZp, y}})
    if (!isa<NoneType>(zp.getType()) &&
        (!scalar(zp) || mlir::getElementTypeOrSelf(zp.getType()) !=
                            mlir::getElementTypeOrSelf(q.getType())))
      return op->emitOpError("each zero point must be one value of its "
                             "tensor's type");
  return success();
}

LogicalResult QResizeOp::verify() {
  if (failed(verifyQuantEdges(*this, getX(), getXScale(), getXZeroPoint(),
                              getY(), getYScale(), getYZeroPoint())))
    return failure();
  if (getAntialias() != 0)
    return emitOpError("antialias is not supported");
  return success();
}

LogicalResult QAveragePoolOp::verify() {
  if (failed(verifyQuantEdges(*this, getX(), getXScale(), getXZeroPoint(),
                              getY(), getYScale(), getYZeroPoint())))
    return failure();
  int64_t rank = getX().getType().getRank();
  if (rank != 3 && rank != 4)
    return emitOpError("X and Y must both be 3-D or 4-D");
  if (auto ks = getKernelShape(); ks && (int64_t)ks->size() != rank - 2)
    return emitOpError("kernel_shape must have one entry per spatial axis");
  return success();
}

LogicalResult QTableOp::verify() {
  auto is8 = [](Type t) {
    auto i = dyn_cast<IntegerType>(mlir::getElementTypeOrSelf(t));
    return i && i.getWidth() == 8;
  };
  auto x = getX().getType(), t = getTable().getType(), y = getY().getType();
  if (!is8(x) || !is8(y))
    return emitOpError("X and Y must be 8-bit integers");
  if (x.getShape() != y.getShape())
    return emitOpError("Y must have X's shape");
  if (t.getRank() != 1 || t.getDimSize(0) != 256 ||
      t.getElementType() != y.getElementType())
    return emitOpError("table must hold 256 values of Y's element type");
  return success();
}

LogicalResult QGemmOp::verify() {
  auto a = getA().getType(), b = getB().getType(), y = getY().getType();
  auto isInt8 = [](Type t) {
    auto i = dyn_cast<IntegerType>(t);
    return i && i.getWidth() == 8;
  };
  if (!isInt8(a.getElementType()) || !isInt8(b.getElementType()))
    return emitOpError("A and B must be 8-bit integers");
  if (a.getRank() < 2 || b.getRank() < 2)
    return emitOpError("A and B must have rank >= 2");
  for (auto [t, perm, name] :
       {std::tuple{a, getPermA(), "perm_a"}, std::tuple{b, getPermB(), "perm_b"}})
    if (perm && !isPermutation(*perm, t.getRank()))
      return emitOpError() << name << " is not a permutation of the "
                           << t.getRank() << " axes of its operand";
  bool quantOut = !isa<NoneType>(getYScale().getType());
  if (quantOut ? !isInt8(y.getElementType()) : !y.getElementType().isF32())
    return emitOpError("Y must be an 8-bit integer with Y_scale, float32 "
                       "without");
  if (auto c = dyn_cast<RankedTensorType>(getC().getType());
      c && !c.getElementType().isF32())
    return emitOpError("C must be float32");
  return verifyActivation(*this, getActivation());
}

LogicalResult WGemmOp::verify() {
  auto a = getA().getType(), b = getB().getType(), y = getY().getType();
  auto bi = dyn_cast<IntegerType>(b.getElementType());
  if (!bi || (bi.getWidth() != 8 && bi.getWidth() != 4))
    return emitOpError("B must be an 8- or 4-bit integer");
  if (!a.getElementType().isF32() || !y.getElementType().isF32())
    return emitOpError("A and Y must be float32");
  if (a.getRank() < 2 || b.getRank() != 2)
    return emitOpError("A must have rank >= 2 and B rank 2");
  if (auto perm = getPermB(); perm && !isPermutation(*perm, 2))
    return emitOpError("perm_b is not a permutation of B's 2 axes");
  int64_t axis = getAxis() < 0 ? getAxis() + 2 : getAxis();
  if (axis < 0 || axis > 1)
    return emitOpError() << "axis " << getAxis() << " is not an axis of B";
  auto s = getBScale().getType();
  if (!s.getElementType().isF32())
    return emitOpError("B_scale must be float32");
  // The getter is unsigned: a negative block_size reads as a huge one.
  if (static_cast<int64_t>(getBlockSize()) < 0)
    return emitOpError("block_size must be >= 0");
  const bool int8Act =
      getActivationBits() == 8 && bi.getWidth() == 4 && getBlockSize() % 8 == 0;
  const bool bf16Act =
      getActivationBits() == 16 && bi.getWidth() == 8 && getBlockSize() == 0;
  if (getActivationBits() != 0 && !int8Act && !bf16Act)
    return emitOpError() << "activation_bits must be 0, 8 with 4-bit "
                            "weights in blocks of a multiple of 8, or 16 "
                            "with 8-bit weights without blocks, not "
                         << getActivationBits();
  if (b.hasStaticShape() && s.hasStaticShape()) {
    SmallVector<int64_t> want;
    if (getBlockSize() > 0) {
      // DequantizeLinear-21: the scale has B's shape with the blocked
      // axis divided (rounded up) by the block size.
      want.assign(b.getShape());
      want[axis] = (want[axis] + getBlockSize() - 1) / getBlockSize();
    } else if (s.getNumElements() != 1) {
      want = {b.getDimSize(axis)};
    }
    auto str = [](ArrayRef<int64_t> shape) {
      std::string out = "[";
      llvm::interleave(
          shape, [&](int64_t d) { out += std::to_string(d); },
          [&] { out += ", "; });
      return out + "]";
    };
    if (!want.empty() && s.getShape() != ArrayRef<int64_t>(want))
      return emitOpError() << "B_scale has shape " << str(s.getShape())
                           << " but B " << str(b.getShape()) << " with axis "
                           << axis << " and block_size " << getBlockSize()
                           << " needs " << str(want);
  }
  if (auto z = dyn_cast<RankedTensorType>(getBZeroPoint().getType());
      z && (z.getElementType() != b.getElementType() ||
            (z.hasStaticShape() && s.hasStaticShape() &&
             z.getShape() != s.getShape())))
    return emitOpError("B_zero_point must have B's type and B_scale's shape");
  auto pb = permuted(b, getPermB());
  if (staticMismatch(a.getShape().back(), pb[0]))
    return emitOpError() << "inner dimensions disagree: " << a.getShape().back()
                         << " vs " << pb[0];
  if (auto c = dyn_cast<RankedTensorType>(getC().getType());
      c && !c.getElementType().isF32())
    return emitOpError("C must be float32");
  return verifyActivation(*this, getActivation());
}

LogicalResult GemmOp::verify() {
  auto a = getA().getType(), b = getB().getType();
  for (auto [t, perm, name] :
       {std::tuple{a, getPermA(), "perm_a"}, std::tuple{b, getPermB(), "perm_b"}})
    if (perm && !isPermutation(*perm, t.getRank()))
      return emitOpError() << name << " is not a permutation of the "
                           << t.getRank() << " axes of its operand";
  if (a.getRank() < 2 || b.getRank() < 2)
    return emitOpError("A and B must have rank >= 2");
  auto pa = permuted(a, getPermA()), pb = permuted(b, getPermB());
  if (staticMismatch(pa.back(), pb[pb.size() - 2]))
    return emitOpError() << "inner dimensions disagree: " << pa.back()
                         << " vs " << pb[pb.size() - 2];
  if (failed(verifyBroadcastsOnto(*this, getC(), "C", getY().getType())))
    return failure();
  return verifyActivation(*this, getActivation());
}

LogicalResult GeluOp::verify() {
  llvm::StringRef a = getApproximate();
  if (a != "none" && a != "tanh" && a != "quick")
    return emitOpError() << "approximate must be none, tanh or quick, got '"
                         << a << "'";
  if (getY().getType() != getX().getType())
    return emitOpError("result type differs from X's");
  return success();
}

LogicalResult LayerNormOp::verify() {
  if (failed(verifyAxisAndType(*this, getAxis(), getX(), getY())))
    return failure();
  return success();
}

LogicalResult AttentionOp::verify() {
  auto q = getQ().getType(), k = getK().getType(), v = getV().getType();
  if (q.getRank() < 2 || k.getRank() < 2 || v.getRank() < 2)
    return emitOpError("Q, K and V must have rank >= 2");
  int64_t kd = getKeyTransposed() ? k.getDimSize(k.getRank() - 2)
                                  : k.getDimSize(k.getRank() - 1);
  int64_t ks = getKeyTransposed() ? k.getDimSize(k.getRank() - 1)
                                  : k.getDimSize(k.getRank() - 2);
  if (staticMismatch(kd, q.getDimSize(q.getRank() - 1)))
    return emitOpError("Q and K disagree on the head dimension");
  if (staticMismatch(ks, v.getDimSize(v.getRank() - 2)))
    return emitOpError("K and V disagree on the sequence length");
  // Grouped heads: Q's head count a multiple of K's and V's.
  if (q.getRank() >= 3 && k.getRank() == q.getRank() &&
      v.getRank() == q.getRank()) {
    int64_t hq = q.getDimSize(q.getRank() - 3);
    for (int64_t hk :
         {k.getDimSize(k.getRank() - 3), v.getDimSize(v.getRank() - 3)})
      if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hk) && hk != 1 &&
          hk != hq && (hk > hq || hq % hk))
        return emitOpError("Q's ")
               << hq << " heads are not a multiple of K's or V's " << hk;
  }
  return success();
}

LogicalResult RopeOp::verify() {
  RankedTensorType x = getX().getType();
  if (getY().getType() != x)
    return emitOpError("the result must have X's type");
  if (!isa<FloatType>(x.getElementType()))
    return emitOpError("X must be a float tensor");
  if (x.getRank() < 1 || ShapedType::isDynamic(x.getDimSize(x.getRank() - 1)) ||
      x.getDimSize(x.getRank() - 1) % 2)
    return emitOpError("X's last axis must be static and even");
  // The tables broadcast to X's shape with the last axis as wide as the
  // form reads: D values (rotate_half) or D / 2 (interleaved pairs).
  SmallVector<int64_t> table(x.getShape());
  if (getInterleaved())
    table.back() /= 2;
  auto tableType = RankedTensorType::get(table, x.getElementType());
  for (auto [v, what] :
       {std::pair(getCos(), "Cos"), std::pair(getSin(), "Sin")}) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() != x.getElementType())
      return emitOpError() << what << " must have X's element type";
    if (t.getRank() < 1 || t.getDimSize(t.getRank() - 1) != table.back())
      return emitOpError() << what << "'s last axis must be " << table.back()
                           << (getInterleaved() ? " (D / 2, interleaved pairs)"
                                                : " (D, rotate_half pairs)");
    if (failed(verifyBroadcastsOnto(*this, v, what, tableType)))
      return failure();
  }
  return success();
}

LogicalResult BiasSoftmaxOp::verify() {
  if (failed(verifyAxisAndType(*this, getAxis(), getX(), getY())))
    return failure();
  return verifyBroadcastsOnto(*this, getBias(), "Bias", getX().getType());
}

LogicalResult FusedElementwiseOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("the body takes ")
           << body.getNumArguments() << " arguments for "
           << getInputs().size() << " inputs";
  for (auto [arg, in] : llvm::zip(body.getArguments(), getInputs()))
    if (arg.getType() != in.getType())
      return emitOpError("body argument types differ from the inputs'");
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("the body must end in amk.yield");
  if (yield.getValue().getType() != getY().getType())
    return emitOpError("yields a value of another type than its result");
  for (Operation &op : body.without_terminator())
    if (!isa<amk::onnx::ONNXDialect>(op.getDialect()) ||
        op.getNumRegions() != 0 || op.getNumResults() != 1)
      return op.emitOpError("cannot be in an amk.fused_elementwise body");
  return success();
}
