//===- ScheduleMegakernel.cpp - Graph to task program ---------------------===//
//
// Part of AMK. Lowers the graph to runtime kernels, plans the arena, cuts
// each kernel into tiles, derives byte-exact tile dependencies, assigns
// tiles to workers with a list scheduler and turns cross-worker edges into
// counter waits (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "passes/PassUtils.h"
#include "passes/Passes.h"
#include "passes/Patterns.h"
#include "passes/TaskProgram.h"

#include "dialect/AMKTask/AMKTaskDialect.h"
#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "runtime/include/amk/kernel_params.h"
#include "runtime/include/amk/runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

namespace amk {
#define GEN_PASS_DEF_SCHEDULEMEGAKERNEL
#include "passes/Passes.h.inc"
} // namespace amk

using namespace mlir;
using namespace amk::task;

int amk::task::activationCode(llvm::StringRef name) {
  return llvm::StringSwitch<int>(name)
      .Case("none", AMK_OP_NONE)
      .Case("relu", AMK_OP_RELU)
      .Case("clip", AMK_OP_CLIP)
      .Case("leaky_relu", AMK_OP_LEAKY_RELU)
      .Case("sigmoid", AMK_OP_SIGMOID)
      .Case("hard_swish", AMK_OP_HARD_SWISH)
      .Case("tanh", AMK_OP_TANH)
      .Case("gelu", AMK_OP_GELU)
      .Case("gelu_tanh", AMK_OP_GELU_TANH)
      .Case("quick_gelu", AMK_OP_QUICK_GELU)
      .Default(-1);
}

namespace {

constexpr int64_t kAlign = 64;

int64_t product(ArrayRef<int64_t> v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

SmallVector<int64_t> contiguousStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

int64_t elemBytes(Type t) {
  if (t.isInteger(1))
    return 1;
  return (t.getIntOrFloatBitWidth() + 7) / 8;
}

/// An access in tensor terms: `rows` rows of `rowBytes`, `stride` apart.
struct TAccess {
  int tensor;
  int64_t offset, rowBytes, stride, rows;
};

struct TensorInfo {
  enum Kind { Arena, Const, Input, Output };
  Value value;
  RankedTensorType type;
  int64_t bytes = 0;
  Kind kind = Arena;
  int64_t ioIndex = 0;
  ElementsAttr constValue;
  int root = -1;
  int64_t rootOffset = 0;
  int firstDef = INT32_MAX, lastUse = -1;
  int64_t offset = 0;
  int buffer = -1;
  std::string name;
};

using AccessFn = std::function<void(int64_t r0, int64_t r1, int64_t c0,
                                    int64_t c1, SmallVectorImpl<TAccess> &,
                                    SmallVectorImpl<TAccess> &)>;

struct KOp {
  int kind = AMK_RT_K_NOP;
  int64_t variant = 0;
  std::string name, opName;
  SmallVector<int> slots;
  SmallVector<int64_t> ip;
  SmallVector<float> fp;
  int64_t rows = 1, cols = 1;
  bool colTiling = false;
  int64_t rowAlign = 1, colAlign = 1;
  // Operand sizes for the tiling choice (GEMM-like kernels): a row split
  // re-reads `colOperandBytes` per tile, a column split `rowOperandBytes`.
  double rowOperandBytes = 0, colOperandBytes = 0;
  double flops = 0, bytes = 0;
  AccessFn access;
};

struct Task {
  int kop;
  int64_t tile[4];
  SmallVector<TAccess> reads, writes;
  double cost = 0;
  SmallVector<int> deps;
  int worker = 0, pos = 0;
  double finish = 0;
  bool signals = false;
  SmallVector<std::pair<int, int>> waitOn; // (worker, position)
};

TAccess whole(int t, int64_t bytes) { return {t, 0, bytes, bytes, 1}; }
TAccess span(int t, int64_t begin, int64_t end) {
  return {t, begin, end - begin, end - begin, 1};
}
TAccess rect(int t, int64_t offset, int64_t rowBytes, int64_t stride,
             int64_t rows) {
  return {t, offset, rowBytes, stride, rows};
}

class Scheduler {
public:
  Scheduler(ModuleOp module, func::FuncOp func,
            const amk::ScheduleMegakernelOptions &o)
      : module(module), func(func), opts(o) {}

  LogicalResult run();
  int64_t numTasks() const { return tasks.size(); }
  int64_t numWaits = 0;

private:
  ModuleOp module;
  func::FuncOp func;
  amk::ScheduleMegakernelOptions opts;
  std::vector<TensorInfo> tensors;
  DenseMap<Value, int> tensorOf;
  std::vector<KOp> kops;
  std::vector<Task> tasks;

  // Graph to kernels.
  FailureOr<int> getTensor(Value v, Operation *user);
  int newConstTensor(RankedTensorType type, ElementsAttr value,
                     StringRef name);
  int defineOutput(Value v);
  int rootOf(int t) { return tensors[t].root; }
  LogicalResult unsupported(Operation *op, const Twine &why);
  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerConv(Operation *op);
  LogicalResult lowerGemm(Operation *op);
  LogicalResult lowerPool(Operation *op);
  LogicalResult lowerElementwise(Operation *op);
  LogicalResult lowerSoftmax(Operation *op, Value x, int64_t axis, Value y);
  LogicalResult lowerLayerNorm(Operation *op);
  LogicalResult lowerAttention(Operation *op);
  LogicalResult lowerTranspose(Operation *op);
  LogicalResult lowerSlice(Operation *op);
  LogicalResult lowerConcat(Operation *op);
  LogicalResult lowerSplit(Operation *op);
  LogicalResult lowerGather(Operation *op);
  LogicalResult lowerBatchNorm(Operation *op);
  void addCopy(Operation *op, int src, int dst, ArrayRef<int64_t> dims,
               ArrayRef<int64_t> srcStrides, int64_t srcOff,
               ArrayRef<int64_t> dstStrides, int64_t dstOff, int64_t eb,
               bool dstContiguous);
  KOp &newKOp(Operation *op, int kind);

  // Planning and scheduling.
  void planMemory();
  void makeTasks();
  void findDependencies();
  void listSchedule();
  void emit();
};

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

FailureOr<int> Scheduler::getTensor(Value v, Operation *user) {
  auto it = tensorOf.find(v);
  if (it != tensorOf.end())
    return it->second;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape()) {
    (void)unsupported(user, "an operand has no static shape");
    return failure();
  }
  if (amk::task::runtimeDtype(type.getElementType()) < 0) {
    (void)unsupported(user, "an operand has element type " +
                                amk::onnx::getONNXTypeString(type));
    return failure();
  }
  TensorInfo t;
  t.value = v;
  t.type = type;
  t.bytes = type.getNumElements() * elemBytes(type.getElementType());
  t.name = amk::onnx::getTensorName(v).str();
  int id = tensors.size();
  t.root = id;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    t.kind = TensorInfo::Input;
    t.ioIndex = arg.getArgNumber();
  } else if (auto c = v.getDefiningOp<amk::onnx::ConstantOp>()) {
    auto value = dyn_cast_or_null<ElementsAttr>(c.getValueAttr());
    if (!value) {
      (void)unsupported(user, "a constant operand is not a tensor");
      return failure();
    }
    t.kind = TensorInfo::Const;
    t.constValue = value;
  } else {
    (void)unsupported(user, "an operand is produced by an op that was not "
                            "scheduled");
    return failure();
  }
  tensors.push_back(t);
  tensorOf[v] = id;
  return id;
}

int Scheduler::newConstTensor(RankedTensorType type, ElementsAttr value,
                              StringRef name) {
  TensorInfo t;
  t.type = type;
  t.bytes = type.getNumElements() * elemBytes(type.getElementType());
  t.kind = TensorInfo::Const;
  t.constValue = value;
  t.name = name.str();
  int id = tensors.size();
  t.root = id;
  tensors.push_back(t);
  return id;
}

/// A fresh arena tensor for result `v`.
int Scheduler::defineOutput(Value v) {
  TensorInfo t;
  t.value = v;
  t.type = cast<RankedTensorType>(v.getType());
  t.bytes = t.type.getNumElements() * elemBytes(t.type.getElementType());
  t.name = amk::onnx::getTensorName(v).str();
  int id = tensors.size();
  t.root = id;
  tensors.push_back(t);
  tensorOf[v] = id;
  return id;
}

