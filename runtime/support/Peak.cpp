//===- Peak.cpp - The machine's measured limits ---------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "Peak.h"
#include "Fnv1a.h"

#include "runtime/lib/kernels/Vnni.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace amk::rt {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

#if defined(__AVX512F__)
constexpr int kLanes = 16;
#else
constexpr int kLanes = 8;
#endif
typedef float Vec __attribute__((vector_size(kLanes * 4)));

// Twelve independent accumulators cover the FMA latency (4 cycles) times
// the two FMA ports; the asm keeps the compiler from folding the loop.
__attribute__((noinline)) float fmaLoop(uint64_t iters, float seed) {
  Vec acc[12], m, a;
  for (int i = 0; i < 12; ++i)
    for (int l = 0; l < kLanes; ++l)
      acc[i][l] = seed + i + l;
  for (int l = 0; l < kLanes; ++l)
    m[l] = 0.999999f, a[l] = 1e-7f;
  for (uint64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i)
      acc[i] = acc[i] * m + a;
    asm volatile(""
                 : "+v"(acc[0]), "+v"(acc[1]), "+v"(acc[2]), "+v"(acc[3]),
                   "+v"(acc[4]), "+v"(acc[5]), "+v"(acc[6]), "+v"(acc[7]),
                   "+v"(acc[8]), "+v"(acc[9]), "+v"(acc[10]), "+v"(acc[11]));
  }
  float s = 0;
  for (int i = 0; i < 12; ++i)
    for (int l = 0; l < kLanes; ++l)
      s += acc[i][l];
  return s;
}

#if defined(__x86_64__)
// One vpdpbusd is 64 u8 x s8 multiply-adds; twelve chains cover its
// latency on two ports.
__attribute__((noinline, target("avx512f,avx512bw,avx512vnni"))) int32_t
vnniLoop(uint64_t iters, int32_t seed) {
  __m512i acc[12];
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm512_set1_epi32(seed + i);
  __m512i x = _mm512_set1_epi32(0x01020304), w = _mm512_set1_epi32(0x01ff01ff);
  for (uint64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm512_dpbusd_epi32(acc[i], x, w);
    asm volatile(""
                 : "+v"(acc[0]), "+v"(acc[1]), "+v"(acc[2]), "+v"(acc[3]),
                   "+v"(acc[4]), "+v"(acc[5]), "+v"(acc[6]), "+v"(acc[7]),
                   "+v"(acc[8]), "+v"(acc[9]), "+v"(acc[10]), "+v"(acc[11]));
  }
  // The sums wrap (a sink for the optimizer, not a result): unsigned.
  uint32_t s = 0;
  for (int i = 0; i < 12; ++i)
    s += (uint32_t)_mm512_reduce_add_epi32(acc[i]);
  return (int32_t)s;
}

// The AVX2 kernels' inner step: vpmaddwd (16 multiply-adds of 16-bit
// halves) then vpaddd into the accumulator. The product reads the
// accumulator, so it can be neither hoisted nor shared between chains.
__attribute__((noinline, target("avx2"))) int32_t avx2Int8Loop(uint64_t iters,
                                                               int32_t seed) {
  __m256i acc[12];
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm256_set1_epi32(seed + i);
  __m256i w = _mm256_set1_epi32(0x0001ffff);
  for (uint64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(acc[i], w));
    asm volatile(""
                 : "+v"(acc[0]), "+v"(acc[1]), "+v"(acc[2]), "+v"(acc[3]),
                   "+v"(acc[4]), "+v"(acc[5]), "+v"(acc[6]), "+v"(acc[7]),
                   "+v"(acc[8]), "+v"(acc[9]), "+v"(acc[10]), "+v"(acc[11]));
  }
  uint32_t s = 0;
  alignas(32) int32_t l[8];
  for (int i = 0; i < 12; ++i) {
    _mm256_store_si256((__m256i *)l, acc[i]);
    for (int j = 0; j < 8; ++j)
      s += (uint32_t)l[j];
  }
  return (int32_t)s;
}

