//===- ListSchedule.cpp - List scheduling ---------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: tiles assigned to workers, cross-worker edges turned into counter waits (design.md).
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

void Scheduler::listSchedule() {
  int64_t W = opts.workers;
  std::vector<double> free(W, 0);
  std::vector<int> count(W, 0);
  int64_t rr = 0;
  // Reading what another worker just wrote costs more than reading one's
  // own lines (docs/runtime.md, "Two threads on this VM").
  auto remoteNs = [&](const Task &t, int w) {
    double kb = 0;
    for (auto [d, bytes] : llvm::zip(t.deps, t.depBytes))
      if (tasks[d].worker != w)
        kb += bytes / 1024.0;
    return kb * opts.remoteKbNs;
  };
  for (Task &t : tasks) {
    int best = 0;
    double bestFinish = INFINITY;
    if (opts.policy == amk::SchedulePolicy::RoundRobin) {
      best = rr++ % W;
      double start = free[best];
      for (int d : t.deps)
        start = std::max(start, tasks[d].finish +
                                    (tasks[d].worker != best ? opts.syncNs : 0));
      bestFinish = start + t.cost + remoteNs(t, best);
    } else {
      for (int w = 0; w < W; ++w) {
        double start = free[w];
        for (int d : t.deps)
          start = std::max(start, tasks[d].finish +
                                      (tasks[d].worker != w ? opts.syncNs : 0));
        double finish = start + t.cost + remoteNs(t, w);
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

} // namespace amk::totask