LogicalResult Scheduler::unsupported(Operation *op, const Twine &why) {
  return op->emitError() << "amk-schedule-megakernel: the runtime has no "
                            "kernel for "
                         << amk::onnx::describeOp(op) << ": " << why;
}

KOp &Scheduler::newKOp(Operation *op, int kind) {
  kops.emplace_back();
  KOp &k = kops.back();
  k.kind = kind;
  k.name = amk::nodeLabel(op);
  k.opName = op->getName().getStringRef().str();
  return k;
}

//===----------------------------------------------------------------------===//
// Attribute helpers
//===----------------------------------------------------------------------===//

SmallVector<int64_t> intsAttr(Operation *op, StringRef name) {
  if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name))
    return SmallVector<int64_t>(a.asArrayRef());
  if (auto a = op->getAttrOfType<ArrayAttr>(name)) {
    SmallVector<int64_t> r;
    for (Attribute e : a)
      r.push_back(cast<IntegerAttr>(e).getInt());
    return r;
  }
  return {};
}
int64_t intAttr(Operation *op, StringRef name, int64_t def) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return def;
}
float floatAttr(Operation *op, StringRef name, float def) {
  if (auto a = op->getAttrOfType<FloatAttr>(name))
    return a.getValueAsDouble();
  return def;
}
StringRef strAttr(Operation *op, StringRef name, StringRef def) {
  if (auto a = op->getAttrOfType<StringAttr>(name))
    return a.getValue();
  return def;
}
bool isNoneValue(Value v) { return !v || isa<NoneType>(v.getType()); }

//===----------------------------------------------------------------------===//
// Lowering ops to kernels
//===----------------------------------------------------------------------===//

LogicalResult Scheduler::lowerOp(Operation *op) {
  StringRef n = op->getName().getStringRef();
  if (isa<amk::onnx::ConstantOp>(op) || n == "onnx.NoValue" ||
      isa<func::ReturnOp>(op))
    return success();
  for (Value r : op->getResults()) {
    if (isa<NoneType>(r.getType()))
      continue;
    auto t = dyn_cast<RankedTensorType>(r.getType());
    if (!t || !t.hasStaticShape() || amk::task::runtimeDtype(t.getElementType()) < 0)
      return unsupported(op, "its result " +
                                 amk::onnx::getONNXTypeString(r.getType()) +
                                 " is not a static tensor the runtime "
                                 "handles");
  }
  // Views: the result shares its operand's bytes.
  if (n == "onnx.Reshape" || n == "onnx.Flatten" || n == "onnx.Squeeze" ||
      n == "onnx.Unsqueeze" || n == "onnx.Identity") {
    auto in = getTensor(op->getOperand(0), op);
    if (failed(in))
      return failure();
    TensorInfo t = tensors[*in];
    t.value = op->getResult(0);
    t.type = cast<RankedTensorType>(t.value.getType());
    t.name = amk::onnx::getTensorName(t.value).str();
    int id = tensors.size();
    tensors.push_back(t);
    tensorOf[op->getResult(0)] = id;
    return success();
  }
  if (n == "onnx.Conv" || n == "amk.conv")
    return lowerConv(op);
  if (n == "onnx.Gemm" || n == "amk.gemm" || n == "onnx.MatMul")
    return lowerGemm(op);
  if (n == "onnx.MaxPool" || n == "onnx.AveragePool" ||
      n == "onnx.GlobalAveragePool" || n == "onnx.GlobalMaxPool")
    return lowerPool(op);
  if (n == "onnx.Softmax") {
    int64_t rank = cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
    int64_t axis = intAttr(op, "axis", -1);
    return lowerSoftmax(op, op->getOperand(0), axis < 0 ? axis + rank : axis,
                        op->getResult(0));
  }
  if (n == "amk.bias_softmax") {
    // X + Bias as an elementwise kernel, then the softmax.
    if (failed(lowerElementwise(op)))
      return failure();
    Value y = op->getResult(0);
    int64_t rank = cast<RankedTensorType>(y.getType()).getRank();
    int64_t axis = intAttr(op, "axis", -1);
    return lowerSoftmax(op, y, axis < 0 ? axis + rank : axis, y);
  }
  if (n == "amk.layer_norm" || n == "onnx.LayerNormalization")
    return lowerLayerNorm(op);
  if (n == "amk.attention")
    return lowerAttention(op);
  if (n == "onnx.Transpose")
    return lowerTranspose(op);
  if (n == "onnx.Slice")
    return lowerSlice(op);
  if (n == "onnx.Concat")
    return lowerConcat(op);
  if (n == "onnx.Split")
    return lowerSplit(op);
  if (n == "onnx.Gather")
    return lowerGather(op);
  if (n == "onnx.BatchNormalization")
    return lowerBatchNorm(op);
  return lowerElementwise(op);
}

LogicalResult Scheduler::lowerConv(Operation *op) {
  Value x = op->getOperand(0), w = op->getOperand(1);
  Value b = op->getNumOperands() > 2 ? op->getOperand(2) : Value();
  Value z = op->getNumOperands() > 3 ? op->getOperand(3) : Value();
  auto xt = cast<RankedTensorType>(x.getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  auto wt = dyn_cast<RankedTensorType>(w.getType());
  if (!xt.getElementType().isF32())
    return unsupported(op, "only float32 convolution is implemented");
  if (xt.getRank() != 4 && xt.getRank() != 3)
    return unsupported(op, "only 1-D and 2-D convolution is implemented");
  bool oneD = xt.getRank() == 3;
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1);
  int64_t H = oneD ? 1 : xt.getDimSize(2), W = xt.getDimSize(oneD ? 2 : 3);
  int64_t OC = yt.getDimSize(1), OH = oneD ? 1 : yt.getDimSize(2),
          OW = yt.getDimSize(oneD ? 2 : 3);
  int64_t KH = oneD ? 1 : wt.getDimSize(2), KW = wt.getDimSize(oneD ? 2 : 3);
  int64_t group = intAttr(op, "group", 1);
  auto strides = intsAttr(op, "strides"), dil = intsAttr(op, "dilations"),
       pads = intsAttr(op, "pads");
  int64_t sd = oneD ? 1 : 2;
  auto at = [&](ArrayRef<int64_t> v, int64_t i, int64_t def) {
    return i < (int64_t)v.size() ? v[i] : def;
  };
  int64_t sh = oneD ? 1 : at(strides, 0, 1), sw = at(strides, sd - 1, 1);
  int64_t dh = oneD ? 1 : at(dil, 0, 1), dw = at(dil, sd - 1, 1);
  int64_t ph = oneD ? 0 : at(pads, 0, 0), pw = at(pads, sd - 1, 0);
  StringRef autoPad = strAttr(op, "auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    auto padFor = [&](int64_t in, int64_t out, int64_t k, int64_t s,
                      int64_t d) {
      int64_t total = std::max<int64_t>(0, (out - 1) * s + (k - 1) * d + 1 - in);
      return autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
    };
    ph = oneD ? 0 : padFor(H, OH, KH, sh, dh);
    pw = padFor(W, OW, KW, sw, dw);
  } else if (autoPad == "VALID") {
    ph = pw = 0;
  }
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
  // fill 32-channel blocks to the GEMM: the block's idle lanes and its
  // transposed store cost more than the few FMAs per pixel (measured on
  // MobileNetV2's 16- and 24-channel projections, docs/runtime.md).
  bool direct =
      opts.convKernel != "im2col" && group == 1 && (sw == 1 || sw == 2) &&
      (opts.convKernel == "direct" || !pointwise ||
       OC % AMK_CONV_OC_BLOCK == 0) &&
      wt.getElementType().isF32() && w.getDefiningOp<amk::onnx::ConstantOp>();
  if (pointwise && !direct) {
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
  if (direct) {
    // [ceil(OC/32)][C][KH][KW][32]: each tap's 32 output channels are two
    // vectors, and a block's taps are read in order.
    auto value = amk::getConstantTensor(w);
    if (!value)
      return unsupported(op, "cannot read the constant weights");
    const int64_t B = AMK_CONV_OC_BLOCK, blocks = (OC + B - 1) / B,
                  taps = KH * KW;
    amk::ref::Tensor packed(value->dtype(), {blocks * C * taps, B});
    const float *src = value->data<float>();
    float *dst = packed.data<float>();
    std::fill_n(dst, blocks * C * taps * B, 0.f);
    for (int64_t o = 0; o < OC; ++o)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t t = 0; t < taps; ++t)
          dst[((o / B * C + c) * taps + t) * B + o % B] =
              src[(o * C + c) * taps + t];
    auto type =
        RankedTensorType::get({blocks * C * taps, B}, wt.getElementType());
    wSlot = newConstTensor(type, packed.toAttr(op->getContext()),
                           amk::onnx::getTensorName(w).str() + ".direct");
  }
  KOp &k = newKOp(op, depthwise ? AMK_RT_K_DWCONV : AMK_RT_K_CONV);
  k.variant = direct ? 2 : (!depthwise && group == 1) ? 1 : 0;
  k.slots = {*xi, wSlot, yi, bi, zi};
  k.ip.assign(AMK_SP_NUM_IPARAMS, 0);
  int64_t *ip = k.ip.data();
  ip[AMK_SP_N] = N, ip[AMK_SP_C] = C, ip[AMK_SP_H] = H, ip[AMK_SP_W] = W,
  ip[AMK_SP_OC] = OC, ip[AMK_SP_KH] = KH, ip[AMK_SP_KW] = KW,
  ip[AMK_SP_OH] = OH, ip[AMK_SP_OW] = OW, ip[AMK_SP_SH] = sh,
  ip[AMK_SP_SW] = sw, ip[AMK_SP_PH] = ph, ip[AMK_SP_PW] = pw,
  ip[AMK_SP_DH] = dh, ip[AMK_SP_DW] = dw, ip[AMK_SP_GROUP] = group,
  ip[AMK_SP_MODE] = act;
  k.fp = {actA, actB};
  k.rows = N * OC;
  k.flops = flops;
  k.bytes = 4.0 * (N * C * H * W + tensors[*wi].bytes / 4 + N * OC * P);
  if (k.variant == 1) {
    k.cols = P, k.colTiling = true, k.rowAlign = 32, k.colAlign = 64;
    k.rowOperandBytes = 4.0 * OC * K;
    k.colOperandBytes = 4.0 * N * C * H * W * KH * KW;
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
      if (iy1 >= iy0)
        rd.push_back(rect(xs, ((img * C + ch0) * H + iy0) * W * 4,
                          (iy1 - iy0 + 1) * W * 4, H * W * 4, ch1 - ch0));
      TAccess out = rect(yi, ((img * OC + m0) * P + c0) * 4, (c1 - c0) * 4,
                         P * 4, m1 - m0);
      wr.push_back(out);
      if (zi >= 0) {
        out.tensor = zi;
        rd.push_back(out);
      }
    }
  };
  return success();
}

