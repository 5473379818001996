//===- Gather.cpp - Row gather --------------------------------------------===//
//
// Part of AMK. GATHER: whole rows selected by an index tensor, each index
// checked against the axis.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"

#include <cstring>
#include <string>

namespace amk::rt {

namespace {

bool gatherTile(const KernelCall &call, const int64_t *tile,
                std::string &error) {
  const int64_t *ip = call.ip;
  int64_t axis = ip[AMK_GATHER_AXIS], inner = ip[AMK_GATHER_INNER],
          nidx = ip[AMK_GATHER_NIDX], eb = ip[AMK_GATHER_ELEM_BYTES];
  const char *data = static_cast<const char *>(call.buffers[0]);
  const void *idx = call.buffers[1];
  char *Y = static_cast<char *>(call.buffers[2]);
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t o = r / nidx, j = r % nidx;
    int64_t i = ip[AMK_GATHER_IDX_DTYPE] == AMK_RT_I32
                    ? static_cast<const int32_t *>(idx)[j]
                    : static_cast<const int64_t *>(idx)[j];
    if (i < 0)
      i += axis;
    if (i < 0 || i >= axis) {
      error = "Gather index " + std::to_string(i) + " is out of range [0, " +
              std::to_string(axis) + ")";
      return false;
    }
    std::memcpy(Y + r * inner * eb, data + (o * axis + i) * inner * eb,
                inner * eb);
  }
  return true;
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_GATHER>::run(const KernelCall &call,
                                      const int64_t *tile, std::string &error) {
  return gatherTile(call, tile, error);
}

template <>
bool KernelImpl<AMK_RT_K_GATHER>::check(const amk_rt_kernel &k, const int64_t *,
                                        const float *, std::string &error) {
  return hasParams(k, AMK_GATHER_NUM_IPARAMS, 0, error);
}

} // namespace amk::rt
