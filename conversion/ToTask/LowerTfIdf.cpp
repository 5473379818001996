//===- LowerTfIdf.cpp - TfIdfVectorizer -----------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: TfIdfVectorizer over integer
// tokens as one TFIDF kernel. The pool is an attribute, so its n-grams are
// grouped by length and sorted here, and the per-output weights resolved
// once, leaving the kernel a binary search per candidate n-gram.
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "dialect/AMKTask/AMKTaskDialect.h"
#include "dialect/ONNX/ONNXDialect.h"

#include <algorithm>
#include <map>

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

LogicalResult Scheduler::lowerTfIdf(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t dtype = runtimeDtype(xt.getElementType());
  if (dtype != AMK_RT_I32 && dtype != AMK_RT_I64)
    return unsupported(op, "only int32 and int64 tokens are implemented");
  if (xt.getRank() != 1 && xt.getRank() != 2)
    return unsupported(op, "its input is not 1-D or 2-D");
  if (!yt.getElementType().isF32())
    return unsupported(op, "its output is not float32");
  StringRef modeName = strAttr(op, "mode", "TF");
  int64_t mode = modeName == "TF"      ? AMK_TFIDF_MODE_TF
                 : modeName == "IDF"   ? AMK_TFIDF_MODE_IDF
                 : modeName == "TFIDF" ? AMK_TFIDF_MODE_TFIDF
                                       : -1;
  if (mode < 0)
    return unsupported(op, "mode '" + modeName + "' is unknown");
  int64_t minN = intAttr(op, "min_gram_length", 1),
          maxN = intAttr(op, "max_gram_length", 1),
          maxSkip = intAttr(op, "max_skip_count", 0);
  if (minN < 1 || maxN < minN || maxN > AMK_TFIDF_MAX_GRAM || maxSkip < 0)
    return unsupported(op, "its gram lengths are not 1 <= min <= max <= " +
                               Twine(AMK_TFIDF_MAX_GRAM) +
                               " with a non-negative max_skip_count");
  SmallVector<int64_t> counts = intsAttr(op, "ngram_counts"),
                       indexes = intsAttr(op, "ngram_indexes"),
                       pool = intsAttr(op, "pool_int64s");
  SmallVector<float> weights;
  bool hasWeights = false;
  if (auto w = op->getAttrOfType<DenseF32ArrayAttr>("weights")) {
    weights.assign(w.asArrayRef().begin(), w.asArrayRef().end());
    hasWeights = true;
  }
  int64_t D = yt.getShape().back();
  // Pool n-grams by length, keyed by their tokens; a repeated n-gram keeps
  // its last output index, as the reference's map does.
  SmallVector<std::map<SmallVector<int64_t>, int64_t>> byLength(maxN + 1);
  SmallVector<float> wj(D, 1.f);
  int64_t gram = 0;
  for (size_t g = 0; g < counts.size(); ++g) {
    int64_t begin = counts[g];
    int64_t end = g + 1 < counts.size() ? counts[g + 1] : (int64_t)pool.size();
    int64_t n = g + 1;
    if (begin < 0 || end > (int64_t)pool.size() || begin > end)
      return unsupported(op, "ngram_counts does not index pool_int64s");
    for (int64_t p = begin; p + n <= end; p += n, ++gram) {
      if (gram >= (int64_t)indexes.size())
        return unsupported(op, "ngram_indexes has fewer entries than the "
                               "pool");
      int64_t j = indexes[gram];
      if (j < 0 || j >= D)
        return unsupported(op, "ngram_indexes entry " + Twine(j) +
                                   " is outside the output's " + Twine(D) +
                                   " columns");
      if (hasWeights && gram < (int64_t)weights.size())
        wj[j] = weights[gram];
      if (n >= minN && n <= maxN)
        byLength[n][SmallVector<int64_t>(pool.begin() + p,
                                         pool.begin() + p + n)] = j;
    }
  }
  SmallVector<int64_t> table;
  int64_t B = xt.getRank() == 2 ? xt.getDimSize(0) : 1,
          L = xt.getShape().back();
  SmallVector<int64_t> ip = {B, L, D, minN, maxN, maxSkip, mode, dtype};
  for (int64_t n = minN; n <= maxN; ++n) {
    ip.push_back(table.size());
    ip.push_back(byLength[n].size());
    for (auto &[key, j] : byLength[n]) { // std::map: sorted by tokens
      table.append(key.begin(), key.end());
      table.push_back(j);
    }
  }
  if (table.empty())
    table.push_back(0); // a buffer of no elements is not allowed
  MLIRContext *ctx = op->getContext();
  auto tableType =
      RankedTensorType::get({(int64_t)table.size()}, IntegerType::get(ctx, 64));
  int pi = newConstTensor(
      tableType, DenseElementsAttr::get(tableType, ArrayRef<int64_t>(table)),
      "tfidf.pool");
  int wi = -1;
  if (mode != AMK_TFIDF_MODE_TF && hasWeights) {
    auto wType = RankedTensorType::get({D}, Float32Type::get(ctx));
    wi = newConstTensor(wType,
                        DenseElementsAttr::get(wType, ArrayRef<float>(wj)),
                        "tfidf.weight");
  }
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_TFIDF);
  k.slots = {*xi, pi, wi, yi};
  k.ip = ip;
  k.rows = B;
  k.flops = (double)B * L * (maxN - minN + 1) * (maxSkip + 1) * 8;
  k.bytes = (double)tensors[*xi].bytes + 4.0 * B * D;
  int64_t eb = dtype == AMK_RT_I32 ? 4 : 8, pBytes = tensors[pi].bytes,
          wBytes = wi >= 0 ? tensors[wi].bytes : 0;
  int xs = *xi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * L * eb, r1 * L * eb));
    rd.push_back(whole(pi, pBytes));
    if (wi >= 0)
      rd.push_back(whole(wi, wBytes));
    wr.push_back(span(yi, r0 * D * 4, r1 * D * 4));
  };
  return success();
}

} // namespace amk::totask
