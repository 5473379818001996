//===- ConvKernelTest.cpp - Convolution kernels against naive loops -------===//
//
// Part of AMK. The depthwise and the direct convolution over their fast
// paths and edges (strides, dilation, padding, partial blocks, fused
// activations and residuals), tiled as the scheduler tiles them.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include "ProgramBuilder.h"
#include "amk/kernel_params.h"
#include "amk/runtime.h"
#include "runtime/lib/kernels/Winograd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using amk::rt::ProgramBuilder;
using amk::rt::test::runProgram;
using amk::rt::test::Session;

namespace {

/// The spatial iparams (AMK_SP_*) of a square-kernel group-1 convolution
/// with equal strides, dilations and begin pads, `extra` slots after them.
std::vector<int64_t> convParams(int64_t n, int64_t c, int64_t h, int64_t w,
                                int64_t oc, int64_t k, int64_t oh, int64_t ow,
                                int64_t stride, int64_t pad, int64_t dil,
                                int64_t act, int64_t extra = 0) {
  std::vector<int64_t> ip(AMK_SP_NUM_IPARAMS + extra, 0);
  ip[AMK_SP_N] = n, ip[AMK_SP_C] = c, ip[AMK_SP_H] = h, ip[AMK_SP_W] = w;
  ip[AMK_SP_OC] = oc, ip[AMK_SP_KH] = ip[AMK_SP_KW] = k;
  ip[AMK_SP_OH] = oh, ip[AMK_SP_OW] = ow;
  ip[AMK_SP_SH] = ip[AMK_SP_SW] = stride;
  ip[AMK_SP_PH] = ip[AMK_SP_PW] = pad;
  ip[AMK_SP_DH] = ip[AMK_SP_DW] = dil;
  ip[AMK_SP_GROUP] = 1, ip[AMK_SP_MODE] = act;
  return ip;
}

/// A convolution kernel of a test program: inputs X and R (the residual,
/// bound whether the kernel reads it or not), output Y, and the (packed)
/// weights and the bias as constants, the bias and residual passed to the
/// kernel only where asked for.
uint32_t addConvKernel(ProgramBuilder &b, amk_rt_kernel_kind kind,
                       uint32_t variant, std::vector<int64_t> xShape,
                       std::vector<int64_t> yShape, const std::vector<float> &w,
                       const std::vector<float> &bias, bool useBias,
                       bool useResidual, std::vector<int64_t> ip, float alpha,
                       float beta, const std::string &name) {
  uint32_t in = b.addIO(true, "X", AMK_RT_F32, std::move(xShape), 4);
  uint32_t res = b.addIO(true, "R", AMK_RT_F32, yShape, 4);
  uint32_t out = b.addIO(false, "Y", AMK_RT_F32, std::move(yShape), 4);
  uint32_t wb = b.addConstant(w.data(), w.size() * 4);
  uint32_t bb = b.addConstant(bias.data(), bias.size() * 4);
  return b.addKernel(kind, variant,
                     {in, wb, out, useBias ? bb : AMK_RT_NO_BUFFER,
                      useResidual ? res : AMK_RT_NO_BUFFER},
                     std::move(ip), {alpha, beta}, name);
}

/// The activations the convolution kernels fuse, in double, with their
/// parameters (Clip's bounds, HardSwish's alpha and beta).
double activate(double v, int64_t act, double alpha, double beta) {
  if (act == AMK_OP_CLIP)
    return std::min(std::max(v, alpha), beta);
  if (act == AMK_OP_RELU)
    return std::max(v, 0.0);
  if (act == AMK_OP_SIGMOID)
    return 1 / (1 + std::exp(-v));
  if (act == AMK_OP_HARD_SWISH)
    return v * std::min(std::max(v * alpha + beta, 0.0), 1.0);
  if (act == AMK_OP_QUICK_GELU)
    return v / (1 + std::exp(-alpha * v));
  return v;
}

/// The expected output of a convolution (NCHW, square k x k filter
/// [OC][C / group][k][k], begin padding `pad`, end padding implied by OH
/// and OW), in double: bias (if given), then the residual (if given, same
/// layout as the output), then the activation.
std::vector<double>
referenceConv(const std::vector<float> &X, int64_t n, int64_t C, int64_t H,
              int64_t W, const std::vector<float> &Wt, int64_t OC,
              int64_t group, int64_t k, int64_t stride, int64_t pad,
              int64_t dil, int64_t OH, int64_t OW, const float *bias,
              const float *res, int64_t act, double alpha, double beta) {
  const int64_t Cg = C / group, OCg = OC / group, P = OH * OW;
  std::vector<double> ref(n * OC * P);
  for (int64_t img = 0; img < n; ++img)
    for (int64_t o = 0; o < OC; ++o)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double acc = bias ? bias[o] : 0;
          for (int64_t i = 0; i < Cg; ++i)
            for (int64_t ky = 0; ky < k; ++ky)
              for (int64_t kx = 0; kx < k; ++kx) {
                int64_t iy = oy * stride - pad + ky * dil;
                int64_t ix = ox * stride - pad + kx * dil;
                int64_t ic = o / OCg * Cg + i;
                if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                  acc += (double)Wt[((o * Cg + i) * k + ky) * k + kx] *
                         X[((img * C + ic) * H + iy) * W + ix];
              }
          int64_t at = (img * OC + o) * P + oy * OW + ox;
          if (res)
            acc += res[at];
          ref[at] = activate(acc, act, alpha, beta);
        }
  return ref;
}

