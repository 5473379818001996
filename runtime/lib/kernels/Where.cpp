//===- Where.cpp - Elementwise selection ----------------------------------===//
//
// Part of AMK. WHERE (kernel_params.h): Y = C ? X : Z with broadcasting.
// The three inputs are walked with an odometer over Y's dims, so a
// broadcast operand costs no copy; elements are moved by size, so one
// kernel serves every element type.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"

#include <cstring>
#include <string>

namespace amk::rt {

namespace {

template <typename T>
void selectTile(const int64_t *ip, const uint8_t *C, const T *X, const T *Z,
                T *Y, int64_t begin, int64_t end) {
  int64_t rank = ip[AMK_WHERE_RANK];
  const int64_t *dims = ip + AMK_WHERE_DIMS;
  const int64_t *cs = dims + rank, *xs = cs + rank, *zs = xs + rank;
  // The odometer starts at `begin`; offsets follow it incrementally.
  int64_t idx[AMK_WHERE_MAX_RANK] = {};
  int64_t c = 0, x = 0, z = 0;
  for (int64_t d = rank - 1, rest = begin; d >= 0; --d) {
    idx[d] = rest % dims[d];
    rest /= dims[d];
    c += idx[d] * cs[d], x += idx[d] * xs[d], z += idx[d] * zs[d];
  }
  for (int64_t i = begin; i < end; ++i) {
    Y[i] = C[c] ? X[x] : Z[z];
    for (int64_t d = rank - 1; d >= 0; --d) {
      c += cs[d], x += xs[d], z += zs[d];
      if (++idx[d] < dims[d])
        break;
      c -= cs[d] * dims[d], x -= xs[d] * dims[d], z -= zs[d] * dims[d];
      idx[d] = 0;
    }
  }
}

template <typename T> void selectTile(const KernelCall &call, const int64_t *tile) {
  selectTile(call.ip, static_cast<const uint8_t *>(call.buffers[0]),
             static_cast<const T *>(call.buffers[1]),
             static_cast<const T *>(call.buffers[2]),
             static_cast<T *>(call.buffers[3]), tile[0], tile[1]);
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_WHERE>::run(const KernelCall &call,
                                     const int64_t *tile, std::string &error) {
  switch (call.ip[AMK_WHERE_ELEM_BYTES]) {
  case 1:
    selectTile<uint8_t>(call, tile);
    return true;
  case 2:
    selectTile<uint16_t>(call, tile);
    return true;
  case 4:
    selectTile<uint32_t>(call, tile);
    return true;
  case 8:
    selectTile<uint64_t>(call, tile);
    return true;
  }
  error = "Where: unsupported element size";
  return false;
}

template <>
bool KernelImpl<AMK_RT_K_WHERE>::check(const amk_rt_kernel &k,
                                       const int64_t *ip, const float *,
                                       std::string &error) {
  if (!hasParams(k, AMK_WHERE_DIMS, 0, error))
    return false;
  int64_t rank = ip[AMK_WHERE_RANK], eb = ip[AMK_WHERE_ELEM_BYTES];
  if (rank < 0 || rank > AMK_WHERE_MAX_RANK ||
      k.num_iparams < AMK_WHERE_DIMS + 4 * (uint64_t)rank ||
      (eb != 1 && eb != 2 && eb != 4 && eb != 8) || k.num_buffers != 4) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': a Where needs rank <= " + std::to_string(AMK_WHERE_MAX_RANK) +
            ", its dims and three stride lists, an element size of 1, 2, 4 "
            "or 8 bytes and four buffers";
    return false;
  }
  for (int64_t d = 0; d < rank; ++d)
    if (ip[AMK_WHERE_DIMS + d] < 1) {
      error = "kernel '" + std::string(k.name ? k.name : "") +
              "': a Where's dims must be positive";
      return false;
    }
  return true;
}

} // namespace amk::rt
