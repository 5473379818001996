//===- TopK.cpp - TopK and CumSum -----------------------------------------===//
//
// Part of AMK. Scans along one axis of [outer, len, inner]
// (kernel_params.h): TOPK selects with a partial sort per (outer, inner)
// line, CUMSUM keeps a running sum.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"
#include "amk/runtime.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace amk::rt {

template <>
bool KernelImpl<AMK_RT_K_TOPK>::run(const KernelCall &call, const int64_t *tile,
                                    std::string &) {
  const int64_t *ip = call.ip;
  int64_t len = ip[AMK_TOPK_LEN], inner = ip[AMK_TOPK_INNER],
          k = ip[AMK_TOPK_K];
  bool largest = ip[AMK_TOPK_LARGEST] != 0;
  const float *X = static_cast<const float *>(call.buffers[0]);
  float *V = static_cast<float *>(call.buffers[1]);
  int64_t *I = static_cast<int64_t *>(call.buffers[2]);
  std::vector<int64_t> order(len);
  for (int64_t o = tile[0]; o < tile[1]; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      const float *x = X + o * len * inner + j;
      // NaN orders above every number (as ONNX Runtime); ties by index.
      auto before = [&](int64_t a, int64_t b) {
        float va = x[a * inner], vb = x[b * inner];
        bool na = std::isnan(va), nb = std::isnan(vb);
        if (na != nb)
          return largest ? na : nb;
        if (!na && va != vb)
          return largest ? va > vb : va < vb;
        return a < b;
      };
      for (int64_t i = 0; i < len; ++i)
        order[i] = i;
      std::partial_sort(order.begin(), order.begin() + k, order.end(),
                        before);
      for (int64_t i = 0; i < k; ++i) {
        V[(o * k + i) * inner + j] = x[order[i] * inner];
        I[(o * k + i) * inner + j] = order[i];
      }
    }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_TOPK>::check(const amk_rt_kernel &k,
                                      const int64_t *ip, const float *,
                                      std::string &error) {
  if (!hasParams(k, AMK_TOPK_NUM_IPARAMS, 0, error))
    return false;
  if (k.num_buffers != 3 || ip[AMK_TOPK_K] < 0 ||
      ip[AMK_TOPK_K] > ip[AMK_TOPK_LEN]) {
    error = "bad TopK parameters (3 buffers, 0 <= k <= the axis length)";
    return false;
  }
  return true;
}

namespace {

template <typename T>
void cumsum(const T *X, T *Y, const int64_t *ip, const int64_t *tile) {
  int64_t len = ip[AMK_CUMSUM_LEN], inner = ip[AMK_CUMSUM_INNER];
  bool exclusive = ip[AMK_CUMSUM_EXCLUSIVE] != 0,
       reverse = ip[AMK_CUMSUM_REVERSE] != 0;
  for (int64_t o = tile[0]; o < tile[1]; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      T acc = 0;
      for (int64_t s = 0; s < len; ++s) {
        int64_t i = reverse ? len - 1 - s : s;
        int64_t at = (o * len + i) * inner + j;
        T v = X[at];
        if (exclusive) {
          Y[at] = acc;
          acc += v;
        } else {
          acc += v;
          Y[at] = acc;
        }
      }
    }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_CUMSUM>::run(const KernelCall &call,
                                      const int64_t *tile, std::string &) {
  const void *X = call.buffers[0];
  void *Y = call.buffers[1];
  switch (call.ip[AMK_CUMSUM_DTYPE]) {
  case AMK_RT_F64:
    cumsum(static_cast<const double *>(X), static_cast<double *>(Y), call.ip,
           tile);
    break;
  case AMK_RT_I64:
    cumsum(static_cast<const int64_t *>(X), static_cast<int64_t *>(Y), call.ip,
           tile);
    break;
  case AMK_RT_I32:
    cumsum(static_cast<const int32_t *>(X), static_cast<int32_t *>(Y), call.ip,
           tile);
    break;
  default:
    cumsum(static_cast<const float *>(X), static_cast<float *>(Y), call.ip,
           tile);
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_CUMSUM>::check(const amk_rt_kernel &k,
                                        const int64_t *ip, const float *,
                                        std::string &error) {
  if (!hasParams(k, AMK_CUMSUM_NUM_IPARAMS, 0, error))
    return false;
  int64_t dt = ip[AMK_CUMSUM_DTYPE];
  if (k.num_buffers != 2 || (dt != AMK_RT_F32 && dt != AMK_RT_F64 &&
                             dt != AMK_RT_I32 && dt != AMK_RT_I64)) {
    error = "bad CumSum parameters (2 buffers; float32, float64, int32 or "
            "int64)";
    return false;
  }
  return true;
}

} // namespace amk::rt
