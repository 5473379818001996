//===- ScheduleMegakernel.cpp - Graph to task program ---------------------===//
//
// Part of AMK. Lowers the graph to runtime kernels, plans the arena, cuts
// each kernel into tiles, derives byte-exact tile dependencies, assigns
// tiles to workers with a list scheduler and turns cross-worker edges into
// counter waits (docs/runtime.md).
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
#include <cstdlib>

namespace amk {
#define GEN_PASS_DEF_SCHEDULEMEGAKERNEL
#include "conversion/Passes.h.inc"
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

namespace amk::totask {

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
  auto [it, fresh] = constTensorOf.try_emplace({type, value}, -1);
  if (!fresh)
    return it->second;
  it->second = tensors.size();
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

/// A fresh arena tensor no MLIR value holds (a lowering's temporary).
int Scheduler::newArenaTensor(RankedTensorType type, StringRef name) {
  TensorInfo t;
  t.type = type;
  t.bytes = type.getNumElements() * elemBytes(type.getElementType());
  t.name = name.str();
  int id = tensors.size();
  t.root = id;
  tensors.push_back(t);
  return id;
}

/// "opset 21; inputs tensor(float) [2,3], ...": what a refusal is about,
/// beyond the op's name.
static std::string opsetAndTypes(Operation *op) {
  int64_t opset = amk::onnx::getDefaultOpset(op);
  std::string s = "opset " + std::to_string(opset);
  if (auto m = op->getParentOfType<ModuleOp>())
    if (auto a = m->getAttrOfType<IntegerAttr>("onnx.model_opset"))
      if (a.getInt() != opset)
        s = "model opset " + std::to_string(a.getInt()) + ", normalized to " +
            std::to_string(opset);
  auto describe = [](Value v) {
    std::string t = amk::onnx::getONNXTypeString(v.getType());
    if (auto rt = dyn_cast<RankedTensorType>(v.getType())) {
      t += " [";
      for (auto [i, d] : llvm::enumerate(rt.getShape()))
        t += (i ? "," : "") +
             (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
      t += "]";
    }
    return t;
  };
  auto list = [&](StringRef what, ValueRange vs) {
    std::string l;
    for (Value v : vs)
      if (!isa<NoneType>(v.getType()))
        l += (l.empty() ? "" : ", ") + describe(v);
    if (!l.empty())
      s += "; " + what.str() + " " + l;
  };
  list("inputs", op->getOperands());
  list("results", op->getResults());
  return s;
}

LogicalResult Scheduler::unsupported(Operation *op, const Twine &why) {
  return op->emitError() << "amk-schedule-megakernel: the runtime has no "
                            "kernel for "
                         << amk::onnx::describeOp(op) << ": " << why << " ("
                         << opsetAndTypes(op) << ")";
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
  namespace onnx = amk::onnx;
  namespace fused = amk::fused;
  if (isa<onnx::ConstantOp, onnx::NoValueOp, func::ReturnOp>(op))
    return success();
  for (Value r : op->getResults()) {
    if (isa<NoneType>(r.getType()))
      continue;
    auto t = dyn_cast<RankedTensorType>(r.getType());
    // Sizes that depend on the data are known only at run time; the
    // program is static (docs/runtime.md).
    if ((!t || !t.hasStaticShape()) &&
        isa<onnx::NonZeroOp, onnx::UniqueOp, onnx::CompressOp,
            onnx::NonMaxSuppressionOp, onnx::LoopOp, onnx::IfOp,
            onnx::ScanOp>(op))
      return unsupported(op, "its output size depends on the input values, "
                             "and the runtime runs programs of static "
                             "shapes (amk-run runs such a model as "
                             "segments cut at this op: docs/runtime.md)");
    if (!t || !t.hasStaticShape() ||
        amk::task::runtimeDtype(t.getElementType()) < 0)
      return unsupported(op, "its result " +
                                 amk::onnx::getONNXTypeString(r.getType()) +
                                 " is not a static tensor the runtime "
                                 "handles");
  }
  if (absorbed.contains(op))
    return success();
  // Results without elements (a Trilu of an empty matrix, a slice of
  // nothing) need no kernel: their buffers hold no bytes.
  if (op->getNumResults() > 0 && llvm::all_of(op->getResults(), [](Value r) {
        auto t = dyn_cast<RankedTensorType>(r.getType());
        return t && t.getNumElements() == 0;
      })) {
    for (Value r : op->getResults())
      defineOutput(r);
    return success();
  }
  if (blocks.count(op))
    return lowerInvertedResidual(op);
  if (gated.count(op))
    return lowerGated(op);
  auto softmaxAxis = [](Operation *op, int64_t axis) {
    int64_t rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
    return axis < 0 ? axis + rank : axis;
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<onnx::ReshapeOp, onnx::FlattenOp, onnx::SqueezeOp,
            onnx::UnsqueezeOp, onnx::IdentityOp>(
          [&](Operation *op) { return lowerView(op); })
      .Case<onnx::ConvOp, fused::ConvOp>(
          [&](Operation *op) { return lowerConv(op); })
      .Case<fused::QConvOp, onnx::ConvIntegerOp>(
          [&](Operation *op) { return lowerQConv(op); })
      .Case<fused::QGemmOp, onnx::MatMulIntegerOp>(
          [&](Operation *op) { return lowerQGemm(op); })
      .Case<fused::WGemmOp>([&](Operation *op) { return lowerWGemm(op); })
      .Case([&](onnx::DynamicQuantizeLinearOp op) {
        return lowerDynamicQuantize(op);
      })
      .Case<onnx::QuantizeLinearOp, onnx::DequantizeLinearOp>(
          [&](Operation *op) { return lowerQuantizeLinear(op); })
      .Case<fused::QAddOp, fused::QMulOp>(
          [&](Operation *op) { return lowerQAdd(op); })
      .Case<fused::QTableOp>([&](Operation *op) { return lowerQTable(op); })
      .Case<onnx::GemmOp, fused::GemmOp, onnx::MatMulOp>(
          [&](Operation *op) { return lowerGemm(op); })
      .Case<onnx::MaxPoolOp, onnx::AveragePoolOp, onnx::GlobalAveragePoolOp,
            onnx::GlobalMaxPoolOp, fused::QAveragePoolOp>(
          [&](Operation *op) { return lowerPool(op); })
      .Case([&](onnx::TriluOp op) { return lowerTrilu(op); })
      .Case([&](onnx::GatherElementsOp op) { return lowerGatherElements(op); })
      .Case<onnx::ArgMaxOp, onnx::ArgMinOp>(
          [&](Operation *op) { return lowerArgMax(op); })
      .Case<onnx::ReduceMeanOp, onnx::ReduceMaxOp, onnx::ReduceSumOp,
            onnx::ReduceMinOp, onnx::ReduceL1Op, onnx::ReduceL2Op,
            onnx::ReduceSumSquareOp, onnx::ReduceLogSumOp,
            onnx::ReduceLogSumExpOp, onnx::ReduceProdOp>(
          [&](Operation *op) { return lowerReduce(op); })
      .Case([&](onnx::SoftmaxOp op) {
        return lowerSoftmax(op, op->getOperand(0),
                            softmaxAxis(op, intAttr(op, "axis", -1)),
                            op->getResult(0));
      })
      .Case([&](onnx::HardmaxOp op) {
        return lowerSoftmax(op, op->getOperand(0),
                            softmaxAxis(op, intAttr(op, "axis", -1)),
                            op->getResult(0), false,
                            AMK_SOFTMAX_VARIANT_HARDMAX);
      })
      .Case([&](onnx::LogSoftmaxOp op) {
        return lowerSoftmax(op, op->getOperand(0),
                            softmaxAxis(op, intAttr(op, "axis", -1)),
                            op->getResult(0), /*log=*/true);
      })
      .Case([&](fused::RopeOp op) { return lowerRope(op); })
      .Case([&](fused::BiasSoftmaxOp op) -> LogicalResult {
        // X + Bias as an elementwise kernel, then the softmax in place.
        if (failed(lowerElementwise(op)))
          return failure();
        Value y = op->getResult(0);
        return lowerSoftmax(op, y, softmaxAxis(op, intAttr(op, "axis", -1)),
                            y);
      })
      .Case<fused::LayerNormOp, onnx::LayerNormalizationOp>(
          [&](Operation *op) { return lowerLayerNorm(op); })
      .Case([&](fused::AttentionOp op) { return lowerAttention(op); })
      .Case<onnx::NegativeLogLikelihoodLossOp, onnx::SoftmaxCrossEntropyLossOp>(
          [&](Operation *op) { return lowerLoss(op); })
      .Case([&](onnx::TransposeOp op) { return lowerTranspose(op); })
      .Case([&](onnx::SliceOp op) { return lowerSlice(op); })
      .Case([&](onnx::ExpandOp op) { return lowerExpand(op); })
      .Case([&](onnx::TileOp op) { return lowerTile(op); })
      .Case([&](onnx::PadOp op) { return lowerPad(op); })
      .Case([&](onnx::GatherNDOp op) { return lowerGatherND(op); })
      .Case<onnx::RNNOp, onnx::GRUOp, onnx::LSTMOp>(
          [&](Operation *op) { return lowerRecurrent(op); })
      .Case([&](onnx::CompressOp op) { return lowerCompress(op); })
      .Case<onnx::ScatterNDOp, onnx::ScatterElementsOp, onnx::ScatterOp>(
          [&](Operation *op) { return lowerScatter(op); })
      .Case([&](onnx::TopKOp op) { return lowerTopK(op); })
      .Case([&](onnx::CumSumOp op) { return lowerCumSum(op); })
      .Case([&](onnx::EyeLikeOp op) { return lowerEyeLike(op); })
      .Case([&](onnx::EinsumOp op) { return lowerEinsum(op); })
      .Case([&](onnx::GridSampleOp op) { return lowerGridSample(op); })
      .Case([&](onnx::RoiAlignOp op) { return lowerRoiAlign(op); })
      .Case([&](onnx::TfIdfVectorizerOp op) { return lowerTfIdf(op); })
      .Case<onnx::RandomUniformOp, onnx::RandomNormalOp,
            onnx::RandomUniformLikeOp, onnx::RandomNormalLikeOp,
            onnx::BernoulliOp, onnx::MultinomialOp>(
          [&](Operation *op) { return lowerRandom(op); })
      .Case([&](onnx::OneHotOp op) { return lowerOneHot(op); })
      .Case([&](onnx::DetOp op) { return lowerDet(op); })
      .Case(
          [&](onnx::ReverseSequenceOp op) { return lowerReverseSequence(op); })
      .Case<onnx::InstanceNormalizationOp, onnx::LRNOp>(
          [&](Operation *op) { return lowerChannelNorm(op); })
      .Case([&](onnx::ConvTransposeOp op) { return lowerConvTranspose(op); })
      .Case([&](onnx::DropoutOp op) { return lowerDropout(op); })
      .Case<onnx::ResizeOp, onnx::UpsampleOp, fused::QResizeOp>(
          [&](Operation *op) { return lowerResize(op); })
      .Case<onnx::DepthToSpaceOp, onnx::SpaceToDepthOp>(
          [&](Operation *op) { return lowerDepthSpace(op); })
      .Case([&](onnx::ConcatOp op) { return lowerConcat(op); })
      .Case([&](onnx::SplitOp op) { return lowerSplit(op); })
      .Case([&](onnx::GatherOp op) { return lowerGather(op); })
      .Case([&](onnx::BatchNormalizationOp op) { return lowerBatchNorm(op); })
      .Case([&](onnx::WhereOp op) { return lowerWhere(op); })
      .Case<onnx::GenericOp>([&](onnx::GenericOp g) {
        if (g.getDomain() == "com.microsoft" && g.getOpType() == "MatMulNBits")
          return unsupported(
              g, "ONNX Runtime's MatMulNBits runs as amk.wgemm when "
                 "amk-lower-qdq (in amk-graph-opt) rewrites it: constant "
                 "weights, 4 or 8 bits, packed uint8 zero points, no g_idx; "
                 "--remarks-filter=amk-lower-qdq says why this one was not");
        return unsupported(g, "no runtime kernel implements this op");
      })
      .Default([&](Operation *op) { return lowerElementwise(op); });
}

/// Views: the result shares its operand's bytes.
LogicalResult Scheduler::lowerView(Operation *op) {
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

LogicalResult Scheduler::run() {
  findInvertedResiduals();
  findChannelBlocked();
  planConcatSlices();
  findGatedProducts();
  for (Operation &op : func.getBody().front())
    if (failed(lowerOp(&op)))
      return failure();
  // Outputs: a kernel writes each directly into the caller's buffer when
  // it can; otherwise (an input, a constant, a view, a repeated output) a
  // copy does.
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  // Results that are a kernel's tensor itself claim its buffer first; a
  // view of it returned too (a Reshape, an Unsqueeze) then gets a copy with
  // its own shape, whatever the order of the results.
  SmallVector<std::pair<unsigned, Value>> order;
  for (int pass = 0; pass < 2; ++pass)
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      auto t = getTensor(v, ret);
      if (failed(t))
        return failure();
      if ((tensors[*t].root == *t) == (pass == 0))
        order.push_back({(unsigned)i, v});
    }
  for (auto [i, v] : order) {
    auto t = getTensor(v, ret);
    if (failed(t))
      return failure();
    TensorInfo &info = tensors[*t];
    TensorInfo &root = tensors[info.root];
    if (root.kind == TensorInfo::Arena && info.rootOffset == 0 &&
        info.bytes == root.bytes && !root.hasSlices) {
      root.kind = TensorInfo::Output;
      root.ioIndex = i;
      // The caller's buffer has the returned value's shape, which a view
      // (a Reshape or Flatten of the kernel's result) may have changed.
      root.type = info.type;
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

} // namespace amk::totask

namespace {

using amk::totask::Scheduler;

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
    if (winogradTile != 0 && winogradTile != 2 && winogradTile != 4) {
      module.emitError("amk-schedule-megakernel: winograd-tile must be 0 "
                       "(the cost model picks), 2 or 4, not ")
          << static_cast<int64_t>(winogradTile);
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
    o.convKernel = convKernel, o.winogradTile = winogradTile;
    o.fuseBlocks = fuseBlocks, o.fuseBlocksMinBytes = fuseBlocksMinBytes;
    o.blockedLayout = blockedLayout;
    o.concatInPlace = concatInPlace;
    o.fuseGatedProducts = fuseGatedProducts;
    o.vectorWidth = vectorWidth;
    if (o.vectorWidth == 0) {
      // AMK_NO_AVX512 is the tests' switch to the runtime's portable
      // paths; the kernel choice follows it.
      bool wide =
          __builtin_cpu_supports("avx512f") && !std::getenv("AMK_NO_AVX512");
      o.vectorWidth = wide ? 16 : 8;
    }
    if (o.vectorWidth != 8 && o.vectorWidth != 16) {
      module.emitError("amk-schedule-megakernel: vector-width must be 0, 8 "
                       "or 16, not ")
          << static_cast<int64_t>(vectorWidth);
      return signalPassFailure();
    }
    o.policy = policy, o.syncNs = syncNs, o.peakGflops = peakGflops,
    o.memGbps = memGbps, o.remoteKbNs = remoteKbNs;
    if (o.remoteKbNs < 0) {
      module.emitError("amk-schedule-megakernel: remote-kb-ns must not be "
                       "negative, not ")
          << static_cast<double>(remoteKbNs);
      return signalPassFailure();
    }
    Scheduler s(module, funcs[0], o);
    if (failed(s.run()))
      return signalPassFailure();
    numTasks = s.numTasks();
    numWaits = s.numWaits;
    funcs[0].erase();
  }
};

} // namespace
