//===- Normalization.cpp - Normalizations and the softmax family ----------===//
//
// Part of AMK. Statistics are computed in double. Softmax, LogSoftmax and
// Hardmax before opset 13 coerce the input to 2-D at `axis` (default 1);
// from 13 they work along one axis (default -1).
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include <vector>

using namespace mlir;

namespace amk::ref {
namespace {

/// Splits `x` around the softmax axis: rows of `n` elements, `inner` apart.
struct Lanes {
  int64_t outer = 1, n = 1, inner = 1;
};

FailureOr<Lanes> softmaxLanes(KernelContext &ctx, const Tensor &x) {
  bool legacy = ctx.version() < 13;
  int64_t dflt = legacy ? 1 : -1;
  auto axis = normalizeAxis(ctx.getInt("axis", dflt), x.rank(), legacy);
  if (!axis && !(legacy && x.rank() == 0))
    return ctx.error("axis out of range for rank " +
                     std::to_string(x.rank()));
  Lanes l;
  int64_t a = axis.value_or(0);
  for (int64_t d = 0; d < a; ++d)
    l.outer *= x.dim(d);
  if (legacy) {
    // Coerced to [outer, rest]: the softmax runs over all trailing dims.
    l.n = x.numel() / std::max<int64_t>(l.outer, 1);
    if (l.outer == 0)
      l.n = 0;
    return l;
  }
  l.n = x.dim(a);
  for (int64_t d = a + 1; d < x.rank(); ++d)
    l.inner *= x.dim(d);
  return l;
}

enum class Soft { Softmax, LogSoftmax, Hardmax };

LogicalResult softmaxFamily(KernelContext &ctx, Soft kind) {
  const Tensor &x = ctx.in(0);
  if (!dispatch<kFloats>(x.dtype(), [](auto) {}))
    return ctx.unsupported("element type " + typeName(x.dtype()));
  auto lanes = softmaxLanes(ctx, x);
  if (failed(lanes))
    return failure();
  Lanes l = *lanes;
  Tensor y(x.dtype(), x.shape());
  std::vector<double> v(l.n);
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t in = 0; in < l.inner; ++in) {
      auto idx = [&](int64_t j) { return (o * l.n + j) * l.inner + in; };
      double mx = -std::numeric_limits<double>::infinity();
      int64_t argmax = 0;
      for (int64_t j = 0; j < l.n; ++j) {
        v[j] = x.getDouble(idx(j));
        if (v[j] > mx) {
          mx = v[j];
          argmax = j;
        }
      }
      if (kind == Soft::Hardmax) {
        for (int64_t j = 0; j < l.n; ++j)
          y.setDouble(idx(j), j == argmax ? 1.0 : 0.0);
        continue;
      }
      double sum = 0;
      for (int64_t j = 0; j < l.n; ++j)
        sum += std::exp(v[j] - mx);
      for (int64_t j = 0; j < l.n; ++j)
        y.setDouble(idx(j), kind == Soft::Softmax
                                ? std::exp(v[j] - mx) / sum
                                : v[j] - mx - std::log(sum));
    }
  ctx.set(0, y);
  return success();
}

LogicalResult softmaxK(KernelContext &ctx) {
  return softmaxFamily(ctx, Soft::Softmax);
}
LogicalResult logSoftmaxK(KernelContext &ctx) {
  return softmaxFamily(ctx, Soft::LogSoftmax);
}
LogicalResult hardmaxK(KernelContext &ctx) {
  return softmaxFamily(ctx, Soft::Hardmax);
}

LogicalResult batchNormK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &scale = ctx.in(1), &bias = ctx.in(2),
               &mean = ctx.in(3), &var = ctx.in(4);
  if (x.rank() < 2)
    return ctx.error("X must have rank >= 2");
  double eps = ctx.getFloat("epsilon", 1e-5f);
  double momentum = ctx.getFloat("momentum", 0.9f);
  int64_t N = x.dim(0), C = x.dim(1);
  int64_t inner = x.numel() / std::max<int64_t>(N * C, 1);
  if (N * C == 0)
    inner = 0;
  Tensor y(x.dtype(), x.shape());
  // BatchNormalization-7 with spatial=0: one statistic per element of a
  // [C, D1, ...] slice instead of per channel.
  bool perElement = ctx.version() < 9 && ctx.getInt("spatial", 1) == 0;
  bool training = ctx.getInt("training_mode", 0) != 0;
  if (training) {
    // Batch statistics over everything but the channel.
    std::vector<double> m(C, 0.0), v(C, 0.0);
    double count = static_cast<double>(N * inner);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t i = 0; i < inner; ++i)
          m[c] += x.getDouble((n * C + c) * inner + i);
    for (int64_t c = 0; c < C; ++c)
      m[c] /= count;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t i = 0; i < inner; ++i) {
          double d = x.getDouble((n * C + c) * inner + i) - m[c];
          v[c] += d * d;
        }
    for (int64_t c = 0; c < C; ++c)
      v[c] /= count;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t i = 0; i < inner; ++i) {
          int64_t k = (n * C + c) * inner + i;
          y.setDouble(k, scale.getDouble(c) * (x.getDouble(k) - m[c]) /
                                 std::sqrt(v[c] + eps) +
                             bias.getDouble(c));
        }
    ctx.set(0, y);
    for (unsigned out = 1; out <= 2 && out < ctx.numOutputs(); ++out) {
      if (!ctx.wants(out))
        continue;
      const Tensor &running = out == 1 ? mean : var;
      Tensor r(running.dtype(), running.shape());
      for (int64_t c = 0; c < C; ++c)
        r.setDouble(c, running.getDouble(c) * momentum +
                           (out == 1 ? m[c] : v[c]) * (1 - momentum));
      ctx.set(out, r);
    }
    return success();
  }
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t k = (n * C + c) * inner + i;
        int64_t p = perElement ? c * inner + i : c;
        y.setDouble(k, scale.getDouble(p) * (x.getDouble(k) - mean.getDouble(p)) /
                               std::sqrt(var.getDouble(p) + eps) +
                           bias.getDouble(p));
      }
  ctx.set(0, y);
  return success();
}

