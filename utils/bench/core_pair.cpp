//===- core_pair.cpp - What two cores of this machine share ---------------===//
//
// Part of AMK. Measures, for CPUs 0 and 1: FMA throughput and read
// bandwidth from memory of each alone and of both at once (do they share
// a core, or a memory channel?), the round trip of a cache line between
// them, and how fast CPU 0 reads data that CPU 1 (or CPU 0) has just
// written. The figures behind docs/runtime.md's twenty-eighth session.
// Build and run (AVX-512 machine):
//   clang++-22 -O2 -mavx512f -pthread -o /tmp/core_pair \
//     utils/bench/core_pair.cpp && /tmp/core_pair
//
//===----------------------------------------------------------------------===//

#include <immintrin.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

double seconds(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// GFLOP/s of 12 independent FMA chains.
double fmaRate() {
  __m512 a[12];
  for (int i = 0; i < 12; ++i)
    a[i] = _mm512_set1_ps(i * 1e-3f);
  const __m512 b = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(1e-4f);
  const long n = 20000000;
  auto t0 = Clock::now();
  for (long k = 0; k < n; ++k)
    for (int i = 0; i < 12; ++i)
      a[i] = _mm512_fmadd_ps(a[i], b, c);
  double s = seconds(t0);
  volatile float sink = 0;
  for (int i = 0; i < 12; ++i)
    sink = sink + _mm512_reduce_add_ps(a[i]);
  return n * 12.0 * 32 / s / 1e9;
}

/// GB/s of summing `n` floats, the best of 5 passes.
double readRate(const float *p, size_t n) {
  double best = 1e30;
  volatile float sink = 0;
  for (int r = 0; r < 5; ++r) {
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    auto t0 = Clock::now();
    for (size_t i = 0; i < n; i += 64) {
      s0 = _mm512_add_ps(s0, _mm512_load_ps(p + i));
      s1 = _mm512_add_ps(s1, _mm512_load_ps(p + i + 16));
      s2 = _mm512_add_ps(s2, _mm512_load_ps(p + i + 32));
      s3 = _mm512_add_ps(s3, _mm512_load_ps(p + i + 48));
    }
    best = std::min(best, seconds(t0));
    sink = sink + _mm512_reduce_add_ps(s0 + s1 + s2 + s3);
  }
  return n * 4.0 / best / 1e9;
}

template <typename F> void both(F f, double &r0, double &r1) {
  std::thread t([&] {
    pin(1);
    r1 = f(1);
  });
  pin(0);
  r0 = f(0);
  t.join();
}

} // namespace

int main() {
  double a, b;
  pin(0);
  a = fmaRate();
  std::thread([&] {
    pin(1);
    b = fmaRate();
  }).join();
  std::printf("FMA alone: cpu0 %.1f, cpu1 %.1f GFLOP/s\n", a, b);
  both([](int) { return fmaRate(); }, a, b);
  std::printf("FMA together: %.1f + %.1f GFLOP/s\n", a, b);

  const size_t big = size_t(256) << 18; // 256 MB of floats
  std::vector<float *> bufs(2);
  for (float *&p : bufs) {
    p = static_cast<float *>(std::aligned_alloc(64, big * 4));
    for (size_t i = 0; i < big; ++i)
      p[i] = 1.f;
  }
  pin(0);
  std::printf("memory read alone: cpu0 %.1f GB/s\n", readRate(bufs[0], big));
  both([&](int c) { return readRate(bufs[c], big); }, a, b);
  std::printf("memory read together: %.1f + %.1f GB/s\n", a, b);

  // A cache line's round trip: CPU 0 writes, CPU 1 answers.
  std::atomic<long> flag{0};
  const long trips = 200000;
  std::thread echo([&] {
    pin(1);
    for (long i = 0; i < trips; ++i) {
      while (flag.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      flag.store(2 * i + 2, std::memory_order_release);
    }
  });
  pin(0);
  auto t0 = Clock::now();
  for (long i = 0; i < trips; ++i) {
    flag.store(2 * i + 1, std::memory_order_release);
    while (flag.load(std::memory_order_acquire) != 2 * i + 2) {
    }
  }
  double s = seconds(t0);
  echo.join();
  std::printf("cache line round trip cpu0 <-> cpu1: %.0f ns\n",
              s / trips * 1e9);

  // CPU 0 reads what `writer` has just written (each pass rewritten).
  for (size_t kb : {256, 1024, 4096}) {
    const size_t n = kb * 256;
    for (int writer : {0, 1}) {
      double best = 1e30;
      volatile float sink = 0;
      for (int r = 0; r < 10; ++r) {
        std::thread([&] {
          pin(writer);
          for (size_t i = 0; i < n; ++i)
            bufs[1][i] = float(i + r);
        }).join();
        pin(0);
        auto t1 = Clock::now();
        __m512 acc = _mm512_setzero_ps();
        for (size_t i = 0; i < n; i += 16)
          acc = _mm512_add_ps(acc, _mm512_load_ps(bufs[1] + i));
        best = std::min(best, seconds(t1));
        sink = sink + _mm512_reduce_add_ps(acc);
      }
      std::printf("%zu KB written by cpu%d, read by cpu0: %.1f GB/s\n", kb,
                  writer, n * 4.0 / best / 1e9);
    }
  }
  for (float *p : bufs)
    std::free(p);
}
