//===- Where.cpp - Elementwise selection ----------------------------------===//
//
// Part of AMK. WHERE (kernel_params.h): Y = C ? X : Z with broadcasting.
// The three inputs are walked in runs along Y's last axis with their own
// strides, so a broadcast operand costs no copy; elements are moved by
// size, so one kernel serves every element type.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"

#include <algorithm>
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
  if (rank == 0) {
    if (begin < end)
      Y[0] = C[0] ? X[0] : Z[0];
    return;
  }
  // Runs along the last axis: the outer axes' offsets once per run, then a
  // loop the compiler vectorizes when the inputs step by 1 (or stay: a
  // broadcast operand).
  int64_t last = dims[rank - 1];
  int64_t cl = cs[rank - 1], xl = xs[rank - 1], zl = zs[rank - 1];
  for (int64_t i = begin; i < end;) {
    int64_t j = i % last, c = j * cl, x = j * xl, z = j * zl;
    for (int64_t d = rank - 2, rest = i / last; d >= 0; --d) {
      int64_t k = rest % dims[d];
      rest /= dims[d];
      c += k * cs[d], x += k * xs[d], z += k * zs[d];
    }
    int64_t n = std::min(end - i, last - j);
    T *y = Y + i;
    const uint8_t *cp = C + c;
    const T *xp = X + x, *zp = Z + z;
    if (cl == 1 && xl == 1 && zl == 1) {
      // Both values read, then blended by a mask: no branch, so it
      // vectorizes (a conditional load would not).
      for (int64_t e = 0; e < n; ++e) {
        T m = T(0) - T(cp[e] != 0);
        y[e] = (xp[e] & m) | (zp[e] & ~m);
      }
    } else {
      for (int64_t e = 0; e < n; ++e)
        y[e] = cp[e * cl] ? xp[e * xl] : zp[e * zl];
    }
    i += n;
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
