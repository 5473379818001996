//===- LowerPool.cpp - Pooling --------------------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: MaxPool, AveragePool, their global
// forms, and ReduceMean/ReduceMax as pooling (design.md).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "transforms/Utils/PassUtils.h"
#include "transforms/Utils/Patterns.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

/// POOL's iparams (kernel_params.h) over N*C planes of H x W.
static SmallVector<int64_t> poolParams(int64_t N, int64_t C, int64_t H,
                                       int64_t W, int64_t KH, int64_t KW,
                                       int64_t OH, int64_t OW, int64_t sh,
                                       int64_t sw, int64_t ph, int64_t pw,
                                       int64_t dh, int64_t dw, int64_t mode) {
  SmallVector<int64_t> ip(AMK_SP_NUM_IPARAMS, 0);
  ip[AMK_SP_N] = N, ip[AMK_SP_C] = C, ip[AMK_SP_H] = H, ip[AMK_SP_W] = W,
  ip[AMK_SP_OC] = C, ip[AMK_SP_KH] = KH, ip[AMK_SP_KW] = KW,
  ip[AMK_SP_OH] = OH, ip[AMK_SP_OW] = OW, ip[AMK_SP_SH] = sh,
  ip[AMK_SP_SW] = sw, ip[AMK_SP_PH] = ph, ip[AMK_SP_PW] = pw,
  ip[AMK_SP_DH] = dh, ip[AMK_SP_DW] = dw, ip[AMK_SP_GROUP] = 1,
  ip[AMK_SP_MODE] = mode;
  return ip;
}

LogicalResult Scheduler::lowerPool(Operation *op) {
  if (op->getNumResults() > 1 && !isNoneValue(op->getResult(1)))
    return unsupported(op, "the Indices output is not implemented");
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  // MaxPool of 8-bit values (amk-lower-qdq's integer MaxPool): variants 1
  // (uint8) and 2 (int8).
  auto it = dyn_cast<IntegerType>(xt.getElementType());
  int64_t variant = 0;
  auto qavg = dyn_cast<fused::QAveragePoolOp>(op);
  if (it && it.getWidth() == 8 && isa<amk::onnx::MaxPoolOp>(op))
    variant = it.isUnsigned() ? 1 : 2;
  if (qavg)
    variant = AMK_POOL_VARIANT_QAVERAGE;
  if ((!xt.getElementType().isF32() && variant == 0) ||
      (xt.getRank() != 4 && xt.getRank() != 3))
    return unsupported(op, "only 1-D and 2-D float32 pooling (and 8-bit "
                           "MaxPool) is implemented");
  bool global =
      isa<amk::onnx::GlobalAveragePoolOp, amk::onnx::GlobalMaxPoolOp>(op) ||
      (qavg && !qavg.getKernelShape());
  // 1-D pooling is 2-D pooling of planes one row high.
  bool oneD = xt.getRank() == 3;
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1),
          H = oneD ? 1 : xt.getDimSize(2), W = xt.getDimSize(oneD ? 2 : 3),
          OH = oneD ? 1 : yt.getDimSize(2), OW = yt.getDimSize(oneD ? 2 : 3);
  auto ks = intsAttr(op, "kernel_shape"), st = intsAttr(op, "strides"),
       pads = intsAttr(op, "pads"), dil = intsAttr(op, "dilations");
  if (oneD) {
    // [k] -> [1, k]; pads [b, e] -> [0, b, 0, e].
    auto widen = [](SmallVector<int64_t> v, int64_t one) {
      if (!v.empty())
        v.insert(v.begin(), one);
      return v;
    };
    ks = widen(ks, 1), st = widen(st, 1), dil = widen(dil, 1);
    if (pads.size() == 2)
      pads = {0, pads[0], 0, pads[1]};
  }
  auto get = [](ArrayRef<int64_t> v, int64_t i, int64_t d) {
    return i < (int64_t)v.size() ? v[i] : d;
  };
  int64_t KH = global ? H : get(ks, 0, 1), KW = global ? W : get(ks, 1, 1);
  int64_t sh = get(st, 0, 1), sw = get(st, 1, 1);
  int64_t ph = get(pads, 0, 0), pw = get(pads, 1, 0);
  int64_t dh = get(dil, 0, 1), dw = get(dil, 1, 1);
  StringRef autoPad = strAttr(op, "auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    auto padFor = [&](int64_t in, int64_t out, int64_t k, int64_t s) {
      int64_t total = std::max<int64_t>(0, (out - 1) * s + k - in);
      return autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
    };
    ph = padFor(H, OH, KH, sh), pw = padFor(W, OW, KW, sw);
  }
  int64_t mode = isa<amk::onnx::MaxPoolOp, amk::onnx::GlobalMaxPoolOp>(op) ? 0
                 : intAttr(op, "count_include_pad", 0) ? 1
                                                       : 2;
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_POOL);
  k.variant = variant;
  k.slots = {*xi, yi};
  k.ip = poolParams(N, C, H, W, KH, KW, OH, OW, sh, sw, ph, pw, dh, dw, mode);
  if (qavg && failed(appendQuantEdges(op, k, qavg.getX(), qavg.getXScale(),
                                      qavg.getXZeroPoint(), qavg.getY(),
                                      qavg.getYScale(), qavg.getYZeroPoint())))
    return failure();
  k.rows = N * C;
  k.flops = 1.0 * N * C * OH * OW * KH * KW;
  const int64_t eb = variant ? 1 : 4; // element bytes
  k.bytes = (double)eb * N * C * (H * W + OH * OW);
  int xs = *xi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * H * W * eb, r1 * H * W * eb));
    wr.push_back(span(yi, r0 * OH * OW * eb, r1 * OH * OW * eb));
  };
  return success();
}

} // namespace amk::totask

