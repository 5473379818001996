//===- LowerAttention.cpp - Attention -------------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: amk.attention on the fused attention kernel (design.md).
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
  // Grouped-query attention: K and V have H / G heads (dimension -3).
  int64_t group = 1;
  if (r >= 3 && kt.getShape().drop_back(2) == vt.getShape().drop_back(2) &&
      kt.getDimSize(r - 3) > 0 && qt.getDimSize(r - 3) > kt.getDimSize(r - 3) &&
      qt.getDimSize(r - 3) % kt.getDimSize(r - 3) == 0 &&
      qt.getShape().drop_back(3) == kt.getShape().drop_back(3))
    group = qt.getDimSize(r - 3) / kt.getDimSize(r - 3);
  else if (qt.getShape().drop_back(2) != kt.getShape().drop_back(2) ||
           qt.getShape().drop_back(2) != vt.getShape().drop_back(2))
    return unsupported(op, "broadcast batch dimensions in attention are not "
                           "implemented (only grouped key/value heads)");
  int64_t BH = product(qt.getShape().drop_back(2));
  int64_t H = r >= 3 ? qt.getDimSize(r - 3) : 1, B = BH / H;
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
    if (!mt.getElementType().isF32() || mt.getRank() > r)
      return unsupported(op, "the mask must be float32 of at most the "
                             "scores' rank");
    // Right-aligned against the scores [..., H, S, T], whose leading dims
    // collapse into B (MaxViT's [1, windows, heads, L, L] with a
    // [1, heads, L, L] bias): the mask's dims there are all 1 (B stride
    // 0) or all the scores' own (contiguous, so B steps by the innermost
    // one's stride).
    SmallVector<int64_t> scores(qt.getShape().drop_back(2));
    scores.append({S, T});
    SmallVector<int64_t> st = contiguousStrides(mt.getShape());
    int64_t off = r - mt.getRank();
    int64_t ones = 0, full = 0, lead = std::max<int64_t>(r - 3, 0);
    for (int64_t d = 0; d < r; ++d) {
      int64_t id = d - off;
      int64_t size = id < 0 ? 1 : mt.getDimSize(id);
      if (size != 1 && size != scores[d])
        return unsupported(op, "the mask does not broadcast to the scores");
      if (d < lead) {
        ones += size == 1 && scores[d] != 1;
        full += size == scores[d] && scores[d] != 1;
        continue;
      }
      if (size != 1)
        ms[4 - (r - d)] = st[id];
    }
    if (ones && full)
      return unsupported(op, "the mask broadcasts over some of the batch "
                             "dimensions only");
    if (full)
      for (int64_t d = lead - 1; d >= 0; --d)
        if (d - off >= 0 && mt.getDimSize(d - off) != 1) {
          ms[0] = st[d - off];
          break;
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
  k.ip = {B, H, S, T, D, DV, keyT, ms[0], ms[1], ms[2], ms[3], group};
  k.fp = {floatAttr(op, "scale", 1.f / std::sqrt((float)D))};
  k.rows = BH, k.cols = S, k.colTiling = true;
  k.colAlign = 8;
  // A split over heads reads each head's keys and values once; a split
  // over queries re-reads them in every tile.
  int64_t BHK = BH / group;
  k.rowOperandBytes = 4.0 * BHK * T * (D + DV);
  k.colOperandBytes = 0;
  k.flops = 2.0 * BH * S * T * (D + DV);
  k.bytes = 4.0 * (BH * (S * D + S * DV) + BHK * (T * D + T * DV));
  int qs = *qi, ks = *ki, vs = *vi;
  int64_t maskBytes = mi >= 0 ? tensors[mi].bytes : 0;
  // Rows [r0, r1) of B*H read key/value heads kv(r0) .. kv(r1 - 1).
  auto kvRow = [=](int64_t bh) {
    return bh / H * (H / group) + bh % H / group;
  };
  k.access = [=](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(rect(qs, (r0 * S + c0) * D * 4, (c1 - c0) * D * 4,
                      S * D * 4, r1 - r0));
    int64_t k0 = kvRow(r0), k1 = kvRow(r1 - 1) + 1;
    rd.push_back(span(ks, k0 * T * D * 4, k1 * T * D * 4));
    rd.push_back(span(vs, k0 * T * DV * 4, k1 * T * DV * 4));
    if (mi >= 0)
      rd.push_back(whole(mi, maskBytes));
    wr.push_back(rect(yi, (r0 * S + c0) * DV * 4, (c1 - c0) * DV * 4,
                      S * DV * 4, r1 - r0));
  };
  return success();
}

} // namespace amk::totask
