//===- KernelImpl.h - One kernel kind's implementation ----------*- C++ -*-===//
//
// Part of AMK. Kernel kind AMK_RT_K_<ID> of amk/kernels.def is implemented
// by KernelImpl<AMK_RT_K_<ID>>: its family's file in this folder defines
// run() and check(), and the dispatch table in Kernels.cpp, generated from
// the same list, points at them. Both are declared below for every kind,
// so a kind added to the registry without a definition fails at link time
// rather than at run time.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELS_KERNELIMPL_H
#define AMK_RUNTIME_KERNELS_KERNELIMPL_H

#include "runtime/lib/Kernels.h"

#include "amk/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace amk::rt {

/// Makes a per-thread scratch buffer hold at least `n` elements without
/// shrinking it. Kernels of different sizes share these buffers, and
/// resize() down then up again zero-fills the regrown part on every call:
/// megabytes of memset per MobileNetV2 inference in the integer
/// convolutions. Callers write what they read; the contents are stale.
template <typename T> void growScratch(std::vector<T> &v, size_t n) {
  if (v.size() < n)
    v.resize(n);
}

/// Kernel kind `Kind` (an amk_rt_kernel_kind). run() runs one tile, with
/// runTile's contract; check() validates a kernel's parameters once, when
/// a session is created, with checkKernel's.
template <int Kind> struct KernelImpl {
  static bool run(const KernelCall &call, const int64_t *tile,
                  std::string &error);
  static bool check(const amk_rt_kernel &k, const int64_t *ip, const float *fp,
                    std::string &error);
};

#define AMK_KERNEL(ID, VALUE, NAME)                                            \
  template <>                                                                  \
  bool KernelImpl<AMK_RT_K_##ID>::run(                                         \
      const KernelCall &call, const int64_t *tile, std::string &error);        \
  template <>                                                                  \
  bool KernelImpl<AMK_RT_K_##ID>::check(const amk_rt_kernel &k,                \
                                        const int64_t *ip, const float *fp,    \
                                        std::string &error);
#include "amk/kernels.def"

/// Whether `k` has at least `iparams` iparams and `fparams` fparams; if not,
/// sets the error that every kind reports for a short parameter list.
bool hasParams(const amk_rt_kernel &k, uint32_t iparams, uint32_t fparams,
               std::string &error);

} // namespace amk::rt

#endif // AMK_RUNTIME_KERNELS_KERNELIMPL_H
