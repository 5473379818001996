//===- KernelTest.cpp - Runtime kernels against naive loops ---------------===//
//
// Part of AMK. GEMM tiles, transposing copies, the vectorized activations,
// normalization and softmax rows, the ELEMENTWISE kernel's compiled and
// interpreted paths, and WHERE, each against a plain loop or the C
// library.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include "Kernels.h"
#include "ProgramBuilder.h"
#include "amk/kernel_params.h"
#include "amk/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <vector>

using amk::rt::ProgramBuilder;
using amk::rt::test::runProgram;
using amk::rt::test::Session;

namespace {

/// C = relu(A B + bias), A MxK, B KxN, split into row tiles over 2 workers
/// and a column split, checked against a double-precision loop.
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
    ASSERT_EQ(s.create(b.get(), o), AMK_RT_OK) << amk_rt_error_message(nullptr);
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
/// LAYERNORM's optional outputs: each row's mean and 1/sqrt(var + eps),
/// with either one absent.
TEST(Runtime, LayerNormWritesMeanAndInvStdDev) {
  const int64_t rows = 3, cols = 20;
  std::vector<float> X(rows * cols);
  for (size_t i = 0; i < X.size(); ++i)
    X[i] = 0.1f * (float)((i * 13) % 17) - 0.5f;
  for (int absent : {-1, 0, 1}) {
    ProgramBuilder b(1);
    uint32_t in = b.addIO(true, "X", AMK_RT_F32, {rows, cols}, 4);
    uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {rows, cols}, 4);
    uint32_t mean = b.addIO(false, "Mean", AMK_RT_F32, {rows, 1}, 4);
    uint32_t inv = b.addIO(false, "InvStdDev", AMK_RT_F32, {rows, 1}, 4);
    const uint32_t none = AMK_RT_NO_BUFFER;
    std::vector<uint32_t> bufs = {in, out, none, none,
                                  absent == 0 ? none : mean,
                                  absent == 1 ? none : inv};
    uint32_t k = b.addKernel(AMK_RT_K_LAYERNORM, 0, bufs, {rows, cols, 0},
                             {1e-3f}, "ln");
    b.addTask(k, 0, {0, rows, 0, 1}, {}, -1);
    std::vector<float> Y(rows * cols), M(rows, NAN), I(rows, NAN);
    ASSERT_NO_FATAL_FAILURE(
        runProgram(b, {X.data()}, {Y.data(), M.data(), I.data()}));
    for (int64_t r = 0; r < rows; ++r) {
      double m = 0, v = 0;
      for (int64_t c = 0; c < cols; ++c)
        m += X[r * cols + c];
      m /= cols;
      for (int64_t c = 0; c < cols; ++c)
        v += (X[r * cols + c] - m) * (X[r * cols + c] - m);
      v /= cols;
      if (absent != 0)
        EXPECT_NEAR(M[r], m, 1e-6);
      else
        EXPECT_TRUE(std::isnan(M[r]));
      if (absent != 1)
        EXPECT_NEAR(I[r], 1 / std::sqrt(v + 1e-3), 1e-4);
      else
        EXPECT_TRUE(std::isnan(I[r]));
    }
  }
}

/// GATHER_ELEMENTS against a naive loop on a 3-D tensor along the middle
/// axis (negative indices included), and an index out of range is a kernel
/// error naming it.
TEST(Runtime, GatherElementsMatchesNaive) {
  const int64_t A = 2, B = 4, C = 3, OB = 5; // data [A,B,C], out [A,OB,C]
  std::vector<float> X(A * B * C);
  for (size_t i = 0; i < X.size(); ++i)
    X[i] = (float)i;
  std::vector<int64_t> I(A * OB * C);
  for (size_t i = 0; i < I.size(); ++i)
    I[i] = (int64_t)((i * 7) % (2 * B)) - B; // in [-B, B)
  auto build = [&](ProgramBuilder &b) {
    uint32_t d = b.addIO(true, "data", AMK_RT_F32, {A, B, C}, 4);
    uint32_t ix = b.addIO(true, "idx", AMK_RT_I64, {A, OB, C}, 8);
    uint32_t y = b.addIO(false, "Y", AMK_RT_F32, {A, OB, C}, 4);
    uint32_t k = b.addKernel(AMK_RT_K_GATHER_ELEMENTS, 0, {d, ix, y},
                             {3, 1, 4, AMK_RT_I64, A, OB, C, A, B, C}, {},
                             "ge");
    b.addTask(k, 0, {0, A * OB * C, 0, 1}, {}, -1);
  };
  ProgramBuilder b(1);
  build(b);
  std::vector<float> Y(A * OB * C, NAN);
  ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data(), I.data()}, {Y.data()}));
  for (int64_t a = 0; a < A; ++a)
    for (int64_t o = 0; o < OB; ++o)
      for (int64_t c = 0; c < C; ++c) {
        int64_t i = I[(a * OB + o) * C + c];
        i = i < 0 ? i + B : i;
        EXPECT_EQ(Y[(a * OB + o) * C + c], X[(a * B + i) * C + c]);
      }
  I[5] = B; // Out of range.
  ProgramBuilder bad(1);
  build(bad);
  Session s;
  ASSERT_EQ(s.create(bad.get()), AMK_RT_OK) << amk_rt_error_message(nullptr);
  const void *ins[2] = {X.data(), I.data()};
  void *outs[1] = {Y.data()};
  EXPECT_EQ(amk_rt_run(s.s, ins, outs), AMK_RT_KERNEL_ERROR);
  EXPECT_NE(s.error().find("GatherElements index 4 is out of range [-4, 4)"),
            std::string::npos)
      << s.error();
}

