//===- LowerConv.cpp - Convolution ----------------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: Conv and amk.conv: depthwise, direct, im2col and GEMM variants, weights packed at compile time (design.md).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "transforms/Utils/PassUtils.h"
#include "transforms/Utils/Patterns.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "runtime/lib/kernels/Winograd.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

ConvGeometry ConvGeometry::of(Operation *op, Value weight) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto wt = cast<RankedTensorType>(weight.getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  bool oneD = xt.getRank() == 3;
  ConvGeometry g;
  g.n = xt.getDimSize(0), g.c = xt.getDimSize(1);
  g.h = oneD ? 1 : xt.getDimSize(2), g.w = xt.getDimSize(oneD ? 2 : 3);
  g.oc = yt.getDimSize(1), g.oh = oneD ? 1 : yt.getDimSize(2),
  g.ow = yt.getDimSize(oneD ? 2 : 3);
  g.kh = oneD ? 1 : wt.getDimSize(2), g.kw = wt.getDimSize(oneD ? 2 : 3);
  g.group = intAttr(op, "group", 1);
  auto strides = intsAttr(op, "strides"), dil = intsAttr(op, "dilations"),
       pads = intsAttr(op, "pads");
  int64_t sd = oneD ? 1 : 2;
  auto at = [&](ArrayRef<int64_t> v, int64_t i, int64_t def) {
    return i < (int64_t)v.size() ? v[i] : def;
  };
  g.sh = oneD ? 1 : at(strides, 0, 1), g.sw = at(strides, sd - 1, 1);
  g.dh = oneD ? 1 : at(dil, 0, 1), g.dw = at(dil, sd - 1, 1);
  g.ph = oneD ? 0 : at(pads, 0, 0), g.pw = at(pads, sd - 1, 0);
  StringRef autoPad = strAttr(op, "auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    auto padFor = [&](int64_t in, int64_t out, int64_t k, int64_t s,
                      int64_t d) {
      int64_t total = std::max<int64_t>(0, (out - 1) * s + (k - 1) * d + 1 - in);
      return autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
    };
    g.ph = oneD ? 0 : padFor(g.h, g.oh, g.kh, g.sh, g.dh);
    g.pw = padFor(g.w, g.ow, g.kw, g.sw, g.dw);
  } else if (autoPad == "VALID") {
    g.ph = g.pw = 0;
  }
  return g;
}

/// The Winograd output tile (2 or 4) for a 3x3 stride-1 convolution, or 0
/// where the direct kernel is expected to be faster. The direct kernel
/// costs its arithmetic or its weight stream, whichever is longer: each
/// weight meets every output pixel of the task, so the stream hides under
/// the FMAs. A Winograd candidate costs its arithmetic plus its weight
/// stream plus the transformed tiles' round trips through cache: each
/// transformed weight meets only the few tiles of a small plane, too few
/// FMAs to hide a read from memory behind (measured on ResNet-18's 7x7
/// layers inside the model, where the weights come from DRAM: F(2x2) 2.2
/// ms, direct 1.6 ms, docs/runtime.md). F(4x4) has 4x fewer multiplies
/// than direct but 4x the weight bytes, so it wins where the tiles are
/// many, F(2x2) in between, and the direct kernel where a small plane
/// meets many channels. `force` leaves out the direct kernel.
static int64_t chooseWinogradTile(const ConvGeometry &g, double peakGflops,
                                  double memGbps, bool force) {
  const double peak = peakGflops * 0.9, B = AMK_CONV_OC_BLOCK;
  const double ocp = std::ceil(g.oc / B) * B;
  double best = force
                    ? INFINITY
                    : std::max(2.0 * g.n * g.oc * g.oh * g.ow * g.c * 9 / peak,
                               4.0 * g.oc * g.c * 9 / memGbps);
  int64_t choice = 0;
  for (int64_t m : {4, 2}) {
    double a2 = (m + 2) * (m + 2);
    double tiles =
        g.n * std::ceil(g.oh / (double)m) * std::ceil(g.ow / (double)m);
    double gemm = 2.0 * a2 * tiles * g.c * ocp / (peak * 0.95);
    // The kernel's chunks never span images, so a batch reads the
    // transformed weights once per image (ResNet-18's 7x7 layers at batch
    // 8 on F(2x2): 18 ms against 11 ms for ORT's direct convolution).
    double weights = 4.0 * g.n * a2 * g.c * ocp / memGbps;
    // Transformed inputs and products, written once and read once, at
    // about four times the memory bandwidth (they mostly stay in L2).
    double transforms = 4.0 * a2 * tiles * (g.c + ocp) * 2 / (4 * memGbps);
    double ns = gemm + weights + transforms;
    if (ns < best)
      best = ns, choice = m;
  }
  return choice;
}

