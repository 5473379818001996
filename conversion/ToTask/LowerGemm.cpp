//===- LowerGemm.cpp - GEMM -----------------------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: Gemm, MatMul and amk.gemm on the runtime GEMM kernel, constant operands packed K x N (design.md).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "conversion/Passes.h"

#include "transforms/Utils/PassUtils.h"
#include "transforms/Utils/Patterns.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

namespace {
/// How a product reads its operands: transposed reads, or permuted copies
/// for a permutation that moves a batch axis.
struct GemmLayout {
  bool transA = false, transB = false;
  SmallVector<int64_t> copyPermA, copyPermB, aShape, bShape;
};
} // namespace

/// A permutation is free when it keeps the order of the non-unit axes (a
/// view), or a transposed read when it swaps the last two.
static bool applyPerm(ArrayRef<int64_t> perm, SmallVectorImpl<int64_t> &shape,
                      bool &trans) {
  int64_t r = perm.size();
  SmallVector<int64_t> permuted;
  for (int64_t p : perm)
    permuted.push_back(shape[p]);
  auto nonUnitOrder = [&](ArrayRef<int64_t> order) {
    SmallVector<int64_t> v;
    for (int64_t p : order)
      if (shape[p] != 1)
        v.push_back(p);
    return v;
  };
  SmallVector<int64_t> identity = llvm::to_vector(llvm::seq<int64_t>(0, r));
  if (nonUnitOrder(perm) == nonUnitOrder(identity)) {
    shape.assign(permuted);
    trans = false;
    return true;
  }
  for (int64_t i = 0; i < r - 2; ++i)
    if (perm[i] != i)
      return false;
  if (perm[r - 2] == r - 1 && perm[r - 1] == r - 2) {
    trans = true; // The shape stays the stored one.
    return true;
  }
  return false;
}

static GemmLayout gemmLayout(Operation *op) {
  GemmLayout l;
  l.aShape.assign(
      cast<RankedTensorType>(op->getOperand(0).getType()).getShape().begin(),
      cast<RankedTensorType>(op->getOperand(0).getType()).getShape().end());
  l.bShape.assign(
      cast<RankedTensorType>(op->getOperand(1).getType()).getShape().begin(),
      cast<RankedTensorType>(op->getOperand(1).getType()).getShape().end());
  if (isa<amk::onnx::GemmOp>(op)) {
    l.transA = intAttr(op, "transA", 0), l.transB = intAttr(op, "transB", 0);
  } else if (isa<amk::fused::GemmOp>(op)) {
    auto pa = intsAttr(op, "perm_a"), pb = intsAttr(op, "perm_b");
    // A permutation that moves a batch axis (torch's attention reads
    // (seq, batch, d) as batch-major) is materialized by a copy first.
    if (!pa.empty() && !applyPerm(pa, l.aShape, l.transA))
      l.copyPermA = pa;
    if (!pb.empty() && !applyPerm(pb, l.bShape, l.transB))
      l.copyPermB = pb;
    for (auto [perm, shape] : {std::pair(&l.copyPermA, &l.aShape),
                               std::pair(&l.copyPermB, &l.bShape)}) {
      if (perm->empty())
        continue;
      SmallVector<int64_t> permuted;
      for (int64_t p : *perm)
        permuted.push_back((*shape)[p]);
      *shape = permuted;
    }
  }
  return l;
}

/// Whether lowerGemm packs operand 1 into panels: a float32 constant
/// shared by the batch, read in place or transposed.
static bool packsB(Operation *op, const GemmLayout &l) {
  auto at = cast<RankedTensorType>(op->getOperand(0).getType());
  auto bt = cast<RankedTensorType>(op->getOperand(1).getType());
  return at.getElementType().isF32() && bt.getElementType().isF32() &&
         at.getRank() >= 2 && bt.getRank() >= 2 &&
         product(ArrayRef<int64_t>(l.bShape).drop_back(2)) == 1 &&
         l.copyPermB.empty() &&
         op->getOperand(1).getDefiningOp<amk::onnx::ConstantOp>();
}

