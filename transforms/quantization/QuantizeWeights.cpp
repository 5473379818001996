//===- QuantizeWeights.cpp - amk-quantize-weights -------------------------===//
//
// Part of AMK. Weight-only quantization of the matrix products' constant
// weights (see Passes.td for the contract).
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"
#include "transforms/quantization/Passes.h"
#include "transforms/quantization/Quantization.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXSchema.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace amk {
#define GEN_PASS_DEF_QUANTIZEWEIGHTS
#include "transforms/quantization/Passes.h.inc"
} // namespace amk

using namespace mlir;
namespace onnx = amk::onnx;
using amk::ref::DataType;

namespace {

class QuantizeWeightsPass
    : public amk::impl::QuantizeWeightsBase<QuantizeWeightsPass> {
public:
  using QuantizeWeightsBase::QuantizeWeightsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (bits != 8 && bits != 4) {
      module.emitError() << "amk-quantize-weights: bits must be 8 or 4, not "
                         << static_cast<int64_t>(bits);
      return signalPassFailure();
    }
    int64_t block = blockSize < 0 ? (bits == 4 ? 32 : 0) : blockSize;
    if (bits == 4 && block == 0) {
      // A whole column on 16 levels loses too much: int4 is blockwise.
      module.emitError("amk-quantize-weights: bits=4 needs block-size > 0 "
                       "(16 levels per whole column lose too much)");
      return signalPassFailure();
    }
    if (block != 0 && (block < 16 || (block & (block - 1)))) {
      module.emitError() << "amk-quantize-weights: block-size must be 0 or a "
                            "power of two >= 16 (DequantizeLinear-21 and "
                            "ONNX Runtime's MatMulNBits), not "
                         << block;
      return signalPassFailure();
    }
    int64_t opset = onnx::kDefaultOpset;
    if (auto d = module->getAttrOfType<DictionaryAttr>(onnx::kOpsetImportAttr))
      if (auto v = d.getAs<IntegerAttr>(onnx::kDefaultDomain))
        opset = v.getInt();
    int64_t need = bits == 4 || block ? 21 : 13;
    if (opset < need) {
      module.emitError(llvm::formatv(
          "amk-quantize-weights: {0} needs DequantizeLinear-{1}; the module "
          "is at opset {2}: normalize it with "
          "amk-normalize-opset{{target-opset={1}}",
          bits == 4 ? "int4" : block ? "blockwise int8" : "per-column int8",
          need, opset));
      return signalPassFailure();
    }
    amk::quant::FreshNames fresh(module);
    SmallVector<Operation *> products;
    module.walk([&](Operation *op) {
      if (isa<onnx::MatMulOp, onnx::GemmOp, amk::fused::GemmOp>(op))
        products.push_back(op);
    });
    int64_t done = 0, bytesBefore = 0, bytesAfter = 0;
    for (Operation *op : products)
      if (succeeded(rewrite(op, block, fresh, bytesBefore, bytesAfter)))
        ++done;
    numProducts = done;
    amk::PassCounters::add(this, "products", done,
                           "matrix products with weights quantized");
    amk::PassCounters::add(this, "weight-bytes-before", bytesBefore,
                           "bytes of the float weights replaced");
    amk::PassCounters::add(this, "weight-bytes-after", bytesAfter,
                           "bytes of their quantized weights and scales");
  }

private:
  /// The product's constant 2-D float weight and whether it is stored
  /// transposed ([N, K]); failure for the products the rewrite leaves.
  static FailureOr<bool> weightLayout(Operation *op) {
    auto at = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!at || !at.getElementType().isF32() || at.getRank() < 2)
      return failure();
    auto w = amk::getConstantTensor(op->getOperand(1));
    if (!w || w->rank() != 2 || w->dtype() != DataType::FLOAT)
      return failure();
    if (auto g = dyn_cast<onnx::GemmOp>(op)) {
      if (g.getTransA() != 0)
        return failure();
      return g.getTransB() != 0;
    }
    if (auto g = dyn_cast<amk::fused::GemmOp>(op)) {
      if (g.getPermA())
        return failure();
      if (auto pb = g.getPermB()) {
        if (pb->size() != 2 || (*pb)[0] != 1)
          return failure();
        return true;
      }
    }
    return false;
  }

  LogicalResult rewrite(Operation *op, int64_t block,
                        amk::quant::FreshNames &fresh,
                        int64_t &bytesBefore, int64_t &bytesAfter) {
    FailureOr<bool> transB = weightLayout(op);
    if (failed(transB))
      return failure();
    Value wv = op->getOperand(1);
    auto w = amk::getConstantTensor(wv);
    int64_t K = *transB ? w->dim(1) : w->dim(0),
            N = *transB ? w->dim(0) : w->dim(1);
    if (K * N < minElements)
      return failure();
    // Groups share a scale (and zero point): a whole column, or a block of
    // `block` consecutive k of one column.
    int64_t kAxis = *transB ? 1 : 0, nAxis = 1 - kAxis;
    int64_t groupsK = block ? (K + block - 1) / block : 1;
    int64_t span = block ? block : K;
    auto at = [&](int64_t k, int64_t n) {
      return *transB ? n * K + k : k * N + n;
    };
    // The scale's shape: B's with the blocked axis divided, or [N].
    SmallVector<int64_t> sShape;
    if (block) {
      sShape.assign(w->shape().begin(), w->shape().end());
      sShape[kAxis] = groupsK;
    } else {
      sShape = {N};
    }
    auto sIndex = [&](int64_t g, int64_t n) {
      if (!block)
        return n;
      return *transB ? n * groupsK + g : g * N + n;
    };
    DataType qt = bits == 8 ? (symmetric ? DataType::INT8 : DataType::UINT8)
                            : (symmetric ? DataType::INT4 : DataType::UINT4);
    int64_t qmin = bits == 8 ? (symmetric ? -128 : 0) : (symmetric ? -8 : 0);
    int64_t qmax = bits == 8 ? (symmetric ? 127 : 255) : (symmetric ? 7 : 15);
    amk::ref::Tensor q(qt, w->shape()), s(DataType::FLOAT, sShape),
        z(qt, sShape);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t g = 0; g < groupsK; ++g) {
        int64_t k0 = g * span, k1 = std::min(K, k0 + span);
        double lo = 0, hi = 0;
        for (int64_t k = k0; k < k1; ++k) {
          double x = w->getDouble(at(k, n));
          lo = std::min(lo, x), hi = std::max(hi, x);
        }
        double scale, zp = 0;
        if (symmetric) {
          // Symmetric on [-qmax, qmax]: -qmin - 1 == qmax keeps zero exact
          // and the range balanced.
          double amax = std::max(-lo, hi);
          scale = amax > 0 ? amax / qmax : 1.0;
        } else {
          scale = hi > lo ? (hi - lo) / (qmax - qmin) : 1.0;
          zp = std::clamp<double>(std::nearbyint(qmin - lo / scale), qmin,
                                  qmax);
        }
        float fs = (float)scale;
        s.setDouble(sIndex(g, n), fs);
        z.setInt(sIndex(g, n), (int64_t)zp);
        for (int64_t k = k0; k < k1; ++k) {
          double x = std::nearbyint(w->getDouble(at(k, n)) / fs) + zp;
          q.setInt(at(k, n), (int64_t)std::clamp<double>(x, qmin, qmax));
        }
      }
    MLIRContext *ctx = op->getContext();
    std::string base = amk::quant::valueName(wv);
    auto initLoc = [&](const std::string &name) {
      return onnx::makeInitializerLoc(ctx, "amk-quantize-weights",
                                      fresh(name));
    };
    OpBuilder b(op);
    Value qv = amk::createConstant(b, initLoc(base + "_quantized"), q);
    Value sv = amk::createConstant(b, initLoc(base + "_scale"), s);
    Value zv = symmetric ? amk::getNoneValue(b, op->getLoc())
                         : amk::createConstant(
                               b, initLoc(base + "_zero_point"), z);
    OperationState st(onnx::makeNodeLoc(ctx, "amk-quantize-weights",
                                        fresh(base + "_DequantizeLinear"),
                                        {fresh(base + "_dequantized")}),
                      "onnx.DequantizeLinear");
    st.addOperands({qv, sv, zv});
    st.addTypes(wv.getType());
    st.addAttribute("axis", b.getI64IntegerAttr(block ? kAxis : nAxis));
    if (block)
      st.addAttribute("block_size", b.getI64IntegerAttr(block));
    Operation *dq = b.create(st);
    op->setOperand(1, dq->getResult(0));
    if (Operation *def = wv.getDefiningOp(); def && def->use_empty())
      def->erase();
    bytesBefore += 4 * K * N;
    bytesAfter += (K * N * bits + 7) / 8 + s.numel() * 4 +
                  (symmetric ? 0 : (s.numel() * bits + 7) / 8);
    return success();
  }
};

} // namespace
