//===- Tuner.cpp - Search pass pipelines for the fastest correct one ------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "tune/Tuner.h"
#include "tune/TunerImpl.h"

#include "pipelines/Pipelines.h"
#include "reference/Interpreter.h"
#include "runtime/support/Fnv1a.h"
#include "runtime/support/Peak.h"
#include "transforms/quantization/CalibrationData.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace mlir;
using namespace amk;
using namespace amk::tune;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

static uint64_t fnv(llvm::StringRef s, uint64_t h = kFnv1aOffset) {
  return fnv1a(s.data(), s.size(), h);
}

llvm::Expected<Space> amk::tune::tuningSpace(const TunerOptions &options) {
  std::vector<std::string> stages = {"amk-graph-opt", "amk-quantize",
                                     "amk-schedule-megakernel"};
  auto space = Space::fromRegistry(stages);
  if (!space)
    return space.takeError();
  if (options.calibrationData.empty()) {
    if (space->find("amk-quantize.precision") >= 0)
      if (llvm::Error e = space->pin("amk-quantize.precision=fp32"))
        return std::move(e);
  } else {
    llvm::SmallString<256> dir(options.calibrationData);
    if (!llvm::sys::fs::is_directory(dir))
      return error("--calibration-data '" + options.calibrationData +
                   "' is not a directory");
    llvm::sys::fs::make_absolute(dir);
    space->fixed["amk-quantize"] = "data-dir=\"" + std::string(dir) + "\"";
  }
  if (!options.spaceFile.empty()) {
    auto buf = llvm::MemoryBuffer::getFile(options.spaceFile);
    if (!buf)
      return error("cannot read the space '" + options.spaceFile + "'");
    if (llvm::Error e = space->restrict((*buf)->getBuffer()))
      return error(options.spaceFile + ": " + llvm::toString(std::move(e)));
  }
  for (const std::string &f : options.fixes)
    if (llvm::Error e = space->pin(f))
      return error("--fix " + f + ": " + llvm::toString(std::move(e)));
  if (options.workers)
    if (llvm::Error e = space->pin("amk-schedule-megakernel.workers=" +
                                   std::to_string(options.workers)))
      return std::move(e);
  space->dropPinned();
  return space;
}

llvm::Error Tuner::loadRulesDir() {
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(opts.rulesDir, ec), end;
       it != end && !ec; it.increment(ec)) {
    if (!llvm::StringRef(it->path()).ends_with(".json"))
      continue;
    auto rs = loadRules(it->path());
    if (!rs)
      return rs.takeError();
    for (Rule &r : *rs)
      if (r.target == "cpu" || r.target == "any")
        rules.push_back(std::move(r));
  }
  return llvm::Error::success();
}