/// ARGMAX against a naive scan: both variants, first and last ties, an
/// inner stride, and a NaN that is never chosen over a number.
TEST(Runtime, ArgMaxMatchesNaive) {
  const int64_t outer = 3, n = 6;
  // inner 1 takes the float32 rows' vector scan (amk_rt_argmax_f32) for
  // ArgMax without select_last.
  for (int64_t inner : {int64_t(2), int64_t(1)}) {
    std::vector<float> X(outer * n * inner);
    for (size_t i = 0; i < X.size(); ++i)
      X[i] = (float)((i * 5) % 4); // Values 0..3, with ties.
    X[0] = NAN;
    for (int64_t variant : {0, 1})
      for (int64_t last : {0, 1}) {
        ProgramBuilder b(1);
        uint32_t in = b.addIO(true, "X", AMK_RT_F32, {outer, n, inner}, 4);
        uint32_t out = b.addIO(false, "Y", AMK_RT_I64, {outer, inner}, 8);
        uint32_t k = b.addKernel(AMK_RT_K_ARGMAX, variant, {in, out},
                                 {outer, n, inner, last}, {}, "arg");
        b.addTask(k, 0, {0, outer, 0, 1}, {}, -1);
        std::vector<int64_t> Y(outer * inner, -1);
        ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data()}, {Y.data()}));
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t j = 0; j < inner; ++j) {
            int64_t best = -1;
            for (int64_t i = 0; i < n; ++i) {
              float c = X[(o * n + i) * inner + j];
              if (c != c)
                continue;
              float v = best < 0 ? 0 : X[(o * n + best) * inner + j];
              bool better = best < 0 || (variant ? (last ? c <= v : c < v)
                                                 : (last ? c >= v : c > v));
              if (better)
                best = i;
            }
            EXPECT_EQ(Y[o * inner + j], best)
                << "variant " << variant << ", last " << last << " at " << o
                << "," << j;
          }
      }
  }
}

/// amk_rt_argmax_f32 against a scan: every length around the vector width
/// and a vocabulary's, ties (the first wins), NaN never chosen over a
/// number, -inf, all-NaN and empty rows.
TEST(Runtime, ArgmaxF32MatchesScan) {
  auto scan = [](const std::vector<float> &x) {
    int64_t best = -1;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] == x[i] && (best < 0 || x[i] > x[best]))
        best = i;
    return best < 0 ? int64_t(0) : best;
  };
  for (int64_t n : {1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 70, 16384}) {
    for (int variant = 0; variant < 5; ++variant) {
      std::vector<float> x(n);
      for (int64_t i = 0; i < n; ++i)
        x[i] = (float)((i * 37) % 11) - 20.f;
      if (variant == 1) // A tie of the maximum, late.
        x[n / 2] = x[n - 1] = 100.f;
      if (variant == 2) // NaNs, one before the maximum.
        for (int64_t i = 0; i < n; i += 3)
          x[i] = NAN;
      if (variant == 3)
        std::fill(x.begin(), x.end(), -INFINITY);
      if (variant == 4)
        std::fill(x.begin(), x.end(), NAN);
      EXPECT_EQ(amk_rt_argmax_f32(x.data(), n), scan(x))
          << "n " << n << ", variant " << variant;
    }
  }
  EXPECT_EQ(amk_rt_argmax_f32(nullptr, 0), 0);
}

/// ROPE against the two formulas, naively: both forms, a row length whose
/// half is odd, tables broadcast along different row axes, and two tiles,
/// the second starting mid-way through a table row's broadcast.
TEST(Runtime, RopeMatchesNaive) {
  const int64_t A = 2, B = 3, C = 2, rows = A * B * C;
  for (int64_t d : {int64_t(8), int64_t(6)})
    for (int64_t interleaved : {0, 1}) {
      int64_t w = interleaved ? d / 2 : d;
      std::vector<float> X(rows * d), Cs(B * w), Sn(A * C * w);
      for (size_t i = 0; i < X.size(); ++i)
        X[i] = 0.1f * (float)((i * 7) % 13) - 0.6f;
      for (size_t i = 0; i < Cs.size(); ++i)
        Cs[i] = std::cos(0.3f * (float)i);
      for (size_t i = 0; i < Sn.size(); ++i)
        Sn[i] = std::sin(0.2f * (float)i + 0.1f);
      // Cos is [B, 1, w] (broadcast over A and C), Sin [A, 1, C, w].
      const int64_t cs[3] = {0, w, 0}, ss[3] = {C * w, 0, w};
      ProgramBuilder b(1);
      uint32_t x = b.addIO(true, "X", AMK_RT_F32, {A, B, C, d}, 4);
      uint32_t c = b.addIO(true, "Cos", AMK_RT_F32, {B, 1, w}, 4);
      uint32_t sn = b.addIO(true, "Sin", AMK_RT_F32, {A, 1, C, w}, 4);
      uint32_t y = b.addIO(false, "Y", AMK_RT_F32, {A, B, C, d}, 4);
      std::vector<int64_t> ip = {d, interleaved, 3, A, B, C};
      ip.insert(ip.end(), cs, cs + 3);
      ip.insert(ip.end(), ss, ss + 3);
      uint32_t k = b.addKernel(AMK_RT_K_ROPE, 0, {x, c, sn, y}, ip, {}, "rope");
      b.addTask(k, 0, {0, 5, 0, 1}, {}, -1);
      b.addTask(k, 0, {5, rows, 0, 1}, {}, -1);
      std::vector<float> Y(rows * d, NAN);
      ASSERT_NO_FATAL_FAILURE(
          runProgram(b, {X.data(), Cs.data(), Sn.data()}, {Y.data()}));
      for (int64_t r = 0; r < rows; ++r) {
        int64_t ia = r / (B * C), ib = r / C % B, ic = r % C;
        const float *cr = Cs.data() + ib * cs[1];
        const float *sr = Sn.data() + ia * ss[0] + ic * ss[2];
        const float *xr = X.data() + r * d;
        for (int64_t j = 0; j < d; ++j) {
          float want;
          if (interleaved) {
            int64_t p = j / 2;
            float x0 = xr[2 * p], x1 = xr[2 * p + 1];
            want = j % 2 ? x0 * sr[p] + x1 * cr[p] : x0 * cr[p] - x1 * sr[p];
          } else {
            float rot = j < d / 2 ? -xr[j + d / 2] : xr[j - d / 2];
            want = xr[j] * cr[j] + rot * sr[j];
          }
          EXPECT_NEAR(Y[r * d + j], want, 1e-6f)
              << "d " << d << ", interleaved " << interleaved << " at row " << r
              << ", " << j;
        }
      }
    }
}

