//===- amk-tune.cpp - Search pass pipelines for the fastest correct one ---===//
//
// Part of AMK. Finds the fastest pipeline for a model on this machine that
// still computes the model's outputs, and prints it as a string that
// `amk-opt --pass-pipeline=...` and `amk-run --pipeline=...` run verbatim
// (docs/tuning.md):
//
//   amk-tune model.onnx [--budget 40] [--time-limit 600] [--threads N]
//       [--calibration-data DIR] [--space space.json] [--fix stage.knob=v]
//       [--records FILE] [--report DIR]
//   amk-tune --list-space
//   amk-tune --mine-rules [--records FILE]
//
// Every candidate is compiled, validated, run on held-out inputs and
// compared with the float reference before it is timed; candidates are
// timed interleaved with the incumbent, and a candidate replaces the
// incumbent only on the evidence tune/Statistics.h defines. Exit status: 0
// a pipeline was chosen, 1 no candidate compiled and ran correctly, 2 bad
// usage or input.
//
//===----------------------------------------------------------------------===//

#include "execution/Generate.h"
#include "execution/Session.h"
#include "pipelines/Pipelines.h"
#include "tools/lib/ToolError.h"
#include "translate/ONNXToolOptions.h"
#include "tune/Knowledge.h"
#include "tune/Records.h"
#include "tune/Tuner.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <unistd.h>

using namespace mlir;
using namespace amk::tune;
namespace cl = llvm::cl;

static cl::OptionCategory tuneCat("amk-tune options");
static cl::opt<std::string> modelPath(cl::Positional, cl::desc("<model.onnx>"),
                                      cl::init(""), cl::cat(tuneCat));
static cl::opt<bool> listSpace("list-space",
                               cl::desc("Print the search space and exit"),
                               cl::cat(tuneCat));
static cl::opt<bool>
    mineRules("mine-rules",
              cl::desc("Propose knowledge rules from the records (with their "
                       "support and a sign test) and exit"),
              cl::cat(tuneCat));
static cl::opt<unsigned> budget("budget",
                                cl::desc("At most this many candidate "
                                         "pipelines are compiled (trials)"),
                                cl::init(40), cl::cat(tuneCat));
static cl::opt<double> timeLimit("time-limit",
                                 cl::desc("Stop starting trials after this "
                                          "many seconds"),
                                 cl::init(600), cl::cat(tuneCat));
static cl::opt<unsigned>
    threadsOpt("workers",
               cl::desc("Pin amk-schedule-megakernel.workers (default: "
                        "searched)"),
               cl::init(0), cl::cat(tuneCat));
static cl::opt<std::string>
    calibrationData("calibration-data",
                    cl::desc("Calibration samples: enables the int8 and mixed "
                             "candidates (without it precision is fp32)"),
                    cl::init(""), cl::cat(tuneCat));
static cl::opt<std::string>
    spaceFile("space",
              cl::desc("JSON {\"stage.knob\": [values]} narrowing "
                       "the search space"),
              cl::init(""), cl::cat(tuneCat));
static cl::list<std::string> fixes("fix",
                                   cl::desc("stage.knob=value: pin a knob "
                                            "(repeatable)"),
                                   cl::cat(tuneCat));
static cl::opt<std::string>
    recordsPath("records",
                cl::desc("The records store (JSON lines; default "
                         "$XDG_CACHE_HOME/amk/records.jsonl)"),
                cl::init(""), cl::cat(tuneCat));
static cl::opt<bool> fresh("fresh",
                           cl::desc("Do not resume an interrupted run of "
                                    "the same model, machine and space"),
                           cl::cat(tuneCat));
static cl::opt<bool> noPrior("no-prior",
                             cl::desc("Ignore past records of other models "
                                      "(a cold start)"),
                             cl::cat(tuneCat));
static cl::opt<std::string> rulesDir("rules-dir",
                                     cl::desc("Knowledge rules directory "
                                              "(default: knowledge/rules)"),
                                     cl::init(""), cl::cat(tuneCat));
static cl::opt<bool> noRules("no-rules", cl::desc("Apply no knowledge rule"),
                             cl::cat(tuneCat));
static cl::opt<std::string> reportDir("report",
                                      cl::desc("Write the report "
                                               "(report.md, SVG charts, "
                                               "result.json) here"),
                                      cl::init(""), cl::cat(tuneCat));
