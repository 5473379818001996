//===- LowerElementwise.cpp - Elementwise ---------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: elementwise ops, fused groups and inference BatchNormalization as register programs (design.md).
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

namespace onnx = amk::onnx;

/// The register-program instruction of an elementwise op that needs no
/// attribute, if it has one. Binary ops take exactly two operands,
/// variadic ones (Max, Min) one or more.
std::optional<EwOpcode> simpleOpcode(Operation *op) {
  auto unary = [](int code) { return EwOpcode{EwArity::Unary, code}; };
  auto binary = [](int code) { return EwOpcode{EwArity::Binary, code}; };
  using Result = std::optional<EwOpcode>;
  return llvm::TypeSwitch<Operation *, Result>(op)
      .Case<onnx::AddOp, amk::fused::BiasSoftmaxOp>(
          [&](Operation *) { return binary(AMK_OP_ADD); })
      .Case([&](onnx::SubOp) { return binary(AMK_OP_SUB); })
      .Case([&](onnx::MulOp) { return binary(AMK_OP_MUL); })
      .Case([&](onnx::DivOp) { return binary(AMK_OP_DIV); })
      .Case([&](onnx::PowOp) { return binary(AMK_OP_POW); })
      .Case([&](onnx::MaxOp) { return EwOpcode{EwArity::Variadic, AMK_OP_MAX}; })
      .Case([&](onnx::MinOp) { return EwOpcode{EwArity::Variadic, AMK_OP_MIN}; })
      .Case([&](onnx::ReluOp) { return unary(AMK_OP_RELU); })
      .Case([&](onnx::SigmoidOp) { return unary(AMK_OP_SIGMOID); })
      .Case([&](onnx::TanhOp) { return unary(AMK_OP_TANH); })
      .Case([&](onnx::ErfOp) { return unary(AMK_OP_ERF); })
      .Case([&](onnx::SqrtOp) { return unary(AMK_OP_SQRT); })
      .Case([&](onnx::ExpOp) { return unary(AMK_OP_EXP); })
      .Case([&](onnx::LogOp) { return unary(AMK_OP_LOG); })
      .Case([&](onnx::NegOp) { return unary(AMK_OP_NEG); })
      .Case([&](onnx::AbsOp) { return unary(AMK_OP_ABS); })
      .Case([&](onnx::ReciprocalOp) { return unary(AMK_OP_RECIPROCAL); })
      .Case([&](onnx::FloorOp) { return unary(AMK_OP_FLOOR); })
      .Case([&](onnx::CeilOp) { return unary(AMK_OP_CEIL); })
      .Case([&](onnx::RoundOp) { return unary(AMK_OP_ROUND); })
      .Case([&](onnx::SoftplusOp) { return unary(AMK_OP_SOFTPLUS); })
      .Case([&](onnx::HardSwishOp) { return unary(AMK_OP_HARD_SWISH); })
      .Case([&](onnx::IdentityOp) { return unary(AMK_OP_COPY); })
      .Case([&](onnx::SoftsignOp) { return unary(AMK_OP_SOFTSIGN); })
      .Case([&](onnx::MishOp) { return unary(AMK_OP_MISH); })
      .Case([&](onnx::SignOp) { return unary(AMK_OP_SIGN); })
      .Case([&](onnx::SinOp) { return unary(AMK_OP_SIN); })
      .Case([&](onnx::CosOp) { return unary(AMK_OP_COS); })
      .Case([&](onnx::TanOp) { return unary(AMK_OP_TAN); })
      .Case([&](onnx::AsinOp) { return unary(AMK_OP_ASIN); })
      .Case([&](onnx::AcosOp) { return unary(AMK_OP_ACOS); })
      .Case([&](onnx::AtanOp) { return unary(AMK_OP_ATAN); })
      .Case([&](onnx::SinhOp) { return unary(AMK_OP_SINH); })
      .Case([&](onnx::CoshOp) { return unary(AMK_OP_COSH); })
      .Case([&](onnx::AsinhOp) { return unary(AMK_OP_ASINH); })
      .Case([&](onnx::AcoshOp) { return unary(AMK_OP_ACOSH); })
      .Case([&](onnx::AtanhOp) { return unary(AMK_OP_ATANH); })
      .Case([&](onnx::PReluOp) { return binary(AMK_OP_PRELU); })
      .Case([&](onnx::SumOp) { return EwOpcode{EwArity::Variadic, AMK_OP_ADD}; })
      .Default([](Operation *) { return Result(); });
}

