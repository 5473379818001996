//===- TunerImpl.h - The tuner's state, between its files -------*- C++ -*-===//
//
// Part of AMK. Internal to the tuner: Search.cpp holds the search
// (candidates, measurement, ranking, rounds), Tuner.cpp what comes before
// and after it (inputs and references, records, rules, the final check).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TUNE_TUNERIMPL_H
#define AMK_TUNE_TUNERIMPL_H

#include "tune/Prior.h"
#include "tune/Records.h"
#include "tune/Tuner.h"

#include "execution/Session.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <set>

namespace amk::tune {

using Clock = std::chrono::steady_clock;

/// A candidate pipeline and, once compiled, its program and session.
struct Candidate {
  Config cfg;
  std::string pipeline;
  unsigned trial = 0;
  bool warm = false;
  std::vector<std::string> rules; ///< Rules that ranked it.
  std::unique_ptr<LoadedProgram> loaded;
  /// Bound to the held-out sets once, when the candidate is loaded.
  std::unique_ptr<Session> session;
  uint64_t programHash = 0;
  double flops = 0, constBytes = 0, arenaBytes = 0;
  std::vector<double> samples, incSamples;
  /// The input set timed: 0, or (a state updated in place) a private copy
  /// of set 0 whose buffers the session's outputs alias.
  unsigned timedSet = 0;
  std::vector<ref::RValue> timedInputs;
  Record rec;
  ~Candidate() { release(); }
  void release() {
    session.reset();
    loaded.reset();
    timedInputs.clear();
    timedSet = 0;
  }
};

/// One tuning run: the state the search shares between its trials.
class Tuner {
public:
  Tuner(mlir::ModuleOp m, const Space &space, const TunerOptions &options)
      : original(m), space(space), opts(options), rng(options.seed) {}

  llvm::Expected<TuneResult> tune();

private:
  mlir::ModuleOp original;
  const Space &space;
  const TunerOptions &opts;
  mlir::func::FuncOp func;
  std::vector<std::vector<ref::RValue>> inputs;   // Held-out sets.
  std::vector<std::vector<ref::RValue>> expected; // Float reference outputs.
  std::vector<double> features;
  std::string modelHash, shapes, machine, compiler = AMK_VERSION, calibHash;
  std::string run;
  std::map<unsigned, Record> resumed; // trial -> outcome of an earlier run.
  std::vector<Rule> rules;
  std::set<std::string> rulesApplied;
  std::unique_ptr<Prior> prior;
  double peakGflops = 0, bandwidthGbps = 0;
  uint64_t llcBytes = 0;
  Clock::time_point start = Clock::now();
  std::mt19937_64 rng;
  unsigned trials = 0;
  std::vector<std::unique_ptr<Candidate>> all; // Every trial, in order.
  std::set<std::string> tried;
  std::map<uint64_t, unsigned> programTrial; // program hash -> first trial
  Candidate *baseline = nullptr, *incumbent = nullptr;
  double incumbentSpeedup = 1;
  std::vector<std::string> failures;

  void info(const llvm::Twine &msg) const {
    if (opts.log)
      opts.log(msg);
  }
  double elapsed() const {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }
  bool outOfBudget() const {
    return trials >= opts.budget || elapsed() >= opts.timeLimit;
  }
  void showProgress(bool done = false) const;

  KnobMap knobs(const Config &c) const;
  std::optional<Config> fromKnobs(const KnobMap &m) const;
  /// From the pipeline, not the knob: a precision pinned with --fix is
  /// no longer a knob of the space.
  bool quantized(const Candidate &c) const {
    return pipelinePrecision(c.pipeline) != "fp32";
  }

  llvm::Error setUp();
  llvm::Error loadRulesDir();
  llvm::Error write(Candidate &c);
  /// Compiles, validates, loads and checks a candidate on the held-out
  /// inputs. False (with the record's verdict and reason) when the
  /// candidate fails; an error only for what stops the run (the records).
  llvm::Expected<bool> compileAndCheck(Candidate &c);
  llvm::Expected<bool> checkOutputs(
      Candidate &c,
      llvm::function_ref<bool(const std::string &, const std::string &)> fail);
  llvm::Expected<double> repetition(Candidate &c);
  llvm::Error interleave(Candidate &a, std::vector<double> &aSamples,
                         Candidate &b, std::vector<double> &bSamples,
                         unsigned reps);
  /// `reps` more repetitions of `c` against the incumbent.
  llvm::Error measure(Candidate &c, unsigned reps) {
    return interleave(*incumbent, c.incSamples, c, c.samples, reps);
  }
  bool withheldBelowFloor(Candidate &c);
  double ratio(const Candidate &c) const {
    return median(c.samples) / median(c.incSamples);
  }
  Candidate &adopt(std::unique_ptr<Candidate> c);
  std::vector<std::pair<Config, bool>> neighbours(const Config &from) const;
  const Record *resumedOutcome(const Candidate &c) const;
  llvm::Error baselineTrial();
  llvm::Error firstCorrectTrial();
  std::vector<std::unique_ptr<Candidate>>
  rank(std::vector<std::pair<Config, bool>> configs, unsigned want);
  llvm::Error round(std::vector<std::unique_ptr<Candidate>> pending);
  void promote(Candidate &c);
  llvm::Error search();
  llvm::Error finish(TuneResult &result);
  void timeOnnxRuntime(const Candidate &best, TuneResult &result);
  void traceChosen(Candidate &best, TuneResult &result);
};

} // namespace amk::tune

#endif // AMK_TUNE_TUNERIMPL_H