static cl::opt<std::string>
    inputDir("input-dir",
             cl::desc("Held-out inputs (<name>.npy/.pb or input_<i>); "
                      "default: seeded random inputs"),
             cl::init(""), cl::cat(tuneCat));
static cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("NAME=D0xD1x...: tune a model with dynamic dimensions at this "
             "shape of input NAME (records are keyed by the bound shapes); "
             "repeatable"),
    cl::cat(tuneCat));
static cl::opt<unsigned> decodeContext(
    "decode-context",
    cl::desc("Tune a decoder's decode step (Hugging Face Optimum's "
             "interface, as amk-run --generate compiles it): one token after "
             "N - 1 slots of a KV cache updated in place, checked on "
             "--holdout sets of random positions, tokens and cache contents"),
    cl::init(0), cl::cat(tuneCat));
static cl::list<std::string>
    dimSizes("dim",
             cl::desc("NAME=N: tune at this size of the model's dimension "
                      "NAME (its dim_param); repeatable"),
             cl::cat(tuneCat));
static cl::opt<unsigned> holdout("holdout",
                                 cl::desc("Seeded random held-out input sets "
                                          "each candidate is checked on"),
                                 cl::init(2), cl::cat(tuneCat));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of inputs and search"),
                              cl::init(1), cl::cat(tuneCat));
static cl::opt<double> rtol("rtol",
                            cl::desc("Float candidates: tolerance relative "
                                     "to each output's scale"),
                            cl::init(1e-4), cl::cat(tuneCat));
static cl::opt<double> minCosine("min-cosine",
                                 cl::desc("Quantized candidates: minimum "
                                          "cosine similarity to float"),
                                 cl::init(0.99), cl::cat(tuneCat));
static cl::opt<double> minTop1("min-top1",
                               cl::desc("Quantized candidates: minimum top-1 "
                                        "agreement with float (0..1)"),
                               cl::init(0.98), cl::cat(tuneCat));
static cl::opt<unsigned> iters("iters",
                               cl::desc("Runs per repetition (a repetition "
                                        "is their median)"),
                               cl::init(5), cl::cat(tuneCat));
static cl::opt<unsigned> minReps("reps",
                                 cl::desc("Repetitions of a final decision "
                                          "(at least 9)"),
                                 cl::init(9), cl::cat(tuneCat));
static cl::opt<unsigned> roundSize("round-size",
                                   cl::desc("Candidates per successive-"
                                            "halving round"),
                                   cl::init(6), cl::cat(tuneCat));
static cl::opt<double> explore("explore",
                               cl::desc("Share of candidates drawn at random "
                                        "from the whole space"),
                               cl::init(0.05), cl::cat(tuneCat));
static cl::opt<bool> compareOrt("compare-ort",
                                cl::desc("Time ONNX Runtime on the same "
                                         "inputs for the report"),
                                cl::init(true), cl::cat(tuneCat));
static cl::opt<bool> progress("progress",
                              cl::desc("Show a progress bar (default: when "
                                       "stderr is a terminal)"),
                              cl::init(isatty(2)), cl::cat(tuneCat));
static cl::opt<bool> quiet("quiet",
                           cl::desc("Print only the pipeline on stdout"),
                           cl::cat(tuneCat));

