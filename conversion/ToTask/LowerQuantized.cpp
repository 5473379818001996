//===- LowerQuantized.cpp - Integer ops ----------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: amk.qconv on QCONV (weights packed
// at compile time for the VNNI layout, the zero-point and scale terms
// folded into per-channel tables), and QuantizeLinear/DequantizeLinear on
// QUANTIZE.
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "conversion/Passes.h"

#include "transforms/Utils/PassUtils.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

namespace {

/// K, N and the rows of A x B (B a 2-D constant, [N, K] when transposed)
/// into Y; why not, when the shapes do not make such a product.
const char *productShape(RankedTensorType at, RankedTensorType yt,
                         std::optional<ArrayRef<int64_t>> bShape, bool transB,
                         int64_t &K, int64_t &N, int64_t &rows) {
  if (!bShape || bShape->size() != 2)
    return "B must be a 2-D constant";
  K = at.getShape().back(), N = transB ? (*bShape)[0] : (*bShape)[1];
  if ((transB ? (*bShape)[1] : (*bShape)[0]) != K || yt.getShape().back() != N)
    return "the shapes of A, B and Y do not agree";
  rows = at.getNumElements() / std::max<int64_t>(K, 1);
  if (yt.getNumElements() != rows * N)
    return "A's batch dimensions must be Y's (B is 2-D)";
  return nullptr;
}

/// The values of a constant operand as doubles (an absent one is {0}).
std::optional<SmallVector<double>> constValues(Value v) {
  SmallVector<double> out;
  if (!v || isNoneValue(v)) {
    out.push_back(0);
    return out;
  }
  auto t = amk::getConstantTensor(v);
  if (!t)
    return std::nullopt;
  for (int64_t i = 0; i < t->numel(); ++i)
    out.push_back(t->getDouble(i));
  return out;
}

/// The per-tensor constant scale and zero point of a quantized result:
/// false when they are not constant, per tensor, or the scale is not a
/// positive finite number.
bool outputQuantization(Value scale, Value zeroPoint,
                        std::optional<SmallVector<double>> &ys,
                        std::optional<SmallVector<double>> &yz) {
  ys = constValues(scale), yz = constValues(zeroPoint);
  return ys && yz && ys->size() == 1 && yz->size() == 1 && (*ys)[0] > 0 &&
         std::isfinite((*ys)[0]);
}

/// Why a weight cannot be multiplied by the u8 x s8 kernels.
std::string weightOutsideInt8(double v) {
  return "a weight less its zero point is outside int8 (" +
         std::to_string((int64_t)v) +
         "); only int8 weights or uint8 weights with zero point 128 are "
         "implemented";
}

constexpr const char *kOutputQuantization =
    "Y's scale and zero point must be constant, per tensor and the scale "
    "positive";

/// The resource behind a constant operand, if it is one.
DenseResourceElementsAttr resourceOf(Value v) {
  auto c = v ? v.getDefiningOp<amk::onnx::ConstantOp>() : nullptr;
  return c ? dyn_cast_or_null<DenseResourceElementsAttr>(c.getValueAttr())
           : nullptr;
}

/// The name of the panels lowerWGemm packs an amk.wgemm's weights into
/// (their tables: `.scale`, `.zero`), when B, its scale and its zero point
/// are resources and alpha is 1, so that every program of the context
/// packing the same weights the same way shares one copy; none otherwise.
std::optional<std::string> wgemmPanelsKey(amk::fused::WGemmOp w) {
  DenseResourceElementsAttr b = resourceOf(w.getB()),
                            s = resourceOf(w.getBScale());
  if (!b || !s || w.getAlpha().convertToDouble() != 1.0)
    return std::nullopt;
  // The scale and zero point are named by a hash of their names: the key
  // stays one printable identifier.
  std::string tables = s.getRawHandle().getKey().str();
  if (!isNoneValue(w.getBZeroPoint())) {
    DenseResourceElementsAttr z = resourceOf(w.getBZeroPoint());
    if (!z)
      return std::nullopt;
    tables += "\n" + z.getRawHandle().getKey().str();
  }
  return llvm::formatv("{0}.amk_wgemm{1}_a{2}_b{3}_{4:x-16}",
                       b.getRawHandle().getKey(), w.getPermB() ? "_t" : "",
                       w.getAxis(), w.getBlockSize(), llvm::xxh3_64bits(tables))
      .str();
}

} // namespace

std::optional<std::string> wgemmPackedWeightKey(Operation *op,
                                                unsigned operand) {
  auto w = dyn_cast<fused::WGemmOp>(op);
  if (!w || operand < 1 || operand > 3)
    return std::nullopt;
  return wgemmPanelsKey(w);
}

