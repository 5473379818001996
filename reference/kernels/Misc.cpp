//===- Misc.cpp - Reference kernels -------------------------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

using namespace mlir;

namespace amk::ref {

void registerMiscKernels(KernelRegistry &r) { (void)r; }

} // namespace amk::ref
