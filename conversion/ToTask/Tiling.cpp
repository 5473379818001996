//===- Tiling.cpp - Tiling ------------------------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: each kernel cut into tiles from the cost model and the options (design.md).
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
    } else if (k.colTiling && !k.preferColumnSplit &&
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

} // namespace amk::totask
