//===- RuntimeTest.cpp - The persistent-worker runtime ---------------------===//
//
// Part of AMK. Programs built by hand (runtime/support/ProgramBuilder.h)
// exercise the runtime without the compiler: dispatch chains across
// workers, kernels against naive loops, the watchdog, kernel faults and
// malformed programs. These tests link only the runtime, so they also run
// under ThreadSanitizer (scripts/tsan.sh).
//
//===----------------------------------------------------------------------===//

#include "amk/runtime.h"
#include "Kernels.h"
#include "ProgramBuilder.h"
#include "amk/kernel_params.h"
#include "amk/model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

using amk::rt::ProgramBuilder;

namespace {

struct Session {
  amk_rt_session *s = nullptr;
  int create(const amk_rt_program &p, amk_rt_options o = {}) {
    return amk_rt_session_create(&p, &o, &s);
  }
  ~Session() { amk_rt_session_destroy(s); }
  std::string error() const { return amk_rt_error_message(s); }
};

TEST(Runtime, NopChainAcrossTwoWorkers) {
  ProgramBuilder b(2);
  amk::rt::buildNopChain(b, 2, 10000);
  Session s;
  ASSERT_EQ(s.create(b.get()), AMK_RT_OK) << amk_rt_error_message(nullptr);
  // Counters are monotonic across runs: each run must still wait for its
  // own predecessors, never pass on a previous run's signals.
  for (int run = 0; run < 5; ++run)
    ASSERT_EQ(amk_rt_run(s.s, nullptr, nullptr), AMK_RT_OK) << s.error();
}

TEST(Runtime, SingleThreadExecutorRunsTheSameProgram) {
  ProgramBuilder b(2);
  amk::rt::buildNopChain(b, 2, 100);
  Session s;
  amk_rt_options o{};
  o.single_thread = 1;
  ASSERT_EQ(s.create(b.get(), o), AMK_RT_OK);
  for (int run = 0; run < 3; ++run)
    ASSERT_EQ(amk_rt_run(s.s, nullptr, nullptr), AMK_RT_OK) << s.error();
}

TEST(Runtime, SingleThreadExecutorRejectsAnOutOfOrderProgram) {
  // Task 0 waits for task 1, which comes after it in program order: the
  // threaded runtime would run it, but the program order is not valid.
  ProgramBuilder b(2);
  uint32_t k = b.addKernel(AMK_RT_K_NOP, 0, {}, {}, {}, "nop");
  uint32_t c0 = b.addCounter(), c1 = b.addCounter();
  b.addTask(k, 0, {0, 1, 0, 1}, {{c1, 1}}, c0);
  b.addTask(k, 1, {0, 1, 0, 1}, {}, c1);
  Session s;
  amk_rt_options o{};
  o.single_thread = 1;
  ASSERT_EQ(s.create(b.get(), o), AMK_RT_OK);
  EXPECT_EQ(amk_rt_run(s.s, nullptr, nullptr), AMK_RT_INVALID_PROGRAM);
  EXPECT_NE(s.error().find("task 0 waits for a counter not yet signalled"),
            std::string::npos)
      << s.error();
}

/// C = relu(A B + bias), A MxK, B KxN, split into row tiles over 2 workers
/// and a column split, checked against a double-precision loop.
/// Creates a session for the program and runs it once: `ins` and `outs`
/// in the program's input and output order.
void runProgram(ProgramBuilder &b, std::vector<const void *> ins,
                std::vector<void *> outs) {
  Session s;
  ASSERT_EQ(s.create(b.get()), AMK_RT_OK) << amk_rt_error_message(nullptr);
  ASSERT_EQ(amk_rt_run(s.s, ins.data(), outs.data()), AMK_RT_OK) << s.error();
}

TEST(Runtime, GemmTilesMatchNaive) {
  const int64_t M = 37, N = 70, K = 33;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> A(M * K), B(K * N), bias(N);
  for (float &v : A)
    v = dist(rng);
  for (float &v : B)
    v = dist(rng);
  for (float &v : bias)
    v = dist(rng);
  ProgramBuilder b(2);
  uint32_t in = b.addIO(true, "A", AMK_RT_F32, {M, K}, 4);
  uint32_t out = b.addIO(false, "C", AMK_RT_F32, {M, N}, 4);
  uint32_t wb = b.addConstant(B.data(), B.size() * 4);
  uint32_t bb = b.addConstant(bias.data(), bias.size() * 4);
  std::vector<int64_t> ip(AMK_GEMM_NUM_IPARAMS, 0);
  ip[AMK_GEMM_BATCH] = 1, ip[AMK_GEMM_M] = M, ip[AMK_GEMM_N] = N;
  ip[AMK_GEMM_K] = K, ip[AMK_GEMM_LDA] = K, ip[AMK_GEMM_LDB] = N;
  ip[AMK_GEMM_LDC] = N, ip[AMK_GEMM_BIAS_MODE] = 1;
  ip[AMK_GEMM_ACT] = AMK_OP_RELU;
  std::vector<float> fp(AMK_GEMM_NUM_FPARAMS, 0);
  fp[AMK_GEMM_ALPHA] = 1, fp[AMK_GEMM_BETA] = 1;
  uint32_t k = b.addKernel(AMK_RT_K_GEMM, 0,
                           {in, wb, out, bb, AMK_RT_NO_BUFFER}, ip, fp, "mm");
  b.addTask(k, 0, {0, 20, 0, N}, {}, -1);
  b.addTask(k, 1, {20, M, 0, 40}, {}, -1);
  b.addTask(k, 1, {20, M, 40, N}, {}, -1);
  std::vector<float> C(M * N, NAN);
  for (int single = 0; single < 2; ++single) {
    Session s;
    amk_rt_options o{};
    o.single_thread = single;
    ASSERT_EQ(s.create(b.get(), o), AMK_RT_OK)
        << amk_rt_error_message(nullptr);
    const void *ins[] = {A.data()};
    void *outs[] = {C.data()};
    ASSERT_EQ(amk_rt_run(s.s, ins, outs), AMK_RT_OK) << s.error();
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = bias[j];
        for (int64_t p = 0; p < K; ++p)
          acc += (double)A[i * K + p] * B[p * N + j];
        acc = std::max(acc, 0.0);
        ASSERT_NEAR(C[i * N + j], acc, 1e-5 * (1 + std::fabs(acc)))
            << "at " << i << "," << j << " single=" << single;
      }
  }
}

