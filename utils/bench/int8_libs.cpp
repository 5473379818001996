//===- int8_libs.cpp - libxsmm and oneDNN int8 kernels on AMK's layers ----===//
//
// Part of AMK. The library side of the int8 kernel comparison
// (docs/quantization.md, "Library choice"; utils/bench/int8_libs.py runs
// AMK's side and prints the table). Each library runs one thread, as the
// body of one task would, on a layer's whole problem; every timed result
// is first checked against a plain int32 loop.
//
//   int8_libs gemm M K N REPS
//     X [M][K] u8 times W [K][N] s8:
//     libxsmm  its JIT u8 x s8 -> s32 kernel (libxsmm_subimmdispatch) over
//              blocks of 64 output columns x 64 rows, W packed at set-up
//              into its VNNI layout; int32 out, no epilogue (a lower bound
//              on a layer's time);
//     onednn   matmul, u8 src, s8 weights reordered at set-up into the
//              primitive's layout, per-column output scales, u8 dst;
//     onednn_same_work  the same with what AMK's layer also does: A's
//              zero point, a float bias, the output's zero point.
//   int8_libs conv N C H W OC K STRIDE REPS
//     a KxK convolution, pad K/2, u8 NHWC in, s8 weights:
//     onednn   its int8 convolution: u8 nhwc src and dst, weights in the
//              primitive's layout, bias, per-channel scales, ReLU; the
//              NCHW <-> NHWC reorders AMK's layout would need are timed
//              separately (reorder_ms);
//     onednn_same_work  the same with the activations' and the output's
//              zero points, as AMK's layer has them.
//
// Build: c++ -O2 -march=native -o /tmp/int8_libs utils/bench/int8_libs.cpp
//        -lxsmm -lxsmmnoblas -ldnnl -lpthread -lm -ldl
// Run with OMP_NUM_THREADS=1 (Debian's oneDNN uses OpenMP).
// Output: one JSON object per library on stdout.
//
//===----------------------------------------------------------------------===//

#include <dnnl.hpp>
#include <libxsmm.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

template <typename F> double medianMs(int reps, F &&f) {
  f(); // warm-up: JIT, first touch
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto a = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a)
                    .count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void report(const char *lib, const char *op, double ms, double macs,
            bool ok, double extraMs = -1) {
  std::printf("{\"lib\": \"%s\", \"op\": \"%s\", \"ms\": %.4f, "
              "\"gmacs\": %.1f, \"check\": \"%s\"",
              lib, op, ms, macs / ms / 1e6, ok ? "ok" : "MISMATCH");
  if (extraMs >= 0)
    std::printf(", \"reorder_ms\": %.4f", extraMs);
  std::printf("}\n");
}

