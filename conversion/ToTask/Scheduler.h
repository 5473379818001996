//===- Scheduler.h - amk-schedule-megakernel's state ------------*- C++ -*-===//
//
// Part of AMK. What the files of amk-schedule-megakernel share: the tensors
// and kernels the graph lowers to, the tiles, and the Scheduler whose
// steps (one file each: the Lower*.cpp op families, MemoryPlan, Tiling,
// Dependencies, ListSchedule, Emit) turn them into one amk_task.program.
// design.md beside this file describes the steps.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_CONVERSION_TOTASK_SCHEDULER_H
#define AMK_CONVERSION_TOTASK_SCHEDULER_H

#include "conversion/Passes.h"
#include "dialect/AMKTask/AMKTaskDialect.h"
#include "dialect/AMKTask/TaskProgram.h"
#include "runtime/include/amk/kernel_params.h"
#include "runtime/include/amk/runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace amk::ref {
class Tensor;
} // namespace amk::ref

namespace amk::totask {

/// The name of the panels amk-schedule-megakernel packs operand 1 of the
/// product `op` into, when that operand is a resource weight it packs; none
/// otherwise. Equal names: the same panels.
std::optional<std::string> packedWeightKey(mlir::Operation *op);
/// Whether two amk.wgemm ops are the gate and up products of a gated pair
/// one WGEMM runs (fuse-gated-products): one A, the same shapes and
/// storage, no C, the up product without activation.
bool wgemmGatedPair(mlir::Operation *gate, mlir::Operation *up);

/// The name of the panels amk-schedule-megakernel packs an amk.wgemm's
/// weights into, when `operand` is its B, B's scale or B's zero point and
/// those are resources; none otherwise. Equal names: the same panels.
std::optional<std::string> wgemmPackedWeightKey(mlir::Operation *op,
                                                unsigned operand);

using mlir::ArrayRef;
using mlir::DenseMap;
using mlir::ElementsAttr;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::ModuleOp;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::SmallVector;
using mlir::SmallVectorImpl;
using mlir::StringRef;
using mlir::Twine;
using mlir::Type;
using mlir::Value;
namespace func = mlir::func;

constexpr int64_t kAlign = 64;

inline int64_t product(ArrayRef<int64_t> v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

inline SmallVector<int64_t> contiguousStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

/// Whether `shape` broadcasts (numpy, right-aligned) to `out`.
inline bool broadcastsTo(ArrayRef<int64_t> shape, ArrayRef<int64_t> out) {
  if (shape.size() > out.size())
    return false;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t od = out[out.size() - shape.size() + d];
    if (shape[d] != 1 && shape[d] != od)
      return false;
  }
  return true;
}

/// Element strides of a contiguous `shape` read over `rank` output dims,
/// right-aligned: 0 along missing and size-1 dims.
inline SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> shape,
                                             int64_t rank) {
  SmallVector<int64_t> st = contiguousStrides(shape), out;
  int64_t off = rank - (int64_t)shape.size();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t id = d - off;
    out.push_back(id < 0 || shape[id] == 1 ? 0 : st[id]);
  }
  return out;
}

inline int64_t elemBytes(Type t) {
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
  /// Another tensor lives inside this root (concat-in-place): the root
  /// cannot become the caller's output buffer.
  bool hasSlices = false;
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
  // Split columns whenever they can be split, whatever the operands'
  // bytes: for kernels whose tiles repeat work on the column operand, not
  // only its reads (a Winograd task transforms the input of its columns).
  bool preferColumnSplit = false;
  double flops = 0, bytes = 0;
  AccessFn access;
};

struct Task {
  int kop;
  int64_t tile[4];
  SmallVector<TAccess> reads, writes;
  double cost = 0;
  SmallVector<int> deps;
  // Bytes of each dep's writes that this task reads (0 for an order-only
  // dep), for the list scheduler's cost of reading another worker's data.
  SmallVector<int64_t> depBytes;
  int worker = 0, pos = 0;
  double finish = 0;
  bool signals = false;
  SmallVector<std::pair<int, int>> waitOn; // (worker, position)
};

inline TAccess whole(int t, int64_t bytes) { return {t, 0, bytes, bytes, 1}; }
inline TAccess span(int t, int64_t begin, int64_t end) {
  return {t, begin, end - begin, end - begin, 1};
}
inline TAccess rect(int t, int64_t offset, int64_t rowBytes, int64_t stride,
             int64_t rows) {
  return {t, offset, rowBytes, stride, rows};
}

