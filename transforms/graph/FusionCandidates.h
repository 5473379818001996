//===- FusionCandidates.h - Fusion-candidate analysis -----------*- C++ -*-===//
//
// Part of AMK. Finds the subgraphs AMK's fusion passes rewrite (see the
// amk-detect-fusion-candidates pass in Passes.td for the patterns).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PASSES_FUSIONCANDIDATES_H
#define AMK_PASSES_FUSIONCANDIDATES_H

#include "transforms/Utils/CostModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"

#include <string>
#include <utility>
#include <vector>

namespace amk {

struct FusionCandidates {
  /// Pattern name -> instances, each the ops it covers (root last), in
  /// the fixed pattern order of patternNames().
  std::vector<std::pair<std::string, std::vector<std::vector<mlir::Operation *>>>>
      patterns;
  /// Ops of attention instances (the profile counts them as attention).
  llvm::DenseSet<mlir::Operation *> attentionOps;

  /// Every pattern's name, in report order.
  static const std::vector<std::string> &patternNames();
  /// The instances of `pattern`.
  const std::vector<std::vector<mlir::Operation *>> &
  get(llvm::StringRef pattern) const;
};

FusionCandidates findFusionCandidates(mlir::ModuleOp module);

} // namespace amk

#endif // AMK_PASSES_FUSIONCANDIDATES_H