/// The weights B packed into the kernel's layout: ceil(N/64) contiguous
/// panels of K x 64, transposed if need be, so that the kernel streams
/// them instead of reading 64-float pieces of long rows. Panels of an
/// imported (resource) weight are a resource too, named after it, so that
/// every program compiled in the context shares one copy; when the
/// driver marked the weight (markWeightsReleasedAfterPacking), its
/// imported copy is freed once the panels exist.
/// The name of the resource holding the panels of the resource weight
/// `source` read as K x N (transposed or not): one name per layout, so
/// that every program packing it the same way finds the same panels.
static std::string panelsKey(DenseResourceElementsAttr source, int64_t K,
                             int64_t N, bool transB) {
  return llvm::formatv("{0}.amk_panels_{1}x{2}{3}",
                       source.getRawHandle().getKey(), K, N, transB ? "_t" : "")
      .str();
}

/// The K x N reading of operand 1 of a product that packs it.
static std::pair<int64_t, int64_t> packedKN(Operation *op,
                                            const GemmLayout &l) {
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t N = yt.getDimSize(yt.getRank() - 1);
  int64_t br = l.bShape.size();
  return {l.transB ? l.bShape[br - 1] : l.bShape[br - 2], N};
}

/// The float32 values of the constant weight `b` (`count` of them): read
/// in place from its resource, or from the inline constant, which `hold`
/// keeps alive. Null, with `error` set, when they cannot be read.
static const float *weightData(Value b, int64_t count,
                               std::optional<amk::ref::Tensor> &hold,
                               std::string &error) {
  auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(
      b.getDefiningOp()->getAttr("value"));
  if (!resource) {
    hold = amk::getConstantTensor(b);
    if (!hold)
      error = "cannot read the constant B";
    return hold ? hold->data<float>() : nullptr;
  }
  AsmResourceBlob *source = resource.getRawHandle().getBlob();
  if (!source || source->getData().size() != (size_t)(count * 4)) {
    error = "cannot read the constant B '" +
            resource.getRawHandle().getKey().str() + "': " +
            (source && !source->getData().empty() ? "wrong size"
                                                  : "its data was released");
    return nullptr;
  }
  return reinterpret_cast<const float *>(source->getData().data());
}

/// Weights packed into `type` by `fill` (into zeroed memory): with a key,
/// the resource of that name (another program's, else made now, and then
/// the marked `weights` it was made from are freed:
/// markWeightsReleasedAfterPacking); without one, an attribute.
static FailureOr<ElementsAttr>
packedWeights(MLIRContext *ctx, RankedTensorType type,
              const std::optional<std::string> &key, ArrayRef<Value> weights,
              llvm::function_ref<bool(float *, std::string &)> fill,
              std::string &error) {
  if (key)
    if (DenseResourceElementsAttr cached =
            amk::lookupResourceElements(type, *key))
      return ElementsAttr(cached);
  int64_t n = type.getNumElements();
  if (!key) {
    amk::ref::Tensor packed(amk::ref::DataType::FLOAT, type.getShape());
    std::fill_n(packed.data<float>(), n, 0.f);
    if (!fill(packed.data<float>(), error))
      return failure();
    return packed.toAttr(ctx);
  }
  AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
      n * sizeof(float), /*align=*/64, /*dataIsMutable=*/true);
  float *dst = reinterpret_cast<float *>(blob.getMutableData().data());
  std::fill_n(dst, n, 0.f);
  if (!fill(dst, error))
    return failure();
  DenseResourceElementsAttr result =
      amk::setResourceElements(type, *key, std::move(blob));
  for (Value w : weights)
    if (w.getDefiningOp()->hasAttr(kReleaseAfterPackingAttr))
      amk::releaseResource(
          cast<DenseResourceElementsAttr>(w.getDefiningOp()->getAttr("value")));
  return ElementsAttr(result);
}

