//===- LowerRandom.cpp - Random generators --------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: RandomUniform(Like),
// RandomNormal(Like), Bernoulli and Multinomial as one RANDOM kernel that
// draws the reference interpreter's values (kernel_params.h), so a
// compiled model with noise in it reproduces the interpreter run for run.
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "dialect/AMKTask/AMKTaskDialect.h"
#include "dialect/ONNX/ONNXDialect.h"

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

LogicalResult Scheduler::lowerRandom(Operation *op) {
  namespace onnx = amk::onnx;
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int variant = isa<onnx::RandomNormalOp, onnx::RandomNormalLikeOp>(op)
                    ? AMK_RAND_NORMAL
                : isa<onnx::BernoulliOp>(op)   ? AMK_RAND_BERNOULLI
                : isa<onnx::MultinomialOp>(op) ? AMK_RAND_MULTINOMIAL
                                               : AMK_RAND_UNIFORM;
  bool reads = variant == AMK_RAND_BERNOULLI || variant == AMK_RAND_MULTINOMIAL;
  int64_t outT = runtimeDtype(yt.getElementType()), inT = 0;
  if (outT < 0)
    return unsupported(op, "its result type has no runtime element type");
  int64_t count = yt.getNumElements(), classes = 1, samples = 1;
  int xi = -1;
  if (reads) {
    auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
    inT = runtimeDtype(xt.getElementType());
    if (inT < 0)
      return unsupported(op, "its input type has no runtime element type");
    if (variant == AMK_RAND_MULTINOMIAL) {
      if (xt.getRank() != 2 || yt.getRank() != 2)
        return unsupported(op, "its input is not [batch, classes]");
      count = xt.getDimSize(0);
      classes = xt.getDimSize(1);
      samples = yt.getDimSize(1);
      if (classes < 1)
        return unsupported(op, "it has no classes to draw from");
    }
    auto t = getTensor(op->getOperand(0), op);
    if (failed(t))
      return failure();
    xi = *t;
  }
  // The interpreter's seeding, to the bit: the float attribute through
  // double to an unsigned counter.
  auto seedAttr = op->getAttrOfType<FloatAttr>("seed");
  double seed = seedAttr ? (double)(float)seedAttr.getValueAsDouble() : 0.0;
  uint64_t state0 = static_cast<uint64_t>(seed) + 1;
  bool normal = variant == AMK_RAND_NORMAL;
  float a = normal ? floatAttr(op, "mean", 0.f) : floatAttr(op, "low", 0.f);
  float b = normal ? floatAttr(op, "scale", 1.f) : floatAttr(op, "high", 1.f);
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_RANDOM);
  k.variant = variant;
  k.slots = {xi, yi};
  k.ip = {count, classes, samples, inT, outT, (int64_t)state0};
  k.fp = {a, b};
  k.rows = count;
  k.flops = 20.0 * count * samples;
  k.bytes = (double)tensors[yi].bytes + (xi >= 0 ? tensors[xi].bytes : 0);
  int64_t rowBytes = tensors[yi].bytes / std::max<int64_t>(count, 1),
          xBytes = xi >= 0 ? tensors[xi].bytes : 0;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    if (xi >= 0)
      rd.push_back(whole(xi, xBytes));
    wr.push_back(span(yi, r0 * rowBytes, r1 * rowBytes));
  };
  return success();
}

} // namespace amk::totask