/// What the channel-blocked layout (NCHW16c) can do for a convolution:
/// nothing, or a flat 1x1 convolution that lowerConv gives the direct
/// kernel (either operand, and its residual, blocked), or a 3x3 depthwise
/// one (input and output blocked together). Only float32 with constant
/// weights, channel counts that 16 divides.
enum class BlockedRole { None, Pointwise, Depthwise };

static BlockedRole blockedRole(Operation *op,
                               const amk::ScheduleMegakernelOptions &opts) {
  if (!isa<amk::onnx::ConvOp, amk::fused::ConvOp>(op) ||
      op->getNumOperands() < 2)
    return BlockedRole::None;
  auto xt = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto wt = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  if (!xt || !wt || xt.getRank() != 4 || !xt.hasStaticShape() ||
      !xt.getElementType().isF32() || !wt.getElementType().isF32() ||
      !op->getOperand(1).getDefiningOp<amk::onnx::ConstantOp>() ||
      activationCode(strAttr(op, "activation", "none")) < 0)
    return BlockedRole::None;
  ConvGeometry g = ConvGeometry::of(op, op->getOperand(1));
  if (g.c % 16 || g.oc % 16)
    return BlockedRole::None;
  // lowerConv's choice for a flat 1x1 layer: the direct kernel when its
  // output channels fill 32-channel blocks.
  bool flat = g.group == 1 && g.kh == 1 && g.kw == 1 && g.sh == 1 &&
              g.sw == 1 && g.ph == 0 && g.pw == 0 && g.oh == g.h && g.ow == g.w;
  if (flat && opts.vectorWidth == 16 &&
      opts.convKernel != amk::ConvKernel::Im2col &&
      (opts.convKernel == amk::ConvKernel::Direct ||
       g.oc % AMK_CONV_OC_BLOCK == 0))
    return BlockedRole::Pointwise;
  if (g.group == g.c && g.oc == g.c && g.kh == 3 && g.kw == 3 && g.dh == 1 &&
      g.dw == 1 && (g.sh == 1 || g.sh == 2) && (g.sw == 1 || g.sw == 2))
    return BlockedRole::Depthwise;
  return BlockedRole::None;
}