static FailureOr<ElementsAttr> packedPanels(Operation *op, Value b, int64_t K,
                                            int64_t N, bool transB,
                                            std::string &error) {
  auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(
      b.getDefiningOp()->getAttr("value"));
  const int64_t P = AMK_GEMM_PANEL, panels = (N + P - 1) / P;
  auto type = RankedTensorType::get({panels * K, P},
                                    Float32Type::get(op->getContext()));
  std::optional<std::string> key;
  if (resource)
    key = panelsKey(resource, K, N, transB);
  return packedWeights(
      op->getContext(), type, key, {b},
      [&](float *dst, std::string &err) {
        std::optional<amk::ref::Tensor> hold;
        const float *src = weightData(b, K * N, hold, err);
        if (!src)
          return false;
        for (int64_t k = 0; k < K; ++k)
          for (int64_t n = 0; n < N; ++n)
            dst[(n / P) * K * P + k * P + n % P] =
                transB ? src[n * K + k] : src[k * N + n];
        return true;
      },
      error);
}

namespace {
/// Mul(act(A x Bg), A x Bu) of two float32 products of one A whose
/// constant weights lowerGemm would pack (K x N each): the gate may carry
/// an epilogue activation (SwiGLU's SiLU, GeGLU's Gelu), the up product
/// none, and neither a bias, an alpha or a beta.
struct GatedPair {
  Operation *gate, *up;
};
} // namespace

/// Whether a pair member's weight is read by it alone: a weight another
/// product packs the usual way must stay until both are packed, which the
/// release marking (by the usual panels' key) does not know.
static bool soleReaderOfWeight(Operation *op) {
  // B, and a weight-only product's scale and zero point.
  unsigned last = isa<amk::fused::WGemmOp>(op) ? 3 : 1;
  for (unsigned i = 1; i <= last; ++i)
    if (!isNoneValue(op->getOperand(i)) && !op->getOperand(i).hasOneUse())
      return false;
  return true;
}

static bool plainProduct(Operation *op, bool allowActivation) {
  if (!isa_and_nonnull<amk::onnx::MatMulOp, amk::fused::GemmOp>(op) ||
      !op->getResult(0).hasOneUse() || !soleReaderOfWeight(op))
    return false;
  if (isa<amk::fused::GemmOp>(op) &&
      (!isNoneValue(op->getOperand(2)) || floatAttr(op, "alpha", 1) != 1 ||
       floatAttr(op, "beta", 1) != 1 ||
       activationCode(strAttr(op, "activation", "none")) < 0 ||
       (!allowActivation && strAttr(op, "activation", "none") != "none")))
    return false;
  GemmLayout l = gemmLayout(op);
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  return packsB(op, l) && l.copyPermA.empty() && !l.transA &&
         yt.getRank() >= 2 && yt.hasStaticShape();
}

static std::optional<GatedPair> gatedPairOf(Operation *mul) {
  if (!isa_and_nonnull<amk::onnx::MulOp>(mul) || mul->getNumOperands() != 2)
    return std::nullopt;
  Operation *x = mul->getOperand(0).getDefiningOp();
  Operation *y = mul->getOperand(1).getDefiningOp();
  if (x == y || mul->getOperand(0).getType() != mul->getResult(0).getType() ||
      mul->getOperand(1).getType() != mul->getResult(0).getType())
    return std::nullopt;
  auto hasAct = [](Operation *op) {
    return isa_and_nonnull<amk::fused::GemmOp, amk::fused::WGemmOp>(op) &&
           strAttr(op, "activation", "none") != "none";
  };
  // The gate is the product with the activation (operand 0 when neither
  // has one: a bilinear gate).
  if (hasAct(y) && !hasAct(x))
    std::swap(x, y);
  if (isa_and_nonnull<amk::fused::WGemmOp>(x)) {
    if (!x->getResult(0).hasOneUse() || !y->getResult(0).hasOneUse() ||
        !soleReaderOfWeight(x) || !soleReaderOfWeight(y) ||
        !wgemmGatedPair(x, y))
      return std::nullopt;
    return GatedPair{x, y};
  }
  if (!plainProduct(x, true) || !plainProduct(y, false) ||
      x->getOperand(0) != y->getOperand(0))
    return std::nullopt;
  auto [kx, nx] = packedKN(x, gemmLayout(x));
  auto [ky, ny] = packedKN(y, gemmLayout(y));
  if (kx != ky || nx != ny)
    return std::nullopt;
  return GatedPair{x, y};
}

