//===- Strings.cpp - String ops -------------------------------------------===//
//
// Part of AMK. RegexFullMatch uses RE2, whose syntax ONNX specifies for
// its patterns.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include "llvm/ADT/StringExtras.h"

#include <re2/re2.h>

#include <map>
#include <vector>

using namespace mlir;

namespace amk::ref {
namespace {

LogicalResult stringNormalizerK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  if (!x.isString())
    return ctx.error("input must be a string tensor");
  std::string action = ctx.getString("case_change_action", "NONE");
  bool caseSensitive = ctx.getInt("is_case_sensitive", 0) != 0;
  auto stop = ctx.getStrings("stopwords");
  auto lower = [](std::string s) { return llvm::StringRef(s).lower(); };
  std::vector<std::string> kept;
  for (const std::string &s : x.strings()) {
    bool isStop = false;
    for (const std::string &w : stop)
      if (caseSensitive ? s == w : lower(s) == lower(w))
        isStop = true;
    if (isStop)
      continue;
    if (action == "LOWER")
      kept.push_back(llvm::StringRef(s).lower());
    else if (action == "UPPER")
      kept.push_back(llvm::StringRef(s).upper());
    else
      kept.push_back(s);
  }
  if (kept.empty())
    kept.push_back(""); // The spec's output when everything is removed.
  Shape shape = {static_cast<int64_t>(kept.size())};
  if (x.rank() == 2)
    shape.insert(shape.begin(), 1);
  Tensor y(DataType::STRING, shape);
  y.strings() = kept;
  ctx.set(0, y);
  return success();
}

LogicalResult tfidfK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  int64_t minN = ctx.getInt("min_gram_length", 1);
  int64_t maxN = ctx.getInt("max_gram_length", 1);
  int64_t maxSkip = ctx.getInt("max_skip_count", 0);
  std::string mode = ctx.getString("mode", "TF");
  auto counts = ctx.getInts("ngram_counts").value_or(std::vector<int64_t>{});
  auto indexes = ctx.getInts("ngram_indexes").value_or(std::vector<int64_t>{});
  auto weights = ctx.getFloats("weights");
  auto poolInts = ctx.getInts("pool_int64s");
  auto poolStrs = ctx.getStrings("pool_strings");
  bool strings = x.isString();
  int64_t poolSize =
      strings ? poolStrs.size() : (poolInts ? poolInts->size() : 0);
  // Pool n-grams: keyed by their items (as strings, which also serves ints).
  std::map<std::vector<std::string>, int64_t> pool;
  int64_t gram = 0;
  for (size_t g = 0; g < counts.size(); ++g) {
    int64_t begin = counts[g];
    int64_t end = g + 1 < counts.size() ? counts[g + 1] : poolSize;
    int64_t n = g + 1;
    for (int64_t p = begin; p + n <= end; p += n) {
      std::vector<std::string> key;
      for (int64_t k = 0; k < n; ++k)
        key.push_back(strings ? poolStrs[p + k]
                              : std::to_string((*poolInts)[p + k]));
      pool[key] = gram++;
    }
  }
  if (static_cast<int64_t>(indexes.size()) < gram)
    return ctx.error("ngram_indexes has fewer entries than the pool");
  int64_t outDim = 0;
  for (int64_t i : indexes)
    outDim = std::max(outDim, i + 1);
  int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
  int64_t len = x.rank() == 2 ? x.dim(1) : x.dim(0);
  Shape outShape = x.rank() == 2 ? Shape{rows, outDim} : Shape{outDim};
  Tensor y(DataType::FLOAT, outShape);
  auto item = [&](int64_t r, int64_t i) {
    int64_t k = r * len + i;
    return strings ? x.strings()[k] : std::to_string(x.getInt(k));
  };
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> tf(outDim, 0.0);
    for (int64_t n = minN; n <= maxN; ++n)
      for (int64_t start = 0; start < len; ++start)
        for (int64_t skip = 0; skip <= (n == 1 ? 0 : maxSkip); ++skip) {
          if (start + (n - 1) * (skip + 1) >= len)
            break;
          std::vector<std::string> key;
          for (int64_t k = 0; k < n; ++k)
            key.push_back(item(r, start + k * (skip + 1)));
          auto it = pool.find(key);
          if (it != pool.end())
            tf[indexes[it->second]] += 1;
        }
    for (int64_t j = 0; j < outDim; ++j) {
      double w = weights && j < static_cast<int64_t>(weights->size())
                     ? (*weights)[j]
                     : 1.0;
      // Weights are indexed by pool n-gram; map back through indexes.
      if (weights)
        for (int64_t g = 0; g < gram; ++g)
          if (indexes[g] == j)
            w = (*weights)[g];
      double v = mode == "TF"    ? tf[j]
                 : mode == "IDF" ? (tf[j] > 0 ? w : 0)
                                 : tf[j] * w;
      y.setDouble(r * outDim + j, v);
    }
  }
  ctx.set(0, y);
  return success();
}

