//===- Misc.cpp - Losses, selection, Det and training ops -----------------===//
//
// Part of AMK. Signal processing is in Signal.cpp, strings in Strings.cpp,
// random values in Generators.cpp.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include <algorithm>
#include <numeric>
#include <vector>

using namespace mlir;

namespace amk::ref {
namespace {

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// Negative log-likelihood of `logp` [N, C, d...] at `target` [N, d...]:
/// the shared core of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
LogicalResult nllCore(KernelContext &ctx, const Tensor &logp,
                      const Tensor &target, const Tensor *weight,
                      DataType outType) {
  std::string reduction = ctx.getString("reduction", "mean");
  bool hasIgnore = ctx.hasAttr("ignore_index");
  int64_t ignore = ctx.getInt("ignore_index", 0);
  if (logp.rank() < 2)
    return ctx.error("input must have rank >= 2");
  int64_t N = logp.dim(0), C = logp.dim(1);
  int64_t inner = logp.numel() / std::max<int64_t>(N * C, 1);
  Shape lossShape = {N};
  for (int64_t d = 2; d < logp.rank(); ++d)
    lossShape.push_back(logp.dim(d));
  if (target.numel() != N * inner)
    return ctx.error("target shape " + shapeToString(target.shape()) +
                     " does not match the input " +
                     shapeToString(logp.shape()));
  std::vector<double> loss(N * inner, 0.0);
  double weightSum = 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t t = target.getInt(n * inner + i);
      if (hasIgnore && t == ignore)
        continue;
      if (t < 0 || t >= C)
        return ctx.error("target " + std::to_string(t) +
                         " is not a class index below " + std::to_string(C));
      double w = weight ? weight->getDouble(t) : 1.0;
      loss[n * inner + i] = -logp.getDouble((n * C + t) * inner + i) * w;
      weightSum += w;
    }
  if (reduction == "none") {
    Tensor y(outType, lossShape);
    for (size_t k = 0; k < loss.size(); ++k)
      y.setDouble(k, loss[k]);
    ctx.set(0, y);
    return success();
  }
  double sum = std::accumulate(loss.begin(), loss.end(), 0.0);
  if (reduction == "mean")
    sum = weightSum == 0 ? 0 : sum / weightSum;
  else if (reduction != "sum")
    return ctx.error("unknown reduction '" + reduction + "'");
  ctx.set(0, Tensor::scalar(outType, sum));
  return success();
}

LogicalResult nllLossK(KernelContext &ctx) {
  return nllCore(ctx, ctx.in(0), ctx.in(1), ctx.has(2) ? &ctx.in(2) : nullptr,
                 ctx.in(0).dtype());
}

LogicalResult softmaxCrossEntropyK(KernelContext &ctx) {
  const Tensor &scores = ctx.in(0);
  if (scores.rank() < 2)
    return ctx.error("scores must have rank >= 2");
  int64_t N = scores.dim(0), C = scores.dim(1);
  int64_t inner = scores.numel() / std::max<int64_t>(N * C, 1);
  Tensor logp(scores.dtype(), scores.shape());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t i = 0; i < inner; ++i) {
      double mx = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t c = 0; c < C; ++c)
        mx = std::max(mx, scores.getDouble((n * C + c) * inner + i));
      for (int64_t c = 0; c < C; ++c)
        sum += std::exp(scores.getDouble((n * C + c) * inner + i) - mx);
      for (int64_t c = 0; c < C; ++c) {
        int64_t k = (n * C + c) * inner + i;
        logp.setDouble(k, scores.getDouble(k) - mx - std::log(sum));
      }
    }
  if (failed(nllCore(ctx, logp, ctx.in(1), ctx.has(2) ? &ctx.in(2) : nullptr,
                     scores.dtype())))
    return failure();
  if (ctx.numOutputs() > 1 && ctx.wants(1))
    ctx.set(1, logp);
  return success();
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