static DenseResourceElementsAttr resourceWeight(Operation *product) {
  return dyn_cast_or_null<DenseResourceElementsAttr>(
      product->getOperand(1).getDefiningOp()->getAttr("value"));
}

/// The interleaved panels' resource name when both weights are imported
/// resources: one name per pair and layout, as panelsKey.
static std::optional<std::string> gatedKey(const GatedPair &p) {
  DenseResourceElementsAttr g = resourceWeight(p.gate),
                            u = resourceWeight(p.up);
  if (!g || !u)
    return std::nullopt;
  GemmLayout lg = gemmLayout(p.gate), lu = gemmLayout(p.up);
  auto [K, N] = packedKN(p.gate, lg);
  return llvm::formatv("{0}+{1}.amk_gated_{2}x{3}{4}{5}",
                       g.getRawHandle().getKey(), u.getRawHandle().getKey(), K,
                       N, lg.transB ? "_gt" : "", lu.transB ? "_ut" : "")
      .str();
}

/// Both weights in one set of panels: panel p holds gate columns
/// [32p, 32p + 32) then up columns [32p, 32p + 32) (zero past N), so one
/// pass over A computes both halves of 32 outputs. A weight marked
/// (markWeightsReleasedAfterPacking counts a pair's weights as packed, as
/// the panels of their products would be) is freed once packed: a pair's
/// weights have no other reader (soleReaderOfWeight), and the programs
/// compiled together (a generation's prefill and decode step) run one
/// pipeline and pair the same products, as the pattern does not depend on
/// shapes.
static FailureOr<ElementsAttr> packedGatedPanels(const GatedPair &p,
                                                 std::string &error) {
  GemmLayout lg = gemmLayout(p.gate), lu = gemmLayout(p.up);
  std::pair<int64_t, int64_t> kn = packedKN(p.gate, lg);
  int64_t K = kn.first, N = kn.second;
  const int64_t P = AMK_GEMM_PANEL, H = P / 2, panels = (N + H - 1) / H;
  auto type = RankedTensorType::get({panels * K, P},
                                    Float32Type::get(p.gate->getContext()));
  Value weights[2] = {p.gate->getOperand(1), p.up->getOperand(1)};
  return packedWeights(
      p.gate->getContext(), type, gatedKey(p), weights,
      [&](float *dst, std::string &err) {
        for (int half = 0; half < 2; ++half) {
          std::optional<amk::ref::Tensor> hold;
          const float *w = weightData(weights[half], K * N, hold, err);
          if (!w)
            return false;
          bool t = half ? lu.transB : lg.transB;
          for (int64_t k = 0; k < K; ++k)
            for (int64_t n = 0; n < N; ++n)
              dst[(n / H) * K * P + k * P + half * H + n % H] =
                  t ? w[n * K + k] : w[k * N + n];
        }
        return true;
      },
      error);
}

std::optional<std::string> packedWeightKey(Operation *op) {
  if (!isa<amk::onnx::GemmOp, amk::fused::GemmOp, amk::onnx::MatMulOp>(op))
    return std::nullopt;
  GemmLayout l = gemmLayout(op);
  if (!packsB(op, l))
    return std::nullopt;
  auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(
      op->getOperand(1).getDefiningOp()->getAttr("value"));
  if (!resource)
    return std::nullopt;
  auto [K, N] = packedKN(op, l);
  return panelsKey(resource, K, N, l.transB);
}