int gemm(int M, int K, int N, int reps) {
  std::mt19937 rng(7);
  std::vector<uint8_t> X(size_t(M) * K);
  std::vector<int8_t> W(size_t(K) * N);
  for (auto &v : X)
    v = rng() % 256;
  for (auto &v : W)
    v = int8_t(int(rng() % 255) - 127);
  std::vector<int32_t> ref(size_t(M) * N, 0);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k)
      for (int n = 0; n < N; ++n)
        ref[size_t(m) * N + n] += int32_t(X[size_t(m) * K + k]) *
                                  W[size_t(k) * N + n];
  const double macs = double(M) * K * N;

  // libxsmm: column-major C (N x M, ldc N) = A (N x K, W^T in VNNI blocks
  // [K/4][64][4] per 64-column panel) times B (K x M, X row-major, ldb K).
  if (K % 4 == 0) {
    libxsmm_init();
    const int NB = 64, MB = 64;
    int panels = (N + NB - 1) / NB;
    std::vector<int8_t> packed(size_t(panels) * K * NB, 0);
    for (int p = 0; p < panels; ++p)
      for (int k = 0; k < K; ++k)
        for (int j = 0; j < NB && p * NB + j < N; ++j)
          packed[size_t(p) * K * NB + size_t(k / 4) * NB * 4 + j * 4 +
                 k % 4] = W[size_t(k) * N + p * NB + j];
    std::vector<int32_t> C(size_t(M) * N);
    int flags = LIBXSMM_GEMM_FLAG_VNNI_A;
    int alpha = 1, beta = 0;
    auto kernelFor = [&](int m, int n) {
      libxsmm_blasint lda = NB, ldb = K, ldc = N;
      return libxsmm_subimmdispatch(m, n, K, &lda, &ldb, &ldc, &alpha, &beta,
                                    &flags, nullptr);
    };
    bool ok = true;
    auto run = [&] {
      for (int p = 0; p < panels; ++p) {
        int nc = std::min(NB, N - p * NB);
        for (int m0 = 0; m0 < M; m0 += MB) {
          int mr = std::min(MB, M - m0);
          libxsmm_subimmfunction f = kernelFor(nc, mr);
          if (!f) {
            ok = false;
            return;
          }
          f(reinterpret_cast<const char *>(packed.data() +
                                           size_t(p) * K * NB),
            X.data() + size_t(m0) * K, C.data() + size_t(m0) * N + p * NB);
        }
      }
    };
    run();
    if (ok)
      ok = C == ref;
    double ms = ok ? medianMs(reps, run) : 0;
    report("libxsmm", "gemm", ms, macs, ok);
  }

  // oneDNN matmul.
  using namespace dnnl;
  using dt = memory::data_type;
  using tag = memory::format_tag;
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  memory::desc srcMd({M, K}, dt::u8, tag::ab),
      weiAny({K, N}, dt::s8, tag::any), weiAb({K, N}, dt::s8, tag::ab),
      dstMd({M, N}, dt::s32, tag::ab), dstU8({M, N}, dt::u8, tag::ab);
  // Exactness first (s32 out, no scales), then the timed u8 form.
  auto build = [&](const memory::desc &dst, bool scaled) {
    primitive_attr attr;
    if (scaled)
      attr.set_output_scales(2, std::vector<float>(N, 1.f / 4096));
    matmul::desc d(srcMd, weiAny, dst);
    return matmul::primitive_desc(d, attr, eng);
  };
  memory src(srcMd, eng, X.data()), weiUser(weiAb, eng, W.data());
  auto pdCheck = build(dstMd, false);
  memory wei(pdCheck.weights_desc(), eng);
  reorder(weiUser, wei).execute(s, weiUser, wei);
  std::vector<int32_t> C(size_t(M) * N);
  memory dst(dstMd, eng, C.data());
  matmul(pdCheck).execute(s, {{DNNL_ARG_SRC, src},
                              {DNNL_ARG_WEIGHTS, wei},
                              {DNNL_ARG_DST, dst}});
  s.wait();
  bool ok = C == ref;
  auto pd = build(dstU8, true);
  memory wei2(pd.weights_desc(), eng);
  reorder(weiUser, wei2).execute(s, weiUser, wei2);
  std::vector<uint8_t> Y(size_t(M) * N);
  memory dst2(dstU8, eng, Y.data());
  matmul mm(pd);
  double ms = medianMs(reps, [&] {
    mm.execute(s, {{DNNL_ARG_SRC, src},
                   {DNNL_ARG_WEIGHTS, wei2},
                   {DNNL_ARG_DST, dst2}});
    s.wait();
  });
  report("onednn", "gemm", ms, macs, ok);

  // The work AMK's layer does (check-qdq-kernels' gemm_model): A's zero
  // point, a float bias and the output's zero point as well. Its products
  // were checked above; this times the same primitive with those parts.
  {
    memory::desc biasMd({1, N}, dt::f32, tag::ab);
    primitive_attr attr;
    attr.set_output_scales(2, std::vector<float>(N, 1.f / 4096));
    attr.set_zero_points(DNNL_ARG_SRC, 0, {130});
    attr.set_zero_points(DNNL_ARG_DST, 0, {100});
    matmul::primitive_desc pdFull(matmul::desc(srcMd, weiAny, biasMd, dstU8),
                                  attr, eng);
    memory wei3(pdFull.weights_desc(), eng);
    reorder(weiUser, wei3).execute(s, weiUser, wei3);
    std::vector<float> B(N, 0.25f);
    memory bias(biasMd, eng, B.data());
    matmul full(pdFull);
    double fullMs = medianMs(reps, [&] {
      full.execute(s, {{DNNL_ARG_SRC, src},
                       {DNNL_ARG_WEIGHTS, wei3},
                       {DNNL_ARG_BIAS, bias},
                       {DNNL_ARG_DST, dst2}});
      s.wait();
    });
    report("onednn_same_work", "gemm", fullMs, macs, ok);
  }
  return 0;
}