/// Unary ops whose attributes become the instruction's alpha and beta.
std::optional<UnaryCode> attrUnaryOpcode(Operation *o) {
  using Result = std::optional<UnaryCode>;
  return llvm::TypeSwitch<Operation *, Result>(o)
      .Case([&](onnx::LeakyReluOp) {
        return UnaryCode{AMK_OP_LEAKY_RELU, floatAttr(o, "alpha", 0.01f), 0};
      })
      .Case([&](onnx::HardSigmoidOp) {
        return UnaryCode{AMK_OP_HARD_SIGMOID, floatAttr(o, "alpha", 0.2f),
                         floatAttr(o, "beta", 0.5f)};
      })
      .Case([&](onnx::EluOp) {
        return UnaryCode{AMK_OP_ELU, floatAttr(o, "alpha", 1.f), 0};
      })
      .Case([&](onnx::SeluOp) {
        return UnaryCode{AMK_OP_SELU,
                         floatAttr(o, "alpha", 1.67326319217681884765625f),
                         floatAttr(o, "gamma", 1.05070102214813232421875f)};
      })
      .Case([&](onnx::CeluOp) {
        return UnaryCode{AMK_OP_CELU, floatAttr(o, "alpha", 1.f), 0};
      })
      .Case([&](onnx::ThresholdedReluOp) {
        return UnaryCode{AMK_OP_THRESHOLDED_RELU, floatAttr(o, "alpha", 1.f),
                         0};
      })
      .Case([&](onnx::ShrinkOp) {
        return UnaryCode{AMK_OP_SHRINK, floatAttr(o, "bias", 0.f),
                         floatAttr(o, "lambd", 0.5f)};
      })
      .Case<onnx::GeluOp, amk::fused::GeluOp>([&](Operation *) {
        StringRef approx = strAttr(o, "approximate", "none");
        if (approx == "quick")
          return UnaryCode{AMK_OP_QUICK_GELU, floatAttr(o, "alpha", 1.702f),
                           0};
        return UnaryCode{approx == "tanh" ? AMK_OP_GELU_TANH : AMK_OP_GELU,
                         0, 0};
      })
      .Default([](Operation *) { return Result(); });
}

/// Element types the float32 register program loads (EwProgram).
static bool floatProgramLoads(Type t) {
  auto st = dyn_cast<ShapedType>(t);
  if (!st)
    return false;
  Type e = st.getElementType();
  return e.isF32() || e.isSignlessInteger(64) || e.isSignlessInteger(32) ||
         e.isSignlessInteger(8) || e.isUnsignedInteger(8) || e.isInteger(1);
}