/// POOL's iparams: a 2-D window of dilation 1 over n x c planes.
std::vector<int64_t> poolParams(int64_t n, int64_t c, int64_t h, int64_t w,
                                int64_t kh, int64_t kw, int64_t oh, int64_t ow,
                                int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                                int64_t mode) {
  std::vector<int64_t> ip(AMK_SP_NUM_IPARAMS, 0);
  ip[AMK_SP_N] = n, ip[AMK_SP_C] = c, ip[AMK_SP_H] = h, ip[AMK_SP_W] = w,
  ip[AMK_SP_OC] = c, ip[AMK_SP_KH] = kh, ip[AMK_SP_KW] = kw, ip[AMK_SP_OH] = oh,
  ip[AMK_SP_OW] = ow, ip[AMK_SP_SH] = sh, ip[AMK_SP_SW] = sw,
  ip[AMK_SP_PH] = ph, ip[AMK_SP_PW] = pw, ip[AMK_SP_DH] = 1, ip[AMK_SP_DW] = 1,
  ip[AMK_SP_GROUP] = 1, ip[AMK_SP_MODE] = mode;
  return ip;
}

/// Float max pooling (POOL mode 0) against a naive loop: 3x3 stride 2 (the
/// CNN stems), stride 1, a stride the vectors do not take (3), end padding
/// larger than the begin (ceil_mode), rows shorter and longer than a
/// vector, non-square windows and one of 70 rows; tiles of several
/// planes, so a row's cached column maxima must not leak into the next.
TEST(Runtime, MaxPoolMatchesNaive) {
  struct Case {
    int64_t c, h, w, kh, kw, sh, sw, ph, pw, phEnd, pwEnd;
  };
  const Case cases[] = {
      {3, 23, 37, 3, 3, 2, 2, 1, 1, 1, 1}, {2, 9, 40, 3, 3, 1, 1, 1, 1, 1, 1},
      {3, 14, 19, 3, 3, 3, 3, 0, 0, 0, 0}, {2, 11, 13, 3, 2, 2, 2, 1, 0, 2, 1},
      {2, 8, 8, 2, 2, 2, 2, 0, 0, 0, 0},   {2, 70, 5, 70, 3, 1, 1, 0, 1, 0, 1}};
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-4, 4);
  for (const Case &c : cases) {
    const int64_t oh = (c.h + c.ph + c.phEnd - c.kh) / c.sh + 1;
    const int64_t ow = (c.w + c.pw + c.pwEnd - c.kw) / c.sw + 1;
    const int64_t n = 2, rows = n * c.c;
    std::vector<float> X(rows * c.h * c.w);
    for (float &f : X)
      f = dist(rng);
    ProgramBuilder b(1);
    uint32_t in = b.addIO(true, "X", AMK_RT_F32, {n, c.c, c.h, c.w}, 4);
    uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {n, c.c, oh, ow}, 4);
    std::vector<int64_t> ip = poolParams(n, c.c, c.h, c.w, c.kh, c.kw, oh, ow,
                                         c.sh, c.sw, c.ph, c.pw, 0);
    uint32_t k = b.addKernel(AMK_RT_K_POOL, 0, {in, out}, ip, {}, "maxpool");
    b.addTask(k, 0, {0, 1, 0, 1}, {}, -1);
    b.addTask(k, 0, {1, rows, 0, 1}, {}, -1);
    std::vector<float> Y(rows * oh * ow, NAN);
    ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data()}, {Y.data()}));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          float want = -INFINITY;
          for (int64_t ky = 0; ky < c.kh; ++ky)
            for (int64_t kx = 0; kx < c.kw; ++kx) {
              int64_t iy = oy * c.sh - c.ph + ky, ix = ox * c.sw - c.pw + kx;
              if (iy >= 0 && iy < c.h && ix >= 0 && ix < c.w)
                want = std::max(want, X[(r * c.h + iy) * c.w + ix]);
            }
          ASSERT_EQ(Y[(r * oh + oy) * ow + ox], want)
              << c.h << "x" << c.w << " window " << c.kh << "x" << c.kw
              << " stride " << c.sh << " at plane " << r << " (" << oy << ", "
              << ox << ")";
        }
  }
}

