//===- NN.cpp - Reference kernels -------------------------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

using namespace mlir;

namespace amk::ref {

void registerNNKernels(KernelRegistry &r) { (void)r; }

} // namespace amk::ref
