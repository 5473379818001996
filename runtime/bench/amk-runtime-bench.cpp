//===- amk-runtime-bench.cpp - Runtime microbenchmarks
//---------------------===//
//
// Part of AMK. The figures docs/runtime.md quotes next to the model
// benchmark (scripts/bench-runtime.sh runs them):
//   dispatch  the per-task cost of the runtime: a chain of empty tasks that
//             alternate between two workers, each waiting for the last
//             (one counter signal + one cross-worker wait per task);
//   argmax    a greedy token from N logits: amk_rt_argmax_f32 against a
//             scalar scan;
//   stream    the read-only stream over a buffer of a given size, each
//             run's time (min, median): cache- or memory-served;
//   peak      the machine's float32 FMA peak (a register-only FMA loop on
//             every thread), the runtime's GEMM kernel on an L2-resident
//             problem, and streaming memory bandwidth (a triad, and a
//             read-only stream: what a weight stream per token gets).
// Output is one JSON object on stdout.
//
//===----------------------------------------------------------------------===//

#include "Peak.h"
#include "ProgramBuilder.h"
#include "amk/kernel_params.h"
#include "amk/runtime.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

[[noreturn]] void die(const std::string &msg) {
  std::fprintf(stderr, "amk-runtime-bench: error: %s\n", msg.c_str());
  std::exit(1);
}

int dispatch(unsigned tasks, unsigned workers, unsigned runs) {
  amk::rt::ProgramBuilder b(workers);
  amk::rt::buildNopChain(b, workers, tasks);
  amk_rt_session *s = nullptr;
  if (amk_rt_session_create(&b.get(), nullptr, &s) != AMK_RT_OK)
    die(amk_rt_error_message(nullptr));
  std::vector<double> perTask;
  for (unsigned r = 0; r < runs + 2; ++r) {
    auto t0 = Clock::now();
    if (amk_rt_run(s, nullptr, nullptr) != AMK_RT_OK)
      die(amk_rt_error_message(s));
    auto t1 = Clock::now();
    if (r >= 2) // Two warm-up runs.
      perTask.push_back(seconds(t0, t1) / tasks * 1e9);
  }
  amk_rt_session_destroy(s);
  std::sort(perTask.begin(), perTask.end());
  std::printf("{\"benchmark\":\"dispatch\",\"tasks\":%u,\"workers\":%u,"
              "\"runs\":%u,\"ns_per_task_median\":%.1f,"
              "\"ns_per_task_min\":%.1f}\n",
              tasks, workers, runs, median(perTask), perTask.front());
  return 0;
}

using amk::rt::measureFmaPeak;

/// The runtime's GEMM kernel on C = A B (m x k times k x n), one row tile
/// per worker, timed over repeated runs; the best rate in GFLOP/s.
double gemmRate(unsigned workers, int64_t m, int64_t n, int64_t kd) {
  std::vector<float> A(m * kd, 0.5f), B(kd * n, 0.25f), C(m * n);
  amk::rt::ProgramBuilder b(workers);
  uint32_t in = b.addIO(true, "A", AMK_RT_F32, {m, kd}, 4);
  uint32_t out = b.addIO(false, "C", AMK_RT_F32, {m, n}, 4);
  uint32_t wb = b.addConstant(B.data(), B.size() * 4);
  std::vector<int64_t> ip(AMK_GEMM_NUM_IPARAMS, 0);
  ip[AMK_GEMM_BATCH] = 1, ip[AMK_GEMM_M] = m, ip[AMK_GEMM_N] = n;
  ip[AMK_GEMM_K] = kd, ip[AMK_GEMM_LDA] = kd, ip[AMK_GEMM_LDB] = n;
  ip[AMK_GEMM_LDC] = n;
  std::vector<float> fp(AMK_GEMM_NUM_FPARAMS, 0);
  fp[AMK_GEMM_ALPHA] = 1;
  uint32_t k = b.addKernel(AMK_RT_K_GEMM, 0,
                           {in, wb, out, AMK_RT_NO_BUFFER, AMK_RT_NO_BUFFER},
                           ip, fp, "gemm");
  for (unsigned w = 0; w < workers; ++w)
    b.addTask(k, w, {m * w / workers, m * (w + 1) / workers, 0, n}, {}, -1);
  amk_rt_session *s = nullptr;
  if (amk_rt_session_create(&b.get(), nullptr, &s) != AMK_RT_OK)
    die(amk_rt_error_message(nullptr));
  const void *ins[] = {A.data()};
  void *outs[] = {C.data()};
  std::vector<double> rates;
  for (int r = 0; r < 12; ++r) {
    auto t0 = Clock::now();
    if (amk_rt_run(s, ins, outs) != AMK_RT_OK)
      die(amk_rt_error_message(s));
    double sec = seconds(t0, Clock::now());
    if (r >= 2)
      rates.push_back(2.0 * m * n * kd / sec / 1e9);
  }
  amk_rt_session_destroy(s);
  if (C[0] != 0.125f * kd)
    die("the GEMM benchmark computed a wrong result");
  return *std::max_element(rates.begin(), rates.end());
}

