//===- ValidateTaskProgram.cpp - Task program checker ---------------------===//
//
// Part of AMK. Proves, before anything runs, that a task program cannot
// deadlock, race or touch bytes outside its buffers. Happens-before is
// computed exactly with vector clocks: a task knows, for every worker,
// how many of that worker's tasks have finished before it starts (through
// its own worker's program order and its counter waits, transitively).
//
//===----------------------------------------------------------------------===//

#include "dialect/AMKTask/Transforms/Passes.h"
#include "dialect/AMKTask/TaskProgram.h"

#include "dialect/AMKTask/AMKTaskDialect.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <deque>

namespace amk {
#define GEN_PASS_DEF_VALIDATETASKPROGRAM
#include "dialect/AMKTask/Transforms/Passes.h.inc"
} // namespace amk

using namespace mlir;
using namespace amk::task;

namespace {

struct TaskInfo {
  TaskOp op;
  int64_t kernel, worker, signal, pos; // pos: index in its worker's list
  SmallVector<std::pair<int64_t, int64_t>> waits;
  SmallVector<Access> reads, writes;
};

std::string describeTask(const std::vector<TaskInfo> &tasks,
                         ArrayRef<KernelOp> kernels, int64_t t) {
  const TaskInfo &ti = tasks[t];
  std::string s = llvm::formatv("task {0} (worker {1}", t, ti.worker).str();
  if (ti.kernel >= 0 && ti.kernel < (int64_t)kernels.size()) {
    KernelOp k = kernels[ti.kernel];
    s += llvm::formatv(", {0} kernel {1} of '{2}'", stringifyKernelKind(k.getKind()), ti.kernel,
                       k.getName())
             .str();
  }
  return s + ")";
}

bool parseAccesses(ArrayRef<int64_t> v, SmallVectorImpl<Access> &out) {
  if (v.size() % 5)
    return false;
  for (size_t i = 0; i < v.size(); i += 5)
    out.push_back({v[i], v[i + 1], v[i + 2], v[i + 3], v[i + 4]});
  return true;
}

} // namespace