LogicalResult Scheduler::lowerQConv(Operation *op) {
  // amk.qconv, or ConvInteger: an int32 result, no scales, X's zero point
  // possibly computed at run time.
  bool integer = isa<amk::onnx::ConvIntegerOp>(op);
  auto q = dyn_cast<fused::QConvOp>(op);
  auto operandOr = [&](unsigned i) {
    return op->getNumOperands() > i ? op->getOperand(i) : Value();
  };
  Value X = op->getOperand(0), Wv = op->getOperand(integer ? 1 : 3),
        Y = op->getResult(0);
  Value xZp = integer ? operandOr(2) : q.getXZeroPoint();
  Value wZp = integer ? operandOr(3) : q.getWZeroPoint();
  auto xt = cast<RankedTensorType>(X.getType());
  auto yt = cast<RankedTensorType>(Y.getType());
  if (xt.getRank() != 4 && xt.getRank() != 3)
    return unsupported(op, "only 1-D and 2-D integer convolution is "
                           "implemented");
  ConvGeometry g = ConvGeometry::of(op, Wv);
  std::optional<SmallVector<double>> xs, ws;
  auto xz = constValues(xZp), wz = constValues(wZp);
  if (integer)
    xs = ws = SmallVector<double>{1.0};
  else
    xs = constValues(q.getXScale()), ws = constValues(q.getWScale());
  // X's zero point computed at run time (ConvInteger after
  // DynamicQuantizeLinear): a scalar the kernel reads.
  Value xzRuntime;
  if (!xz && xZp &&
      cast<RankedTensorType>(xZp.getType()).getNumElements() == 1) {
    xzRuntime = xZp;
    xz = SmallVector<double>{0.0};
  }
  auto w = amk::getConstantTensor(Wv);
  if (!xs || !xz || xs->size() != 1 || xz->size() != 1)
    return unsupported(op, "X's scale and zero point must be constant and "
                           "per tensor");
  if (!w || !ws || !wz)
    return unsupported(op, "W, its scale and zero point must be constants");
  auto perChannel = [&](const SmallVector<double> &v) {
    return v.size() == 1 || (int64_t)v.size() == g.oc;
  };
  if (!perChannel(*ws) || !perChannel(*wz) ||
      ((ws->size() > 1 || wz->size() > 1) && q && q.getAxis() != 0))
    return unsupported(op, "W's scale and zero point must be per tensor or "
                           "per output channel (axis 0)");
  bool quantOut = q && !isNoneValue(q.getYScale());
  std::optional<SmallVector<double>> ys, yz, zs, zz, bias;
  if (quantOut &&
      !outputQuantization(q.getYScale(), q.getYZeroPoint(), ys, yz))
    return unsupported(op, kOutputQuantization);
  bool hasZ = q && !isNoneValue(q.getZ());
  if (hasZ) {
    if (cast<RankedTensorType>(q.getZ().getType()).getShape() !=
        yt.getShape())
      return unsupported(op, "the residual must have the output's shape");
    zs = constValues(q.getZScale()), zz = constValues(q.getZZeroPoint());
    if (!zs || !zz || zs->size() != 1 || zz->size() != 1)
      return unsupported(op, "Z's scale and zero point must be constant and "
                             "per tensor");
  }
  bias = constValues(q ? q.getB() : Value());
  if (!bias || (bias->size() != 1 && (int64_t)bias->size() != g.oc))
    return unsupported(op, "the bias must be a constant");
  int act = q ? activationCode(q.getActivation()) : 0;
  if (act < 0)
    return unsupported(op, "unknown activation");
  if (g.group < 1 || g.c % g.group || g.oc % g.group)
    return unsupported(op, "the channels must divide by the group count");

  // The weights less their zero point must fit int8: the kernels multiply
  // u8 by s8 (uint8 weights with zero point 128 do; others are refused).
  const int64_t K = g.c / g.group * g.kh * g.kw, KD = (K + 3) / 4 * 4;
  SmallVector<int8_t> wv(g.oc * KD, 0);
  for (int64_t o = 0; o < g.oc; ++o)
    for (int64_t k = 0; k < K; ++k) {
      double v = w->getDouble(o * K + k) - (*wz)[wz->size() > 1 ? o : 0];
      if (v < -128 || v > 127)
        return unsupported(op, weightOutsideInt8(v));
      wv[o * KD + k] = (int8_t)v;
    }
  // An int8 input is read as uint8 + 128 (vpdpbusd multiplies unsigned by
  // signed), its zero point moving with it.
  bool xSigned = !cast<IntegerType>(xt.getElementType()).isUnsigned();
  int64_t xzp = (int64_t)(*xz)[0], xzpU = xzp + (xSigned ? 128 : 0);
  amk::ref::Tensor wzT(amk::ref::DataType::INT32, {g.oc}),
      mT(amk::ref::DataType::FLOAT, {g.oc}),
      bT(amk::ref::DataType::FLOAT, {g.oc});
  for (int64_t o = 0; o < g.oc; ++o) {
    int64_t sum = 0;
    for (int64_t k = 0; k < K; ++k)
      sum += wv[o * KD + k];
    // With a run-time zero point the kernel multiplies the sum by it.
    wzT.data<int32_t>()[o] = (int32_t)(xzRuntime ? sum : xzpU * sum);
    mT.data<float>()[o] =
        (float)((*xs)[0] * (*ws)[ws->size() > 1 ? o : 0]);
    bT.data<float>()[o] = (float)(*bias)[bias->size() > 1 ? o : 0];
  }
  // Variant 2 (group 1): direct on a blocked input, reduction order
  // (channel quad, tap, channel in quad); variant 1 (the implicit GEMM,
  // order (channel, tap) in quads) when amk-schedule-megakernel's
  // conv-kernel=im2col asks for it; variant 0 (groups): plain [OC][K].
  int variant = g.group != 1                                ? 0
                : opts.convKernel == amk::ConvKernel::Im2col ? 1
                                                             : 2;
  bool packed = variant != 0;
  const int64_t B = AMK_QCONV_OC_BLOCK, blocks = (g.oc + B - 1) / B;
  const int64_t taps = g.kh * g.kw, c4s = (g.c + 3) / 4;
  const int64_t depth = variant == 2 ? c4s * 4 * taps : KD;
  amk::ref::Tensor wp(amk::ref::DataType::INT8,
                      {packed ? blocks * B : g.oc, depth});
  int8_t *dst = wp.data<int8_t>();
  std::fill_n(dst, wp.numel(), 0);
  for (int64_t o = 0; o < g.oc; ++o)
    for (int64_t k = 0; k < K; ++k) {
      int64_t at;
      if (variant == 2) {
        int64_t c = k / taps, t = k % taps;
        at = ((((o / B) * c4s + c / 4) * taps + t) * B + o % B) * 4 + c % 4;
      } else if (variant == 1) {
        at = ((o / B * (KD / 4) + k / 4) * B + o % B) * 4 + k % 4;
      } else {
        at = o * KD + k;
      }
      dst[at] = wv[o * KD + k];
    }

  MLIRContext *ctx = op->getContext();
  std::string base = amk::onnx::getTensorName(Wv).str();
  auto constOf = [&](const amk::ref::Tensor &t, Type et, StringRef suffix) {
    return newConstTensor(t, et, base + suffix.str());
  };
  Builder b(ctx);
  int wSlot = constOf(wp, b.getIntegerType(8), ".qconv");
  int wzSlot = constOf(wzT, b.getI32Type(), ".qconv_wz");
  int mSlot = constOf(mT, b.getF32Type(), ".qconv_scale");
  int bSlot = constOf(bT, b.getF32Type(), ".qconv_bias");
  auto xi = getTensor(X, op);
  if (failed(xi))
    return failure();
  int xzSlot = -1;
  if (xzRuntime) {
    auto r = getTensor(xzRuntime, op);
    if (failed(r))
      return failure();
    xzSlot = *r;
  }
  int zi = -1;
  if (hasZ) {
    auto r = getTensor(q.getZ(), op);
    if (failed(r))
      return failure();
    zi = *r;
  }
  int yi = defineOutput(Y);
  int64_t yDtype = runtimeDtype(yt.getElementType());
  int64_t yBytes = quantOut ? 1 : 4;
  KOp &k = newKOp(op, AMK_RT_K_QCONV);
  k.variant = variant;
  k.slots = {*xi, wSlot, yi, wzSlot, mSlot, bSlot, zi};
  if (xzSlot >= 0)
    k.slots.push_back(xzSlot);
  k.ip.assign(AMK_QC_NUM_IPARAMS, 0);
  int64_t *ip = k.ip.data();
  ip[AMK_SP_N] = g.n, ip[AMK_SP_C] = g.c, ip[AMK_SP_H] = g.h,
  ip[AMK_SP_W] = g.w, ip[AMK_SP_OC] = g.oc, ip[AMK_SP_KH] = g.kh,
  ip[AMK_SP_KW] = g.kw, ip[AMK_SP_OH] = g.oh, ip[AMK_SP_OW] = g.ow,
  ip[AMK_SP_SH] = g.sh, ip[AMK_SP_SW] = g.sw, ip[AMK_SP_PH] = g.ph,
  ip[AMK_SP_PW] = g.pw, ip[AMK_SP_DH] = g.dh, ip[AMK_SP_DW] = g.dw,
  ip[AMK_SP_GROUP] = g.group, ip[AMK_SP_MODE] = act;
  ip[AMK_QC_X_ZP] = xzp, ip[AMK_QC_X_SIGNED] = xSigned,
  ip[AMK_QC_Y_DTYPE] = yDtype, ip[AMK_QC_Y_ZP] = quantOut ? (*yz)[0] : 0,
  ip[AMK_QC_Z_DTYPE] =
      hasZ ? runtimeDtype(
                 cast<RankedTensorType>(q.getZ().getType()).getElementType())
           : 0,
  ip[AMK_QC_Z_ZP] = hasZ ? (*zz)[0] : 0, ip[AMK_QC_KDEPTH] = depth;
  k.fp.assign(AMK_QC_NUM_FPARAMS, 0);
  k.fp[AMK_QC_ACT_ALPHA] = q ? q.getActivationAlpha().convertToFloat() : 0.f;
  k.fp[AMK_QC_ACT_BETA] = q ? q.getActivationBeta().convertToFloat() : 0.f;
  k.fp[AMK_QC_INV_Y_SCALE] = quantOut ? (float)(1.0 / (*ys)[0]) : 1.f;
  k.fp[AMK_QC_Z_SCALE] = hasZ ? (float)(*zs)[0] : 0.f;
  int64_t P = g.oh * g.ow;
  k.rows = g.n * g.oc;
  // int8 multiply-adds run at four times the float32 rate on VNNI; the
  // cost model counts them as a quarter of a float op each (the grouped
  // variant's 16-bit loops as half).
  k.flops = 2.0 * g.n * g.oc * P * K / (packed ? 4 : 2);
  if (!packed) {
    // Grouped and depthwise layers cost far more than their products: the
    // channel-lane kernel transposes each input and output pixel and the
    // epilogue is per output, 0.3-0.65 ns an output on MobileNetV2's
    // layers (64 flops at the model's 200 GFLOP/s). Counted as products
    // alone, its 7x7 layers (30 us) stayed one task and the other worker
    // waited. Splits on its 16-channel groups.
    k.flops += 64.0 * g.n * g.oc * P;
    k.rowAlign = 16;
  }
  k.bytes = g.n * g.c * g.h * g.w + (double)wp.numel() + yBytes * g.n * g.oc * P;
  if (packed) {
    // Variant 2's column tiles are whole output rows.
    k.cols = P, k.colTiling = true, k.rowAlign = B,
    k.colAlign = variant == 2 ? g.ow : 96;
    k.rowOperandBytes = (double)g.oc * KD;
    k.colOperandBytes = (double)g.n * g.c * g.h * g.w * g.kh * g.kw;
  }
  int64_t wbytes = wp.numel(), C = g.c, H = g.h, W = g.w, OC = g.oc,
          OW = g.ow, KH = g.kh, sh = g.sh, ph = g.ph, dh = g.dh;
  int xs_ = *xi;
  bool cols = packed;
  k.access = [=](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(wSlot, wbytes));
    rd.push_back(whole(wzSlot, OC * 4));
    rd.push_back(whole(mSlot, OC * 4));
    rd.push_back(whole(bSlot, OC * 4));
    if (xzSlot >= 0)
      rd.push_back(whole(xzSlot, 1));
    if (!cols)
      c0 = 0, c1 = P;
    for (int64_t img = r0 / OC; img <= (r1 - 1) / OC; ++img) {
      int64_t m0 = std::max(r0, img * OC) - img * OC,
              m1 = std::min(r1, (img + 1) * OC) - img * OC;
      int64_t oy0 = c0 / OW, oy1 = (c1 - 1) / OW;
      int64_t iy0 = std::max<int64_t>(0, oy0 * sh - ph);
      int64_t iy1 = std::min<int64_t>(H - 1, oy1 * sh - ph + (KH - 1) * dh);
      if (iy1 >= iy0)
        rd.push_back(rect(xs_, (img * C * H + iy0) * W,
                          (iy1 - iy0 + 1) * W, H * W, C));
      wr.push_back(rect(yi, ((img * OC + m0) * P + c0) * yBytes,
                        (c1 - c0) * yBytes, P * yBytes, m1 - m0));
      if (zi >= 0)
        rd.push_back(rect(zi, (img * OC + m0) * P + c0, c1 - c0, P,
                          m1 - m0));
    }
  };
  return success();
}