namespace amk::totask {

/// ReduceMean, ReduceSum, ReduceMax and ReduceMin over a contiguous run of
/// axes are pooling: the
/// input seen as [outer, R, inner] is pooled by an R x 1 window into
/// [outer, 1, inner], one row of tasks per outer index. keepdims only
/// changes the result's type, not its bytes.
LogicalResult Scheduler::lowerReduce(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t dtype = runtimeDtype(xt.getElementType());
  if (dtype < 0 || !xt.hasStaticShape())
    return unsupported(op, "only reductions of a static tensor of a numeric "
                           "type are implemented");
  bool typed = !xt.getElementType().isF32();
  int64_t rank = xt.getRank();
  SmallVector<int64_t> axes = intsAttr(op, "axes");
  if (op->getNumOperands() > 1 && !isNoneValue(op->getOperand(1))) {
    auto c = amk::getConstantTensor(op->getOperand(1));
    if (!c)
      return unsupported(op, "its axes are not a constant");
    auto v = c->toInt64Vector();
    axes.assign(v.begin(), v.end());
  }
  // noop_with_empty_axes and no axes: the output is the input (ONNX), a
  // sum over a window of one element.
  bool identity = axes.empty() && intAttr(op, "noop_with_empty_axes", 0);
  if (axes.empty() && !identity)
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  if (identity)
    axes.push_back(rank - 1 < 0 ? 0 : rank - 1);
  for (int64_t &a : axes) {
    if (a < -rank || a >= rank)
      return unsupported(op, "axis " + Twine(a) + " is out of range");
    a = a < 0 ? a + rank : a;
  }
  llvm::sort(axes);
  for (size_t i = 1; i < axes.size(); ++i)
    if (axes[i] != axes[i - 1] + 1)
      return unsupported(op, "its axes are not contiguous (reduce over "
                             "adjacent axes, or transpose first)");
  int64_t outer = 1, R = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < axes.front() ? outer : d <= axes.back() ? R : inner) *=
        xt.getDimSize(d);
  if (identity)
    outer *= R, R = 1;
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, typed ? AMK_RT_K_REDUCE : AMK_RT_K_POOL);
  k.slots = {*xi, yi};
  int64_t mode = llvm::TypeSwitch<Operation *, int64_t>(op)
                     .Case([](onnx::ReduceMaxOp) { return 0; })
                     .Case([](onnx::ReduceSumOp) { return 3; })
                     .Case([](onnx::ReduceMinOp) { return 4; })
                     .Case([](onnx::ReduceL1Op) { return AMK_POOL_L1; })
                     .Case([](onnx::ReduceL2Op) { return AMK_POOL_L2; })
                     .Case([](onnx::ReduceSumSquareOp) {
                       return AMK_POOL_SUM_SQUARE;
                     })
                     .Case([](onnx::ReduceLogSumOp) {
                       return AMK_POOL_LOG_SUM;
                     })
                     .Case([](onnx::ReduceLogSumExpOp) {
                       return AMK_POOL_LOG_SUM_EXP;
                     })
                     .Case([](onnx::ReduceProdOp) { return AMK_POOL_PROD; })
                     .Default([](Operation *) { return 2; });
  if (identity)
    mode = 3;
  int64_t eb = elemBytes(xt.getElementType());
  if (typed)
    k.ip = {outer, R, inner, mode, dtype};
  else
    k.ip = poolParams(outer, 1, R, inner, R, 1, 1, inner, 1, 1, 0, 0, 1, 1,
                      mode);
  k.rows = outer;
  k.flops = 1.0 * outer * R * inner;
  k.bytes = (double)eb * outer * inner * (R + 1);
  int xs = *xi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * R * inner * eb, r1 * R * inner * eb));
    wr.push_back(span(yi, r0 * inner * eb, r1 * inner * eb));
  };
  return success();
}

} // namespace amk::totask