void Scheduler::findChannelBlocked() {
  if (!opts.blockedLayout || opts.vectorWidth != 16)
    return;
  DenseMap<Operation *, BlockedRole> role;
  for (Operation &op : func.getBody().front())
    if (!absorbed.contains(&op) && !blocks.count(&op))
      if (BlockedRole r = blockedRole(&op, opts); r != BlockedRole::None)
        role[&op] = r;
  auto roleOf = [&](Operation *op) {
    auto it = role.find(op);
    return it == role.end() ? BlockedRole::None : it->second;
  };
  // A result is blocked only where every reader takes it blocked: as a
  // convolution's input, or as a direct convolution's residual. Anything
  // else (a pool, a Concat, the function's return) reads NCHW, so the
  // value stays NCHW and no layout change is ever inserted.
  for (auto [op, r] : role) {
    Value y = op->getResult(0);
    bool ok = !y.use_empty();
    for (mlir::OpOperand &use : y.getUses()) {
      BlockedRole ur = roleOf(use.getOwner());
      unsigned i = use.getOperandNumber();
      ok &= ur != BlockedRole::None &&
            (i == 0 || (i == 3 && ur == BlockedRole::Pointwise));
    }
    if (ok)
      channelBlocked.insert(y);
  }
  // The kernels' constraints: a depthwise layer's input and output are
  // both blocked or neither; a residual has its output's layout. Dropping
  // a value never adds one, so this ends.
  for (bool changed = true; changed;) {
    changed = false;
    auto tie = [&](Value a, Value b) {
      if (channelBlocked.contains(a) == channelBlocked.contains(b))
        return;
      channelBlocked.erase(a);
      channelBlocked.erase(b);
      changed = true;
    };
    for (auto [op, r] : role) {
      if (r == BlockedRole::Depthwise)
        tie(op->getOperand(0), op->getResult(0));
      else if (op->getNumOperands() > 3 && !isNoneValue(op->getOperand(3)))
        tie(op->getOperand(3), op->getResult(0));
    }
  }
}

FailureOr<int> Scheduler::packDirectWeights(Operation *op, Value w, int64_t OC,
                                            int64_t C, int64_t taps) {
  // [ceil(OC/32)][C][taps][32]: each tap's 32 output channels are two
  // vectors, and a block's taps are read in order.
  auto value = amk::getConstantTensor(w);
  if (!value)
    return unsupported(op, "cannot read the constant weights");
  const int64_t B = AMK_CONV_OC_BLOCK, blocks = (OC + B - 1) / B;
  amk::ref::Tensor packed(value->dtype(), {blocks * C * taps, B});
  const float *src = value->data<float>();
  float *dst = packed.data<float>();
  std::fill_n(dst, blocks * C * taps * B, 0.f);
  for (int64_t o = 0; o < OC; ++o)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t t = 0; t < taps; ++t)
        dst[((o / B * C + c) * taps + t) * B + o % B] =
            src[(o * C + c) * taps + t];
  auto type = RankedTensorType::get(
      {blocks * C * taps, B},
      cast<RankedTensorType>(w.getType()).getElementType());
  return newConstTensor(type, packed.toAttr(op->getContext()),
                        amk::onnx::getTensorName(w).str() + ".direct");
}

