//===- Linalg.cpp - MatMul, Gemm and Einsum -------------------------------===//
//
// Part of AMK. float32 goes through the blocked gemmF32; other types use a
// plain loop accumulating in double (floats) or with wrap-around int64
// arithmetic (integers), then rounding once.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;

namespace amk::ref {
namespace {

/// C[M,N] = A[M,K] * B[K,N] for one pair of matrices given by flat offsets.
void matmulGeneric(const Tensor &a, int64_t aOff, const Tensor &b,
                   int64_t bOff, Tensor &c, int64_t cOff, int64_t M,
                   int64_t N, int64_t K, bool isFloat) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      if (isFloat) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += a.getDouble(aOff + i * K + k) * b.getDouble(bOff + k * N + j);
        c.setDouble(cOff + i * N + j, acc);
      } else {
        uint64_t acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += static_cast<uint64_t>(a.getInt(aOff + i * K + k)) *
                 static_cast<uint64_t>(b.getInt(bOff + k * N + j));
        c.setInt(cOff + i * N + j, static_cast<int64_t>(acc));
      }
    }
}

LogicalResult matMulK(KernelContext &ctx) {
  const Tensor &a0 = ctx.in(0), &b0 = ctx.in(1);
  if (a0.dtype() != b0.dtype())
    return ctx.error("operand types differ");
  if (a0.rank() == 0 || b0.rank() == 0)
    return ctx.error("operands must have rank >= 1");
  // numpy semantics: 1-D operands get a unit dimension, removed after.
  Tensor a = a0.rank() == 1 ? a0.reshaped({1, a0.dim(0)}) : a0;
  Tensor b = b0.rank() == 1 ? b0.reshaped({b0.dim(0), 1}) : b0;
  int64_t M = a.dim(-2), K = a.dim(-1), N = b.dim(-1);
  if (b.dim(-2) != K)
    return ctx.error("inner dimensions disagree: " +
                     shapeToString(a0.shape()) + " x " +
                     shapeToString(b0.shape()));
  Shape aBatch(a.shape().drop_back(2)), bBatch(b.shape().drop_back(2));
  auto batch = broadcastShapes({aBatch, bBatch});
  if (!batch)
    return ctx.error("batch dimensions do not broadcast");
  Shape outShape = *batch;
  outShape.push_back(M);
  outShape.push_back(N);
  Tensor c(a.dtype(), outShape);
  std::array<Shape, 2> strides = {broadcastStrides(aBatch, *batch),
                                  broadcastStrides(bBatch, *batch)};
  bool isFloat = dispatch<kFloats>(a.dtype(), [](auto) {});
  bool f32 = a.dtype() == DataType::FLOAT;
  if (!dispatch<kNumeric>(a.dtype(), [](auto) {}))
    return ctx.unsupported("element type " + typeName(a.dtype()));
  forEachBroadcast<2>(*batch, strides, [&](int64_t i, const auto &off) {
    int64_t ao = off[0] * M * K, bo = off[1] * K * N, co = i * M * N;
    if (f32)
      gemmF32(false, false, M, N, K, 1.0f, a.data<float>() + ao, K,
              b.data<float>() + bo, N, 0.0f, c.data<float>() + co, N);
    else
      matmulGeneric(a, ao, b, bo, c, co, M, N, K, isFloat);
  });
  Shape finalShape(outShape);
  if (b0.rank() == 1)
    finalShape.erase(finalShape.end() - 1);
  if (a0.rank() == 1)
    finalShape.erase(finalShape.end() - (b0.rank() == 1 ? 1 : 2));
  ctx.set(0, c.reshaped(finalShape));
  return success();
}