/// Depthwise convolution against a naive loop: the 3x3 stride 1/2 fast
/// path (odd widths for the partial last vector, fused Clip, a residual,
/// a HardSwish it does not fuse), the generic path (5x5, dilation 2) and
/// the flat 1x1 path.
TEST(Runtime, DepthwiseConvMatchesNaive) {
  struct Case {
    int64_t k, stride, dil, act;
    bool residual;
  };
  const Case cases[] = {{3, 1, 1, AMK_OP_CLIP, false},
                        {3, 2, 1, AMK_OP_CLIP, false},
                        {3, 1, 1, AMK_OP_RELU, true},
                        {3, 2, 1, AMK_OP_HARD_SWISH, false},
                        {5, 1, 2, AMK_OP_RELU, false},
                        // The filters without a 3x3 fast path: 4 output
                        // rows per step with a last partial step (OH 19
                        // and 10), strides 1 and 2.
                        {5, 1, 1, AMK_OP_QUICK_GELU, true},
                        {5, 2, 1, AMK_OP_SIGMOID, false},
                        {7, 2, 1, AMK_OP_NONE, false},
                        // 1x1 (inference BatchNormalization): one pass
                        // over the flat plane, a partial last vector.
                        {1, 1, 1, AMK_OP_RELU, true},
                        {1, 1, 1, AMK_OP_HARD_SWISH, false}};
  const int64_t C = 5, mult = 2;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1, 1);
  // 19x23 planes take the per-plane loops; 13x11 ones, one output channel
  // per input channel, the channel-blocked path (up to 20x20, any filter up
  // to 7x7).
  for (auto [H, W, m] : {std::array<int64_t, 3>{19, 23, mult},
                         std::array<int64_t, 3>{13, 11, 1}})
    for (const Case &c : cases) {
      const int64_t OC = C * m;
      int64_t pad = c.dil * (c.k - 1) / 2;
      int64_t OH = (H + 2 * pad - c.dil * (c.k - 1) - 1) / c.stride + 1;
      int64_t OW = (W + 2 * pad - c.dil * (c.k - 1) - 1) / c.stride + 1;
      std::vector<float> X(C * H * W), Wt(OC * c.k * c.k), bias(OC),
          R(OC * OH * OW);
      for (auto *v : {&X, &Wt, &bias, &R})
        for (float &f : *v)
          f = 3 * dist(rng);
      ProgramBuilder b(1);
      std::vector<int64_t> ip =
          convParams(1, C, H, W, OC, c.k, OH, OW, c.stride, pad, c.dil, c.act);
      ip[AMK_SP_GROUP] = C;
      float alpha = c.act == AMK_OP_CLIP         ? 0.f
                    : c.act == AMK_OP_QUICK_GELU ? 1.f
                                                 : 1.f / 6;
      float beta = c.act == AMK_OP_CLIP ? 6.f : 0.5f;
      uint32_t k =
          addConvKernel(b, AMK_RT_K_DWCONV, 0, {1, C, H, W}, {1, OC, OH, OW},
                        Wt, bias, true, c.residual, ip, alpha, beta, "dw");
      b.addTask(k, 0, {0, 3, 0, OH * OW}, {}, -1);
      b.addTask(k, 0, {3, OC, 0, OH * OW}, {}, -1);
      std::vector<float> Y(OC * OH * OW, NAN);
      ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data(), R.data()}, {Y.data()}));
      std::vector<double> ref = referenceConv(
          X, 1, C, H, W, Wt, OC, C, c.k, c.stride, pad, c.dil, OH, OW,
          bias.data(), c.residual ? R.data() : nullptr, c.act, alpha, beta);
      for (int64_t at = 0; at < OC * OH * OW; ++at)
        ASSERT_NEAR(Y[at], ref[at], 1e-4 * (1 + std::fabs(ref[at])))
            << "k " << c.k << " stride " << c.stride << " plane " << H << "x"
            << W << " at " << at;
    }
}