/// Builds an elementwise program for one op, amk.gelu, amk.bias_softmax's
/// addition or an amk.fused_elementwise region.
LogicalResult Scheduler::lowerElementwise(Operation *op) {
  bool region = isa<amk::fused::FusedElementwiseOp>(op);
  auto yt = op->getNumResults() == 1
                ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                : RankedTensorType();
  if (!yt)
    return unsupported(op, "no runtime kernel implements this op");
  if (!region) {
    // The float32 register program when it can run the op (it fuses and
    // compiles to code); TYPED_ELEMENTWISE for every other type.
    bool constBounds = true;
    if (isa<onnx::ClipOp>(op))
      for (Value v : op->getOperands().drop_front())
        if (!isNoneValue(v) && !amk::onnx::getSplatValue(v))
          constBounds = false;
    bool floatOp = simpleOpcode(op) || attrUnaryOpcode(op) ||
                   (isa<onnx::ClipOp>(op) && constBounds) ||
                   isa<onnx::CastOp>(op);
    bool floatTypes = yt.getElementType().isF32();
    for (Value v : op->getOperands())
      if (!isNoneValue(v) && !floatProgramLoads(v.getType()))
        floatTypes = false;
    if (!floatOp || !floatTypes)
      return lowerTypedElementwise(op);
  }
  if (!yt.getElementType().isF32())
    return unsupported(op, "a fused elementwise group computes float32 "
                           "only");
  ArrayRef<int64_t> outShape = yt.getShape();
  int64_t rank = outShape.size();
  // x * s with one s per channel (and image), [1 or N, C, 1, ...]:
  // squeeze-excitation's scale, a depthwise 1x1 convolution with weights s
  // (one vector pass per plane). As a program with a broadcast operand it
  // moved 3-12 GB/s on 14x14 and 7x7 planes (EfficientNet-B0's 16 scales:
  // 1.29 ms, docs/runtime.md). A per-image s makes the images' channels one
  // row of N * C planes.
  if (!region && isa<onnx::MulOp>(op) && rank >= 3 && yt.getNumElements() > 0)
    for (int side = 0; side < 2; ++side) {
      Value xv = op->getOperand(side), sv = op->getOperand(1 - side);
      auto xt = dyn_cast<RankedTensorType>(xv.getType());
      auto st = dyn_cast<RankedTensorType>(sv.getType());
      if (!xt || !st || xt.getShape() != outShape || st.getRank() > rank ||
          !xt.getElementType().isF32() || !st.getElementType().isF32())
        continue;
      // s's dims aligned to the output's from the right ([C, 1, 1] is
      // [1, C, 1, 1]).
      SmallVector<int64_t> sd(rank - st.getRank(), 1);
      sd.append(st.getShape().begin(), st.getShape().end());
      const int64_t N = outShape[0], C = outShape[1];
      if (C < 2 || sd[1] != C || (sd[0] != 1 && sd[0] != N) ||
          llvm::any_of(ArrayRef(sd).drop_front(2),
                       [](int64_t d) { return d != 1; }))
        continue;
      auto xi = getTensor(xv, op), si = getTensor(sv, op);
      if (failed(xi) || failed(si))
        return failure();
      const bool perImage = sd[0] == N && N > 1;
      channelScale(op, *xi, *si, -1, defineOutput(op->getResult(0)),
                   perImage ? 1 : N, perImage ? N * C : C,
                   yt.getNumElements() / (N * C), AMK_OP_NONE);
      return success();
    }
  SmallVector<int> inputs;       // tensor ids, registers 0..n-1
  SmallVector<Value> inputValues; // the values they hold
  SmallVector<int64_t> instr;    // op, dst, a, b, imm
  SmallVector<float> imm;
  SmallVector<Operation *> body;
  Block *blk = region ? &op->getRegion(0).front() : nullptr;
  if (region) {
    for (Operation &o : blk->without_terminator())
      body.push_back(&o);
  } else {
    body.push_back(op);
  }
  // What a body operand reads: a region argument is the op's operand.
  auto readValue = [&](Value v) -> Value {
    if (auto arg = dyn_cast<BlockArgument>(v))
      if (region && arg.getOwner() == blk)
        return op->getOperand(arg.getArgNumber());
    return v;
  };
  auto isIntermediate = [&](Value v) {
    Operation *d = v.getDefiningOp();
    return region && d && d->getBlock() == blk &&
           !isa<amk::onnx::ConstantOp>(d);
  };
  auto scalarConst = [&](Value src) -> std::optional<double> {
    if (!src.getDefiningOp<amk::onnx::ConstantOp>() ||
        cast<ShapedType>(src.getType()).getNumElements() != 1)
      return std::nullopt;
    return amk::onnx::getSplatValue(src);
  };
  // Inputs first, so they own registers 0..n-1.
  SmallVector<Value> operandsRead;
  for (Operation *o : body)
    operandsRead.append(o->operand_begin(), o->operand_end());
  if (region)
    operandsRead.push_back(blk->getTerminator()->getOperand(0));
  for (Value v : operandsRead) {
    if (isNoneValue(v) || isIntermediate(v))
      continue;
    Value src = readValue(v);
    if (scalarConst(src) || llvm::is_contained(inputValues, src))
      continue;
    auto st = dyn_cast<RankedTensorType>(src.getType());
    if (!st || !broadcastsTo(st.getShape(), outShape))
      return unsupported(op, "an operand cannot be broadcast to the output");
    auto t = getTensor(src, op);
    if (failed(t))
      return failure();
    inputs.push_back(*t);
    inputValues.push_back(src);
  }
  int64_t ninputs = inputs.size();
  int64_t nextReg = ninputs;
  DenseMap<Value, int64_t> reg;
  std::function<FailureOr<int64_t>(Value)> operandReg =
      [&](Value v) -> FailureOr<int64_t> {
    auto it = reg.find(v);
    if (it != reg.end())
      return it->second;
    Value src = readValue(v);
    if (auto c = scalarConst(src)) {
      int64_t r = nextReg++;
      instr.append({AMK_OP_CONST, r, 0, 0, (int64_t)imm.size()});
      imm.append({(float)*c, 0.f});
      reg[v] = r;
      return r;
    }
    auto pos = llvm::find(inputValues, src);
    if (pos == inputValues.end())
      return failure();
    return reg[v] = pos - inputValues.begin();
  };
  auto emitUnary = [&](int code, int64_t a, float alpha, float beta) {
    int64_t r = nextReg++;
    instr.append({code, r, a, 0, (int64_t)imm.size()});
    imm.append({alpha, beta});
    return r;
  };
  auto emitBinary = [&](int code, int64_t a, int64_t b) {
    int64_t r = nextReg++;
    instr.append({code, r, a, b, 0});
    return r;
  };
  for (Operation *o : body) {
    // An absent operand (Clip without a lower bound, as torch.clamp(x,
    // max=...) exports) is read as -1 below, never computed.
    if (isa<amk::onnx::ConstantOp, amk::onnx::NoValueOp>(o))
      continue;
    SmallVector<int64_t> args;
    for (Value v : o->getOperands()) {
      if (isNoneValue(v)) {
        args.push_back(-1);
        continue;
      }
      auto r = operandReg(v);
      if (failed(r))
        return unsupported(op, "operand of " + amk::nodeLabel(o) +
                                   " cannot be broadcast to the output");
      args.push_back(*r);
    }
    int64_t out;
    std::optional<EwOpcode> simple = simpleOpcode(o);
    if (simple && simple->arity == EwArity::Variadic && args.size() == 1) {
      out = emitUnary(AMK_OP_COPY, args[0], 0, 0);
    } else if (simple && simple->arity != EwArity::Unary &&
               args.size() >= 2 &&
               (simple->arity == EwArity::Variadic || args.size() == 2)) {
      out = args[0];
      for (size_t i = 1; i < args.size(); ++i)
        out = emitBinary(simple->opcode, out, args[i]);
    } else if (simple && simple->arity == EwArity::Unary &&
               args.size() == 1) {
      out = emitUnary(simple->opcode, args[0], 0, 0);
    } else if (auto u = attrUnaryOpcode(o)) {
      out = emitUnary(u->code, args[0], u->alpha, u->beta);
    } else if (isa<onnx::ClipOp>(o)) {
      auto lo = args.size() > 1 && args[1] >= 0
                    ? amk::onnx::getSplatValue(readValue(o->getOperand(1)))
                    : std::optional<double>(-INFINITY);
      auto hi = args.size() > 2 && args[2] >= 0
                    ? amk::onnx::getSplatValue(readValue(o->getOperand(2)))
                    : std::optional<double>(INFINITY);
      if (!lo || !hi)
        return unsupported(op, "Clip bounds must be constants");
      out = emitUnary(AMK_OP_CLIP, args[0], *lo, *hi);
    } else if (isa<onnx::CastOp>(o) &&
               cast<ShapedType>(o->getResult(0).getType())
                   .getElementType()
                   .isF32()) {
      out = emitUnary(AMK_OP_COPY, args[0], 0, 0);
    } else {
      return unsupported(o, "no elementwise kernel for this op");
    }
    reg[o->getResult(0)] = out;
  }
  int64_t result;
  if (region) {
    Value y = op->getRegion(0).front().getTerminator()->getOperand(0);
    auto r = operandReg(y);
    if (failed(r))
      return unsupported(op, "bad region result");
    result = *r;
  } else {
    result = reg[op->getResult(0)];
  }
  if (imm.size() < 2)
    imm.append({0.f, 0.f});
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_ELEMENTWISE);
  k.slots.push_back(yi);
  k.ip.push_back(rank);
  k.ip.append(outShape.begin(), outShape.end());
  k.ip.push_back(ninputs);
  SmallVector<bool> sameShape;
  for (int t : inputs) {
    RankedTensorType it = tensors[t].type;
    k.slots.push_back(t);
    k.ip.push_back(amk::task::runtimeDtype(it.getElementType()));
    k.ip.append(broadcastStrides(it.getShape(), rank));
    sameShape.push_back(it.getShape() == outShape);
  }
  k.ip.push_back(instr.size() / 5);
  k.ip.append(instr.begin(), instr.end());
  k.ip.push_back(result);
  k.fp.assign(imm.begin(), imm.end());
  int64_t numel = yt.getNumElements();
  k.rows = numel, k.rowAlign = 256;
  k.flops = numel * std::max<int64_t>(1, instr.size() / 5);
  k.bytes = 4.0 * numel * (1 + ninputs);
  SmallVector<int> ins(inputs);
  SmallVector<int64_t> inBytes;
  for (int t : inputs)
    inBytes.push_back(tensors[t].bytes);
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    for (auto [i, t] : llvm::enumerate(ins)) {
      int64_t eb = inBytes[i] / std::max<int64_t>(1, numel);
      if (sameShape[i])
        rd.push_back(span(t, r0 * eb, r1 * eb));
      else
        rd.push_back(whole(t, inBytes[i]));
    }
    wr.push_back(span(yi, r0 * 4, r1 * 4));
  };
  return success();
}

