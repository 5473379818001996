//===- Dependencies.cpp - Dependencies ------------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: byte-exact dependencies between tiles (design.md).
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
      if (!dep)
        continue;
      cur.deps.push_back(p);
      int64_t raw = 0;
      for (const TAccess &x : prev.writes) {
        Abs ax = absOf(x);
        for (const TAccess &y : cur.reads) {
          Abs ay = absOf(y);
          if (ax.space == ay.space)
            raw += accessesOverlapBytes(ax.base, toAccess(x), ay.base,
                                        toAccess(y));
        }
      }
      cur.depBytes.push_back(raw);
    }
  }
}

} // namespace amk::totask