/// The channel-blocked depthwise path (one output channel per input
/// channel; 3x3 filters on planes up to 32x32, 5x5 and 7x7 up to 64x64)
/// against a naive loop: channel counts that leave a partial group of 16,
/// tasks that start mid-group and cross an image, strides 1 and 2 on odd
/// sizes, rows wider than 16, a residual, a fused Clip and a HardSwish
/// applied after the transpose. The output widths give the compiled row
/// loop every last chunk from 1 to 8 pixels.
TEST(Runtime, DepthwiseConvBlockedMatchesNaive) {
  struct Case {
    int64_t n, c, h, w, k, stride, pad, act;
    bool residual, bias;
  };
  const Case cases[] = {
      {1, 37, 14, 14, 3, 1, 1, AMK_OP_CLIP, false, true},
      {2, 21, 14, 14, 3, 2, 1, AMK_OP_RELU, false, true},
      {1, 16, 7, 7, 3, 1, 1, AMK_OP_NONE, true, false},
      {2, 19, 13, 20, 3, 2, 1, AMK_OP_HARD_SWISH, false, true},
      {1, 5, 9, 11, 3, 1, 0, AMK_OP_RELU, true, true},
      {1, 20, 30, 29, 3, 1, 1, AMK_OP_RELU, false, true},
      {1, 33, 7, 7, 5, 1, 2, AMK_OP_CLIP, false, true},
      {2, 18, 28, 28, 5, 2, 2, AMK_OP_NONE, true, true},
      {1, 17, 40, 43, 5, 1, 2, AMK_OP_RELU, false, false},
      {1, 16, 20, 13, 7, 1, 3, AMK_OP_HARD_SWISH, false, true},
      {1, 24, 19, 21, 7, 2, 3, AMK_OP_CLIP, true, true},
      {1, 16, 12, 10, 5, 1, 2, AMK_OP_NONE, false, true},
      {1, 16, 9, 9, 3, 1, 1, AMK_OP_NONE, false, true},
      {1, 16, 12, 12, 5, 1, 2, AMK_OP_RELU, false, true}};
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const Case &c : cases) {
    const int64_t OH = (c.h + 2 * c.pad - c.k) / c.stride + 1;
    const int64_t OW = (c.w + 2 * c.pad - c.k) / c.stride + 1, P = OH * OW;
    std::vector<float> X(c.n * c.c * c.h * c.w), Wt(c.c * c.k * c.k), bias(c.c),
        R(c.n * c.c * P);
    for (auto *v : {&X, &Wt, &bias, &R})
      for (float &f : *v)
        f = 3 * dist(rng);
    ProgramBuilder b(1);
    std::vector<int64_t> ip = convParams(c.n, c.c, c.h, c.w, c.c, c.k, OH, OW,
                                         c.stride, c.pad, 1, c.act);
    ip[AMK_SP_GROUP] = c.c;
    float alpha = c.act == AMK_OP_CLIP ? -0.5f : 1.f / 6;
    float beta = c.act == AMK_OP_CLIP ? 1.5f : 0.5f;
    uint32_t k = addConvKernel(b, AMK_RT_K_DWCONV, 0, {c.n, c.c, c.h, c.w},
                               {c.n, c.c, OH, OW}, Wt, bias, c.bias, c.residual,
                               ip, alpha, beta, "dw");
    const int64_t rows = c.n * c.c, cut = std::min<int64_t>(rows, 19);
    b.addTask(k, 0, {0, cut, 0, P}, {}, -1);
    if (cut < rows)
      b.addTask(k, 0, {cut, rows, 0, P}, {}, -1);
    std::vector<float> Y(rows * P, NAN);
    ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data(), R.data()}, {Y.data()}));
    std::vector<double> ref =
        referenceConv(X, c.n, c.c, c.h, c.w, Wt, c.c, c.c, c.k, c.stride, c.pad,
                      1, OH, OW, c.bias ? bias.data() : nullptr,
                      c.residual ? R.data() : nullptr, c.act, alpha, beta);
    for (int64_t at = 0; at < rows * P; ++at)
      ASSERT_NEAR(Y[at], ref[at], 1e-4 * (1 + std::fabs(ref[at])))
          << "c " << c.c << " " << c.h << "x" << c.w << " k " << c.k
          << " stride " << c.stride << " at " << at;
  }
}