namespace {

const amk::ToolErrors errors("amk-tune", 2);

void info(const llvm::Twine &msg) {
  if (!quiet)
    llvm::errs() << "amk-tune: " << msg << "\n";
}

void showProgress(const TuneProgress &p) {
  if (p.done) {
    llvm::errs() << "\n";
    return;
  }
  unsigned width = 24, done = std::min<unsigned>(
                           width, p.trials * width / std::max(1u, p.budget));
  std::string bar(done, '#');
  bar += std::string(width - done, '.');
  double left = p.secondsLeft;
  llvm::errs() << llvm::formatv(
      "\r[{0}] {1}/{2} trials, best {3} ({4:f2}x default), {5}:{6:d2} "
      "left   ",
      bar, p.trials, p.budget,
      std::isfinite(p.bestMs) ? llvm::formatv("{0:f3} ms", p.bestMs).str()
                              : std::string("-"),
      p.speedup, (int)left / 60, (int)left % 60);
}

TunerOptions tunerOptions(const char *argv0, const std::string &records) {
  TunerOptions o;
  o.modelPath = modelPath;
  o.budget = budget;
  o.timeLimit = timeLimit;
  o.workers = threadsOpt;
  o.calibrationData = calibrationData;
  o.spaceFile = spaceFile;
  o.fixes = fixes;
  o.records = records;
  o.fresh = fresh;
  o.noPrior = noPrior;
  o.noRules = noRules;
  o.rulesDir = rulesDir.empty()
                   ? defaultRulesDir(llvm::sys::path::parent_path(
                         llvm::sys::fs::getMainExecutable(
                             argv0, reinterpret_cast<void *>(&info))))
                   : rulesDir.getValue();
  o.reportDir = reportDir;
  o.inputDir = inputDir;
  o.holdout = holdout;
  o.seed = seed;
  o.rtol = rtol;
  o.minCosine = minCosine;
  o.minTop1 = minTop1;
  o.iters = iters;
  o.minReps = minReps;
  o.roundSize = roundSize;
  o.explore = explore;
  o.compareOrt = compareOrt;
  o.log = info;
  if (progress && !quiet)
    o.progress = showProgress;
  return o;
}

/// --mine-rules: proposed rules on stdout, for a human to review.
int mine(const std::string &path) {
  LoadedRecords lr = loadRecords(path);
  if (lr.badLines)
    llvm::errs() << "amk-tune: skipped " << lr.badLines
                 << " corrupt line(s) of '" << path << "'\n";
  std::vector<Record> outcomes = latestPerTrial(lr.records);
  nlohmann::ordered_json rules = proposeRules(outcomes);
  llvm::outs() << nlohmann::ordered_json{{"proposed_rules", rules}}.dump(2)
               << "\n";
  llvm::errs() << "amk-tune: " << rules.size() << " rule(s) proposed from "
               << outcomes.size()
               << " trial(s); review them before adding to knowledge/rules\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  amk::registerONNXToolOptions();
  amk::registerAllPasses();
  cl::HideUnrelatedOptions({&tuneCat});
  cl::ParseCommandLineOptions(argc, argv,
                              "Finds the fastest correct pass pipeline for a "
                              "model on this machine\n");
  std::string records =
      recordsPath.empty() ? defaultRecordsPath() : recordsPath.getValue();
  if (mineRules)
    return mine(records);

  TunerOptions options = tunerOptions(argv[0], records);
  Space space = errors(tuningSpace(options));
  if (listSpace) {
    llvm::outs() << space.print();
    return 0;
  }
  if (modelPath.empty())
    errors.fail("give a model (or --list-space, --mine-rules)");
  if (budget == 0)
    errors.fail("--budget must be at least 1");
  if (minReps < 9)
    errors.fail("--reps must be at least 9 (DESIGN.md section 5)");

  amk::ModelContext context;
  OwningOpRef<ModuleOp> module = context.load(modelPath);
  if (!module)
    return 2;
  // A model with dynamic dimensions is tuned at the sizes given: the
  // pipelines are compiled for them, and the records' model key (the bound
  // graph's structural hash), shapes and features (FLOPs, bytes) are
  // theirs, so a shape tuned does not answer for another.
  if (decodeContext) {
    if (!inputShapes.empty() || !dimSizes.empty() || !inputDir.empty())
      errors.fail("--decode-context binds the shapes and makes the inputs "
                  "itself: drop --input-shape, --dim and --input-dir");
    amk::DecodeStep step = errors(amk::prepareDecodeStep(
        *module, decodeContext, std::max(1u, holdout.getValue()), seed));
    options.inputSets = std::move(step.inputSets);
    options.inPlace = std::move(step.inPlace);
    // ONNX Runtime runs the model as exported, not this in-place step:
    // amk-run --generate --compare-ort compares whole generations.
    options.compareOrt = false;
  } else {
    errors(amk::bindShapes(*module, inputShapes, dimSizes));
  }
  TuneResult result = errors(tuneModel(*module, space, options));
  if (!result.found) {
    std::string reasons;
    for (const std::string &f : result.failures)
      reasons += "\n  " + f;
    amk::ToolErrors("amk-tune", 1)
        .fail("no candidate compiled and ran correctly; each one's reason:" +
              reasons);
  }
  info(llvm::formatv("{0} trial(s) in {1:f1} s ({2} rejected or failed); "
                     "chosen: {3}; {4:f3} ms vs default {5:f3} ms",
                     result.trials, result.seconds, result.rejected,
                     result.changes, result.bestMs, result.defaultMs));
  llvm::outs() << result.pipeline << "\n";
  return 0;
}
