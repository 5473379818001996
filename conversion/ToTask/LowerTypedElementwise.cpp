//===- LowerTypedElementwise.cpp - Elementwise ops over any type ----------===//
//
// Part of AMK. amk-schedule-megakernel: the elementwise ops the float32
// register program cannot run (integer and bool results, comparisons,
// logic, bitwise ops, Mod, Cast between all types, float16/bfloat16/float64
// values) as one TYPED_ELEMENTWISE kernel each (kernel_params.h).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "transforms/Utils/PassUtils.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

namespace onnx = amk::onnx;

namespace {

/// The op's TYPED_ELEMENTWISE opcode and immediates, for the ops that are
/// not float32 register-program instructions.
struct TypedCode {
  int code;
  float alpha = 0, beta = 0;
  bool integerOnly = false;
};

std::optional<TypedCode> typedOpcode(Operation *op) {
  using Result = std::optional<TypedCode>;
  auto code = [](int c) { return TypedCode{c}; };
  return llvm::TypeSwitch<Operation *, Result>(op)
      .Case([&](onnx::EqualOp) { return code(AMK_OP_EQUAL); })
      .Case([&](onnx::LessOp) { return code(AMK_OP_LESS); })
      .Case([&](onnx::LessOrEqualOp) { return code(AMK_OP_LESS_EQUAL); })
      .Case([&](onnx::GreaterOp) { return code(AMK_OP_GREATER); })
      .Case([&](onnx::GreaterOrEqualOp) {
        return code(AMK_OP_GREATER_EQUAL);
      })
      .Case([&](onnx::AndOp) { return code(AMK_OP_AND); })
      .Case([&](onnx::OrOp) { return code(AMK_OP_OR); })
      .Case([&](onnx::XorOp) { return code(AMK_OP_XOR); })
      .Case([&](onnx::NotOp) { return code(AMK_OP_NOT); })
      .Case([&](onnx::IsNaNOp) { return code(AMK_OP_ISNAN); })
      .Case([&](onnx::IsInfOp) {
        return TypedCode{AMK_OP_ISINF,
                         (float)intAttr(op, "detect_positive", 1),
                         (float)intAttr(op, "detect_negative", 1)};
      })
      .Case([&](onnx::ModOp) {
        return code(intAttr(op, "fmod", 0) ? AMK_OP_FMOD : AMK_OP_MOD);
      })
      .Case([&](onnx::BitwiseAndOp) {
        return TypedCode{AMK_OP_BITWISE_AND, 0, 0, true};
      })
      .Case([&](onnx::BitwiseOrOp) {
        return TypedCode{AMK_OP_BITWISE_OR, 0, 0, true};
      })
      .Case([&](onnx::BitwiseXorOp) {
        return TypedCode{AMK_OP_BITWISE_XOR, 0, 0, true};
      })
      .Case([&](onnx::BitwiseNotOp) {
        return TypedCode{AMK_OP_BITWISE_NOT, 0, 0, true};
      })
      .Case([&](onnx::BitShiftOp) {
        bool left = strAttr(op, "direction", "") == "LEFT";
        return TypedCode{left ? AMK_OP_SHIFT_LEFT : AMK_OP_SHIFT_RIGHT, 0, 0,
                         true};
      })
      .Case<onnx::CastOp, onnx::CastLikeOp, onnx::IdentityOp>(
          [&](Operation *) { return code(AMK_OP_COPY); })
      .Default([&](Operation *) -> Result {
        if (auto s = simpleOpcode(op))
          return code(s->opcode);
        if (auto u = attrUnaryOpcode(op))
          return TypedCode{u->code, u->alpha, u->beta};
        return std::nullopt;
      });
}

} // namespace