/// Float average pooling whose windows lie inside the plane (the vector
/// path) against a naive loop: DenseNet's 2x2 stride 2 with a partial last
/// vector (28 outputs a row, an odd input width), 3x3 stride 1 over rows
/// longer than two vectors, a non-square window, a plane narrower than a
/// vector; both average modes (no pads, so they agree).
TEST(Runtime, AveragePoolMatchesNaive) {
  struct Case {
    int64_t c, h, w, kh, kw, sh, sw, mode;
  };
  const Case cases[] = {{3, 12, 57, 2, 2, 2, 2, 1},
                        {2, 9, 40, 3, 3, 1, 1, 2},
                        {2, 8, 35, 2, 3, 2, 2, 1},
                        {2, 7, 7, 3, 3, 2, 2, 2}};
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-4, 4);
  for (const Case &c : cases) {
    const int64_t oh = (c.h - c.kh) / c.sh + 1, ow = (c.w - c.kw) / c.sw + 1;
    const int64_t n = 2, rows = n * c.c;
    std::vector<float> X(rows * c.h * c.w);
    for (float &f : X)
      f = dist(rng);
    ProgramBuilder b(1);
    uint32_t in = b.addIO(true, "X", AMK_RT_F32, {n, c.c, c.h, c.w}, 4);
    uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {n, c.c, oh, ow}, 4);
    std::vector<int64_t> ip = poolParams(n, c.c, c.h, c.w, c.kh, c.kw, oh, ow,
                                         c.sh, c.sw, 0, 0, c.mode);
    uint32_t k = b.addKernel(AMK_RT_K_POOL, 0, {in, out}, ip, {}, "avgpool");
    b.addTask(k, 0, {0, 1, 0, 1}, {}, -1);
    b.addTask(k, 0, {1, rows, 0, 1}, {}, -1);
    std::vector<float> Y(rows * oh * ow, NAN);
    ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data()}, {Y.data()}));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          float want = 0;
          for (int64_t ky = 0; ky < c.kh; ++ky)
            for (int64_t kx = 0; kx < c.kw; ++kx)
              want += X[(r * c.h + oy * c.sh + ky) * c.w + ox * c.sw + kx];
          want /= (float)(c.kh * c.kw);
          ASSERT_FLOAT_EQ(Y[(r * oh + oy) * ow + ox], want)
              << c.h << "x" << c.w << " window " << c.kh << "x" << c.kw
              << " stride " << c.sh << " at plane " << r << " (" << oy << ", "
              << ox << ")";
        }
  }
}

/// POOL's reduction modes as amk-schedule-megakernel uses them for
/// ReduceSum (3) and ReduceMin (4): an R x 1 window over [outer, R, inner],
/// through the generic path (inner 4) and the global one (inner 1).
TEST(Runtime, PoolSumAndMinModesReduce) {
  const int64_t outer = 2, R = 3;
  for (int64_t inner : {int64_t(4), int64_t(1)})
    for (int64_t mode : {3, 4, 5, 6, 7, 8, 9, 10}) {
      std::vector<float> X(outer * R * inner);
      for (size_t i = 0; i < X.size(); ++i)
        X[i] = 0.25f * (float)((i * 7) % 11) -
               (mode == AMK_POOL_LOG_SUM ? -0.5f : 1.f); // log of a sum > 0
      ProgramBuilder b(1);
      uint32_t in = b.addIO(true, "X", AMK_RT_F32, {outer, 1, R, inner}, 4);
      uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {outer, 1, 1, inner}, 4);
      std::vector<int64_t> ip(AMK_SP_NUM_IPARAMS, 0);
      ip[AMK_SP_N] = outer, ip[AMK_SP_C] = 1, ip[AMK_SP_H] = R,
      ip[AMK_SP_W] = inner, ip[AMK_SP_OC] = 1, ip[AMK_SP_KH] = R,
      ip[AMK_SP_KW] = 1, ip[AMK_SP_OH] = 1, ip[AMK_SP_OW] = inner,
      ip[AMK_SP_SH] = 1, ip[AMK_SP_SW] = 1, ip[AMK_SP_DH] = 1,
      ip[AMK_SP_DW] = 1, ip[AMK_SP_GROUP] = 1, ip[AMK_SP_MODE] = mode;
      uint32_t k = b.addKernel(AMK_RT_K_POOL, 0, {in, out}, ip, {}, "reduce");
      b.addTask(k, 0, {0, outer, 0, 1}, {}, -1);
      std::vector<float> Y(outer * inner, NAN);
      ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data()}, {Y.data()}));
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j) {
          double want = mode == 4 ? INFINITY : mode == AMK_POOL_PROD ? 1 : 0;
          for (int64_t r = 0; r < R; ++r) {
            double v = X[(o * R + r) * inner + j];
            switch (mode) {
            case 4:
              want = std::min(want, v);
              break;
            case AMK_POOL_L1:
              want += std::fabs(v);
              break;
            case AMK_POOL_L2:
            case AMK_POOL_SUM_SQUARE:
              want += v * v;
              break;
            case AMK_POOL_LOG_SUM_EXP:
              want += std::exp(v);
              break;
            case AMK_POOL_PROD:
              want *= v;
              break;
            default: // sum, log-sum
              want += v;
            }
          }
          if (mode == AMK_POOL_L2)
            want = std::sqrt(want);
          if (mode == AMK_POOL_LOG_SUM || mode == AMK_POOL_LOG_SUM_EXP)
            want = std::log(want);
          EXPECT_NEAR(Y[o * inner + j], want, 1e-6)
              << "mode " << mode << ", inner " << inner;
        }
    }
}