/// amk.qgemm with a constant 2-D weight: weights less their zero point
/// packed for the VNNI layout, zero-point and scale terms folded into
/// per-column tables as for amk.qconv.
LogicalResult Scheduler::lowerQGemm(Operation *op) {
  // amk.qgemm, or MatMulInteger: an int32 result, no scales, and A's zero
  // point possibly computed at run time (after DynamicQuantizeLinear).
  bool integer = isa<amk::onnx::MatMulIntegerOp>(op);
  auto q = dyn_cast<fused::QGemmOp>(op);
  Value A = op->getOperand(0), B = op->getOperand(integer ? 1 : 3),
        Y = op->getResult(0);
  auto operandOr = [&](unsigned i) {
    return op->getNumOperands() > i ? op->getOperand(i) : Value();
  };
  Value aZp = integer ? operandOr(2) : q.getAZeroPoint();
  Value bZp = integer ? operandOr(3) : q.getBZeroPoint();
  Value none = Value();
  auto at = cast<RankedTensorType>(A.getType());
  auto yt = cast<RankedTensorType>(Y.getType());
  if (q && q.getPermA())
    return unsupported(op, "perm_a is not implemented on the integer "
                           "kernels");
  bool transB = false;
  if (auto pb = q ? q.getPermB() : std::nullopt) {
    if (pb->size() != 2 || (*pb)[0] != 1)
      return unsupported(op, "perm_b must be absent or [1, 0]");
    transB = true;
  }
  auto b = amk::getConstantTensor(B);
  int64_t K, N, rows;
  if (const char *why =
          productShape(at, yt, b ? std::optional(b->shape()) : std::nullopt,
                       transB, K, N, rows))
    return unsupported(op, why);
  std::optional<SmallVector<double>> as, az, bs,
      bz = constValues(bZp ? bZp : none);
  if (integer) {
    as = SmallVector<double>{1.0}, bs = SmallVector<double>{1.0};
    az = constValues(aZp ? aZp : none);
  } else {
    as = constValues(q.getAScale()), az = constValues(aZp);
    bs = constValues(q.getBScale());
  }
  // A scale and zero point computed at run time (DynamicQuantizeLinear):
  // scalars the kernel reads.
  Value azRuntime, asRuntime;
  if (!az && aZp &&
      cast<RankedTensorType>(aZp.getType()).getNumElements() == 1) {
    azRuntime = aZp;
    az = SmallVector<double>{0.0};
  }
  if (!as && q &&
      cast<RankedTensorType>(q.getAScale().getType()).getNumElements() == 1 &&
      cast<RankedTensorType>(q.getAScale().getType())
          .getElementType()
          .isF32()) {
    asRuntime = q.getAScale();
    as = SmallVector<double>{1.0};
  }
  if (!as || !az || as->size() != 1 || az->size() != 1)
    return unsupported(op, "A's scale and zero point must be per tensor "
                           "(the scale constant)");
  if (!bs || !bz || (bs->size() != 1 && (int64_t)bs->size() != N) ||
      (bz->size() != 1 && (int64_t)bz->size() != N))
    return unsupported(op, "B's scale and zero point must be constant, per "
                           "tensor or per output column");
  bool quantOut = q && !isNoneValue(q.getYScale());
  std::optional<SmallVector<double>> ys, yz;
  if (quantOut &&
      !outputQuantization(q.getYScale(), q.getYZeroPoint(), ys, yz))
    return unsupported(op, kOutputQuantization);
  Value C = q ? q.getC() : none;
  auto c = constValues(C ? C : none);
  if (!c || (c->size() != 1 && (int64_t)c->size() != N) ||
      (C && !isNoneValue(C) &&
       cast<RankedTensorType>(C.getType()).getRank() > 1))
    return unsupported(op, "C must be absent or a constant per column");
  int act = q ? activationCode(q.getActivation()) : 0;
  if (act < 0)
    return unsupported(op, "unknown activation");
  const int64_t K4 = (K + 3) / 4, NB = (N + 15) / 16;
  bool aSigned = !cast<IntegerType>(at.getElementType()).isUnsigned();
  int64_t azp = (int64_t)(*az)[0], azpU = azp + (aSigned ? 128 : 0);
  double alpha = q ? q.getAlpha().convertToDouble() : 1.0,
         beta = q ? q.getBeta().convertToDouble() : 1.0;
  amk::ref::Tensor bp(amk::ref::DataType::INT8, {NB * K4 * 16 * 4});
  std::fill_n(bp.data<int8_t>(), bp.numel(), 0);
  amk::ref::Tensor wzT(amk::ref::DataType::INT32, {N}),
      mT(amk::ref::DataType::FLOAT, {N}), bT(amk::ref::DataType::FLOAT, {N});
  for (int64_t n = 0; n < N; ++n) {
    int64_t sum = 0;
    double zp = (*bz)[bz->size() > 1 ? n : 0];
    for (int64_t k = 0; k < K; ++k) {
      double v = b->getDouble(transB ? n * K + k : k * N + n) - zp;
      if (v < -128 || v > 127)
        return unsupported(op, weightOutsideInt8(v));
      sum += (int64_t)v;
      bp.data<int8_t>()[((n / 16 * K4 + k / 4) * 16 + n % 16) * 4 + k % 4] =
          (int8_t)v;
    }
    // With a run-time zero point the kernel multiplies the sum by it.
    wzT.data<int32_t>()[n] = (int32_t)(azRuntime ? sum : azpU * sum);
    mT.data<float>()[n] =
        (float)(alpha * (*as)[0] * (*bs)[bs->size() > 1 ? n : 0]);
    bT.data<float>()[n] = (float)(beta * (*c)[c->size() > 1 ? n : 0]);
  }
  MLIRContext *ctx = op->getContext();
  std::string base = amk::onnx::getTensorName(B).str();
  Builder bld(ctx);
  auto constOf = [&](const amk::ref::Tensor &t, Type et, StringRef suffix) {
    return newConstTensor(t, et, base + suffix.str());
  };
  int bSlot = constOf(bp, bld.getIntegerType(8), ".qgemm");
  int wzSlot = constOf(wzT, bld.getI32Type(), ".qgemm_wz");
  int mSlot = constOf(mT, bld.getF32Type(), ".qgemm_scale");
  int biasSlot = !C || isNoneValue(C) ? -1
                                       : constOf(bT, bld.getF32Type(),
                                                 ".qgemm_bias");
  auto ai = getTensor(A, op);
  if (failed(ai))
    return failure();
  int azSlot = -1, asSlot = -1;
  if (azRuntime) {
    auto r = getTensor(azRuntime, op);
    if (failed(r))
      return failure();
    azSlot = *r;
  }
  if (asRuntime) {
    auto r = getTensor(asRuntime, op);
    if (failed(r))
      return failure();
    asSlot = *r;
  }
  int yi = defineOutput(Y);
  int64_t yBytes = quantOut ? 1 : 4;
  KOp &k = newKOp(op, AMK_RT_K_QGEMM);
  k.slots = {*ai, bSlot, yi, wzSlot, mSlot, biasSlot};
  if (azSlot >= 0 || asSlot >= 0)
    k.slots.append({azSlot, asSlot});
  k.ip = {rows, N, K, aSigned, azp, runtimeDtype(yt.getElementType()),
          quantOut ? (int64_t)(*yz)[0] : 0, act};
  k.fp = {q ? q.getActivationAlpha().convertToFloat() : 0.f,
          q ? q.getActivationBeta().convertToFloat() : 0.f,
          quantOut ? (float)(1.0 / (*ys)[0]) : 1.f};
  k.rows = rows, k.cols = N, k.colTiling = true, k.rowAlign = 6,
  k.colAlign = 64;
  // The operand a row tile reads (A's rows) and a column tile's (B's
  // packed blocks), as GEMM's.
  k.rowOperandBytes = (double)rows * K;
  k.colOperandBytes = (double)bp.numel();
  k.flops = 2.0 * rows * N * K / 4;
  k.bytes = (double)rows * K + bp.numel() + (double)yBytes * rows * N;
  int64_t bBytes = bp.numel();
  int as_ = *ai;
  k.access = [=](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(bSlot, bBytes));
    rd.push_back(whole(wzSlot, N * 4));
    rd.push_back(whole(mSlot, N * 4));
    if (biasSlot >= 0)
      rd.push_back(whole(biasSlot, N * 4));
    if (azSlot >= 0)
      rd.push_back(whole(azSlot, 1));
    if (asSlot >= 0)
      rd.push_back(whole(asSlot, 4));
    rd.push_back(span(as_, r0 * K, r1 * K));
    wr.push_back(rect(yi, (r0 * N + c0) * yBytes, (c1 - c0) * yBytes,
                      N * yBytes, r1 - r0));
  };
  return success();
}

