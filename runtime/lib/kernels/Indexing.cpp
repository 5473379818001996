//===- Indexing.cpp - GatherND, ScatterND, ScatterElements ----------------===//
//
// Part of AMK. The index-driven data movement kernels (kernel_params.h).
// Every index is checked against its dim (negative ones count from the
// end) and a bad one is a kernel error naming it. The scatters run as one
// task: ONNX applies their updates in order, and a reduction over
// duplicate indices must see them one after another.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/Dtypes.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"
#include "amk/runtime.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace amk::rt {

namespace {

int64_t indexAt(const void *idx, int64_t dtype, int64_t i) {
  return dtype == AMK_RT_I32 ? static_cast<const int32_t *>(idx)[i]
                             : static_cast<const int64_t *>(idx)[i];
}

/// `i` checked against `dim` and made non-negative; false if out of range.
bool normalize(int64_t &i, int64_t dim, const char *op, std::string &error) {
  if (i < -dim || i >= dim) {
    error = std::string(op) + " index " + std::to_string(i) +
            " is out of range [" + std::to_string(-dim) + ", " +
            std::to_string(dim) + ")";
    return false;
  }
  if (i < 0)
    i += dim;
  return true;
}

template <typename T> void combine(T &dst, T v, int64_t reduction) {
  switch (reduction) {
  case AMK_SCATTER_ADD:
    dst = dst + v;
    break;
  case AMK_SCATTER_MUL:
    dst = dst * v;
    break;
  case AMK_SCATTER_MAX:
    dst = std::max(dst, v);
    break;
  case AMK_SCATTER_MIN:
    dst = std::min(dst, v);
    break;
  default:
    dst = v;
  }
}

/// dst[0..n) combined with src[0..n) as `dtype` values: float32, float64,
/// int32 and int64 in their type, the others through double (floats) or
/// 64-bit integers (wrapping as their own arithmetic would).
void combineRun(void *dst, const void *src, int64_t n, int64_t dtype,
                int64_t reduction) {
  auto run = [&](auto *d, const auto *s) {
    for (int64_t i = 0; i < n; ++i)
      combine(d[i], s[i], reduction);
  };
  auto widened = [&](auto zero) {
    using C = decltype(zero);
    for (int64_t i = 0; i < n; ++i) {
      C d = loadAs<C>(dst, dtype, i);
      combine(d, loadAs<C>(src, dtype, i), reduction);
      storeChunk<C>(dst, dtype, i, &d, 1);
    }
  };
  switch (dtype) {
  case AMK_RT_F32:
    return run(static_cast<float *>(dst), static_cast<const float *>(src));
  case AMK_RT_F64:
    return run(static_cast<double *>(dst), static_cast<const double *>(src));
  case AMK_RT_I64:
    return run(static_cast<int64_t *>(dst), static_cast<const int64_t *>(src));
  case AMK_RT_I32:
    return run(static_cast<int32_t *>(dst), static_cast<const int32_t *>(src));
  }
  switch (dtypeClass(dtype)) {
  case DtypeClass::Signed:
    return widened(int64_t(0));
  case DtypeClass::Unsigned:
    return widened(uint64_t(0));
  default:
    return widened(0.0);
  }
}

bool reducible(int64_t dtype) { return knownDtype(dtype); }

} // namespace