// Four independent tile products (two A tiles x two B tiles, the
// kernels' blocking): tdpbusd, 16 x 16 x 64 = 16,384 int8 multiply-adds
// each, or (Bf16) tdpbf16ps, 16 x 16 x 32 = 8,192 bf16 ones into float,
// the weight-only products' bf16 mode. The tiles are loaded once, so the
// loop measures the tile unit alone; the inputs are 1.0 and its bf16
// neighbours, or small integers, so nothing overflows.
template <bool Bf16>
__attribute__((noinline, target("amx-tile,amx-int8,amx-bf16"))) int32_t
amxLoop(uint64_t iters, int32_t seed) {
  AmxConfig cfg;
  _tile_loadconfig(&cfg);
  alignas(64) uint16_t buf[512];
  for (int i = 0; i < 512; ++i)
    buf[i] = Bf16 ? (uint16_t)(0x3F80 + (i + seed) % 8)
                  : (uint16_t)((i * 7 + seed) & 0x3F3F);
  _tile_loadd(4, buf, 64);
  _tile_loadd(5, buf, 64);
  _tile_loadd(6, buf, 64);
  _tile_loadd(7, buf, 64);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (uint64_t it = 0; it < iters; ++it) {
    if constexpr (Bf16) {
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    } else {
      _tile_dpbusd(0, 4, 6);
      _tile_dpbusd(1, 4, 7);
      _tile_dpbusd(2, 5, 6);
      _tile_dpbusd(3, 5, 7);
    }
  }
  alignas(64) int32_t out[256];
  _tile_stored(0, out, 64);
  _tile_release();
  return (int32_t)((uint32_t)out[0] + (uint32_t)out[255]);
}
#endif

/// Runs `loop` on `threads` threads at once, `reps` times; the sum over
/// threads of each one's best rate, `opsPerIter` operations per iteration.
template <class Loop>
double bestRateSum(unsigned threads, uint64_t iters, int reps,
                   double opsPerIter, Loop loop) {
  threads = std::max(1u, threads);
  std::vector<double> best(threads, 0);
  for (int rep = 0; rep < reps; ++rep) {
    std::vector<std::thread> ts;
    std::atomic<unsigned> ready{0};
    std::vector<double> secs(threads);
    for (unsigned t = 0; t < threads; ++t)
      ts.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < threads)
          ;
        auto t0 = Clock::now();
        loop(t);
        secs[t] = seconds(t0, Clock::now());
      });
    for (auto &t : ts)
      t.join();
    for (unsigned t = 0; t < threads; ++t)
      best[t] = std::max(best[t], opsPerIter * iters / secs[t] / 1e9);
  }
  double total = 0;
  for (double b : best)
    total += b;
  return total;
}

std::string readFirstLine(const std::string &path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

} // namespace

int peakVectorLanes() { return kLanes; }

double measureFmaPeak(unsigned threads, uint64_t iters, int reps) {
  std::atomic<float> sink{0};
  return bestRateSum(threads, iters, reps, 2.0 * 12 * kLanes,
                     [&](unsigned t) { sink.store(fmaLoop(iters, (float)t)); });
}

const char *int8ProductPath() {
  if (hasVnni())
    return "vnni";
  if (hasAvx2())
    return "avx2";
  return "portable";
}

double measureInt8Peak(unsigned threads, uint64_t iters, int reps) {
  std::atomic<int32_t> sink{0};
#if defined(__x86_64__)
  if (hasVnni())
    return bestRateSum(threads, iters, reps, 12.0 * 64, [&](unsigned t) {
      sink.store(vnniLoop(iters, (int32_t)t));
    });
  if (hasAvx2())
    return bestRateSum(threads, iters, reps, 12.0 * 16, [&](unsigned t) {
      sink.store(avx2Int8Loop(iters, (int32_t)t));
    });
#endif
  return 0;
}