LogicalResult Scheduler::lowerTypedElementwise(Operation *op) {
  std::optional<TypedCode> code = typedOpcode(op);
  if (!code && !isa<onnx::ClipOp>(op))
    return unsupported(op, "no runtime kernel implements this op");
  if (!code)
    code = TypedCode{AMK_OP_CLAMP};
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  // The values read: CastLike's second operand only gives the type; Clip's
  // absent bounds are flagged in alpha/beta.
  SmallVector<Value> ins;
  if (isa<onnx::CastLikeOp>(op)) {
    ins.push_back(op->getOperand(0));
  } else if (isa<onnx::ClipOp>(op)) {
    ins.push_back(op->getOperand(0));
    for (int i = 1; i <= 2; ++i) {
      bool present = (int)op->getNumOperands() > i &&
                     !isNoneValue(op->getOperand(i));
      (i == 1 ? code->alpha : code->beta) = present ? 1.f : 0.f;
      if (present)
        ins.push_back(op->getOperand(i));
    }
  } else {
    for (Value v : op->getOperands())
      if (!isNoneValue(v))
        ins.push_back(v);
  }
  if (ins.empty() || ins.size() > AMK_TEW_MAX_INPUTS)
    return unsupported(op, "the typed elementwise kernel takes 1 to " +
                               Twine(AMK_TEW_MAX_INPUTS) + " inputs");
  // Unary opcodes are 1-31 and 64-95 (kernel_params.h).
  auto isUnaryCode = [](int c) {
    return (c >= 1 && c < AMK_OP_ADD) || (c >= 64 && c < AMK_OP_MOD);
  };
  if (code->code != AMK_OP_CLAMP && !isUnaryCode(code->code) &&
      ins.size() == 1 && isa<onnx::MaxOp, onnx::MinOp, onnx::SumOp>(op))
    code->code = AMK_OP_COPY; // a variadic op of one input
  bool unary = isUnaryCode(code->code);
  if (unary != (ins.size() == 1) && code->code != AMK_OP_CLAMP)
    return unsupported(op, "unexpected operand count " + Twine(ins.size()));
  // The compute type: double when a float is read or written, else 64-bit
  // integers, unsigned when a uint64 is involved.
  bool anyFloat = isa<FloatType>(yt.getElementType()),
       anyU64 = yt.getElementType().isUnsignedInteger(64);
  for (Value v : ins) {
    Type e = cast<ShapedType>(v.getType()).getElementType();
    anyFloat |= isa<FloatType>(e);
    anyU64 |= e.isUnsignedInteger(64);
  }
  if (code->integerOnly && anyFloat)
    return unsupported(op, "a bitwise op on floating-point values");
  int64_t compute = anyFloat ? AMK_TEW_F64 : anyU64 ? AMK_TEW_U64
                                                    : AMK_TEW_I64;
  ArrayRef<int64_t> outShape = yt.getShape();
  int64_t rank = outShape.size();
  if (rank > 8)
    return unsupported(op, "its rank is above 8");
  SmallVector<int> tensorsIn;
  for (Value v : ins) {
    auto st = dyn_cast<RankedTensorType>(v.getType());
    if (!st || runtimeDtype(st.getElementType()) < 0)
      return unsupported(op, "an operand is not a tensor the runtime "
                             "handles");
    if (!broadcastsTo(st.getShape(), outShape))
      return unsupported(op, "an operand cannot be broadcast to the result");
    auto t = getTensor(v, op);
    if (failed(t))
      return failure();
    tensorsIn.push_back(*t);
  }
  int yi = defineOutput(op->getResult(0));
  emitTypedElementwise(op, code->code, compute, tensorsIn, yi, yt,
                       code->alpha, code->beta);
  return success();
}

/// One TYPED_ELEMENTWISE kernel over tensors `ins` (broadcast to `yt`,
/// right-aligned) into tensor `yi`.
void Scheduler::emitTypedElementwise(Operation *op, int code, int64_t compute,
                                     ArrayRef<int> ins, int yi,
                                     RankedTensorType yt, float alpha,
                                     float beta) {
  ArrayRef<int64_t> outShape = yt.getShape();
  int64_t rank = outShape.size();
  KOp &k = newKOp(op, AMK_RT_K_TYPED_ELEMENTWISE);
  k.slots.push_back(yi);
  k.ip = {code, compute, runtimeDtype(yt.getElementType()), rank,
          (int64_t)ins.size()};
  k.ip.append(outShape.begin(), outShape.end());
  SmallVector<bool> sameShape;
  SmallVector<int64_t> inBytes, inElem;
  for (int t : ins) {
    RankedTensorType it = tensors[t].type;
    k.slots.push_back(t);
    k.ip.push_back(runtimeDtype(it.getElementType()));
    k.ip.append(broadcastStrides(it.getShape(), rank));
    sameShape.push_back(it.getShape() == outShape);
    inBytes.push_back(tensors[t].bytes);
    inElem.push_back(elemBytes(it.getElementType()));
  }
  k.fp = {alpha, beta};
  int64_t numel = yt.getNumElements(), yb = elemBytes(yt.getElementType());
  k.rows = numel, k.rowAlign = 256;
  k.flops = (double)numel * std::max<size_t>(1, ins.size() - 1);
  k.bytes = (double)numel * yb;
  for (int64_t b : inBytes)
    k.bytes += b;
  SmallVector<int> slotsIn(ins.begin(), ins.end());
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    for (auto [i, t] : llvm::enumerate(slotsIn)) {
      if (sameShape[i])
        rd.push_back(span(t, r0 * inElem[i], r1 * inElem[i]));
      else
        rd.push_back(whole(t, inBytes[i]));
    }
    wr.push_back(span(yi, r0 * yb, r1 * yb));
  };
}

} // namespace amk::totask
