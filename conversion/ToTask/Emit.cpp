//===- Emit.cpp - Emission ------------------------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: the amk_task.program op: buffers, kernels, tasks and statistics (design.md).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "transforms/Utils/PassUtils.h"
#include "transforms/Utils/Patterns.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

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
  // A tensor inside another (concat-in-place) is a buffer of its own over
  // its bytes of the root, which is where its kernels' pointers start.
  for (auto [i, t] : llvm::enumerate(tensors)) {
    const TensorInfo &r = tensors[t.root];
    if (t.root != (int)i && r.kind == TensorInfo::Arena && r.lastUse >= 0 &&
        (t.rootOffset != 0 || t.bytes != r.bytes))
      addBuffer(t, "arena", r.offset + t.rootOffset, 0);
  }
  for (auto [i, t] : llvm::enumerate(tensors))
    if (t.root == (int)i && t.kind == TensorInfo::Const && t.lastUse >= 0) {
      addBuffer(t, "const", constOffset, 0);
      constOffset += (t.bytes + kAlign - 1) / kAlign * kAlign;
    }
  auto ownBuffer = [&](int tensor) {
    return rootOf(tensor) != tensor && tensors[tensor].buffer >= 0;
  };
  auto bufferOf = [&](int tensor) {
    if (tensor < 0)
      return -1;
    return ownBuffer(tensor) ? tensors[tensor].buffer
                             : tensors[rootOf(tensor)].buffer;
  };
  for (KOp &k : kops) {
    SmallVector<int64_t> bufs;
    for (int s : k.slots)
      bufs.push_back(bufferOf(s));
    KernelOp::create(pb, loc,
                     KernelKindAttr::get(ctx, static_cast<KernelKind>(k.kind)),
                     pb.getI64IntegerAttr(k.variant),
                     pb.getDenseI64ArrayAttr(bufs),
                     pb.getDenseI64ArrayAttr(k.ip),
                     pb.getDenseF32ArrayAttr(k.fp), pb.getStringAttr(k.name),
                     pb.getStringAttr(k.opName));
  }
  auto flatten = [&](ArrayRef<TAccess> as) {
    SmallVector<int64_t> v;
    for (const TAccess &a : as)
      v.append(
          {bufferOf(a.tensor),
           a.offset + (ownBuffer(a.tensor) ? 0 : tensors[a.tensor].rootOffset),
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
  SmallVector<double> kernelFlops;
  for (KOp &k : kops) {
    flops += k.flops;
    bytes += k.bytes;
    kernelFlops.push_back(k.flops);
  }
  program.setStatsAttr(b.getDictionaryAttr({
      b.getNamedAttr("tasks", b.getI64IntegerAttr(tasks.size())),
      b.getNamedAttr("kernels", b.getI64IntegerAttr(kops.size())),
      b.getNamedAttr("waits", b.getI64IntegerAttr(numWaits)),
      b.getNamedAttr("const_bytes", b.getI64IntegerAttr(constOffset)),
      b.getNamedAttr("modelled_makespan_ns", b.getF64FloatAttr(makespan)),
      b.getNamedAttr("modelled_work_ns", b.getF64FloatAttr(work)),
      b.getNamedAttr("flops", b.getF64FloatAttr(flops)),
      // Per kernel, in kernel order: amk-report's per-layer roofline.
      b.getNamedAttr("kernel_flops", b.getDenseF64ArrayAttr(kernelFlops)),
      b.getNamedAttr("bytes", b.getF64FloatAttr(bytes)),
  }));
}

} // namespace amk::totask
