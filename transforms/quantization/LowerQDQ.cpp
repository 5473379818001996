//===- LowerQDQ.cpp - amk-lower-qdq ---------------------------------------===//
//
// Part of AMK. Rewrites the QDQ pattern around a convolution, and ONNX
// QLinearConv, into amk.qconv (see Passes.td for the contract).
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"
#include "transforms/quantization/Passes.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXSchema.h"

#include "reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"

namespace amk {
#define GEN_PASS_DEF_LOWERQDQ
#include "transforms/quantization/Passes.h.inc"
} // namespace amk

using namespace mlir;
namespace onnx = amk::onnx;

namespace {

bool isInt8(Type t) {
  auto s = dyn_cast<ShapedType>(t);
  auto i = s ? dyn_cast<IntegerType>(s.getElementType()) : IntegerType();
  return i && i.getWidth() == 8;
}

/// A one-element constant (or an omitted zero point).
bool isScalarConst(Value v) {
  if (amk::isNone(v))
    return true;
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getNumElements() == 1 &&
         amk::isReadableConstant(v);
}

/// The quantized operand behind a per-tensor DequantizeLinear of an 8-bit
/// tensor: (X, scale, zero point).
std::optional<std::array<Value, 3>> perTensorDQ(Value v) {
  auto dq = v.getDefiningOp<onnx::DequantizeLinearOp>();
  if (!dq || !isInt8(dq.getX().getType()) || !isScalarConst(dq.getXScale()) ||
      !isScalarConst(dq.getXZeroPoint()))
    return std::nullopt;
  return std::array<Value, 3>{dq.getX(), dq.getXScale(), dq.getXZeroPoint()};
}

/// The weights behind a DequantizeLinear of an 8-bit constant, per tensor
/// or per output channel (axis 0).
std::optional<std::array<Value, 3>> weightDQ(Value v) {
  auto dq = v.getDefiningOp<onnx::DequantizeLinearOp>();
  if (!dq || !isInt8(dq.getX().getType()) ||
      !amk::isReadableConstant(dq.getX()) ||
      !amk::isReadableConstant(dq.getXScale()) ||
      (!amk::isNone(dq.getXZeroPoint()) &&
       !amk::isReadableConstant(dq.getXZeroPoint())) ||
      dq.getBlockSize() != 0)
    return std::nullopt;
  auto st = cast<RankedTensorType>(dq.getXScale().getType());
  if (st.getNumElements() != 1) {
    int64_t rank = cast<RankedTensorType>(dq.getX().getType()).getRank();
    int64_t axis = dq.getAxis() < 0 ? dq.getAxis() + rank : dq.getAxis();
    if (axis != 0)
      return std::nullopt;
  }
  return std::array<Value, 3>{dq.getX(), dq.getXScale(), dq.getXZeroPoint()};
}

/// Whether every weight less its zero point (per tensor or per slice
/// along `axis`) fits int8: the integer kernels multiply u8 by s8, so
/// int8 weights and uint8 weights with zero point 128 do; others stay in
/// float rather than fail later in the scheduler.
bool weightsFitInt8(Value w, Value zp, int64_t axis) {
  auto wt = amk::getConstantTensor(w);
  if (!wt)
    return false;
  std::optional<amk::ref::Tensor> zt;
  if (!amk::isNone(zp)) {
    zt = amk::getConstantTensor(zp);
    if (!zt)
      return false;
  }
  int64_t inner = 1, dim = 1;
  if (zt && zt->numel() > 1) {
    dim = wt->shape()[axis];
    for (int64_t d = axis + 1; d < wt->rank(); ++d)
      inner *= wt->shape()[d];
  }
  for (int64_t i = 0; i < wt->numel(); ++i) {
    double z = zt ? zt->getDouble(zt->numel() > 1 ? (i / inner) % dim : 0) : 0;
    double v = wt->getDouble(i) - z;
    if (v < -128 || v > 127)
      return false;
  }
  return true;
}

class LowerQDQPass : public amk::impl::LowerQDQBase<LowerQDQPass> {
public:
  using LowerQDQBase::LowerQDQBase;

