//===- Passes.h - AMK fusion passes -----------------------------*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_FUSION_PASSES_H
#define AMK_TRANSFORMS_FUSION_PASSES_H

#include "dialect/AMK/AMKDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace amk {

#define GEN_PASS_DECL
#include "transforms/fusion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "transforms/fusion/Passes.h.inc"

} // namespace amk

#endif // AMK_TRANSFORMS_FUSION_PASSES_H
