//===- ArgMax.cpp - ArgMax and ArgMin -------------------------------------===//
//
// Part of AMK. ARGMAX (kernel_params.h): the index of the largest
// (variant 0) or smallest (variant 1) element along one axis, for every
// outer row and inner position, the axis walked with the inner stride.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/Dtypes.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Vnni.h"

#include "amk/kernel_params.h"

#include <cmath>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace amk::rt {

namespace {

/// The first index of `best` in x (the largest number): both passes are
/// branch-free scans the loop bodies keep in registers.
int64_t firstIndexOf(const float *x, int64_t n, float best, int64_t from) {
  for (int64_t i = from; i < n; ++i)
    if (x[i] == best)
      return i;
  return 0;
}

int64_t argmaxPortable(const float *x, int64_t n) {
  float best = -INFINITY;
  for (int64_t i = 0; i < n; ++i)
    best = x[i] > best ? x[i] : best;
  return firstIndexOf(x, n, best, 0);
}

#if defined(__x86_64__)
/// Eight lanes of running maxima (vmaxps keeps the lane when the loaded
/// value is NaN), then the first lane-block holding the maximum.
__attribute__((target("avx2"))) int64_t argmaxAvx2(const float *x, int64_t n) {
  __m256 m = _mm256_set1_ps(-INFINITY);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    m = _mm256_max_ps(_mm256_loadu_ps(x + i), m);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, m);
  float best = -INFINITY;
  for (float v : lanes)
    best = v > best ? v : best;
  for (; i < n; ++i)
    best = x[i] > best ? x[i] : best;
  const __m256 b = _mm256_set1_ps(best);
  for (i = 0; i + 8 <= n; i += 8)
    if (int mask = _mm256_movemask_ps(
            _mm256_cmp_ps(_mm256_loadu_ps(x + i), b, _CMP_EQ_OQ)))
      return i + __builtin_ctz(mask);
  return firstIndexOf(x, n, best, i);
}
#endif

/// `at(e)` reads element e of X as C: float32 directly, other types
/// through loadAs (double for floats, 64-bit integers for integers, so
/// every comparison is exact).
template <typename C, typename At>
void argmax(At at, int64_t *Y, int64_t n, int64_t inner, bool last, bool min,
            const int64_t *tile) {
  for (int64_t r = tile[0]; r < tile[1]; ++r)
    for (int64_t j = 0; j < inner; ++j) {
      int64_t base = r * n * inner + j;
      int64_t best = 0;
      C v = at(base);
      for (int64_t i = 1; i < n; ++i) {
        C c = at(base + i * inner);
        // A NaN best is replaced by the first number (c == c).
        bool better = min ? (last ? c <= v : c < v) : (last ? c >= v : c > v);
        if (better || (v != v && c == c)) {
          v = c;
          best = i;
        }
      }
      Y[r * inner + j] = best;
    }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_ARGMAX>::run(const KernelCall &call,
                                      const int64_t *tile, std::string &) {
  const void *X = call.buffers[0];
  int64_t *Y = static_cast<int64_t *>(call.buffers[1]);
  int64_t n = call.ip[AMK_ARGMAX_AXIS], inner = call.ip[AMK_ARGMAX_INNER];
  bool last = call.ip[AMK_ARGMAX_SELECT_LAST] != 0;
  bool min = call.kernel->variant == AMK_ARGMAX_VARIANT_MIN;
  int64_t dt = call.kernel->num_iparams > AMK_ARGMAX_DTYPE
                   ? call.ip[AMK_ARGMAX_DTYPE]
                   : AMK_RT_F32;
  switch (dtypeClass(dt)) {
  case DtypeClass::F32: {
    const float *x = static_cast<const float *>(X);
    if (inner == 1 && !last && !min) {
      // Rows of logits: the vector scan.
      for (int64_t r = tile[0]; r < tile[1]; ++r)
        Y[r] = amk_rt_argmax_f32(x + r * n, n);
      break;
    }
    argmax<float>([x](int64_t e) { return x[e]; }, Y, n, inner, last, min,
                  tile);
    break;
  }
  case DtypeClass::Float:
    argmax<double>([=](int64_t e) { return loadAs<double>(X, dt, e); }, Y, n,
                   inner, last, min, tile);
    break;
  case DtypeClass::Signed:
    argmax<int64_t>([=](int64_t e) { return loadAs<int64_t>(X, dt, e); }, Y, n,
                    inner, last, min, tile);
    break;
  case DtypeClass::Unsigned:
    argmax<uint64_t>([=](int64_t e) { return loadAs<uint64_t>(X, dt, e); }, Y,
                     n, inner, last, min, tile);
    break;
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_ARGMAX>::check(const amk_rt_kernel &k,
                                        const int64_t *ip, const float *,
                                        std::string &error) {
  if (!hasParams(k, AMK_ARGMAX_NUM_IPARAMS, 0, error))
    return false;
  if (k.variant != AMK_ARGMAX_VARIANT_MAX &&
      k.variant != AMK_ARGMAX_VARIANT_MIN) {
    error = "argmax variant " + std::to_string(k.variant) + " is not 0 or 1";
    return false;
  }
  if (k.num_iparams > AMK_ARGMAX_DTYPE && !knownDtype(ip[AMK_ARGMAX_DTYPE])) {
    error =
        "argmax dtype " + std::to_string(ip[AMK_ARGMAX_DTYPE]) + " is unknown";
    return false;
  }
  if (ip[AMK_ARGMAX_OUTER] < 0 || ip[AMK_ARGMAX_AXIS] < 1 ||
      ip[AMK_ARGMAX_INNER] < 0) {
    error = "argmax sizes must be non-negative and the axis at least 1";
    return false;
  }
  return true;
}

} // namespace amk::rt

int64_t amk_rt_argmax_f32(const float *x, int64_t n) {
  if (n < 1)
    return 0;
#if defined(__x86_64__)
  if (amk::rt::hasAvx2())
    return amk::rt::argmaxAvx2(x, n);
#endif
  return amk::rt::argmaxPortable(x, n);
}