LogicalResult topKK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  int64_t k = ctx.hasAttr("k") ? ctx.getInt("k", 0)
                               : (ctx.has(1) ? ctx.in(1).getInt(0) : -1);
  auto axis = normalizeAxis(ctx.getInt("axis", -1), x.rank());
  if (!axis)
    return ctx.error("axis out of range");
  int64_t dim = x.dim(*axis);
  if (k < 0 || k > dim)
    return ctx.error("k = " + std::to_string(k) + " is not in [0, " +
                     std::to_string(dim) + "]");
  bool largest = ctx.getInt("largest", 1) != 0;
  bool sorted = ctx.getInt("sorted", 1) != 0;
  Shape out(x.shape());
  out[*axis] = k;
  Tensor values(x.dtype(), out), indices(DataType::INT64, out);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < *axis; ++d)
    outer *= x.dim(d);
  for (int64_t d = *axis + 1; d < x.rank(); ++d)
    inner *= x.dim(d);
  std::vector<int64_t> order(dim);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t j) {
        return x.getDouble((o * dim + j) * inner + in);
      };
      std::iota(order.begin(), order.end(), 0);
      // Ties keep the lower index first.
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return largest ? at(a) > at(b) : at(a) < at(b);
      });
      if (!sorted)
        std::sort(order.begin(), order.begin() + k);
      for (int64_t j = 0; j < k; ++j) {
        int64_t dst = (o * k + j) * inner + in;
        copyElement(x, (o * dim + order[j]) * inner + in, values, dst);
        indices.data<int64_t>()[dst] = order[j];
      }
    }
  ctx.set(0, values);
  ctx.set(1, indices);
  return success();
}

LogicalResult uniqueK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  bool sorted = ctx.getInt("sorted", 1) != 0;
  bool hasAxis = ctx.hasAttr("axis");
  Tensor src = x;
  int64_t axis = 0;
  if (!hasAxis)
    src = x.reshaped({x.numel()});
  else {
    auto a = normalizeAxis(ctx.getInt("axis", 0), x.rank());
    if (!a)
      return ctx.error("axis out of range");
    axis = *a;
  }
  int64_t dim = src.dim(axis), outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= src.dim(d);
  for (int64_t d = axis + 1; d < src.rank(); ++d)
    inner *= src.dim(d);
  // Slice j as a vector of doubles (or strings) for comparison.
  auto sliceLess = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t ia = (o * dim + a) * inner + i, ib = (o * dim + b) * inner + i;
        if (src.isString()) {
          if (src.strings()[ia] != src.strings()[ib])
            return src.strings()[ia] < src.strings()[ib];
        } else if (src.getDouble(ia) != src.getDouble(ib)) {
          return src.getDouble(ia) < src.getDouble(ib);
        }
      }
    return false;
  };
  auto sliceEq = [&](int64_t a, int64_t b) {
    return !sliceLess(a, b) && !sliceLess(b, a);
  };
  std::vector<int64_t> firsts, inverse(dim), counts;
  for (int64_t j = 0; j < dim; ++j) {
    auto it = std::find_if(firsts.begin(), firsts.end(),
                           [&](int64_t f) { return sliceEq(f, j); });
    if (it == firsts.end()) {
      inverse[j] = firsts.size();
      firsts.push_back(j);
      counts.push_back(1);
    } else {
      inverse[j] = it - firsts.begin();
      ++counts[inverse[j]];
    }
  }
  std::vector<int64_t> order(firsts.size());
  std::iota(order.begin(), order.end(), 0);
  if (sorted)
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return sliceLess(firsts[a], firsts[b]);
    });
  std::vector<int64_t> rank(order.size());
  for (size_t r = 0; r < order.size(); ++r)
    rank[order[r]] = r;
  int64_t u = order.size();
  Shape yShape(src.shape());
  yShape[axis] = u;
  Tensor y(src.dtype(), yShape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t r = 0; r < u; ++r)
      copyElements(src, (o * dim + firsts[order[r]]) * inner, y,
                   (o * u + r) * inner, inner);
  ctx.set(0, y);
  auto vec = [](const std::vector<int64_t> &v) {
    return Tensor::fromInt64(v, {static_cast<int64_t>(v.size())});
  };
  std::vector<int64_t> idx(u), cnt(u), inv(dim);
  for (int64_t r = 0; r < u; ++r) {
    idx[r] = firsts[order[r]];
    cnt[r] = counts[order[r]];
  }
  for (int64_t j = 0; j < dim; ++j)
    inv[j] = rank[inverse[j]];
  if (ctx.wants(1))
    ctx.set(1, vec(idx));
  if (ctx.wants(2))
    ctx.set(2, vec(inv));
  if (ctx.wants(3))
    ctx.set(3, vec(cnt));
  return success();
}

