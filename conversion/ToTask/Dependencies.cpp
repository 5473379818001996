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

/// About how many bytes two accesses share: exact for spans and for rows of
/// one stride, the hull's overlap times the sparser access's density
/// otherwise. A cost estimate; accessesOverlap decides dependencies.
static int64_t overlapBytes(int64_t baseA, const Access &a, int64_t baseB,
                            const Access &b) {
  if (!accessesOverlap(baseA, a, baseB, b))
    return 0;
  int64_t a0 = baseA + a.offset, a1 = baseA + a.end();
  int64_t b0 = baseB + b.offset, b1 = baseB + b.end();
  int64_t hull = std::min(a1, b1) - std::max(a0, b0);
  auto sparse = [](const Access &x) {
    return x.rows > 1 && x.stride > 0 && x.rowBytes < x.stride;
  };
  if (sparse(a) && sparse(b) && a.stride == b.stride) {
    int64_t s = a.stride, d = ((b0 - a0) % s + s) % s;
    auto meet = [&](int64_t bc) {
      return std::max<int64_t>(0, std::min(a.rowBytes, bc + b.rowBytes) -
                                      std::max<int64_t>(0, bc));
    };
    int64_t perPeriod = meet(d) + meet(d - s);
    return std::max(perPeriod, hull / s * perPeriod);
  }
  auto density = [&](const Access &x) {
    return sparse(x) ? (double)x.rowBytes / x.stride : 1.0;
  };
  return (int64_t)(hull * std::min(density(a), density(b)));
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
      if (!dep)
        continue;
      cur.deps.push_back(p);
      int64_t raw = 0;
      for (const TAccess &x : prev.writes) {
        Abs ax = absOf(x);
        for (const TAccess &y : cur.reads) {
          Abs ay = absOf(y);
          if (ax.space == ay.space)
            raw += overlapBytes(ax.base, toAccess(x), ay.base, toAccess(y));
        }
      }
      cur.depBytes.push_back(raw);
    }
  }
}

} // namespace amk::totask