LogicalResult Scheduler::lowerConv(Operation *op) {
  Value x = op->getOperand(0), w = op->getOperand(1);
  Value b = op->getNumOperands() > 2 ? op->getOperand(2) : Value();
  Value z = op->getNumOperands() > 3 ? op->getOperand(3) : Value();
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = dyn_cast<RankedTensorType>(w.getType());
  if (!xt.getElementType().isF32())
    return unsupported(op, "only float32 convolution is implemented");
  if (xt.getRank() != 4 && xt.getRank() != 3)
    return unsupported(op, "only 1-D and 2-D convolution is implemented");
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  ConvGeometry g = ConvGeometry::of(op, w);
  int64_t N = g.n, C = g.c, H = g.h, W = g.w, OC = g.oc, OH = g.oh,
          OW = g.ow, KH = g.kh, KW = g.kw, group = g.group, sh = g.sh,
          sw = g.sw, dh = g.dh, dw = g.dw, ph = g.ph, pw = g.pw;
  auto xi = getTensor(x, op), wi = getTensor(w, op);
  if (failed(xi) || failed(wi))
    return failure();
  int bi = -1, zi = -1;
  if (!isNoneValue(b)) {
    auto r = getTensor(b, op);
    if (failed(r))
      return failure();
    bi = *r;
  }
  if (!isNoneValue(z)) {
    if (cast<RankedTensorType>(z.getType()).getShape() != yt.getShape())
      return unsupported(op, "the residual input must have the output's "
                             "shape");
    auto r = getTensor(z, op);
    if (failed(r))
      return failure();
    zi = *r;
  }
  int act = activationCode(strAttr(op, "activation", "none"));
  if (act < 0)
    return unsupported(op, "unknown activation");
  float actA = floatAttr(op, "activation_alpha", 0),
        actB = floatAttr(op, "activation_beta", 0);
  int yi = defineOutput(op->getResult(0));
  int64_t P = OH * OW, K = C / group * KH * KW;
  double flops = 2.0 * N * OC * P * K;
  bool pointwise = group == 1 && KH == 1 && KW == 1 && sh == 1 && sw == 1 &&
                   ph == 0 && pw == 0 && OH == H && OW == W;
  // The direct kernel wants its weights packed now, so they must be a
  // float constant. `auto` leaves a 1x1 convolution whose channels do not
  // fill 16-channel tiles to the GEMM: the tile's idle lanes and its
  // transposed store cost more than the few FMAs per pixel (measured on
  // MobileNetV2's 24-channel projections, docs/runtime.md). Since the
  // direct kernel runs a block's upper half past OC as a 16-channel tile,
  // 16 dividing OC is enough; so is a plane of at most 16 pixels (a
  // squeeze-excitation's products on 1 x 1), where the GEMM's set-up
  // outweighs the products. Whole models, interleaved: EfficientNet-B0
  // 8.31 -> 8.14 ms at 1 thread and 4.61 -> 4.33 at 2, MobileNetV3-small
  // 1.37 -> 1.26 and 0.79 -> 0.72 (docs/runtime.md); 24 and 40 output
  // channels measured even, so they stay GEMMs.
  bool direct = opts.convKernel != amk::ConvKernel::Im2col && group == 1 &&
                (sw == 1 || sw == 2) &&
                (opts.convKernel == amk::ConvKernel::Direct || !pointwise ||
                 OC % (AMK_CONV_OC_BLOCK / 2) == 0 || OH * OW <= 16) &&
                wt.getElementType().isF32() &&
                w.getDefiningOp<amk::onnx::ConstantOp>();
  // With 8-float vectors the direct kernel's 16-float register tiles spill:
  // measured on an AVX2 EPYC, 2-4x slower than im2col on 1x1 to 3x3
  // layers (docs/runtime.md). Under auto it is left to Winograd there.
  bool directPays =
      opts.vectorWidth == 16 || opts.convKernel == amk::ConvKernel::Direct;
  // NCHW16c operands (findChannelBlocked): only on the kernels it chose
  // them for.
  const bool xBlk = channelBlocked.contains(x),
             yBlk = channelBlocked.contains(op->getResult(0));
  const int64_t layout =
      (xBlk ? AMK_CONV_X_BLOCKED : 0) | (yBlk ? AMK_CONV_Y_BLOCKED : 0);
  if (pointwise && (!direct || !directPays)) {
    if (layout)
      return op->emitOpError("internal error: a channel-blocked operand on "
                             "the GEMM kernel");
    // A 1x1 convolution is a GEMM: Y[n] = W [OC x C] X[n] [C x P].
    KOp &k = newKOp(op, AMK_RT_K_GEMM);
    k.slots = {*wi, *xi, yi, bi, zi};
    k.ip.assign(AMK_GEMM_NUM_IPARAMS, 0);
    k.ip[AMK_GEMM_BATCH] = N, k.ip[AMK_GEMM_M] = OC, k.ip[AMK_GEMM_N] = P,
    k.ip[AMK_GEMM_K] = C;
    k.ip[AMK_GEMM_A_BSTRIDE] = 0, k.ip[AMK_GEMM_B_BSTRIDE] = C * P,
    k.ip[AMK_GEMM_C_BSTRIDE] = OC * P;
    k.ip[AMK_GEMM_LDA] = C, k.ip[AMK_GEMM_LDB] = P, k.ip[AMK_GEMM_LDC] = P;
    k.ip[AMK_GEMM_BIAS_MODE] = bi >= 0 ? 2 : 0;
    k.ip[AMK_GEMM_RES_BSTRIDE] = OC * P;
    k.ip[AMK_GEMM_ACT] = act;
    k.fp = {1.f, 1.f, actA, actB};
    k.rows = N * OC, k.cols = P, k.colTiling = true, k.rowAlign = 32,
    k.colAlign = 64;
    k.rowOperandBytes = 4.0 * OC * C;
    k.colOperandBytes = 4.0 * N * C * P;
    k.flops = flops;
    k.bytes = 4.0 * (OC * C + N * C * P + N * OC * P);
    int64_t xb = tensors[*xi].bytes, wbytes = tensors[*wi].bytes;
    int xs = *xi, ws = *wi;
    k.access = [=](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                   SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
      rd.push_back(whole(ws, wbytes));
      for (int64_t img = r0 / OC; img <= (r1 - 1) / OC; ++img) {
        int64_t m0 = std::max(r0, img * OC) - img * OC,
                m1 = std::min(r1, (img + 1) * OC) - img * OC;
        rd.push_back(rect(xs, (img * C * P + c0) * 4, (c1 - c0) * 4, P * 4, C));
        TAccess out = rect(yi, ((img * OC + m0) * P + c0) * 4, (c1 - c0) * 4,
                           P * 4, m1 - m0);
        wr.push_back(out);
        if (zi >= 0) {
          out.tensor = zi;
          rd.push_back(out);
        }
      }
      (void)xb;
      if (bi >= 0)
        rd.push_back(whole(bi, OC * 4));
    };
    return success();
  }
  bool depthwise = group == C && group > 1 && OC % C == 0;
  int wSlot = *wi;
  // Winograd: 3x3, stride and dilation 1, constant float weights.
  int64_t wino = 0;
  if (direct && KH == 3 && KW == 3 && sh == 1 && sw == 1 && dh == 1 &&
      dw == 1 &&
      (opts.convKernel == amk::ConvKernel::Auto ||
       opts.convKernel == amk::ConvKernel::Winograd)) {
    // A fixed tile size replaces the cost model's, but under `auto` a layer
    // the cost model gives to the direct kernel stays direct.
    bool force = opts.convKernel == amk::ConvKernel::Winograd;
    wino = chooseWinogradTile(g, opts.peakGflops, opts.memGbps, force);
    if (wino && opts.winogradTile)
      wino = opts.winogradTile;
  }
  if (!wino && !directPays)
    direct = false;
  if (wino) {
    auto value = amk::getConstantTensor(w);
    if (!value)
      return unsupported(op, "cannot read the constant weights");
    int64_t n = amk::rt::winograd::transformedWeightFloats(wino, OC, C);
    amk::ref::Tensor packed(value->dtype(),
                            {n / AMK_CONV_OC_BLOCK, AMK_CONV_OC_BLOCK});
    amk::rt::winograd::transformWeights(wino, OC, C, value->data<float>(),
                                        packed.data<float>());
    auto type = RankedTensorType::get(
        {n / AMK_CONV_OC_BLOCK, AMK_CONV_OC_BLOCK}, wt.getElementType());
    wSlot = newConstTensor(type, packed.toAttr(op->getContext()),
                           amk::onnx::getTensorName(w).str() + ".winograd" +
                               std::to_string(wino));
  } else if (direct) {
    auto packed = packDirectWeights(op, w, OC, C, KH * KW);
    if (failed(packed))
      return failure();
    wSlot = *packed;
  }
  // Grouped convolutions (not depthwise) take channel x position tiles
  // (variant 4): the implicit GEMM per group ran ResNeXt-50's and RegNet's
  // 4- to 32-channel groups at 11-42 GFLOP/s, and the direct loops of
  // variant 0 at ~1 (docs/runtime.md). `im2col` keeps the GEMM, and so do
  // weights that are not constant (the tiles read them packed).
  const bool grouped = group > 1 && !depthwise &&
                       opts.convKernel != amk::ConvKernel::Im2col &&
                       wt.getElementType().isF32() &&
                       w.getDefiningOp<amk::onnx::ConstantOp>();
  if (grouped) {
    // [group][C / group][taps][OC / group]: a tile's channels for one
    // input channel and tap are consecutive floats.
    auto value = amk::getConstantTensor(w);
    if (!value)
      return unsupported(op, "cannot read the constant weights");
    const int64_t icg = C / group, ocg = OC / group, taps = KH * KW;
    amk::ref::Tensor packed(value->dtype(), {OC * icg * taps});
    const float *src = value->data<float>();
    float *dst = packed.data<float>();
    for (int64_t o = 0; o < OC; ++o)
      for (int64_t j = 0; j < icg; ++j)
        for (int64_t t = 0; t < taps; ++t)
          dst[((o / ocg * icg + j) * taps + t) * ocg + o % ocg] =
              src[(o * icg + j) * taps + t];
    wSlot = newConstTensor(
        RankedTensorType::get({OC * icg * taps}, wt.getElementType()),
        packed.toAttr(op->getContext()),
        amk::onnx::getTensorName(w).str() + ".grouped");
  }
  if (layout && !(depthwise ? xBlk && yBlk : direct && !wino && pointwise))
    return op->emitOpError("internal error: a channel-blocked operand on a "
                           "kernel that does not take it");
  KOp &k = newKOp(op, depthwise ? AMK_RT_K_DWCONV : AMK_RT_K_CONV);
  k.variant = wino ? 3 : direct ? 2 : grouped ? 4 : !depthwise ? 1 : 0;
  k.slots = {*xi, wSlot, yi, bi, zi};
  k.ip.assign(wino || layout ? AMK_CONV_NUM_IPARAMS : AMK_SP_NUM_IPARAMS, 0);
  if (wino)
    k.ip[AMK_CONV_WINOGRAD_M] = wino;
  if (layout)
    k.ip[AMK_CONV_LAYOUT] = layout;
  int64_t *ip = k.ip.data();
  ip[AMK_SP_N] = N, ip[AMK_SP_C] = C, ip[AMK_SP_H] = H, ip[AMK_SP_W] = W,
  ip[AMK_SP_OC] = OC, ip[AMK_SP_KH] = KH, ip[AMK_SP_KW] = KW,
  ip[AMK_SP_OH] = OH, ip[AMK_SP_OW] = OW, ip[AMK_SP_SH] = sh,
  ip[AMK_SP_SW] = sw, ip[AMK_SP_PH] = ph, ip[AMK_SP_PW] = pw,
  ip[AMK_SP_DH] = dh, ip[AMK_SP_DW] = dw, ip[AMK_SP_GROUP] = group,
  ip[AMK_SP_MODE] = act;
  k.fp = {actA, actB};
  k.rows = N * OC;
  // A blocked depthwise tile runs whole 16-channel blocks.
  if (layout)
    k.rowAlign = 16;
  k.flops = flops;
  k.bytes = 4.0 * (N * C * H * W + tensors[*wi].bytes / 4 + N * OC * P);
  if (k.variant == 1) {
    k.cols = P, k.colTiling = true, k.rowAlign = 32, k.colAlign = 64;
    k.rowOperandBytes = 4.0 * OC * K;
    k.colOperandBytes = 4.0 * N * C * H * W * KH * KW;
  } else if (k.variant == 3) {
    // Column tiles are whole rows of output tiles. `flops` stays the
    // direct convolution's, so reported GFLOP/s are effective ones.
    k.bytes = 4.0 * (N * C * H * W + tensors[wSlot].bytes / 4 + N * OC * P);
    k.cols = P, k.colTiling = true, k.rowAlign = AMK_CONV_OC_BLOCK,
    k.colAlign = wino * OW;
    k.rowOperandBytes = tensors[wSlot].bytes;
    k.colOperandBytes = 4.0 * N * C * H * W;
    // Split columns first, although the transformed weights outweigh the
    // input: a row split makes every task copy and transform the whole
    // input again, while a column split only re-reads weights that the
    // workers then share through the last-level cache. Measured on
    // ResNet-18 at 2 workers: its F(4x4) 28x28 layers 0.55-0.62 ms ->
    // 0.40-0.47 ms, its F(2x2) 14x14 layers 0.64-0.73 -> 0.54-0.62
    // (docs/runtime.md).
    k.preferColumnSplit = true;
  } else if (k.variant == 4) {
    // Tiles are whole planes of whole groups where the groups are narrow:
    // a row tile reads only its groups' inputs, which it copies into its
    // phase planes once, while a column tile would copy every group's
    // rows and its junk columns weigh more on a short plane.
    k.cols = P, k.colTiling = false;
    k.rowAlign = OC / group <= 32 ? OC / group : 8;
  } else if (k.variant == 2) {
    // Column tiles are whole output rows (the register tiles run along a
    // row); row tiles whole 32-channel blocks.
    k.cols = P, k.colTiling = true, k.rowAlign = AMK_CONV_OC_BLOCK,
    k.colAlign = OW;
    k.rowOperandBytes = 4.0 * OC * K;
    k.colOperandBytes = 4.0 * N * C * H * W;
  }
  int xs = *xi, ws = wSlot;
  int64_t wbytes = tensors[wSlot].bytes;
  bool cols = k.variant != 0;
  int64_t mult = OC / C;
  k.access = [=](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(ws, wbytes));
    if (bi >= 0)
      rd.push_back(whole(bi, OC * 4));
    if (!cols)
      c0 = 0, c1 = P;
    for (int64_t img = r0 / OC; img <= (r1 - 1) / OC; ++img) {
      int64_t m0 = std::max(r0, img * OC) - img * OC,
              m1 = std::min(r1, (img + 1) * OC) - img * OC;
      // Input rows the output pixels [c0, c1) need, in every channel read.
      int64_t oy0 = c0 / OW, oy1 = (c1 - 1) / OW;
      int64_t iy0 = std::max<int64_t>(0, oy0 * sh - ph);
      int64_t iy1 = std::min<int64_t>(H - 1, oy1 * sh - ph + (KH - 1) * dh);
      int64_t ch0 = 0, ch1 = C;
      if (depthwise)
        ch0 = m0 / mult, ch1 = (m1 - 1) / mult + 1;
      else if (group > 1)
        ch0 = m0 / (OC / group) * (C / group),
        ch1 = ((m1 - 1) / (OC / group) + 1) * (C / group);
      // In NCHW16c a block of 16 channels is [H][W][16]: the same rows of
      // the pixels, 16 times as long, one per block.
      if (iy1 >= iy0 && xBlk)
        rd.push_back(rect(xs, ((img * C + ch0) * H * W + iy0 * W * 16) * 4,
                          (iy1 - iy0 + 1) * W * 64, H * W * 64,
                          (ch1 - ch0 + 15) / 16));
      else if (iy1 >= iy0)
        rd.push_back(rect(xs, ((img * C + ch0) * H + iy0) * W * 4,
                          (iy1 - iy0 + 1) * W * 4, H * W * 4, ch1 - ch0));
      TAccess out = yBlk ? rect(yi, ((img * OC + m0) * P + c0 * 16) * 4,
                                (c1 - c0) * 64, P * 64, (m1 - m0 + 15) / 16)
                         : rect(yi, ((img * OC + m0) * P + c0) * 4,
                                (c1 - c0) * 4, P * 4, m1 - m0);
      wr.push_back(out);
      if (zi >= 0) {
        out.tensor = zi;
        rd.push_back(out);
      }
    }
  };
  return success();
}

} // namespace amk::totask