/// Depthwise convolution against a naive loop: the 3x3 stride 1/2 fast
/// path (odd widths for the partial last vector, fused Clip, a residual,
/// a HardSwish it does not fuse) and the generic path (5x5, dilation 2).
TEST(Runtime, DepthwiseConvMatchesNaive) {
  struct Case {
    int64_t k, stride, dil, act;
    bool residual;
  };
  const Case cases[] = {{3, 1, 1, AMK_OP_CLIP, false},
                        {3, 2, 1, AMK_OP_CLIP, false},
                        {3, 1, 1, AMK_OP_RELU, true},
                        {3, 2, 1, AMK_OP_HARD_SWISH, false},
                        {5, 1, 2, AMK_OP_RELU, false}};
  const int64_t C = 5, H = 19, W = 23, mult = 2, OC = C * mult;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const Case &c : cases) {
    int64_t pad = c.dil * (c.k - 1) / 2;
    int64_t OH = (H + 2 * pad - c.dil * (c.k - 1) - 1) / c.stride + 1;
    int64_t OW = (W + 2 * pad - c.dil * (c.k - 1) - 1) / c.stride + 1;
    std::vector<float> X(C * H * W), Wt(OC * c.k * c.k), bias(OC),
        R(OC * OH * OW);
    for (auto *v : {&X, &Wt, &bias, &R})
      for (float &f : *v)
        f = 3 * dist(rng);
    ProgramBuilder b(1);
    uint32_t in = b.addIO(true, "X", AMK_RT_F32, {1, C, H, W}, 4);
    uint32_t res = b.addIO(true, "R", AMK_RT_F32, {1, OC, OH, OW}, 4);
    uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {1, OC, OH, OW}, 4);
    uint32_t wb = b.addConstant(Wt.data(), Wt.size() * 4);
    uint32_t bb = b.addConstant(bias.data(), bias.size() * 4);
    std::vector<int64_t> ip(AMK_SP_NUM_IPARAMS, 0);
    ip[AMK_SP_N] = 1, ip[AMK_SP_C] = C, ip[AMK_SP_H] = H, ip[AMK_SP_W] = W;
    ip[AMK_SP_OC] = OC, ip[AMK_SP_KH] = ip[AMK_SP_KW] = c.k;
    ip[AMK_SP_OH] = OH, ip[AMK_SP_OW] = OW;
    ip[AMK_SP_SH] = ip[AMK_SP_SW] = c.stride;
    ip[AMK_SP_PH] = ip[AMK_SP_PW] = pad;
    ip[AMK_SP_DH] = ip[AMK_SP_DW] = c.dil;
    ip[AMK_SP_GROUP] = C, ip[AMK_SP_MODE] = c.act;
    float alpha = c.act == AMK_OP_CLIP ? 0.f : 1.f / 6;
    float beta = c.act == AMK_OP_CLIP ? 6.f : 0.5f;
    uint32_t k =
        b.addKernel(AMK_RT_K_DWCONV, 0,
                    {in, wb, out, bb, c.residual ? res : AMK_RT_NO_BUFFER}, ip,
                    {alpha, beta}, "dw");
    b.addTask(k, 0, {0, 3, 0, OH * OW}, {}, -1);
    b.addTask(k, 0, {3, OC, 0, OH * OW}, {}, -1);
    std::vector<float> Y(OC * OH * OW, NAN);
    ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data(), R.data()}, {Y.data()}));
    for (int64_t o = 0; o < OC; ++o)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double acc = bias[o];
          for (int64_t ky = 0; ky < c.k; ++ky)
            for (int64_t kx = 0; kx < c.k; ++kx) {
              int64_t iy = oy * c.stride - pad + ky * c.dil;
              int64_t ix = ox * c.stride - pad + kx * c.dil;
              if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                acc += (double)Wt[(o * c.k + ky) * c.k + kx] *
                       X[((o / mult) * H + iy) * W + ix];
            }
          int64_t at = (o * OH + oy) * OW + ox;
          if (c.residual)
            acc += R[at];
          if (c.act == AMK_OP_CLIP)
            acc = std::min(std::max(acc, 0.0), 6.0);
          else if (c.act == AMK_OP_RELU)
            acc = std::max(acc, 0.0);
          else if (c.act == AMK_OP_HARD_SWISH)
            acc = acc * std::min(std::max(acc * alpha + beta, 0.0), 1.0);
          ASSERT_NEAR(Y[at], acc, 1e-4 * (1 + std::fabs(acc)))
              << "k " << c.k << " stride " << c.stride << " at " << o << ","
              << oy << "," << ox;
        }
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
    uint32_t in = b.addIO(true, "X", AMK_RT_F32, {1, c.c, c.h, c.w}, 4);
    uint32_t res = b.addIO(true, "R", AMK_RT_F32, {1, c.oc, OH, OW}, 4);
    uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {1, c.oc, OH, OW}, 4);
    uint32_t wb = b.addConstant(packed.data(), packed.size() * 4);
    uint32_t bb = b.addConstant(bias.data(), bias.size() * 4);
    std::vector<int64_t> ip(AMK_SP_NUM_IPARAMS, 0);
    ip[AMK_SP_N] = 1, ip[AMK_SP_C] = c.c, ip[AMK_SP_H] = c.h;
    ip[AMK_SP_W] = c.w, ip[AMK_SP_OC] = c.oc;
    ip[AMK_SP_KH] = ip[AMK_SP_KW] = c.k;
    ip[AMK_SP_OH] = OH, ip[AMK_SP_OW] = OW;
    ip[AMK_SP_SH] = ip[AMK_SP_SW] = c.stride;
    ip[AMK_SP_PH] = ip[AMK_SP_PW] = c.padBegin;
    ip[AMK_SP_DH] = ip[AMK_SP_DW] = c.dil;
    ip[AMK_SP_GROUP] = 1, ip[AMK_SP_MODE] = c.act;
    float alpha = c.act == AMK_OP_CLIP ? -0.5f : 1.f / 6;
    float beta = c.act == AMK_OP_CLIP ? 0.75f : 0.5f;
    uint32_t k = b.addKernel(AMK_RT_K_CONV, 2,
                             {in, wb, out, c.bias ? bb : AMK_RT_NO_BUFFER,
                              c.residual ? res : AMK_RT_NO_BUFFER},
                             ip, {alpha, beta}, "direct");
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
    for (int64_t o = 0; o < c.oc; ++o)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double acc = c.bias ? bias[o] : 0;
          for (int64_t ic = 0; ic < c.c; ++ic)
            for (int64_t ky = 0; ky < c.k; ++ky)
              for (int64_t kx = 0; kx < c.k; ++kx) {
                int64_t iy = oy * c.stride - c.padBegin + ky * c.dil;
                int64_t ix = ox * c.stride - c.padBegin + kx * c.dil;
                if (iy >= 0 && iy < c.h && ix >= 0 && ix < c.w)
                  acc += (double)Wt[((o * c.c + ic) * c.k + ky) * c.k + kx] *
                         X[(ic * c.h + iy) * c.w + ix];
              }
          int64_t at = o * P + oy * OW + ox;
          if (c.residual)
            acc += R[at];
          if (c.act == AMK_OP_CLIP)
            acc = std::min(std::max(acc, (double)alpha), (double)beta);
          else if (c.act == AMK_OP_RELU)
            acc = std::max(acc, 0.0);
          else if (c.act == AMK_OP_SIGMOID)
            acc = 1 / (1 + std::exp(-acc));
          else if (c.act == AMK_OP_HARD_SWISH)
            acc = acc * std::min(std::max(acc * alpha + beta, 0.0), 1.0);
          ASSERT_NEAR(Y[at], acc, 1e-4 * (1 + std::fabs(acc)))
              << "k " << c.k << " stride " << c.stride << " oc " << c.oc
              << " at " << o << "," << oy << "," << ox;
        }
  }
}