void Scheduler::channelScale(Operation *op, int x, int w, int b, int y,
                             int64_t N, int64_t C, int64_t P, int act) {
  KOp &k = newKOp(op, AMK_RT_K_DWCONV);
  k.slots = {x, w, y, b, -1};
  k.ip.assign(AMK_SP_NUM_IPARAMS, 0);
  int64_t *ip = k.ip.data();
  // The spatial dims as one row: the 1x1 path reads each plane flat.
  ip[AMK_SP_N] = N, ip[AMK_SP_C] = C, ip[AMK_SP_H] = 1, ip[AMK_SP_W] = P,
  ip[AMK_SP_OC] = C, ip[AMK_SP_KH] = 1, ip[AMK_SP_KW] = 1, ip[AMK_SP_OH] = 1,
  ip[AMK_SP_OW] = P, ip[AMK_SP_SH] = 1, ip[AMK_SP_SW] = 1, ip[AMK_SP_DH] = 1,
  ip[AMK_SP_DW] = 1, ip[AMK_SP_GROUP] = C, ip[AMK_SP_MODE] = act;
  k.fp = {0.f, 0.f};
  k.rows = N * C;
  k.flops = 2.0 * N * C * P;
  k.bytes = 8.0 * N * C * P;
  const int64_t wBytes = tensors[w].bytes,
                bBytes = b >= 0 ? tensors[b].bytes : 0;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(x, r0 * P * 4, r1 * P * 4));
    rd.push_back(whole(w, wBytes));
    if (b >= 0)
      rd.push_back(whole(b, bBytes));
    wr.push_back(span(y, r0 * P * 4, r1 * P * 4));
  };
}

