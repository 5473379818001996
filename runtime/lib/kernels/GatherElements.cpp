//===- GatherElements.cpp - GatherElements --------------------------------===//
//
// Part of AMK. GATHER_ELEMENTS (kernel_params.h): every output element
// reads the data element at its own coordinates, the axis coordinate taken
// from the index tensor (checked). Elements are moved by size, so one
// kernel serves every element type.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"
#include "amk/runtime.h"

#include <cstring>
#include <string>

namespace amk::rt {

template <>
bool KernelImpl<AMK_RT_K_GATHER_ELEMENTS>::run(const KernelCall &call,
                                               const int64_t *tile,
                                               std::string &error) {
  const int64_t *ip = call.ip;
  int64_t rank = ip[AMK_GE_RANK], axis = ip[AMK_GE_AXIS],
          eb = ip[AMK_GE_ELEM_BYTES];
  const int64_t *ydims = ip + AMK_GE_DIMS, *ddims = ydims + rank;
  const char *data = static_cast<const char *>(call.buffers[0]);
  const void *idx = call.buffers[1];
  char *Y = static_cast<char *>(call.buffers[2]);
  bool i32 = ip[AMK_GE_IDX_DTYPE] == AMK_RT_I32;
  int64_t dstride[AMK_GE_MAX_RANK];
  for (int64_t d = rank - 1, s = 1; d >= 0; --d) {
    dstride[d] = s;
    s *= ddims[d];
  }
  for (int64_t p = tile[0]; p < tile[1]; ++p) {
    int64_t i = i32 ? static_cast<const int32_t *>(idx)[p]
                    : static_cast<const int64_t *>(idx)[p];
    int64_t n = ddims[axis];
    if (i < -n || i >= n) {
      error = "GatherElements index " + std::to_string(i) +
              " is out of range [" + std::to_string(-n) + ", " +
              std::to_string(n) + ")";
      return false;
    }
    if (i < 0)
      i += n;
    int64_t off = 0;
    for (int64_t d = rank - 1, rest = p; d >= 0; --d) {
      int64_t c = rest % ydims[d];
      rest /= ydims[d];
      off += (d == axis ? i : c) * dstride[d];
    }
    std::memcpy(Y + p * eb, data + off * eb, eb);
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_GATHER_ELEMENTS>::check(const amk_rt_kernel &k,
                                                 const int64_t *ip,
                                                 const float *,
                                                 std::string &error) {
  if (!hasParams(k, AMK_GE_DIMS, 0, error))
    return false;
  int64_t rank = ip[AMK_GE_RANK];
  if (rank < 1 || rank > AMK_GE_MAX_RANK ||
      k.num_iparams != (uint32_t)(AMK_GE_DIMS + 2 * rank) ||
      ip[AMK_GE_AXIS] < 0 || ip[AMK_GE_AXIS] >= rank) {
    error = "gather_elements parameters do not describe rank " +
            std::to_string(rank) + " tensors";
    return false;
  }
  int64_t eb = ip[AMK_GE_ELEM_BYTES];
  if (eb != 1 && eb != 2 && eb != 4 && eb != 8) {
    error = "gather_elements element size " + std::to_string(eb);
    return false;
  }
  return true;
}

} // namespace amk::rt