  void runOnOperation() override {
    SmallVector<Operation *> convs;
    getOperation().walk([&](Operation *op) {
      if (isa<onnx::ConvOp, amk::fused::ConvOp, onnx::QLinearConvOp,
              onnx::MatMulOp, onnx::GemmOp, amk::fused::GemmOp,
              onnx::QLinearMatMulOp, onnx::MatMulIntegerOp>(op))
        convs.push_back(op);
    });
    if (activationBits != 0 && activationBits != 8 && activationBits != 16) {
      getOperation().emitError()
          << "amk-lower-qdq: activation-bits must be 0, 8 or 16, not "
          << static_cast<int64_t>(activationBits);
      return signalPassFailure();
    }
    int64_t done = 0, qout = 0, gemms = 0;
    if (weightOnly) {
      // ONNX Runtime's 4-bit (and 8-bit) weight format, a contrib op.
      SmallVector<onnx::GenericOp> nbits;
      getOperation().walk([&](onnx::GenericOp g) {
        if (g.getDomain() == "com.microsoft" && g.getOpType() == "MatMulNBits")
          nbits.push_back(g);
      });
      for (onnx::GenericOp g : nbits) {
        std::string why;
        if (succeeded(rewriteMatMulNBits(g, why)))
          ++gemms;
        else
          amk::emitPassRemark(this, g, amk::RemarkKind::Missed, "Float",
                              "com.microsoft.MatMulNBits: " + why);
      }
    }
    for (Operation *op : convs) {
      bool quantOut = false,
           isQLinear = isa<onnx::QLinearConvOp, onnx::QLinearMatMulOp>(op);
      bool isGemm = isa<onnx::MatMulOp, onnx::GemmOp, amk::fused::GemmOp,
                        onnx::QLinearMatMulOp>(op);
      std::string why;
      if (isa<onnx::MatMulIntegerOp>(op)) {
        // Dynamic quantization: a rewrite or nothing (MatMulInteger runs
        // on QGEMM as it is).
        if (succeeded(rewriteDynamicMatMul(op)))
          ++gemms;
        continue;
      }
      LogicalResult r = isa<onnx::QLinearMatMulOp>(op)
                            ? rewriteQLinearMatMul(op)
                        : isQLinear ? rewriteQLinearConv(op)
                        : isGemm    ? rewriteGemm(op, quantOut, why)
                                    : rewriteConv(op, quantOut, why);
      if (succeeded(r)) {
        ++(isGemm ? gemms : done);
        qout += isQLinear || quantOut;
      } else if (!why.empty() &&
                 llvm::any_of(op->getOperands(), [](Value v) {
                   return v.getDefiningOp<onnx::DequantizeLinearOp>();
                 })) {
        // Only ops that read a dequantized value are candidates worth a
        // remark: a float model's convolutions are not.
        amk::emitPassRemark(this, op, amk::RemarkKind::Missed, "Float",
                            onnx::describeOp(op) + ": " + why);
      }
    }
    int64_t adds = 0, muls = 0;
    SmallVector<Operation *> binaries;
    getOperation().walk([&](Operation *op) {
      if (isa<onnx::AddOp, onnx::MulOp>(op))
        binaries.push_back(op);
    });
    for (Operation *op : binaries) {
      bool mul = isa<onnx::MulOp>(op);
      if (succeeded(rewriteBinary(op, mul)))
        ++(mul ? muls : adds);
    }
    int64_t pools = 0;
    SmallVector<onnx::MaxPoolOp> maxPools;
    getOperation().walk([&](onnx::MaxPoolOp m) { maxPools.push_back(m); });
    for (onnx::MaxPoolOp m : maxPools)
      pools += succeeded(rewriteMaxPool(m));
    int64_t concats = 0, moves = 0, tables = 0;
    SmallVector<Operation *> movers;
    getOperation().walk([&](Operation *op) {
      if (isa<onnx::ConcatOp>(op) || movesBytes(op))
        movers.push_back(op);
    });
    for (Operation *op : movers) {
      if (auto c = dyn_cast<onnx::ConcatOp>(op))
        concats += succeeded(rewriteConcat(c));
      else
        moves += succeeded(rewriteMove(op));
    }
    SmallVector<Operation *> avgPools;
    getOperation().walk([&](Operation *op) {
      if (isa<onnx::AveragePoolOp, onnx::GlobalAveragePoolOp>(op))
        avgPools.push_back(op);
    });
    int64_t avgPoolCount = 0;
    for (Operation *op : avgPools)
      avgPoolCount += succeeded(rewriteAveragePool(op));
    int64_t resizes = 0;
    SmallVector<onnx::ResizeOp> resizeOps;
    getOperation().walk([&](onnx::ResizeOp r) { resizeOps.push_back(r); });
    for (onnx::ResizeOp r : resizeOps)
      resizes += succeeded(rewriteResize(r));
    // Last: what the rewrites above consumed is no longer a candidate.
    SmallVector<onnx::QuantizeLinearOp> quants;
    getOperation().walk([&](onnx::QuantizeLinearOp q) { quants.push_back(q); });
    for (onnx::QuantizeLinearOp q : quants)
      tables += succeeded(rewriteTable(q));
    // The DequantizeLinear ops the new ops bypass have no reader left.
    SmallVector<Operation *> dead;
    getOperation().walk([&](onnx::DequantizeLinearOp dq) {
      if (dq->use_empty())
        dead.push_back(dq);
    });
    for (Operation *d : dead)
      d->erase();
    amk::updateSignaturesAndErase(getOperation());
    numConvs = done;
    numGemms = gemms - weightOnlyDone;
    numQOut = qout;
    numMaxPools = pools;
    numAdds = adds;
    numMuls = muls;
    numConcats = concats;
    numMoves = moves;
    numTables = tables;
    numResizes = resizes;
    numAveragePools = avgPoolCount;
    numWeightOnly = weightOnlyDone;
    amk::PassCounters::add(this, "weight-only", weightOnlyDone,
                           "of the matrix products rewritten to amk.wgemm "
                           "(float input, quantized weights)");
    amk::PassCounters::add(this, "gemms", gemms - weightOnlyDone,
                           "matrix products rewritten to amk.qgemm");
    amk::PassCounters::add(this, "convs", done,
                           "convolutions rewritten to amk.qconv");
    amk::PassCounters::add(this, "adds", adds,
                           "DequantizeLinear -> Add -> [Relu ->] "
                           "QuantizeLinear run on the 8-bit values");
    amk::PassCounters::add(this, "muls", muls,
                           "DequantizeLinear -> Mul -> [Relu ->] "
                           "QuantizeLinear run on the 8-bit values");
    amk::PassCounters::add(this, "concats", concats,
                           "DequantizeLinear -> Concat -> QuantizeLinear "
                           "run on the 8-bit values");
    amk::PassCounters::add(this, "data-movement", moves,
                           "shape ops and nearest Resize between "
                           "DequantizeLinear and QuantizeLinear run on the "
                           "8-bit values");
    amk::PassCounters::add(this, "average-pools", avgPoolCount,
                           "DequantizeLinear -> AveragePool or "
                           "GlobalAveragePool -> QuantizeLinear rewritten "
                           "to amk.qaverage_pool");
    amk::PassCounters::add(this, "resizes", resizes,
                           "DequantizeLinear -> linear or cubic Resize -> "
                           "QuantizeLinear rewritten to amk.qresize");
    amk::PassCounters::add(this, "tables", tables,
                           "DequantizeLinear -> elementwise ops -> "
                           "QuantizeLinear run as 256-entry tables");
    amk::PassCounters::add(this, "max-pools", pools,
                           "DequantizeLinear -> MaxPool -> QuantizeLinear "
                           "run on the 8-bit values");
    amk::PassCounters::add(this, "quantized-outputs", qout,
                           "of them with the QuantizeLinear of their result "
                           "absorbed");
  }

private:
  /// DequantizeLinear -> MaxPool -> QuantizeLinear, per tensor, is MaxPool
  /// on the 8-bit values: dequantization is increasing (positive scale),
  /// so the maximum of the dequantized values is the dequantized maximum.
  /// With the same scale and zero point on both sides (ONNX Runtime's
  /// quantizer writes them so) QuantizeLinear(DequantizeLinear(v)) is v
  /// ((v - z) s / s rounds back to v - z) and the pair goes; otherwise the
  /// pair stays on the pooled tensor, a quarter of the elements of a 3x3
  /// stride-2 pool's input. Either way the values are the QDQ graph's
  /// exactly, and the pool reads bytes instead of floats.
  LogicalResult rewriteMaxPool(onnx::MaxPoolOp m) {
    auto dq = perTensorDQ(m.getX());
    if (!dq || m->getNumResults() < 1 || !m->getResult(0).hasOneUse())
      return failure();
    for (unsigned i = 1; i < m->getNumResults(); ++i)
      if (!m->getResult(i).use_empty() &&
          !isa<NoneType>(m->getResult(i).getType()))
        return failure();
    auto sIn = onnx::getSplatValue((*dq)[1]);
    auto zIn = amk::isNone((*dq)[2]) ? std::optional<double>(0)
                                     : onnx::getSplatValue((*dq)[2]);
    auto yt = dyn_cast<RankedTensorType>(m->getResult(0).getType());
    if (!sIn || !zIn || !(*sIn > 0) || !yt)
      return failure();
    auto intType = RankedTensorType::get(
        yt.getShape(), cast<ShapedType>((*dq)[0].getType()).getElementType());
    auto q = absorbedQuantize(m->getResult(0));
    bool identity = false;
    if (q && q.getY().getType() == intType) {
      auto sOut = onnx::getSplatValue(q.getYScale());
      auto zOut = onnx::getSplatValue(q.getYZeroPoint());
      identity = sOut && zOut && *sOut == *sIn && *zOut == *zIn;
    }
    OpBuilder b(m);
    OperationState st(m.getLoc(), m->getName());
    st.addOperands((*dq)[0]);
    st.addAttributes(m->getAttrs());
    st.addTypes(intType);
    for (unsigned i = 1; i < m->getNumResults(); ++i)
      st.addTypes(m->getResult(i).getType());
    Operation *n = b.create(st);
    for (unsigned i = 1; i < m->getNumResults(); ++i)
      m->getResult(i).replaceAllUsesWith(n->getResult(i));
    if (identity) {
      q.getY().replaceAllUsesWith(n->getResult(0));
      q->erase();
    } else {
      OperationState d(m.getLoc(),
                       onnx::DequantizeLinearOp::getOperationName());
      d.addOperands({n->getResult(0), (*dq)[1], (*dq)[2]});
      d.addTypes(yt);
      m->getResult(0).replaceAllUsesWith(b.create(d)->getResult(0));
    }
    m->erase();
    return success();
  }

