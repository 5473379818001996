//===- Misc.cpp - Losses, selection, signal, string and training ops ------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include "llvm/ADT/StringExtras.h"

#include <re2/re2.h>

#include <algorithm>
#include <complex>
#include <map>
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
  std::vector<std::array<int64_t, 3>> selected;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c = 0; c < C; ++c) {
      std::vector<int64_t> cand;
      for (int64_t s = 0; s < S; ++s)
        if (!hasScoreThreshold ||
            scores.getDouble((b * C + c) * S + s) > scoreThreshold)
          cand.push_back(s);
      std::stable_sort(cand.begin(), cand.end(), [&](int64_t x, int64_t y) {
        return scores.getDouble((b * C + c) * S + x) >
               scores.getDouble((b * C + c) * S + y);
      });
      std::vector<int64_t> kept;
      for (int64_t s : cand) {
        if (static_cast<int64_t>(kept.size()) >= maxOut)
          break;
        bool ok = true;
        for (int64_t k : kept)
          if (iou(corners(b, s), corners(b, k)) > iouThreshold) {
            ok = false;
            break;
          }
        if (ok)
          kept.push_back(s);
      }
      for (int64_t s : kept)
        selected.push_back({b, c, s});
    }
  Tensor y(DataType::INT64, {static_cast<int64_t>(selected.size()), 3});
  for (size_t i = 0; i < selected.size(); ++i)
    for (int k = 0; k < 3; ++k)
      y.data<int64_t>()[i * 3 + k] = selected[i][k];
  ctx.set(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra and signal processing
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

enum class WindowKind { Hann, Hamming, Blackman };

LogicalResult window(KernelContext &ctx, WindowKind kind) {
  int64_t size = ctx.in(0).getInt(0);
  if (size < 0)
    return ctx.error("size must be >= 0");
  bool periodic = ctx.getInt("periodic", 1) != 0;
  auto dt = static_cast<DataType>(ctx.getInt("output_datatype", 1));
  Tensor y(dt, {size});
  double n1 = periodic ? size : size - 1;
  for (int64_t i = 0; i < size; ++i) {
    double t = n1 > 0 ? 2 * M_PI * i / n1 : 0;
    double v = kind == WindowKind::Hann ? 0.5 - 0.5 * std::cos(t)
               : kind == WindowKind::Hamming
                   ? 25.0 / 46 - (1 - 25.0 / 46) * std::cos(t)
                   : 0.42 - 0.5 * std::cos(t) + 0.08 * std::cos(2 * t);
    y.setDouble(i, v);
  }
  ctx.set(0, y);
  return success();
}

LogicalResult hannK(KernelContext &ctx) {
  return window(ctx, WindowKind::Hann);
}
LogicalResult hammingK(KernelContext &ctx) {
  return window(ctx, WindowKind::Hamming);
}
LogicalResult blackmanK(KernelContext &ctx) {
  return window(ctx, WindowKind::Blackman);
}

/// Naive DFT of `n` complex samples read by `in`, of length `len`.
std::vector<std::complex<double>>
dft(const std::vector<std::complex<double>> &in, int64_t len, bool inverse) {
  std::vector<std::complex<double>> out(len);
  double sign = inverse ? 1 : -1;
  for (int64_t k = 0; k < len; ++k) {
    std::complex<double> acc = 0;
    for (int64_t t = 0; t < len; ++t) {
      double ang = sign * 2 * M_PI * static_cast<double>(k * t % len) / len;
      std::complex<double> v = t < static_cast<int64_t>(in.size())
                                   ? in[t]
                                   : std::complex<double>(0);
      acc += v * std::complex<double>(std::cos(ang), std::sin(ang));
    }
    out[k] = inverse ? acc / static_cast<double>(len) : acc;
  }
  return out;
}

LogicalResult dftK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  if (x.rank() < 3 || (x.dim(-1) != 1 && x.dim(-1) != 2))
    return ctx.error("input must be [batch, ..., 1 or 2]");
  bool inverse = ctx.getInt("inverse", 0) != 0;
  bool onesided = ctx.getInt("onesided", 0) != 0;
  // The axis is an attribute before DFT-20 and an input from 20.
  int64_t axisValue = ctx.version() >= 20 ? (ctx.has(2) ? ctx.in(2).getInt(0)
                                                        : -2)
                                          : ctx.getInt("axis", 1);
  auto axis = normalizeAxis(axisValue, x.rank() - 1);
  if (!axis || *axis == 0)
    return ctx.error("axis must be a signal axis");
  int64_t n = x.dim(*axis);
  int64_t len = ctx.has(1) ? ctx.in(1).getInt(0) : n;
  if (len < 1)
    return ctx.error("dft_length must be positive");
  int64_t outLen = onesided ? len / 2 + 1 : len;
  Shape out(x.shape());
  out[*axis] = outLen;
  out.back() = 2;
  Tensor y(x.dtype(), out);
  bool complexIn = x.dim(-1) == 2;
  Shape xs = stridesOf(x.shape()), ys = stridesOf(out);
  int64_t lanes = x.numel() / (n * x.dim(-1));
  Shape lane(x.rank() - 1);
  for (int64_t l = 0; l < lanes; ++l) {
    // Multi-index of the lane, with the signal axis at 0.
    int64_t rem = l, xo = 0, yo = 0;
    for (int64_t d = x.rank() - 2; d >= 0; --d) {
      if (d == *axis)
        continue;
      int64_t c = rem % x.dim(d);
      rem /= x.dim(d);
      xo += c * xs[d];
      yo += c * ys[d];
    }
    std::vector<std::complex<double>> sig(std::min(n, len));
    for (int64_t t = 0; t < static_cast<int64_t>(sig.size()); ++t) {
      int64_t off = xo + t * xs[*axis];
      sig[t] = {x.getDouble(off), complexIn ? x.getDouble(off + 1) : 0.0};
    }
    auto f = dft(sig, len, inverse);
    for (int64_t k = 0; k < outLen; ++k) {
      int64_t off = yo + k * ys[*axis];
      y.setDouble(off, f[k].real());
      y.setDouble(off + 1, f[k].imag());
    }
  }
  ctx.set(0, y);
  return success();
}