LogicalResult gemmK(KernelContext &ctx) {
  const Tensor &a = ctx.in(0), &b = ctx.in(1);
  if (a.rank() != 2 || b.rank() != 2)
    return ctx.error("A and B must be 2-D");
  bool ta = ctx.getInt("transA", 0), tb = ctx.getInt("transB", 0);
  float alpha = ctx.getFloat("alpha", 1.0f), beta = ctx.getFloat("beta", 1.0f);
  int64_t M = ta ? a.dim(1) : a.dim(0), K = ta ? a.dim(0) : a.dim(1);
  int64_t N = tb ? b.dim(0) : b.dim(1);
  if ((tb ? b.dim(1) : b.dim(0)) != K)
    return ctx.error("inner dimensions disagree");
  Tensor y(a.dtype(), {M, N});
  bool hasC = ctx.has(2);
  if (hasC) {
    const Tensor &c = ctx.in(2);
    auto s = broadcastShapes({Shape(c.shape()), Shape{M, N}});
    if (!s || (*s)[0] != M || (*s)[1] != N || c.rank() > 2)
      return ctx.error("C of shape " + shapeToString(c.shape()) +
                       " does not broadcast to [" + std::to_string(M) + "," +
                       std::to_string(N) + "]");
    std::array<Shape, 1> st = {broadcastStrides(c.shape(), {M, N})};
    forEachBroadcast<1>(Shape{M, N}, st, [&](int64_t i, const auto &off) {
      copyElement(c, off[0], y, i);
    });
  }
  if (a.dtype() == DataType::FLOAT) {
    gemmF32(ta, tb, M, N, K, alpha, a.data<float>(), a.dim(1),
            b.data<float>(), b.dim(1), hasC ? beta : 0.0f, y.data<float>(),
            N);
    ctx.set(0, y);
    return success();
  }
  if (!dispatch<kNumeric>(a.dtype(), [](auto) {}))
    return ctx.unsupported("element type " + typeName(a.dtype()));
  bool isFloat = dispatch<kFloats>(a.dtype(), [](auto) {});
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += a.getDouble(ta ? k * a.dim(1) + i : i * a.dim(1) + k) *
               b.getDouble(tb ? j * b.dim(1) + k : k * b.dim(1) + j);
      double v = alpha * acc + (hasC ? beta * y.getDouble(i * N + j) : 0);
      y.setDouble(i * N + j, isFloat ? v : std::nearbyint(v));
    }
  ctx.set(0, y);
  return success();
}