  /// DequantizeLinear(A) op DequantizeLinear(B) [-> Relu] [->
  /// QuantizeLinear], op Add or Mul, all per tensor, A and B of one 8-bit
  /// type broadcasting to the result (a residual Add in ONNX Runtime's QDQ
  /// layout, or before a LayerNorm in AMK's; a squeeze-and-excitation
  /// scale), is amk.qadd / amk.qmul: one pass over the bytes instead of two
  /// float tensors and a float result (docs/quantization.md).
  LogicalResult rewriteBinary(Operation *op, bool mul) {
    auto a = perTensorDQ(op->getOperand(0)), b = perTensorDQ(op->getOperand(1));
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!a || !b || !yt || !yt.hasStaticShape() || !yt.getElementType().isF32())
      return failure();
    auto at = dyn_cast<RankedTensorType>((*a)[0].getType()),
         bt = dyn_cast<RankedTensorType>((*b)[0].getType());
    SmallVector<int64_t> shape;
    if (!at || !bt || at.getElementType() != bt.getElementType() ||
        !at.hasStaticShape() || !bt.hasStaticShape() ||
        !OpTrait::util::getBroadcastedShape(at.getShape(), bt.getShape(),
                                            shape) ||
        ArrayRef<int64_t>(shape) != yt.getShape())
      return failure();
    Operation *relu = nullptr;
    Value sum = op->getResult(0);
    if (sum.hasOneUse())
      if (auto r = dyn_cast<onnx::ReluOp>(*sum.getUsers().begin()))
        relu = r, sum = r.getY();
    auto q = absorbedQuantize(sum);
    // A float sum (AMK's own QDQ graphs: the residual before a LayerNorm)
    // reads the 8-bit tensors instead of quantizing float ones again, when
    // they exist anyway: an integer op's result, or a QuantizeLinear that
    // other ops read too.
    auto existing = [](Value v) {
      auto qop = v.getDefiningOp<onnx::QuantizeLinearOp>();
      return !qop || !v.hasOneUse();
    };
    if (!q && (!existing((*a)[0]) || !existing((*b)[0])))
      return failure();
    OpBuilder bld(q ? q.getOperation() : sum.getDefiningOp());
    if (!q)
      bld.setInsertionPointAfter(sum.getDefiningOp());
    Value none = amk::getNoneValue(bld, op->getLoc());
    OperationState st(op->getLoc(),
                      mul ? amk::fused::QMulOp::getOperationName()
                          : amk::fused::QAddOp::getOperationName());
    st.addOperands({(*a)[0], (*a)[1], (*a)[2], (*b)[0], (*b)[1], (*b)[2],
                    q ? q.getYScale() : none, q ? q.getYZeroPoint() : none});
    st.addTypes(q ? q.getY().getType() : sum.getType());
    if (relu)
      st.addAttribute("activation", bld.getStringAttr("relu"));
    Operation *n = bld.create(st);
    if (q) {
      q.getY().replaceAllUsesWith(n->getResult(0));
      q->erase();
    } else {
      sum.replaceAllUsesWith(n->getResult(0));
    }
    if (relu)
      relu->erase();
    op->erase();
    return success();
  }

  /// Ops that only move or select elements: on the bytes of a per-tensor
  /// quantized tensor they give what quantizing their float result would
  /// (with the same scale and zero point; a table maps them otherwise).
  /// Nearest Resize is one; tf_crop_and_resize may write a float
  /// extrapolation value, which has no byte.
  static bool movesBytes(Operation *op) {
    if (auto r = dyn_cast<onnx::ResizeOp>(op))
      return r.getMode() == "nearest" &&
             r.getCoordinateTransformationMode() != "tf_crop_and_resize";
    return isa<onnx::ReshapeOp, onnx::TransposeOp, onnx::FlattenOp,
               onnx::SqueezeOp, onnx::UnsqueezeOp, onnx::SliceOp,
               onnx::GatherOp, onnx::ExpandOp, onnx::TileOp, onnx::IdentityOp,
               onnx::DepthToSpaceOp, onnx::SpaceToDepthOp>(op);
  }

  /// Whether QuantizeLinear `q` gives back the bytes DequantizeLinear `dq`
  /// read: the same type, scale and zero point ((v - z) s / s rounds back
  /// to v - z for every 8-bit v).
  static bool sameQuantization(onnx::DequantizeLinearOp dq,
                               onnx::QuantizeLinearOp q) {
    auto zero = [](Value z) {
      return amk::isNone(z) ? std::optional<double>(0) : onnx::getSplatValue(z);
    };
    auto sx = onnx::getSplatValue(dq.getXScale()),
         sy = onnx::getSplatValue(q.getYScale());
    auto zx = zero(dq.getXZeroPoint()), zy = zero(q.getYZeroPoint());
    return getElementTypeOrSelf(dq.getX().getType()) ==
               getElementTypeOrSelf(q.getY().getType()) &&
           sx && sy && zx && zy && *sx == *sy && *zx == *zy;
  }

  /// The values of QuantizeLinear `q` applied to `ops` (elementwise, in
  /// program order) of DequantizeLinear `dq`, for each of the 256 values of
  /// dq's 8-bit input from the lowest: the reference interpreter's own
  /// kernels evaluate them, so a table lookup gives the QDQ graph's values
  /// bit for bit. `last` is the float value q quantizes.
  static std::optional<amk::ref::Tensor> tabulate(onnx::DequantizeLinearOp dq,
                                                  ArrayRef<Operation *> ops,
                                                  Value last,
                                                  onnx::QuantizeLinearOp q) {
    namespace ref = amk::ref;
    auto dt = onnx::getDataType(getElementTypeOrSelf(dq.getX().getType()));
    if (!dt || (*dt != ref::DataType::UINT8 && *dt != ref::DataType::INT8))
      return std::nullopt;
    ref::Tensor in(*dt, {256});
    for (int i = 0; i < 256; ++i) {
      if (*dt == ref::DataType::INT8)
        in.data<int8_t>()[i] = static_cast<int8_t>(i - 128);
      else
        in.data<uint8_t>()[i] = static_cast<uint8_t>(i);
    }
    llvm::DenseMap<Value, ref::RValue> env;
    auto operand = [&](Value v) -> std::optional<ref::RValue> {
      if (amk::isNone(v))
        return ref::RValue::none();
      if (auto it = env.find(v); it != env.end())
        return it->second;
      if (auto c = amk::getConstantTensor(v))
        return ref::RValue(std::move(*c));
      return std::nullopt;
    };
    auto eval = [&](Operation *op, ArrayRef<std::optional<ref::RValue>> ins)
        -> std::optional<ref::RValue> {
      std::vector<ref::RValue> inputs;
      for (const auto &v : ins) {
        if (!v)
          return std::nullopt;
        inputs.push_back(*v);
      }
      auto out = ref::Interpreter::evaluate(op, inputs);
      if (failed(out) || out->size() != 1 || !(*out)[0].isTensor() ||
          (*out)[0].getTensor().numel() != 256)
        return std::nullopt;
      return (*out)[0];
    };
    auto d = eval(dq, {ref::RValue(in), operand(dq.getXScale()),
                       operand(dq.getXZeroPoint())});
    if (!d)
      return std::nullopt;
    env[dq.getY()] = *d;
    for (Operation *op : ops) {
      SmallVector<std::optional<ref::RValue>> ins;
      for (Value v : op->getOperands())
        ins.push_back(operand(v));
      auto r = eval(op, ins);
      if (!r)
        return std::nullopt;
      env[op->getResult(0)] = *r;
    }
    auto y = eval(
        q, {operand(last), operand(q.getYScale()), operand(q.getYZeroPoint())});
    if (!y)
      return std::nullopt;
    return y->getTensor();
  }

  /// amk.qtable of `x` with `table`, shaped as x, elements of the table's
  /// type.
  static Value buildTable(OpBuilder &b, Location loc, Value x,
                          const amk::ref::Tensor &table) {
    Value t = amk::createConstant(b, loc, table);
    auto xt = cast<RankedTensorType>(x.getType());
    auto yt =
        RankedTensorType::get(xt.getShape(), getElementTypeOrSelf(t.getType()));
    OperationState st(loc, amk::fused::QTableOp::getOperationName());
    st.addOperands({x, t});
    st.addTypes(yt);
    return b.create(st)->getResult(0);
  }