/// Everything the search needs before its first trial: the model's
/// features and interface, the held-out inputs and their float reference
/// outputs, the run's identity, the records, the prior, the rules and the
/// machine's limits.
llvm::Error Tuner::setUp() {
  modelHash = modelStructuralHash(original);
  {
    OwningOpRef<ModuleOp> shaped = original.clone();
    std::string err;
    if (failed(runPipeline(*shaped, "builtin.module(amk-infer-shapes)", err)))
      return error("shape inference failed: " + err);
    features = modelFeatures(*shaped);
  }
  ref::Interpreter interp(original);
  func = interp.getFunction();
  if (!func)
    return error("the module has no function @main_graph");
  for (Type ty : func.getArgumentTypes()) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << ty;
    shapes += (shapes.empty() ? "" : ", ") + s;
  }
  unsigned sets = !opts.inputSets.empty() ? opts.inputSets.size()
                  : opts.inputDir.empty() ? std::max(1u, opts.holdout)
                                          : 1;
  for (unsigned s = 0; s < sets; ++s) {
    if (!opts.inputSets.empty()) {
      inputs.push_back(opts.inputSets[s]);
    } else {
      InputOptions in;
      in.dir = opts.inputDir;
      in.dirHoldsAll = true;
      in.symbolicDims = false;
      in.seed = opts.seed * 1000 + 7919 * s;
      auto set = prepareInputs(func, in);
      if (!set)
        return set.takeError();
      inputs.push_back(std::move(*set));
    }
    auto out = interp.run(inputs.back());
    if (failed(out))
      return error("the float reference failed: " +
                   interp.getFailure().message);
    expected.push_back(std::move(*out));
  }
  machine = rt::machineFingerprint();
  if (!opts.calibrationData.empty()) {
    // Reading the set here also checks it against the model before any
    // candidate is built.
    std::string err;
    auto hash = quant::hashCalibrationSet(func, opts.calibrationData, err);
    if (failed(hash))
      return error(err);
    calibHash = hexHash(*hash);
  }
  run = hexHash(fnv(modelHash + "|" + machine + "|" + compiler + "|" +
                    space.print() + "|" + std::to_string(opts.seed) + "|" +
                    calibHash + "|" + opts.inputDir));
  LoadedRecords lr = loadRecords(opts.records);
  if (lr.badLines)
    info(llvm::formatv("skipped {0} corrupt line(s) of the records '{1}'",
                       lr.badLines, opts.records));
  std::vector<Record> outcomes = latestPerTrial(lr.records);
  if (!opts.fresh)
    for (const Record &r : outcomes)
      if (r.run == run)
        resumed[r.trial] = r;
  if (!resumed.empty())
    info(llvm::formatv("resuming run {0}: {1} trial(s) recorded", run,
                       resumed.size()));
  if (!opts.noPrior)
    prior = std::make_unique<Prior>(outcomes, machine, modelHash);
  if (!opts.noRules)
    if (llvm::Error e = loadRulesDir())
      return e;
  // The machine's limits for the physical floor.
  unsigned maxWorkers = 1;
  if (int k = space.find("amk-schedule-megakernel.workers"); k >= 0) {
    for (const std::string &v : space.knobs()[k].values)
      maxWorkers = std::max<unsigned>(maxWorkers, std::stoul(v));
  } else {
    maxWorkers = opts.workers ? opts.workers : 2;
  }
  peakGflops = rt::measureFmaPeak(maxWorkers, 5'000'000, 3);
  // The floor's weight bytes are only read: a read-only stream is what
  // bounds them (the triad, two reads and a write, understates it, and a
  // decoder step measured faster than triad bytes allow was withheld).
  bandwidthGbps = std::max(rt::measureTriadBandwidth(maxWorkers, 16u << 20, 3),
                           rt::measureReadBandwidth(maxWorkers, 256u << 20, 3));
  llcBytes = rt::lastLevelCacheBytes();
  info(llvm::formatv("{0}; measured peak {1:f1} GFLOP/s, {2:f1} GB/s on {3} "
                     "thread(s); {4} knob(s), budget {5} trials / {6} s",
                     machine, peakGflops, bandwidthGbps, maxWorkers,
                     space.knobs().size(), opts.budget, opts.timeLimit));
  return llvm::Error::success();
}

/// ONNX Runtime on the same inputs, same threads, for the report.
void Tuner::timeOnnxRuntime(const Candidate &best, TuneResult &result) {
  if (!opts.compareOrt || !llvm::StringRef(opts.modelPath).ends_with(".onnx") ||
      !ort::isAvailable())
    return;
  ort::Options o;
  o.threads = best.loaded->program.num_workers;
  o.iterations = 3 + opts.iters * opts.minReps;
  auto res = runOnnxRuntime(opts.modelPath, original, func, inputs[0], o);
  if (!res) {
    result.ortNote = llvm::toString(res.takeError());
    return;
  }
  if (res->seconds.size() <= 3)
    return;
  std::vector<double> ms;
  for (size_t i = 3; i < res->seconds.size(); ++i)
    ms.push_back(res->seconds[i] * 1e3);
  result.ortMs = median(ms);
}

