//===- LowerRecurrent.cpp - RNN, GRU, LSTM --------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: RNN, GRU and LSTM as one RECURRENT
// kernel each (kernel_params.h), with their activations by name.
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "transforms/Utils/PassUtils.h"

#include "dialect/ONNX/ONNXDialect.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

LogicalResult Scheduler::lowerRecurrent(Operation *op) {
  int variant = isa<onnx::RNNOp>(op)   ? AMK_RNN_VARIANT_RNN
                : isa<onnx::GRUOp>(op) ? AMK_RNN_VARIANT_GRU
                                       : AMK_RNN_VARIANT_LSTM;
  int64_t numActs = variant == AMK_RNN_VARIANT_RNN   ? 1
                    : variant == AMK_RNN_VARIANT_GRU ? 2
                                                     : 3;
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto wt = cast<RankedTensorType>(op->getOperand(1).getType());
  if (!xt.getElementType().isF32())
    return unsupported(op, "only float32 recurrent ops are implemented");
  if (intAttr(op, "input_forget", 0))
    return unsupported(op, "input_forget is not implemented");
  bool batchFirst = intAttr(op, "layout", 0) != 0;
  int64_t S = xt.getDimSize(batchFirst ? 1 : 0),
          Bn = xt.getDimSize(batchFirst ? 0 : 1), I = xt.getDimSize(2);
  int64_t D = wt.getDimSize(0);
  int64_t G = variant == AMK_RNN_VARIANT_RNN   ? 1
              : variant == AMK_RNN_VARIANT_GRU ? 3
                                               : 4;
  int64_t H = wt.getDimSize(1) / G;
  StringRef dir = strAttr(op, "direction", "forward");
  int64_t direction = dir == "reverse" ? 1 : dir == "bidirectional" ? 2 : 0;
  if ((direction == 2) != (D == 2))
    return unsupported(op, "its weights do not match direction '" + dir + "'");
  // Activations: the defaults, or the attribute's, per direction.
  SmallVector<StringRef> names;
  if (auto a = op->getAttrOfType<ArrayAttr>("activations"))
    for (Attribute n : a)
      names.push_back(cast<StringAttr>(n).getValue());
  SmallVector<float> alphas, betas;
  if (auto a = op->getAttrOfType<DenseF32ArrayAttr>("activation_alpha"))
    alphas.assign(a.asArrayRef().begin(), a.asArrayRef().end());
  if (auto a = op->getAttrOfType<DenseF32ArrayAttr>("activation_beta"))
    betas.assign(a.asArrayRef().begin(), a.asArrayRef().end());
  static const char *defaults[3][3] = {{"Tanh", "", ""},
                                       {"Sigmoid", "Tanh", ""},
                                       {"Sigmoid", "Tanh", "Tanh"}};
  SmallVector<int64_t> codes(6, AMK_RNN_ACT_TANH);
  SmallVector<float> alpha(6, 0.f), beta(6, 0.f);
  for (int64_t d = 0; d < D; ++d)
    for (int64_t k = 0; k < numActs; ++k) {
      size_t at = d * numActs + k;
      StringRef name = at < names.size() ? names[at] : defaults[variant][k];
      int64_t code = llvm::StringSwitch<int64_t>(name.lower())
                         .Case("sigmoid", AMK_RNN_ACT_SIGMOID)
                         .Case("tanh", AMK_RNN_ACT_TANH)
                         .Case("relu", AMK_RNN_ACT_RELU)
                         .Case("affine", AMK_RNN_ACT_AFFINE)
                         .Case("leakyrelu", AMK_RNN_ACT_LEAKY_RELU)
                         .Case("thresholdedrelu",
                               AMK_RNN_ACT_THRESHOLDED_RELU)
                         .Case("scaledtanh", AMK_RNN_ACT_SCALED_TANH)
                         .Case("hardsigmoid", AMK_RNN_ACT_HARD_SIGMOID)
                         .Case("elu", AMK_RNN_ACT_ELU)
                         .Case("softsign", AMK_RNN_ACT_SOFTSIGN)
                         .Case("softplus", AMK_RNN_ACT_SOFTPLUS)
                         .Default(-1);
      if (code < 0)
        return unsupported(op, "activation '" + name + "' is unknown");
      codes[d * 3 + k] = code;
      // ONNX's defaults for the activations that take parameters.
      float da = code == AMK_RNN_ACT_LEAKY_RELU      ? 0.01f
                 : code == AMK_RNN_ACT_HARD_SIGMOID ? 0.2f
                                                     : 1.f;
      float db = code == AMK_RNN_ACT_HARD_SIGMOID ? 0.5f
                 : code == AMK_RNN_ACT_SCALED_TANH ? 1.f
                                                   : 0.f;
      alpha[d * 3 + k] = at < alphas.size() ? alphas[at] : da;
      beta[d * 3 + k] = at < betas.size() ? betas[at] : db;
    }
  SmallVector<int> slots;
  for (unsigned i = 0; i < 8; ++i) {
    if (i >= op->getNumOperands() || isNoneValue(op->getOperand(i))) {
      slots.push_back(-1);
      continue;
    }
    Value v = op->getOperand(i);
    if (i == 4 && !cast<ShapedType>(v.getType()).getElementType().isInteger(32))
      return unsupported(op, "its sequence_lens are not int32");
    if (i != 4 && !cast<ShapedType>(v.getType()).getElementType().isF32())
      return unsupported(op, "only float32 recurrent ops are implemented");
    auto t = getTensor(v, op);
    if (failed(t))
      return failure();
    slots.push_back(*t);
  }
  for (unsigned i = 0; i < 3; ++i) {
    bool used = i < op->getNumResults() && !isNoneValue(op->getResult(i)) &&
                !op->getResult(i).use_empty();
    slots.push_back(used ? defineOutput(op->getResult(i)) : -1);
  }
  KOp &k = newKOp(op, AMK_RT_K_RECURRENT);
  k.variant = variant;
  k.slots.assign(slots.begin(), slots.end());
  k.ip = {S, Bn, I, H, D, direction, batchFirst,
          intAttr(op, "linear_before_reset", 0) != 0};
  k.ip.append(codes.begin(), codes.end());
  k.fp = {op->hasAttr("clip") ? floatAttr(op, "clip", 0.f) : 0.f};
  for (int i = 0; i < 6; ++i)
    k.fp.push_back(alpha[i]);
  for (int i = 0; i < 6; ++i)
    k.fp.push_back(beta[i]);
  k.rows = D * Bn;
  k.flops = 2.0 * D * Bn * S * G * H * (I + H);
  k.bytes = 4.0 * (xt.getNumElements() + D * G * H * (I + H));
  SmallVector<std::pair<int, int64_t>> reads, writes;
  for (int i = 0; i < 8; ++i)
    if (slots[i] >= 0)
      reads.push_back({slots[i], tensors[slots[i]].bytes});
  for (int i = 8; i < 11; ++i)
    if (slots[i] >= 0)
      writes.push_back({slots[i], tensors[slots[i]].bytes});
  k.access = [=](int64_t, int64_t, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    for (auto [t, b] : reads)
      rd.push_back(whole(t, b));
    // Rows interleave within Y (per step), so a tile writes across it.
    for (auto [t, b] : writes)
      wr.push_back(whole(t, b));
  };
  return success();
}

} // namespace amk::totask