LogicalResult amk::task::validateProgram(ProgramOp program) {
  SmallVector<BufferOp> buffers;
  SmallVector<KernelOp> kernels;
  std::vector<TaskInfo> tasks;
  for (Operation &op : program.getBody().front()) {
    if (auto b = dyn_cast<BufferOp>(op))
      buffers.push_back(b);
    else if (auto k = dyn_cast<KernelOp>(op))
      kernels.push_back(k);
    else if (auto t = dyn_cast<TaskOp>(op))
      tasks.push_back({t, (int64_t)t.getKernel(), (int64_t)t.getWorker(),
                       (int64_t)t.getSignal(), 0, {}, {}, {}});
  }
  int64_t W = program.getWorkers(), C = program.getCounters();
  int64_t arena = program.getArenaBytes();
  if (W < 1 || C < 0)
    return program.emitOpError("needs workers >= 1");
  ArrayRef<int64_t> counterSignals = program.getCounterSignals();

  // Buffers.
  for (auto [i, b] : llvm::enumerate(buffers)) {
    if (b.getKind() == "arena" &&
        (int64_t)(b.getOffset() + b.getSize()) > arena)
      return b.emitOpError(llvm::formatv(
          "buffer {0} ('{1}') spans bytes [{2}, {3}) of a {4}-byte arena", i,
          b.getName(), b.getOffset(), b.getOffset() + b.getSize(), arena));
    if (b.getKind() == "const") {
      auto v = *b.getValue();
      auto st = cast<ShapedType>(v.getType());
      int64_t bytes =
          st.getNumElements() * ((st.getElementTypeBitWidth() + 7) / 8);
      if (bytes != (int64_t)b.getSize())
        return b.emitOpError(llvm::formatv(
            "const buffer {0} has {1} bytes of data but size {2}", i, bytes,
            b.getSize()));
    }
  }
  // Kernels.
  for (auto [i, k] : llvm::enumerate(kernels)) {
    for (int64_t b : k.getBuffers())
      if (b < -1 || b >= (int64_t)buffers.size())
        return k.emitOpError(
            llvm::formatv("kernel {0} names buffer {1}; the program has {2}",
                          i, b, buffers.size()));
  }
  // Tasks: fields, worker lists, accesses in bounds.
  std::vector<std::vector<int64_t>> lists(W);
  std::vector<int64_t> signalWorker(C, -1), signalsSeen(C, 0);
  // For each counter, the task of its n-th signal.
  std::vector<std::vector<int64_t>> signalTask(C);
  for (auto [t, ti] : llvm::enumerate(tasks)) {
    TaskOp op = ti.op;
    if (ti.kernel < 0 || ti.kernel >= (int64_t)kernels.size())
      return op.emitOpError(llvm::formatv(
          "task {0} runs kernel {1}; the program has {2}", t, ti.kernel,
          kernels.size()));
    if (ti.worker < 0 || ti.worker >= W)
      return op.emitOpError(llvm::formatv(
          "task {0} is on worker {1}; the program has {2} workers", t,
          ti.worker, W));
    if (op.getTile().size() != 4)
      return op.emitOpError("tile must have 4 entries");
    ArrayRef<int64_t> w = op.getWaits();
    if (w.size() % 2)
      return op.emitOpError("waits must be (counter, threshold) pairs");
    for (size_t i = 0; i < w.size(); i += 2)
      ti.waits.push_back({w[i], w[i + 1]});
    if (!parseAccesses(op.getReads(), ti.reads) ||
        !parseAccesses(op.getWrites(), ti.writes))
      return op.emitOpError("reads and writes must be quintuples");
    ti.pos = lists[ti.worker].size();
    lists[ti.worker].push_back(t);
    if (ti.signal >= C || ti.signal < -1)
      return op.emitOpError(llvm::formatv(
          "{0} signals counter {1}; the program has {2}",
          describeTask(tasks, kernels, t), ti.signal, C));
    if (ti.signal >= 0) {
      if (signalWorker[ti.signal] >= 0 && signalWorker[ti.signal] != ti.worker)
        return op.emitOpError(llvm::formatv(
            "{0} signals counter {1}, which worker {2} also signals: a "
            "counter shared by workers has no static order",
            describeTask(tasks, kernels, t), ti.signal,
            signalWorker[ti.signal]));
      signalWorker[ti.signal] = ti.worker;
      signalTask[ti.signal].push_back(t);
    }
    for (bool isWrite : {false, true})
      for (const Access &a : isWrite ? ti.writes : ti.reads) {
        if (a.buffer < 0 || a.buffer >= (int64_t)buffers.size())
          return op.emitOpError(llvm::formatv(
              "{0} accesses buffer {1}; the program has {2}",
              describeTask(tasks, kernels, t), a.buffer, buffers.size()));
        BufferOp b = buffers[a.buffer];
        if (a.rows <= 0)
          continue;
        if (a.offset < 0 || a.rowBytes < 0 || a.end() > (int64_t)b.getSize())
          return op.emitOpError(llvm::formatv(
              "{0} {1} bytes [{2}, {3}) of buffer {4} ('{5}'), which has "
              "{6} bytes: out of bounds",
              describeTask(tasks, kernels, t), isWrite ? "writes" : "reads",
              a.offset, a.end(), a.buffer, b.getName(), b.getSize()));
        if (isWrite && (b.getKind() == "const" || b.getKind() == "input"))
          return op.emitOpError(llvm::formatv(
              "{0} writes {1} buffer {2} ('{3}'), which is read-only",
              describeTask(tasks, kernels, t), b.getKind(), a.buffer,
              b.getName()));
      }
  }
  for (int64_t c = 0; c < C; ++c)
    if ((int64_t)signalTask[c].size() != counterSignals[c])
      return program.emitOpError(llvm::formatv(
          "counter {0} is signalled {1} times per run but counter_signals "
          "says {2}",
          c, signalTask[c].size(), counterSignals[c]));

  // Waits: satisfiable, and the dependency graph (program order + waits)
  // acyclic. The producer of wait (c, n) is the n-th signal of c.
  size_t T = tasks.size();
  std::vector<SmallVector<int64_t>> succ(T);
  std::vector<int64_t> indeg(T, 0);
  for (auto [t, ti] : llvm::enumerate(tasks)) {
    if (ti.pos > 0) {
      succ[lists[ti.worker][ti.pos - 1]].push_back(t);
      ++indeg[t];
    }
    for (auto [c, n] : ti.waits) {
      if (c < 0 || c >= C)
        return ti.op.emitOpError(llvm::formatv(
            "{0} waits on counter {1}; the program has {2}",
            describeTask(tasks, kernels, t), c, C));
      if (n <= 0)
        continue; // Always satisfied.
      if (n > counterSignals[c])
        return ti.op.emitOpError(llvm::formatv(
            "{0} waits for counter {1} to reach {2}, but it is signalled "
            "only {3} times per run: the wait can never be satisfied",
            describeTask(tasks, kernels, t), c, n, counterSignals[c]));
      int64_t producer = signalTask[c][n - 1];
      succ[producer].push_back(t);
      ++indeg[t];
    }
  }
  std::deque<int64_t> ready;
  for (size_t t = 0; t < T; ++t)
    if (!indeg[t])
      ready.push_back(t);
  std::vector<int64_t> topo;
  while (!ready.empty()) {
    int64_t t = ready.front();
    ready.pop_front();
    topo.push_back(t);
    for (int64_t s : succ[t])
      if (!--indeg[s])
        ready.push_back(s);
  }
  if (topo.size() != T) {
    // Walk from a stuck task along stuck predecessors to show a cycle.
    int64_t stuck = -1;
    for (size_t t = 0; t < T; ++t)
      if (indeg[t]) {
        stuck = t;
        break;
      }
    return tasks[stuck].op.emitOpError(llvm::formatv(
        "dependency cycle: {0} can never start ({1} of {2} tasks can run; "
        "the rest wait, directly or not, on each other)",
        describeTask(tasks, kernels, stuck), topo.size(), T));
  }
  // Program order must be a valid sequential order (the single-thread
  // executor runs it as is).
  for (auto [t, ti] : llvm::enumerate(tasks))
    for (auto [c, n] : ti.waits)
      if (n > 0 && signalTask[c][n - 1] > (int64_t)t)
        return ti.op.emitOpError(llvm::formatv(
            "{0} waits for task {1}, which comes later in program order",
            describeTask(tasks, kernels, t), signalTask[c][n - 1]));

  // Vector clocks in program order (a topological order, checked above):
  // vc[t][w] = number of worker w's tasks known finished when t starts.
  std::vector<SmallVector<int64_t, 4>> vc(T, SmallVector<int64_t, 4>(W, 0));
  for (auto [t, ti] : llvm::enumerate(tasks)) {
    auto &v = vc[t];
    if (ti.pos > 0) {
      int64_t prev = lists[ti.worker][ti.pos - 1];
      v = vc[prev];
      v[ti.worker] = std::max(v[ti.worker], tasks[prev].pos + 1);
    }
    for (auto [c, n] : ti.waits) {
      if (n <= 0)
        continue;
      int64_t p = signalTask[c][n - 1];
      for (int64_t w = 0; w < W; ++w)
        v[w] = std::max(v[w], vc[p][w]);
      v[tasks[p].worker] = std::max(v[tasks[p].worker], tasks[p].pos + 1);
    }
  }
  auto ordered = [&](int64_t a, int64_t b) {
    // a happens before b, or b before a.
    const TaskInfo &ta = tasks[a], &tb = tasks[b];
    return vc[b][ta.worker] > ta.pos || vc[a][tb.worker] > tb.pos;
  };

  // Races: every pair of accesses to a common byte, one a write, must be
  // ordered. Arena buffers share one address space (the planner reuses
  // bytes); every other buffer is its own.
  struct Rec {
    int64_t space, base, task;
    Access a;
    bool write;
  };
  std::vector<Rec> recs;
  for (auto [t, ti] : llvm::enumerate(tasks))
    for (bool isWrite : {false, true})
      for (const Access &a : isWrite ? ti.writes : ti.reads) {
        if (a.rows <= 0 || a.rowBytes <= 0)
          continue;
        BufferOp b = buffers[a.buffer];
        bool inArena = b.getKind() == "arena";
        recs.push_back({inArena ? -1 : a.buffer,
                        inArena ? (int64_t)b.getOffset() : 0,
                        (int64_t)t, a, isWrite});
      }
  std::sort(recs.begin(), recs.end(), [](const Rec &x, const Rec &y) {
    return std::make_pair(x.space, x.base + x.a.offset) <
           std::make_pair(y.space, y.base + y.a.offset);
  });
  for (size_t i = 0; i < recs.size(); ++i) {
    const Rec &x = recs[i];
    int64_t xEnd = x.base + x.a.end();
    for (size_t j = i + 1; j < recs.size(); ++j) {
      const Rec &y = recs[j];
      if (y.space != x.space || y.base + y.a.offset >= xEnd)
        break;
      if ((!x.write && !y.write) || x.task == y.task)
        continue;
      if (!accessesOverlap(x.base, x.a, y.base, y.a))
        continue;
      if (ordered(x.task, y.task))
        continue;
      int64_t lo = std::max(x.base + x.a.offset, y.base + y.a.offset);
      int64_t first = std::min(x.task, y.task), second = std::max(x.task, y.task);
      const Rec &xf = x.task == first ? x : y, &xs = x.task == first ? y : x;
      return tasks[second].op.emitOpError(llvm::formatv(
          "race: {0} {1} buffer {2} ('{3}') and {4} {5} buffer {6} ('{7}') "
          "touch common bytes (from {8} {9}) with no counter wait ordering "
          "them",
          describeTask(tasks, kernels, first), xf.write ? "writes" : "reads",
          xf.a.buffer, buffers[xf.a.buffer].getName(),
          describeTask(tasks, kernels, second), xs.write ? "writes" : "reads",
          xs.a.buffer, buffers[xs.a.buffer].getName(),
          x.space < 0 ? "arena byte" : "byte", lo));
    }
  }
  return success();
}

namespace {
struct ValidateTaskProgramPass
    : public amk::impl::ValidateTaskProgramBase<ValidateTaskProgramPass> {
  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](ProgramOp p) {
      if (failed(validateProgram(p)))
        ok = false;
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
