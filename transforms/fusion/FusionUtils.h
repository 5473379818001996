//===- FusionUtils.h - What the fusion passes share -------------*- C++ -*-===//
//
// Part of AMK. The driver every matcher-based fusion uses: offer candidate
// roots last first, rewrite each match once, drop what became unused.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_FUSION_FUSIONUTILS_H
#define AMK_TRANSFORMS_FUSION_FUSIONUTILS_H

#include "transforms/Utils/PassUtils.h"
#include "transforms/Utils/Patterns.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace amk::fusion {

/// The ops of the given kinds, in program order.
template <typename... OpTys>
mlir::SmallVector<mlir::Operation *> collect(mlir::ModuleOp module) {
  mlir::SmallVector<mlir::Operation *> ops;
  module.walk([&](mlir::Operation *op) {
    if (llvm::isa<OpTys...>(op))
      ops.push_back(op);
  });
  return ops;
}

/// Replaces `root`'s result by `replacement`'s, remarks, erases the match.
inline void replaceMatch(mlir::Pass *pass,
                         llvm::ArrayRef<mlir::Operation *> ops,
                         mlir::Operation *root, mlir::Operation *replacement) {
  amk::emitPassRemark(pass, replacement, amk::RemarkKind::Passed, "Fused",
                      "fused " + amk::describeMatch(ops) + " into " +
                          replacement->getName().getStringRef());
  root->getResult(0).replaceAllUsesWith(replacement->getResult(0));
  amk::eraseOps(ops);
}

/// A match `tryFuse` rewrote: the ops it covers and the op replacing its
/// root.
struct Rewrite {
  llvm::SmallVector<mlir::Operation *> ops;
  mlir::Operation *replacement;
};

/// Offers every candidate root to `tryFuse`, last first: a pattern's root
/// is its last op, so the largest match is seen before the matches inside
/// it, whose ops are then skipped. Returns how many matches were fused.
template <typename Fn>
int64_t fuseAtRoots(mlir::Pass *pass,
                    llvm::ArrayRef<mlir::Operation *> candidates, Fn &&tryFuse) {
  llvm::DenseSet<mlir::Operation *> covered;
  int64_t count = 0;
  for (mlir::Operation *root : llvm::reverse(candidates)) {
    if (covered.contains(root))
      continue;
    std::optional<Rewrite> r = tryFuse(root);
    if (!r)
      continue;
    covered.insert(r->ops.begin(), r->ops.end());
    replaceMatch(pass, r->ops, root, r->replacement);
    ++count;
  }
  return count;
}

/// Drops what the rewrites left unused and records the pass's counter.
inline void finishFusion(mlir::Pass *pass, mlir::ModuleOp module,
                         int64_t fused, llvm::StringRef description) {
  amk::updateSignaturesAndErase(module);
  amk::PassCounters::add(pass, "fused", fused, description);
}

} // namespace amk::fusion

#endif // AMK_TRANSFORMS_FUSION_FUSIONUTILS_H