/// amk.wgemm on WGEMM: the weights packed in 64-column panels (int8, or
/// two int4 per byte), alpha folded into the scale table and the zero
/// points into a scale x zero point table (kernel_params.h).
namespace {

/// How an amk.wgemm's weights are stored and read: shapes, the stored
/// integers' shift, and where each (group, column) finds its scale.
struct WLayout {
  bool transB = false, hasZp = false;
  int64_t K = 0, N = 0, rows = 0, bits = 0, shift = 0, storeBits = 0;
  int64_t group = 0, groups = 0, panelBytes = 0;
  std::function<int64_t(int64_t, int64_t)> sIndex;
};

/// The kernel's a_bits for an amk.wgemm's activation_bits: the verifier
/// keeps 8 to int4 weights whose blocks start on a word (stored as
/// nibbles) and 16 to int8 weights without blocks (stored as bytes).
int64_t kernelActivationBits(int64_t storeBits, uint64_t activationBits) {
  if ((storeBits == 4 && activationBits == 8) ||
      (storeBits == 8 && activationBits == 16))
    return (int64_t)activationBits;
  return 0;
}

/// The layout of `w`'s weights, or why the WGEMM kernel cannot read them.
FailureOr<WLayout> wgemmLayout(fused::WGemmOp w, std::string &why) {
  WLayout l;
  auto at = cast<RankedTensorType>(w.getA().getType());
  auto yt = cast<RankedTensorType>(w.getY().getType());
  if (auto pb = w.getPermB()) {
    if ((*pb)[0] != 1) {
      why = "perm_b must be absent or [1, 0]";
      return failure();
    }
    l.transB = true;
  }
  // Shapes come from the types: packed weights another program made are
  // not read again, and their source may be freed (wgemmPanelsKey).
  auto bConst = w.getB().getDefiningOp<amk::onnx::ConstantOp>();
  auto bt = cast<RankedTensorType>(w.getB().getType());
  if (const char *r = productShape(at, yt,
                                   bConst && bt.hasStaticShape()
                                       ? std::optional(bt.getShape())
                                       : std::nullopt,
                                   l.transB, l.K, l.N, l.rows)) {
    why = r;
    return failure();
  }
  auto bType = cast<IntegerType>(bt.getElementType());
  l.bits = bType.getWidth();
  bool isUnsigned = bType.isUnsigned();
  l.hasZp = !isNoneValue(w.getBZeroPoint());
  if (!w.getBScale().getDefiningOp<amk::onnx::ConstantOp>()) {
    why = "B's scale must be a constant";
    return failure();
  }
  if (l.hasZp && !w.getBZeroPoint().getDefiningOp<amk::onnx::ConstantOp>()) {
    why = "B's zero point must be a constant";
    return failure();
  }
  const int64_t scaleCount =
      cast<RankedTensorType>(w.getBScale().getType()).getNumElements();
  int64_t axis = w.getAxis() < 0 ? w.getAxis() + 2 : w.getAxis();
  int64_t kAxis = l.transB ? 1 : 0, block = w.getBlockSize();
  const int64_t K = l.K, N = l.N;
  l.group = block > 0 ? block : K;
  const int64_t groups = l.groups = (K + l.group - 1) / l.group;
  const bool transB = l.transB;
  if (block > 0) {
    if (axis != kAxis) {
      why = "blocks must run along the reduction axis";
      return failure();
    }
    l.sIndex = [=](int64_t q, int64_t n) {
      return transB ? n * groups + q : q * N + n;
    };
  } else if (scaleCount == 1) {
    l.sIndex = [](int64_t, int64_t) { return int64_t(0); };
  } else if (axis == 1 - kAxis && scaleCount == N) {
    l.sIndex = [](int64_t, int64_t n) { return n; };
  } else {
    why = "B's scale must be per tensor, per output column or in blocks "
          "along the reduction axis";
    return failure();
  }
  if (l.hasZp &&
      cast<RankedTensorType>(w.getBZeroPoint().getType()).getNumElements() !=
          scaleCount) {
    why = "B's zero point and scale differ in shape";
    return failure();
  }
  // Stored values: int8 as signed bytes (uint8 moved by -128), int4 as
  // unsigned nibbles (int4 moved by +8); the zero point moves with them.
  l.shift = l.bits == 8 ? (isUnsigned ? -128 : 0) : (isUnsigned ? 0 : 8);
  // int4 is stored as nibbles when its groups start on multiples of 8 (the
  // kernel unpacks 8 k at a time), else as bytes.
  l.storeBits = l.bits == 4 && (groups == 1 || l.group % 8 == 0) ? 4 : 8;
  const int64_t P = AMK_GEMM_PANEL;
  l.panelBytes = l.storeBits == 8 ? K * P : (K + 7) / 8 * P * 4;
  return l;
}

/// Writes `w`'s columns into the panels: column n to column place(n) of
/// the packed product (panel column / 64, column in it % 64), with its
/// weights, its scales times alpha and its scale x zero point. False when
/// the weights were released.
bool packWGemmColumns(fused::WGemmOp w, const WLayout &l,
                      llvm::function_ref<int64_t(int64_t)> place, uint8_t *wd,
                      float *sT, float *zT, bool &anyZp) {
  auto b = amk::getConstantTensor(w.getB());
  auto scale = amk::getConstantTensor(w.getBScale());
  std::optional<amk::ref::Tensor> zp;
  if (l.hasZp)
    zp = amk::getConstantTensor(w.getBZeroPoint());
  if (!b || !scale || (l.hasZp && !zp))
    return false;
  const int64_t P = AMK_GEMM_PANEL, K = l.K, groups = l.groups;
  const double alpha = w.getAlpha().convertToDouble();
  for (int64_t n = 0; n < l.N; ++n) {
    int64_t c = place(n), p = c / P, j = c % P;
    uint8_t *panel = wd + p * l.panelBytes;
    for (int64_t k = 0; k < K; ++k) {
      int64_t v =
          (int64_t)b->getDouble(l.transB ? n * K + k : k * l.N + n) + l.shift;
      if (l.storeBits == 8) {
        panel[k * P + j] = (uint8_t)(int8_t)v;
      } else {
        // Word (k / 8, j) holds k..k+7 of column j, nibble k % 8.
        uint8_t *word = panel + ((k / 8) * P + j) * 4;
        word[(k % 8) / 2] |= (uint8_t)(v << (4 * (k % 2)));
      }
    }
    for (int64_t q = 0; q < groups; ++q) {
      int64_t i = l.sIndex(q, n);
      double sv = alpha * scale->getDouble(i);
      double z = (zp ? zp->getDouble(i) : 0.0) + l.shift;
      sT[(p * groups + q) * P + j] = (float)sv;
      zT[(p * groups + q) * P + j] = (float)(sv * z);
      anyZp |= z != 0;
    }
  }
  return true;
}

/// Frees the quantized weights the driver marked as no one else's
/// (markWeightsReleasedAfterPacking): the panels replace them.
void releasePackedSources(fused::WGemmOp w) {
  for (Value v :
       {Value(w.getB()), Value(w.getBScale()), Value(w.getBZeroPoint())})
    if (DenseResourceElementsAttr r = resourceOf(v);
        r && v.getDefiningOp()->hasAttr(kReleaseAfterPackingAttr))
      amk::releaseResource(r);
}

AsmResourceBlob blobOf(const amk::ref::Tensor &t) {
  return HeapAsmResourceBlob::allocateAndCopyWithAlign(
      ArrayRef<char>(t.raw(), t.byteSize()), /*align=*/64,
      /*dataIsMutable=*/false);
}

/// The panels, scale table and (with `anyZp`) scale x zero point table:
/// under `key`, the ones another program made, else `pack`'s, shared under
/// that name (then `release` frees the sources the driver marked);
/// without a key, `pack`'s as attributes, `anyZp` then set by what it
/// packed. False when `pack` cannot read the weights.
bool wgemmTables(
    MLIRContext *ctx, const std::optional<std::string> &key,
    RankedTensorType wType, RankedTensorType tType, bool &anyZp,
    llvm::function_ref<bool(uint8_t *, float *, float *, bool &)> pack,
    llvm::function_ref<void()> release, ElementsAttr &wAttr,
    ElementsAttr &sAttr, ElementsAttr &zAttr) {
  if (key) {
    wAttr = amk::lookupResourceElements(wType, *key);
    sAttr = amk::lookupResourceElements(tType, *key + ".scale");
    if (anyZp)
      zAttr = amk::lookupResourceElements(tType, *key + ".zero");
    if (wAttr && sAttr && (!anyZp || zAttr))
      return true;
    wAttr = sAttr = zAttr = nullptr;
  }
  amk::ref::Tensor wp(amk::ref::DataType::INT8, {wType.getNumElements()});
  amk::ref::Tensor sT(amk::ref::DataType::FLOAT, {tType.getNumElements()}),
      zT(amk::ref::DataType::FLOAT, {tType.getNumElements()});
  uint8_t *wd = reinterpret_cast<uint8_t *>(wp.data<int8_t>());
  std::fill_n(wd, wp.numel(), 0);
  std::fill_n(sT.data<float>(), sT.numel(), 0.f);
  std::fill_n(zT.data<float>(), zT.numel(), 0.f);
  bool zeroPoints = false;
  if (!pack(wd, sT.data<float>(), zT.data<float>(), zeroPoints))
    return false;
  if (!key) {
    anyZp = zeroPoints;
    wAttr = wp.toAttr(ctx), sAttr = sT.toAttr(ctx);
    if (anyZp)
      zAttr = zT.toAttr(ctx);
    return true;
  }
  wAttr = amk::setResourceElements(wType, *key, blobOf(wp));
  sAttr = amk::setResourceElements(tType, *key + ".scale", blobOf(sT));
  if (anyZp)
    zAttr = amk::setResourceElements(tType, *key + ".zero", blobOf(zT));
  release();
  return true;
}

/// A WGEMM's tiling and costs over `cols` panel columns writing `outs`
/// per row. As GEMM's: the operand a row tile reads (A's rows) and the one
/// a column tile reads (W's panels). A row split re-reads W in every tile
/// and, with many rows, dequantizes it again into float panels: count the
/// float bytes then.
void wgemmCosts(KOp &k, int64_t rows, int64_t K, int64_t cols, int64_t outs,
                int64_t wBytes) {
  k.rows = rows, k.cols = cols, k.colTiling = true, k.rowAlign = 8,
  k.colAlign = AMK_GEMM_PANEL;
  k.rowOperandBytes = 4.0 * rows * K;
  k.colOperandBytes = rows >= 6 ? 4.0 * K * cols : (double)wBytes;
  k.flops = 2.0 * rows * cols * K;
  k.bytes = 4.0 * rows * K + wBytes + 4.0 * rows * outs;
}

/// What a WGEMM tile of panel columns [c0, c1) reads of the panels and
/// their tables.
void wgemmPanelReads(SmallVectorImpl<TAccess> &rd, int wSlot, int sSlot,
                     int zSlot, int64_t c0, int64_t c1, int64_t panelBytes,
                     int64_t groups, int64_t tBytes) {
  const int64_t P = AMK_GEMM_PANEL, p0 = c0 / P, p1 = (c1 + P - 1) / P;
  rd.push_back(span(wSlot, p0 * panelBytes, p1 * panelBytes));
  rd.push_back(
      span(sSlot, p0 * groups * P * 4, std::min(tBytes, p1 * groups * P * 4)));
  if (zSlot >= 0)
    rd.push_back(span(zSlot, p0 * groups * P * 4,
                      std::min(tBytes, p1 * groups * P * 4)));
}

} // namespace