/// The direct convolution (CONV variant 2) against a naive loop: 3x3,
/// 7x7 and 1x1 filters at strides 1 and 2, dilation, end padding smaller
/// or larger than the begin padding, channel counts that leave a partial
/// 32-channel block, rows wider than a register tile and rows narrow enough to
/// pair, tiles that start mid-block and mid-row, a residual, and activations it
/// applies in vectors (ReLU, Clip) and through the generic path.
TEST(Runtime, DirectConvMatchesNaive) {
  struct Case {
    int64_t c, oc, h, w, k, stride, dil, padBegin, padEnd, act;
    bool residual, bias;
  };
  const Case cases[] = {
      {5, 40, 19, 23, 3, 1, 1, 1, 1, AMK_OP_RELU, true, true},
      {6, 32, 13, 13, 3, 2, 1, 1, 1, AMK_OP_CLIP, false, true},
      {3, 32, 29, 29, 7, 2, 1, 3, 3, AMK_OP_SIGMOID, false, true},
      {7, 24, 9, 11, 1, 1, 1, 0, 0, AMK_OP_HARD_SWISH, true, true},
      {9, 48, 12, 12, 1, 2, 1, 0, 0, AMK_OP_NONE, false, false},
      {4, 33, 10, 10, 3, 1, 2, 2, 2, AMK_OP_RELU, true, true},
      {5, 16, 16, 16, 3, 2, 1, 1, 0, AMK_OP_NONE, false, true},
      // Only end padding (SAME_UPPER with an odd total): the last row and
      // column read zeros past the input.
      {3, 32, 16, 16, 3, 2, 1, 0, 1, AMK_OP_NONE, false, true}};
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const Case &c : cases) {
    int64_t span = c.dil * (c.k - 1) + 1;
    int64_t OH = (c.h + c.padBegin + c.padEnd - span) / c.stride + 1;
    int64_t OW = (c.w + c.padBegin + c.padEnd - span) / c.stride + 1;
    int64_t P = OH * OW, taps = c.k * c.k;
    std::vector<float> X(c.c * c.h * c.w), Wt(c.oc * c.c * taps), bias(c.oc),
        R(c.oc * P);
    for (auto *v : {&X, &Wt, &bias, &R})
      for (float &f : *v)
        f = 2 * dist(rng);
    // The packed layout the scheduler writes: [ceil(OC/32)][C][taps][32].
    const int64_t B = AMK_CONV_OC_BLOCK, blocks = (c.oc + B - 1) / B;
    std::vector<float> packed(blocks * c.c * taps * B, 0.f);
    for (int64_t o = 0; o < c.oc; ++o)
      for (int64_t i = 0; i < c.c * taps; ++i)
        packed[((o / B) * c.c * taps + i) * B + o % B] = Wt[o * c.c * taps + i];
    ProgramBuilder b(1);
    std::vector<int64_t> ip = convParams(1, c.c, c.h, c.w, c.oc, c.k, OH, OW,
                                         c.stride, c.padBegin, c.dil, c.act);
    float alpha = c.act == AMK_OP_CLIP ? -0.5f : 1.f / 6;
    float beta = c.act == AMK_OP_CLIP ? 0.75f : 0.5f;
    uint32_t k = addConvKernel(b, AMK_RT_K_CONV, 2, {1, c.c, c.h, c.w},
                               {1, c.oc, OH, OW}, packed, bias, c.bias,
                               c.residual, ip, alpha, beta, "direct");
    // Rows cut off a 32-channel block and columns cut mid-row, then whole
    // rows (where narrow rows pair up) for the rest.
    int64_t r0 = std::min<int64_t>(c.oc, 17), c0 = std::min<int64_t>(P, 5);
    int64_t c1 = std::min<int64_t>(P, 3 * OW);
    b.addTask(k, 0, {0, r0, 0, P}, {}, -1);
    b.addTask(k, 0, {r0, c.oc, 0, c0}, {}, -1);
    b.addTask(k, 0, {r0, c.oc, c0, c1}, {}, -1);
    if (c1 < P)
      b.addTask(k, 0, {r0, c.oc, c1, P}, {}, -1);
    std::vector<float> Y(c.oc * P, NAN);
    ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data(), R.data()}, {Y.data()}));
    std::vector<double> ref =
        referenceConv(X, 1, c.c, c.h, c.w, Wt, c.oc, 1, c.k, c.stride,
                      c.padBegin, c.dil, OH, OW, c.bias ? bias.data() : nullptr,
                      c.residual ? R.data() : nullptr, c.act, alpha, beta);
    for (int64_t at = 0; at < c.oc * P; ++at)
      ASSERT_NEAR(Y[at], ref[at], 1e-4 * (1 + std::fabs(ref[at])))
          << "k " << c.k << " stride " << c.stride << " oc " << c.oc << " at "
          << at;
  }
}