/// The direct convolution refuses, when the session is created, a stride
/// it has no register tiles for.
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

/// A copy that swaps the last two axes moves 16 x 16 blocks through
/// registers: odd sizes (partial row groups, a column tail) and tiles that
/// start inside a group against the plain index arithmetic.
TEST(Runtime, TransposeCopyMatchesNaive) {
  const int64_t A = 3, R = 37, C = 50; // Y[a][r][c] = X[a][c][r]
  std::vector<float> X(A * C * R);
  for (size_t i = 0; i < X.size(); ++i)
    X[i] = (float)i;
  ProgramBuilder b(1);
  uint32_t in = b.addIO(true, "X", AMK_RT_F32, {A, C, R}, 4);
  uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {A, R, C}, 4);
  // eb, rank, offsets, dims, source strides, destination strides.
  std::vector<int64_t> ip = {4, 3, 0, 0, A, R, C, C * R, 1, R, R * C, C, 1};
  uint32_t k = b.addKernel(AMK_RT_K_COPY, 0, {in, out}, ip, {}, "transpose");
  b.addTask(k, 0, {0, 5, 0, 1}, {}, -1);
  b.addTask(k, 0, {5, 60, 0, 1}, {}, -1);
  b.addTask(k, 0, {60, A * R, 0, 1}, {}, -1);
  std::vector<float> Y(A * R * C, NAN);
  ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data()}, {Y.data()}));
  for (int64_t a = 0; a < A; ++a)
    for (int64_t r = 0; r < R; ++r)
      for (int64_t c = 0; c < C; ++c)
        ASSERT_EQ(Y[(a * R + r) * C + c], X[(a * C + c) * R + r])
            << a << "," << r << "," << c;
}