LogicalResult stftK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  if (x.rank() != 3 || (x.dim(2) != 1 && x.dim(2) != 2))
    return ctx.error("signal must be [batch, length, 1 or 2]");
  int64_t step = ctx.in(1).getInt(0);
  bool hasWindow = ctx.has(2);
  int64_t frameLen = ctx.has(3) ? ctx.in(3).getInt(0)
                                : (hasWindow ? ctx.in(2).dim(0) : 0);
  if (step < 1 || frameLen < 1)
    return ctx.error("frame_step and frame_length must be positive");
  bool onesided = ctx.getInt("onesided", 1) != 0;
  int64_t B = x.dim(0), L = x.dim(1);
  int64_t frames = (L - frameLen) / step + 1;
  int64_t bins = onesided ? frameLen / 2 + 1 : frameLen;
  Tensor y(x.dtype(), {B, frames, bins, 2});
  bool complexIn = x.dim(2) == 2;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t f = 0; f < frames; ++f) {
      std::vector<std::complex<double>> sig(frameLen);
      for (int64_t t = 0; t < frameLen; ++t) {
        int64_t off = (b * L + f * step + t) * x.dim(2);
        double w = hasWindow ? ctx.in(2).getDouble(t) : 1.0;
        sig[t] = {x.getDouble(off) * w,
                  complexIn ? x.getDouble(off + 1) * w : 0.0};
      }
      auto spec = dft(sig, frameLen, false);
      for (int64_t k = 0; k < bins; ++k) {
        int64_t off = ((b * frames + f) * bins + k) * 2;
        y.setDouble(off, spec[k].real());
        y.setDouble(off + 1, spec[k].imag());
      }
    }
  ctx.set(0, y);
  return success();
}

