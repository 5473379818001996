//===- Einsum.cpp - Einsum and Det ----------------------------------------===//
//
// Part of AMK. EINSUM (kernel_params.h): every output element sums the
// product of its inputs over the contracted labels, walked as an
// odometer. Einsum in exported models is mostly small (a transpose, a
// batched product the exporter did not turn into MatMul); the GEMM kernel
// is the fast path for what the graph passes recognize. DET (small
// matrices, batched) eliminates with partial pivoting.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/Dtypes.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"

#include <cmath>
#include <string>
#include <vector>

namespace amk::rt {

template <>
bool KernelImpl<AMK_RT_K_EINSUM>::run(const KernelCall &call,
                                      const int64_t *tile, std::string &) {
  const int64_t *ip = call.ip;
  int64_t nin = ip[AMK_EINSUM_NIN], L = ip[AMK_EINSUM_NLABELS],
          nout = ip[AMK_EINSUM_NOUT], ydtype = ip[AMK_EINSUM_DTYPE];
  const int64_t *sizes = ip + AMK_EINSUM_SIZES;
  const int64_t *dt[3], *st[3];
  for (int64_t i = 0; i < nin; ++i) {
    dt[i] = sizes + L + i * (1 + L);
    st[i] = dt[i] + 1;
  }
  for (int64_t o = tile[0]; o < tile[1]; ++o) {
    int64_t coord[AMK_EINSUM_MAX_LABELS] = {};
    for (int64_t l = nout - 1, rest = o; l >= 0; --l) {
      coord[l] = rest % sizes[l];
      rest /= sizes[l];
    }
    double acc = 0;
    bool empty = false;
    for (int64_t l = nout; l < L; ++l)
      empty |= sizes[l] == 0;
    while (!empty) {
      double prod = 1;
      for (int64_t i = 0; i < nin; ++i) {
        int64_t off = 0;
        for (int64_t l = 0; l < L; ++l)
          off += coord[l] * st[i][l];
        prod *= loadAs<double>(call.buffers[1 + i], *dt[i], off);
      }
      acc += prod;
      // Next combination of the contracted labels.
      int64_t l = L - 1;
      for (; l >= nout; --l) {
        if (++coord[l] < sizes[l])
          break;
        coord[l] = 0;
      }
      if (l < nout)
        break;
    }
    storeChunk<double>(call.buffers[0], ydtype, o, &acc, 1);
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_EINSUM>::check(const amk_rt_kernel &k,
                                        const int64_t *ip, const float *,
                                        std::string &error) {
  if (!hasParams(k, AMK_EINSUM_SIZES, 0, error))
    return false;
  int64_t nin = ip[AMK_EINSUM_NIN], L = ip[AMK_EINSUM_NLABELS],
          nout = ip[AMK_EINSUM_NOUT];
  bool ok = nin >= 1 && nin <= 3 && L >= 0 && L <= AMK_EINSUM_MAX_LABELS &&
            nout >= 0 && nout <= L && k.num_buffers == (uint32_t)nin + 1 &&
            k.num_iparams ==
                (uint32_t)(AMK_EINSUM_SIZES + L + nin * (1 + L)) &&
            knownDtype(ip[AMK_EINSUM_DTYPE]);
  for (int64_t i = 0; ok && i < nin; ++i)
    ok = knownDtype(ip[AMK_EINSUM_SIZES + L + i * (1 + L)]);
  if (!ok)
    error = "bad einsum parameters (1-3 inputs, at most 16 labels)";
  return ok;
}

} // namespace amk::rt

namespace amk::rt {

template <>
bool KernelImpl<AMK_RT_K_DET>::run(const KernelCall &call, const int64_t *tile,
                                   std::string &) {
  int64_t n = call.ip[AMK_DET_N];
  const float *X = static_cast<const float *>(call.buffers[0]);
  float *Y = static_cast<float *>(call.buffers[1]);
  std::vector<double> a(n * n);
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    for (int64_t i = 0; i < n * n; ++i)
      a[i] = X[r * n * n + i];
    double det = 1;
    for (int64_t c = 0; c < n && det != 0; ++c) {
      int64_t p = c;
      for (int64_t i = c + 1; i < n; ++i)
        if (std::fabs(a[i * n + c]) > std::fabs(a[p * n + c]))
          p = i;
      if (a[p * n + c] == 0) {
        det = 0;
        break;
      }
      if (p != c) {
        for (int64_t j = 0; j < n; ++j)
          std::swap(a[p * n + j], a[c * n + j]);
        det = -det;
      }
      det *= a[c * n + c];
      for (int64_t i = c + 1; i < n; ++i) {
        double f = a[i * n + c] / a[c * n + c];
        for (int64_t j = c; j < n; ++j)
          a[i * n + j] -= f * a[c * n + j];
      }
    }
    Y[r] = (float)det;
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_DET>::check(const amk_rt_kernel &k, const int64_t *ip,
                                     const float *, std::string &error) {
  if (!hasParams(k, 2, 0, error))
    return false;
  if (k.num_buffers != 2 || ip[AMK_DET_N] < 1) {
    error = "bad Det parameters";
    return false;
  }
  return true;
}

} // namespace amk::rt