/// amk.wgemm on WGEMM: the weights packed in 64-column panels (int8, or
/// two int4 per byte), alpha folded into the scale table and the zero
/// points into a scale x zero point table (kernel_params.h).
LogicalResult Scheduler::lowerWGemm(Operation *op) {
  auto w = cast<fused::WGemmOp>(op);
  auto yt = cast<RankedTensorType>(w.getY().getType());
  std::string why;
  FailureOr<WLayout> layout = wgemmLayout(w, why);
  if (failed(layout))
    return unsupported(op, why);
  const WLayout &l = *layout;
  const int64_t K = l.K, N = l.N, rows = l.rows, groups = l.groups;
  const int64_t group = l.group, storeBits = l.storeBits,
                panelBytes = l.panelBytes;
  // C: a constant per column (the bias, folded into a table), or a run-time
  // tensor of Y's shape (a residual) the kernel adds.
  auto c = constValues(w.getC());
  Value resValue;
  if (!c && cast<RankedTensorType>(w.getC().getType()).getShape() ==
                yt.getShape()) {
    resValue = w.getC();
    c = SmallVector<double>{0.0};
  }
  if (!c || (c->size() != 1 && (int64_t)c->size() != N) ||
      (!resValue && !isNoneValue(w.getC()) &&
       cast<RankedTensorType>(w.getC().getType()).getRank() > 1))
    return unsupported(op, "C must be absent, a constant per column or a "
                           "tensor of Y's shape");
  int act = activationCode(w.getActivation());
  if (act < 0)
    return unsupported(op, "unknown activation");
  const int64_t P = AMK_GEMM_PANEL, panels = (N + P - 1) / P;
  MLIRContext *ctx = op->getContext();
  Builder bld(ctx);
  auto wType =
      RankedTensorType::get({panels * panelBytes}, bld.getIntegerType(8));
  auto tType = RankedTensorType::get({panels * groups * P}, bld.getF32Type());
  // Shared panels (wgemmPanelsKey) carry a zero-point table whenever the
  // types allow one, so that a program finding them knows without reading
  // the zero points.
  std::optional<std::string> key = wgemmPanelsKey(w);
  bool anyZp = key && (l.hasZp || l.shift != 0);
  ElementsAttr wAttr, sAttr, zAttr;
  if (!wgemmTables(
          ctx, key, wType, tType, anyZp,
          [&](uint8_t *wd, float *sT, float *zT, bool &zp) {
            return packWGemmColumns(
                w, l, [](int64_t n) { return n; }, wd, sT, zT, zp);
          },
          [&] { releasePackedSources(w); }, wAttr, sAttr, zAttr))
    return unsupported(op, "cannot read B, its scale or its zero point "
                           "(their data was released)");
  std::string base = amk::onnx::getTensorName(w.getB()).str();
  auto constOf = [&](const amk::ref::Tensor &t, Type et, StringRef suffix) {
    return newConstTensor(t, et, base + suffix.str());
  };
  int wSlot = newConstTensor(wType, wAttr, base + ".wgemm");
  int sSlot = newConstTensor(tType, sAttr, base + ".wgemm_scale");
  int zSlot = anyZp ? newConstTensor(tType, zAttr, base + ".wgemm_zero") : -1;
  int biasSlot = -1;
  if (!isNoneValue(w.getC()) && !resValue) {
    amk::ref::Tensor bT(amk::ref::DataType::FLOAT, {N});
    double beta = w.getBeta().convertToDouble();
    for (int64_t n = 0; n < N; ++n)
      bT.data<float>()[n] = (float)(beta * (*c)[c->size() > 1 ? n : 0]);
    biasSlot = constOf(bT, bld.getF32Type(), ".wgemm_bias");
  }
  auto ai = getTensor(w.getA(), op);
  if (failed(ai))
    return failure();
  int resSlot = -1;
  if (resValue) {
    auto r = getTensor(resValue, op);
    if (failed(r))
      return failure();
    resSlot = *r;
  }
  int yi = defineOutput(w.getY());
  KOp &k = newKOp(op, AMK_RT_K_WGEMM);
  k.slots = {*ai, wSlot, yi, sSlot, zSlot, biasSlot};
  if (resSlot >= 0)
    k.slots.push_back(resSlot);
  k.ip = {rows,
          N,
          K,
          storeBits,
          group,
          act,
          kernelActivationBits(storeBits, w.getActivationBits())};
  k.fp = {w.getActivationAlpha().convertToFloat(),
          w.getActivationBeta().convertToFloat(), w.getBeta().convertToFloat()};
  const int64_t wBytes = wType.getNumElements(),
                tBytes = tType.getNumElements() * 4;
  wgemmCosts(k, rows, K, N, N, wBytes);
  int as_ = *ai;
  k.access = [=](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    wgemmPanelReads(rd, wSlot, sSlot, zSlot, c0, c1, panelBytes, groups,
                    tBytes);
    if (biasSlot >= 0)
      rd.push_back(whole(biasSlot, N * 4));
    if (resSlot >= 0)
      rd.push_back(rect(resSlot, (r0 * N + c0) * 4, (c1 - c0) * 4, N * 4,
                        r1 - r0));
    rd.push_back(span(as_, r0 * K * 4, r1 * K * 4));
    wr.push_back(rect(yi, (r0 * N + c0) * 4, (c1 - c0) * 4, N * 4, r1 - r0));
  };
  return success();
}

