//===- Passes.h - amk_task passes -------------------------------*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMKTASK_TRANSFORMS_PASSES_H
#define AMK_DIALECT_AMKTASK_TRANSFORMS_PASSES_H

#include "dialect/AMKTask/AMKTaskDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace amk {

#define GEN_PASS_DECL
#include "dialect/AMKTask/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialect/AMKTask/Transforms/Passes.h.inc"

} // namespace amk

#endif // AMK_DIALECT_AMKTASK_TRANSFORMS_PASSES_H