LogicalResult instanceNormK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &scale = ctx.in(1), &bias = ctx.in(2);
  if (x.rank() < 3)
    return ctx.error("input must have rank >= 3");
  double eps = ctx.getFloat("epsilon", 1e-5f);
  int64_t N = x.dim(0), C = x.dim(1), inner = x.numel() / (N * C);
  Tensor y(x.dtype(), x.shape());
  for (int64_t nc = 0; nc < N * C; ++nc) {
    int64_t c = nc % C;
    auto [m, inv] = meanInvStd(x, nc * inner, inner, eps);
    for (int64_t i = 0; i < inner; ++i)
      y.setDouble(nc * inner + i, scale.getDouble(c) *
                                          (x.getDouble(nc * inner + i) - m) *
                                          inv +
                                      bias.getDouble(c));
  }
  ctx.set(0, y);
  return success();
}

LogicalResult layerNormK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &scale = ctx.in(1);
  auto axis = normalizeAxis(ctx.getInt("axis", -1), x.rank());
  if (!axis)
    return ctx.error("axis out of range");
  double eps = ctx.getFloat("epsilon", 1e-5f);
  int64_t outer = 1;
  for (int64_t d = 0; d < *axis; ++d)
    outer *= x.dim(d);
  int64_t n = outer ? x.numel() / outer : 0;
  Shape normShape(x.shape().drop_front(*axis));
  // Scale and B broadcast to the normalized shape.
  auto broadcastTo = [&](const Tensor &t) -> std::optional<Shape> {
    auto s = broadcastShapes({Shape(t.shape()), normShape});
    if (!s || *s != normShape)
      return std::nullopt;
    return broadcastStrides(t.shape(), normShape);
  };
  auto scaleStrides = broadcastTo(scale);
  if (!scaleStrides)
    return ctx.error("Scale does not broadcast to the normalized shape " +
                     shapeToString(normShape));
  std::optional<Shape> biasStrides;
  if (ctx.has(2)) {
    biasStrides = broadcastTo(ctx.in(2));
    if (!biasStrides)
      return ctx.error("B does not broadcast to the normalized shape");
  }
  std::vector<int64_t> scaleIdx(n), biasIdx(n);
  {
    std::array<Shape, 1> s = {*scaleStrides};
    forEachBroadcast<1>(normShape, s, [&](int64_t i, const auto &off) {
      scaleIdx[i] = off[0];
    });
    if (biasStrides) {
      std::array<Shape, 1> b = {*biasStrides};
      forEachBroadcast<1>(normShape, b, [&](int64_t i, const auto &off) {
        biasIdx[i] = off[0];
      });
    }
  }
  Tensor y(x.dtype(), x.shape());
  Shape statShape(x.shape());
  for (int64_t d = *axis; d < x.rank(); ++d)
    statShape[d] = 1;
  // Mean and InvStdDev have the stash type (float by default).
  DataType stash = ctx.getInt("stash_type", 1) == 11 ? DataType::DOUBLE
                                                      : DataType::FLOAT;
  Tensor meanT(stash, statShape), invT(stash, statShape);
  for (int64_t o = 0; o < outer; ++o) {
    auto [m, inv] = meanInvStd(x, o * n, n, eps);
    meanT.setDouble(o, m);
    invT.setDouble(o, inv);
    for (int64_t i = 0; i < n; ++i) {
      double r = (x.getDouble(o * n + i) - m) * inv *
                 scale.getDouble(scaleIdx[i]);
      if (biasStrides)
        r += ctx.in(2).getDouble(biasIdx[i]);
      y.setDouble(o * n + i, r);
    }
  }
  ctx.set(0, y);
  if (ctx.numOutputs() > 1 && ctx.wants(1))
    ctx.set(1, meanT);
  if (ctx.numOutputs() > 2 && ctx.wants(2))
    ctx.set(2, invT);
  return success();
}