template <>
bool KernelImpl<AMK_RT_K_GATHER_ND>::run(const KernelCall &call,
                                         const int64_t *tile,
                                         std::string &error) {
  const int64_t *ip = call.ip;
  int64_t Ni = ip[AMK_GND_NI], q = ip[AMK_GND_Q], slice = ip[AMK_GND_SLICE],
          eb = ip[AMK_GND_ELEM_BYTES], idt = ip[AMK_GND_IDX_DTYPE];
  const int64_t *dims = ip + AMK_GND_DIMS;
  int64_t batchElems = slice;
  for (int64_t d = 0; d < q; ++d)
    batchElems *= dims[d];
  const char *data = static_cast<const char *>(call.buffers[0]);
  char *Y = static_cast<char *>(call.buffers[2]);
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t b = r / Ni, off = 0;
    for (int64_t d = 0; d < q; ++d) {
      int64_t i = indexAt(call.buffers[1], idt, r * q + d);
      if (!normalize(i, dims[d], "GatherND", error))
        return false;
      off = off * dims[d] + i;
    }
    std::memcpy(Y + r * slice * eb,
                data + (b * batchElems + off * slice) * eb, slice * eb);
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_GATHER_ND>::check(const amk_rt_kernel &k,
                                           const int64_t *ip, const float *,
                                           std::string &error) {
  if (!hasParams(k, AMK_GND_DIMS, 0, error))
    return false;
  if (k.num_buffers != 3 || ip[AMK_GND_Q] < 0 ||
      k.num_iparams != (uint32_t)(AMK_GND_DIMS + ip[AMK_GND_Q])) {
    error = "bad GatherND parameters";
    return false;
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_SCATTER_ND>::run(const KernelCall &call,
                                          const int64_t *, std::string &error) {
  const int64_t *ip = call.ip;
  int64_t N = ip[AMK_SND_N], q = ip[AMK_SND_Q], slice = ip[AMK_SND_SLICE],
          dtype = ip[AMK_SND_DTYPE], red = ip[AMK_SND_REDUCTION],
          idt = ip[AMK_SND_IDX_DTYPE];
  const int64_t *dims = ip + AMK_SND_DIMS;
  int64_t total = dims[q], eb = dtypeBytes(dtype);
  char *Y = static_cast<char *>(call.buffers[3]);
  const char *U = static_cast<const char *>(call.buffers[2]);
  if (Y != call.buffers[0])
    std::memcpy(Y, call.buffers[0], total * eb);
  for (int64_t n = 0; n < N; ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < q; ++d) {
      int64_t i = indexAt(call.buffers[1], idt, n * q + d);
      if (!normalize(i, dims[d], "ScatterND", error))
        return false;
      off = off * dims[d] + i;
    }
    char *dst = Y + off * slice * eb;
    const char *src = U + n * slice * eb;
    if (red == AMK_SCATTER_NONE)
      std::memcpy(dst, src, slice * eb);
    else
      combineRun(dst, src, slice, dtype, red);
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_SCATTER_ND>::check(const amk_rt_kernel &k,
                                            const int64_t *ip, const float *,
                                            std::string &error) {
  if (!hasParams(k, AMK_SND_DIMS, 0, error))
    return false;
  int64_t q = ip[AMK_SND_Q], red = ip[AMK_SND_REDUCTION];
  if (k.num_buffers != 4 || q < 0 ||
      k.num_iparams != (uint32_t)(AMK_SND_DIMS + q + 1) || red < 0 ||
      red > AMK_SCATTER_MIN ||
      (red != AMK_SCATTER_NONE && !reducible(ip[AMK_SND_DTYPE]))) {
    error = "bad ScatterND parameters";
    return false;
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_SCATTER_ELEMENTS>::run(const KernelCall &call,
                                                const int64_t *,
                                                std::string &error) {
  const int64_t *ip = call.ip;
  int64_t rank = ip[AMK_SE_RANK], axis = ip[AMK_SE_AXIS],
          dtype = ip[AMK_SE_DTYPE], red = ip[AMK_SE_REDUCTION],
          idt = ip[AMK_SE_IDX_DTYPE];
  const int64_t *idims = ip + AMK_SE_DIMS, *ddims = idims + rank;
  int64_t eb = dtypeBytes(dtype), total = 1, count = 1;
  int64_t dstride[8];
  for (int64_t d = rank - 1; d >= 0; --d) {
    dstride[d] = total;
    total *= ddims[d];
    count *= idims[d];
  }
  char *Y = static_cast<char *>(call.buffers[3]);
  const char *U = static_cast<const char *>(call.buffers[2]);
  if (Y != call.buffers[0])
    std::memcpy(Y, call.buffers[0], total * eb);
  for (int64_t p = 0; p < count; ++p) {
    int64_t i = indexAt(call.buffers[1], idt, p);
    if (!normalize(i, ddims[axis], "ScatterElements", error))
      return false;
    int64_t off = 0;
    for (int64_t d = rank - 1, rest = p; d >= 0; --d) {
      int64_t c = rest % idims[d];
      rest /= idims[d];
      off += (d == axis ? i : c) * dstride[d];
    }
    if (red == AMK_SCATTER_NONE)
      std::memcpy(Y + off * eb, U + p * eb, eb);
    else
      combineRun(Y + off * eb, U + p * eb, 1, dtype, red);
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_SCATTER_ELEMENTS>::check(const amk_rt_kernel &k,
                                                  const int64_t *ip,
                                                  const float *,
                                                  std::string &error) {
  if (!hasParams(k, AMK_SE_DIMS, 0, error))
    return false;
  int64_t rank = ip[AMK_SE_RANK], red = ip[AMK_SE_REDUCTION];
  if (k.num_buffers != 4 || rank < 1 || rank > 8 || ip[AMK_SE_AXIS] < 0 ||
      ip[AMK_SE_AXIS] >= rank ||
      k.num_iparams != (uint32_t)(AMK_SE_DIMS + 2 * rank) || red < 0 ||
      red > AMK_SCATTER_MIN ||
      (red != AMK_SCATTER_NONE && !reducible(ip[AMK_SE_DTYPE]))) {
    error = "bad ScatterElements parameters";
    return false;
  }
  return true;
}

} // namespace amk::rt

namespace amk::rt {

template <>
bool KernelImpl<AMK_RT_K_ONE_HOT>::run(const KernelCall &call,
                                       const int64_t *tile, std::string &) {
  const int64_t *ip = call.ip;
  int64_t depth = ip[AMK_OH_DEPTH], inner = ip[AMK_OH_INNER],
          idt = ip[AMK_OH_IDX_DTYPE], eb = ip[AMK_OH_ELEM_BYTES];
  const char *vals = static_cast<const char *>(call.buffers[1]);
  char *Y = static_cast<char *>(call.buffers[2]);
  for (int64_t o = tile[0]; o < tile[1]; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      // Indices of any numeric type; a fraction truncates (ONNX casts).
      int64_t at = loadAs<int64_t>(call.buffers[0], idt, o * inner + i);
      if (at < 0)
        at += depth;
      for (int64_t d = 0; d < depth; ++d)
        std::memcpy(Y + ((o * depth + d) * inner + i) * eb,
                    vals + (d == at ? eb : 0), eb);
    }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_ONE_HOT>::check(const amk_rt_kernel &k,
                                         const int64_t *ip, const float *,
                                         std::string &error) {
  if (!hasParams(k, AMK_OH_NUM_IPARAMS, 0, error))
    return false;
  if (k.num_buffers != 3 || ip[AMK_OH_DEPTH] < 1 ||
      !knownDtype(ip[AMK_OH_IDX_DTYPE])) {
    error = "bad OneHot parameters";
    return false;
  }
  return true;
}

} // namespace amk::rt