LogicalResult stringConcatK(KernelContext &ctx) {
  const Tensor &a = ctx.in(0), &b = ctx.in(1);
  auto shape = broadcastShapes({Shape(a.shape()), Shape(b.shape())});
  if (!shape)
    return ctx.error("shapes do not broadcast");
  Tensor y(DataType::STRING, *shape);
  std::array<Shape, 2> strides = {broadcastStrides(a.shape(), *shape),
                                  broadcastStrides(b.shape(), *shape)};
  forEachBroadcast<2>(*shape, strides, [&](int64_t i, const auto &off) {
    y.strings()[i] = a.strings()[off[0]] + b.strings()[off[1]];
  });
  ctx.set(0, y);
  return success();
}

LogicalResult stringSplitK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::string delim = ctx.getString("delimiter", "");
  int64_t maxSplit = ctx.getInt("maxsplit", -1);
  std::vector<std::vector<std::string>> parts(x.numel());
  size_t widest = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    llvm::StringRef s = x.strings()[i];
    std::vector<std::string> &p = parts[i];
    if (delim.empty()) {
      // Runs of whitespace separate; leading/trailing ones produce nothing.
      s = s.trim();
      while (!s.empty() &&
             (maxSplit < 0 || static_cast<int64_t>(p.size()) < maxSplit)) {
        size_t end = s.find_first_of(" \t\n\v\f\r");
        if (end == llvm::StringRef::npos)
          break;
        p.push_back(s.substr(0, end).str());
        s = s.substr(end).ltrim();
      }
      if (!s.empty())
        p.push_back(s.str());
    } else {
      while (maxSplit < 0 || static_cast<int64_t>(p.size()) < maxSplit) {
        size_t pos = s.find(delim);
        if (pos == llvm::StringRef::npos)
          break;
        p.push_back(s.substr(0, pos).str());
        s = s.substr(pos + delim.size());
      }
      p.push_back(s.str());
    }
    widest = std::max(widest, p.size());
  }
  Shape yShape(x.shape());
  yShape.push_back(widest);
  Tensor y(DataType::STRING, yShape), z(DataType::INT64, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    for (size_t k = 0; k < parts[i].size(); ++k)
      y.strings()[i * widest + k] = parts[i][k];
    z.data<int64_t>()[i] = parts[i].size();
  }
  ctx.set(0, y);
  ctx.set(1, z);
  return success();
}

LogicalResult regexFullMatchK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  RE2 re(ctx.getString("pattern", ""));
  if (!re.ok())
    return ctx.error("invalid pattern: " + re.error());
  Tensor y(DataType::BOOL, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i)
    y.data<uint8_t>()[i] = RE2::FullMatch(x.strings()[i], re);
  ctx.set(0, y);
  return success();
}

} // namespace

void registerStringKernels(KernelRegistry &r) {
  r.add("StringNormalizer", stringNormalizerK);
  r.add("TfIdfVectorizer", tfidfK);
  r.add("StringConcat", stringConcatK);
  r.add("StringSplit", stringSplitK);
  r.add("RegexFullMatch", regexFullMatchK);
}

} // namespace amk::ref
