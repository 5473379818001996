//===- Passes.h - AMK passes and pipelines ----------------------*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PASSES_PASSES_H
#define AMK_PASSES_PASSES_H

#include "dialect/AMK/AMKDialect.h"
#include "dialect/AMKTask/AMKTaskDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace amk {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// The pipeline `amk-default`: what `amk-opt` runs on a model when the user
/// asks for the default (today: canonicalization, then the summary).
void buildDefaultPipeline(mlir::OpPassManager &pm);

/// The options of `amk-graph-opt` (each fusion can be switched off; the
/// tuner searches them).
struct GraphOptSettings {
  std::string target = "cpu";
  int64_t targetOpset = 21;
  bool fuseConv = true;
  double convDensityThreshold = -1;
  bool fuseAttention = true;
  bool fuseNorm = true;
  bool fuseGemm = true;
  bool fuseGelu = true;
  bool fuseBiasSoftmax = true;
  bool groupElementwise = true;
};

/// The pipeline `amk-graph-opt{target=cpu target-opset=21}`: every graph
/// pass in the order that lets each fusion see the forms it matches.
void buildGraphOptPipeline(mlir::OpPassManager &pm,
                           const GraphOptSettings &settings);

/// The pipeline `amk-quantize{precision=int8 data-dir=DIR}`: calibration on
/// the samples in `dataDir`, Q/DQ insertion (mixed: with the sensitivity
/// search to `sensitivityTarget` dB) and, with `emulate`, the lowering of
/// the pairs for the runtime's float kernels. fp32 adds nothing. Fails with
/// `error` on a bad precision or a missing data directory.
mlir::LogicalResult buildQuantizePipeline(mlir::OpPassManager &pm,
                                          llvm::StringRef precision,
                                          llvm::StringRef dataDir,
                                          double sensitivityTarget,
                                          bool emulate, std::string &error);

/// Parses a textual pipeline into `pm`: either anchored
/// (`builtin.module(a,b)`, as amk-opt's --pass-pipeline takes it) or a bare
/// list of module passes (`a,b`).
mlir::LogicalResult parsePipeline(llvm::StringRef text, mlir::PassManager &pm,
                                  llvm::raw_ostream &errors);

/// Parses `text` (as parsePipeline), runs it on `module` and verifies the
/// result; on failure `error` says which step failed (the passes' own
/// diagnostics go to the context's handler).
mlir::LogicalResult runPipeline(mlir::ModuleOp module, llvm::StringRef text,
                                std::string &error);

/// What the tools' default pipeline depends on (amk-compile --target
/// --precision --calibration-data --sensitivity-target --workers, and
/// amk-run's same options).
struct DefaultPipelineOptions {
  std::string target = "cpu";     ///< cpu | npu-like
  std::string precision = "fp32"; ///< fp32 | int8 | mixed
  std::string calibrationData;    ///< int8/mixed: the samples' directory
  double sensitivityTarget = 40;  ///< mixed: dB of SQNR to reach
  unsigned workers = 1;
  /// Whether the pipeline ends in a schedule for the runtime; without it
  /// (the reference interpreter) a QDQ graph keeps its Q/DQ pairs.
  bool schedule = true;
};

/// The pipeline the tools use when no --pipeline is given: fp32 is
/// amk-graph-opt then the schedule; int8 and mixed calibrate the optimized
/// graph on the user's samples (never made-up data), insert the QDQ pairs
/// (mixed: with the sensitivity search) and run them on the float kernels
/// with amk-emulate-qdq. On bad options, `error` says which and why.
mlir::FailureOr<std::string>
defaultPipeline(const DefaultPipelineOptions &options, std::string &error);

/// Registers every AMK pass and named pipeline with the global registry.
void registerAllPasses();

/// Registers every dialect AMK's passes and tools may create or read.
void registerAllDialects(mlir::DialectRegistry &registry);

} // namespace amk

#endif // AMK_PASSES_PASSES_H
