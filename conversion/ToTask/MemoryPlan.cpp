//===- MemoryPlan.cpp - Memory planning -----------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: the arena: liveness over kernel order, then greedy placement largest first (design.md).
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

} // namespace amk::totask
