//===- LowerInvertedResidual.cpp - Expand/depthwise/project chains -------===//
//
// Part of AMK. amk-schedule-megakernel{fuse-blocks}: a 3x3 depthwise
// convolution between a 1x1 expansion (optional) and a 1x1 projection
// becomes one INVERTED_RESIDUAL kernel over output row strips, so the
// expanded activation stays in cache instead of going to memory and back
// (design.md, docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "transforms/Utils/PassUtils.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXDialect.h"

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

namespace {

/// Constant float32 weights of a convolution, 1-D or 2-D NCHW.
bool hasConstWeights(Operation *op) {
  Value w = op->getOperand(1);
  auto wt = dyn_cast<RankedTensorType>(w.getType());
  return wt && wt.getElementType().isF32() &&
         w.getDefiningOp<amk::onnx::ConstantOp>();
}

bool isConv(Operation *op) {
  return op && isa<amk::onnx::ConvOp, amk::fused::ConvOp>(op) &&
         cast<RankedTensorType>(op->getOperand(0).getType()).getRank() == 4 &&
         cast<RankedTensorType>(op->getOperand(0).getType())
             .getElementType()
             .isF32() &&
         hasConstWeights(op) &&
         activationCode(strAttr(op, "activation", "none")) >= 0;
}

Value residualOf(Operation *op) {
  return op->getNumOperands() > 3 ? op->getOperand(3) : Value();
}

/// A 1x1, stride-1, unpadded, group-1 convolution.
bool isPointwise(Operation *op) {
  if (!isConv(op))
    return false;
  ConvGeometry g = ConvGeometry::of(op, op->getOperand(1));
  return g.group == 1 && g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 &&
         g.ph == 0 && g.pw == 0 && g.oh == g.h && g.ow == g.w;
}

/// The op's only user, if its result has exactly one use.
Operation *soleUser(Operation *op) {
  Value r = op->getResult(0);
  return r.hasOneUse() ? *r.getUsers().begin() : nullptr;
}

} // namespace

void Scheduler::findInvertedResiduals() {
  // The fused kernel's register tiles are 16-float vectors (vector-width).
  if (!opts.fuseBlocks || opts.vectorWidth != 16)
    return;
  for (Operation &op : func.getBody().front()) {
    Operation *dw = &op;
    if (!isConv(dw) || !isNoneValue(residualOf(dw)))
      continue;
    ConvGeometry g = ConvGeometry::of(dw, dw->getOperand(1));
    // A padded 3x3 depthwise convolution of stride 1 or 2.
    if (g.group != g.c || g.oc != g.c || g.kh != 3 || g.kw != 3 || g.dh != 1 ||
        g.dw != 1 || g.sh != g.sw || (g.sh != 1 && g.sh != 2) || g.ph != 1 ||
        g.pw != 1 || g.oh != (g.h - 1) / g.sh + 1 ||
        g.ow != (g.w - 1) / g.sw + 1)
      continue;
    Operation *project = soleUser(dw);
    if (project &&
        (!isPointwise(project) || project->getOperand(0) != dw->getResult(0)))
      project = nullptr;
    if (project) {
      Value res = residualOf(project);
      if (!isNoneValue(res) && res.getType() != project->getResult(0).getType())
        project = nullptr;
    }
    Operation *expand = dw->getOperand(0).getDefiningOp();
    // The previous block's projection is not also this one's expansion.
    if (!isPointwise(expand) || !isNoneValue(residualOf(expand)) ||
        soleUser(expand) != dw || absorbed.contains(expand))
      expand = nullptr;
    // Without a projection (the depthwise output also feeds a
    // squeeze-excitation, as in EfficientNet), the block is the expansion
    // and the depthwise layer alone, the output written as the depthwise
    // layer's: the expanded activation still never leaves the strip.
    if (!project && !expand)
      continue;
    // Only where the expanded activation would not stay in cache anyway:
    // on small planes the per-row products are short and the separate
    // kernels are as fast (docs/runtime.md). A block without a projection
    // saves one round trip of it, not two, so it needs twice the bytes:
    // EfficientNet-B0's 4.8 MB block ran 1.12 -> 0.95 ms fused, its 1.8 MB
    // one 0.55 -> 0.62 ms.
    if (4.0 * g.c * g.h * g.w < opts.fuseBlocksMinBytes * (project ? 1 : 2))
      continue;
    blocks[dw] = {expand, project};
    if (expand)
      absorbed.insert(expand);
    if (project)
      absorbed.insert(project);
  }
}