LogicalResult nmsK(KernelContext &ctx) {
  const Tensor &boxes = ctx.in(0), &scores = ctx.in(1);
  int64_t maxOut = ctx.has(2) ? ctx.in(2).getInt(0) : 0;
  double iouThreshold = scalarInput(ctx, 3, 0.0);
  bool hasScoreThreshold = ctx.has(4);
  double scoreThreshold = scalarInput(ctx, 4, 0.0);
  bool center = ctx.getInt("center_point_box", 0) != 0;
  if (boxes.rank() != 3 || boxes.dim(2) != 4 || scores.rank() != 3)
    return ctx.error("boxes must be [batch, boxes, 4] and scores "
                     "[batch, classes, boxes]");
  int64_t B = boxes.dim(0), S = boxes.dim(1), C = scores.dim(1);
  auto corners = [&](int64_t b, int64_t s) {
    std::array<double, 4> v;
    for (int k = 0; k < 4; ++k)
      v[k] = boxes.getDouble((b * S + s) * 4 + k);
    if (center) // [x_center, y_center, width, height]
      return std::array<double, 4>{v[1] - v[3] / 2, v[0] - v[2] / 2,
                                   v[1] + v[3] / 2, v[0] + v[2] / 2};
    return std::array<double, 4>{std::min(v[0], v[2]), std::min(v[1], v[3]),
                                 std::max(v[0], v[2]), std::max(v[1], v[3])};
  };
  auto iou = [&](const std::array<double, 4> &a,
                 const std::array<double, 4> &c) {
    double ih = std::max(0.0, std::min(a[2], c[2]) - std::max(a[0], c[0]));
    double iw = std::max(0.0, std::min(a[3], c[3]) - std::max(a[1], c[1]));
    double inter = ih * iw;
    double uni = (a[2] - a[0]) * (a[3] - a[1]) + (c[2] - c[0]) * (c[3] - c[1]) -
                 inter;
    return uni > 0 ? inter / uni : 0.0;
  };
  // Detection exports run this over thousands of boxes (torchvision's
  // batched NMS offsets every class into one call): corners and scores
  // are read once, not per comparison.
  std::vector<std::array<int64_t, 3>> selected;
  std::vector<std::array<double, 4>> box(S);
  std::vector<double> score(S);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t s = 0; s < S; ++s)
      box[s] = corners(b, s);
    for (int64_t c = 0; c < C; ++c) {
      std::vector<int64_t> cand;
      for (int64_t s = 0; s < S; ++s) {
        score[s] = scores.getDouble((b * C + c) * S + s);
        if (!hasScoreThreshold || score[s] > scoreThreshold)
          cand.push_back(s);
      }
      std::stable_sort(cand.begin(), cand.end(), [&](int64_t x, int64_t y) {
        return score[x] > score[y];
      });
      std::vector<int64_t> kept;
      for (int64_t s : cand) {
        if (static_cast<int64_t>(kept.size()) >= maxOut)
          break;
        bool ok = true;
        for (int64_t k : kept)
          if (iou(box[s], box[k]) > iouThreshold) {
            ok = false;
            break;
          }
        if (ok)
          kept.push_back(s);
      }
      for (int64_t s : kept)
        selected.push_back({b, c, s});
    }
  }
  Tensor y(DataType::INT64, {static_cast<int64_t>(selected.size()), 3});
  for (size_t i = 0; i < selected.size(); ++i)
    for (int k = 0; k < 3; ++k)
      y.data<int64_t>()[i * 3 + k] = selected[i][k];
  ctx.set(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

LogicalResult detK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  if (x.rank() < 2 || x.dim(-1) != x.dim(-2))
    return ctx.error("input must be [..., M, M]");
  int64_t m = x.dim(-1), batch = x.numel() / std::max<int64_t>(m * m, 1);
  Tensor y(x.dtype(), x.shape().drop_back(2));
  std::vector<double> a(m * m);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m * m; ++i)
      a[i] = x.getDouble(b * m * m + i);
    double det = 1;
    // LU decomposition with partial pivoting.
    for (int64_t c = 0; c < m && det != 0; ++c) {
      int64_t p = c;
      for (int64_t r = c + 1; r < m; ++r)
        if (std::abs(a[r * m + c]) > std::abs(a[p * m + c]))
          p = r;
      if (a[p * m + c] == 0) {
        det = 0;
        break;
      }
      if (p != c) {
        for (int64_t k = 0; k < m; ++k)
          std::swap(a[p * m + k], a[c * m + k]);
        det = -det;
      }
      det *= a[c * m + c];
      for (int64_t r = c + 1; r < m; ++r) {
        double f = a[r * m + c] / a[c * m + c];
        for (int64_t k = c; k < m; ++k)
          a[r * m + k] -= f * a[c * m + k];
      }
    }
    y.setDouble(b, det);
  }
  ctx.set(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Training (ai.onnx.preview.training)
//===----------------------------------------------------------------------===//

LogicalResult adagradK(KernelContext &ctx) {
  double r = ctx.in(0).getDouble(0), t = ctx.in(1).getDouble(0);
  double decay = ctx.getFloat("decay_factor", 0.0f);
  double eps = ctx.getFloat("epsilon", 1e-6f);
  double nc = ctx.getFloat("norm_coefficient", 0.0f);
  size_t n = (ctx.numInputs() - 2) / 3;
  double lr = r / (1 + t * decay);
  for (size_t i = 0; i < n; ++i) {
    const Tensor &x = ctx.in(2 + i), &g = ctx.in(2 + n + i),
                 &h = ctx.in(2 + 2 * n + i);
    Tensor xn(x.dtype(), x.shape()), hn(h.dtype(), h.shape());
    for (int64_t k = 0; k < x.numel(); ++k) {
      double gr = nc * x.getDouble(k) + g.getDouble(k);
      double hv = h.getDouble(k) + gr * gr;
      hn.setDouble(k, hv);
      xn.setDouble(k, x.getDouble(k) - lr * gr / (std::sqrt(hv) + eps));
    }
    ctx.set(i, xn);
    ctx.set(n + i, hn);
  }
  return success();
}

LogicalResult momentumK(KernelContext &ctx) {
  double r = ctx.in(0).getDouble(0), t = ctx.in(1).getDouble(0);
  double alpha = ctx.getFloat("alpha", 0.0f), beta = ctx.getFloat("beta", 0.0f);
  double nc = ctx.getFloat("norm_coefficient", 0.0f);
  bool nesterov = ctx.getString("mode", "standard") == "nesterov";
  size_t n = (ctx.numInputs() - 2) / 3;
  double b = t > 0 ? beta : 1;
  for (size_t i = 0; i < n; ++i) {
    const Tensor &x = ctx.in(2 + i), &g = ctx.in(2 + n + i),
                 &v = ctx.in(2 + 2 * n + i);
    Tensor xn(x.dtype(), x.shape()), vn(v.dtype(), v.shape());
    for (int64_t k = 0; k < x.numel(); ++k) {
      double gr = nc * x.getDouble(k) + g.getDouble(k);
      double vv = alpha * v.getDouble(k) + b * gr;
      vn.setDouble(k, vv);
      xn.setDouble(k, x.getDouble(k) - r * (nesterov ? gr + alpha * vv : vv));
    }
    ctx.set(i, xn);
    ctx.set(n + i, vn);
  }
  return success();
}

LogicalResult adamK(KernelContext &ctx) {
  double r = ctx.in(0).getDouble(0), t = ctx.in(1).getDouble(0);
  double alpha = ctx.getFloat("alpha", 0.9f), beta = ctx.getFloat("beta",
                                                                  0.999f);
  double eps = ctx.getFloat("epsilon", 1e-6f);
  double nc = ctx.getFloat("norm_coefficient", 0.0f);
  double ncPost = ctx.getFloat("norm_coefficient_post", 0.0f);
  size_t n = (ctx.numInputs() - 2) / 4;
  double lr = t > 0 ? r * std::sqrt(1 - std::pow(beta, t)) /
                          (1 - std::pow(alpha, t))
                    : r;
  for (size_t i = 0; i < n; ++i) {
    const Tensor &x = ctx.in(2 + i), &g = ctx.in(2 + n + i),
                 &v = ctx.in(2 + 2 * n + i), &h = ctx.in(2 + 3 * n + i);
    Tensor xn(x.dtype(), x.shape()), vn(v.dtype(), v.shape()),
        hn(h.dtype(), h.shape());
    for (int64_t k = 0; k < x.numel(); ++k) {
      double gr = nc * x.getDouble(k) + g.getDouble(k);
      double vv = alpha * v.getDouble(k) + (1 - alpha) * gr;
      double hv = beta * h.getDouble(k) + (1 - beta) * gr * gr;
      vn.setDouble(k, vv);
      hn.setDouble(k, hv);
      double xv = x.getDouble(k) - lr * vv / (std::sqrt(hv) + eps);
      xn.setDouble(k, (1 - ncPost) * xv);
    }
    ctx.set(i, xn);
    ctx.set(n + i, vn);
    ctx.set(2 * n + i, hn);
  }
  return success();
}

} // namespace

void registerMiscKernels(KernelRegistry &r) {
  r.add("NegativeLogLikelihoodLoss", nllLossK);
  r.add("SoftmaxCrossEntropyLoss", softmaxCrossEntropyK);
  r.add("TopK", topKK);
  r.add("Unique", uniqueK);
  r.add("NonMaxSuppression", nmsK);
  r.add("Det", detK);
  r.add("Adagrad", adagradK, "ai.onnx.preview.training");
  r.add("Momentum", momentumK, "ai.onnx.preview.training");
  r.add("Adam", adamK, "ai.onnx.preview.training");
}

} // namespace amk::ref