int peak(unsigned threads) {
  double fma = measureFmaPeak(threads);
  double gemm = gemmRate(threads, 512, 512, 512);
  double bw = amk::rt::measureTriadBandwidth(threads);
  double rd = amk::rt::measureReadBandwidth(threads);
  if (bw < 0 || rd < 0)
    die("the bandwidth benchmark computed a wrong result");
  double int8 = amk::rt::measureInt8Peak(threads);
  double amx = amk::rt::measureAmxPeak(threads);
  double amxBf16 = amk::rt::measureAmxBf16Peak(threads);
  std::printf("{\"benchmark\":\"peak\",\"threads\":%u,\"fma_gflops\":%.1f,"
              "\"gemm512_gflops\":%.1f,\"gemm_fraction_of_peak\":%.3f,"
              "\"triad_gbps\":%.1f,\"read_gbps\":%.1f,\"vector_lanes\":%d,"
              "\"int8_gmacs\":%.1f,\"int8_path\":\"%s\","
              "\"amx_int8_gmacs\":%.1f,\"amx_bf16_gmacs\":%.1f}\n",
              threads, fma, gemm, gemm / fma, bw, rd,
              amk::rt::peakVectorLanes(), int8, amk::rt::int8ProductPath(), amx,
              amxBf16);
  return 0;
}

/// The read-only stream over one buffer of `mb` MB, read `runs` times by
/// one thread: whether a working set of that size is served from the
/// cache (a decoder whose weights are near the last-level cache's size)
/// or from memory, and how much that changes from run to run.
int stream(unsigned threads, unsigned mb, unsigned runs) {
  if (threads != 1)
    die("stream measures one thread (--threads 1)");
  const size_t n = ((size_t)mb << 20) / 4;
  std::vector<uint32_t> data(n, 1u);
  std::vector<double> ms;
  for (unsigned r = 0; r < runs + 2; ++r) {
    auto t0 = Clock::now();
    // Integer sums reassociate: the loop vectorizes and the loads set the
    // pace, as in the peak's read-only stream.
    uint32_t sum = 0;
    for (size_t i = 0; i < n; ++i)
      sum += data[i];
    double sec = seconds(t0, Clock::now());
    if (sum != (uint32_t)n)
      die("the stream benchmark computed a wrong result");
    if (r >= 2) // The first passes bring the buffer in.
      ms.push_back(sec * 1e3);
  }
  double best = *std::min_element(ms.begin(), ms.end());
  std::printf("{\"benchmark\":\"stream\",\"mb\":%u,\"threads\":1,"
              "\"runs\":%u,\"min_ms\":%.3f,\"median_ms\":%.3f,"
              "\"best_gbps\":%.1f}\n",
              mb, runs, best, median(ms), 4.0 * n / best / 1e6);
  return 0;
}

/// A greedy token from `n` logits: amk_rt_argmax_f32 against the scalar
/// scan it replaced (the first strictly larger value), both checked equal.
int argmaxBench(unsigned n, unsigned runs) {
  std::vector<float> x(n);
  for (unsigned i = 0; i < n; ++i)
    x[i] = (float)((i * 7919u) % 1000u) * 0.001f;
  std::vector<double> vec, scan;
  int64_t check = 0;
  for (unsigned r = 0; r < runs; ++r) {
    x[r % n] += 1e-4f; // A new maximum now and then.
    auto t0 = Clock::now();
    int64_t a = amk_rt_argmax_f32(x.data(), n);
    auto t1 = Clock::now();
    int64_t b = 0;
    for (unsigned v = 1; v < n; ++v)
      if (x[v] > x[b])
        b = v;
    auto t2 = Clock::now();
    if (a != b)
      die("amk_rt_argmax_f32 disagrees with the scan");
    check += a;
    vec.push_back(seconds(t0, t1) * 1e6);
    scan.push_back(seconds(t1, t2) * 1e6);
  }
  std::printf("{\"benchmark\":\"argmax\",\"n\":%u,\"runs\":%u,"
              "\"median_us\":%.3f,\"scan_median_us\":%.3f,\"check\":%lld}\n",
              n, runs, median(vec), median(scan), (long long)(check % 1000));
  return 0;
}

unsigned number(const char *flag, const char *v) {
  char *end = nullptr;
  unsigned long x = v ? std::strtoul(v, &end, 10) : 0;
  if (!v || *end || x == 0 || x > 10'000'000)
    die(std::string(flag) + " needs a positive number");
  return (unsigned)x;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    die("usage: amk-runtime-bench dispatch [--tasks N] [--workers W] "
        "[--runs R] | peak [--threads T] | gemm [--m M --n N --k K "
        "--threads T] | stream [--mb MB --threads T --runs R] | argmax "
        "[--n N --runs R]");
  std::string mode = argv[1];
  unsigned tasks = 10000, workers = 2, runs = 21, threads = 1, m = 512, n = 512,
           kd = 512, mb = 512, vocab = 0;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--tasks")
      tasks = number("--tasks", v), ++i;
    else if (a == "--workers")
      workers = number("--workers", v), ++i;
    else if (a == "--runs")
      runs = number("--runs", v), ++i;
    else if (a == "--threads")
      threads = number("--threads", v), ++i;
    else if (a == "--m")
      m = number("--m", v), ++i;
    else if (a == "--n")
      n = number("--n", v), vocab = n, ++i;
    else if (a == "--k")
      kd = number("--k", v), ++i;
    else if (a == "--mb")
      mb = number("--mb", v), ++i;
    else
      die("unknown argument '" + a + "'");
  }
  if (mode == "dispatch")
    return dispatch(tasks, workers, runs);
  if (mode == "peak")
    return peak(threads);
  if (mode == "stream")
    return stream(threads, mb, runs);
  if (mode == "argmax")
    return argmaxBench(vocab ? vocab : 32000, runs);
  if (mode == "gemm") {
    std::printf("{\"benchmark\":\"gemm\",\"m\":%u,\"n\":%u,\"k\":%u,"
                "\"threads\":%u,\"gflops\":%.1f}\n",
                m, n, kd, threads, gemmRate(threads, m, n, kd));
    return 0;
  }
  die("unknown mode '" + mode + "' (dispatch, peak, gemm, stream or argmax)");
}
