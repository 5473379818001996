//===- Nop.cpp - The kernel that does nothing -----------------------------===//
//
// Part of AMK. A NOP task only waits and signals: the scheduler's default
// kind, and what the runtime's tests and dispatch benchmark chain to measure
// synchronization alone.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include <string>

namespace amk::rt {

template <>
bool KernelImpl<AMK_RT_K_NOP>::run(const KernelCall &, const int64_t *,
                                   std::string &) {
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_NOP>::check(const amk_rt_kernel &, const int64_t *,
                                     const float *, std::string &) {
  return true;
}

} // namespace amk::rt