bool wgemmGatedPair(Operation *gate, Operation *up) {
  auto g = dyn_cast_or_null<fused::WGemmOp>(gate);
  auto u = dyn_cast_or_null<fused::WGemmOp>(up);
  if (!g || !u || g.getA() != u.getA() || !isNoneValue(g.getC()) ||
      !isNoneValue(u.getC()) || u.getActivation() != "none" ||
      activationCode(g.getActivation()) < 0 ||
      g.getActivationBits() != u.getActivationBits() ||
      g.getY().getType() != u.getY().getType())
    return false;
  std::string why;
  FailureOr<WLayout> lg = wgemmLayout(g, why), lu = wgemmLayout(u, why);
  return succeeded(lg) && succeeded(lu) && lg->K == lu->K && lg->N == lu->N &&
         lg->bits == lu->bits && lg->shift == lu->shift &&
         lg->storeBits == lu->storeBits && lg->group == lu->group;
}

/// A gated pair of amk.wgemm (wgemmGatedPair) as one WGEMM: panel p holds
/// the gate's columns [32p, 32p + 32) then the up's, with their own scales
/// and zero points; the kernel writes act(gate) * up (kernel_params.h).
LogicalResult Scheduler::lowerGatedWGemm(Operation *mul, Operation *gate,
                                         Operation *up) {
  auto g = cast<fused::WGemmOp>(gate), u = cast<fused::WGemmOp>(up);
  std::string why;
  FailureOr<WLayout> lgo = wgemmLayout(g, why), luo = wgemmLayout(u, why);
  if (failed(lgo) || failed(luo))
    return unsupported(mul, why);
  const WLayout &lg = *lgo, &lu = *luo;
  const int64_t P = AMK_GEMM_PANEL, H = P / 2, K = lg.K, N = lg.N;
  const int64_t rows = lg.rows, groups = lg.groups, panels = (N + H - 1) / H;
  const int64_t width = panels * P, panelBytes = lg.panelBytes;
  MLIRContext *ctx = mul->getContext();
  Builder bld(ctx);
  auto wType =
      RankedTensorType::get({panels * panelBytes}, bld.getIntegerType(8));
  auto tType = RankedTensorType::get({panels * groups * P}, bld.getF32Type());
  std::optional<std::string> key, kg = wgemmPanelsKey(g),
                                  ku = wgemmPanelsKey(u);
  if (kg && ku)
    key = llvm::formatv("{0}.amk_gated_{1:x-16}", *kg, llvm::xxh3_64bits(*ku))
              .str();
  bool anyZp = key && (lg.hasZp || lu.hasZp || lg.shift != 0);
  ElementsAttr wAttr, sAttr, zAttr;
  auto pack = [&](uint8_t *wd, float *sT, float *zT, bool &zp) {
    for (int half = 0; half < 2; ++half)
      if (!packWGemmColumns(
              half ? u : g, half ? lu : lg,
              [&](int64_t n) { return (n / H) * P + half * H + n % H; }, wd, sT,
              zT, zp))
        return false;
    return true;
  };
  auto release = [&] {
    releasePackedSources(g);
    releasePackedSources(u);
  };
  if (!wgemmTables(ctx, key, wType, tType, anyZp, pack, release, wAttr, sAttr,
                   zAttr))
    return unsupported(mul, "cannot read B, its scale or its zero point "
                            "(their data was released)");
  std::string base = amk::onnx::getTensorName(g.getB()).str();
  int wSlot = newConstTensor(wType, wAttr, base + ".gated");
  int sSlot = newConstTensor(tType, sAttr, base + ".gated_scale");
  int zSlot = anyZp ? newConstTensor(tType, zAttr, base + ".gated_zero") : -1;
  auto ai = getTensor(g.getA(), mul);
  if (failed(ai))
    return failure();
  int yi = defineOutput(mul->getResult(0));
  KOp &k = newKOp(mul, AMK_RT_K_WGEMM);
  k.slots = {*ai, wSlot, yi, sSlot, zSlot, -1};
  k.ip = {rows,
          width,
          K,
          lg.storeBits,
          lg.group,
          activationCode(g.getActivation()),
          kernelActivationBits(lg.storeBits, g.getActivationBits()),
          N};
  k.fp = {g.getActivationAlpha().convertToFloat(),
          g.getActivationBeta().convertToFloat(), 1.f};
  const int64_t wBytes = wType.getNumElements(),
                tBytes = tType.getNumElements() * 4;
  wgemmCosts(k, rows, K, width, N, wBytes);
  int as_ = *ai;
  k.access = [=](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    wgemmPanelReads(rd, wSlot, sSlot, zSlot, c0, c1, panelBytes, groups,
                    tBytes);
    rd.push_back(span(as_, r0 * K * 4, r1 * K * 4));
    int64_t o0 = c0 / 2, o1 = std::min(N, c1 / 2);
    wr.push_back(rect(yi, (r0 * N + o0) * 4, (o1 - o0) * 4, N * 4, r1 - r0));
  };
  return success();
}

