//===- Kernels.h - The runtime's kernel library ---------------*- C++ -*-===//
//
// Part of AMK. One entry point runs one tile of one kernel; parameter
// layouts are in amk/kernel_params.h, the kinds in amk/kernels.def, and
// each kind's implementation in kernels/ (kernels/KernelImpl.h).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELS_H
#define AMK_RUNTIME_KERNELS_H

#include "amk/runtime.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace amk::rt {

/// What a kernel derives once per session from its constant operands (the
/// weights in another layout for the path this CPU runs), built by the
/// first task that needs it. The session owns one per kernel, so nothing
/// outlives the weights it was made from.
struct KernelScratch {
  std::once_flag once;
  std::vector<int8_t> bytes;
};

struct KernelCall {
  const amk_rt_kernel *kernel;
  void *const *buffers; // Resolved pointers, nullptr where absent.
  const int64_t *ip;
  const float *fp;
  KernelScratch *scratch = nullptr; // Absent in unit tests' direct calls.
};

/// Runs rows [tile[0], tile[1]) and columns [tile[2], tile[3]) of `call`.
/// Returns false with `error` set when the kernel cannot run.
bool runTile(const KernelCall &call, const int64_t tile[4],
             std::string &error);

/// Checks a kernel's parameters once, when a session is created.
bool checkKernel(const amk_rt_kernel &k, const int64_t *ip, const float *fp,
                 std::string &error);

/// The kind's keyword in amk/kernels.def ("gemm", ...), or "unknown".
const char *kernelKindName(uint32_t kind);

/// exp as a polynomial (max relative error about 2e-7; 0 below -87.3, so
/// never subnormal).
float fastExp(float x);
/// Applies activation `act` (AMK_OP_*) in place; the transcendental ones
/// run 16 lanes at a time. Exposed for unit tests.
void applyActivation(float *x, int64_t n, int act, float alpha, float beta);

} // namespace amk::rt

#endif // AMK_RUNTIME_KERNELS_H