LogicalResult Scheduler::lowerGemm(Operation *op) {
  Value a = op->getOperand(0), b = op->getOperand(1);
  Value c = op->getNumOperands() > 2 ? op->getOperand(2) : Value();
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(b.getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  Type ae = at.getElementType();
  if (isa<onnx::MatMulOp>(op) && ae.isInteger() && !ae.isInteger(1) &&
      ae == bt.getElementType()) {
    // Integer products (shape arithmetic, index math) on the EINSUM kernel,
    // which computes in 64-bit integers and wraps in the result's type.
    std::string a = at.getRank() == 1 ? "j" : "...ij";
    std::string b = bt.getRank() == 1 ? "j" : "...jk";
    std::string y =
        std::string(at.getRank() > 1 || bt.getRank() > 1 ? "..." : "") +
        (at.getRank() > 1 ? "i" : "") + (bt.getRank() > 1 ? "k" : "");
    return lowerEinsumEquation(op, a + "," + b + "->" + y);
  }
  if (!ae.isF32() || !bt.getElementType().isF32())
    return unsupported(op, "only float32 and integer MatMul, float32 Gemm, "
                           "and integer Gemm with alpha = beta = 1 "
                           "(amk-decompose-ops) are implemented");
  if (at.getRank() < 2 || bt.getRank() < 2)
    return unsupported(op, "1-D matrix product operands are not "
                           "implemented");
  float alpha = 1, beta = 1;
  int act = AMK_OP_NONE;
  float actA = 0, actB = 0;
  GemmLayout layout = gemmLayout(op);
  bool transA = layout.transA, transB = layout.transB;
  SmallVector<int64_t> &copyPermA = layout.copyPermA,
                       &copyPermB = layout.copyPermB;
  SmallVector<int64_t> &aShape = layout.aShape, &bShape = layout.bShape;
  if (isa<amk::onnx::GemmOp>(op)) {
    alpha = floatAttr(op, "alpha", 1), beta = floatAttr(op, "beta", 1);
  } else if (isa<amk::fused::GemmOp>(op)) {
    alpha = floatAttr(op, "alpha", 1), beta = floatAttr(op, "beta", 1);
    act = activationCode(strAttr(op, "activation", "none"));
    if (act < 0)
      return unsupported(op, "unknown activation");
    actA = floatAttr(op, "activation_alpha", 0);
    actB = floatAttr(op, "activation_beta", 0);
  }
  int64_t ar = aShape.size(), yr = yt.getRank();
  int64_t M = yt.getDimSize(yr - 2), N = yt.getDimSize(yr - 1);
  int64_t K = transA ? aShape[ar - 2] : aShape[ar - 1];
  int64_t batch = product(yt.getShape().drop_back(2));
  int64_t aBatch = product(ArrayRef<int64_t>(aShape).drop_back(2));
  int64_t bBatch = product(ArrayRef<int64_t>(bShape).drop_back(2));
  if ((aBatch != batch && aBatch != 1) || (bBatch != batch && bBatch != 1))
    return unsupported(op, "partially broadcast batch dimensions are not "
                           "implemented");
  auto ai = getTensor(a, op);
  if (failed(ai))
    return failure();
  // The permuted copy of an operand, as a fresh arena tensor.
  auto permutedCopy = [&](int src, RankedTensorType type,
                          ArrayRef<int64_t> perm, ArrayRef<int64_t> shape,
                          StringRef suffix) {
    SmallVector<int64_t> inStrides = contiguousStrides(type.getShape()), from;
    for (int64_t p : perm)
      from.push_back(inStrides[p]);
    int dst = newArenaTensor(
        RankedTensorType::get(shape, type.getElementType()),
        tensors[src].name + suffix.str());
    addCopy(op, src, dst, shape, from, 0, contiguousStrides(shape), 0,
            elemBytes(type.getElementType()), true);
    return dst;
  };
  if (!copyPermA.empty())
    ai = permutedCopy(*ai, at, copyPermA, aShape, ".permuted");
  int bIdx;
  // A constant B (the weights) is packed now into the kernel's layout:
  // ceil(N/64) contiguous panels of K x 64, transposed if need be, so the
  // kernel streams it instead of reading 64-float pieces of long rows.
  bool bPanels = false;
  if (packsB(op, layout)) {
    std::string error;
    FailureOr<ElementsAttr> panels = packedPanels(op, b, K, N, transB, error);
    if (failed(panels))
      return unsupported(op, error);
    auto type = cast<RankedTensorType>(panels->getType());
    bIdx = newConstTensor(type, *panels,
                          amk::onnx::getTensorName(b).str() + ".panels");
    transB = false;
    bPanels = true;
  } else {
    auto bi = getTensor(b, op);
    if (failed(bi))
      return failure();
    bIdx = copyPermB.empty()
               ? *bi
               : permutedCopy(*bi, bt, copyPermB, bShape, ".permuted");
  }
  int biasIdx = -1, biasMode = 0;
  int64_t biasBStride = 0;
  if (!isNoneValue(c)) {
    auto ct = cast<RankedTensorType>(c.getType());
    ArrayRef<int64_t> cs = ct.getShape();
    int64_t cn = ct.getNumElements();
    int64_t cr = cs.size();
    int64_t lastDim = cr ? cs[cr - 1] : 1, prevDim = cr > 1 ? cs[cr - 2] : 1;
    if (cn == 1)
      biasMode = 4;
    else if (lastDim == N && cn == N)
      biasMode = 1;
    else if (lastDim == 1 && prevDim == M && cn == M)
      biasMode = 2;
    else if (lastDim == N && prevDim == M && cn == M * N)
      biasMode = 3;
    else if (lastDim == N && prevDim == M && cn == batch * M * N)
      biasMode = 3, biasBStride = M * N;
    auto ci = getTensor(c, op);
    if (failed(ci))
      return failure();
    biasIdx = *ci;
    if (biasMode == 0) {
      // Any other broadcast (Swin's relative position bias [1, H, L, L]
      // over windows x heads) is expanded once into a per-batch addend.
      auto yt = cast<RankedTensorType>(op->getResult(0).getType());
      ArrayRef<int64_t> ys = yt.getShape();
      int64_t off = (int64_t)ys.size() - cr;
      if (off < 0 || yt.getNumElements() != batch * M * N)
        return unsupported(op, "the addend does not broadcast to the result");
      SmallVector<int64_t> inStrides = contiguousStrides(cs), src;
      for (int64_t d = 0; d < (int64_t)ys.size(); ++d) {
        int64_t id = d - off;
        if (id >= 0 && cs[id] != 1 && cs[id] != ys[d])
          return unsupported(op, "the addend does not broadcast to the result");
        src.push_back(id < 0 || cs[id] == 1 ? 0 : inStrides[id]);
      }
      int expanded =
          newArenaTensor(RankedTensorType::get(ys, ct.getElementType()),
                         tensors[biasIdx].name + ".expanded");
      addCopy(op, biasIdx, expanded, ys, src, 0, contiguousStrides(ys), 0,
              elemBytes(ct.getElementType()), true);
      biasIdx = expanded;
      biasMode = 3, biasBStride = M * N;
    }
  }
  // A shared B with a batched, row-major A is one tall GEMM: fold the
  // batch into M (a (S, 1, D) x (D, N) MatMul would otherwise run S
  // GEMVs, re-reading B each time).
  if (batch > 1 && bBatch == 1 && aBatch == batch && !transA &&
      (biasMode == 0 || biasMode == 1 || biasMode == 4 ||
       (biasMode == 3 && biasBStride == M * N))) {
    M *= batch;
    batch = aBatch = 1;
    biasBStride = 0;
  }
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_GEMM);
  k.slots = {*ai, bIdx, yi, biasIdx, -1};
  k.ip.assign(AMK_GEMM_NUM_IPARAMS, 0);
  k.ip[AMK_GEMM_BATCH] = batch, k.ip[AMK_GEMM_M] = M, k.ip[AMK_GEMM_N] = N,
  k.ip[AMK_GEMM_K] = K;
  k.ip[AMK_GEMM_A_BSTRIDE] = aBatch == 1 ? 0 : M * K;
  k.ip[AMK_GEMM_B_BSTRIDE] = bBatch == 1 ? 0 : K * N;
  k.ip[AMK_GEMM_C_BSTRIDE] = M * N;
  k.ip[AMK_GEMM_LDA] = transA ? M : K;
  k.ip[AMK_GEMM_LDB] = transB ? K : N;
  k.ip[AMK_GEMM_LDC] = N;
  k.ip[AMK_GEMM_TRANS_A] = transA, k.ip[AMK_GEMM_TRANS_B] = transB;
  k.ip[AMK_GEMM_BIAS_MODE] = biasMode;
  k.ip[AMK_GEMM_BIAS_BSTRIDE] = biasBStride;
  k.ip[AMK_GEMM_ACT] = act;
  k.ip[AMK_GEMM_B_PANELS] = bPanels;
  k.fp = {alpha, beta, actA, actB};
  k.rows = batch * M, k.cols = N, k.colTiling = true, k.rowAlign = 8,
  k.colAlign = AMK_GEMM_PANEL;
  // A row split re-reads B in every tile, a column split A.
  k.rowOperandBytes = 4.0 * aBatch * M * K;
  k.colOperandBytes = 4.0 * bBatch * K * N;
  k.flops = 2.0 * batch * M * N * K;
  k.bytes = 4.0 * (aBatch * M * K + bBatch * K * N + batch * M * N);
  int as = *ai, bs = bIdx;
  int64_t aBytes = tensors[as].bytes, bBytes = tensors[bs].bytes;
  int64_t biasBytes = biasIdx >= 0 ? tensors[biasIdx].bytes : 0;
  bool aBatched = aBatch != 1, bBatched = bBatch != 1;
  k.access = [=](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    // Rows of A (flat over batch x M when A is batched and not transposed).
    if (!transA && (aBatched || batch == 1))
      rd.push_back(span(as, r0 * K * 4, r1 * K * 4));
    else
      rd.push_back(whole(as, aBytes));
    if (bBatched && !transB) {
      int64_t b0 = r0 / M, b1 = (r1 - 1) / M + 1;
      rd.push_back(rect(bs, (b0 * K * N + c0) * 4, (c1 - c0) * 4, N * 4,
                        (b1 - b0) * K));
    } else if (bPanels) {
      const int64_t P = AMK_GEMM_PANEL;
      rd.push_back(span(bs, (c0 / P) * K * P * 4,
                        std::min(bBytes, (c1 + P - 1) / P * K * P * 4)));
    } else if (!transB) {
      rd.push_back(rect(bs, c0 * 4, (c1 - c0) * 4, N * 4, K));
    } else {
      rd.push_back(whole(bs, bBytes));
    }
    if (biasIdx >= 0)
      rd.push_back(whole(biasIdx, biasBytes));
    wr.push_back(rect(yi, (r0 * N + c0) * 4, (c1 - c0) * 4, N * 4, r1 - r0));
  };
  return success();
}

