//===- TfIdf.cpp - TfIdfVectorizer ----------------------------------------===//
//
// Part of AMK. TFIDF (kernel_params.h): each row counts the pool's
// n-grams found in one token sequence. The pool was sorted at compile
// time, so a candidate n-gram is found by binary search over the entries
// of its length instead of a hash table built per run.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"
#include "amk/runtime.h"

#include <algorithm>
#include <string>

namespace amk::rt {

namespace {

/// The output index of the pool n-gram equal to `key`, or -1. Entries of
/// `count` n-grams of length `n` start at `pool`, n + 1 int64s each.
int64_t findGram(const int64_t *pool, int64_t count, int64_t n,
                 const int64_t *key) {
  int64_t lo = 0, hi = count;
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    const int64_t *e = pool + mid * (n + 1);
    int c = 0;
    for (int64_t i = 0; i < n && c == 0; ++i)
      c = e[i] < key[i] ? -1 : e[i] > key[i] ? 1 : 0;
    if (c == 0)
      return e[n];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_TFIDF>::run(const KernelCall &call,
                                     const int64_t *tile, std::string &) {
  const int64_t *ip = call.ip;
  int64_t L = ip[AMK_TFIDF_L], D = ip[AMK_TFIDF_D], minN = ip[AMK_TFIDF_MIN_N],
          maxN = ip[AMK_TFIDF_MAX_N], maxSkip = ip[AMK_TFIDF_MAX_SKIP],
          mode = ip[AMK_TFIDF_MODE];
  bool i32 = ip[AMK_TFIDF_DTYPE] == AMK_RT_I32;
  const void *X = call.buffers[0];
  const int64_t *pool = static_cast<const int64_t *>(call.buffers[1]);
  const float *wj = static_cast<const float *>(call.buffers[2]);
  float *Y = static_cast<float *>(call.buffers[3]);
  int64_t key[AMK_TFIDF_MAX_GRAM];
  for (int64_t row = tile[0]; row < tile[1]; ++row) {
    auto token = [&](int64_t i) -> int64_t {
      return i32 ? static_cast<const int32_t *>(X)[row * L + i]
                 : static_cast<const int64_t *>(X)[row * L + i];
    };
    float *y = Y + row * D;
    std::fill(y, y + D, 0.f);
    for (int64_t n = minN; n <= maxN; ++n) {
      int64_t off = ip[AMK_TFIDF_POOL + 2 * (n - minN)],
              count = ip[AMK_TFIDF_POOL + 2 * (n - minN) + 1];
      if (count == 0)
        continue;
      for (int64_t start = 0; start < L; ++start)
        for (int64_t skip = 0; skip <= (n == 1 ? 0 : maxSkip); ++skip) {
          if (start + (n - 1) * (skip + 1) >= L)
            break;
          for (int64_t k = 0; k < n; ++k)
            key[k] = token(start + k * (skip + 1));
          int64_t j = findGram(pool + off, count, n, key);
          if (j >= 0)
            y[j] += 1.f;
        }
    }
    for (int64_t j = 0; j < D; ++j) {
      float w = wj ? wj[j] : 1.f;
      y[j] = mode == AMK_TFIDF_MODE_TF    ? y[j]
             : mode == AMK_TFIDF_MODE_IDF ? (y[j] > 0 ? w : 0.f)
                                          : y[j] * w;
    }
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_TFIDF>::check(const amk_rt_kernel &k,
                                       const int64_t *ip, const float *,
                                       std::string &error) {
  if (!hasParams(k, AMK_TFIDF_POOL, 0, error))
    return false;
  int64_t minN = ip[AMK_TFIDF_MIN_N], maxN = ip[AMK_TFIDF_MAX_N];
  if (k.num_buffers != 4 || minN < 1 || maxN < minN ||
      maxN > AMK_TFIDF_MAX_GRAM || ip[AMK_TFIDF_MAX_SKIP] < 0 ||
      ip[AMK_TFIDF_D] < 1 || ip[AMK_TFIDF_MODE] < AMK_TFIDF_MODE_TF ||
      ip[AMK_TFIDF_MODE] > AMK_TFIDF_MODE_TFIDF ||
      (ip[AMK_TFIDF_DTYPE] != AMK_RT_I32 &&
       ip[AMK_TFIDF_DTYPE] != AMK_RT_I64) ||
      k.num_iparams != (uint32_t)(AMK_TFIDF_POOL + 2 * (maxN - minN + 1))) {
    error = "bad TfIdfVectorizer parameters (4 buffers, 1 <= min_n <= max_n "
            "<= " +
            std::to_string(AMK_TFIDF_MAX_GRAM) +
            ", a known mode, int32 or int64 tokens, a pool range per length)";
    return false;
  }
  return true;
}

} // namespace amk::rt
