//===- Tuner.h - Search pass pipelines for the fastest correct one -*- C++
//-*-===//
//
// Part of AMK. amk-tune's search (docs/tuning.md): every candidate
// pipeline is compiled, validated, run on held-out inputs and compared
// with the float reference before it is timed; candidates are timed
// interleaved with the incumbent, and a candidate replaces the incumbent
// only on the evidence tune/Statistics.h defines. Every trial is recorded
// (tune/Records.h), candidates are ranked by the prior and the knowledge
// rules, and the run ends with the chosen pipeline checked once more
// against the default and, when asked, a report.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TUNE_TUNER_H
#define AMK_TUNE_TUNER_H

#include "tune/Knowledge.h"
#include "tune/Records.h"
#include "tune/Report.h"
#include "tune/Space.h"
#include "tune/Statistics.h"

#include "reference/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace amk::tune {

/// Where the search stands, for a progress display.
struct TuneProgress {
  unsigned trials = 0, budget = 0;
  double bestMs = NAN; ///< The incumbent's median; NaN before there is one.
  double speedup = 1;  ///< The incumbent's over the default.
  double secondsLeft = 0;
  bool done = false; ///< The search is over; nothing more will be shown.
};

struct TunerOptions {
  std::string modelPath;          ///< Named in the records and the report.
  unsigned budget = 40;           ///< Candidate pipelines compiled at most.
  double timeLimit = 600;         ///< No trial starts after this many seconds.
  unsigned workers = 0;           ///< Pins the schedule's workers when not 0.
  std::string calibrationData;    ///< Enables the int8 and mixed candidates.
  std::string spaceFile;          ///< {"stage.knob": [values]} narrowing it.
  std::vector<std::string> fixes; ///< stage.knob=value pins.
  std::string records;            ///< The records store.
  bool fresh = false;             ///< Do not resume an interrupted run.
  bool noPrior = false;           ///< Ignore past records of other models.
  bool noRules = false;
  std::string rulesDir;  ///< Knowledge rules (*.json) read from here.
  std::string reportDir; ///< Write report.md, SVG charts, result.json.
  std::string inputDir;  ///< Held-out inputs; else seeded random ones.
  /// Held-out input sets made by the caller (a decoder's decode step:
  /// prepareDecodeStep); they replace inputDir and the random sets.
  std::vector<std::vector<ref::RValue>> inputSets;
  /// (output, input) pairs a candidate's session binds together once its
  /// outputs are checked, so that it is timed updating that state in place
  /// (a decoder's KV cache).
  std::vector<std::pair<unsigned, unsigned>> inPlace;
  unsigned holdout = 2;  ///< Random held-out sets.
  uint64_t seed = 1;     ///< Of the inputs and the search.
  double rtol = 1e-4;    ///< Float candidates, of each output's scale.
  double minCosine = 0.99, minTop1 = 0.98; ///< Quantized candidates.
  unsigned iters = 5;   ///< Runs per repetition (their median).
  unsigned minReps = 9; ///< Repetitions of a final decision.
  unsigned roundSize = 6;
  double explore = 0.05;  ///< Share of candidates drawn at random.
  bool compareOrt = true; ///< Time ONNX Runtime for the report.
  /// What the tuner has to say as it goes ("trial 0: the default ...").
  std::function<void(const llvm::Twine &)> log;
  /// Called as each trial starts and once when the search is done.
  std::function<void(const TuneProgress &)> progress;
};

/// The search space of `options`: the knobs of amk-graph-opt,
/// amk-quantize and amk-schedule-megakernel read from the pass registry,
/// precision pinned to fp32 without calibration data, narrowed by the
/// space file, the fixes and the workers.
llvm::Expected<Space> tuningSpace(const TunerOptions &options);

struct TrialSummary {
  unsigned trial = 0;
  std::string changes; ///< From the default (Space::describe).
  std::string verdict, reason;
  std::optional<double> medianMs;
  double speedup = 0;
  bool warm = false;              ///< From the prior's warm start.
  std::vector<std::string> rules; ///< The rules that ranked it.
};

struct TuneResult {
  /// Whether any candidate compiled and ran correctly; when not,
  /// `failures` holds each one's reason and nothing else is set.
  bool found = false;
  std::vector<std::string> failures;

  std::string modelPath, modelHash, machine, run;
  std::string pipeline, defaultPipeline, changes;
  unsigned trials = 0, rejected = 0;
  double seconds = 0;
  double defaultMs = NAN, bestMs = NAN, ortMs = NAN;
  unsigned workers = 0; ///< Of the chosen program.
  double peakGflops = 0, bandwidthGbps = 0;
  /// The tuned pipeline against the default, interleaved at the end.
  std::optional<Decision> vsDefault;
  std::string ortNote, calibNote, finalNote;
  std::optional<Breakdown> breakdown; ///< A trace of the chosen program.
  Roofline roof;
  std::vector<TrialSummary> trialList;
  std::vector<double> bestSoFar; ///< Speedup after each trial.
  std::vector<Rule> rulesApplied;
  /// The prior's nearest past models and their distances, when it has
  /// learned anything.
  std::optional<std::vector<std::pair<std::string, double>>> nearest;
};

/// Tunes `module` over `space`. Errors are the ones that stop a run (bad
/// inputs or records, a reference that fails); a candidate's failure is a
/// trial's verdict.
llvm::Expected<TuneResult> tuneModel(mlir::ModuleOp module, const Space &space,
                                     const TunerOptions &options);

/// Writes report.md, trials.svg (and the breakdown's charts) and
/// result.json for `result` to `dir`.
llvm::Error writeTuneReport(const TuneResult &result, llvm::StringRef dir);

/// What amk-compile looks up in the records: the pipeline amk-tune chose
/// for a model on this machine with this compiler.
struct TunedPipelineQuery {
  std::string records; ///< The store's path, named in errors.
  std::string precision = "fp32";
  /// int8 and mixed: the calibration samples, which must be the ones the
  /// pipeline was tuned with (by their bytes); the recorded pipeline reads
  /// them from this directory.
  std::string calibrationData;
  unsigned workers = 0; ///< 0: any.
};

struct TunedPipeline {
  /// The pipeline to use, when the records hold one that applies.
  std::optional<std::string> pipeline;
  Record chosen; ///< Its record.
  /// When nothing applies but the records hold runs of the model: why
  /// they do not apply.
  std::string note;
};

/// The pipeline amk-tune chose for `module` among `records` (see
/// TunedPipelineQuery), checked to parse.
llvm::Expected<TunedPipeline>
findTunedPipeline(mlir::ModuleOp module, const std::vector<Record> &records,
                  const TunedPipelineQuery &query);

} // namespace amk::tune

#endif // AMK_TUNE_TUNER_H
