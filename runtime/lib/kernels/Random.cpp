//===- Random.cpp - Random generators -------------------------------------===//
//
// Part of AMK. RANDOM (kernel_params.h): the reference interpreter's
// SplitMix64 draws. SplitMix64 is a counter passed through a mixer, so
// draw j is computed from j alone and tiles run in parallel while the
// values stay those of the interpreter's sequential loop.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/Dtypes.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"
#include "amk/runtime.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace amk::rt {

namespace {

/// Draw `j` (0-based) of a generator started at `state0`, in [0, 1).
double uniformDraw(uint64_t state0, uint64_t j) {
  uint64_t z = state0 + (j + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_RANDOM>::run(const KernelCall &call,
                                      const int64_t *tile, std::string &) {
  const int64_t *ip = call.ip;
  uint64_t state0 = static_cast<uint64_t>(ip[AMK_RAND_STATE]);
  int64_t inT = ip[AMK_RAND_IN_DTYPE], outT = ip[AMK_RAND_OUT_DTYPE];
  const void *in = call.buffers[0];
  void *Y = call.buffers[1];
  double a = call.fp[0], b = call.fp[1];
  int variant = call.kernel->variant;
  if (variant == AMK_RAND_MULTINOMIAL) {
    int64_t C = ip[AMK_RAND_CLASSES], n = ip[AMK_RAND_SAMPLES];
    std::vector<double> cdf(C), picks(n);
    for (int64_t row = tile[0]; row < tile[1]; ++row) {
      // The logits are unnormalized log-probabilities.
      double sum = 0;
      for (int64_t c = 0; c < C; ++c)
        cdf[c] = (sum += std::exp(loadAs<double>(in, inT, row * C + c)));
      for (int64_t s = 0; s < n; ++s) {
        double u = uniformDraw(state0, row * n + s) * sum;
        int64_t c = std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
        picks[s] = (double)std::min(c, C - 1);
      }
      storeChunk(Y, outT, row * n, picks.data(), n);
    }
    return true;
  }
  constexpr int64_t kChunk = 256;
  double v[kChunk];
  for (int64_t i0 = tile[0]; i0 < tile[1]; i0 += kChunk) {
    int64_t m = std::min(kChunk, tile[1] - i0);
    for (int64_t k = 0; k < m; ++k) {
      uint64_t i = i0 + k;
      if (variant == AMK_RAND_NORMAL) {
        double u1 = std::max(uniformDraw(state0, 2 * i), 1e-300),
               u2 = uniformDraw(state0, 2 * i + 1);
        v[k] = a + b * (std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2));
      } else if (variant == AMK_RAND_BERNOULLI) {
        v[k] = uniformDraw(state0, i) < loadAs<double>(in, inT, i) ? 1 : 0;
      } else {
        v[k] = a + (b - a) * uniformDraw(state0, i);
      }
    }
    storeChunk(Y, outT, i0, v, m);
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_RANDOM>::check(const amk_rt_kernel &k,
                                        const int64_t *ip, const float *,
                                        std::string &error) {
  if (!hasParams(k, AMK_RAND_NUM_IPARAMS, 2, error))
    return false;
  bool reads =
      k.variant == AMK_RAND_BERNOULLI || k.variant == AMK_RAND_MULTINOMIAL;
  if (k.num_buffers != 2 || k.variant > AMK_RAND_MULTINOMIAL ||
      !knownDtype(ip[AMK_RAND_OUT_DTYPE]) ||
      (reads && !knownDtype(ip[AMK_RAND_IN_DTYPE])) ||
      (k.variant == AMK_RAND_MULTINOMIAL &&
       (ip[AMK_RAND_CLASSES] < 1 || ip[AMK_RAND_SAMPLES] < 1))) {
    error = "bad random parameters (2 buffers, variant 0-3, known element "
            "types, at least one class and sample)";
    return false;
  }
  return true;
}

} // namespace amk::rt