/// Einsum by direct summation over every label: clear and general
/// (ellipsis, repeated labels, implicit output), and fast enough for the
/// sizes models use Einsum on.
LogicalResult einsumK(KernelContext &ctx) {
  std::string eq;
  for (char ch : ctx.getString("equation", ""))
    if (ch != ' ')
      eq += ch;
  auto arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  llvm::SmallVector<llvm::StringRef> terms;
  llvm::StringRef(lhs).split(terms, ',');
  if (terms.size() != ctx.numInputs())
    return ctx.error("equation names " + std::to_string(terms.size()) +
                     " inputs, got " + std::to_string(ctx.numInputs()));
  // Expand "..." into dedicated labels ('0', '1', ...) per input.
  int64_t ellipsisRank = 0;
  std::vector<std::string> labels;
  for (auto [i, t] : llvm::enumerate(terms)) {
    size_t letters = t.size() - (t.contains("...") ? 3 : 0);
    int64_t er = ctx.in(i).rank() - static_cast<int64_t>(letters);
    if (t.contains("..."))
      ellipsisRank = std::max(ellipsisRank, er);
    else if (er != 0)
      return ctx.error("term '" + t.str() + "' does not match input rank " +
                       std::to_string(ctx.in(i).rank()));
  }
  auto expand = [&](llvm::StringRef t, int64_t rank) {
    std::string out;
    size_t pos = t.find("...");
    if (pos == llvm::StringRef::npos)
      return t.str();
    int64_t er = rank - static_cast<int64_t>(t.size() - 3);
    out = t.substr(0, pos).str();
    for (int64_t k = ellipsisRank - er; k < ellipsisRank; ++k)
      out += static_cast<char>('0' + k);
    out += t.substr(pos + 3).str();
    return out;
  };
  for (auto [i, t] : llvm::enumerate(terms))
    labels.push_back(expand(t, ctx.in(i).rank()));
  std::map<char, int64_t> dims;
  for (auto [i, l] : llvm::enumerate(labels))
    for (auto [k, ch] : llvm::enumerate(l)) {
      int64_t d = ctx.in(i).dim(k);
      auto [it, ins] = dims.emplace(ch, d);
      if (!ins && it->second != d) {
        if (it->second == 1)
          it->second = d; // Broadcast within the ellipsis.
        else if (d != 1)
          return ctx.error(std::string("label '") + ch +
                           "' has inconsistent sizes");
      }
    }
  std::string outLabels;
  if (arrow != std::string::npos) {
    std::string rhs = eq.substr(arrow + 2);
    size_t pos = rhs.find("...");
    if (pos != std::string::npos) {
      std::string e;
      for (int64_t k = 0; k < ellipsisRank; ++k)
        e += static_cast<char>('0' + k);
      rhs = rhs.substr(0, pos) + e + rhs.substr(pos + 3);
    }
    outLabels = rhs;
  } else {
    // Implicit: ellipsis dims, then labels seen once, alphabetically.
    std::map<char, int> count;
    for (const std::string &l : labels)
      for (char ch : l)
        ++count[ch];
    for (int64_t k = 0; k < ellipsisRank; ++k)
      outLabels += static_cast<char>('0' + k);
    for (auto [ch, n] : count)
      if (n == 1 && llvm::isAlpha(ch))
        outLabels += ch;
  }
  std::string sumLabels;
  for (auto [ch, d] : dims)
    if (outLabels.find(ch) == std::string::npos)
      sumLabels += ch;
  Shape outShape;
  for (char ch : outLabels) {
    if (!dims.count(ch))
      return ctx.error(std::string("output label '") + ch +
                       "' is not an input label");
    outShape.push_back(dims[ch]);
  }
  DataType dt = ctx.in(0).dtype();
  Tensor y(dt, outShape);
  std::string all = outLabels + sumLabels;
  std::map<char, int> pos;
  for (auto [k, ch] : llvm::enumerate(all))
    pos[ch] = k;
  Shape allShape;
  for (char ch : all)
    allShape.push_back(dims[ch]);
  // Strides of each input over the combined index space.
  std::vector<Shape> inStrides;
  for (auto [i, l] : llvm::enumerate(labels)) {
    Shape own = stridesOf(ctx.in(i).shape());
    Shape s(all.size(), 0);
    for (auto [k, ch] : llvm::enumerate(l))
      if (ctx.in(i).dim(k) != 1)
        s[pos[ch]] += own[k];
    inStrides.push_back(s);
  }
  int64_t outN = numElements(outShape);
  int64_t sumN = numElements(llvm::ArrayRef<int64_t>(allShape).drop_front(
      outLabels.size()));
  std::vector<double> acc(outN, 0.0);
  Shape idx(all.size(), 0);
  int64_t total = outN * sumN;
  for (int64_t t = 0; t < total; ++t) {
    int64_t rem = t;
    for (int64_t k = static_cast<int64_t>(all.size()) - 1; k >= 0; --k) {
      idx[k] = rem % allShape[k];
      rem /= allShape[k];
    }
    double prod = 1;
    for (unsigned i = 0; i < ctx.numInputs(); ++i) {
      int64_t off = 0;
      for (size_t k = 0; k < all.size(); ++k)
        off += idx[k] * inStrides[i][k];
      prod *= ctx.in(i).getDouble(off);
    }
    acc[t / std::max<int64_t>(sumN, 1)] += prod;
  }
  for (int64_t o = 0; o < outN; ++o)
    y.setDouble(o, acc[o]);
  ctx.set(0, y);
  return success();
}

} // namespace

void registerLinalgKernels(KernelRegistry &r) {
  r.add("MatMul", matMulK);
  r.add("Gemm", gemmK);
  r.add("Einsum", einsumK);
}

} // namespace amk::ref