/// The vectorized activations against the C library's functions, over a
/// range that reaches their clamps, with a length that leaves a tail, and
/// at infinities and NaN: a NaN stays NaN, and nothing is subnormal.
TEST(Runtime, VectorActivationsMatchLibm) {
  std::vector<float> in = {
      0.f,  -0.f,  1e-30f, -1e-30f, 0.01f,    -0.01f,    0.1f,  -0.1f, 1.f,
      -1.f, 3.f,   -3.f,   9.f,     -9.f,     20.f,      -20.f, 45.f,  -45.f,
      88.f, -88.f, 100.f,  -100.f,  INFINITY, -INFINITY, NAN};
  for (int i = 0; i < 300; ++i)
    in.push_back(-15.f + 0.1f * i);
  struct Case {
    int op;
    double (*f)(double);
  };
  const Case cases[] = {
      {AMK_OP_GELU,
       [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }},
      {AMK_OP_GELU_TANH,
       [](double v) {
         return 0.5 * v *
                (1 + std::tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
       }},
      {AMK_OP_SIGMOID, [](double v) { return 1 / (1 + std::exp(-v)); }},
      {AMK_OP_TANH, [](double v) { return std::tanh(v); }},
      {AMK_OP_QUICK_GELU,
       [](double v) { return v / (1 + std::exp(-1.702 * v)); }},
      {AMK_OP_EXP, [](double v) { return std::exp(v); }},
      {AMK_OP_ERF, [](double v) { return std::erf(v); }}};
  for (const Case &c : cases) {
    std::vector<float> x = in;
    amk::rt::applyActivation(x.data(), (int64_t)x.size(), c.op, 1.702f, 0.f);
    for (size_t i = 0; i < in.size(); ++i) {
      double want = c.f(in[i]);
      float got = x[i];
      if (std::isnan(in[i]) || std::isnan(want)) {
        // NaN in, or an indeterminate form (-inf * 0 in GELU's formula).
        EXPECT_TRUE(std::isnan(got)) << "op " << c.op << " at " << in[i];
        continue;
      }
      EXPECT_FALSE(std::fpclassify(got) == FP_SUBNORMAL)
          << "op " << c.op << " at " << in[i];
      if (std::isinf(want) || std::fabs(want) > 1e37) {
        // exp clamps at 88.3: a huge finite value or infinity.
        EXPECT_GT(std::fabs(got), 1e37) << "op " << c.op << " at " << in[i];
        continue;
      }
      EXPECT_NEAR(got, want, 2e-6 + 2e-6 * std::fabs(want))
          << "op " << c.op << " at " << in[i];
    }
  }
}

/// Layer and RMS normalization against a naive loop, for row lengths
/// that are and are not multiples of the kernel's 16 lanes, and softmax
/// rows of an odd length.
TEST(Runtime, NormalizationAndSoftmaxRowsMatchNaive) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-3, 3);
  for (int64_t cols : {7, 37, 64, 200}) {
    for (int rms = 0; rms < 2; ++rms) {
      const int64_t rows = 3;
      std::vector<float> X(rows * cols), scale(cols), bias(cols);
      for (auto *v : {&X, &scale, &bias})
        for (float &f : *v)
          f = dist(rng) + (v == &X ? 5.f : 0.f); // An offset mean.
      ProgramBuilder b(1);
      uint32_t in = b.addIO(true, "X", AMK_RT_F32, {rows, cols}, 4);
      uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {rows, cols}, 4);
      uint32_t sb = b.addConstant(scale.data(), cols * 4);
      uint32_t bb = b.addConstant(bias.data(), cols * 4);
      std::vector<int64_t> ip(AMK_LN_NUM_IPARAMS, 0);
      ip[AMK_LN_ROWS] = rows, ip[AMK_LN_COLS] = cols, ip[AMK_LN_RMS] = rms;
      uint32_t k = b.addKernel(AMK_RT_K_LAYERNORM, 0, {in, out, sb, bb}, ip,
                               {1e-5f}, "ln");
      b.addTask(k, 0, {0, rows, 0, 1}, {}, -1);
      std::vector<float> Y(rows * cols, NAN);
      ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data()}, {Y.data()}));
      for (int64_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        if (!rms) {
          for (int64_t i = 0; i < cols; ++i)
            mean += X[r * cols + i];
          mean /= cols;
        }
        for (int64_t i = 0; i < cols; ++i)
          var += (X[r * cols + i] - mean) * (X[r * cols + i] - mean);
        var /= cols;
        for (int64_t i = 0; i < cols; ++i) {
          double want =
              (X[r * cols + i] - mean) / std::sqrt(var + 1e-5) * scale[i] +
              bias[i];
          ASSERT_NEAR(Y[r * cols + i], want, 1e-4 * (1 + std::fabs(want)))
              << "cols " << cols << " rms " << rms << " at " << r << "," << i;
        }
      }
    }
    // Softmax over the same lengths.
    std::vector<float> X(cols), Y(cols, NAN);
    for (float &f : X)
      f = dist(rng);
    ProgramBuilder b(1);
    uint32_t in = b.addIO(true, "X", AMK_RT_F32, {1, cols}, 4);
    uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {1, cols}, 4);
    std::vector<int64_t> ip(AMK_SOFTMAX_NUM_IPARAMS, 0);
    ip[AMK_SOFTMAX_OUTER] = 1, ip[AMK_SOFTMAX_AXIS] = cols;
    ip[AMK_SOFTMAX_INNER] = 1;
    uint32_t k = b.addKernel(AMK_RT_K_SOFTMAX, 0, {in, out}, ip, {}, "sm");
    b.addTask(k, 0, {0, 1, 0, 1}, {}, -1);
    ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data()}, {Y.data()}));
    double m = *std::max_element(X.begin(), X.end()), sum = 0;
    for (float v : X)
      sum += std::exp(v - m);
    for (int64_t i = 0; i < cols; ++i)
      ASSERT_NEAR(Y[i], std::exp(X[i] - m) / sum, 1e-6) << cols << "," << i;
  }
}

