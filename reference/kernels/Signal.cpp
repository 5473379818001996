//===- Signal.cpp - Windows, DFT, STFT and MelWeightMatrix ----------------===//
//
// Part of AMK. DFT and STFT compute the transform by its definition
// (O(n^2), in double): slow on long signals, but easy to check.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include <cmath>
#include <complex>
#include <vector>

using namespace mlir;

namespace amk::ref {
namespace {

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
      std::complex<double> v =
          t < static_cast<int64_t>(in.size()) ? in[t] : std::complex<double>(0);
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
  int64_t axisValue = ctx.version() >= 20
                          ? (ctx.has(2) ? ctx.in(2).getInt(0) : -2)
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
  int64_t frameLen =
      ctx.has(3) ? ctx.in(3).getInt(0) : (hasWindow ? ctx.in(2).dim(0) : 0);
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

} // namespace

void registerSignalKernels(KernelRegistry &r) {
  r.add("HannWindow", hannK);
  r.add("HammingWindow", hammingK);
  r.add("BlackmanWindow", blackmanK);
  r.add("DFT", dftK);
  r.add("STFT", stftK);
  r.add("MelWeightMatrix", melWeightMatrixK);
}

} // namespace amk::ref
