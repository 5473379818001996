//===- activation_rate.cpp - ns per element of an epilogue activation ----===//
//
// Part of AMK. Times applyActivation (runtime/lib/kernels/Activation.cpp)
// on 131,072 values in rows of 64 and of 1024, the best of 50 passes, and
// prints its largest error against the double-precision formula (GELU
// only), the figure behind docs/runtime.md's GELU rate. Build from the
// repository root after a build (for the generated headers):
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
}