/// Softmax over rows with masked positions (-10000, as attention masks
/// add) and a wide range: the probabilities match exp/sum and none is
/// subnormal (a subnormal probability slows the next GEMM by 10-40x on
/// x86; such a term is below n * FLT_MIN and is 0 instead).
TEST(Runtime, SoftmaxMatchesExpAndHasNoSubnormals) {
  const int64_t rows = 4, n = 128;
  std::vector<float> X(rows * n);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < n; ++i)
      X[r * n + i] = i < n / 2 ? 0.25f * (float)(i % 7) - 0.1f * (float)r
                               : -10000.f + (float)(r * 20 + i) * 0.5f;
  X[n + 3] = -70.f; // exp(-70) / sum is tiny but normal: kept.
  ProgramBuilder b(1);
  uint32_t in = b.addIO(true, "X", AMK_RT_F32, {rows, n}, 4);
  uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {rows, n}, 4);
  std::vector<int64_t> ip(AMK_SOFTMAX_NUM_IPARAMS, 0);
  ip[AMK_SOFTMAX_OUTER] = rows, ip[AMK_SOFTMAX_AXIS] = n;
  ip[AMK_SOFTMAX_INNER] = 1;
  uint32_t k = b.addKernel(AMK_RT_K_SOFTMAX, 0, {in, out}, ip, {}, "sm");
  b.addTask(k, 0, {0, rows, 0, 1}, {}, -1);
  std::vector<float> Y(rows * n, NAN);
  ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data()}, {Y.data()}));
  for (int64_t r = 0; r < rows; ++r) {
    double m = -INFINITY, sum = 0, total = 0;
    for (int64_t i = 0; i < n; ++i)
      m = std::max(m, (double)X[r * n + i]);
    for (int64_t i = 0; i < n; ++i)
      sum += std::exp((double)X[r * n + i] - m);
    for (int64_t i = 0; i < n; ++i) {
      float y = Y[r * n + i];
      EXPECT_NE(std::fpclassify(y), FP_SUBNORMAL) << r << "," << i;
      double want = std::exp((double)X[r * n + i] - m) / sum;
      EXPECT_NEAR(y, want, 1e-6 * want + 1e-37) << r << "," << i;
      total += y;
    }
    EXPECT_NEAR(total, 1.0, 1e-5);
  }
  EXPECT_GT(Y[n + 3], 0.f);
}

/// The ELEMENTWISE kernel runs its compiled code when the program has
/// some (the LLVM lowering's), each task on exactly its own element range,
/// and interprets its iparams otherwise.
std::atomic<int64_t> ewCalls{0}, ewElements{0};
void fakeCompiledElementwise(float *y, const void *const *inputs,
                             int64_t begin, int64_t end) {
  const float *x = static_cast<const float *>(inputs[0]);
  for (int64_t i = begin; i < end; ++i)
    y[i] = 1000 + x[i];
  ewCalls += 1;
  ewElements += end - begin;
}

TEST(Runtime, ElementwiseRunsCompiledCodeWhenGiven) {
  const int64_t n = 10;
  std::vector<float> x(n), y(n, NAN);
  for (int64_t i = 0; i < n; ++i)
    x[i] = float(i) * 0.5f;
  for (bool compiled : {false, true}) {
    ProgramBuilder b(2);
    uint32_t in = b.addIO(true, "x", AMK_RT_F32, {n}, 4);
    uint32_t out = b.addIO(false, "y", AMK_RT_F32, {n}, 4);
    // rank 1, dims {n}, one float32 input with stride 1, no instruction,
    // result in register 0: y = x when interpreted.
    std::vector<int64_t> ip = {1, n, 1, AMK_RT_F32, 1, 0, 0};
    uint32_t k = b.addKernel(AMK_RT_K_ELEMENTWISE, 0, {out, in}, ip, {}, "ew");
    if (compiled)
      b.setElementwiseFn(k, fakeCompiledElementwise);
    b.addTask(k, 0, {0, 4, 0, 1}, {}, -1);
    b.addTask(k, 1, {4, n, 0, 1}, {}, -1);
    ewCalls = 0, ewElements = 0;
    Session s;
    ASSERT_EQ(s.create(b.get()), AMK_RT_OK) << amk_rt_error_message(nullptr);
    const void *ins[] = {x.data()};
    void *outs[] = {y.data()};
    ASSERT_EQ(amk_rt_run(s.s, ins, outs), AMK_RT_OK) << s.error();
    EXPECT_EQ(ewCalls.load(), compiled ? 2 : 0);
    EXPECT_EQ(ewElements.load(), compiled ? n : 0);
    for (int64_t i = 0; i < n; ++i)
      EXPECT_EQ(y[i], (compiled ? 1000 : 0) + x[i]) << "at " << i;
  }
}

/// Data handed from worker to worker: stage i copies region i-1 into
/// region i on alternating workers, each waiting for the previous stage.
/// The output must equal the input, and under ThreadSanitizer
/// (scripts/tsan.sh) the counters' release/acquire must order every copy.
TEST(Runtime, CopyChainHandsDataAcrossWorkers) {
  const int64_t n = 64, stages = 200;
  ProgramBuilder b(2);
  uint32_t in = b.addIO(true, "x", AMK_RT_F32, {n}, 4);
  uint32_t out = b.addIO(false, "y", AMK_RT_F32, {n}, 4);
  std::vector<uint32_t> regions;
  for (int64_t i = 0; i < stages; ++i)
    regions.push_back(b.addBuffer(AMK_RT_ARENA, n * 4, i * n * 4));
  uint32_t counters[2] = {b.addCounter(), b.addCounter()};
  for (int64_t i = 0; i <= stages; ++i) {
    uint32_t src = i == 0 ? in : regions[i - 1];
    uint32_t dst = i == stages ? out : regions[i];
    uint32_t k = b.addKernel(AMK_RT_K_COPY, 0, {src, dst},
                             {4, 1, 0, 0, n, 1, 1}, {},
                             "copy" + std::to_string(i));
    uint32_t w = i % 2, prev = 1 - w;
    std::vector<amk_rt_wait> waits;
    if (i > 0)
      waits.push_back({counters[prev], b.signalsSoFar(counters[prev])});
    b.addTask(k, w, {0, 1, 0, 1}, waits, counters[w]);
  }
  Session s;
  ASSERT_EQ(s.create(b.get()), AMK_RT_OK) << amk_rt_error_message(nullptr);
  for (int run = 0; run < 20; ++run) {
    std::vector<float> x(n), y(n, -1.f);
    for (int64_t i = 0; i < n; ++i)
      x[i] = run * 1000 + i;
    const void *ins[] = {x.data()};
    void *outs[] = {y.data()};
    ASSERT_EQ(amk_rt_run(s.s, ins, outs), AMK_RT_OK) << s.error();
    ASSERT_EQ(x, y) << "run " << run;
  }
}