void Scheduler::findGatedProducts() {
  if (!opts.fuseGatedProducts)
    return;
  for (Operation &op : func.getBody().front())
    if (std::optional<GatedPair> p = gatedPairOf(&op)) {
      gated[&op] = {p->gate, p->up};
      absorbed.insert(p->gate);
      absorbed.insert(p->up);
    }
}

LogicalResult Scheduler::lowerGated(Operation *mul) {
  GatedProducts pair = gated.lookup(mul);
  if (isa<amk::fused::WGemmOp>(pair.gate))
    return lowerGatedWGemm(mul, pair.gate, pair.up);
  GatedPair p{pair.gate, pair.up};
  std::string error;
  FailureOr<ElementsAttr> panels = packedGatedPanels(p, error);
  if (failed(panels))
    return unsupported(mul, error);
  std::pair<int64_t, int64_t> kn = packedKN(p.gate, gemmLayout(p.gate));
  int64_t K = kn.first, N = kn.second;
  const int64_t P = AMK_GEMM_PANEL;
  int64_t width = (N + P / 2 - 1) / (P / 2) * P; // Both halves, padded.
  auto yt = cast<RankedTensorType>(mul->getResult(0).getType());
  int64_t M = product(yt.getShape().drop_back());
  auto ai = getTensor(p.gate->getOperand(0), mul);
  if (failed(ai))
    return failure();
  int bIdx = newConstTensor(
      cast<RankedTensorType>(panels->getType()), *panels,
      amk::onnx::getTensorName(p.gate->getOperand(1)).str() + ".gated");
  int yi = defineOutput(mul->getResult(0));
  KOp &k = newKOp(mul, AMK_RT_K_GEMM);
  k.slots = {*ai, bIdx, yi, -1, -1};
  k.ip.assign(AMK_GEMM_NUM_IPARAMS + 1, 0);
  k.ip[AMK_GEMM_BATCH] = 1, k.ip[AMK_GEMM_M] = M, k.ip[AMK_GEMM_N] = width,
  k.ip[AMK_GEMM_K] = K;
  k.ip[AMK_GEMM_C_BSTRIDE] = M * N;
  k.ip[AMK_GEMM_LDA] = K, k.ip[AMK_GEMM_LDB] = P, k.ip[AMK_GEMM_LDC] = N;
  k.ip[AMK_GEMM_ACT] =
      isa<amk::fused::GemmOp>(p.gate)
          ? activationCode(strAttr(p.gate, "activation", "none"))
          : AMK_OP_NONE;
  k.ip[AMK_GEMM_B_PANELS] = 1;
  k.ip[AMK_GEMM_GATED] = 1;
  k.fp = {1.f, 1.f, floatAttr(p.gate, "activation_alpha", 0),
          floatAttr(p.gate, "activation_beta", 0)};
  k.rows = M, k.cols = width, k.colTiling = true, k.rowAlign = 8,
  k.colAlign = P;
  k.rowOperandBytes = 4.0 * M * K;
  k.colOperandBytes = 4.0 * K * width;
  k.flops = 2.0 * M * width * K;
  k.bytes = 4.0 * (M * K + K * width + M * N);
  int as = *ai;
  int64_t bBytes = tensors[bIdx].bytes;
  k.access = [=](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(as, r0 * K * 4, r1 * K * 4));
    rd.push_back(span(bIdx, (c0 / P) * K * P * 4,
                      std::min(bBytes, (c1 + P - 1) / P * K * P * 4)));
    // Panel columns [c0, c1) give outputs [c0 / 2, c1 / 2), within N.
    int64_t o0 = c0 / 2, o1 = std::min(N, c1 / 2);
    wr.push_back(rect(yi, (r0 * N + o0) * 4, (o1 - o0) * 4, N * 4, r1 - r0));
  };
  return success();
}

} // namespace amk::totask

