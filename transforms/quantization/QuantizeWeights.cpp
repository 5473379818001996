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
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Threading.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>

namespace amk {
#define GEN_PASS_DEF_QUANTIZEWEIGHTS
#include "transforms/quantization/Passes.h.inc"
} // namespace amk

using namespace mlir;
namespace onnx = amk::onnx;
using amk::ref::DataType;

namespace {

/// The squared error of a block `x` quantized to [qmin, qmax] over the
/// range [l, h], setting that range's scale and zero point (as ONNX
/// dequantizes them). Only the search's estimate: float, rounding half up
/// after the clamp (the weights themselves are rounded to nearest even),
/// and `x` padded with zeros to a multiple of 8 (0 is exact at every
/// candidate: the range holds it and the zero point is whole), so the loop
/// vectorizes.
double blockError(ArrayRef<float> x, double l, double h, int64_t qmin,
                  int64_t qmax, double &scale, double &zp) {
  scale = h > l ? (h - l) / (qmax - qmin) : 1.0;
  zp = std::clamp<double>(std::nearbyint(qmin - l / scale), qmin, qmax);
  const float f = (float)scale, inv = 1.f / f, zf = (float)zp, q0 = (float)qmin,
              q1 = (float)qmax;
  // Eight partial sums: a float reduction does not vectorize in order.
  float part[8] = {};
  const float *v = x.data();
  for (size_t i = 0, m = x.size(); i < m; i += 8)
    for (size_t j = 0; j < 8; ++j) {
      float t = std::min(std::max(v[i + j] * inv + zf, q0), q1);
      float q = (float)(int32_t)(t - q0 + 0.5f) + q0;
      float d = (q - zf) * f - v[i + j];
      part[j] += d * d;
    }
  double err = 0;
  for (float p : part)
    err += p;
  return err;
}

/// Scale and zero point of an unsigned block over [lo, hi] (which holds
/// 0), or with `clipSearch` over that range shrunk from below, above or
/// both, 2% at a time down to 80%, whichever has the least squared error:
/// clipping an outlier can buy the rest of the block finer steps. On the
/// trained decoder's int4 weights: 479 -> 497 of 512 greedy tokens as the
/// float model's (docs/quantization.md); 2% steps down to 60% gave 494.
void fitUnsignedBlock(ArrayRef<float> x, double lo, double hi, int64_t qmin,
                      int64_t qmax, bool clipSearch, double &scale,
                      double &zp) {
  double best = blockError(x, lo, hi, qmin, qmax, scale, zp);
  for (int i = 1; clipSearch && i <= 10; ++i) {
    const double f = 1.0 - 0.02 * i;
    for (int side = 0; side < 3; ++side) {
      double sc, z;
      double e = blockError(x, side != 1 ? lo * f : lo, side != 0 ? hi * f : hi,
                            qmin, qmax, sc, z);
      if (e < best)
        best = e, scale = sc, zp = z;
    }
  }
}

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
    // The type, not the data: a weight another program of the context
    // quantized already is not read again (quantizedResource).
    auto wt = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    if (!wt || wt.getRank() != 2 || !wt.getElementType().isF32() ||
        !wt.hasStaticShape())
      return failure();
    auto cst = op->getOperand(1).getDefiningOp<onnx::ConstantOp>();
    if (!cst || !cst.getValueAttr())
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

  /// Sets element i of zeroed int4 bytes: two per byte, low nibble first,
  /// as ONNX's raw data and getRawBytes have them.
  static void orNibble(char *packed, int64_t i, int64_t v) {
    packed[i / 2] |= static_cast<char>((v & 0xF) << (4 * (i % 2)));
  }