/// Log-softmax (variant 1) along a strided axis and a contiguous one: x - m
/// - log(sum exp(x - m)) in double, exact for large inputs (where float
/// log(softmax) loses 1e-3) and finite for masked ones (where it is -inf).
TEST(Runtime, LogSoftmaxMatchesDoubleAndStaysFinite) {
  const int64_t outer = 2, n = 5, inner = 3;
  std::vector<float> X(outer * n * inner);
  for (size_t i = 0; i < X.size(); ++i)
    X[i] = 10000.f + 0.5f * (float)(i % 11);
  X[4] = -1e4f; // exp(-2e4) is 0 in any float: log-softmax is still finite.
  for (int64_t variantInner : {inner, int64_t(1)}) {
    int64_t rows = variantInner == 1 ? outer * inner : outer;
    ProgramBuilder b(1);
    uint32_t in = b.addIO(true, "X", AMK_RT_F32, {outer, n, inner}, 4);
    uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {outer, n, inner}, 4);
    std::vector<int64_t> ip(AMK_SOFTMAX_NUM_IPARAMS, 0);
    // Contiguous case: the same bytes seen as outer*inner rows of n.
    ip[AMK_SOFTMAX_OUTER] = rows, ip[AMK_SOFTMAX_AXIS] = n;
    ip[AMK_SOFTMAX_INNER] = variantInner;
    uint32_t k = b.addKernel(AMK_RT_K_SOFTMAX, AMK_SOFTMAX_VARIANT_LOG,
                             {in, out}, ip, {}, "lsm");
    b.addTask(k, 0, {0, rows, 0, 1}, {}, -1);
    std::vector<float> Y(X.size(), NAN);
    ASSERT_NO_FATAL_FAILURE(runProgram(b, {X.data()}, {Y.data()}));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < variantInner; ++j) {
        auto at = [&](int64_t i) { return (r * n + i) * variantInner + j; };
        double m = -INFINITY, sum = 0;
        for (int64_t i = 0; i < n; ++i)
          m = std::max(m, (double)X[at(i)]);
        for (int64_t i = 0; i < n; ++i)
          sum += std::exp((double)X[at(i)] - m);
        for (int64_t i = 0; i < n; ++i) {
          double want = (double)X[at(i)] - m - std::log(sum);
          EXPECT_TRUE(std::isfinite(Y[at(i)])) << r << "," << i;
          EXPECT_NEAR(Y[at(i)], want, 1e-5 * std::fabs(want) + 1e-5)
              << "inner " << variantInner << ", row " << r << ", " << i;
        }
      }
  }
}

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
void fakeCompiledElementwise(float *y, const void *const *inputs, int64_t begin,
                             int64_t end) {
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

/// The interpreter keeps registers that hold one value (a scalar input, a
/// constant, what is computed from them alone) as that value: scalar op
/// scalar, scalar op vector, vector op scalar, a unary op of a scalar, and
/// a program whose result is such a value, over more than one chunk.
TEST(Runtime, ElementwiseScalarRegisters) {
  const int64_t n = 300;
  std::vector<float> x(n), s = {0.75f};
  for (int64_t i = 0; i < n; ++i)
    x[i] = float(i % 17) - 8.f;
  for (int64_t result : {7, 4}) {
    ProgramBuilder b(2);
    uint32_t xb = b.addIO(true, "x", AMK_RT_F32, {n}, 4);
    uint32_t sb = b.addIO(true, "s", AMK_RT_F32, {1}, 4);
    uint32_t yb = b.addIO(false, "y", AMK_RT_F32, {n}, 4);
    // r2 = 3; r3 = s * r2; r4 = -r3; r5 = x + r4; r6 = r4 - x;
    // r7 = max(r5, r6).
    std::vector<int64_t> ip = {
        1, n, 2, AMK_RT_F32, 1, AMK_RT_F32, 0, 6, AMK_OP_CONST, 2,
        0, 0, 0, AMK_OP_MUL, 3, 1,          2, 0, AMK_OP_NEG,   4,
        3, 0, 0, AMK_OP_ADD, 5, 0,          4, 0, AMK_OP_SUB,   6,
        4, 0, 0, AMK_OP_MAX, 7, 5,          6, 0, result};
    uint32_t k = b.addKernel(AMK_RT_K_ELEMENTWISE, 0, {yb, xb, sb}, ip,
                             {3.f, 0.f}, "ew");
    b.addTask(k, 0, {0, 100, 0, 1}, {}, -1);
    b.addTask(k, 1, {100, n, 0, 1}, {}, -1);
    std::vector<float> y(n, NAN);
    ASSERT_NO_FATAL_FAILURE(runProgram(b, {x.data(), s.data()}, {y.data()}));
    const float c = -(0.75f * 3.f);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(y[i], result == 4 ? c : std::max(x[i] + c, c - x[i]))
          << "result r" << result << " at " << i;
  }
}

} // namespace

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
  std::vector<int64_t> ip = {3,     (int64_t)sizeof(T),
                             A,     B,
                             C,     0,
                             1,     0, // cond strides
                             B * C, C,
                             1, // X strides
                             0,     0,
                             1}; // Z strides
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

