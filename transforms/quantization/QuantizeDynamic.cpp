//===- QuantizeDynamic.cpp - amk-quantize-dynamic -------------------------===//
//
// Part of AMK. Dynamic quantization of the matrix products with constant
// weights (see Passes.td for the contract).
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"
#include "transforms/quantization/Passes.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <cmath>

namespace amk {
#define GEN_PASS_DEF_QUANTIZEDYNAMIC
#include "transforms/quantization/Passes.h.inc"
} // namespace amk

using namespace mlir;
namespace onnx = amk::onnx;

namespace {

class QuantizeDynamicPass
    : public amk::impl::QuantizeDynamicBase<QuantizeDynamicPass> {
public:
  using QuantizeDynamicBase::QuantizeDynamicBase;

  void runOnOperation() override {
    SmallVector<Operation *> products;
    getOperation().walk([&](Operation *op) {
      if (isa<onnx::MatMulOp, onnx::GemmOp, amk::fused::GemmOp>(op))
        products.push_back(op);
    });
    DenseMap<Value, Operation *> quantizedInputs;
    int64_t done = 0;
    for (Operation *op : products)
      done += succeeded(rewrite(op, quantizedInputs));
    amk::updateSignaturesAndErase(getOperation());
    numProducts = done;
    amk::PassCounters::add(this, "products", done,
                           "matrix products quantized dynamically");
  }

private:
  LogicalResult rewrite(Operation *op,
                        DenseMap<Value, Operation *> &quantizedInputs) {
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    auto xt = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!yt || !xt || !yt.getElementType().isF32() ||
        !xt.getElementType().isF32() || !xt.hasStaticShape())
      return failure();
    bool transB = false;
    float alpha = 1, beta = 1;
    if (auto g = dyn_cast<onnx::GemmOp>(op)) {
      if (g.getTransA() != 0)
        return failure();
      transB = g.getTransB() != 0;
      alpha = g.getAlpha().convertToFloat(), beta = g.getBeta().convertToFloat();
    } else if (auto g = dyn_cast<amk::fused::GemmOp>(op)) {
      if (g.getPermA())
        return failure();
      if (auto pb = g.getPermB()) {
        if (pb->size() != 2 || (*pb)[0] != 1)
          return failure();
        transB = true;
      }
      alpha = g.getAlpha().convertToFloat(), beta = g.getBeta().convertToFloat();
    }
    auto w = amk::getConstantTensor(op->getOperand(1));
    if (!w || w->rank() != 2 || w->dtype() != amk::ref::DataType::FLOAT)
      return failure();
    Value bias;
    if (op->getNumOperands() > 2 && !amk::isNone(op->getOperand(2))) {
      bias = op->getOperand(2);
      auto bt = dyn_cast<RankedTensorType>(bias.getType());
      if (!bt || bt.getRank() != 1 || bt.getDimSize(0) != yt.getShape().back() ||
          !amk::getConstantTensor(bias))
        return failure();
    }
    // int8 per output column, symmetric: scale = max|w| / 127.
    int64_t K = transB ? w->shape()[1] : w->shape()[0],
            N = transB ? w->shape()[0] : w->shape()[1];
    amk::ref::Tensor wq(amk::ref::DataType::INT8, w->shape()),
        ws(amk::ref::DataType::FLOAT, {N});
    for (int64_t n = 0; n < N; ++n) {
      double mx = 0;
      for (int64_t k = 0; k < K; ++k)
        mx = std::max(mx, std::fabs(w->getDouble(transB ? n * K + k
                                                        : k * N + n)));
      float s = mx > 0 ? (float)(mx / 127.0) : 1.f;
      ws.data<float>()[n] = s;
      for (int64_t k = 0; k < K; ++k) {
        int64_t i = transB ? n * K + k : k * N + n;
        wq.data<int8_t>()[i] = (int8_t)std::clamp<double>(
            std::nearbyint(w->getDouble(i) / s), -127, 127);
      }
    }
    Value x = op->getOperand(0);
    Operation *&dql = quantizedInputs[x];
    if (!dql) {
      OpBuilder b = x.getDefiningOp() ? OpBuilder(x.getContext())
                                      : OpBuilder::atBlockBegin(
                                            cast<BlockArgument>(x).getOwner());
      if (Operation *def = x.getDefiningOp())
        b.setInsertionPointAfter(def);
      MLIRContext *ctx = op->getContext();
      OperationState st(op->getLoc(), "onnx.DynamicQuantizeLinear");
      st.addOperands(x);
      auto u8 = IntegerType::get(ctx, 8, IntegerType::Unsigned);
      st.addTypes({RankedTensorType::get(xt.getShape(), u8),
                   RankedTensorType::get({}, Float32Type::get(ctx)),
                   RankedTensorType::get({}, u8)});
      dql = b.create(st);
    }
    OpBuilder b(op);
    Value none = amk::getNoneValue(b, op->getLoc());
    Value wqv = amk::createConstant(b, op->getLoc(), wq);
    Value wsv = amk::createConstant(b, op->getLoc(), ws);
    OperationState st(op->getLoc(), amk::fused::QGemmOp::getOperationName());
    st.addOperands({dql->getResult(0), dql->getResult(1), dql->getResult(2),
                    wqv, wsv, none, bias ? bias : none, none, none});
    st.addTypes(yt);
    st.addAttribute("axis", b.getI64IntegerAttr(transB ? 0 : 1));
    if (transB)
      st.addAttribute("perm_b", b.getDenseI64ArrayAttr({1, 0}));
    st.addAttribute("alpha", b.getF32FloatAttr(alpha));
    st.addAttribute("beta", b.getF32FloatAttr(beta));
    for (StringRef name : {"activation", "activation_alpha", "activation_beta"})
      if (Attribute a = op->getAttr(name))
        st.addAttribute(name, a);
    Operation *q = b.create(st);
    op->getResult(0).replaceAllUsesWith(q->getResult(0));
    op->erase();
    return success();
  }
};

} // namespace
