//===- Passes.h - AMK graph passes ------------------------------*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_GRAPH_PASSES_H
#define AMK_TRANSFORMS_GRAPH_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace amk {

/// amk-print-summary's format option.
enum class SummaryFormat { Text, JSON };

#define GEN_PASS_DECL
#include "transforms/graph/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "transforms/graph/Passes.h.inc"

} // namespace amk

#endif // AMK_TRANSFORMS_GRAPH_PASSES_H