uint64_t
amk::markWeightsReleasedAfterPacking(llvm::ArrayRef<ModuleOp> modules) {
  // Per resource: the panels every packing reference makes of it, or ""
  // once some reference reads it otherwise (or packs it another way).
  llvm::StringMap<std::string> panels;
  SmallVector<std::pair<amk::onnx::ConstantOp, StringRef>> candidates;
  auto note = [&](StringRef key, StringRef p) {
    auto [it, fresh] = panels.try_emplace(key, p.str());
    if (!fresh && it->second != p)
      it->second.clear();
  };
  auto blockAll = [&](Attribute a) {
    if (a)
      a.walk([&](DenseResourceElementsAttr r) {
        note(r.getRawHandle().getKey(), "");
      });
  };
  for (ModuleOp m : modules)
    m->walk([&](Operation *op) {
      auto constant = dyn_cast<amk::onnx::ConstantOp>(op);
      auto value = constant ? dyn_cast_or_null<DenseResourceElementsAttr>(
                                  op->getAttr("value"))
                            : nullptr;
      if (!value) {
        blockAll(op->getPropertiesAsAttribute());
        blockAll(op->getDiscardableAttrDictionary());
        return;
      }
      StringRef key = value.getRawHandle().getKey();
      for (OpOperand &use : op->getResult(0).getUses()) {
        std::optional<std::string> p =
            use.getOperandNumber() == 1
                ? totask::packedWeightKey(use.getOwner())
                : std::nullopt;
        if (!p)
          p = totask::wgemmPackedWeightKey(use.getOwner(),
                                           use.getOperandNumber());
        note(key, p ? *p : "");
      }
      candidates.push_back({constant, key});
    });
  uint64_t bytes = 0;
  llvm::StringSet<> counted;
  for (auto [constant, key] : candidates) {
    auto it = panels.find(key);
    if (it == panels.end() || it->second.empty())
      continue;
    constant->setAttr(kReleaseAfterPackingAttr,
                      UnitAttr::get(constant->getContext()));
    if (counted.insert(key).second)
      if (AsmResourceBlob *blob =
              cast<DenseResourceElementsAttr>(constant->getAttr("value"))
                  .getRawHandle()
                  .getBlob())
        bytes += blob->getData().size();
  }
  return bytes;
}