int Scheduler::newConstTensor(const amk::ref::Tensor &t, Type elementType,
                              StringRef name) {
  auto type = RankedTensorType::get(t.shape(), elementType);
  return newConstTensor(type, t.toAttr(elementType.getContext()), name);
}

/// DynamicQuantizeLinear: one task (the scale needs every element).
LogicalResult Scheduler::lowerDynamicQuantize(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  if (!xt.getElementType().isF32())
    return unsupported(op, "only float32 input is implemented");
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  int si = defineOutput(op->getResult(1));
  int zi = defineOutput(op->getResult(2));
  KOp &k = newKOp(op, AMK_RT_K_DYNAMIC_QUANTIZE);
  k.slots = {*xi, yi, si, zi};
  int64_t n = xt.getNumElements();
  k.ip = {n};
  k.flops = 4.0 * n;
  k.bytes = 5.0 * n;
  int xs = *xi;
  k.access = [=](int64_t, int64_t, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(xs, 4 * n));
    wr.push_back(whole(yi, n));
    wr.push_back(whole(si, 4));
    wr.push_back(whole(zi, 1));
  };
  return success();
}

/// QuantizeLinear and DequantizeLinear of float32, per tensor or per axis.
LogicalResult Scheduler::lowerQuantizeLinear(Operation *op) {
  bool quant = isa<amk::onnx::QuantizeLinearOp>(op);
  Value x = op->getOperand(0), s = op->getOperand(1);
  Value z = op->getNumOperands() > 2 ? op->getOperand(2) : Value();
  auto xt = cast<RankedTensorType>(x.getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  auto st = dyn_cast<RankedTensorType>(s.getType());
  Type ft = quant ? xt.getElementType() : yt.getElementType();
  Type it = quant ? yt.getElementType() : xt.getElementType();
  int64_t iType = runtimeDtype(it);
  if (!ft.isF32() ||
      (iType != AMK_RT_U8 && iType != AMK_RT_I8 && iType != AMK_RT_U16 &&
       iType != AMK_RT_I16 && iType != AMK_RT_I32) ||
      !st || !st.getElementType().isF32())
    return unsupported(op, "only float32 with 8-, 16- and 32-bit integers "
                           "and float32 scales is implemented");
  const int64_t block = intAttr(op, "block_size", 0);
  int64_t axisDim = 1, inner = 1;
  if (block != 0) {
    // Opset 21: the scale has X's shape with the axis cut into blocks.
    int64_t rank = xt.getRank(), axis = intAttr(op, "axis", 1);
    if (axis < 0)
      axis += rank;
    bool fits = block > 0 && axis >= 0 && axis < rank && st.getRank() == rank &&
                xt.hasStaticShape();
    for (int64_t d = 0; fits && d < rank; ++d)
      fits = st.getDimSize(d) == (d == axis
                                      ? (xt.getDimSize(d) + block - 1) / block
                                      : xt.getDimSize(d));
    if (!fits)
      return unsupported(op, "its block size and scale shape do not match "
                             "the tensor");
    axisDim = xt.getDimSize(axis);
    for (int64_t d = axis + 1; d < rank; ++d)
      inner *= xt.getDimSize(d);
  } else if (st.getNumElements() != 1 || st.getRank() > 1) {
    int64_t rank = xt.getRank(), axis = intAttr(op, "axis", 1);
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank || st.getRank() != 1 ||
        st.getDimSize(0) != xt.getDimSize(axis))
      return unsupported(op, "its scale matches neither the tensor nor the "
                             "axis");
    axisDim = xt.getDimSize(axis);
    for (int64_t d = axis + 1; d < rank; ++d)
      inner *= xt.getDimSize(d);
  }
  if (axisDim == 1 && block == 0) // per tensor: one run over everything
    inner = std::max<int64_t>(xt.getNumElements(), 1);
  auto xi = getTensor(x, op), si = getTensor(s, op);
  if (failed(xi) || failed(si))
    return failure();
  int zi = -1;
  if (z && !isNoneValue(z)) {
    if (runtimeDtype(cast<RankedTensorType>(z.getType()).getElementType()) !=
        iType)
      return unsupported(op, "the zero point's type differs from the "
                             "integer tensor's");
    if (block != 0 &&
        cast<RankedTensorType>(z.getType()).getShape() != st.getShape())
      return unsupported(op, "its zero point's shape differs from its "
                             "blocked scale's");
    auto r = getTensor(z, op);
    if (failed(r))
      return failure();
    zi = *r;
  }
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_QUANTIZE);
  k.variant = quant ? AMK_QUANT_VARIANT_Q : AMK_QUANT_VARIANT_DQ;
  k.slots = {*xi, *si, zi, yi};
  k.ip = {runtimeDtype(xt.getElementType()), runtimeDtype(yt.getElementType()),
          axisDim, inner};
  if (block != 0)
    k.ip.push_back(block); // AMK_QUANT_BLOCK
  int64_t n = xt.getNumElements();
  int64_t xb = tensors[*xi].bytes / std::max<int64_t>(n, 1),
          yb = tensors[yi].bytes / std::max<int64_t>(n, 1);
  k.rows = n;
  k.rowAlign = 64;
  k.flops = 3.0 * n;
  k.bytes = (double)(xb + yb) * n;
  int64_t sBytes = tensors[*si].bytes,
          zBytes = zi >= 0 ? tensors[zi].bytes : 0;
  int xs = *xi, ss = *si;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * xb, r1 * xb));
    rd.push_back(whole(ss, sBytes));
    if (zi >= 0)
      rd.push_back(whole(zi, zBytes));
    wr.push_back(span(yi, r0 * yb, r1 * yb));
  };
  return success();
}