/// A trace of the chosen program for the report's breakdown.
void Tuner::traceChosen(Candidate &best, TuneResult &result) {
  amk_rt_options o{};
  o.trace = 1;
  o.hang_timeout_s = 30;
  auto session = Session::create(*best.loaded, nullptr, o);
  if (!session) {
    llvm::consumeError(session.takeError());
    return;
  }
  Session &s = **session;
  if (auto bound = s.bindInputs(inputs[0]); !bound) {
    llvm::consumeError(bound.takeError());
    return;
  }
  for (int i = 0; i < 3; ++i)
    if (auto ran = s.run(0); !ran)
      llvm::consumeError(ran.takeError());
  std::string tracePath = opts.reportDir + "/trace.json";
  if (llvm::Error e = s.writeTrace(tracePath)) {
    llvm::consumeError(std::move(e));
    return;
  }
  if (auto buf = llvm::MemoryBuffer::getFile(tracePath)) {
    auto b = analyzeTrace((*buf)->getBuffer());
    if (b)
      result.breakdown = *b;
    else
      llvm::consumeError(b.takeError());
  }
}

/// The tuned pipeline against the default, interleaved once more, the
/// choice recorded, and what the report shows.
llvm::Error Tuner::finish(TuneResult &result) {
  // If this last check does not confirm the gain, the simpler (default)
  // pipeline is chosen: a gain that does not reproduce is not kept.
  Candidate *chosen = incumbent;
  if (baseline && incumbent != baseline) {
    std::vector<double> a, b;
    if (llvm::Error e = interleave(*baseline, a, *incumbent, b, opts.minReps))
      return e;
    result.vsDefault = decideInterleaved(a, b);
    result.defaultMs = median(a);
    result.bestMs = median(b);
    if (result.vsDefault->verdict != Verdict::Keep) {
      result.finalNote = "the final interleaved check of the tuned pipeline (" +
                         space.describe(incumbent->cfg) +
                         ") against the default did not confirm its gain (" +
                         result.vsDefault->reason +
                         "), so the default is chosen";
      info(result.finalNote);
      chosen = baseline;
      result.bestMs = result.defaultMs;
    }
  } else if (baseline) {
    result.defaultMs = result.bestMs = median(incumbent->samples);
  } else {
    result.bestMs = median(incumbent->samples);
  }
  Candidate &best = *chosen;
  if (!opts.records.empty()) {
    // What amk-compile takes as this model's pipeline on this machine
    // (tune::findChoice): the pipeline printed, with its evidence.
    Record r = best.rec;
    r.verdict = "chosen";
    r.reason = !result.finalNote.empty() ? result.finalNote
               : result.vsDefault        ? "tuned vs default, interleaved: " +
                                        result.vsDefault->reason
                                  : std::string("the default pipeline");
    r.speedup =
        std::isfinite(result.defaultMs) ? result.defaultMs / result.bestMs : 0;
    r.time.clear();
    if (llvm::Error e = appendRecord(opts.records, r))
      return e;
  }
  timeOnnxRuntime(best, result);
  result.roof.flops = best.flops;
  result.roof.bytes = best.constBytes + best.arenaBytes;
  result.roof.seconds = result.bestMs / 1e3;
  result.roof.peakGflops = peakGflops;
  result.roof.bandwidthGbps = bandwidthGbps;
  if (!opts.reportDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(opts.reportDir))
      return error("cannot create '" + opts.reportDir + "': " + ec.message());
    traceChosen(best, result);
  }

  result.found = true;
  result.modelPath = opts.modelPath;
  result.modelHash = modelHash;
  result.machine = machine;
  result.run = run;
  result.pipeline = best.pipeline;
  result.defaultPipeline = space.pipeline(space.defaults());
  result.changes = space.describe(best.cfg);
  result.trials = trials;
  result.workers = best.loaded->program.num_workers;
  result.peakGflops = peakGflops;
  result.bandwidthGbps = bandwidthGbps;
  if (opts.calibrationData.empty())
    result.calibNote = "precision is fp32: no --calibration-data";
  // Best-so-far speedup after each trial: a trial that was later kept
  // counts from its own index (the trial that found it).
  double bestSoFar = baseline ? 1 : 0;
  for (auto &c : all) {
    TrialSummary t;
    t.trial = c->trial;
    t.changes = space.describe(c->cfg);
    t.verdict = c->rec.verdict;
    t.reason = c->rec.reason;
    if (!c->samples.empty())
      t.medianMs = median(c->samples);
    t.speedup = c->rec.speedup;
    t.warm = c->warm;
    t.rules = c->rules;
    result.trialList.push_back(std::move(t));
    if (c->rec.verdict == "keep")
      bestSoFar = std::max(bestSoFar, c->rec.speedup);
    result.bestSoFar.push_back(bestSoFar);
    result.rejected +=
        c->rec.verdict == "rejected" || c->rec.verdict == "failed";
  }
  for (const Rule &r : rules)
    if (rulesApplied.count(r.id))
      result.rulesApplied.push_back(r);
  if (prior && !prior->empty())
    result.nearest = prior->nearest(features);
  if (!opts.reportDir.empty()) {
    result.seconds = elapsed();
    if (llvm::Error e = writeTuneReport(result, opts.reportDir))
      return e;
    info("report: " + opts.reportDir + "/report.md");
  }
  result.seconds = elapsed();
  return llvm::Error::success();
}

