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

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

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
         amk::getConstantTensor(v);
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
      !amk::getConstantTensor(dq.getX()) ||
      !amk::getConstantTensor(dq.getXScale()) ||
      (!amk::isNone(dq.getXZeroPoint()) &&
       !amk::getConstantTensor(dq.getXZeroPoint())) ||
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

class LowerQDQPass : public amk::impl::LowerQDQBase<LowerQDQPass> {
public:
  using LowerQDQBase::LowerQDQBase;

  void runOnOperation() override {
    SmallVector<Operation *> convs;
    getOperation().walk([&](Operation *op) {
      if (isa<onnx::ConvOp, amk::fused::ConvOp, onnx::QLinearConvOp>(op))
        convs.push_back(op);
    });
    int64_t done = 0, qout = 0;
    for (Operation *op : convs) {
      bool quantOut = false;
      std::string why;
      LogicalResult r = isa<onnx::QLinearConvOp>(op)
                            ? rewriteQLinearConv(op)
                            : rewriteConv(op, quantOut, why);
      if (succeeded(r)) {
        ++done;
        qout += isa<onnx::QLinearConvOp>(op) || quantOut;
      } else if (!why.empty()) {
        amk::emitPassRemark(this, op, amk::RemarkKind::Missed, "Float",
                            onnx::describeOp(op) + ": " + why);
      }
    }
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
    numQOut = qout;
    amk::PassCounters::add(this, "convs", done,
                           "convolutions rewritten to amk.qconv");
    amk::PassCounters::add(this, "quantized-outputs", qout,
                           "of them with the QuantizeLinear of their result "
                           "absorbed");
  }

private:
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
    auto w = weightDQ(op->getOperand(1));
    if (!w)
      return why = "its weight is not a DequantizeLinear of 8-bit constants "
                   "per tensor or per output channel",
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
      if (!amk::getConstantTensor(bias) || !bt || !bt.getElementType().isF32())
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

  /// QLinearConv: the int32 bias is added to the int32 sums, that is
  /// B * x_scale * w_scale in float.
  LogicalResult rewriteQLinearConv(Operation *op) {
    auto ql = cast<onnx::QLinearConvOp>(op);
    if (!isInt8(ql.getX().getType()) || !isInt8(ql.getW().getType()) ||
        !isInt8(ql.getY().getType()))
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