LogicalResult Scheduler::lowerGemm(Operation *op) {
  StringRef n = op->getName().getStringRef();
  Value a = op->getOperand(0), b = op->getOperand(1);
  Value c = op->getNumOperands() > 2 ? op->getOperand(2) : Value();
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(b.getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  if (!at.getElementType().isF32() || !bt.getElementType().isF32())
    return unsupported(op, "only float32 matrix products are implemented");
  if (at.getRank() < 2 || bt.getRank() < 2)
    return unsupported(op, "1-D matrix product operands are not "
                           "implemented");
  bool transA = false, transB = false;
  float alpha = 1, beta = 1;
  int act = AMK_OP_NONE;
  float actA = 0, actB = 0;
  // A permutation is free when it keeps the order of the non-unit axes
  // (a view), or a transposed read when it swaps the last two.
  SmallVector<int64_t> aShape(at.getShape()), bShape(bt.getShape());
  auto applyPerm = [](ArrayRef<int64_t> perm, SmallVectorImpl<int64_t> &shape,
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
  };
  if (n == "onnx.Gemm") {
    transA = intAttr(op, "transA", 0), transB = intAttr(op, "transB", 0);
    alpha = floatAttr(op, "alpha", 1), beta = floatAttr(op, "beta", 1);
  } else if (n == "amk.gemm") {
    auto pa = intsAttr(op, "perm_a"), pb = intsAttr(op, "perm_b");
    if (!pa.empty() && !applyPerm(pa, aShape, transA))
      return unsupported(op, "perm_a moves a batch axis");
    if (!pb.empty() && !applyPerm(pb, bShape, transB))
      return unsupported(op, "perm_b moves a batch axis");
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
  int bIdx;
  // A constant B (the weights) is packed now into the kernel's layout:
  // ceil(N/64) contiguous panels of K x 64, transposed if need be, so the
  // kernel streams it instead of reading 64-float pieces of long rows.
  bool bPanels = false;
  if (bBatch == 1 && bt.getElementType().isF32() &&
      b.getDefiningOp<amk::onnx::ConstantOp>()) {
    auto value = amk::getConstantTensor(b);
    if (!value)
      return unsupported(op, "cannot read the constant B");
    const int64_t P = AMK_GEMM_PANEL, panels = (N + P - 1) / P;
    amk::ref::Tensor packed(value->dtype(), {panels * K, P});
    const float *src = value->data<float>();
    float *dst = packed.data<float>();
    std::fill_n(dst, panels * K * P, 0.f);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        dst[(n / P) * K * P + k * P + n % P] =
            transB ? src[n * K + k] : src[k * N + n];
    auto type = RankedTensorType::get({panels * K, P}, bt.getElementType());
    bIdx = newConstTensor(type, packed.toAttr(op->getContext()),
                          amk::onnx::getTensorName(b).str() + ".panels");
    transB = false;
    bPanels = true;
  } else {
    auto bi = getTensor(b, op);
    if (failed(bi))
      return failure();
    bIdx = *bi;
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
    else
      return unsupported(op, "the addend's broadcast is not implemented");
    auto ci = getTensor(c, op);
    if (failed(ci))
      return failure();
    biasIdx = *ci;
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

LogicalResult Scheduler::lowerPool(Operation *op) {
  StringRef n = op->getName().getStringRef();
  if (op->getNumResults() > 1 && !isNoneValue(op->getResult(1)))
    return unsupported(op, "the Indices output is not implemented");
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  if (!xt.getElementType().isF32() || xt.getRank() != 4)
    return unsupported(op, "only 2-D float32 pooling is implemented");
  bool global = n.starts_with("onnx.Global");
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), H = xt.getDimSize(2),
          W = xt.getDimSize(3), OH = yt.getDimSize(2), OW = yt.getDimSize(3);
  auto ks = intsAttr(op, "kernel_shape"), st = intsAttr(op, "strides"),
       pads = intsAttr(op, "pads"), dil = intsAttr(op, "dilations");
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
  int64_t mode = n.contains("Max") ? 0
                 : intAttr(op, "count_include_pad", 0) ? 1
                                                       : 2;
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_POOL);
  k.slots = {*xi, yi};
  k.ip.assign(AMK_SP_NUM_IPARAMS, 0);
  int64_t *ip = k.ip.data();
  ip[AMK_SP_N] = N, ip[AMK_SP_C] = C, ip[AMK_SP_H] = H, ip[AMK_SP_W] = W,
  ip[AMK_SP_OC] = C, ip[AMK_SP_KH] = KH, ip[AMK_SP_KW] = KW,
  ip[AMK_SP_OH] = OH, ip[AMK_SP_OW] = OW, ip[AMK_SP_SH] = sh,
  ip[AMK_SP_SW] = sw, ip[AMK_SP_PH] = ph, ip[AMK_SP_PW] = pw,
  ip[AMK_SP_DH] = dh, ip[AMK_SP_DW] = dw, ip[AMK_SP_GROUP] = 1,
  ip[AMK_SP_MODE] = mode;
  k.rows = N * C;
  k.flops = 1.0 * N * C * OH * OW * KH * KW;
  k.bytes = 4.0 * N * C * (H * W + OH * OW);
  int xs = *xi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * H * W * 4, r1 * H * W * 4));
    wr.push_back(span(yi, r0 * OH * OW * 4, r1 * OH * OW * 4));
  };
  return success();
}

