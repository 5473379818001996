//===- Generators.cpp - Constants, ranges and random values ---------------===//
//
// Part of AMK. The ops ONNX groups as generators: a tensor made from
// attributes, a shape, a range or random draws rather than computed from
// the inputs' values (Bernoulli and Multinomial take theirs as
// probabilities).
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace mlir;

namespace amk::ref {
namespace {

//===----------------------------------------------------------------------===//
// Constants and ranges
//===----------------------------------------------------------------------===//

LogicalResult constantK(KernelContext &ctx) {
  Attribute a = ctx.attr("value");
  if (!a)
    a = ctx.attr("sparse_value");
  if (auto e = dyn_cast_or_null<ElementsAttr>(a)) {
    auto t = Tensor::fromAttr(e);
    if (!t)
      return ctx.error(llvm::toString(t.takeError()));
    ctx.set(0, *t);
    return success();
  }
  if (auto f = dyn_cast_or_null<FloatAttr>(ctx.attr("value_float"))) {
    ctx.set(0, Tensor::scalar(DataType::FLOAT, f.getValueAsDouble()));
    return success();
  }
  if (auto fs = ctx.getFloats("value_floats")) {
    Tensor t(DataType::FLOAT, {static_cast<int64_t>(fs->size())});
    std::copy(fs->begin(), fs->end(), t.data<float>());
    ctx.set(0, t);
    return success();
  }
  if (auto i = dyn_cast_or_null<IntegerAttr>(ctx.attr("value_int"))) {
    ctx.set(0, Tensor::fromInt64({i.getInt()}, {}));
    return success();
  }
  if (auto is = ctx.getInts("value_ints")) {
    ctx.set(0, Tensor::fromInt64(*is, {static_cast<int64_t>(is->size())}));
    return success();
  }
  if (auto s = dyn_cast_or_null<StringAttr>(ctx.attr("value_string"))) {
    Tensor t(DataType::STRING, {});
    t.strings()[0] = s.str();
    ctx.set(0, t);
    return success();
  }
  if (ctx.hasAttr("value_strings")) {
    auto strs = ctx.getStrings("value_strings");
    Tensor t(DataType::STRING, {static_cast<int64_t>(strs.size())});
    t.strings() = strs;
    ctx.set(0, t);
    return success();
  }
  return ctx.error("has no value attribute");
}

LogicalResult constantOfShapeK(KernelContext &ctx) {
  std::vector<int64_t> shape = ctx.in(0).toInt64Vector();
  Tensor fill = Tensor::scalar(DataType::FLOAT, 0.0);
  if (auto v = dyn_cast_or_null<ElementsAttr>(ctx.attr("value"))) {
    auto t = Tensor::fromAttr(v);
    if (!t)
      return ctx.error(llvm::toString(t.takeError()));
    fill = *t;
  }
  if (failed(checkComputedSize(ctx, shape)))
    return failure();
  Tensor y(fill.dtype(), shape);
  for (int64_t i = 0; i < y.numel(); ++i)
    copyElement(fill, 0, y, i);
  ctx.set(0, y);
  return success();
}

LogicalResult rangeK(KernelContext &ctx) {
  const Tensor &s = ctx.in(0);
  double start = s.getDouble(0), limit = ctx.in(1).getDouble(0),
         delta = ctx.in(2).getDouble(0);
  if (delta == 0)
    return ctx.error("delta is 0");
  double count = std::ceil((limit - start) / delta);
  if (!(count <= (double)kMaxComputedElements))
    return ctx.error(llvm::formatv("Range({0}, {1}, {2}) has more than 2^30 "
                                   "elements",
                                   start, limit, delta)
                         .str());
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
  Tensor y(s.dtype(), {n});
  bool isInt = dispatch<kSigned>(s.dtype(), [](auto) {});
  for (int64_t i = 0; i < n; ++i) {
    if (isInt)
      y.setInt(i, s.getInt(0) + i * ctx.in(2).getInt(0));
    else
      y.setDouble(i, start + i * delta);
  }
  ctx.set(0, y);
  return success();
}

LogicalResult eyeLikeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  if (x.rank() != 2)
    return ctx.error("input must be 2-D");
  DataType dt = ctx.hasAttr("dtype")
                    ? static_cast<DataType>(ctx.getInt("dtype", 1))
                    : x.dtype();
  int64_t k = ctx.getInt("k", 0);
  Tensor y(dt, x.shape());
  for (int64_t i = 0; i < x.dim(0); ++i) {
    int64_t j = i + k;
    if (j >= 0 && j < x.dim(1))
      y.setDouble(i * x.dim(1) + j, 1);
  }
  ctx.set(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Random values
//===----------------------------------------------------------------------===//

LogicalResult randomK(KernelContext &ctx) {
  llvm::StringRef op = ctx.opType();
  bool like = op.ends_with("Like");
  bool isNormal = op.starts_with("RandomNormal");
  Shape shape;
  DataType dt = DataType::FLOAT;
  if (like) {
    shape.assign(ctx.in(0).shape().begin(), ctx.in(0).shape().end());
    dt = ctx.in(0).dtype();
  } else {
    auto s = ctx.getInts("shape");
    if (!s)
      return ctx.error("shape is required");
    shape.assign(s->begin(), s->end());
  }
  if (ctx.hasAttr("dtype"))
    dt = static_cast<DataType>(ctx.getInt("dtype", 1));
  Rng rng(ctx.getFloat("seed", 0.0f));
  Tensor y(dt, shape);
  double a = isNormal ? ctx.getFloat("mean", 0.0f) : ctx.getFloat("low", 0.0f);
  double b =
      isNormal ? ctx.getFloat("scale", 1.0f) : ctx.getFloat("high", 1.0f);
  for (int64_t i = 0; i < y.numel(); ++i)
    y.setDouble(i,
                isNormal ? a + b * rng.normal() : a + (b - a) * rng.uniform());
  ctx.set(0, y);
  return success();
}

LogicalResult bernoulliK(KernelContext &ctx) {
  const Tensor &p = ctx.in(0);
  DataType dt = ctx.hasAttr("dtype")
                    ? static_cast<DataType>(ctx.getInt("dtype", 1))
                    : p.dtype();
  Rng rng(ctx.getFloat("seed", 0.0f));
  Tensor y(dt, p.shape());
  for (int64_t i = 0; i < p.numel(); ++i)
    y.setDouble(i, rng.uniform() < p.getDouble(i) ? 1 : 0);
  ctx.set(0, y);
  return success();
}

LogicalResult multinomialK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  if (x.rank() != 2)
    return ctx.error("input must be [batch, classes]");
  int64_t n = ctx.getInt("sample_size", 1);
  DataType dt = static_cast<DataType>(ctx.getInt("dtype", 6));
  Rng rng(ctx.getFloat("seed", 0.0f));
  int64_t B = x.dim(0), C = x.dim(1);
  Tensor y(dt, {B, n});
  for (int64_t b = 0; b < B; ++b) {
    // Inputs are unnormalized log-probabilities.
    std::vector<double> cdf(C);
    double sum = 0;
    for (int64_t c = 0; c < C; ++c)
      cdf[c] = (sum += std::exp(x.getDouble(b * C + c)));
    for (int64_t s = 0; s < n; ++s) {
      double u = rng.uniform() * sum;
      int64_t c = std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
      y.setInt(b * n + s, std::min(c, C - 1));
    }
  }
  ctx.set(0, y);
  return success();
}

} // namespace

void registerGeneratorKernels(KernelRegistry &r) {
  r.add("Constant", constantK);
  r.add("ConstantOfShape", constantOfShapeK);
  r.add("Range", rangeK);
  r.add("EyeLike", eyeLikeK);
  addAll(r,
         {"RandomUniform", "RandomNormal", "RandomUniformLike",
          "RandomNormalLike"},
         randomK);
  r.add("Bernoulli", bernoulliK);
  r.add("Multinomial", multinomialK);
}

} // namespace amk::ref