/// Worker 1 stalls on purpose: the watchdog must stop the run with a
/// report naming the stalled task and the counters, and the session must
/// run again normally once the stall is lifted.
TEST(Runtime, WatchdogReportsAStalledWorker) {
  ProgramBuilder b(2);
  amk::rt::buildNopChain(b, 2, 6);
  Session s;
  amk_rt_options o{};
  o.hang_timeout_s = 0.3;
  ASSERT_EQ(s.create(b.get(), o), AMK_RT_OK);
  amk_rt_test_stall_task(s.s, 3);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(amk_rt_run(s.s, nullptr, nullptr), AMK_RT_HANG);
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  EXPECT_LT(seconds, 10.0);
  std::string e = s.error();
  EXPECT_NE(e.find("no progress for 0.3 s"), std::string::npos) << e;
  EXPECT_NE(e.find("worker 1: task 3 (nop of 'nop') running"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("worker 0: task 4 (nop of 'nop') waiting for counter 1"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("counters: c0=2 c1=1"), std::string::npos) << e;
  amk_rt_test_stall_task(s.s, -1);
  EXPECT_EQ(amk_rt_run(s.s, nullptr, nullptr), AMK_RT_OK) << s.error();
}

/// A Gather with an index out of range on worker 1, and worker 0 waiting
/// on a counter that worker 1 would signal after it: the fault must end
/// the run for both, long before the hang timeout.
TEST(Runtime, KernelErrorStopsEveryWorker) {
  ProgramBuilder b(2);
  std::vector<float> data(4 * 3);
  std::vector<int64_t> idx = {1, 7};
  uint32_t db = b.addConstant(data.data(), data.size() * 4);
  uint32_t ib = b.addConstant(idx.data(), idx.size() * 8);
  uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {2, 3}, 4);
  std::vector<int64_t> ip(AMK_GATHER_NUM_IPARAMS, 0);
  ip[AMK_GATHER_OUTER] = 1, ip[AMK_GATHER_AXIS] = 4, ip[AMK_GATHER_INNER] = 3;
  ip[AMK_GATHER_NIDX] = 2, ip[AMK_GATHER_ELEM_BYTES] = 4;
  ip[AMK_GATHER_IDX_DTYPE] = AMK_RT_I64;
  uint32_t g = b.addKernel(AMK_RT_K_GATHER, 0, {db, ib, out}, ip, {}, "gath");
  uint32_t nop = b.addKernel(AMK_RT_K_NOP, 0, {}, {}, {}, "nop");
  uint32_t c1 = b.addCounter();
  b.addTask(g, 1, {0, 2, 0, 1}, {}, c1);
  b.addTask(nop, 0, {0, 1, 0, 1}, {{c1, 1}}, -1);
  Session s;
  amk_rt_options o{};
  o.hang_timeout_s = 60;
  ASSERT_EQ(s.create(b.get(), o), AMK_RT_OK) << amk_rt_error_message(nullptr);
  std::vector<float> y(6);
  void *outs[] = {y.data()};
  for (int run = 0; run < 2; ++run) {
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(amk_rt_run(s.s, nullptr, outs), AMK_RT_KERNEL_ERROR);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    EXPECT_LT(seconds, 5.0);
    EXPECT_EQ(s.error(), "task 0 (gather of 'gath'): Gather index 7 is out "
                         "of range [0, 4)");
  }
}

TEST(Runtime, RejectsMalformedPrograms) {
  {
    ProgramBuilder b(2);
    uint32_t k = b.addKernel(AMK_RT_K_NOP, 0, {}, {}, {}, "nop");
    uint32_t c = b.addCounter();
    b.addTask(k, 0, {0, 1, 0, 1}, {{c, 2}}, -1);
    b.addTask(k, 1, {0, 1, 0, 1}, {}, c);
    Session s;
    EXPECT_EQ(s.create(b.get()), AMK_RT_INVALID_PROGRAM);
    EXPECT_STREQ(amk_rt_error_message(nullptr),
                 "invalid task program: task 0 waits for a counter value no "
                 "run reaches");
  }
  {
    ProgramBuilder b(1);
    b.addBuffer(AMK_RT_CONST, 64, 0);
    Session s;
    EXPECT_EQ(s.create(b.get()), AMK_RT_INVALID_PROGRAM);
    EXPECT_STREQ(amk_rt_error_message(nullptr),
                 "invalid task program: buffer 0 lies outside its region");
  }
  {
    ProgramBuilder b(1);
    amk_rt_program p = b.get();
    p.abi_version = AMK_RT_ABI_VERSION + 1;
    amk_rt_session *s = nullptr;
    EXPECT_EQ(amk_rt_session_create(&p, nullptr, &s), AMK_RT_INVALID_PROGRAM);
    EXPECT_EQ(s, nullptr);
    EXPECT_NE(std::string(amk_rt_error_message(nullptr))
                  .find("runtime ABI version"),
              std::string::npos);
  }
  {
    ProgramBuilder b(1);
    b.addKernel(AMK_RT_K_GEMM, 0, {}, {1, 2}, {}, "short");
    Session s;
    EXPECT_EQ(s.create(b.get()), AMK_RT_INVALID_PROGRAM);
    EXPECT_NE(std::string(amk_rt_error_message(nullptr))
                  .find("kernel 'short' has 2 iparams"),
              std::string::npos)
        << amk_rt_error_message(nullptr);
  }
}

TEST(Runtime, MissingBuffersAreArgumentErrors) {
  ProgramBuilder b(1);
  b.addIO(true, "x", AMK_RT_F32, {4}, 4);
  Session s;
  ASSERT_EQ(s.create(b.get()), AMK_RT_OK);
  const void *ins[] = {nullptr};
  EXPECT_EQ(amk_rt_run(s.s, ins, nullptr), AMK_RT_INVALID_ARGUMENT);
  EXPECT_EQ(s.error(), "input 0 ('x') has no buffer");
}

TEST(Runtime, TraceHasOneEventPerTaskAndWaitSpans) {
  ProgramBuilder b(2);
  amk::rt::buildNopChain(b, 2, 50);
  Session s;
  amk_rt_options o{};
  o.trace = 1;
  ASSERT_EQ(s.create(b.get(), o), AMK_RT_OK);
  ASSERT_EQ(amk_rt_run(s.s, nullptr, nullptr), AMK_RT_OK);
  std::string path = ::testing::TempDir() + "/amk-rt-trace.json";
  ASSERT_EQ(amk_rt_write_trace(s.s, path.c_str()), AMK_RT_OK);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  size_t tasks = 0;
  for (size_t p = text.find("\"cat\":\"nop\""); p != std::string::npos;
       p = text.find("\"cat\":\"nop\"", p + 1))
    ++tasks;
  EXPECT_EQ(tasks, 50u) << text.substr(0, 400);
  EXPECT_EQ(text.front(), '{');
  std::remove(path.c_str());
}

} // namespace