/// Runs one TYPED_ELEMENTWISE kernel over inputs of `n` elements each
/// (same shape, no broadcast) in two tiles on two workers.
template <typename Y>
std::vector<Y> runTyped(int64_t op, int64_t compute, amk_rt_dtype ydtype,
                        std::vector<std::pair<amk_rt_dtype, const void *>> ins,
                        std::vector<size_t> inBytes, int64_t n,
                        std::vector<float> fp = {0, 0}) {
  ProgramBuilder b(2);
  std::vector<uint32_t> bufs;
  uint32_t yb = b.addIO(false, "Y", ydtype, {n}, sizeof(Y));
  bufs.push_back(yb);
  std::vector<int64_t> ip = {op, compute, ydtype, 1, (int64_t)ins.size(), n};
  std::vector<const void *> ptrs;
  for (size_t i = 0; i < ins.size(); ++i) {
    bufs.push_back(b.addIO(true, "X" + std::to_string(i), ins[i].first, {n},
                           inBytes[i]));
    ip.push_back(ins[i].first);
    ip.push_back(1);
    ptrs.push_back(ins[i].second);
  }
  uint32_t k =
      b.addKernel(AMK_RT_K_TYPED_ELEMENTWISE, 0, bufs, ip, fp, "typed");
  b.addTask(k, 0, {0, n / 2, 0, 1}, {}, -1);
  b.addTask(k, 1, {n / 2, n, 0, 1}, {}, -1);
  std::vector<Y> y(n, Y(77));
  runProgram(b, ptrs, {y.data()});
  return y;
}

TEST(Runtime, TypedElementwiseFollowsOnnxIntegerAndBoolSemantics) {
  // Mod takes the divisor's sign, fmod the dividend's; x % 0 and x / 0 are
  // 0 rather than a trap.
  std::vector<int32_t> a = {7, -7, 7, -7, 5, INT32_MIN};
  std::vector<int32_t> d = {3, 3, -3, -3, 0, -1};
  auto mod = runTyped<int32_t>(AMK_OP_MOD, AMK_TEW_I64, AMK_RT_I32,
                               {{AMK_RT_I32, a.data()}, {AMK_RT_I32, d.data()}},
                               {4, 4}, 6);
  EXPECT_EQ(mod, (std::vector<int32_t>{1, 2, -2, -1, 0, 0}));
  auto fmod = runTyped<int32_t>(AMK_OP_FMOD, AMK_TEW_I64, AMK_RT_I32,
                                {{AMK_RT_I32, a.data()}, {AMK_RT_I32, d.data()}},
                                {4, 4}, 6);
  EXPECT_EQ(fmod, (std::vector<int32_t>{1, -1, 1, -1, 0, 0}));
  auto div = runTyped<int32_t>(AMK_OP_DIV, AMK_TEW_I64, AMK_RT_I32,
                               {{AMK_RT_I32, a.data()}, {AMK_RT_I32, d.data()}},
                               {4, 4}, 6);
  // Truncation toward zero; INT32_MIN / -1 wraps as int32.
  EXPECT_EQ(div, (std::vector<int32_t>{2, -2, -2, 2, 0, INT32_MIN}));
  // int32 addition wraps.
  auto add = runTyped<int32_t>(AMK_OP_ADD, AMK_TEW_I64, AMK_RT_I32,
                               {{AMK_RT_I32, a.data()}, {AMK_RT_I32, a.data()}},
                               {4, 4}, 6);
  EXPECT_EQ(add.back(), 0);
  // Shifts on uint8 drop the bits shifted out.
  std::vector<uint8_t> x = {1, 0x81, 16, 255}, s = {1, 1, 2, 8};
  auto shl = runTyped<uint8_t>(AMK_OP_SHIFT_LEFT, AMK_TEW_I64, AMK_RT_U8,
                               {{AMK_RT_U8, x.data()}, {AMK_RT_U8, s.data()}},
                               {1, 1}, 4);
  EXPECT_EQ(shl, (std::vector<uint8_t>{2, 2, 64, 0}));
  // uint64 values above 2^63 compare as unsigned.
  std::vector<uint64_t> big = {~0ull, 1}, one = {1, ~0ull};
  auto gt = runTyped<uint8_t>(AMK_OP_GREATER, AMK_TEW_U64, AMK_RT_BOOL,
                              {{AMK_RT_U64, big.data()}, {AMK_RT_U64, one.data()}},
                              {8, 8}, 2);
  EXPECT_EQ(gt, (std::vector<uint8_t>{1, 0}));
  // Float comparisons give bool; NaN is unequal to itself.
  std::vector<float> f = {1.f, NAN, -2.f, 3.f}, g = {1.f, NAN, 2.f, -3.f};
  auto eq = runTyped<uint8_t>(AMK_OP_EQUAL, AMK_TEW_F64, AMK_RT_BOOL,
                              {{AMK_RT_F32, f.data()}, {AMK_RT_F32, g.data()}},
                              {4, 4}, 4);
  EXPECT_EQ(eq, (std::vector<uint8_t>{1, 0, 0, 0}));
  auto isinf = runTyped<uint8_t>(
      AMK_OP_ISINF, AMK_TEW_F64, AMK_RT_BOOL,
      {{AMK_RT_F32, std::vector<float>{INFINITY, -INFINITY, NAN, 1}.data()}},
      {4}, 4, {1, 0});
  EXPECT_EQ(isinf, (std::vector<uint8_t>{1, 0, 0, 0}));
}

