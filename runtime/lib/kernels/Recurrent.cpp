//===- Recurrent.cpp - RNN, GRU, LSTM -------------------------------------===//
//
// Part of AMK. RECURRENT (kernel_params.h): one row per (direction,
// batch) pair, stepping through its sequence with ONNX's equations. The
// gate pre-activations of a step are W x_t + R h_{t-1} + biases in one
// pass over W and R's rows; a sequence shorter than the input (its
// sequence_lens entry) leaves zeros in Y past its end, and Y_h / Y_c hold
// its last step.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Vector.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace amk::rt {

namespace {

float activate(int64_t code, float x, float alpha, float beta) {
  switch (code) {
  case AMK_RNN_ACT_SIGMOID:
    return 1.f / (1.f + std::exp(-x));
  case AMK_RNN_ACT_TANH:
    return std::tanh(x);
  case AMK_RNN_ACT_RELU:
    return x > 0 ? x : 0;
  case AMK_RNN_ACT_AFFINE:
    return alpha * x + beta;
  case AMK_RNN_ACT_LEAKY_RELU:
    return x >= 0 ? x : alpha * x;
  case AMK_RNN_ACT_THRESHOLDED_RELU:
    return x > alpha ? x : 0;
  case AMK_RNN_ACT_SCALED_TANH:
    return alpha * std::tanh(beta * x);
  case AMK_RNN_ACT_HARD_SIGMOID:
    return std::min(1.f, std::max(0.f, alpha * x + beta));
  case AMK_RNN_ACT_ELU:
    return x >= 0 ? x : alpha * (std::exp(x) - 1);
  case AMK_RNN_ACT_SOFTSIGN:
    return x / (1 + std::fabs(x));
  default:
    return std::log1p(std::exp(x));
  }
}

/// x[0, n) = act(clip(x)): sigmoid and tanh (every default activation of
/// the three ops) 16 lanes at a time, the others per element.
void activateAll(int64_t code, float *x, int64_t n, float alpha, float beta,
                 float clip) {
  if (clip > 0)
    for (int64_t i = 0; i < n; ++i)
      x[i] = std::min(clip, std::max(-clip, x[i]));
  if (code == AMK_RNN_ACT_SIGMOID)
    return mapV16(x, x, n, sigmoidV);
  if (code == AMK_RNN_ACT_TANH)
    return mapV16(x, x, n, fastTanhV);
  for (int64_t i = 0; i < n; ++i)
    x[i] = activate(code, x[i], alpha, beta);
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_RECURRENT>::run(const KernelCall &call,
                                         const int64_t *tile, std::string &) {
  const int64_t *ip = call.ip;
  const float *fp = call.fp;
  int64_t S = ip[AMK_RNN_SEQ], Bn = ip[AMK_RNN_BATCH], I = ip[AMK_RNN_INPUT],
          H = ip[AMK_RNN_HIDDEN], D = ip[AMK_RNN_DIRS];
  int64_t direction = ip[AMK_RNN_DIRECTION];
  bool batchFirst = ip[AMK_RNN_LAYOUT] != 0;
  bool lbr = ip[AMK_RNN_LINEAR_BEFORE_RESET] != 0;
  int variant = call.kernel->variant;
  int64_t G = variant == AMK_RNN_VARIANT_RNN   ? 1
              : variant == AMK_RNN_VARIANT_GRU ? 3
                                               : 4;
  auto buf = [&](int i) { return static_cast<float *>(call.buffers[i]); };
  const float *X = buf(0), *W = buf(1), *R = buf(2), *Bias = buf(3);
  const int32_t *lens = static_cast<const int32_t *>(call.buffers[4]);
  const float *H0 = buf(5), *C0 = buf(6), *P = buf(7);
  float *Y = buf(8), *Yh = buf(9), *Yc = buf(10);
  float clip = fp[0];
  std::vector<float> h(H), c(H), rh(H), hr(H), z(H), r(H), pre(G * H);
  // W x_t + Wb for every step of a row, computed before the recurrence:
  // each row of W is read once and meets every x_t while in cache.
  std::vector<float> xw(S * G * H);
  for (int64_t row = tile[0]; row < tile[1]; ++row) {
    int64_t d = row / Bn, b = row % Bn;
    bool reverse = direction == 1 || (direction == 2 && d == 1);
    const int64_t *acts = ip + AMK_RNN_ACTS + 3 * d;
    const float *alpha = fp + 1 + 3 * d, *beta = fp + 7 + 3 * d;
    auto f = [&](int k, float x) {
      if (clip > 0)
        x = std::min(clip, std::max(-clip, x));
      return activate(acts[k], x, alpha[k], beta[k]);
    };
    const float *Wd = W + d * G * H * I, *Rd = R + d * G * H * H;
    const float *Wb = Bias ? Bias + d * 2 * G * H : nullptr;
    const float *Rb = Bias ? Wb + G * H : nullptr;
    const float *Pd = P ? P + d * 3 * H : nullptr;
    // out[g - g0] = Rb[g] + (R hv)[g] for g in [g0, g1).
    auto recurAll = [&](float *out, int64_t g0, int64_t g1, const float *hv) {
      for (int64_t g = g0; g < g1; ++g)
        out[g - g0] = (Rb ? Rb[g] : 0.f) + dotFloats(Rd + g * H, hv, H);
    };
    for (int64_t j = 0; j < H; ++j) {
      h[j] = H0 ? H0[(d * Bn + b) * H + j] : 0.f;
      c[j] = C0 ? C0[(d * Bn + b) * H + j] : 0.f;
    }
    int64_t len = lens ? std::min<int64_t>(lens[b], S) : S;
    auto yAt = [&](int64_t t) {
      return Y + (batchFirst ? ((b * S + t) * D + d) * H
                             : ((t * D + d) * Bn + b) * H);
    };
    if (Y)
      for (int64_t t = len; t < S; ++t)
        std::fill_n(yAt(t), H, 0.f);
    auto xAt = [&](int64_t t) {
      return X + (batchFirst ? (b * S + t) * I : (t * Bn + b) * I);
    };
    for (int64_t g = 0; g < G * H; ++g) {
      const float *w = Wd + g * I;
      float wb = Wb ? Wb[g] : 0.f;
      for (int64_t t = 0; t < len; ++t)
        xw[t * G * H + g] = wb + dotFloats(w, xAt(t), I);
    }
    for (int64_t s = 0; s < len; ++s) {
      int64_t t = reverse ? len - 1 - s : s;
      // Pre-activations: W x + Wb (above), and R h + Rb apart (GRU's reset
      // gate multiplies the recurrent part of its third gate).
      const float *gates = xw.data() + t * G * H;
      auto act = [&](int k, float *x, int64_t n) {
        activateAll(acts[k], x, n, alpha[k], beta[k], clip);
      };
      if (variant == AMK_RNN_VARIANT_RNN) {
        recurAll(rh.data(), 0, H, h.data());
        for (int64_t j = 0; j < H; ++j)
          rh[j] += gates[j];
        act(0, rh.data(), H);
        h = rh;
      } else if (variant == AMK_RNN_VARIANT_GRU) {
        // z and r: gates [0, 2H).
        recurAll(pre.data(), 0, 2 * H, h.data());
        for (int64_t g = 0; g < 2 * H; ++g)
          pre[g] += gates[g];
        act(0, pre.data(), 2 * H);
        const float *zv = pre.data(), *rv = pre.data() + H;
        for (int64_t j = 0; j < H; ++j)
          hr[j] = rv[j] * h[j];
        recurAll(rh.data(), 2 * H, 3 * H, lbr ? h.data() : hr.data());
        for (int64_t j = 0; j < H; ++j)
          rh[j] =
              lbr ? gates[2 * H + j] + rv[j] * rh[j] : gates[2 * H + j] + rh[j];
        act(1, rh.data(), H);
        for (int64_t j = 0; j < H; ++j)
          h[j] = (1 - zv[j]) * rh[j] + zv[j] * h[j];
      } else {
        recurAll(pre.data(), 0, G * H, h.data());
        for (int64_t g = 0; g < G * H; ++g)
          pre[g] += gates[g];
        if (!Pd) {
          // i, o, f: gates [0, 3H) through f; the cell candidate through g.
          act(0, pre.data(), 3 * H);
          act(1, pre.data() + 3 * H, H);
          for (int64_t j = 0; j < H; ++j)
            c[j] = pre[2 * H + j] * c[j] + pre[j] * pre[3 * H + j];
          std::copy(c.begin(), c.end(), rh.begin());
          act(2, rh.data(), H);
          for (int64_t j = 0; j < H; ++j)
            h[j] = pre[H + j] * rh[j];
        } else {
          // Peepholes read the cell state between the gates.
          for (int64_t j = 0; j < H; ++j) {
            float ig = pre[j] + Pd[j] * c[j];
            float fg = pre[2 * H + j] + Pd[2 * H + j] * c[j];
            float i = f(0, ig), fo = f(0, fg), cc = f(1, pre[3 * H + j]);
            c[j] = fo * c[j] + i * cc;
            float og = pre[H + j] + Pd[H + j] * c[j];
            h[j] = f(0, og) * f(2, c[j]);
          }
        }
      }
      if (Y)
        std::copy(h.begin(), h.end(), yAt(t));
    }
    if (Yh)
      std::copy(h.begin(), h.end(), Yh + (batchFirst ? b * D + d : d * Bn + b) * H);
    if (Yc)
      std::copy(c.begin(), c.end(), Yc + (batchFirst ? b * D + d : d * Bn + b) * H);
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_RECURRENT>::check(const amk_rt_kernel &k,
                                           const int64_t *ip, const float *,
                                           std::string &error) {
  if (!hasParams(k, AMK_RNN_NUM_IPARAMS, 13, error))
    return false;
  bool ok = k.num_buffers == 11 && k.variant <= AMK_RNN_VARIANT_LSTM &&
            ip[AMK_RNN_DIRS] >= 1 && ip[AMK_RNN_DIRS] <= 2 &&
            ip[AMK_RNN_HIDDEN] >= 1;
  for (int i = 0; i < 6 && ok; ++i)
    ok = ip[AMK_RNN_ACTS + i] >= 0 && ip[AMK_RNN_ACTS + i] < AMK_RNN_ACT_COUNT;
  if (!ok)
    error = "bad recurrent parameters (11 buffers, variant 0-2, 1 or 2 "
            "directions, known activations)";
  return ok;
}

} // namespace amk::rt
