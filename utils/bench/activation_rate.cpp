//===- activation_rate.cpp - ns per element of an epilogue activation ----===//
//
// Part of AMK. Times applyActivation (runtime/lib/kernels/Activation.cpp)
// on 131,072 values in rows of 64 and of 1024, the best of 50 passes, and
// prints its largest error against the double-precision formula: GELU,
// the figure behind docs/runtime.md's GELU rate, then sigmoid and SiLU
// (QuickGelu with alpha 1) on values in [-12, 12], behind sigmoidV's. Build
// from the repository root after a build (for the generated headers):
//   clang++-22 -O3 -march=native -std=c++17 -I. -Iruntime/include -Ibuild \
//     -o /tmp/activation_rate utils/bench/activation_rate.cpp \
//     runtime/lib/kernels/Activation.cpp
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  std::vector<float> x(131072), y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(i * 0.37f) * 4;
  for (int n : {64, 1024}) {
    double best = 1e9;
    for (int r = 0; r < 50; ++r) {
      y = x;
      auto t0 = std::chrono::steady_clock::now();
      for (size_t i = 0; i < y.size(); i += n)
        amk::rt::applyActivation(y.data() + i, n, AMK_OP_GELU, 0, 0);
      best = std::min(best, std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - t0)
                                .count());
    }
    std::printf("GELU, rows of %d: %.3f ns an element\n", n,
                best / x.size() * 1e9);
  }
  double err = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i], want = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    err = std::max(err, std::fabs(want - y[i]));
  }
  std::printf("largest absolute error %.3g\n", err);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(i * 0.37f) * 12;
  for (int op : {AMK_OP_SIGMOID, AMK_OP_QUICK_GELU}) {
    double best = 1e9;
    for (int r = 0; r < 50; ++r) {
      y = x;
      auto t0 = std::chrono::steady_clock::now();
      for (size_t i = 0; i < y.size(); i += 1024)
        amk::rt::applyActivation(y.data() + i, 1024, op, 1.f, 0);
      best = std::min(best, std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - t0)
                                .count());
    }
    double rel = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      double v = x[i], s = 1 / (1 + std::exp(-v));
      double want = op == AMK_OP_SIGMOID ? s : v * s;
      if (want != 0)
        rel = std::max(rel, std::fabs(want - y[i]) / std::fabs(want));
    }
    std::printf("%s, rows of 1024: %.3f ns an element, largest relative "
                "error %.3g\n",
                op == AMK_OP_SIGMOID ? "sigmoid" : "SiLU",
                best / x.size() * 1e9, rel);
  }
}