/// Builds an elementwise program for one op, amk.gelu, amk.bias_softmax's
/// addition or an amk.fused_elementwise region.
LogicalResult Scheduler::lowerElementwise(Operation *op) {
  StringRef opName = op->getName().getStringRef();
  bool region = opName == "amk.fused_elementwise";
  static const llvm::StringSet<> known = {
      "onnx.Add",      "onnx.Sub",        "onnx.Mul",
      "onnx.Div",      "onnx.Pow",        "onnx.Max",
      "onnx.Min",      "onnx.Relu",       "onnx.Sigmoid",
      "onnx.Tanh",     "onnx.Erf",        "onnx.Sqrt",
      "onnx.Exp",      "onnx.Log",        "onnx.Neg",
      "onnx.Abs",      "onnx.Reciprocal", "onnx.Floor",
      "onnx.Ceil",     "onnx.Softplus",   "onnx.HardSwish",
      "onnx.Identity", "onnx.LeakyRelu",  "onnx.HardSigmoid",
      "onnx.Clip",     "onnx.Gelu",       "onnx.Cast",
      "amk.gelu",      "onnx.Round",      "amk.bias_softmax"};
  if (!region && !known.contains(opName))
    return unsupported(op, "no runtime kernel implements this op");
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  if (!yt.getElementType().isF32())
    return unsupported(op, "elementwise kernels produce float32 only");
  ArrayRef<int64_t> outShape = yt.getShape();
  int64_t rank = outShape.size();
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
    if (!st || st.getRank() > rank)
      return unsupported(op, "an operand cannot be broadcast to the output");
    for (int64_t d = 0; d < st.getRank(); ++d) {
      int64_t od = outShape[rank - st.getRank() + d];
      if (st.getDimSize(d) != 1 && st.getDimSize(d) != od)
        return unsupported(op, "an operand cannot be broadcast to the "
                               "output");
    }
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
    StringRef on = o->getName().getStringRef();
    if (isa<amk::onnx::ConstantOp>(o))
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
    int binary = llvm::StringSwitch<int>(on)
                     .Case("onnx.Add", AMK_OP_ADD)
                     .Case("onnx.Sub", AMK_OP_SUB)
                     .Case("onnx.Mul", AMK_OP_MUL)
                     .Case("onnx.Div", AMK_OP_DIV)
                     .Case("onnx.Pow", AMK_OP_POW)
                     .Case("onnx.Max", AMK_OP_MAX)
                     .Case("onnx.Min", AMK_OP_MIN)
                     .Case("amk.bias_softmax", AMK_OP_ADD)
                     .Default(-1);
    int unary = llvm::StringSwitch<int>(on)
                    .Case("onnx.Relu", AMK_OP_RELU)
                    .Case("onnx.Sigmoid", AMK_OP_SIGMOID)
                    .Case("onnx.Tanh", AMK_OP_TANH)
                    .Case("onnx.Erf", AMK_OP_ERF)
                    .Case("onnx.Sqrt", AMK_OP_SQRT)
                    .Case("onnx.Exp", AMK_OP_EXP)
                    .Case("onnx.Log", AMK_OP_LOG)
                    .Case("onnx.Neg", AMK_OP_NEG)
                    .Case("onnx.Abs", AMK_OP_ABS)
                    .Case("onnx.Reciprocal", AMK_OP_RECIPROCAL)
                    .Case("onnx.Floor", AMK_OP_FLOOR)
                    .Case("onnx.Ceil", AMK_OP_CEIL)
                    .Case("onnx.Round", AMK_OP_ROUND)
                    .Case("onnx.Softplus", AMK_OP_SOFTPLUS)
                    .Case("onnx.HardSwish", AMK_OP_HARD_SWISH)
                    .Case("onnx.Identity", AMK_OP_COPY)
                    .Default(-1);
    if (binary >= 0 && args.size() >= 2 && (on != "onnx.Max" && on != "onnx.Min" ? args.size() == 2 : true)) {
      out = args[0];
      for (size_t i = 1; i < args.size(); ++i)
        out = emitBinary(binary, out, args[i]);
    } else if ((on == "onnx.Max" || on == "onnx.Min") && args.size() == 1) {
      out = emitUnary(AMK_OP_COPY, args[0], 0, 0);
    } else if (unary >= 0 && args.size() == 1) {
      out = emitUnary(unary, args[0], 0, 0);
    } else if (on == "onnx.LeakyRelu") {
      out = emitUnary(AMK_OP_LEAKY_RELU, args[0], floatAttr(o, "alpha", 0.01f),
                      0);
    } else if (on == "onnx.HardSigmoid") {
      out = emitUnary(AMK_OP_HARD_SIGMOID, args[0],
                      floatAttr(o, "alpha", 0.2f), floatAttr(o, "beta", 0.5f));
    } else if (on == "onnx.Clip") {
      auto lo = args.size() > 1 && args[1] >= 0
                    ? amk::onnx::getSplatValue(readValue(o->getOperand(1)))
                    : std::optional<double>(-INFINITY);
      auto hi = args.size() > 2 && args[2] >= 0
                    ? amk::onnx::getSplatValue(readValue(o->getOperand(2)))
                    : std::optional<double>(INFINITY);
      if (!lo || !hi)
        return unsupported(op, "Clip bounds must be constants");
      out = emitUnary(AMK_OP_CLIP, args[0], *lo, *hi);
    } else if (on == "onnx.Gelu" || on == "amk.gelu") {
      StringRef approx = strAttr(o, "approximate", "none");
      if (approx == "quick")
        out = emitUnary(AMK_OP_QUICK_GELU, args[0],
                        floatAttr(o, "alpha", 1.702f), 0);
      else
        out = emitUnary(approx == "tanh" ? AMK_OP_GELU_TANH : AMK_OP_GELU,
                        args[0], 0, 0);
    } else if (on == "onnx.Cast" &&
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
    // Right-aligned numpy broadcast: size-1 (or missing) dims get stride 0.
    SmallVector<int64_t> st = contiguousStrides(it.getShape());
    int64_t off = rank - it.getRank();
    for (int64_t d = 0; d < rank; ++d) {
      int64_t id = d - off;
      k.ip.push_back(id < 0 || it.getDimSize(id) == 1 ? 0 : st[id]);
    }
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

LogicalResult Scheduler::lowerSoftmax(Operation *op, Value x, int64_t axis,
                                      Value y) {
  auto xt = cast<RankedTensorType>(x.getType());
  if (!xt.getElementType().isF32())
    return unsupported(op, "only float32 softmax is implemented");
  auto xi = getTensor(x, op);
  if (failed(xi))
    return failure();
  ArrayRef<int64_t> s = xt.getShape();
  int64_t outer = product(s.take_front(axis)), len = s[axis],
          inner = product(s.drop_front(axis + 1));
  // In place when fused after an elementwise kernel (same tensor).
  int yi = (x == y) ? *xi : defineOutput(y);
  KOp &k = newKOp(op, AMK_RT_K_SOFTMAX);
  k.slots = {*xi, yi};
  k.ip = {outer, len, inner};
  k.rows = outer;
  k.flops = 5.0 * outer * len * inner;
  k.bytes = 8.0 * outer * len * inner;
  int xs = *xi;
  int64_t rowBytes = len * inner * 4;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * rowBytes, r1 * rowBytes));
    wr.push_back(span(yi, r0 * rowBytes, r1 * rowBytes));
  };
  return success();
}