namespace amk::totask {

/// ConvTranspose as one CONV_TRANSPOSE kernel (a gather per output
/// element). The begin pads come from `pads`, or, with auto_pad SAME_* or
/// an output_shape, from the total padding the output size implies (ONNX:
/// SAME_UPPER puts the smaller half first).
LogicalResult Scheduler::lowerConvTranspose(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto wt = cast<RankedTensorType>(op->getOperand(1).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  if (!xt.getElementType().isF32() || !wt.getElementType().isF32())
    return unsupported(op, "only float32 ConvTranspose is implemented");
  int64_t nsp = xt.getRank() - 2;
  if (nsp < 1 || nsp > 3)
    return unsupported(op, "only 1 to 3 spatial dims are implemented");
  int64_t group = intAttr(op, "group", 1);
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), OC = yt.getDimSize(1);
  if (group < 1 || C % group || wt.getDimSize(0) != C ||
      wt.getDimSize(1) * group != OC)
    return unsupported(op, "its weight does not match its channels and "
                           "group");
  auto get = [](ArrayRef<int64_t> v, int64_t i, int64_t d) {
    return i < (int64_t)v.size() ? v[i] : d;
  };
  SmallVector<int64_t> st = intsAttr(op, "strides"),
                       dil = intsAttr(op, "dilations"),
                       pads = intsAttr(op, "pads"),
                       outPad = intsAttr(op, "output_padding"),
                       outShape = intsAttr(op, "output_shape");
  StringRef autoPad = strAttr(op, "auto_pad", "NOTSET");
  SmallVector<int64_t> ip = {N, C, OC, group};
  for (int64_t i = 0; i < 3 - nsp; ++i)
    ip.append({1, 1, 1, 1, 0, 1});
  for (int64_t i = 0; i < nsp; ++i) {
    int64_t in = xt.getDimSize(2 + i), out = yt.getDimSize(2 + i),
            k = wt.getDimSize(2 + i), s = get(st, i, 1), d = get(dil, i, 1);
    int64_t begin = get(pads, i, 0);
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER" ||
        !outShape.empty()) {
      int64_t total =
          s * (in - 1) + get(outPad, i, 0) + (k - 1) * d + 1 - out;
      // Floor division, as the ONNX reference: an output_shape larger than
      // the natural size gives a negative total, zeros at the end.
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      begin = autoPad == "SAME_UPPER" ? half : total - half;
    }
    ip.append({in, out, k, s, begin, d});
  }
  auto xi = getTensor(op->getOperand(0), op);
  auto wi = getTensor(op->getOperand(1), op);
  if (failed(xi) || failed(wi))
    return failure();
  int bi = -1;
  if (op->getNumOperands() > 2 && !isNoneValue(op->getOperand(2))) {
    auto b = getTensor(op->getOperand(2), op);
    if (failed(b))
      return failure();
    bi = *b;
  }
  int yi = defineOutput(op->getResult(0));
  KOp &kop = newKOp(op, AMK_RT_K_CONV_TRANSPOSE);
  kop.slots = {*xi, *wi, yi, bi};
  kop.ip.assign(ip.begin(), ip.end());
  int64_t outPlane = product(yt.getShape().drop_front(2));
  kop.rows = N * OC;
  kop.flops = 2.0 * xt.getNumElements() * wt.getNumElements() / C;
  kop.bytes = 4.0 * (xt.getNumElements() + wt.getNumElements() +
                     yt.getNumElements());
  int64_t xBytes = tensors[*xi].bytes, wBytes = tensors[*wi].bytes,
          bBytes = bi >= 0 ? tensors[bi].bytes : 0;
  int xs = *xi, ws = *wi;
  kop.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                   SmallVectorImpl<TAccess> &rd,
                   SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(xs, xBytes));
    rd.push_back(whole(ws, wBytes));
    if (bi >= 0)
      rd.push_back(whole(bi, bBytes));
    wr.push_back(span(yi, r0 * outPlane * 4, r1 * outPlane * 4));
  };
  return success();
}

} // namespace amk::totask