  /// The bytes of `t` as a resource blob holds them (int4 packed).
  static AsmResourceBlob blobOf(const amk::ref::Tensor &t) {
    bool nibbles = t.dtype() == DataType::INT4 || t.dtype() == DataType::UINT4;
    size_t bytes = nibbles ? (t.numel() + 1) / 2 : t.byteSize();
    size_t align = std::max<size_t>(1, amk::ref::elementSize(t.dtype()));
    AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
        std::max<size_t>(bytes, 1), align, /*dataIsMutable=*/true);
    char *out = blob.getMutableData().data();
    if (!nibbles) {
      std::memcpy(out, t.raw(), bytes);
    } else {
      std::fill_n(out, bytes, 0);
      for (int64_t i = 0; i < t.numel(); ++i)
        orNibble(out, i, t.data<uint8_t>()[i]);
    }
    return blob;
  }

  LogicalResult rewrite(Operation *op, int64_t block,
                        amk::quant::FreshNames &fresh,
                        int64_t &bytesBefore, int64_t &bytesAfter) {
    FailureOr<bool> transB = weightLayout(op);
    if (failed(transB))
      return failure();
    Value wv = op->getOperand(1);
    ArrayRef<int64_t> wShape = cast<RankedTensorType>(wv.getType()).getShape();
    int64_t K = *transB ? wShape[1] : wShape[0],
            N = *transB ? wShape[0] : wShape[1];
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
      sShape.assign(wShape.begin(), wShape.end());
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
    MLIRContext *ctx = op->getContext();
    Type qElement = onnx::getElementType(ctx, static_cast<int32_t>(qt));
    auto qType = RankedTensorType::get(wShape, qElement);
    auto sType = RankedTensorType::get(sShape, Float32Type::get(ctx));
    auto zType = RankedTensorType::get(sShape, qElement);

    // An imported weight's quantized form is a resource named after it
    // and the quantization: every program compiled in the context (a
    // decoder's prefill and decode step, a library's variants) shares one
    // copy, and the float weight is not read again once it exists.
    auto resource = dyn_cast<DenseResourceElementsAttr>(
        wv.getDefiningOp<onnx::ConstantOp>().getValueAttr());
    std::string key;
    ElementsAttr qa, sa, za;
    std::optional<amk::ref::Tensor> qT, sT, zT;
    if (resource) {
      // The clip search changes unsigned values, so it is part of the
      // name: a program without it must not share a searched copy.
      key = llvm::formatv(
                "{0}.amk_q{1}{2}_b{3}{4}{5}", resource.getRawHandle().getKey(),
                static_cast<int64_t>(bits), symmetric ? "s" : "u", block,
                !symmetric && clipSearch ? "c" : "", *transB ? "_t" : "")
                .str();
      qa = amk::lookupResourceElements(qType, key + ".data");
      sa = amk::lookupResourceElements(sType, key + ".scale");
      if (!symmetric)
        za = amk::lookupResourceElements(zType, key + ".zero_point");
      if (!qa || !sa || (!symmetric && !za))
        qa = sa = za = nullptr;
    }
    if (!qa) {
      // The float weight is read in place when it is a resource, and the
      // quantized one written straight into its blob: no copy of either
      // (an LM head's float copy alone is a quarter of a small decoder).
      std::optional<amk::ref::Tensor> wCopy;
      const float *src = nullptr;
      if (resource) {
        AsmResourceBlob *blob = resource.getRawHandle().getBlob();
        if (blob && blob->getData().size() == size_t(4 * K * N))
          src = reinterpret_cast<const float *>(blob->getData().data());
      } else {
        wCopy = amk::getConstantTensor(wv);
        if (wCopy && wCopy->dtype() == DataType::FLOAT)
          src = wCopy->data<float>();
      }
      if (!src) {
        // Only a driver that freed the weights too early gets here: say so
        // rather than leave the product for a later, vaguer error.
        if (resource)
          op->emitWarning() << "amk-quantize-weights: the weight '"
                            << resource.getRawHandle().getKey()
                            << "' has no data (freed before quantization); "
                               "the product is left in float";
        return failure();
      }
      const bool nibbles = bits == 4;
      std::optional<amk::ref::Tensor> q;
      AsmResourceBlob qBlob;
      char *qBytes = nullptr;
      if (resource) {
        size_t bytes = nibbles ? (K * N + 1) / 2 : K * N;
        qBlob = HeapAsmResourceBlob::allocate(bytes, /*align=*/1,
                                              /*dataIsMutable=*/true);
        qBytes = qBlob.getMutableData().data();
        std::fill_n(qBytes, bytes, 0);
      } else {
        q.emplace(qt, wShape);
      }
      auto put = [&](int64_t i, int64_t v) {
        if (!qBytes)
          q->setInt(i, v);
        else if (!nibbles)
          qBytes[i] = static_cast<char>(v);
        else
          orNibble(qBytes, i, v);
      };
      amk::ref::Tensor s(DataType::FLOAT, sShape), z(qt, sShape);
      // Columns in parallel, 64 at a time: the clip search is most of the
      // pass's time on a large model. Tasks must not share a byte of the
      // packed 4-bit blob: with an even first column they cannot, unless
      // the weight is [K][N] with N odd (element k * N + 63 and the next
      // task's k * N + 64 then share one when k * N is odd), which runs as
      // one task. The tensors `q`, `s` and `z` hold a value per byte.
      const int64_t kColumns = nibbles && qBytes && !*transB && N % 2 ? N : 64;
      auto columns = [&](int64_t n0, int64_t n1) {
        std::vector<float> blk;
        for (int64_t n = n0; n < n1; ++n)
          for (int64_t g = 0; g < groupsK; ++g) {
            int64_t k0 = g * span, k1 = std::min(K, k0 + span);
            // The block, copied once: a block runs down a column of a
            // row-major weight, so each read is a cache miss of its own.
            // Zeros pad the copy to whole vectors for blockError.
            blk.assign((k1 - k0 + 7) / 8 * 8, 0.f);
            for (int64_t k = k0; k < k1; ++k)
              blk[k - k0] = src[at(k, n)];
            double lo = 0, hi = 0;
            for (int64_t k = k0; k < k1; ++k)
              lo = std::min<double>(lo, blk[k - k0]),
              hi = std::max<double>(hi, blk[k - k0]);
            double scale, zp = 0;
            if (symmetric) {
              // Symmetric on [-qmax, qmax]: -qmin - 1 == qmax keeps zero
              // exact and the range balanced.
              double amax = std::max(-lo, hi);
              scale = amax > 0 ? amax / qmax : 1.0;
            } else {
              fitUnsignedBlock(blk, lo, hi, qmin, qmax, clipSearch, scale, zp);
            }
            float fs = (float)scale;
            s.setDouble(sIndex(g, n), fs);
            z.setInt(sIndex(g, n), (int64_t)zp);
            for (int64_t k = k0; k < k1; ++k) {
              double x = std::nearbyint(double(blk[k - k0]) / fs) + zp;
              put(at(k, n), (int64_t)std::clamp<double>(x, qmin, qmax));
            }
          }
      };
      mlir::parallelFor(
          op->getContext(), 0, (N + kColumns - 1) / kColumns, [&](size_t i) {
            columns(i * kColumns, std::min<int64_t>(N, (i + 1) * kColumns));
          });
      if (resource) {
        qa = amk::setResourceElements(qType, key + ".data", std::move(qBlob));
        sa = amk::setResourceElements(sType, key + ".scale", blobOf(s));
        if (!symmetric)
          za = amk::setResourceElements(zType, key + ".zero_point", blobOf(z));
      } else {
        qT = std::move(q), sT = std::move(s), zT = std::move(z);
      }
    }
    std::string base = amk::quant::valueName(wv);
    OpBuilder b(op);
    auto constant = [&](ElementsAttr value,
                        const std::optional<amk::ref::Tensor> &t,
                        const std::string &name) {
      Location loc =
          onnx::makeInitializerLoc(ctx, "amk-quantize-weights", fresh(name));
      if (t)
        return amk::createConstant(b, loc, *t);
      return onnx::ConstantOp::create(
                 b, loc, TypeRange{value.getType()}, ValueRange{},
                 ArrayRef<NamedAttribute>{b.getNamedAttr("value", value)})
          .getResult();
    };
    Value qv = constant(qa, qT, base + "_quantized");
    Value sv = constant(sa, sT, base + "_scale");
    Value zv = symmetric ? amk::getNoneValue(b, op->getLoc())
                         : constant(za, zT, base + "_zero_point");
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
    int64_t numScales = sType.getNumElements();
    bytesBefore += 4 * K * N;
    bytesAfter += (K * N * bits + 7) / 8 + numScales * 4 +
                  (symmetric ? 0 : (numScales * bits + 7) / 8);
    return success();
  }
};

} // namespace