LogicalResult Scheduler::lowerLayerNorm(Operation *op) {
  Value x = op->getOperand(0);
  auto xt = cast<RankedTensorType>(x.getType());
  for (Value r : op->getResults().drop_front())
    if (!isNoneValue(r) && !r.use_empty())
      return unsupported(op, "LayerNorm's mean and inverse-deviation "
                             "outputs are not implemented");
  if (!xt.getElementType().isF32())
    return unsupported(op, "only float32 LayerNorm is implemented");
  int64_t rank = xt.getRank(), axis = intAttr(op, "axis", -1);
  if (axis < 0)
    axis += rank;
  int64_t rows = product(xt.getShape().take_front(axis)),
          cols = product(xt.getShape().drop_front(axis));
  auto xi = getTensor(x, op);
  if (failed(xi))
    return failure();
  SmallVector<int> opt = {-1, -1};
  for (int i = 0; i < 2; ++i) {
    Value v = (int)op->getNumOperands() > 1 + i ? op->getOperand(1 + i) : Value();
    if (isNoneValue(v))
      continue;
    if (cast<ShapedType>(v.getType()).getNumElements() != cols)
      return unsupported(op, "scale and bias must cover the normalized "
                             "axes exactly");
    auto t = getTensor(v, op);
    if (failed(t))
      return failure();
    opt[i] = *t;
  }
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_LAYERNORM);
  k.slots = {*xi, yi, opt[0], opt[1]};
  k.ip = {rows, cols, (int64_t)op->hasAttr("rms") &&
                          op->getAttrOfType<BoolAttr>("rms") &&
                          op->getAttrOfType<BoolAttr>("rms").getValue()};
  k.fp = {floatAttr(op, "epsilon", 1e-5f)};
  k.rows = rows;
  k.flops = 8.0 * rows * cols;
  k.bytes = 8.0 * rows * cols;
  int xs = *xi, s0 = opt[0], s1 = opt[1];
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * cols * 4, r1 * cols * 4));
    if (s0 >= 0)
      rd.push_back(whole(s0, cols * 4));
    if (s1 >= 0)
      rd.push_back(whole(s1, cols * 4));
    wr.push_back(span(yi, r0 * cols * 4, r1 * cols * 4));
  };
  return success();
}

LogicalResult Scheduler::lowerAttention(Operation *op) {
  Value q = op->getOperand(0), kv = op->getOperand(1), v = op->getOperand(2);
  Value mask = op->getNumOperands() > 3 ? op->getOperand(3) : Value();
  auto qt = cast<RankedTensorType>(q.getType());
  auto kt = cast<RankedTensorType>(kv.getType());
  auto vt = cast<RankedTensorType>(v.getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  bool keyT = op->getAttrOfType<BoolAttr>("key_transposed") &&
              op->getAttrOfType<BoolAttr>("key_transposed").getValue();
  int64_t r = qt.getRank();
  if (r < 2 || kt.getRank() != r || vt.getRank() != r ||
      !qt.getElementType().isF32())
    return unsupported(op, "only float32 Q, K, V of equal rank are "
                           "implemented");
  if (qt.getShape().drop_back(2) != kt.getShape().drop_back(2) ||
      qt.getShape().drop_back(2) != vt.getShape().drop_back(2))
    return unsupported(op, "broadcast batch dimensions in attention are not "
                           "implemented");
  int64_t BH = product(qt.getShape().drop_back(2));
  int64_t H = r >= 4 ? qt.getDimSize(r - 3) : 1, B = BH / H;
  int64_t S = qt.getDimSize(r - 2), D = qt.getDimSize(r - 1);
  int64_t T = keyT ? kt.getDimSize(r - 1) : kt.getDimSize(r - 2);
  int64_t DV = vt.getDimSize(r - 1);
  auto qi = getTensor(q, op), ki = getTensor(kv, op), vi = getTensor(v, op);
  if (failed(qi) || failed(ki) || failed(vi))
    return failure();
  int mi = -1;
  SmallVector<int64_t> ms(4, 0);
  if (!isNoneValue(mask)) {
    auto mt = cast<RankedTensorType>(mask.getType());
    if (!mt.getElementType().isF32() || mt.getRank() > 4 ||
        (r > 4 && mt.getRank() > 2))
      return unsupported(op, "the mask must be float32 of rank <= 4");
    // Right-aligned against [B, H, S, T].
    SmallVector<int64_t> full = {B, H, S, T};
    SmallVector<int64_t> st = contiguousStrides(mt.getShape());
    int64_t off = 4 - mt.getRank();
    for (int64_t d = 0; d < 4; ++d) {
      int64_t id = d - off;
      if (id < 0 || mt.getDimSize(id) == 1)
        continue;
      if (mt.getDimSize(id) != full[d])
        return unsupported(op, "the mask does not broadcast to the scores");
      ms[d] = st[id];
    }
    auto m = getTensor(mask, op);
    if (failed(m))
      return failure();
    mi = *m;
  }
  int yi = defineOutput(op->getResult(0));
  (void)yt;
  KOp &k = newKOp(op, AMK_RT_K_ATTENTION);
  k.slots = {*qi, *ki, *vi, yi, mi};
  k.ip = {B, H, S, T, D, DV, keyT, ms[0], ms[1], ms[2], ms[3]};
  k.fp = {floatAttr(op, "scale", 1.f / std::sqrt((float)D))};
  k.rows = BH, k.cols = S, k.colTiling = true;
  k.colAlign = 8;
  // A split over heads reads each head's keys and values once; a split
  // over queries re-reads them in every tile.
  k.rowOperandBytes = 4.0 * BH * T * (D + DV);
  k.colOperandBytes = 0;
  k.flops = 2.0 * BH * S * T * (D + DV);
  k.bytes = 4.0 * BH * (S * D + T * D + T * DV + S * DV);
  int qs = *qi, ks = *ki, vs = *vi;
  int64_t maskBytes = mi >= 0 ? tensors[mi].bytes : 0;
  k.access = [=](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(rect(qs, (r0 * S + c0) * D * 4, (c1 - c0) * D * 4,
                      S * D * 4, r1 - r0));
    rd.push_back(span(ks, r0 * T * D * 4, r1 * T * D * 4));
    rd.push_back(span(vs, r0 * T * DV * 4, r1 * T * DV * 4));
    if (mi >= 0)
      rd.push_back(whole(mi, maskBytes));
    wr.push_back(rect(yi, (r0 * S + c0) * DV * 4, (c1 - c0) * DV * 4,
                      S * DV * 4, r1 - r0));
  };
  return success();
}

void Scheduler::addCopy(Operation *op, int src, int dst,
                        ArrayRef<int64_t> dims, ArrayRef<int64_t> srcStrides,
                        int64_t srcOff, ArrayRef<int64_t> dstStrides,
                        int64_t dstOff, int64_t eb, bool dstContiguous) {
  KOp &k = newKOp(op, AMK_RT_K_COPY);
  k.slots = {src, dst};
  int64_t rank = dims.size();
  k.ip = {eb, rank, srcOff, dstOff};
  k.ip.append(dims.begin(), dims.end());
  k.ip.append(srcStrides.begin(), srcStrides.end());
  k.ip.append(dstStrides.begin(), dstStrides.end());
  int64_t last = rank ? dims.back() : 1;
  k.rows = rank ? product(dims.drop_back()) : 1;
  int64_t numel = product(dims);
  k.bytes = 2.0 * numel * eb;
  k.flops = 0;
  int64_t srcBytes = tensors[src].bytes, dstBytes = tensors[dst].bytes;
  // Bytes of the destination a piece spans (for non-contiguous pieces).
  int64_t lo = dstOff, hi = dstOff;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t ext = (dims[d] - 1) * dstStrides[d];
    (ext < 0 ? lo : hi) += ext;
  }
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(src, srcBytes));
    if (dstContiguous)
      wr.push_back(span(dst, (dstOff + r0 * last) * eb,
                        (dstOff + r1 * last) * eb));
    else
      wr.push_back(span(dst, lo * eb, std::min(dstBytes, (hi + 1) * eb)));
  };
}

LogicalResult Scheduler::lowerTranspose(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> perm = intsAttr(op, "perm");
  int64_t rank = xt.getRank();
  if (perm.empty())
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  SmallVector<int64_t> inStrides = contiguousStrides(xt.getShape()), src;
  for (int64_t p : perm)
    src.push_back(inStrides[p]);
  addCopy(op, *xi, yi, yt.getShape(), src, 0,
          contiguousStrides(yt.getShape()), 0,
          elemBytes(xt.getElementType()), true);
  return success();
}

