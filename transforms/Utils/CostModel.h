//===- CostModel.h - Op classes and FLOP estimates --------------*- C++ -*-===//
//
// Part of AMK. One place that says what kind of work an ONNX op is (conv,
// matmul, elementwise, data movement, ...) and how many floating-point
// operations it performs on its static shapes. Fusion-candidate detection
// reports the graph's profile with it, and Conv fusion reads the graph's
// Conv density from it. Conventions are in docs/passes.md.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PASSES_COSTMODEL_H
#define AMK_PASSES_COSTMODEL_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>

namespace amk {

enum class OpClass {
  Conv,
  MatMul,
  Attention,
  Elementwise,
  Normalization,
  Pooling,
  DataMovement,
  Other,
};
constexpr unsigned kNumOpClasses = 8;

/// The report name of a class ("conv", "matmul", "data_movement", ...).
llvm::StringRef opClassName(OpClass c);

/// The class of `op` on its own (attention is a class of whole patterns:
/// profileGraph assigns it to the ops of attention matches). Constants,
/// None values and terminators are not work: nullopt.
std::optional<OpClass> classifyOp(mlir::Operation *op);

/// Floating-point operations `op` performs (multiply-add = 2), from the
/// static shapes of its operands and results; 0 when a shape it needs is
/// not static or the op moves data only.
int64_t estimateFlops(mlir::Operation *op);

struct ClassProfile {
  int64_t count = 0;
  int64_t flops = 0;
};

/// Per-class op counts and FLOPs of every op in `module`.
struct GraphProfile {
  std::array<ClassProfile, kNumOpClasses> classes;
  int64_t totalOps = 0;
  int64_t totalFlops = 0;

  const ClassProfile &of(OpClass c) const {
    return classes[static_cast<unsigned>(c)];
  }
  /// The share of all FLOPs (0 for a graph without FLOPs).
  double flopShare(OpClass c) const;
  /// The share of all ops (constants excluded).
  double countShare(OpClass c) const;
};

/// Profiles `module`; ops in `attentionOps` count as attention.
GraphProfile
profileGraph(mlir::ModuleOp module,
             const llvm::DenseSet<mlir::Operation *> &attentionOps = {});

} // namespace amk

#endif // AMK_PASSES_COSTMODEL_H