/// The C API of compiled models (amk/model.h) over a hand-built program: the
/// interface, runs with caller-owned buffers, the version checks between
/// header, library and runtime, the threads option and traces.
TEST(ModelApi, ChecksVersionsAndRuns) {
  const int64_t n = 16;
  ProgramBuilder b(2);
  uint32_t in = b.addIO(true, "x", AMK_RT_F32, {2, 8}, 4);
  uint32_t out = b.addIO(false, "y", AMK_RT_F32, {2, 8}, 4);
  uint32_t c = b.addCounter();
  uint32_t k = b.addKernel(AMK_RT_K_COPY, 0, {in, out}, {4, 1, 0, 0, n, 1, 1},
                           {}, "copy");
  b.addTask(k, 0, {0, 1, 0, 1}, {}, c);
  b.addTask(b.addKernel(AMK_RT_K_NOP, 0, {}, {}, {}, "nop"), 1, {0, 1, 0, 1},
            {{c, 1}}, -1);
  amk_model model{AMK_MODEL_API_VERSION, 0, 0x1234, "net", "my pipeline",
                  &b.get()};

  EXPECT_EQ(amk_model_num_inputs(&model), 1u);
  EXPECT_EQ(amk_model_num_outputs(&model), 1u);
  EXPECT_STREQ(amk_model_name(&model), "net");
  EXPECT_STREQ(amk_model_pipeline(&model), "my pipeline");
  EXPECT_EQ(amk_model_workers(&model), 2u);
  amk_tensor_info info;
  ASSERT_EQ(amk_model_input(&model, 0, &info), AMK_OK);
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.dtype, AMK_DTYPE_FLOAT32);
  ASSERT_EQ(info.rank, 2u);
  EXPECT_EQ(info.dims[1], 8);
  EXPECT_EQ(info.bytes, 64u);
  EXPECT_EQ(amk_model_output(&model, 1, &info), AMK_ERROR_INVALID_ARGUMENT);

  amk_session *s = nullptr;
  // A header of another API version, another build of the model, or a
  // library compiled by another AMK: refused, naming both sides.
  EXPECT_EQ(amk_session_create(&model, AMK_MODEL_API_VERSION + 1, 0x1234,
                               nullptr, &s),
            AMK_ERROR_VERSION_MISMATCH);
  EXPECT_EQ(s, nullptr);
  EXPECT_NE(std::string(amk_last_error(nullptr)).find("the header says 2"),
            std::string::npos)
      << amk_last_error(nullptr);
  EXPECT_EQ(amk_session_create(&model, AMK_MODEL_API_VERSION, 0x9999, nullptr,
                               &s),
            AMK_ERROR_VERSION_MISMATCH);
  EXPECT_NE(std::string(amk_last_error(nullptr))
                .find("generated for model hash 0000000000009999 but the "
                      "library holds 0000000000001234"),
            std::string::npos)
      << amk_last_error(nullptr);
  amk_model old = model;
  old.api_version = 0;
  EXPECT_EQ(amk_session_create(&old, AMK_MODEL_API_VERSION, 0x1234, nullptr,
                               &s),
            AMK_ERROR_VERSION_MISMATCH);

  // threads: 0, 1 or the scheduled count; anything else says how to fix it.
  amk_session_options opts;
  amk_session_options_init(&opts);
  opts.threads = 4;
  EXPECT_EQ(amk_session_create(&model, AMK_MODEL_API_VERSION, 0x1234, &opts,
                               &s),
            AMK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(amk_last_error(nullptr)).find("--workers=4"),
            std::string::npos);
  amk_session_options bad = opts;
  bad.struct_size = 1;
  EXPECT_EQ(amk_session_create(&model, AMK_MODEL_API_VERSION, 0x1234, &bad,
                               &s),
            AMK_ERROR_INVALID_ARGUMENT);

  std::string trace = ::testing::TempDir() + "amk_model_trace.json";
  std::remove(trace.c_str());
  for (uint32_t threads : {0u, 1u, 2u}) {
    opts.threads = threads;
    opts.trace_path = threads == 2 ? trace.c_str() : nullptr;
    ASSERT_EQ(amk_session_create(&model, AMK_MODEL_API_VERSION, 0x1234, &opts,
                                 &s),
              AMK_OK)
        << amk_last_error(nullptr);
    std::vector<float> x(n), y(n, 0.f);
    for (int64_t i = 0; i < n; ++i)
      x[i] = 0.5f * i + threads;
    const void *ins[] = {x.data()};
    void *outs[] = {y.data()};
    ASSERT_EQ(amk_session_run(s, ins, outs), AMK_OK) << amk_last_error(s);
    EXPECT_EQ(x, y) << "threads " << threads;
    EXPECT_STREQ(amk_last_error(s), "");
    EXPECT_EQ(amk_session_run(s, nullptr, outs), AMK_ERROR_INVALID_ARGUMENT);
    EXPECT_STRNE(amk_last_error(s), "");
    amk_session_destroy(s);
  }
  std::ifstream t(trace);
  std::stringstream text;
  text << t.rdbuf();
  EXPECT_NE(text.str().find("traceEvents"), std::string::npos);
  amk_session_destroy(nullptr);
  EXPECT_EQ(amk_session_create(nullptr, AMK_MODEL_API_VERSION, 0, nullptr, &s),
            AMK_ERROR_INVALID_ARGUMENT);
}