LogicalResult Scheduler::lowerInvertedResidual(Operation *dw) {
  auto [expand, project] = blocks.lookup(dw);
  Value x = expand ? expand->getOperand(0) : dw->getOperand(0);
  ConvGeometry g = ConvGeometry::of(dw, dw->getOperand(1));
  // Without a projection the block ends at the depthwise layer.
  Operation *last = project ? project : dw;
  auto yt = cast<RankedTensorType>(last->getResult(0).getType());
  const int64_t N = g.n, CE = g.c, H = g.h, W = g.w, OH = g.oh, OW = g.ow,
                CO = yt.getDimSize(1), S = g.sh;
  const int64_t C = cast<RankedTensorType>(x.getType()).getDimSize(1);
  // Optional operands: -1 where absent.
  auto optional = [&](Value v, Operation *user) -> FailureOr<int> {
    if (isNoneValue(v))
      return -1;
    return getTensor(v, user);
  };
  auto operand = [](Operation *op, unsigned i) {
    return op->getNumOperands() > i ? op->getOperand(i) : Value();
  };
  auto xi = getTensor(x, expand ? expand : dw);
  auto wd = getTensor(dw->getOperand(1), dw);
  auto bd = optional(operand(dw, 2), dw);
  FailureOr<int> w3 = -1, b3 = -1, ri = -1;
  if (project) {
    w3 = getTensor(project->getOperand(1), project);
    b3 = optional(operand(project, 2), project);
    ri = optional(residualOf(project), project);
  }
  FailureOr<int> w1 = -1, b1 = -1;
  if (expand) {
    w1 = getTensor(expand->getOperand(1), expand);
    b1 = optional(operand(expand, 2), expand);
  }
  for (auto r : {xi, wd, w3, bd, b3, ri, w1, b1})
    if (failed(r))
      return failure();
  int yi = defineOutput(last->getResult(0));
  auto act = [](Operation *op) {
    return op ? activationCode(strAttr(op, "activation", "none")) : 0;
  };
  auto actParams = [](Operation *op) -> std::pair<float, float> {
    if (!op)
      return {0.f, 0.f};
    return {floatAttr(op, "activation_alpha", 0),
            floatAttr(op, "activation_beta", 0)};
  };
  // Variant 1 (blocked-layout): the strips' activations channel-blocked and
  // the 1x1 products on the direct kernel's register tiles, so its
  // weights are packed as that kernel's.
  const bool blocked = opts.blockedLayout && expand && CE % 16 == 0;
  if (blocked) {
    auto p1 = packDirectWeights(expand, expand->getOperand(1), CE, C, 1);
    if (failed(p1))
      return failure();
    w1 = *p1;
    if (project) {
      auto p3 = packDirectWeights(project, project->getOperand(1), CO, CE, 1);
      if (failed(p3))
        return failure();
      w3 = *p3;
    }
  }
  KOp &k = newKOp(dw, AMK_RT_K_INVERTED_RESIDUAL);
  k.variant = blocked ? 1 : 0;
  k.slots.assign(AMK_IR_NUM_BUFFERS, -1);
  k.slots[AMK_IR_X] = *xi, k.slots[AMK_IR_W1] = *w1, k.slots[AMK_IR_B1] = *b1;
  k.slots[AMK_IR_WD] = *wd, k.slots[AMK_IR_BD] = *bd;
  k.slots[AMK_IR_W3] = *w3, k.slots[AMK_IR_B3] = *b3;
  k.slots[AMK_IR_R] = *ri, k.slots[AMK_IR_Y] = yi;
  k.ip.assign(AMK_IR_NUM_IPARAMS, 0);
  k.ip[AMK_IR_N] = N, k.ip[AMK_IR_C] = C, k.ip[AMK_IR_H] = H,
  k.ip[AMK_IR_W] = W, k.ip[AMK_IR_CE] = CE, k.ip[AMK_IR_CO] = CO,
  k.ip[AMK_IR_OH] = OH, k.ip[AMK_IR_OW] = OW, k.ip[AMK_IR_STRIDE] = S,
  k.ip[AMK_IR_ACT1] = act(expand), k.ip[AMK_IR_ACT2] = act(dw),
  k.ip[AMK_IR_ACT3] = act(project);
  auto [a1, c1] = actParams(expand);
  auto [a2, c2] = actParams(dw);
  auto [a3, c3] = actParams(project);
  k.fp = {a1, c1, a2, c2, a3, c3};
  k.rows = N * OH;
  k.flops = 2.0 * N *
            ((expand ? CE * C * H * W : 0) + CE * 9 * OH * OW +
             (project ? CO * CE * OH * OW : 0));
  k.bytes = 4.0 * (N * C * H * W + N * CO * OH * OW + (expand ? CE * C : 0) +
                   CE * 9 + (project ? CO * CE : 0));
  // A task's output rows read the input rows their depthwise taps need
  // (one more above and below), every channel.
  const int xs = *xi, rs = *ri;
  SmallVector<std::pair<int, int64_t>> consts;
  for (int t : {*w1, *b1, *wd, *bd, *w3, *b3})
    if (t >= 0)
      consts.push_back({t, tensors[t].bytes});
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    for (auto [t, bytes] : consts)
      rd.push_back(whole(t, bytes));
    for (int64_t img = r0 / OH; img <= (r1 - 1) / OH; ++img) {
      int64_t oy0 = std::max(r0, img * OH) - img * OH,
              oy1 = std::min(r1, (img + 1) * OH) - img * OH;
      int64_t iy0 = std::max<int64_t>(0, oy0 * S - 1),
              iy1 = std::min<int64_t>(H - 1, (oy1 - 1) * S + 1);
      rd.push_back(rect(xs, (img * C * H + iy0) * W * 4,
                        (iy1 - iy0 + 1) * W * 4, H * W * 4, C));
      TAccess out = rect(yi, (img * CO * OH + oy0) * OW * 4,
                         (oy1 - oy0) * OW * 4, OH * OW * 4, CO);
      wr.push_back(out);
      if (rs >= 0) {
        out.tensor = rs;
        rd.push_back(out);
      }
    }
  };
  return success();
}

} // namespace amk::totask