/// amk.qadd and amk.qmul on QUANTIZE: the per-tensor scales and zero
/// points become parameters, the result one pass over the bytes; variant
/// 2 for a sum of one shape, variant 3 with broadcast strides otherwise.
LogicalResult Scheduler::lowerQAdd(Operation *op) {
  const bool mul = isa<fused::QMulOp>(op);
  Value A = op->getOperand(0), B = op->getOperand(3), Y = op->getResult(0);
  Value sA = op->getOperand(1), zA = op->getOperand(2), sB = op->getOperand(4),
        zB = op->getOperand(5), sY = op->getOperand(6), zY = op->getOperand(7);
  auto activation = op->getAttrOfType<StringAttr>("activation");
  auto scalar = [&](Value v) -> std::optional<double> {
    if (isNoneValue(v))
      return 0.0;
    return amk::onnx::getSplatValue(v);
  };
  const bool quantOut = !isNoneValue(sY);
  auto sa = scalar(sA), sb = scalar(sB),
       sy = quantOut ? scalar(sY) : std::optional<double>(1.0), za = scalar(zA),
       zb = scalar(zB), zy = scalar(zY);
  if (!sa || !sb || !sy || !za || !zb || !zy)
    return unsupported(op, "its scales and zero points must be constants");

  auto at = cast<RankedTensorType>(A.getType()),
       bt = cast<RankedTensorType>(B.getType()),
       yt = cast<RankedTensorType>(Y.getType());
  if (!at.hasStaticShape() || !bt.hasStaticShape() || !yt.hasStaticShape())
    return unsupported(op, "its shapes must be static");
  const bool broadcast =
      mul || at.getShape() != yt.getShape() || bt.getShape() != yt.getShape();
  // Broadcast strides over Y's dims, then adjacent dims merged where both
  // operands step through them as one.
  SmallVector<int64_t> dims, strideA, strideB;
  if (broadcast) {
    auto strides = [&](RankedTensorType t) {
      SmallVector<int64_t> st(yt.getRank(), 0);
      int64_t off = yt.getRank() - t.getRank(), step = 1;
      for (int64_t d = t.getRank() - 1; d >= 0; --d) {
        st[d + off] = t.getDimSize(d) == 1 ? 0 : step;
        step *= t.getDimSize(d);
      }
      return st;
    };
    SmallVector<int64_t> sa0 = strides(at), sb0 = strides(bt);
    for (int64_t d = 0; d < yt.getRank(); ++d) {
      int64_t n = yt.getDimSize(d);
      if (n == 1)
        continue;
      if (!dims.empty() && strideA.back() == sa0[d] * n &&
          strideB.back() == sb0[d] * n) {
        dims.back() *= n;
        strideA.back() = sa0[d];
        strideB.back() = sb0[d];
        continue;
      }
      dims.push_back(n);
      strideA.push_back(sa0[d]);
      strideB.push_back(sb0[d]);
    }
    if (dims.empty())
      dims = {1}, strideA = {0}, strideB = {0};
    if ((int64_t)dims.size() > AMK_QBIN_MAX_RANK)
      return unsupported(op, "its broadcast needs more than " +
                                 Twine(AMK_QBIN_MAX_RANK) +
                                 " dimensions after merging");
  }

  auto ai = getTensor(A, op), bi = getTensor(B, op);
  if (failed(ai) || failed(bi))
    return failure();
  int yi = defineOutput(Y);
  KOp &k = newKOp(op, AMK_RT_K_QUANTIZE);
  k.variant = broadcast ? AMK_QUANT_VARIANT_BINARY : AMK_QUANT_VARIANT_ADD;
  k.slots = {*ai, *bi, -1, yi};
  const int64_t n = std::max<int64_t>(yt.getNumElements(), 1);
  k.ip = {runtimeDtype(at.getElementType()),
          runtimeDtype(yt.getElementType()),
          1,
          n,
          (int64_t)*za,
          (int64_t)*zb,
          (int64_t)*zy,
          activation && activation.getValue() == "relu" ? 1 : 0};
  if (broadcast) {
    k.ip.push_back(mul ? AMK_QBIN_MUL : AMK_QBIN_ADD);
    k.ip.push_back((int64_t)dims.size());
    k.ip.append(dims.begin(), dims.end());
    k.ip.append(strideA.begin(), strideA.end());
    k.ip.append(strideB.begin(), strideB.end());
  }
  k.fp = {(float)*sa, (float)*sb, (float)*sy};
  k.rows = n;
  k.rowAlign = 64;
  k.flops = 8.0 * n;
  const int64_t yb = quantOut ? 1 : 4;
  const int64_t aBytes = at.getNumElements(), bBytes = bt.getNumElements();
  k.bytes = (double)aBytes + bBytes + yb * n;
  int as = *ai, bs = *bi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    if (broadcast) {
      rd.push_back(whole(as, aBytes));
      rd.push_back(whole(bs, bBytes));
    } else {
      rd.push_back(span(as, r0, r1));
      rd.push_back(span(bs, r0, r1));
    }
    wr.push_back(span(yi, r0 * yb, r1 * yb));
  };
  return success();
}

LogicalResult Scheduler::appendQuantEdges(Operation *op, KOp &k, Value x,
                                          Value xScale, Value xZp, Value y,
                                          Value yScale, Value yZp) {
  auto scalar = [](Value v) -> std::optional<double> {
    return isNoneValue(v) ? std::optional<double>(0.0)
                          : amk::onnx::getSplatValue(v);
  };
  auto sx = scalar(xScale), zx = scalar(xZp), sy = scalar(yScale),
       zy = scalar(yZp);
  if (!sx || !zx || !sy || !zy)
    return unsupported(op, "its scales and zero points must be constants");
  k.ip.append({runtimeDtype(getElementTypeOrSelf(x.getType())),
               runtimeDtype(getElementTypeOrSelf(y.getType())), (int64_t)*zx,
               (int64_t)*zy});
  k.fp = {(float)*sx, (float)*sy};
  return success();
}

/// amk.qtable on QUANTIZE variant 4: a byte lookup per element.
LogicalResult Scheduler::lowerQTable(Operation *op) {
  auto t = cast<fused::QTableOp>(op);
  auto xt = t.getX().getType(), yt = t.getY().getType();
  if (!xt.hasStaticShape())
    return unsupported(op, "its shape must be static");
  auto xi = getTensor(t.getX(), op), ti = getTensor(t.getTable(), op);
  if (failed(xi) || failed(ti))
    return failure();
  int yi = defineOutput(t.getY());
  KOp &k = newKOp(op, AMK_RT_K_QUANTIZE);
  k.variant = AMK_QUANT_VARIANT_TABLE;
  k.slots = {*xi, *ti, -1, yi};
  const int64_t n = std::max<int64_t>(xt.getNumElements(), 1);
  k.ip = {runtimeDtype(xt.getElementType()), runtimeDtype(yt.getElementType()),
          1, n};
  k.rows = n;
  k.rowAlign = 64;
  k.flops = 2.0 * n;
  k.bytes = 2.0 * n;
  int xs = *xi, ts = *ti;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0, r1));
    rd.push_back(whole(ts, 256));
    wr.push_back(span(yi, r0, r1));
  };
  return success();
}

} // namespace amk::totask