/// The Winograd convolution (CONV variant 3, F(2x2) and F(4x4)) against
/// a naive loop in double: channel counts that leave a partial 32-channel
/// block, planes that are not multiples of the tile (and rows of more than
/// 16 tiles), no padding and uneven padding, a batch of two whose row tiles
/// cross the image boundary, column tiles of whole tile rows, bias,
/// residual and activations. The bound is the issue's: 1e-4 of the
/// output's scale (its largest magnitude), also on adversarial inputs (a
/// large offset whose transforms cancel, and magnitudes spread over six
/// decades).
TEST(Runtime, WinogradConvMatchesNaive) {
  enum Dist { Uniform, Offset, Spread };
  struct Case {
    int m;
    int64_t n, c, oc, h, w, padBegin, padEnd, act;
    bool residual, bias;
    Dist dist;
  };
  const Case cases[] = {
      {4, 1, 5, 40, 19, 23, 1, 1, AMK_OP_RELU, true, true, Uniform},
      {2, 1, 5, 40, 19, 23, 1, 1, AMK_OP_CLIP, false, true, Uniform},
      {4, 2, 16, 32, 14, 14, 1, 1, AMK_OP_NONE, true, false, Uniform},
      {2, 2, 7, 33, 7, 7, 1, 1, AMK_OP_SIGMOID, false, true, Uniform},
      {4, 1, 3, 8, 9, 70, 0, 0, AMK_OP_NONE, false, true, Uniform},
      {2, 1, 3, 8, 9, 70, 0, 0, AMK_OP_RELU, true, true, Uniform},
      {4, 1, 6, 32, 10, 11, 2, 0, AMK_OP_NONE, false, true, Uniform},
      {4, 1, 64, 64, 16, 16, 1, 1, AMK_OP_NONE, false, true, Offset},
      {2, 1, 64, 64, 16, 16, 1, 1, AMK_OP_NONE, false, true, Offset},
      {4, 1, 64, 64, 16, 16, 1, 1, AMK_OP_NONE, false, false, Spread},
      {2, 1, 64, 64, 16, 16, 1, 1, AMK_OP_NONE, false, false, Spread}};
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const Case &c : cases) {
    const int64_t OH = c.h + c.padBegin + c.padEnd - 2;
    const int64_t OW = c.w + c.padBegin + c.padEnd - 2, P = OH * OW;
    std::vector<float> X(c.n * c.c * c.h * c.w), Wt(c.oc * c.c * 9), bias(c.oc),
        R(c.n * c.oc * P);
    for (auto *v : {&Wt, &bias, &R})
      for (float &f : *v)
        f = dist(rng);
    for (float &f : X)
      f = c.dist == Offset   ? 1000 + dist(rng)
          : c.dist == Spread ? dist(rng) * std::pow(10.f, 3 * dist(rng))
                             : dist(rng);
    std::vector<float> packed(
        amk::rt::winograd::transformedWeightFloats(c.m, c.oc, c.c));
    amk::rt::winograd::transformWeights(c.m, c.oc, c.c, Wt.data(),
                                        packed.data());
    ProgramBuilder b(1);
    std::vector<int64_t> ip =
        convParams(c.n, c.c, c.h, c.w, c.oc, 3, OH, OW, 1, c.padBegin, 1, c.act,
                   AMK_CONV_NUM_IPARAMS - AMK_SP_NUM_IPARAMS);
    ip[AMK_CONV_WINOGRAD_M] = c.m;
    float alpha = c.act == AMK_OP_CLIP ? -0.5f : 1.f / 6;
    float beta = c.act == AMK_OP_CLIP ? 0.75f : 0.5f;
    uint32_t k = addConvKernel(b, AMK_RT_K_CONV, 3, {c.n, c.c, c.h, c.w},
                               {c.n, c.oc, OH, OW}, packed, bias, c.bias,
                               c.residual, ip, alpha, beta, "winograd");
    // Rows cut off a 32-channel block (and, in a batch, across the image
    // boundary); columns in whole rows of output tiles.
    const int64_t rows = c.n * c.oc, r0 = std::min<int64_t>(rows, 17);
    const int64_t c1 = std::min<int64_t>(P, c.m * OW);
    b.addTask(k, 0, {0, r0, 0, P}, {}, -1);
    b.addTask(k, 0, {r0, rows, 0, c1}, {}, -1);
    if (c1 < P)
      b.addTask(k, 0, {r0, rows, c1, P}, {}, -1);
    std::vector<float> Y(rows * P, NAN);
    ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data(), R.data()}, {Y.data()}));
    std::vector<double> ref =
        referenceConv(X, c.n, c.c, c.h, c.w, Wt, c.oc, 1, 3, 1, c.padBegin, 1,
                      OH, OW, c.bias ? bias.data() : nullptr,
                      c.residual ? R.data() : nullptr, c.act, alpha, beta);
    double scale = 0;
    for (double v : ref)
      scale = std::max(scale, std::fabs(v));
    for (int64_t at = 0; at < rows * P; ++at)
      ASSERT_NEAR(Y[at], ref[at], 1e-4 * scale)
          << "m " << c.m << " c " << c.c << " oc " << c.oc << " " << c.h << "x"
          << c.w << " dist " << c.dist << " at " << at;
  }
}