/// The 1-D or 2-D geometry of a convolution (Conv, amk.conv, amk.qconv):
/// NCHW sizes, kernel, strides, dilations and begin pads (auto_pad
/// resolved); a 1-D convolution has H = OH = KH = 1.
struct ConvGeometry {
  int64_t n, c, h, w, oc, oh, ow, kh, kw, group, sh, sw, dh, dw, ph, pw;
  static ConvGeometry of(Operation *op, Value weight);
};

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
  /// Constant tensors by (type, value): ops that read the same weights
  /// (a weight shared by two products, equal small tables) read one
  /// buffer.
  DenseMap<std::pair<mlir::Type, mlir::Attribute>, int> constTensorOf;
  std::vector<KOp> kops;
  std::vector<Task> tasks;
  /// Inverted-residual blocks (fuse-blocks), by their depthwise op; the
  /// expansions and projections they absorbed lower to nothing.
  struct InvertedResidual {
    Operation *expand = nullptr, *project = nullptr;
  };
  DenseMap<Operation *, InvertedResidual> blocks;
  /// Gated products (fuse-gated-products), by their Mul; the two products
  /// lower to nothing.
  struct GatedProducts {
    Operation *gate = nullptr, *up = nullptr;
  };
  DenseMap<Operation *, GatedProducts> gated;
  llvm::DenseSet<Operation *> absorbed;
  /// Convolution results kept channel-blocked (NCHW16c) between the
  /// convolutions that read and write them (blocked-layout).
  llvm::DenseSet<Value> channelBlocked;
  /// Values a Concat holds in place (concat-in-place): each value's
  /// producer writes it straight into the Concat result it is planned in,
  /// at a byte offset, instead of a copy moving it there.
  DenseMap<Value, std::pair<Value, int64_t>> concatSlices;

  // Graph to kernels.
  FailureOr<int> getTensor(Value v, Operation *user);
  int newConstTensor(RankedTensorType type, ElementsAttr value,
                     StringRef name);
  /// A constant a lowering built (packed weights, epilogue tables): `t`'s
  /// values stored as `elementType`.
  int newConstTensor(const amk::ref::Tensor &t, Type elementType,
                     StringRef name);
  int defineOutput(Value v);
  int newArenaTensor(RankedTensorType type, StringRef name);
  int rootOf(int t) { return tensors[t].root; }
  LogicalResult unsupported(Operation *op, const Twine &why);
  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerView(Operation *op);
  LogicalResult lowerConv(Operation *op);
  /// Constant weights w [OC][C][taps] packed for the direct convolution's
  /// register tiles, [ceil(OC/32)][C][taps][32] (zero past OC).
  FailureOr<int> packDirectWeights(Operation *op, Value w, int64_t OC,
                                   int64_t C, int64_t taps);
  void findInvertedResiduals();
  void findChannelBlocked();
  void planConcatSlices();
  /// Moves root arena tensor `t` and every tensor inside it into root `rid`
  /// at byte `off`; false (nothing moved) where `t` is not such a root or
  /// `off` is not aligned.
  bool placeSlice(int t, int rid, int64_t off);
  LogicalResult lowerInvertedResidual(Operation *dw);
  LogicalResult lowerQConv(Operation *op);
  LogicalResult lowerQGemm(Operation *op);
  LogicalResult lowerWGemm(Operation *op);
  LogicalResult lowerDynamicQuantize(Operation *op);
  LogicalResult lowerQuantizeLinear(Operation *op);
  LogicalResult lowerQAdd(Operation *op);
  LogicalResult lowerQTable(Operation *op);
  /// Appends an 8-bit kernel's input and output quantization (amk.qresize,
  /// amk.qaverage_pool): iparams x_dtype, y_dtype, zx, zy; fparams sx, sy.
  LogicalResult appendQuantEdges(Operation *op, KOp &k, Value x, Value xScale,
                                 Value xZp, Value y, Value yScale, Value yZp);
  LogicalResult lowerConvTranspose(Operation *op);
  LogicalResult lowerGemm(Operation *op);
  LogicalResult lowerPool(Operation *op);
  LogicalResult lowerReduce(Operation *op);
  LogicalResult lowerArgMax(Operation *op);
  LogicalResult lowerGatherElements(Operation *op);
  LogicalResult lowerElementwise(Operation *op);
  LogicalResult lowerTypedElementwise(Operation *op);
  void emitTypedElementwise(Operation *op, int code, int64_t compute,
                            ArrayRef<int> ins, int yi, RankedTensorType yt,
                            float alpha, float beta);
  LogicalResult lowerSoftmax(Operation *op, Value x, int64_t axis, Value y,
                             bool log = false, int variant = -1);
  LogicalResult lowerLayerNorm(Operation *op);
  LogicalResult lowerLoss(Operation *op);
  LogicalResult lowerAttention(Operation *op);
  LogicalResult lowerTranspose(Operation *op);
  LogicalResult lowerSlice(Operation *op);
  LogicalResult lowerExpand(Operation *op);
  LogicalResult lowerTile(Operation *op);
  LogicalResult lowerDepthSpace(Operation *op);
  LogicalResult lowerPad(Operation *op);
  LogicalResult lowerPadByIndex(Operation *op, StringRef mode,
                                ArrayRef<int64_t> begin);
  LogicalResult lowerRecurrent(Operation *op);
  LogicalResult lowerGatherND(Operation *op);
  LogicalResult lowerScatter(Operation *op);
  LogicalResult lowerTopK(Operation *op);
  LogicalResult lowerCumSum(Operation *op);
  LogicalResult lowerEyeLike(Operation *op);
  LogicalResult lowerEinsum(Operation *op);
  /// The EINSUM kernel for `eq` (no spaces) over op's operands: Einsum
  /// itself, and integer MatMul.
  LogicalResult lowerEinsumEquation(Operation *op, const std::string &eq);
  LogicalResult lowerOneHot(Operation *op);
  LogicalResult lowerDet(Operation *op);
  LogicalResult lowerReverseSequence(Operation *op);
  LogicalResult lowerChannelNorm(Operation *op);
  LogicalResult lowerDropout(Operation *op);
  LogicalResult lowerResize(Operation *op);
  LogicalResult lowerGridSample(Operation *op);
  LogicalResult lowerRoiAlign(Operation *op);
  LogicalResult lowerTfIdf(Operation *op);
  LogicalResult lowerRandom(Operation *op);
  LogicalResult lowerConcat(Operation *op);
  LogicalResult lowerSplit(Operation *op);
  LogicalResult lowerGather(Operation *op);
  LogicalResult lowerCompress(Operation *op);
  void emitGather(Operation *op, int di, RankedTensorType dt, int64_t axis,
                  int ii, int64_t nidx, int64_t idxDtype, int yi);
  LogicalResult lowerBatchNorm(Operation *op);
  /// y = act(x * w[c] + b[c]) over N images of C planes of P floats, as a
  /// depthwise 1x1 convolution (DWCONV's flat path); `b` may be -1.
  void channelScale(Operation *op, int x, int w, int b, int y, int64_t N,
                    int64_t C, int64_t P, int act);
  LogicalResult lowerWhere(Operation *op);
  LogicalResult lowerRope(Operation *op);
  void findGatedProducts();
  LogicalResult lowerGated(Operation *mul);
  LogicalResult lowerGatedWGemm(Operation *mul, Operation *gate, Operation *up);
  LogicalResult lowerTrilu(Operation *op);
  /// A WHERE kernel over tensors `ids` (condition, x, z) of `shapes`,
  /// broadcast to `yt`, defining `result`.
  LogicalResult emitWhere(Operation *op, ArrayRef<int> ids,
                          ArrayRef<SmallVector<int64_t>> shapes, Value result,
                          RankedTensorType yt);
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

/// Attributes by name: one lowering serves an onnx op and its amk form.
SmallVector<int64_t> intsAttr(Operation *op, StringRef name);
int64_t intAttr(Operation *op, StringRef name, int64_t def);
float floatAttr(Operation *op, StringRef name, float def);
StringRef strAttr(Operation *op, StringRef name, StringRef def);
bool isNoneValue(Value v);

enum class EwArity { Unary, Binary, Variadic };
struct EwOpcode {
  EwArity arity;
  int opcode;
};
/// The instruction of an elementwise op without attributes (Add, Exp,
/// Sin, Max...), if it has one.
std::optional<EwOpcode> simpleOpcode(Operation *op);

/// A unary register-program instruction and its two immediates.
struct UnaryCode {
  int code;
  float alpha, beta;
};
/// The instruction of a unary op that has attributes (LeakyRelu, Elu,
/// Selu, Shrink, Gelu...), if it is one.
std::optional<UnaryCode> attrUnaryOpcode(Operation *op);

} // namespace amk::totask

#endif // AMK_CONVERSION_TOTASK_SCHEDULER_H