/// WHERE against a naive loop: every element size, broadcasting along
/// each axis (and a missing leading axis), tiles that start mid-row.
template <typename T> void checkWhere(amk_rt_dtype dtype) {
  const int64_t A = 3, B = 5, C = 7; // Y: A x B x C
  // cond: B x 1 (broadcast over A and C), X: A x B x C, Z: 1 x 1 x C.
  std::vector<uint8_t> cond(B);
  for (int64_t b = 0; b < B; ++b)
    cond[b] = (b * 7 + 3) % 3 != 0;
  std::vector<T> X(A * B * C), Z(C);
  for (size_t i = 0; i < X.size(); ++i)
    X[i] = (T)(i + 1);
  for (int64_t c = 0; c < C; ++c)
    Z[c] = (T)(1000 + c);
  ProgramBuilder b(2);
  uint32_t cb = b.addIO(true, "C", AMK_RT_BOOL, {B, 1}, 1);
  uint32_t xb = b.addIO(true, "X", dtype, {A, B, C}, sizeof(T));
  uint32_t zb = b.addIO(true, "Z", dtype, {1, 1, C}, sizeof(T));
  uint32_t yb = b.addIO(false, "Y", dtype, {A, B, C}, sizeof(T));
  std::vector<int64_t> ip = {3, (int64_t)sizeof(T), A, B, C,
                             0, 1, 0,           // cond strides
                             B * C, C, 1,       // X strides
                             0, 0, 1};          // Z strides
  uint32_t k = b.addKernel(AMK_RT_K_WHERE, 0, {cb, xb, zb, yb}, ip, {}, "w");
  b.addTask(k, 0, {0, 11, 0, 1}, {}, -1);
  b.addTask(k, 1, {11, 40, 0, 1}, {}, -1);
  b.addTask(k, 0, {40, A * B * C, 0, 1}, {}, -1);
  std::vector<T> Y(A * B * C, (T)0);
  ASSERT_NO_FATAL_FAILURE(
      runProgram(b, {cond.data(), X.data(), Z.data()}, {Y.data()}));
  for (int64_t a = 0; a < A; ++a)
    for (int64_t bb = 0; bb < B; ++bb)
      for (int64_t c = 0; c < C; ++c) {
        int64_t i = (a * B + bb) * C + c;
        ASSERT_EQ(Y[i], cond[bb] ? X[i] : Z[c]) << a << "," << bb << "," << c;
      }
}

TEST(Runtime, WhereMatchesNaive) {
  checkWhere<uint8_t>(AMK_RT_U8);
  checkWhere<int32_t>(AMK_RT_I32);
  checkWhere<float>(AMK_RT_F32);
  checkWhere<int64_t>(AMK_RT_I64);
}

TEST(Runtime, WhereRejectsBadParameters) {
  ProgramBuilder b(1);
  uint32_t cb = b.addIO(true, "C", AMK_RT_BOOL, {4}, 1);
  uint32_t xb = b.addIO(true, "X", AMK_RT_F32, {4}, 4);
  uint32_t zb = b.addIO(true, "Z", AMK_RT_F32, {4}, 4);
  uint32_t yb = b.addIO(false, "Y", AMK_RT_F32, {4}, 4);
  // An element size of 3 bytes.
  uint32_t k = b.addKernel(AMK_RT_K_WHERE, 0, {cb, xb, zb, yb},
                           {1, 3, 4, 1, 1, 1}, {}, "bad");
  b.addTask(k, 0, {0, 4, 0, 1}, {}, -1);
  Session s;
  EXPECT_NE(s.create(b.get()), AMK_RT_OK);
  EXPECT_NE(std::string(amk_rt_error_message(nullptr)).find("element size"),
            std::string::npos)
      << amk_rt_error_message(nullptr);
}