LogicalResult groupNormK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &scale = ctx.in(1), &bias = ctx.in(2);
  int64_t groups = ctx.getInt("num_groups", 0);
  if (x.rank() < 2 || groups < 1 || x.dim(1) % groups)
    return ctx.error("num_groups must divide the channel count");
  double eps = ctx.getFloat("epsilon", 1e-5f);
  int64_t N = x.dim(0), C = x.dim(1), Cg = C / groups;
  int64_t inner = x.numel() / std::max<int64_t>(N * C, 1);
  // GroupNormalization-18 has one scale per group, version 21 per channel.
  bool perChannel = ctx.version() >= 21;
  Tensor y(x.dtype(), x.shape());
  for (int64_t b = 0; b < N; ++b)
    for (int64_t g = 0; g < groups; ++g) {
      int64_t base = (b * C + g * Cg) * inner, cnt = Cg * inner;
      auto [m, inv] = meanInvStd(x, base, cnt, eps);
      for (int64_t i = 0; i < cnt; ++i) {
        int64_t p = perChannel ? g * Cg + i / inner : g;
        y.setDouble(base + i, (x.getDouble(base + i) - m) * inv *
                                      scale.getDouble(p) +
                                  bias.getDouble(p));
      }
    }
  ctx.set(0, y);
  return success();
}