TEST(Runtime, TypedElementwiseCastsRoundToNearestEven) {
  // float -> float16: 1 + 2^-11 is a tie and rounds to 1 (even); 1 + 3 *
  // 2^-11 rounds up; 65520 overflows to infinity; 2^-25 is half the
  // smallest subnormal and rounds to zero, 3 * 2^-26 to the subnormal.
  std::vector<float> x = {1.f + 0x1p-11f, 1.f + 3 * 0x1p-11f, 65520.f,
                          0x1p-25f,       3 * 0x1p-26f,       -0.f};
  auto h = runTyped<uint16_t>(AMK_OP_COPY, AMK_TEW_F64, AMK_RT_F16,
                              {{AMK_RT_F32, x.data()}}, {4}, 6);
  EXPECT_EQ(h, (std::vector<uint16_t>{0x3c00, 0x3c02, 0x7c00, 0x0000, 0x0001,
                                      0x8000}));
  // float16 back to float, subnormals included.
  auto back = runTyped<float>(AMK_OP_COPY, AMK_TEW_F64, AMK_RT_F32,
                              {{AMK_RT_F16, h.data()}}, {2}, 6);
  EXPECT_EQ(back[1], 1.f + 0x1p-9f);
  EXPECT_EQ(back[4], 0x1p-24f);
  EXPECT_TRUE(std::isinf(back[2]));
  // bfloat16: 1 + 2^-8 is a tie (to 1), 1 + 3 * 2^-8 rounds up.
  std::vector<float> y = {1.f + 0x1p-8f, 1.f + 3 * 0x1p-8f};
  auto bf = runTyped<uint16_t>(AMK_OP_COPY, AMK_TEW_F64, AMK_RT_BF16,
                               {{AMK_RT_F32, y.data()}}, {4}, 2);
  EXPECT_EQ(bf, (std::vector<uint16_t>{0x3f80, 0x3f82}));
  // float -> int truncates toward zero; NaN does not trap.
  std::vector<double> d = {2.7, -2.7, NAN};
  auto i = runTyped<int64_t>(AMK_OP_COPY, AMK_TEW_F64, AMK_RT_I64,
                             {{AMK_RT_F64, d.data()}}, {8}, 3);
  EXPECT_EQ(i[0], 2);
  EXPECT_EQ(i[1], -2);
}

TEST(Runtime, TypedElementwiseRejectsBadParameters) {
  ProgramBuilder b(1);
  uint32_t xb = b.addIO(true, "X", AMK_RT_F32, {4}, 4);
  uint32_t zb = b.addIO(true, "Z", AMK_RT_F32, {4}, 4);
  uint32_t yb = b.addIO(false, "Y", AMK_RT_F32, {4}, 4);
  // A bitwise op computed on doubles.
  uint32_t k = b.addKernel(AMK_RT_K_TYPED_ELEMENTWISE, 0, {yb, xb, zb},
                           {AMK_OP_BITWISE_AND, AMK_TEW_F64, AMK_RT_F32, 1, 2,
                            4, AMK_RT_F32, 1, AMK_RT_F32, 1},
                           {0, 0}, "bad");
  b.addTask(k, 0, {0, 4, 0, 1}, {}, -1);
  Session s;
  EXPECT_NE(s.create(b.get()), AMK_RT_OK);
  EXPECT_NE(std::string(amk_rt_error_message(nullptr)).find("on double"),
            std::string::npos)
      << amk_rt_error_message(nullptr);
}

/// NLL and softmax cross entropy against a double computation: weights,
/// an ignored target, mean over the weights used, the log-probabilities
/// output, and a target out of range as a kernel error.
TEST(Runtime, LossMatchesNaive) {
  const int64_t N = 3, C = 4, D = 2;
  std::vector<float> X(N * C * D), W = {0.5f, 1.f, 2.f, 1.5f};
  for (size_t i = 0; i < X.size(); ++i)
    X[i] = 0.3f * (float)((i * 5) % 7) - 1.f;
  std::vector<int64_t> T = {0, 3, 2, -1, 1, 2}; // -1 is ignored
  for (int sce = 0; sce < 2; ++sce)
    for (int64_t reduction : {0, 1, 2}) {
      ProgramBuilder b(1);
      uint32_t xb = b.addIO(true, "X", AMK_RT_F32, {N, C, D}, 4);
      uint32_t tb = b.addIO(true, "T", AMK_RT_I64, {N, D}, 8);
      uint32_t wb = b.addConstant(W.data(), W.size() * 4);
      int64_t ny = reduction ? 1 : N * D;
      uint32_t yb = b.addIO(false, "Y", AMK_RT_F32, {ny}, 4);
      uint32_t lb = b.addIO(false, "LP", AMK_RT_F32, {N, C, D}, 4);
      uint32_t k = b.addKernel(AMK_RT_K_LOSS, sce, {xb, tb, wb, yb, lb},
                               {N, C, D, AMK_RT_I64, reduction, 1, -1}, {},
                               "loss");
      b.addTask(k, 0, {0, 1, 0, 1}, {}, -1);
      std::vector<float> Y(ny, NAN), LP(N * C * D, NAN);
      ASSERT_NO_FATAL_FAILURE(
          runProgram(b, {X.data(), T.data()}, {Y.data(), LP.data()}));
      double total = 0, weights = 0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t d = 0; d < D; ++d) {
          double lse = 0;
          for (int64_t c = 0; c < C; ++c)
            lse += std::exp((double)X[(n * C + c) * D + d]);
          lse = std::log(lse);
          if (sce)
            for (int64_t c = 0; c < C; ++c)
              EXPECT_NEAR(LP[(n * C + c) * D + d],
                          X[(n * C + c) * D + d] - lse, 1e-6);
          int64_t t = T[n * D + d];
          double loss = 0;
          if (t >= 0) {
            double lp = X[(n * C + t) * D + d] - (sce ? lse : 0);
            loss = -lp * W[t];
            weights += W[t];
          }
          total += loss;
          if (reduction == 0)
            EXPECT_NEAR(Y[n * D + d], loss, 1e-5) << n << "," << d;
        }
      if (reduction)
        EXPECT_NEAR(Y[0], reduction == 1 ? total : total / weights, 1e-5)
            << "sce " << sce << " reduction " << reduction;
    }
  // A target that is neither in [0, C) nor ignored.
  ProgramBuilder b(1);
  uint32_t xb = b.addIO(true, "X", AMK_RT_F32, {1, C}, 4);
  uint32_t tb = b.addIO(true, "T", AMK_RT_I64, {1}, 8);
  uint32_t yb = b.addIO(false, "Y", AMK_RT_F32, {1}, 4);
  uint32_t k = b.addKernel(
      AMK_RT_K_LOSS, 0, {xb, tb, AMK_RT_NO_BUFFER, yb, AMK_RT_NO_BUFFER},
      {1, C, 1, AMK_RT_I64, 1, 0, 0}, {}, "loss");
  b.addTask(k, 0, {0, 1, 0, 1}, {}, -1);
  Session s;
  ASSERT_EQ(s.create(b.get()), AMK_RT_OK) << amk_rt_error_message(nullptr);
  int64_t bad = C;
  float y = 0;
  const void *ins[] = {X.data(), &bad};
  void *outs[] = {&y};
  EXPECT_NE(amk_rt_run(s.s, ins, outs), AMK_RT_OK);
  EXPECT_NE(s.error().find("out of range"), std::string::npos) << s.error();
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

