//===- Kernels.cpp - The runtime's kernel dispatch ------------------------===//
//
// Part of AMK. Tiles reach their kernel through a table built from the
// kernel registry, amk/kernels.def, so that a kind's number, name and code
// cannot drift apart; the kernels are in kernels/, one file per family.
// GEMM-shaped work runs on libxsmm's JIT microkernels; the rest are plain
// loops the compiler vectorizes, because no library offers them as
// tile-callable functions (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include <iterator>
#include <string>

namespace amk::rt {

namespace {
struct KernelEntry {
  uint32_t value;
  bool (*run)(const KernelCall &, const int64_t *, std::string &);
  bool (*check)(const amk_rt_kernel &, const int64_t *, const float *,
                std::string &);
  const char *name;
};

constexpr KernelEntry kKernels[] = {
#define AMK_KERNEL(ID, VALUE, NAME)                                            \
  {VALUE, &KernelImpl<AMK_RT_K_##ID>::run, &KernelImpl<AMK_RT_K_##ID>::check,  \
   #NAME},
#include "amk/kernels.def"
};

static_assert(std::size(kKernels) == AMK_RT_K_NUM_KINDS,
              "one dispatch entry per kernel kind");

// amk_rt_kernel.kind indexes the table, so the registry's values must be
// its line numbers from 0: a gap or a reordering would call the wrong
// kernel.
constexpr bool valuesArePositions() {
  for (size_t i = 0; i < std::size(kKernels); ++i)
    if (kKernels[i].value != i)
      return false;
  return true;
}
static_assert(valuesArePositions(),
              "kernels.def: each VALUE must equal its line's position");
} // namespace

bool runTile(const KernelCall &call, const int64_t tile[4],
             std::string &error) {
  uint32_t kind = call.kernel->kind;
  if (kind < std::size(kKernels))
    return kKernels[kind].run(call, tile, error);
  error = "unknown kernel kind " + std::to_string(kind);
  return false;
}

bool checkKernel(const amk_rt_kernel &k, const int64_t *ip, const float *fp,
                 std::string &error) {
  if (k.kind < std::size(kKernels))
    return kKernels[k.kind].check(k, ip, fp, error);
  error = "unknown kernel kind " + std::to_string(k.kind);
  return false;
}

const char *kernelKindName(uint32_t kind) {
  return kind < std::size(kKernels) ? kKernels[kind].name : "unknown";
}

bool hasParams(const amk_rt_kernel &k, uint32_t iparams, uint32_t fparams,
               std::string &error) {
  if (k.num_iparams >= iparams && k.num_fparams >= fparams)
    return true;
  error = "kernel '" + std::string(k.name ? k.name : "") + "' has " +
          std::to_string(k.num_iparams) + " iparams and " +
          std::to_string(k.num_fparams) + " fparams, expected at least " +
          std::to_string(iparams) + " and " + std::to_string(fparams);
  return false;
}

} // namespace amk::rt