LogicalResult melWeightMatrixK(KernelContext &ctx) {
  int64_t mels = ctx.in(0).getInt(0), dftLen = ctx.in(1).getInt(0);
  double rate = ctx.in(2).getDouble(0), lo = ctx.in(3).getDouble(0),
         hi = ctx.in(4).getDouble(0);
  if (mels < 1 || dftLen < 1 || rate <= 0)
    return ctx.error("invalid mel parameters");
  int64_t specBins = dftLen / 2 + 1;
  auto dt = static_cast<DataType>(ctx.getInt("output_datatype", 1));
  Tensor y(dt, {specBins, mels});
  // ONNX's reference: mel-spaced edges, mapped back to DFT bin indices.
  double loMel = 2595 * std::log10(1 + lo / 700);
  double hiMel = 2595 * std::log10(1 + hi / 700);
  double step = (hiMel - loMel) / (mels + 2);
  std::vector<int64_t> edges(mels + 2);
  for (int64_t i = 0; i < mels + 2; ++i) {
    double hz = 700 * (std::pow(10, (i * step + loMel) / 2595) - 1);
    edges[i] = static_cast<int64_t>(std::floor((dftLen + 1) * hz / rate));
  }
  for (int64_t i = 0; i < mels; ++i) {
    int64_t l = edges[i], c = edges[i + 1], r = edges[i + 2];
    if (c - l == 0) {
      if (c >= 0 && c < specBins)
        y.setDouble(c * mels + i, 1);
    } else {
      for (int64_t j = l; j <= c; ++j)
        if (j >= 0 && j < specBins)
          y.setDouble(j * mels + i, double(j - l) / double(c - l));
    }
    if (r - c > 0)
      for (int64_t j = c; j < r; ++j)
        if (j >= 0 && j < specBins)
          y.setDouble(j * mels + i, double(r - j) / double(r - c));
  }
  ctx.set(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Strings
//===----------------------------------------------------------------------===//

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
  auto indexes =
      ctx.getInts("ngram_indexes").value_or(std::vector<int64_t>{});
  auto weights = ctx.getFloats("weights");
  auto poolInts = ctx.getInts("pool_int64s");
  auto poolStrs = ctx.getStrings("pool_strings");
  bool strings = x.isString();
  int64_t poolSize = strings ? poolStrs.size()
                             : (poolInts ? poolInts->size() : 0);
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

//===----------------------------------------------------------------------===//
// Random values
//===----------------------------------------------------------------------===//

/// Random ops draw from SplitMix64 seeded by the `seed` attribute (0 when
/// absent): deterministic across runs and machines, so a model's results
/// can be reproduced. They cannot equal another implementation's draws, so
/// ONNX's test data for these ops is not expected to match.
class Rng {
public:
  explicit Rng(double seed) : state(static_cast<uint64_t>(seed) + 1) {}
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double normal() {
    double u1 = std::max(uniform(), 1e-300), u2 = uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }

private:
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint64_t state;
};

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
  double b = isNormal ? ctx.getFloat("scale", 1.0f)
                      : ctx.getFloat("high", 1.0f);
  for (int64_t i = 0; i < y.numel(); ++i)
    y.setDouble(i, isNormal ? a + b * rng.normal() : a + (b - a) * rng.uniform());
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

void registerMiscKernels(KernelRegistry &r) {
  r.add("NegativeLogLikelihoodLoss", nllLossK);
  r.add("SoftmaxCrossEntropyLoss", softmaxCrossEntropyK);
  r.add("TopK", topKK);
  r.add("Unique", uniqueK);
  r.add("NonMaxSuppression", nmsK);
  r.add("Det", detK);
  r.add("HannWindow", hannK);
  r.add("HammingWindow", hammingK);
  r.add("BlackmanWindow", blackmanK);
  r.add("DFT", dftK);
  r.add("STFT", stftK);
  r.add("MelWeightMatrix", melWeightMatrixK);
  r.add("StringNormalizer", stringNormalizerK);
  r.add("TfIdfVectorizer", tfidfK);
  r.add("StringConcat", stringConcatK);
  r.add("StringSplit", stringSplitK);
  r.add("RegexFullMatch", regexFullMatchK);
  r.add("Adagrad", adagradK, "ai.onnx.preview.training");
  r.add("Momentum", momentumK, "ai.onnx.preview.training");
  r.add("Adam", adamK, "ai.onnx.preview.training");
  addAll(r,
         {"RandomUniform", "RandomNormal", "RandomUniformLike",
          "RandomNormalLike"},
         randomK);
  r.add("Bernoulli", bernoulliK);
  r.add("Multinomial", multinomialK);
}

} // namespace amk::ref
