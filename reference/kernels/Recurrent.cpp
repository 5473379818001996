//===- Recurrent.cpp - Reference kernels -------------------------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

using namespace mlir;

namespace amk::ref {

void registerRecurrentKernels(KernelRegistry &r) { (void)r; }

} // namespace amk::ref