  /// The 8-bit tensor behind per-tensor DequantizeLinear `dq`, requantized
  /// to `q`'s scale, zero point and type when they differ.
  static FailureOr<Value> requantized(OpBuilder &b, Location loc,
                                      onnx::DequantizeLinearOp dq,
                                      onnx::QuantizeLinearOp q) {
    if (sameQuantization(dq, q))
      return dq.getX();
    auto table = tabulate(dq, {}, dq.getY(), q);
    if (!table)
      return failure();
    return buildTable(b, loc, dq.getX(), *table);
  }

  /// DequantizeLinear -> Concat -> QuantizeLinear, per tensor: Concat of
  /// the bytes, each input with the output's scale and zero point already
  /// or requantized to them by a table (ONNX Runtime's QLinearConcat).
  LogicalResult rewriteConcat(onnx::ConcatOp c) {
    auto q = absorbedQuantize(c.getResult());
    if (!q)
      return failure();
    SmallVector<onnx::DequantizeLinearOp> dqs;
    for (Value v : c.getInputs()) {
      if (!perTensorDQ(v))
        return failure();
      dqs.push_back(v.getDefiningOp<onnx::DequantizeLinearOp>());
    }
    OpBuilder b(c);
    SmallVector<Value> ins;
    for (onnx::DequantizeLinearOp dq : dqs) {
      auto x = requantized(b, c.getLoc(), dq, q);
      if (failed(x))
        return failure();
      ins.push_back(*x);
    }
    OperationState st(c.getLoc(), c->getName());
    st.addOperands(ins);
    st.addAttributes(c->getAttrs());
    st.addTypes(q.getY().getType());
    Value y = b.create(st)->getResult(0);
    q.getY().replaceAllUsesWith(y);
    q->erase();
    c->erase();
    return success();
  }

  /// DequantizeLinear -> a shape op or nearest Resize -> QuantizeLinear,
  /// per tensor: the op on the bytes, with a table requantizing them
  /// (before the op when it does not shrink the tensor, after otherwise)
  /// when the two sides differ.
  LogicalResult rewriteMove(Operation *op) {
    if (op->getNumResults() != 1 || op->getNumOperands() < 1 ||
        !perTensorDQ(op->getOperand(0)))
      return failure();
    auto dq = op->getOperand(0).getDefiningOp<onnx::DequantizeLinearOp>();
    auto q = absorbedQuantize(op->getResult(0));
    auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    auto xt = cast<RankedTensorType>(dq.getX().getType());
    if (!q || !rt || !xt.hasStaticShape() || !rt.hasStaticShape())
      return failure();
    OpBuilder b(op);
    bool same = sameQuantization(dq, q);
    bool tableFirst = !same && xt.getNumElements() <= rt.getNumElements();
    std::optional<amk::ref::Tensor> table;
    if (!same && !(table = tabulate(dq, {}, dq.getY(), q)))
      return failure();
    Value x =
        tableFirst ? buildTable(b, op->getLoc(), dq.getX(), *table) : dq.getX();
    OperationState st(op->getLoc(), op->getName());
    st.addOperands(x);
    st.addOperands(op->getOperands().drop_front());
    st.addAttributes(op->getAttrs());
    st.addTypes(RankedTensorType::get(rt.getShape(),
                                      getElementTypeOrSelf(x.getType())));
    Value y = b.create(st)->getResult(0);
    if (!same && !tableFirst)
      y = buildTable(b, op->getLoc(), y, *table);
    q.getY().replaceAllUsesWith(y);
    q->erase();
    op->erase();
    return success();
  }

  /// DequantizeLinear -> AveragePool or GlobalAveragePool (1-D or 2-D) ->
  /// QuantizeLinear, per tensor: amk.qaverage_pool on the bytes.
  LogicalResult rewriteAveragePool(Operation *op) {
    Value x = op->getOperand(0), y = op->getResult(0);
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    if (!xt || (xt.getRank() != 3 && xt.getRank() != 4) || !perTensorDQ(x))
      return failure();
    auto dq = x.getDefiningOp<onnx::DequantizeLinearOp>();
    auto q = absorbedQuantize(y);
    if (!q)
      return failure();
    OpBuilder b(q);
    OperationState st(op->getLoc(),
                      amk::fused::QAveragePoolOp::getOperationName());
    st.addOperands({dq.getX(), dq.getXScale(), dq.getXZeroPoint(),
                    q.getYScale(), q.getYZeroPoint()});
    st.addAttributes(op->getAttrs());
    st.addTypes(q.getY().getType());
    Value r = b.create(st)->getResult(0);
    q.getY().replaceAllUsesWith(r);
    q->erase();
    op->erase();
    return success();
  }

  /// DequantizeLinear -> linear or cubic Resize -> QuantizeLinear, per
  /// tensor: amk.qresize, which reads and writes the bytes and
  /// interpolates in float as the float Resize does. Resize-10's
  /// coordinates differ from the later versions' defaults it would read,
  /// and a tf_crop_and_resize extrapolation value has no byte.
  LogicalResult rewriteResize(onnx::ResizeOp r) {
    const amk::onnx::VersionInfo *v = amk::onnx::getVersionInfo(r);
    if (r.getMode() == "nearest" || !v || v->since < 11 ||
        r.getAntialias() != 0 ||
        r.getCoordinateTransformationMode() == "tf_crop_and_resize" ||
        !perTensorDQ(r.getX()))
      return failure();
    auto dq = r.getX().getDefiningOp<onnx::DequantizeLinearOp>();
    auto q = absorbedQuantize(r.getY());
    if (!q)
      return failure();
    OpBuilder b(q);
    OperationState st(r.getLoc(), amk::fused::QResizeOp::getOperationName());
    st.addOperands({dq.getX(), r.getRoi(), r.getScales(), r.getSizes(),
                    dq.getXScale(), dq.getXZeroPoint(), q.getYScale(),
                    q.getYZeroPoint()});
    st.addAttributes(r->getAttrs());
    st.addTypes(q.getY().getType());
    Value y = b.create(st)->getResult(0);
    q.getY().replaceAllUsesWith(y);
    q->erase();
    r->erase();
    return success();
  }

  /// The float elementwise ops a table may absorb: one result per element
  /// of the input, from that element alone (with constant scalars).
  static bool tabulable(Operation *op) {
    static const llvm::StringSet<> names = {"onnx.Relu",
                                            "onnx.LeakyRelu",
                                            "onnx.PRelu",
                                            "onnx.Sigmoid",
                                            "onnx.HardSigmoid",
                                            "onnx.HardSwish",
                                            "onnx.Tanh",
                                            "onnx.Clip",
                                            "onnx.Elu",
                                            "onnx.Selu",
                                            "onnx.Celu",
                                            "onnx.Softplus",
                                            "onnx.Softsign",
                                            "onnx.Mish",
                                            "onnx.Gelu",
                                            "onnx.Erf",
                                            "onnx.Exp",
                                            "onnx.Log",
                                            "onnx.Sqrt",
                                            "onnx.Abs",
                                            "onnx.Neg",
                                            "onnx.Reciprocal",
                                            "onnx.ThresholdedRelu",
                                            "onnx.Shrink",
                                            "onnx.Floor",
                                            "onnx.Ceil",
                                            "onnx.Round",
                                            "onnx.Sign",
                                            "onnx.Sin",
                                            "onnx.Cos",
                                            "onnx.Identity",
                                            "onnx.Add",
                                            "onnx.Sub",
                                            "onnx.Mul",
                                            "onnx.Div",
                                            "onnx.Pow",
                                            "onnx.Max",
                                            "onnx.Min",
                                            "amk.gelu"};
    return op->getNumResults() == 1 && op->getNumRegions() == 0 &&
           names.contains(op->getName().getStringRef());
  }