/// The direct convolution refuses, when the session is created, a stride
/// it has no register tiles for.
/// The grouped convolution (CONV variant 4) against a naive loop in
/// double: group widths of 1 to 32 input and output channels (so every
/// register tile shape, 8/4/2/1 channels, runs, and uneven ones meet at a
/// group's end), strides 1 to 3 and unequal ones, dilation, begin-only and
/// end-only padding, a batch of two, row tiles that cut a group and cross
/// the image boundary, and column tiles that start and end mid-row.
TEST(Runtime, GroupedConvMatchesNaive) {
  struct Case {
    int64_t n, group, icg, ocg, h, w, kh, kw, sh, sw, dh, dw, ph, pw, oh, ow,
        act;
    bool residual, bias;
  };
  // oh/ow are the outputs for the begin pads given and end pads implied.
  const Case cases[] = {
      {1, 32, 4, 4, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 14, 14, AMK_OP_RELU, true,
       true},
      {2, 6, 8, 8, 17, 15, 3, 3, 2, 2, 1, 1, 1, 1, 9, 8, AMK_OP_NONE, false,
       true},
      {1, 3, 16, 16, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 7, 7, AMK_OP_SIGMOID, true,
       false},
      {1, 2, 32, 13, 9, 11, 3, 3, 1, 2, 2, 1, 2, 0, 9, 5, AMK_OP_CLIP, false,
       true},
      {2, 4, 3, 5, 10, 12, 5, 3, 3, 1, 1, 2, 0, 2, 2, 12, AMK_OP_HARD_SWISH,
       true, true},
      {1, 5, 1, 7, 6, 6, 1, 1, 1, 1, 1, 1, 0, 0, 6, 6, AMK_OP_NONE, false,
       false},
      // Only end padding: the last row and column read zeros.
      {1, 4, 4, 4, 8, 8, 3, 3, 2, 2, 1, 1, 0, 0, 4, 4, AMK_OP_RELU, false,
       true}};
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const Case &c : cases) {
    const int64_t C = c.group * c.icg, OC = c.group * c.ocg,
                  P = c.oh * c.ow, taps = c.kh * c.kw;
    std::vector<float> X(c.n * C * c.h * c.w), Wt(OC * c.icg * taps),
        bias(OC), R(c.n * OC * P);
    for (auto *v : {&X, &Wt, &bias, &R})
      for (float &f : *v)
        f = 2 * dist(rng);
    ProgramBuilder b(1);
    std::vector<int64_t> ip(AMK_SP_NUM_IPARAMS, 0);
    ip[AMK_SP_N] = c.n, ip[AMK_SP_C] = C, ip[AMK_SP_H] = c.h,
    ip[AMK_SP_W] = c.w, ip[AMK_SP_OC] = OC, ip[AMK_SP_KH] = c.kh,
    ip[AMK_SP_KW] = c.kw, ip[AMK_SP_OH] = c.oh, ip[AMK_SP_OW] = c.ow,
    ip[AMK_SP_SH] = c.sh, ip[AMK_SP_SW] = c.sw, ip[AMK_SP_PH] = c.ph,
    ip[AMK_SP_PW] = c.pw, ip[AMK_SP_DH] = c.dh, ip[AMK_SP_DW] = c.dw,
    ip[AMK_SP_GROUP] = c.group, ip[AMK_SP_MODE] = c.act;
    float alpha = c.act == AMK_OP_CLIP ? -0.5f : 1.f / 6;
    float beta = c.act == AMK_OP_CLIP ? 0.75f : 0.5f;
    // The packed layout the scheduler writes: [group][icg][taps][ocg].
    std::vector<float> packed(Wt.size());
    for (int64_t o = 0; o < OC; ++o)
      for (int64_t i = 0; i < c.icg * taps; ++i)
        packed[((o / c.ocg) * c.icg * taps + i) * c.ocg + o % c.ocg] =
            Wt[o * c.icg * taps + i];
    uint32_t k = addConvKernel(b, AMK_RT_K_CONV, 4, {c.n, C, c.h, c.w},
                               {c.n, OC, c.oh, c.ow}, packed, bias, c.bias,
                               c.residual, ip, alpha, beta, "grouped");
    // A row tile ending inside a group (and, with two images, one that
    // crosses into the second), the rest cut mid-row.
    const int64_t rows = c.n * OC, r0 = std::min<int64_t>(rows, OC / 2 + 3),
                  c0 = std::min<int64_t>(P, c.ow / 2 + 1);
    b.addTask(k, 0, {0, r0, 0, P}, {}, -1);
    if (r0 < rows) {
      b.addTask(k, 0, {r0, rows, 0, c0}, {}, -1);
      b.addTask(k, 0, {r0, rows, c0, P}, {}, -1);
    }
    std::vector<float> Y(c.n * OC * P, NAN);
    ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data(), R.data()}, {Y.data()}));
    for (int64_t img = 0; img < c.n; ++img)
      for (int64_t o = 0; o < OC; ++o)
        for (int64_t oy = 0; oy < c.oh; ++oy)
          for (int64_t ox = 0; ox < c.ow; ++ox) {
            double acc = c.bias ? bias[o] : 0;
            for (int64_t i = 0; i < c.icg; ++i)
              for (int64_t ky = 0; ky < c.kh; ++ky)
                for (int64_t kx = 0; kx < c.kw; ++kx) {
                  int64_t iy = oy * c.sh - c.ph + ky * c.dh,
                          ix = ox * c.sw - c.pw + kx * c.dw,
                          ic = o / c.ocg * c.icg + i;
                  if (iy >= 0 && iy < c.h && ix >= 0 && ix < c.w)
                    acc += (double)Wt[((o * c.icg + i) * c.kh + ky) * c.kw +
                                      kx] *
                           X[((img * C + ic) * c.h + iy) * c.w + ix];
                }
            const int64_t at = (img * OC + o) * P + oy * c.ow + ox;
            if (c.residual)
              acc += R[at];
            const double ref = activate(acc, c.act, alpha, beta);
            ASSERT_NEAR(Y[at], ref, 1e-4 * (1 + std::fabs(ref)))
                << "group " << c.group << " icg " << c.icg << " stride "
                << c.sh << "x" << c.sw << " image " << img << " channel " << o
                << " at " << oy << "," << ox;
          }
  }
}