int conv(int N, int C, int H, int W, int OC, int K, int stride, int reps) {
  using namespace dnnl;
  using dt = memory::data_type;
  using tag = memory::format_tag;
  int pad = K / 2, OH = (H + 2 * pad - K) / stride + 1,
      OW = (W + 2 * pad - K) / stride + 1;
  std::mt19937 rng(7);
  std::vector<uint8_t> X(size_t(N) * H * W * C); // NHWC
  std::vector<int8_t> Wt(size_t(OC) * C * K * K); // OIHW
  for (auto &v : X)
    v = rng() % 256;
  for (auto &v : Wt)
    v = int8_t(int(rng() % 255) - 127);
  std::vector<int32_t> ref(size_t(N) * OH * OW * OC, 0); // NHWC
  for (int n = 0; n < N; ++n)
    for (int oy = 0; oy < OH; ++oy)
      for (int ox = 0; ox < OW; ++ox)
        for (int o = 0; o < OC; ++o) {
          int32_t acc = 0;
          for (int ky = 0; ky < K; ++ky)
            for (int kx = 0; kx < K; ++kx) {
              int iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W)
                continue;
              const uint8_t *xp = &X[((size_t(n) * H + iy) * W + ix) * C];
              for (int c = 0; c < C; ++c)
                acc += int32_t(xp[c]) *
                       Wt[((size_t(o) * C + c) * K + ky) * K + kx];
            }
          ref[((size_t(n) * OH + oy) * OW + ox) * OC + o] = acc;
        }
  const double macs = double(N) * OH * OW * OC * C * K * K;
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  memory::dims strides = {stride, stride}, pads = {pad, pad};
  memory::desc srcMd({N, C, H, W}, dt::u8, tag::nhwc),
      weiAny({OC, C, K, K}, dt::s8, tag::any),
      weiUserMd({OC, C, K, K}, dt::s8, tag::oihw),
      biasMd({OC}, dt::f32, tag::a),
      dstS32({N, OC, OH, OW}, dt::s32, tag::nhwc),
      dstU8({N, OC, OH, OW}, dt::u8, tag::nhwc);
  auto build = [&](const memory::desc &dst, bool epilogue,
                   bool zeroPoints = false) {
    primitive_attr attr;
    if (zeroPoints) {
      // check-qdq-kernels' conv_model: activations at zero point 120, the
      // output at 10.
      attr.set_zero_points(DNNL_ARG_SRC, 0, {120});
      attr.set_zero_points(DNNL_ARG_DST, 0, {10});
    }
    if (epilogue) {
      attr.set_output_scales(2, std::vector<float>(OC, 1.f / 4096));
      post_ops po;
      po.append_eltwise(1.f, algorithm::eltwise_relu, 0.f, 0.f);
      attr.set_post_ops(po);
    }
    convolution_forward::desc d(
        prop_kind::forward_inference, algorithm::convolution_direct, srcMd,
        weiAny, epilogue ? biasMd : memory::desc(), dst, strides, pads, pads);
    return convolution_forward::primitive_desc(d, attr, eng);
  };
  memory src(srcMd, eng, X.data()), weiUser(weiUserMd, eng, Wt.data());
  auto pdCheck = build(dstS32, false);
  memory wei(pdCheck.weights_desc(), eng);
  reorder(weiUser, wei).execute(s, weiUser, wei);
  std::vector<int32_t> Cout(ref.size());
  memory dst(dstS32, eng, Cout.data());
  convolution_forward(pdCheck).execute(
      s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
  s.wait();
  bool ok = Cout == ref;
  auto pd = build(dstU8, true);
  memory wei2(pd.weights_desc(), eng);
  reorder(weiUser, wei2).execute(s, weiUser, wei2);
  std::vector<float> bias(OC, 0.5f);
  memory b(biasMd, eng, bias.data());
  std::vector<uint8_t> Y(size_t(N) * OH * OW * OC);
  memory dst2(dstU8, eng, Y.data());
  convolution_forward cv(pd);
  double ms = medianMs(reps, [&] {
    cv.execute(s, {{DNNL_ARG_SRC, src},
                   {DNNL_ARG_WEIGHTS, wei2},
                   {DNNL_ARG_BIAS, b},
                   {DNNL_ARG_DST, dst2}});
    s.wait();
  });
  // What AMK's NCHW activations would add: NCHW -> NHWC in, back out.
  memory::desc inNchw({N, C, H, W}, dt::u8, tag::nchw),
      outNchw({N, OC, OH, OW}, dt::u8, tag::nchw);
  memory inA(inNchw, eng), outA(outNchw, eng);
  double reorderMs = medianMs(reps, [&] {
    reorder(inA, src).execute(s, inA, src);
    reorder(dst2, outA).execute(s, dst2, outA);
    s.wait();
  });
  report("onednn", "conv", ms, macs, ok, reorderMs);

  // The work AMK's layer does: the activations' and the output's zero
  // points as well.
  auto pdFull = build(dstU8, true, true);
  memory wei3(pdFull.weights_desc(), eng);
  reorder(weiUser, wei3).execute(s, weiUser, wei3);
  convolution_forward full(pdFull);
  double fullMs = medianMs(reps, [&] {
    full.execute(s, {{DNNL_ARG_SRC, src},
                     {DNNL_ARG_WEIGHTS, wei3},
                     {DNNL_ARG_BIAS, b},
                     {DNNL_ARG_DST, dst2}});
    s.wait();
  });
  report("onednn_same_work", "conv", fullMs, macs, ok, reorderMs);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "gemm" && argc == 6)
    return gemm(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]),
                std::atoi(argv[5]));
  if (mode == "conv" && argc == 10)
    return conv(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]),
                std::atoi(argv[5]), std::atoi(argv[6]), std::atoi(argv[7]),
                std::atoi(argv[8]), std::atoi(argv[9]));
  std::fprintf(stderr, "usage: int8_libs gemm M K N REPS | conv N C H W OC "
                       "K STRIDE REPS\n");
  return 2;
}