/// Inference BatchNormalization as y = x * a[c] + b[c], a and b folded now.
LogicalResult Scheduler::lowerBatchNorm(Operation *op) {
  // Training mode normalizes by the batch's statistics: amk-decompose-ops
  // rewrites it; one left here (dynamic shapes) must not run as inference.
  auto tm = op->getAttrOfType<IntegerAttr>("training_mode");
  if (tm && tm.getInt() != 0)
    return unsupported(op, "training-mode BatchNormalization needs static "
                           "float32 shapes (amk-decompose-ops)");
  for (Value r : op->getResults().drop_front())
    if (!isNoneValue(r))
      return unsupported(op, "training-mode BatchNormalization");
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  if (!xt.getElementType().isF32() || xt.getRank() < 2)
    return unsupported(op, "only float32 BatchNormalization is implemented");
  SmallVector<std::optional<amk::ref::Tensor>> p;
  for (int i = 1; i <= 4; ++i)
    p.push_back(amk::getConstantTensor(op->getOperand(i)));
  for (auto &t : p)
    if (!t)
      return unsupported(op, "scale, bias, mean and variance must be "
                             "constants");
  int64_t C = xt.getDimSize(1);
  float eps = floatAttr(op, "epsilon", 1e-5f);
  SmallVector<int64_t> shape(xt.getRank() - 1, 1);
  shape[0] = C;
  amk::ref::Tensor a(p[0]->dtype(), shape), b(p[0]->dtype(), shape);
  for (int64_t c = 0; c < C; ++c) {
    float s = p[0]->data<float>()[c], bb = p[1]->data<float>()[c],
          m = p[2]->data<float>()[c], v = p[3]->data<float>()[c];
    float inv = s / std::sqrt(v + eps);
    a.data<float>()[c] = inv;
    b.data<float>()[c] = bb - m * inv;
  }
  auto type = RankedTensorType::get(shape, xt.getElementType());
  int ai = newConstTensor(type, a.toAttr(op->getContext()), "bn.scale");
  int bi = newConstTensor(type, b.toAttr(op->getContext()), "bn.shift");
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  // A Relu that alone reads the result (DenseNet's and pre-activation
  // ResNets' BN -> ReLU before each convolution) runs as the program's
  // last instruction and writes the tensor itself: one pass over the
  // activation instead of two (DenseNet-121: 2.8 ms of separate ReLUs).
  Value result = op->getResult(0);
  Operation *relu = result.hasOneUse() ? *result.getUsers().begin() : nullptr;
  if (relu && !isa<amk::onnx::ReluOp>(relu))
    relu = nullptr;
  if (relu) {
    absorbed.insert(relu);
    result = relu->getResult(0);
  }
  int yi = defineOutput(result);
  int64_t rank = xt.getRank();
  if (rank >= 3 && xt.getNumElements() > 0) {
    // A depthwise 1x1 convolution (weight a, bias b, the ReLU fused), as
    // ONNX Runtime runs it: one vector pass per channel plane. As the
    // elementwise program below it moved 3-12 GB/s (DenseNet-121's BN ->
    // ReLU before every dense layer: 10.7 of 37.7 ms, docs/runtime.md).
    const int64_t N = xt.getDimSize(0);
    channelScale(op, *xi, ai, bi, yi, N, C, xt.getNumElements() / (N * C),
                 relu ? AMK_OP_RELU : AMK_OP_NONE);
    return success();
  }
  KOp &k = newKOp(op, AMK_RT_K_ELEMENTWISE);
  k.slots = {yi, *xi, ai, bi};
  k.ip.push_back(rank);
  k.ip.append(xt.getShape().begin(), xt.getShape().end());
  k.ip.push_back(3);
  SmallVector<int64_t> xs = contiguousStrides(xt.getShape());
  k.ip.push_back(AMK_RT_F32);
  k.ip.append(xs.begin(), xs.end());
  for (int i = 0; i < 2; ++i) {
    k.ip.push_back(AMK_RT_F32);
    for (int64_t d = 0; d < rank; ++d)
      k.ip.push_back(d == 1 ? 1 : 0);
  }
  if (relu)
    k.ip.append({3, AMK_OP_MUL, 3, 0, 1, 0, AMK_OP_ADD, 4, 3, 2, 0, AMK_OP_RELU,
                 5, 4, 0, 0, 5});
  else
    k.ip.append({2, AMK_OP_MUL, 3, 0, 1, 0, AMK_OP_ADD, 4, 3, 2, 0, 4});
  k.fp = {0.f, 0.f};
  int64_t numel = xt.getNumElements();
  k.rows = numel, k.rowAlign = 256;
  k.flops = 2.0 * numel;
  k.bytes = 8.0 * numel;
  int x = *xi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(x, r0 * 4, r1 * 4));
    rd.push_back(whole(ai, C * 4));
    rd.push_back(whole(bi, C * 4));
    wr.push_back(span(yi, r0 * 4, r1 * 4));
  };
  return success();
}

} // namespace amk::totask