llvm::Expected<TuneResult> Tuner::tune() {
  if (llvm::Error e = setUp())
    return std::move(e);
  TuneResult result;
  if (llvm::Error e = baselineTrial())
    return std::move(e);
  if (!incumbent)
    if (llvm::Error e = firstCorrectTrial())
      return std::move(e);
  if (!incumbent) {
    showProgress(/*done=*/true);
    result.failures = failures;
    return result;
  }
  if (llvm::Error e = search())
    return std::move(e);
  showProgress(/*done=*/true);
  if (llvm::Error e = finish(result))
    return std::move(e);
  return result;
}

llvm::Expected<TuneResult> amk::tune::tuneModel(ModuleOp module,
                                                const Space &space,
                                                const TunerOptions &options) {
  return Tuner(module, space, options).tune();
}

llvm::Expected<TunedPipeline>
amk::tune::findTunedPipeline(ModuleOp module,
                             const std::vector<Record> &records,
                             const TunedPipelineQuery &query) {
  ChoiceKey key;
  key.modelHash = modelStructuralHash(module);
  key.machine = rt::machineFingerprint();
  key.compiler = AMK_VERSION;
  key.precision = query.precision;
  if (query.precision != "fp32" && !query.calibrationData.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>("main_graph");
    if (!func)
      return error("the model has no function @main_graph");
    std::string err;
    auto hash = quant::hashCalibrationSet(func, query.calibrationData, err);
    if (failed(hash))
      return error(err);
    key.calibrationHash = hexHash(*hash);
  }
  key.workers = query.workers;
  ChoiceLookup found = findChoice(records, key);
  TunedPipeline tuned;
  tuned.note = found.note;
  if (!found.chosen)
    return tuned;
  tuned.chosen = *found.chosen;
  std::string text = found.chosen->pipeline;
  if (key.precision != "fp32") {
    // data-dir="..." -> this invocation's directory.
    llvm::SmallString<256> dir(query.calibrationData);
    llvm::sys::fs::make_absolute(dir);
    size_t at = text.find("data-dir=\"");
    size_t end = at == std::string::npos ? at : text.find('"', at + 10);
    if (end == std::string::npos)
      return error("the recorded pipeline '" + text + "' (records '" +
                   query.records +
                   "') has no data-dir for its calibration samples");
    text.replace(at, end + 1 - at, "data-dir=\"" + std::string(dir) + "\"");
  }
  PassManager pm(module.getContext());
  std::string err;
  llvm::raw_string_ostream errOs(err);
  if (failed(parsePipeline(text, pm, errOs)))
    return error("the recorded pipeline '" + text + "' (records '" +
                 query.records +
                 "'; give --no-records to use the default pipeline) does "
                 "not parse: " +
                 err);
  tuned.pipeline = text;
  return tuned;
}