/// QUANTIZE variant 4: Y[i] = T[X[i] - lowest] for uint8 and int8 X, over
/// two tiles of 300 elements (a 64-byte vector's tail), against the plain
/// lookup.
TEST(Runtime, QuantizedTableMatchesLookup) {
  std::mt19937 rng(5);
  std::vector<uint8_t> table(256), x(300);
  for (auto &v : table)
    v = rng() % 256;
  for (auto &v : x)
    v = rng() % 256;
  for (amk_rt_dtype xt : {AMK_RT_U8, AMK_RT_I8}) {
    ProgramBuilder b(2);
    uint32_t xb = b.addIO(true, "X", xt, {300}, 1);
    uint32_t tb = b.addConstant(table.data(), 256);
    uint32_t yb = b.addIO(false, "Y", AMK_RT_U8, {300}, 1);
    uint32_t k = b.addKernel(AMK_RT_K_QUANTIZE, AMK_QUANT_VARIANT_TABLE,
                             {xb, tb, AMK_RT_NO_BUFFER, yb},
                             {xt, AMK_RT_U8, 1, 300}, {}, "table");
    b.addTask(k, 0, {0, 131, 0, 1}, {}, -1);
    b.addTask(k, 1, {131, 300, 0, 1}, {}, -1);
    std::vector<uint8_t> y(300, 0);
    ASSERT_NO_FATAL_FAILURE(runProgram(b, {x.data()}, {y.data()}));
    const uint8_t flip = xt == AMK_RT_I8 ? 0x80 : 0;
    for (int i = 0; i < 300; ++i)
      ASSERT_EQ(y[i], table[x[i] ^ flip]) << i;
  }
}

/// QUANTIZE variant 3: a quantized Mul of A [2, 3, 5] by B [3, 1] over
/// merged broadcast strides, with Relu, against the QDQ graph's float
/// steps; a kernel with a zero dim is refused at load.
TEST(Runtime, QuantizedBroadcastMulMatchesFloatSteps) {
  std::mt19937 rng(6);
  std::vector<uint8_t> a(30), bv(3);
  for (auto &v : a)
    v = rng() % 256;
  for (auto &v : bv)
    v = rng() % 256;
  const float sa = 0.03f, sb = 0.011f, sy = 0.004f;
  const int za = 120, zb = 99, zy = 60;
  auto program = [&](int64_t dim0) {
    ProgramBuilder b(2);
    uint32_t ab = b.addIO(true, "A", AMK_RT_U8, {2, 3, 5}, 1);
    uint32_t bb = b.addIO(true, "B", AMK_RT_U8, {3, 1}, 1);
    uint32_t yb = b.addIO(false, "Y", AMK_RT_U8, {2, 3, 5}, 1);
    // dims [2, 3, 5]; A's strides 15, 5, 1; B's 0, 1, 0.
    uint32_t k = b.addKernel(AMK_RT_K_QUANTIZE, AMK_QUANT_VARIANT_BINARY,
                             {ab, bb, AMK_RT_NO_BUFFER, yb},
                             {AMK_RT_U8, AMK_RT_U8, 1, 30, za, zb, zy, 1,
                              AMK_QBIN_MUL, 3, dim0, 3, 5, 15, 5, 1, 0, 1, 0},
                             {sa, sb, sy}, "qmul");
    b.addTask(k, 0, {0, 13, 0, 1}, {}, -1);
    b.addTask(k, 1, {13, 30, 0, 1}, {}, -1);
    return b;
  };
  ProgramBuilder good = program(2);
  std::vector<uint8_t> y(30, 0);
  ASSERT_NO_FATAL_FAILURE(runProgram(good, {a.data(), bv.data()}, {y.data()}));
  for (int i = 0; i < 30; ++i) {
    float fa = (float)((int)a[i] - za);
    fa = fa * sa;
    float fb = (float)((int)bv[(i / 5) % 3] - zb);
    fb = fb * sb;
    float v = fa * fb;
    v = v < 0.f ? 0.f : v;
    float r = std::nearbyint(v / sy) + (float)zy;
    ASSERT_EQ(y[i], (uint8_t)std::clamp(r, 0.f, 255.f)) << i;
  }
  ProgramBuilder bad = program(0);
  Session s;
  EXPECT_NE(s.create(bad.get()), AMK_RT_OK);
  EXPECT_NE(std::string(amk_rt_error_message(nullptr)).find("positive dims"),
            std::string::npos)
      << amk_rt_error_message(nullptr);
}