TEST(Runtime, DirectConvRejectsStrideThree) {
  std::vector<float> Wt(32 * 9, 0.f);
  ProgramBuilder b(1);
  uint32_t in = b.addIO(true, "X", AMK_RT_F32, {1, 1, 9, 9}, 4);
  uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {1, 32, 3, 3}, 4);
  uint32_t wb = b.addConstant(Wt.data(), Wt.size() * 4);
  std::vector<int64_t> ip(AMK_SP_NUM_IPARAMS, 0);
  ip[AMK_SP_N] = 1, ip[AMK_SP_C] = 1, ip[AMK_SP_H] = ip[AMK_SP_W] = 9;
  ip[AMK_SP_OC] = 32, ip[AMK_SP_KH] = ip[AMK_SP_KW] = 3;
  ip[AMK_SP_OH] = ip[AMK_SP_OW] = 3, ip[AMK_SP_SH] = ip[AMK_SP_SW] = 3;
  ip[AMK_SP_DH] = ip[AMK_SP_DW] = 1, ip[AMK_SP_GROUP] = 1;
  uint32_t k = b.addKernel(AMK_RT_K_CONV, 2,
                           {in, wb, out, AMK_RT_NO_BUFFER, AMK_RT_NO_BUFFER},
                           ip, {0.f, 0.f}, "direct");
  b.addTask(k, 0, {0, 32, 0, 9}, {}, -1);
  Session s;
  ASSERT_NE(s.create(b.get()), AMK_RT_OK);
  EXPECT_NE(std::string(amk_rt_error_message(nullptr)).find("column stride"),
            std::string::npos)
      << amk_rt_error_message(nullptr);
}

} // namespace
