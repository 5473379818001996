//===- Pipelines.h - AMK pipelines and registration -------------*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PIPELINES_PIPELINES_H
#define AMK_PIPELINES_PIPELINES_H

#include "conversion/Passes.h"
#include "dialect/AMKTask/Transforms/Passes.h"
#include "transforms/fusion/Passes.h"
#include "transforms/graph/Passes.h"
#include "transforms/quantization/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include "mlir/Pass/PassOptions.h"
#include <optional>
#include <string>
#include <utility>

#include <string>

namespace amk {

/// The pipeline `amk-default`: what `amk-opt` runs on a model when the user
/// asks for the default (today: canonicalization, then the summary).
void buildDefaultPipeline(mlir::OpPassManager &pm);

/// The options of `amk-graph-opt`: each fusion can be switched off. A
/// `[tune: a|b|c]` tag at the end of a description puts the option in
/// amk-tune's search space with those values, the first being the
/// option's default (docs/tuning.md; a unit test checks that): the tuner
/// reads the tags from the registry, so a new tunable knob is a new tagged
/// option here or in a Passes.td.
struct GraphOptOptions
    : public mlir::PassPipelineOptions<GraphOptOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Target profile for amk-fuse-conv"),
                             llvm::cl::init("cpu")};
  Option<int64_t> targetOpset{
      *this, "target-opset",
      llvm::cl::desc("Opset amk-normalize-opset converts to first "
                     "[tune: 21|17|13]"),
      llvm::cl::init(21)};
  Option<bool> fuseConv{*this, "fuse-conv",
                        llvm::cl::desc("Run amk-fuse-conv (BatchNorm folding, "
                                       "Add/activation epilogues) "
                                       "[tune: true|false]"),
                        llvm::cl::init(true)};
  Option<double> convDensityThreshold{
      *this, "conv-density-threshold",
      llvm::cl::desc("amk-fuse-conv's density-threshold (negative: the "
                     "target profile's) [tune: -1|0.5|0.9]"),
      llvm::cl::init(-1.0)};
  Option<bool> fuseAttention{
      *this, "fuse-attention",
      llvm::cl::desc("Run amk-fuse-attention [tune: true|false]"),
      llvm::cl::init(true)};
  Option<bool> fuseNorm{*this, "fuse-norm",
                        llvm::cl::desc("Run amk-fuse-norm [tune: true|false]"),
                        llvm::cl::init(true)};
  Option<bool> fuseGemm{*this, "fuse-gemm",
                        llvm::cl::desc("Run amk-fuse-gemm [tune: true|false]"),
                        llvm::cl::init(true)};
  Option<bool> fuseGelu{*this, "fuse-gelu",
                        llvm::cl::desc("Run amk-fuse-gelu [tune: true|false]"),
                        llvm::cl::init(true)};
  Option<bool> fuseRope{*this, "fuse-rope",
                        llvm::cl::desc("Run amk-fuse-rope [tune: true|false]"),
                        llvm::cl::init(true)};
  Option<bool> fuseBiasSoftmax{
      *this, "fuse-bias-softmax",
      llvm::cl::desc("Run amk-fuse-bias-softmax [tune: true|false]"),
      llvm::cl::init(true)};
  Option<bool> lowerQDQ{
      *this, "lower-qdq",
      llvm::cl::desc("Run amk-lower-qdq and amk-emulate-qdq: a QDQ model's "
                     "convolutions on integer kernels, the other Q/DQ pairs "
                     "in float [tune: true|false]"),
      llvm::cl::init(true)};
  Option<bool> groupElementwise{
      *this, "group-elementwise",
      llvm::cl::desc("Run amk-group-elementwise [tune: true|false]"),
      llvm::cl::init(true)};
};

/// The pipeline `amk-graph-opt{target=cpu target-opset=21}`: every graph
/// pass in the order that lets each fusion see the forms it matches.
void buildGraphOptPipeline(mlir::OpPassManager &pm,
                           const GraphOptOptions &options);

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

/// `text` as the passes before its schedule and the schedule: when it ends
/// in amk-schedule-megakernel at the top level, the two pipelines that run
/// the same passes in two steps (a driver compiling several programs from
/// one model runs every graph step before any schedule, so that the
/// schedules can free the weights they pack: amk-compile). None when it
/// does not end so or does not parse.
std::optional<std::pair<std::string, std::string>>
splitSchedule(mlir::MLIRContext *ctx, llvm::StringRef text);

/// What the tools' default pipeline depends on (amk-compile --target
/// --precision --calibration-data --sensitivity-target --workers, and
/// amk-run's same options).
struct DefaultPipelineOptions {
  std::string target = "cpu";     ///< cpu | npu-like
  std::string precision = "fp32"; ///< fp32 | int8 | mixed | dynamic | w8 | w4
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

/// Registers every AMK pass and named pipeline (every phase's) with the
/// global registry.
void registerAllPasses();

/// Registers every dialect AMK's passes and tools may create or read.
void registerAllDialects(mlir::DialectRegistry &registry);

} // namespace amk

#endif // AMK_PIPELINES_PIPELINES_H