  /// QuantizeLinear of elementwise float ops (constant scalar operands)
  /// of one per-tensor DequantizeLinear of an 8-bit tensor, or of the
  /// DequantizeLinear itself: the whole chain is a function of one byte,
  /// an amk.qtable (ONNX Runtime's lookup tables for QLinearSigmoid and
  /// QLinearLeakyRelu, for any such chain: Swish's x * sigmoid(x),
  /// HardSwish written out, a requantization). With the same type, scale
  /// and zero point on both sides of a bare pair, the bytes themselves.
  LogicalResult rewriteTable(onnx::QuantizeLinearOp q) {
    if (!isInt8(q.getY().getType()) || !isScalarConst(q.getYScale()) ||
        !isScalarConst(q.getYZeroPoint()))
      return failure();
    onnx::DequantizeLinearOp dq;
    llvm::SmallPtrSet<Operation *, 8> cone;
    SmallVector<Value> work = {q.getX()};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (perTensorDQ(v)) {
        auto d = v.getDefiningOp<onnx::DequantizeLinearOp>();
        if (dq && dq != d)
          return failure();
        dq = d;
        continue;
      }
      Operation *op = v.getDefiningOp();
      if (!op || !tabulable(op) || cone.size() > 32)
        return failure();
      if (!cone.insert(op).second)
        continue;
      for (Value operand : op->getOperands()) {
        auto t = dyn_cast<RankedTensorType>(operand.getType());
        if (amk::isNone(operand) ||
            (t && t.hasStaticShape() && t.getNumElements() == 1 &&
             amk::isReadableConstant(operand)))
          continue;
        work.push_back(operand);
      }
    }
    if (!dq || amk::isReadableConstant(dq.getX()))
      return failure();
    auto xt = cast<RankedTensorType>(dq.getX().getType());
    if (!xt.hasStaticShape() ||
        q.getY().getType() !=
            RankedTensorType::get(xt.getShape(),
                                  getElementTypeOrSelf(q.getY().getType())))
      return failure();
    // Every value inside has the input's shape and no reader outside.
    for (Operation *op : cone) {
      auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!t || t.getShape() != xt.getShape() || !t.getElementType().isF32() ||
          op->getBlock() != q->getBlock())
        return failure();
      for (Operation *user : op->getResult(0).getUsers())
        if (user != q && !cone.contains(user))
          return failure();
    }
    SmallVector<Operation *> ops(cone.begin(), cone.end());
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    OpBuilder b(q);
    Value y;
    if (ops.empty() && sameQuantization(dq, q)) {
      y = dq.getX();
    } else {
      auto table = tabulate(dq, ops, q.getX(), q);
      if (!table)
        return failure();
      y = buildTable(b, q.getLoc(), dq.getX(), *table);
    }
    q.getY().replaceAllUsesWith(y);
    q->erase();
    for (Operation *op : llvm::reverse(ops))
      op->erase();
    return success();
  }

  /// The QuantizeLinear absorbed into an integer op: the only reader of
  /// `result`, quantizing per tensor to 8 bits with a constant scale and
  /// zero point; null otherwise.
  static onnx::QuantizeLinearOp absorbedQuantize(Value result) {
    if (!result.hasOneUse())
      return {};
    auto q = dyn_cast<onnx::QuantizeLinearOp>(*result.getUsers().begin());
    if (q && (!isInt8(q.getY().getType()) || !isScalarConst(q.getYScale()) ||
              amk::isNone(q.getYZeroPoint()) ||
              !isScalarConst(q.getYZeroPoint()) || q.getX() != result))
      return {};
    return q;
  }

  /// Replaces `op` by `st` (built at the absorbed QuantizeLinear `q` when
  /// there is one) and erases what it replaced.
  static void replace(Operation *op, OperationState &st,
                      onnx::QuantizeLinearOp q) {
    OpBuilder b(q ? q.getOperation() : op);
    Operation *n = b.create(st);
    if (q) {
      q.getY().replaceAllUsesWith(n->getResult(0));
      q->erase();
    } else {
      op->getResult(0).replaceAllUsesWith(n->getResult(0));
    }
    op->erase();
  }

  /// A bias operand as a float constant: a DequantizeLinear of int32
  /// constants is folded first. Null when it is neither.
  static Value floatBias(Operation *op, unsigned index) {
    Value bias = op->getOperand(index);
    if (auto dq = bias.getDefiningOp<onnx::DequantizeLinearOp>()) {
      amk::foldOp(dq, 1 << 20);
      bias = op->getOperand(index);
    }
    auto bt = dyn_cast<RankedTensorType>(bias.getType());
    if (!amk::isReadableConstant(bias) || !bt || !bt.getElementType().isF32())
      return {};
    return bias;
  }

  /// The product's attributes on the new amk.qgemm/amk.wgemm: the
  /// weight's scale axis, perm_b for a transposed weight, alpha, beta and
  /// amk.gemm's activation.
  static void addGemmAttrs(OpBuilder &b, OperationState &state,
                           Operation *from, int64_t axis, bool transB,
                           float alpha, float beta) {
    state.addAttribute("axis", b.getI64IntegerAttr(axis));
    if (transB)
      state.addAttribute("perm_b", b.getDenseI64ArrayAttr({1, 0}));
    state.addAttribute("alpha", b.getF32FloatAttr(alpha));
    state.addAttribute("beta", b.getF32FloatAttr(beta));
    for (StringRef name :
         {"activation", "activation_alpha", "activation_beta"})
      if (Attribute attr = from->getAttr(name))
        state.addAttribute(name, attr);
  }

  /// MatMul, Gemm and amk.gemm with a constant 2-D weight whose scale is
  /// per tensor or per output column, and a bias that is none or one
  /// float per column.
  LogicalResult rewriteGemm(Operation *op, bool &quantOut, std::string &why) {
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!yt || !yt.getElementType().isF32() || yt.getRank() < 2)
      return failure();
    bool transB = false;
    float alpha = 1, beta = 1;
    if (auto g = dyn_cast<onnx::GemmOp>(op)) {
      if (g.getTransA() != 0)
        return why = "transA is not implemented on the integer kernels",
               failure();
      transB = g.getTransB() != 0;
      alpha = g.getAlpha().convertToFloat(), beta = g.getBeta().convertToFloat();
    } else if (auto g = dyn_cast<amk::fused::GemmOp>(op)) {
      if (g.getPermA())
        return why = "perm_a is not implemented on the integer kernels",
               failure();
      if (auto pb = g.getPermB()) {
        if (pb->size() != 2 || (*pb)[0] != 1)
          return why = "perm_b must be absent or [1, 0]", failure();
        transB = true;
      }
      alpha = g.getAlpha().convertToFloat(), beta = g.getBeta().convertToFloat();
    }
    if (weightOnly &&
        !op->getOperand(0).getDefiningOp<onnx::DequantizeLinearOp>())
      return rewriteWeightOnly(op, transB, alpha, beta, why);
    auto a = perTensorDQ(op->getOperand(0));
    if (!a)
      return why = "its input is not a per-tensor DequantizeLinear of an "
                   "8-bit tensor",
             failure();
    auto bdq = op->getOperand(1).getDefiningOp<onnx::DequantizeLinearOp>();
    if (!bdq || !isInt8(bdq.getX().getType()) ||
        !amk::isReadableConstant(bdq.getX()) ||
        !amk::isReadableConstant(bdq.getXScale()) ||
        (!amk::isNone(bdq.getXZeroPoint()) &&
         !amk::isReadableConstant(bdq.getXZeroPoint())) ||
        bdq.getBlockSize() != 0 ||
        cast<RankedTensorType>(bdq.getX().getType()).getRank() != 2)
      return why = "its weight is not a DequantizeLinear of 2-D 8-bit "
                   "constants",
             failure();
    auto st = cast<RankedTensorType>(bdq.getXScale().getType());
    int64_t axis = bdq.getAxis() < 0 ? bdq.getAxis() + 2 : bdq.getAxis();
    if (st.getNumElements() != 1 && axis != (transB ? 0 : 1))
      return why = "its weight's scale is neither per tensor nor per output "
                   "column",
             failure();
    if (!weightsFitInt8(bdq.getX(), bdq.getXZeroPoint(), axis))
      return why = "its weights less their zero point do not fit int8",
             failure();
    Value bias;
    if (op->getNumOperands() > 2 && !amk::isNone(op->getOperand(2))) {
      bias = floatBias(op, 2);
      auto bt = bias ? cast<RankedTensorType>(bias.getType()) : nullptr;
      if (!bt || bt.getRank() != 1 || bt.getDimSize(0) != yt.getShape().back())
        return why = "its bias is not one float constant per column",
               failure();
    }
    onnx::QuantizeLinearOp q = absorbedQuantize(op->getResult(0));
    OpBuilder b(q ? q.getOperation() : op);
    Value none = amk::getNoneValue(b, op->getLoc());
    OperationState state(op->getLoc(),
                         amk::fused::QGemmOp::getOperationName());
    state.addOperands({(*a)[0], (*a)[1], (*a)[2], bdq.getX(),
                       bdq.getXScale(), bdq.getXZeroPoint(),
                       bias ? bias : none, q ? q.getYScale() : none,
                       q ? q.getYZeroPoint() : none});
    state.addTypes(q ? q.getY().getType() : yt);
    addGemmAttrs(b, state, op, axis, transB, alpha, beta);
    quantOut = static_cast<bool>(q);
    replace(op, state, q);
    return success();
  }

  /// A product with a float input and a DequantizeLinear of 2-D 8- or
  /// 4-bit constant weights (per tensor, per output column, or in blocks
  /// along the reduction axis): amk.wgemm, the weights staying quantized.
  LogicalResult rewriteWeightOnly(Operation *op, bool transB, float alpha,
                                  float beta, std::string &why) {
    auto yt = cast<RankedTensorType>(op->getResult(0).getType());
    auto at = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    auto bdq = op->getOperand(1).getDefiningOp<onnx::DequantizeLinearOp>();
    if (!bdq)
      return failure(); // A float product: nothing to say.
    if (!at || !at.getElementType().isF32() || at.getRank() < 2)
      return why = "its input is neither a DequantizeLinear nor a float32 "
                   "tensor of rank >= 2",
             failure();
    auto xt = cast<RankedTensorType>(bdq.getX().getType());
    auto et = dyn_cast<IntegerType>(xt.getElementType());
    if (!et || (et.getWidth() != 8 && et.getWidth() != 4) ||
        xt.getRank() != 2 || !amk::isReadableConstant(bdq.getX()) ||
        !amk::isReadableConstant(bdq.getXScale()) ||
        (!amk::isNone(bdq.getXZeroPoint()) &&
         !amk::isReadableConstant(bdq.getXZeroPoint())))
      return why = "its weight is not a DequantizeLinear of 2-D 8- or "
                   "4-bit constants",
             failure();
    auto st = cast<RankedTensorType>(bdq.getXScale().getType());
    if (!st.getElementType().isF32())
      return why = "its weight's scale is not float32", failure();
    int64_t axis = bdq.getAxis() < 0 ? bdq.getAxis() + 2 : bdq.getAxis();
    int64_t nAxis = transB ? 0 : 1;
    if (bdq.getBlockSize() > 0 ? axis == nAxis
                               : st.getNumElements() != 1 && axis != nAxis)
      return why = bdq.getBlockSize() > 0
                       ? "its weight's blocks are not along the reduction "
                         "axis"
                       : "its weight's scale is neither per tensor nor per "
                         "output column",
             failure();
    // The addend: one float constant per column (a bias), or a float
    // tensor of the result's shape (amk.gemm's residual).
    Value bias;
    if (op->getNumOperands() > 2 && !amk::isNone(op->getOperand(2))) {
      Value c = op->getOperand(2);
      auto ct = dyn_cast<RankedTensorType>(c.getType());
      if (ct && ct.getElementType().isF32() && ct.getShape() == yt.getShape() &&
          !amk::isReadableConstant(c) &&
          !c.getDefiningOp<onnx::DequantizeLinearOp>()) {
        bias = c;
      } else {
        bias = floatBias(op, 2);
        auto bt = bias ? cast<RankedTensorType>(bias.getType()) : nullptr;
        if (!bt || bt.getRank() != 1 ||
            bt.getDimSize(0) != yt.getShape().back())
          return why = "its addend is neither one float constant per column "
                       "nor a float tensor of its result's shape",
                 failure();
      }
    }
    OpBuilder b(op);
    Value none = amk::getNoneValue(b, op->getLoc());
    OperationState state(op->getLoc(),
                         amk::fused::WGemmOp::getOperationName());
    state.addOperands({op->getOperand(0), bdq.getX(), bdq.getXScale(),
                       bdq.getXZeroPoint(), bias ? bias : none});
    state.addTypes(yt);
    addGemmAttrs(b, state, op, axis, transB, alpha, beta);
    if (bdq.getBlockSize() > 0)
      state.addAttribute("block_size",
                         b.getI64IntegerAttr(bdq.getBlockSize()));
    const unsigned wBits =
        cast<RankedTensorType>(bdq.getX().getType()).getElementTypeBitWidth();
    // Each mode meets the weights the verifier allows it: int8 activations
    // int4 blocks that start on a word, bf16 ones int8 without blocks.
    if ((activationBits == 8 && bdq.getBlockSize() % 8 == 0 && wBits == 4) ||
        (activationBits == 16 && bdq.getBlockSize() == 0 && wBits == 8))
      state.addAttribute("activation_bits",
                         b.getI64IntegerAttr(activationBits));
    replace(op, state, {});
    ++weightOnlyDone;
    return success();
  }

  int64_t weightOnlyDone = 0;

  /// com.microsoft.MatMulNBits (ONNX Runtime's weight-only format: B as
  /// [N][blocks][block_size * bits / 8] bytes, low bits first; scales per
  /// (column, block); zero points packed the same way, 2^(bits-1) when
  /// absent) with constant weights: amk.wgemm on the unpacked uint4/uint8
  /// weights, [N, K] read through perm_b; at accuracy_level 4, 4-bit
  /// weights meet int8 activations, as in ONNX Runtime.
  LogicalResult rewriteMatMulNBits(onnx::GenericOp g, std::string &why) {
    auto attr = [&](StringRef name) -> int64_t {
      auto a = g.getOnnxAttrs().getAs<IntegerAttr>(name);
      return a ? a.getInt() : -1;
    };
    int64_t K = attr("K"), N = attr("N"), bits = attr("bits"),
            block = attr("block_size");
    if (bits < 0)
      bits = 4;
    auto ins = g.getInputs();
    auto input = [&](unsigned i) {
      return i < ins.size() && !amk::isNone(ins[i]) ? ins[i] : Value();
    };
    if (K <= 0 || N <= 0 || block <= 0 || (bits != 4 && bits != 8))
      return why = "needs K, N, block_size and bits 4 or 8", failure();
    if (g.getOutputs().size() != 1 || ins.size() < 3)
      return why = "expects A, B and scales in, Y out", failure();
    if (input(4))
      return why = "g_idx (act-order) is not implemented", failure();
    Value a = ins[0];
    auto at = dyn_cast<RankedTensorType>(a.getType());
    if (!at || !at.getElementType().isF32() || at.getRank() < 2 ||
        at.getShape().back() != K)
      return why = "A must be float32 of rank >= 2 ending in K", failure();
    auto bt = amk::getConstantTensor(ins[1]);
    auto st = amk::getConstantTensor(ins[2]);
    const int64_t blocks = (K + block - 1) / block,
                  blob = block * bits / 8;
    if (!bt || bt->numel() != N * blocks * blob ||
        bt->dtype() != amk::ref::DataType::UINT8)
      return why = "B must be a constant uint8 [N, blocks, blob]", failure();
    if (!st || st->numel() != N * blocks ||
        st->dtype() != amk::ref::DataType::FLOAT)
      return why = "scales must be N x blocks float32 constants", failure();
    std::optional<amk::ref::Tensor> zt;
    const int64_t zpRow = (blocks * bits + 7) / 8;
    if (Value z = input(3)) {
      zt = amk::getConstantTensor(z);
      if (!zt || zt->dtype() != amk::ref::DataType::UINT8 ||
          zt->numel() != N * zpRow)
        return why = "zero points must be packed uint8 constants (float "
                     "zero points are not implemented)",
               failure();
    }
    Value bias = input(5);
    if (bias && !floatBiasValue(bias, N))
      return why = "its bias is not one float constant per column", failure();
    auto dt = bits == 4 ? amk::ref::DataType::UINT4 : amk::ref::DataType::UINT8;
    amk::ref::Tensor q(dt, {N, K}), s(amk::ref::DataType::FLOAT, {N, blocks}),
        zp(dt, {N, blocks});
    const int64_t mask = (1 << bits) - 1, perByte = 8 / bits;
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t k = 0; k < K; ++k) {
        int64_t j = k / block, i = k % block;
        int64_t byte = bt->getInt((n * blocks + j) * blob + i / perByte);
        q.setInt(n * K + k, (byte >> (bits * (i % perByte))) & mask);
      }
      for (int64_t j = 0; j < blocks; ++j) {
        s.setDouble(n * blocks + j, st->getDouble(n * blocks + j));
        int64_t z = int64_t(1) << (bits - 1);
        if (zt)
          z = (zt->getInt(n * zpRow + j / perByte) >>
               (bits * (j % perByte))) & mask;
        zp.setInt(n * blocks + j, z);
      }
    }
    SmallVector<int64_t> yShape(at.getShape());
    yShape.back() = N;
    auto yt = RankedTensorType::get(yShape, at.getElementType());
    OpBuilder b(g);
    Value none = amk::getNoneValue(b, g.getLoc());
    OperationState state(g.getLoc(), amk::fused::WGemmOp::getOperationName());
    state.addOperands({a, amk::createConstant(b, g.getLoc(), q),
                       amk::createConstant(b, g.getLoc(), s),
                       amk::createConstant(b, g.getLoc(), zp),
                       bias ? bias : none});
    state.addTypes(yt);
    addGemmAttrs(b, state, g, 1, /*transB=*/true, 1.f, 1.f);
    state.addAttribute("block_size", b.getI64IntegerAttr(block));
    // accuracy_level 4: ONNX Runtime computes with int8 activations.
    if (attr("accuracy_level") == 4 && bits == 4 && block % 8 == 0)
      state.addAttribute("activation_bits", b.getI64IntegerAttr(8));
    Operation *w = b.create(state);
    Value out = g.getOutputs()[0];
    if (out.getType() != yt)
      return w->erase(), why = "its result type is not A's shape with N last",
             failure();
    out.replaceAllUsesWith(w->getResult(0));
    g->erase();
    ++weightOnlyDone;
    return success();
  }

  /// Whether `v` is one float32 constant per column (N of them).
  static bool floatBiasValue(Value v, int64_t n) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.getElementType().isF32() && t.getNumElements() == n &&
           amk::getConstantTensor(v);
  }

  /// Conv's attributes (and amk.conv's activation) on the new op.
  static void copyConvAttrs(Operation *from, OperationState &st) {
    for (StringRef name :
         {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides",
          "activation", "activation_alpha", "activation_beta"})
      if (Attribute a = from->getAttr(name))
        st.addAttribute(name, a);
  }

  LogicalResult rewriteConv(Operation *op, bool &quantOut, std::string &why) {
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!yt || !yt.getElementType().isF32())
      return failure();
    auto x = perTensorDQ(op->getOperand(0));
    if (!x)
      return why = "its input is not a per-tensor DequantizeLinear of an "
                   "8-bit tensor",
             failure();
    auto xr = cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
    if (xr != 3 && xr != 4)
      return why = "only 1-D and 2-D convolutions have integer kernels",
             failure();
    auto w = weightDQ(op->getOperand(1));
    if (!w)
      return why = "its weight is not a DequantizeLinear of 8-bit constants "
                   "per tensor or per output channel",
             failure();
    if (!weightsFitInt8((*w)[0], (*w)[2], 0))
      return why = "its weights less their zero point do not fit int8",
             failure();
    Value bias = op->getNumOperands() > 2 ? op->getOperand(2) : Value();
    Value z = op->getNumOperands() > 3 ? op->getOperand(3) : Value();
    std::optional<std::array<Value, 3>> zq;
    if (z && !amk::isNone(z)) {
      zq = perTensorDQ(z);
      if (!zq || z.getType() != op->getResult(0).getType())
        return why = "its residual is not a per-tensor DequantizeLinear of "
                     "an 8-bit tensor of the output's shape",
               failure();
    }
    if (bias && !amk::isNone(bias)) {
      if (auto dq = bias.getDefiningOp<onnx::DequantizeLinearOp>()) {
        // The bias DequantizeLinear of an int32 constant folds to floats.
        amk::foldOp(dq, 1 << 20);
        bias = op->getOperand(2);
      }
      auto bt = dyn_cast<RankedTensorType>(bias.getType());
      if (!amk::isReadableConstant(bias) || !bt || !bt.getElementType().isF32())
        return why = "its bias is not a float constant", failure();
    }
    // The result's only reader quantizing it per tensor to 8 bits is
    // absorbed: the integer kernel requantizes in its epilogue.
    onnx::QuantizeLinearOp q;
    if (op->getResult(0).hasOneUse())
      q = dyn_cast<onnx::QuantizeLinearOp>(*op->getResult(0).getUsers().begin());
    if (q && (!isInt8(q.getY().getType()) || !isScalarConst(q.getYScale()) ||
              !isScalarConst(q.getYZeroPoint()) ||
              amk::isNone(q.getYZeroPoint()) ||
              q.getX() != op->getResult(0)))
      q = {};
    // At the QuantizeLinear when absorbing it: its scale may be defined
    // after the convolution.
    OpBuilder b(q ? q.getOperation() : op);
    Location loc = op->getLoc();
    Value none = amk::getNoneValue(b, loc);
    OperationState st(loc, amk::fused::QConvOp::getOperationName());
    st.addOperands({(*x)[0], (*x)[1], (*x)[2], (*w)[0], (*w)[1], (*w)[2],
                    bias ? bias : none, zq ? (*zq)[0] : none,
                    zq ? (*zq)[1] : none, zq ? (*zq)[2] : none,
                    q ? q.getYScale() : none, q ? q.getYZeroPoint() : none});
    st.addTypes(q ? q.getY().getType() : yt);
    copyConvAttrs(op, st);
    st.addAttribute("axis", b.getI64IntegerAttr(0));
    Operation *qc = b.create(st);
    if (q) {
      q.getY().replaceAllUsesWith(qc->getResult(0));
      q->erase();
    } else {
      op->getResult(0).replaceAllUsesWith(qc->getResult(0));
    }
    quantOut = static_cast<bool>(q);
    op->erase();
    return success();
  }

  /// ONNX Runtime's dynamic quantization: DynamicQuantizeLinear(x) ->
  /// MatMulInteger(x_q, W, x_zp, W_zp) -> Cast(float) -> Mul(., x_scale *
  /// W_scale) is amk.qgemm with A's scale and zero point read at run time
  /// and a float result: the int32 sums never reach memory.
  LogicalResult rewriteDynamicMatMul(Operation *op) {
    auto mm = cast<onnx::MatMulIntegerOp>(op);
    auto dql = mm.getA().getDefiningOp<onnx::DynamicQuantizeLinearOp>();
    if (!dql || mm.getAZeroPoint() != dql.getResult(2) ||
        !amk::isReadableConstant(mm.getB()) ||
        cast<RankedTensorType>(mm.getB().getType()).getRank() != 2 ||
        !mm.getY().hasOneUse() ||
        !weightsFitInt8(mm.getB(), mm.getBZeroPoint(), 1))
      return failure();
    auto cast_ = dyn_cast<onnx::CastOp>(*mm.getY().getUsers().begin());
    if (!cast_ || !cast_.getResult().hasOneUse())
      return failure();
    auto ct = dyn_cast<RankedTensorType>(cast_.getResult().getType());
    if (!ct || !ct.getElementType().isF32())
      return failure();
    auto mul = dyn_cast<onnx::MulOp>(*cast_.getResult().getUsers().begin());
    if (!mul || mul.getResult().getType() != ct)
      return failure();
    Value s = mul.getA() == cast_.getResult() ? mul.getB() : mul.getA();
    auto sm = s.getDefiningOp<onnx::MulOp>();
    if (!sm)
      return failure();
    Value ws = sm.getA() == dql.getResult(1)   ? sm.getB()
               : sm.getB() == dql.getResult(1) ? sm.getA()
                                               : Value();
    auto wst = ws ? dyn_cast<RankedTensorType>(ws.getType()) : nullptr;
    if (!wst || !amk::isReadableConstant(ws) || wst.getNumElements() != 1 ||
        (!amk::isNone(mm.getBZeroPoint()) &&
         cast<RankedTensorType>(mm.getBZeroPoint().getType())
                 .getNumElements() != 1))
      return failure();
    // The bias Add (a constant per column) and a Relu or exact Gelu after
    // it join the epilogue, as amk-fuse-gemm would have done for MatMul.
    Operation *last = mul;
    SmallVector<Operation *> chain = {mul};
    Value bias;
    int64_t n = ct.getShape().back();
    if (last->getResult(0).hasOneUse())
      if (auto add = dyn_cast<onnx::AddOp>(*last->getResult(0).getUsers().begin())) {
        Value other = add.getA() == last->getResult(0) ? add.getB() : add.getA();
        auto bt = dyn_cast<RankedTensorType>(other.getType());
        if (bt && bt.getRank() == 1 && bt.getDimSize(0) == n &&
            bt.getElementType().isF32() && amk::isReadableConstant(other) &&
            add.getResult().getType() == ct) {
          bias = other;
          last = add;
          chain.push_back(add);
        }
      }
    StringRef act = "none";
    if (last->getResult(0).hasOneUse()) {
      Operation *u = *last->getResult(0).getUsers().begin();
      if (isa<onnx::ReluOp>(u))
        act = "relu";
      else if (auto g = dyn_cast<onnx::GeluOp>(u);
               g && g.getApproximate() == "none")
        act = "gelu";
      if (act != "none") {
        last = u;
        chain.push_back(u);
      }
    }
    OpBuilder b(last);
    Value none = amk::getNoneValue(b, op->getLoc());
    Value bz = amk::isNone(mm.getBZeroPoint()) ? none : mm.getBZeroPoint();
    OperationState st(last->getLoc(), amk::fused::QGemmOp::getOperationName());
    st.addOperands({dql.getResult(0), dql.getResult(1), dql.getResult(2),
                    mm.getB(), ws, bz, bias ? bias : none, none, none});
    st.addTypes(ct);
    st.addAttribute("axis", b.getI64IntegerAttr(1));
    if (act != "none")
      st.addAttribute("activation", b.getStringAttr(act));
    Operation *q = b.create(st);
    last->getResult(0).replaceAllUsesWith(q->getResult(0));
    // Erase the replaced chain from its end.
    for (Operation *o : llvm::reverse(chain))
      o->erase();
    if (sm->use_empty())
      sm->erase();
    cast_->erase();
    op->erase();
    return success();
  }

  /// QLinearMatMul with a constant 2-D B (per tensor or per column).
  LogicalResult rewriteQLinearMatMul(Operation *op) {
    auto ql = cast<onnx::QLinearMatMulOp>(op);
    auto bt = dyn_cast<RankedTensorType>(ql.getB().getType());
    auto yt = dyn_cast<RankedTensorType>(ql.getY().getType());
    if (!isInt8(ql.getA().getType()) || !bt || !isInt8(bt) || !yt ||
        !isInt8(yt) || bt.getRank() != 2 ||
        !amk::isReadableConstant(ql.getB()) ||
        !weightsFitInt8(ql.getB(), ql.getBZeroPoint(), 1))
      return failure();
    OpBuilder b(op);
    OperationState st(op->getLoc(), amk::fused::QGemmOp::getOperationName());
    st.addOperands({ql.getA(), ql.getAScale(), ql.getAZeroPoint(), ql.getB(),
                    ql.getBScale(), ql.getBZeroPoint(),
                    amk::getNoneValue(b, op->getLoc()), ql.getYScale(),
                    ql.getYZeroPoint()});
    st.addTypes(yt);
    st.addAttribute("axis", b.getI64IntegerAttr(1));
    replace(op, st, {});
    return success();
  }

  /// QLinearConv: the int32 bias is added to the int32 sums, that is
  /// B * x_scale * w_scale in float.
  LogicalResult rewriteQLinearConv(Operation *op) {
    auto ql = cast<onnx::QLinearConvOp>(op);
    auto xr = cast<RankedTensorType>(ql.getX().getType()).getRank();
    if (!isInt8(ql.getX().getType()) || !isInt8(ql.getW().getType()) ||
        !isInt8(ql.getY().getType()) || (xr != 3 && xr != 4) ||
        !weightsFitInt8(ql.getW(), ql.getWZeroPoint(), 0))
      return failure();
    auto xs = amk::getConstantTensor(ql.getXScale());
    auto ws = amk::getConstantTensor(ql.getWScale());
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value none = amk::getNoneValue(b, loc);
    Value bias = none;
    if (!amk::isNone(ql.getB())) {
      auto bi = amk::getConstantTensor(ql.getB());
      if (!bi || !xs || !ws || xs->numel() != 1)
        return failure();
      amk::ref::Tensor bf(amk::ref::DataType::FLOAT, bi->shape());
      for (int64_t i = 0; i < bi->numel(); ++i)
        bf.data<float>()[i] = static_cast<float>(
            bi->getDouble(i) * xs->getDouble(0) *
            ws->getDouble(ws->numel() == 1 ? 0 : i));
      bias = amk::createConstant(b, loc, bf);
    }
    OperationState st(loc, amk::fused::QConvOp::getOperationName());
    st.addOperands({ql.getX(), ql.getXScale(), ql.getXZeroPoint(), ql.getW(),
                    ql.getWScale(), ql.getWZeroPoint(), bias, none, none,
                    none, ql.getYScale(), ql.getYZeroPoint()});
    st.addTypes(ql.getY().getType());
    copyConvAttrs(op, st);
    st.addAttribute("axis", b.getI64IntegerAttr(0));
    Operation *qc = b.create(st);
    ql.getY().replaceAllUsesWith(qc->getResult(0));
    op->erase();
    return success();
  }
};

} // namespace