LogicalResult Scheduler::lowerSlice(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = xt.getRank();
  auto starts = amk::onnx::getIntValues(op->getOperand(1));
  auto ends = amk::onnx::getIntValues(op->getOperand(2));
  std::optional<SmallVector<int64_t>> axes, steps;
  if (op->getNumOperands() > 3 && !isNoneValue(op->getOperand(3)))
    axes = amk::onnx::getIntValues(op->getOperand(3));
  if (op->getNumOperands() > 4 && !isNoneValue(op->getOperand(4)))
    steps = amk::onnx::getIntValues(op->getOperand(4));
  if (!starts || !ends || (op->getNumOperands() > 3 &&
                           !isNoneValue(op->getOperand(3)) && !axes) ||
      (op->getNumOperands() > 4 && !isNoneValue(op->getOperand(4)) && !steps))
    return unsupported(op, "Slice with non-constant starts/ends/axes/steps");
  SmallVector<int64_t> st(rank, 0), sp(rank, 1);
  for (size_t i = 0; i < starts->size(); ++i) {
    int64_t ax = axes ? (*axes)[i] : (int64_t)i;
    if (ax < 0)
      ax += rank;
    int64_t dim = xt.getDimSize(ax), step = steps ? (*steps)[i] : 1;
    int64_t s = (*starts)[i];
    if (s < 0)
      s += dim;
    s = step > 0 ? std::clamp<int64_t>(s, 0, dim)
                 : std::clamp<int64_t>(s, 0, dim - 1);
    st[ax] = s;
    sp[ax] = step;
  }
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  SmallVector<int64_t> inStrides = contiguousStrides(xt.getShape()), src;
  int64_t off = 0;
  for (int64_t d = 0; d < rank; ++d) {
    off += st[d] * inStrides[d];
    src.push_back(inStrides[d] * sp[d]);
  }
  addCopy(op, *xi, yi, yt.getShape(), src, off,
          contiguousStrides(yt.getShape()), 0, elemBytes(xt.getElementType()),
          true);
  return success();
}

LogicalResult Scheduler::lowerConcat(Operation *op) {
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = yt.getRank(), axis = intAttr(op, "axis", 0);
  if (axis < 0)
    axis += rank;
  SmallVector<int> ins;
  for (Value v : op->getOperands()) {
    auto t = getTensor(v, op);
    if (failed(t))
      return failure();
    ins.push_back(*t);
  }
  int yi = defineOutput(op->getResult(0));
  SmallVector<int64_t> outStrides = contiguousStrides(yt.getShape());
  int64_t at = 0;
  bool contiguous = product(yt.getShape().take_front(axis)) == 1;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    auto it = cast<RankedTensorType>(v.getType());
    if (it.getNumElements() == 0)
      continue;
    addCopy(op, ins[i], yi, it.getShape(), contiguousStrides(it.getShape()),
            0, outStrides, at * outStrides[axis],
            elemBytes(yt.getElementType()), contiguous);
    at += it.getDimSize(axis);
  }
  return success();
}

LogicalResult Scheduler::lowerSplit(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t rank = xt.getRank(), axis = intAttr(op, "axis", 0);
  if (axis < 0)
    axis += rank;
  // The pieces' extents are the results' static shapes, which shape
  // inference derived from the split sizes (operand, attribute or equal).
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  SmallVector<int64_t> inStrides = contiguousStrides(xt.getShape());
  int64_t at = 0;
  for (Value y : op->getResults()) {
    auto yt = cast<RankedTensorType>(y.getType());
    int yi = defineOutput(y);
    if (yt.getNumElements() != 0)
      addCopy(op, *xi, yi, yt.getShape(), inStrides, at * inStrides[axis],
              contiguousStrides(yt.getShape()), 0,
              elemBytes(xt.getElementType()), true);
    at += yt.getDimSize(axis);
  }
  if (at != xt.getDimSize(axis))
    return unsupported(op, "Split whose outputs do not cover the input");
  return success();
}

LogicalResult Scheduler::lowerGather(Operation *op) {
  auto dt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto it = cast<RankedTensorType>(op->getOperand(1).getType());
  int64_t axis = intAttr(op, "axis", 0);
  if (axis < 0)
    axis += dt.getRank();
  if (!it.getElementType().isInteger(64) && !it.getElementType().isInteger(32))
    return unsupported(op, "indices must be int32 or int64");
  auto di = getTensor(op->getOperand(0), op),
       ii = getTensor(op->getOperand(1), op);
  if (failed(di) || failed(ii))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_GATHER);
  k.slots = {*di, *ii, yi};
  int64_t outer = product(dt.getShape().take_front(axis));
  int64_t inner = product(dt.getShape().drop_front(axis + 1));
  int64_t nidx = it.getNumElements(), eb = elemBytes(dt.getElementType());
  k.ip = {outer, dt.getDimSize(axis), inner, nidx, eb,
          amk::task::runtimeDtype(it.getElementType())};
  k.rows = outer * nidx;
  k.bytes = 2.0 * outer * nidx * inner * eb;
  int ds = *di, is = *ii;
  int64_t dBytes = tensors[ds].bytes, iBytes = tensors[is].bytes;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(ds, dBytes));
    rd.push_back(whole(is, iBytes));
    wr.push_back(span(yi, r0 * inner * eb, r1 * inner * eb));
  };
  return success();
}

/// Inference BatchNormalization as y = x * a[c] + b[c], a and b folded now.
LogicalResult Scheduler::lowerBatchNorm(Operation *op) {
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
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_ELEMENTWISE);
  k.slots = {yi, *xi, ai, bi};
  int64_t rank = xt.getRank();
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

//===----------------------------------------------------------------------===//
// Memory planning
//===----------------------------------------------------------------------===//

void Scheduler::planMemory() {
  // Liveness of each root arena tensor over kernel order.
  for (auto [i, k] : llvm::enumerate(kops)) {
    SmallVector<TAccess> rd, wr;
    k.access(0, k.rows, 0, k.cols, rd, wr);
    for (const TAccess &a : rd) {
      TensorInfo &t = tensors[rootOf(a.tensor)];
      t.firstDef = std::min<int>(t.firstDef, i);
      t.lastUse = std::max<int>(t.lastUse, i);
    }
    for (const TAccess &a : wr) {
      TensorInfo &t = tensors[rootOf(a.tensor)];
      t.firstDef = std::min<int>(t.firstDef, i);
      t.lastUse = std::max<int>(t.lastUse, i);
    }
  }
  // Greedy: largest first, lowest offset that no live-overlapping tensor
  // uses.
  SmallVector<int> order;
  for (auto [i, t] : llvm::enumerate(tensors))
    if (t.root == (int)i && t.kind == TensorInfo::Arena && t.lastUse >= 0)
      order.push_back(i);
  llvm::stable_sort(order, [&](int a, int b) {
    return tensors[a].bytes > tensors[b].bytes;
  });
  SmallVector<int> placed;
  for (int id : order) {
    TensorInfo &t = tensors[id];
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (int p : placed) {
      TensorInfo &o = tensors[p];
      if (o.lastUse < t.firstDef || t.lastUse < o.firstDef)
        continue;
      busy.push_back({o.offset, o.offset + o.bytes});
    }
    llvm::sort(busy);
    int64_t off = 0;
    for (auto [b0, b1] : busy) {
      if (off + t.bytes <= b0)
        break;
      off = std::max(off, (b1 + kAlign - 1) / kAlign * kAlign);
    }
    t.offset = off;
    placed.push_back(id);
  }
}

//===----------------------------------------------------------------------===//
// Tiles, dependencies, list scheduling
//===----------------------------------------------------------------------===//

