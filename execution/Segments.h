//===- Segments.h - Models cut where sizes depend on data -------*- C++ -*-===//
//
// Part of AMK. A task program is static: every buffer size is known when it
// is compiled. A model whose sizes depend on the values it computes
// (NonZero, Unique, NonMaxSuppression, Compress on a computed mask, TopK
// with a computed k, Loop, Scan, an If whose branches differ, sequences)
// runs as a chain instead: a segment is everything that compiles for the
// shapes known when it starts; the op at the cut runs on the host (its
// reference kernel; the bodies of Loop, Scan and If as graphs of their own,
// cut the same way, so a loop body is one compiled program run per
// iteration); the next segment is compiled for the shapes the cut produced.
// Each segment is an ordinary validated task program, cached by the shapes
// of its inputs, so a run with shapes seen before compiles nothing.
// docs/runtime.md, "Segments", has the design and what a boundary costs.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_EXECUTION_SEGMENTS_H
#define AMK_EXECUTION_SEGMENTS_H

#include "execution/Session.h"

#include <memory>
#include <string>
#include <vector>

namespace amk {

/// The first op of `module`'s graph, bound to the shapes of `inputs` (made
/// for `func`), that a single static program cannot hold: an op whose
/// result sizes or types are unknown after shape inference, or one the
/// runtime runs only between segments (Loop, Scan, NonZero, Unique,
/// NonMaxSuppression, sequences). Described as "node 'x' (NonZero)"; empty
/// when the whole graph is static. `module` is not changed.
llvm::Expected<std::string> findSegmentCut(mlir::ModuleOp module,
                                           mlir::func::FuncOp func,
                                           llvm::ArrayRef<ref::RValue> inputs);

/// A model run as segments and host ops (see the file comment).
class SegmentedModel {
public:
  /// `model` is the graph as imported (copied: the caller's module is not
  /// changed). The segments are compiled with `options`' pipeline,
  /// workers and engine.
  SegmentedModel(mlir::ModuleOp model, const RunOptions &options);
  ~SegmentedModel();

  /// Runs the model on `inputs` (in the graph's input order), compiling the
  /// segments whose input shapes are new.
  llvm::Expected<std::vector<ref::RValue>>
  run(llvm::ArrayRef<ref::RValue> inputs);

  const SegmentStats &stats() const { return counts; }

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
  SegmentStats counts;
};

} // namespace amk

#endif // AMK_EXECUTION_SEGMENTS_H
