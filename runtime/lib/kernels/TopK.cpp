//===- TopK.cpp - TopK and CumSum -----------------------------------------===//
//
// Part of AMK. Scans along one axis of [outer, len, inner]
// (kernel_params.h): TOPK selects with a partial sort per (outer, inner)
// line, CUMSUM keeps a running sum.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/Dtypes.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"
#include "amk/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace amk::rt {

namespace {

/// TopK over elements read by `at` as C (exact for every type: float32 as
/// it is, other floats as double, integers as 64-bit integers); values are
/// copied in X's own bytes.
template <typename C, typename At>
void topk(At at, const KernelCall &call, const int64_t *tile, int64_t eb) {
  const int64_t *ip = call.ip;
  int64_t len = ip[AMK_TOPK_LEN], inner = ip[AMK_TOPK_INNER],
          k = ip[AMK_TOPK_K];
  bool largest = ip[AMK_TOPK_LARGEST] != 0;
  const char *X = static_cast<const char *>(call.buffers[0]);
  char *V = static_cast<char *>(call.buffers[1]);
  int64_t *I = static_cast<int64_t *>(call.buffers[2]);
  std::vector<int64_t> order(len);
  for (int64_t o = tile[0]; o < tile[1]; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      int64_t base = o * len * inner + j;
      // NaN orders above every number (as ONNX Runtime); ties by index.
      auto before = [&](int64_t a, int64_t b) {
        C va = at(base + a * inner), vb = at(base + b * inner);
        bool na = va != va, nb = vb != vb;
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
        int64_t out = (o * k + i) * inner + j;
        std::memcpy(V + out * eb, X + (base + order[i] * inner) * eb, eb);
        I[out] = order[i];
      }
    }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_TOPK>::run(const KernelCall &call, const int64_t *tile,
                                    std::string &) {
  const void *X = call.buffers[0];
  int64_t dt = call.kernel->num_iparams > AMK_TOPK_DTYPE
                   ? call.ip[AMK_TOPK_DTYPE]
                   : AMK_RT_F32;
  int64_t eb = dtypeBytes(dt);
  switch (dtypeClass(dt)) {
  case DtypeClass::F32: {
    const float *x = static_cast<const float *>(X);
    topk<float>([x](int64_t e) { return x[e]; }, call, tile, eb);
    break;
  }
  case DtypeClass::Float:
    topk<double>([=](int64_t e) { return loadAs<double>(X, dt, e); }, call,
                 tile, eb);
    break;
  case DtypeClass::Signed:
    topk<int64_t>([=](int64_t e) { return loadAs<int64_t>(X, dt, e); }, call,
                  tile, eb);
    break;
  case DtypeClass::Unsigned:
    topk<uint64_t>([=](int64_t e) { return loadAs<uint64_t>(X, dt, e); }, call,
                   tile, eb);
    break;
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
      ip[AMK_TOPK_K] > ip[AMK_TOPK_LEN] ||
      (k.num_iparams > AMK_TOPK_DTYPE && !knownDtype(ip[AMK_TOPK_DTYPE]))) {
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