void Scheduler::makeTasks() {
  int64_t W = opts.workers;
  for (auto [ki, k] : llvm::enumerate(kops)) {
    double costNs =
        k.flops / opts.peakGflops + k.bytes / opts.memGbps; // GFLOP/s = flop/ns
    int64_t want = std::max<int64_t>(
        1, std::min<int64_t>(W * opts.tasksPerWorker,
                             (int64_t)(costNs / std::max(1.0, opts.minTaskNs))));
    int64_t rowTiles = 1, colTiles = 1;
    auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
    if (opts.tileRows > 0 || opts.tileCols > 0) {
      rowTiles = opts.tileRows > 0 ? ceilDiv(k.rows, opts.tileRows) : 1;
      colTiles = opts.tileCols > 0 && k.colTiling
                     ? ceilDiv(k.cols, opts.tileCols)
                     : 1;
    } else if (k.colTiling &&
               want * k.colOperandBytes + k.rowOperandBytes <
                   want * k.rowOperandBytes + k.colOperandBytes &&
               k.cols >= want * k.colAlign) {
      // A row split re-reads the (bigger) column operand in every tile.
      rowTiles = want;
    } else if (k.colTiling && k.cols >= k.colAlign * 2) {
      colTiles = std::min<int64_t>(want, ceilDiv(k.cols, k.colAlign));
    } else {
      rowTiles = want;
    }
    if (!k.colTiling)
      colTiles = 1;
    // Balanced cuts: the i-th at i*n/parts rounded to the nearest multiple
    // of `align` (so 197 rows in 4 parts are 48/48/48/53, not 64/64/64/5).
    auto cuts = [&](int64_t n, int64_t parts, int64_t align) {
      SmallVector<int64_t> c = {0};
      align = std::max<int64_t>(1, align);
      parts = std::max<int64_t>(1, std::min(parts, ceilDiv(n, align)));
      for (int64_t i = 1; i < parts; ++i) {
        int64_t x = (i * n / parts + align / 2) / align * align;
        if (x > c.back() && x < n)
          c.push_back(x);
      }
      c.push_back(n);
      return c;
    };
    auto rc = cuts(k.rows, rowTiles, k.rowAlign);
    auto cc = k.colTiling ? cuts(k.cols, colTiles, k.colAlign)
                          : SmallVector<int64_t>{0, k.cols};
    int64_t ntiles = (rc.size() - 1) * (cc.size() - 1);
    for (size_t r = 0; r + 1 < rc.size(); ++r)
      for (size_t c = 0; c + 1 < cc.size(); ++c) {
        Task t;
        t.kop = ki;
        t.tile[0] = rc[r], t.tile[1] = rc[r + 1], t.tile[2] = cc[c],
        t.tile[3] = cc[c + 1];
        k.access(t.tile[0], t.tile[1], t.tile[2], t.tile[3], t.reads,
                 t.writes);
        t.cost = costNs / ntiles;
        tasks.push_back(std::move(t));
      }
  }
}

void Scheduler::findDependencies() {
  // Absolute address of an access: arena tensors share one space.
  struct Abs {
    int64_t space, base;
  };
  auto absOf = [&](const TAccess &a) -> Abs {
    const TensorInfo &r = tensors[rootOf(a.tensor)];
    int64_t base = tensors[a.tensor].rootOffset;
    if (r.kind == TensorInfo::Arena)
      return {-1, r.offset + base};
    return {(int64_t)rootOf(a.tensor), base};
  };
  auto toAccess = [](const TAccess &a) {
    return Access{0, a.offset, a.rowBytes, a.stride, a.rows};
  };
  for (size_t t = 0; t < tasks.size(); ++t) {
    Task &cur = tasks[t];
    for (size_t p = 0; p < t; ++p) {
      Task &prev = tasks[p];
      bool dep = false;
      for (int pw = 0; pw < 2 && !dep; ++pw)
        for (const TAccess &x : pw ? prev.writes : prev.reads) {
          if (dep)
            break;
          Abs ax = absOf(x);
          for (int cw = 0; cw < 2 && !dep; ++cw) {
            if (!pw && !cw)
              continue; // Read after read.
            for (const TAccess &y : cw ? cur.writes : cur.reads) {
              Abs ay = absOf(y);
              if (ax.space != ay.space)
                continue;
              if (accessesOverlap(ax.base, toAccess(x), ay.base,
                                  toAccess(y))) {
                dep = true;
                break;
              }
            }
          }
        }
      if (dep)
        cur.deps.push_back(p);
    }
  }
}

