//===- split_reads.cpp - Two cores reading halves of one buffer -----------===//
//
// Part of AMK. Two threads pinned to CPUs 0 and 1 read 64 planes of
// 112 x 112 floats (3.2 MB) and write them to a second buffer, 2,000
// rounds, barrier between rounds; each prints its best round. Mode 0: each
// thread a contiguous half of the buffer (a split by planes); mode 1: each
// the same half of every plane (a split by rows); mode 2: as 1, the second
// thread walking the planes backwards. The figures behind docs/runtime.md's
// thirtieth session (pools cut by rows). Build and run (AVX-512 machine):
//   clang++-22 -O2 -mavx512f -pthread -o /tmp/split_reads \
//     utils/bench/split_reads.cpp && for m in 0 1 2; do /tmp/split_reads $m;
//     done
//
//===----------------------------------------------------------------------===//

#include <immintrin.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

} // namespace

int main(int argc, char **argv) {
  const size_t planes = 64, plane = 112 * 112, n = planes * plane;
  float *x = static_cast<float *>(aligned_alloc(64, n * 4));
  float *y = static_cast<float *>(aligned_alloc(64, n * 4));
  for (size_t i = 0; i < n; ++i)
    x[i] = i % 7;
  const int mode = argc > 1 ? atoi(argv[1]) : 0, rounds = 2000;
  std::atomic<int> start{0}, done{0};
  double best[2] = {1e30, 1e30};
  auto work = [&](int t) {
    pin(t);
    for (int r = 0; r < rounds; ++r) {
      start.fetch_add(1);
      while (start.load() < 2 * (r + 1)) {
      }
      auto t0 = std::chrono::steady_clock::now();
      __m512 acc = _mm512_setzero_ps();
      auto copy = [&](size_t b, size_t e) {
        for (size_t i = b; i < e; i += 16) {
          __m512 v = _mm512_load_ps(x + i);
          acc = _mm512_max_ps(acc, v);
          _mm512_store_ps(y + i, v);
        }
      };
      if (mode == 0)
        copy(t * n / 2, (t + 1) * n / 2);
      else
        for (size_t p = 0; p < planes; ++p) {
          size_t q = mode == 2 && t ? planes - 1 - p : p;
          copy(q * plane + t * plane / 2, q * plane + (t + 1) * plane / 2);
        }
      double us = std::chrono::duration<double, std::micro>(
                      std::chrono::steady_clock::now() - t0)
                      .count();
      best[t] = us < best[t] ? us : best[t];
      if (_mm512_reduce_max_ps(acc) < 0) // Keeps the loads.
        std::puts("");
      done.fetch_add(1);
      while (done.load() < 2 * (r + 1)) {
      }
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  std::printf("mode %d best round (us): CPU 0 %.1f, CPU 1 %.1f\n", mode,
              best[0], best[1]);
}