LogicalResult lpNormK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  auto axis = normalizeAxis(ctx.getInt("axis", -1), x.rank());
  int64_t p = ctx.getInt("p", 2);
  if (!axis || (p != 1 && p != 2))
    return ctx.error("axis out of range or p not 1 or 2");
  int64_t outer = 1, inner = 1, n = x.dim(*axis);
  for (int64_t d = 0; d < *axis; ++d)
    outer *= x.dim(d);
  for (int64_t d = *axis + 1; d < x.rank(); ++d)
    inner *= x.dim(d);
  Tensor y(x.dtype(), x.shape());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      double norm = 0;
      for (int64_t j = 0; j < n; ++j) {
        double v = x.getDouble((o * n + j) * inner + in);
        norm += p == 1 ? std::abs(v) : v * v;
      }
      if (p == 2)
        norm = std::sqrt(norm);
      for (int64_t j = 0; j < n; ++j) {
        int64_t k = (o * n + j) * inner + in;
        y.setDouble(k, norm == 0 ? 0 : x.getDouble(k) / norm);
      }
    }
  ctx.set(0, y);
  return success();
}

LogicalResult meanVarianceNormK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::vector<int64_t> axes =
      ctx.getInts("axes").value_or(std::vector<int64_t>{0, 2, 3});
  std::vector<bool> reduced(x.rank(), false);
  for (int64_t a : axes) {
    auto n = normalizeAxis(a, x.rank());
    if (!n)
      return ctx.error("axis out of range");
    reduced[*n] = true;
  }
  Shape keep(x.shape());
  int64_t cnt = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (reduced[d]) {
      cnt *= keep[d];
      keep[d] = 1;
    }
  std::array<Shape, 1> s = {broadcastStrides(keep, x.shape())};
  for (int64_t d = 0; d < x.rank(); ++d)
    if (reduced[d])
      s[0][d] = 0;
  int64_t groups = numElements(keep);
  std::vector<double> m(groups, 0.0), v(groups, 0.0);
  forEachBroadcast<1>(x.shape(), s, [&](int64_t i, const auto &off) {
    m[off[0]] += x.getDouble(i);
  });
  for (double &a : m)
    a /= cnt;
  forEachBroadcast<1>(x.shape(), s, [&](int64_t i, const auto &off) {
    double d = x.getDouble(i) - m[off[0]];
    v[off[0]] += d * d;
  });
  Tensor y(x.dtype(), x.shape());
  // ONNX's function body divides by sqrt(variance) + 1e-9.
  forEachBroadcast<1>(x.shape(), s, [&](int64_t i, const auto &off) {
    double sd = std::sqrt(v[off[0]] / cnt);
    y.setDouble(i, (x.getDouble(i) - m[off[0]]) / (sd + 1e-9));
  });
  ctx.set(0, y);
  return success();
}

LogicalResult lrnK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  int64_t size = ctx.getInt("size", 0);
  if (size < 1 || x.rank() < 3)
    return ctx.error("size must be >= 1 and the input rank >= 3");
  double alpha = ctx.getFloat("alpha", 1e-4f), beta = ctx.getFloat("beta",
                                                                    0.75f);
  double bias = ctx.getFloat("bias", 1.0f);
  int64_t N = x.dim(0), C = x.dim(1), inner = x.numel() / (N * C);
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  Tensor y(x.dtype(), x.shape());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        double sq = 0;
        for (int64_t j = std::max<int64_t>(0, c - lo);
             j <= std::min<int64_t>(C - 1, c + hi); ++j) {
          double v = x.getDouble((n * C + j) * inner + i);
          sq += v * v;
        }
        int64_t k = (n * C + c) * inner + i;
        y.setDouble(k, x.getDouble(k) /
                           std::pow(bias + alpha / size * sq, beta));
      }
  ctx.set(0, y);
  return success();
}

} // namespace

void registerNormalizationKernels(KernelRegistry &r) {
  r.add("Softmax", softmaxK);
  r.add("LogSoftmax", logSoftmaxK);
  r.add("Hardmax", hardmaxK);
  r.add("BatchNormalization", batchNormK);
  r.add("InstanceNormalization", instanceNormK);
  r.add("LayerNormalization", layerNormK);
  r.add("GroupNormalization", groupNormK);
  r.add("LpNormalization", lpNormK);
  r.add("MeanVarianceNormalization", meanVarianceNormK);
  r.add("LRN", lrnK);
}

} // namespace amk::ref