double measureAmxBf16Peak(unsigned threads, uint64_t iters, int reps) {
#if defined(__x86_64__)
  std::atomic<int32_t> sink{0};
  if (hasAmxBf16())
    return bestRateSum(
        threads, iters, reps, 4.0 * 16 * 16 * 32,
        [&](unsigned t) { sink.store(amxLoop<true>(iters, (int32_t)t)); });
#endif
  return 0;
}

double measureAmxPeak(unsigned threads, uint64_t iters, int reps) {
#if defined(__x86_64__)
  std::atomic<int32_t> sink{0};
  if (hasAmx())
    return bestRateSum(
        threads, iters, reps, 4.0 * 16 * 16 * 64,
        [&](unsigned t) { sink.store(amxLoop<false>(iters, (int32_t)t)); });
#endif
  return 0;
}

/// Seconds for `threads` threads each running body(t, lo, hi) over its
/// share [lo, hi) of n elements, all at once.
template <class Body>
double timedSplit(unsigned threads, size_t n, Body body) {
  std::vector<std::thread> ts;
  auto t0 = Clock::now();
  for (unsigned t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      body(t, n * t / threads, n * (t + 1) / threads);
    });
  for (auto &t : ts)
    t.join();
  return seconds(t0, Clock::now());
}

double measureTriadBandwidth(unsigned threads, size_t n, int reps) {
  threads = std::max(1u, threads);
  std::vector<float> a(n), b(n, 1.f), c(n, 2.f);
  double best = 0;
  for (int rep = 0; rep < reps; ++rep) {
    double sec = timedSplit(threads, n, [&](unsigned, size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; ++i)
        a[i] = b[i] + 3.f * c[i];
    });
    best = std::max(best, 3.0 * n * 4 / sec / 1e9);
  }
  if (n && a[n / 2] != 7.f)
    return -1;
  return best;
}

double measureReadBandwidth(unsigned threads, size_t bytes, int reps) {
  threads = std::max(1u, threads);
  const size_t n = bytes / 4;
  std::vector<uint32_t> data(n, 1u);
  std::vector<uint32_t> sums(threads);
  double best = 0;
  for (int rep = 0; rep < reps; ++rep) {
    double sec = timedSplit(threads, n, [&](unsigned t, size_t lo, size_t hi) {
      // Integer sums reassociate, so the compiler vectorizes the loop
      // with several accumulators: the loads, not the adds, set the pace.
      uint32_t s = 0;
      for (size_t i = lo; i < hi; ++i)
        s += data[i];
      sums[t] = s;
    });
    best = std::max(best, 4.0 * n / sec / 1e9);
    uint32_t total = 0;
    for (uint32_t s : sums)
      total += s;
    if (total != (uint32_t)n)
      return -1;
  }
  return best;
}

uint64_t lastLevelCacheBytes() {
  uint64_t best = 0;
  for (int i = 0; i < 8; ++i) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::string size = readFirstLine(dir + "size");
    if (size.empty())
      continue;
    uint64_t v = std::strtoull(size.c_str(), nullptr, 10);
    if (size.back() == 'K')
      v <<= 10;
    else if (size.back() == 'M')
      v <<= 20;
    best = std::max(best, v);
  }
  return best;
}

std::string machineFingerprint() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, model = "unknown cpu", flags;
  while (std::getline(f, line)) {
    auto value = [&] {
      size_t c = line.find(':');
      return c == std::string::npos ? std::string() : line.substr(c + 2);
    };
    if (line.rfind("model name", 0) == 0 && model == "unknown cpu")
      model = value();
    else if (line.rfind("flags", 0) == 0 && flags.empty())
      flags = value();
  }
  // FNV-1a of the feature flags: two machines with the same model name but
  // different enabled ISA extensions (a VM hiding AVX-512) differ.
  uint64_t h = fnv1a(flags.data(), flags.size());
  char buf[64];
  std::snprintf(buf, sizeof(buf), ", %u cpus, flags %016llx",
                std::max(1u, std::thread::hardware_concurrency()),
                (unsigned long long)h);
  return model + buf;
}

} // namespace amk::rt