void Scheduler::listSchedule() {
  int64_t W = opts.workers;
  std::vector<double> free(W, 0);
  std::vector<int> count(W, 0);
  int64_t rr = 0;
  for (Task &t : tasks) {
    int best = 0;
    double bestFinish = INFINITY;
    if (opts.policy == "round-robin") {
      best = rr++ % W;
      double start = free[best];
      for (int d : t.deps)
        start = std::max(start, tasks[d].finish +
                                    (tasks[d].worker != best ? opts.syncNs : 0));
      bestFinish = start + t.cost;
    } else {
      for (int w = 0; w < W; ++w) {
        double start = free[w];
        for (int d : t.deps)
          start = std::max(start, tasks[d].finish +
                                      (tasks[d].worker != w ? opts.syncNs : 0));
        double finish = start + t.cost;
        if (finish < bestFinish - 1e-9) {
          bestFinish = finish;
          best = w;
        }
      }
    }
    t.worker = best;
    t.finish = bestFinish;
    t.pos = count[best]++;
    free[best] = bestFinish;
  }
  // Waits: only what program order and earlier waits do not already imply
  // (vector clocks).
  std::vector<SmallVector<int, 4>> vc(tasks.size());
  std::vector<int> lastOn(W, -1);
  std::vector<std::vector<int>> byPos(W);
  for (size_t i = 0; i < tasks.size(); ++i)
    byPos[tasks[i].worker].push_back(i);
  for (size_t i = 0; i < tasks.size(); ++i) {
    Task &t = tasks[i];
    SmallVector<int, 4> v(W, 0);
    if (lastOn[t.worker] >= 0) {
      v = vc[lastOn[t.worker]];
      v[t.worker] = std::max(v[t.worker], tasks[lastOn[t.worker]].pos + 1);
    }
    SmallVector<int, 4> need(W, 0);
    for (int d : t.deps) {
      const Task &p = tasks[d];
      if (p.worker == t.worker || v[p.worker] > p.pos)
        continue;
      need[p.worker] = std::max(need[p.worker], p.pos + 1);
    }
    for (int w = 0; w < W; ++w) {
      if (!need[w] || v[w] >= need[w])
        continue;
      int producer = byPos[w][need[w] - 1];
      tasks[producer].signals = true;
      t.waitOn.push_back({w, need[w]});
      for (int x = 0; x < W; ++x)
        v[x] = std::max(v[x], vc[producer][x]);
      v[w] = std::max(v[w], need[w]);
    }
    vc[i] = v;
    lastOn[t.worker] = i;
  }
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

void Scheduler::emit() {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToStart(module.getBody());
  Location loc = func.getLoc();
  int64_t W = opts.workers;
  // Signal counts per counter (counter w = worker w's progress).
  std::vector<std::vector<int>> byPos(W);
  for (size_t i = 0; i < tasks.size(); ++i)
    byPos[tasks[i].worker].push_back(i);
  std::vector<int> signalIndex(tasks.size(), 0);
  SmallVector<int64_t> counterSignals(W, 0);
  for (int64_t w = 0; w < W; ++w)
    for (int id : byPos[w])
      if (tasks[id].signals)
        signalIndex[id] = ++counterSignals[w];

  int64_t arenaBytes = 0, tensorBytes = 0;
  for (auto [i, t] : llvm::enumerate(tensors))
    if (t.root == (int)i && t.kind == TensorInfo::Arena && t.lastUse >= 0) {
      arenaBytes = std::max(arenaBytes, t.offset + t.bytes);
      tensorBytes += t.bytes;
    }
  arenaBytes = (arenaBytes + kAlign - 1) / kAlign * kAlign;

  auto program = ProgramOp::create(
      b, loc, StringAttr::get(ctx, func.getSymName()), b.getI64IntegerAttr(W),
      b.getI64IntegerAttr(W), b.getI64IntegerAttr(arenaBytes),
      b.getDenseI64ArrayAttr(counterSignals),
      b.getI64IntegerAttr(tensorBytes), DictionaryAttr());
  program.getBody().push_back(new Block());
  OpBuilder pb = OpBuilder::atBlockBegin(&program.getBody().front());

  // Buffers: every input and output, then the roots kernels touch.
  int nbuf = 0;
  int64_t constOffset = 0;
  auto addBuffer = [&](TensorInfo &t, StringRef kind, int64_t offset,
                       int64_t index) {
    auto op = BufferOp::create(pb, loc, pb.getStringAttr(kind),
                               pb.getI64IntegerAttr(t.bytes),
                               pb.getI64IntegerAttr(offset),
                               pb.getI64IntegerAttr(index), TypeAttr::get(t.type),
                               pb.getStringAttr(t.name),
                               kind == "const" ? t.constValue : ElementsAttr());
    (void)op;
    t.buffer = nbuf++;
  };
  for (auto [i, t] : llvm::enumerate(tensors))
    if (t.root == (int)i && t.kind == TensorInfo::Input)
      addBuffer(t, "input", 0, t.ioIndex);
  // Inputs no kernel reads still belong to the interface.
  for (BlockArgument arg : func.getArguments())
    if (!tensorOf.count(arg)) {
      TensorInfo t;
      t.value = arg;
      t.type = cast<RankedTensorType>(arg.getType());
      t.bytes = t.type.getNumElements() * elemBytes(t.type.getElementType());
      t.kind = TensorInfo::Input;
      t.ioIndex = arg.getArgNumber();
      t.name = amk::onnx::getTensorName(arg).str();
      t.root = tensors.size();
      tensors.push_back(t);
      tensorOf[arg] = t.root;
      addBuffer(tensors.back(), "input", 0, t.ioIndex);
    }
  for (auto [i, t] : llvm::enumerate(tensors))
    if (t.root == (int)i && t.kind == TensorInfo::Output)
      addBuffer(t, "output", 0, t.ioIndex);
  for (auto [i, t] : llvm::enumerate(tensors))
    if (t.root == (int)i && t.kind == TensorInfo::Arena && t.lastUse >= 0)
      addBuffer(t, "arena", t.offset, 0);
  for (auto [i, t] : llvm::enumerate(tensors))
    if (t.root == (int)i && t.kind == TensorInfo::Const && t.lastUse >= 0) {
      addBuffer(t, "const", constOffset, 0);
      constOffset += (t.bytes + kAlign - 1) / kAlign * kAlign;
    }
  auto bufferOf = [&](int tensor) {
    return tensor < 0 ? -1 : tensors[rootOf(tensor)].buffer;
  };
  for (KOp &k : kops) {
    SmallVector<int64_t> bufs;
    for (int s : k.slots)
      bufs.push_back(bufferOf(s));
    KernelOp::create(pb, loc, pb.getStringAttr(kernelKindName(k.kind)),
                     pb.getI64IntegerAttr(k.variant),
                     pb.getDenseI64ArrayAttr(bufs),
                     pb.getDenseI64ArrayAttr(k.ip),
                     pb.getDenseF32ArrayAttr(k.fp), pb.getStringAttr(k.name),
                     pb.getStringAttr(k.opName));
  }
  auto flatten = [&](ArrayRef<TAccess> as) {
    SmallVector<int64_t> v;
    for (const TAccess &a : as)
      v.append({bufferOf(a.tensor), a.offset + tensors[a.tensor].rootOffset,
                a.rowBytes, a.stride, a.rows});
    return v;
  };
  for (size_t i = 0; i < tasks.size(); ++i) {
    Task &t = tasks[i];
    SmallVector<int64_t> waits;
    for (auto [w, n] : t.waitOn) {
      int producer = byPos[w][n - 1];
      waits.append({w, signalIndex[producer]});
      ++numWaits;
    }
    TaskOp::create(pb, loc, pb.getI64IntegerAttr(t.kop),
                   pb.getI64IntegerAttr(t.worker),
                   pb.getDenseI64ArrayAttr(ArrayRef<int64_t>(t.tile, 4)),
                   pb.getDenseI64ArrayAttr(waits),
                   pb.getI64IntegerAttr(t.signals ? t.worker : -1),
                   pb.getDenseI64ArrayAttr(flatten(t.reads)),
                   pb.getDenseI64ArrayAttr(flatten(t.writes)),
                   pb.getF64FloatAttr(t.cost));
  }
  double makespan = 0, work = 0, flops = 0, bytes = 0;
  for (Task &t : tasks) {
    makespan = std::max(makespan, t.finish);
    work += t.cost;
  }
  for (KOp &k : kops) {
    flops += k.flops;
    bytes += k.bytes;
  }
  program.setStatsAttr(b.getDictionaryAttr({
      b.getNamedAttr("tasks", b.getI64IntegerAttr(tasks.size())),
      b.getNamedAttr("kernels", b.getI64IntegerAttr(kops.size())),
      b.getNamedAttr("waits", b.getI64IntegerAttr(numWaits)),
      b.getNamedAttr("const_bytes", b.getI64IntegerAttr(constOffset)),
      b.getNamedAttr("modelled_makespan_ns", b.getF64FloatAttr(makespan)),
      b.getNamedAttr("modelled_work_ns", b.getF64FloatAttr(work)),
      b.getNamedAttr("flops", b.getF64FloatAttr(flops)),
      b.getNamedAttr("bytes", b.getF64FloatAttr(bytes)),
  }));
}

LogicalResult Scheduler::run() {
  for (Operation &op : func.getBody().front())
    if (failed(lowerOp(&op)))
      return failure();
  // Outputs: a kernel writes each directly into the caller's buffer when
  // it can; otherwise (an input, a constant, a view, a repeated output) a
  // copy does.
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto t = getTensor(v, ret);
    if (failed(t))
      return failure();
    TensorInfo &info = tensors[*t];
    TensorInfo &root = tensors[info.root];
    if (root.kind == TensorInfo::Arena && info.rootOffset == 0 &&
        info.bytes == root.bytes) {
      root.kind = TensorInfo::Output;
      root.ioIndex = i;
      continue;
    }
    TensorInfo out;
    out.value = v;
    out.type = info.type;
    out.bytes = info.bytes;
    out.kind = TensorInfo::Output;
    out.ioIndex = i;
    out.name = info.name;
    int oid = tensors.size();
    out.root = oid;
    int64_t numel = info.type.getNumElements();
    int64_t eb = elemBytes(info.type.getElementType());
    tensors.push_back(out); // Invalidates `info` and `root`.
    addCopy(ret, *t, oid, {numel}, {1}, 0, {1}, 0, eb, true);
  }
  // Result names for the interface.
  for (auto [i, t] : llvm::enumerate(tensors))
    if (t.kind == TensorInfo::Output && t.root == (int)i)
      if (auto n = func.getResultAttrOfType<StringAttr>(t.ioIndex,
                                                        amk::onnx::kNameAttr))
        tensors[i].name = n.str();
  planMemory();
  makeTasks();
  findDependencies();
  listSchedule();
  emit();
  return success();
}

struct ScheduleMegakernelPass
    : public amk::impl::ScheduleMegakernelBase<ScheduleMegakernelPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (workers < 1 || workers > 1024) {
      module.emitError("amk-schedule-megakernel: workers must be in [1, "
                       "1024]");
      return signalPassFailure();
    }
    if (policy != "eft" && policy != "round-robin") {
      module.emitError("amk-schedule-megakernel: policy must be eft or "
                       "round-robin, not '")
          << policy << "'";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    if (funcs.size() != 1) {
      module.emitError("amk-schedule-megakernel: expected one graph "
                       "function, found ")
          << funcs.size();
      return signalPassFailure();
    }
    amk::ScheduleMegakernelOptions o;
    o.workers = workers, o.tasksPerWorker = std::max<int64_t>(1, tasksPerWorker);
    o.minTaskNs = minTaskNs, o.tileRows = tileRows, o.tileCols = tileCols;
    if (convKernel != "auto" && convKernel != "direct" &&
        convKernel != "im2col") {
      module.emitError("amk-schedule-megakernel: conv-kernel must be auto, "
                       "direct or im2col, not '")
          << convKernel << "'";
      return signalPassFailure();
    }
    o.convKernel = convKernel;
    o.policy = policy, o.syncNs = syncNs, o.peakGflops = peakGflops,
    o.memGbps = memGbps;
    Scheduler s(module, funcs[0], o);
    if (failed(s.run()))
      return signalPassFailure();
    numTasks = s.numTasks();
    numWaits = s.numWaits;
    funcs[0].erase();
  }
};

} // namespace
