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

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXTypes.h"
#include "conversion/Passes.h"
#include "execution/ProgramLoader.h"
#include "transforms/quantization/CalibrationData.h"
#include "pipelines/Pipelines.h"
#include "dialect/AMKTask/TaskProgram.h"
#include "reference/Compare.h"
#include "reference/Interpreter.h"
#include "reference/ORTBridge.h"
#include "runtime/include/amk/runtime.h"
#include "runtime/support/Fnv1a.h"
#include "runtime/support/Peak.h"
#include "translate/ONNXImport.h"
#include "translate/ONNXToolOptions.h"
#include "translate/TensorIO.h"
#include "tune/Knowledge.h"
#include "tune/Prior.h"
#include "tune/Records.h"
#include "tune/Report.h"
#include "tune/Space.h"
#include "tune/Statistics.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <set>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace amk::tune;
namespace cl = llvm::cl;
using amk::ref::RValue;
using amk::ref::Tensor;

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

using Clock = std::chrono::steady_clock;
static const char *kStages[] = {"amk-graph-opt", "amk-quantize",
                                "amk-schedule-megakernel"};

[[noreturn]] void die(const llvm::Twine &msg) {
  llvm::errs() << "amk-tune: error: " << msg << "\n";
  std::exit(2);
}

void info(const llvm::Twine &msg) {
  if (!quiet)
    llvm::errs() << "amk-tune: " << msg << "\n";
}

uint64_t fnv(llvm::StringRef s, uint64_t h = amk::kFnv1aOffset) {
  return amk::fnv1a(s.data(), s.size(), h);
}


/// A candidate pipeline and, once compiled, its program and session.
struct Candidate {
  Config cfg;
  std::string pipeline;
  unsigned trial = 0;
  bool warm = false;
  std::vector<std::string> rules; ///< Rules that ranked it.
  std::unique_ptr<amk::LoadedProgram> loaded;
  amk_rt_session *session = nullptr;
  uint64_t programHash = 0;
  double flops = 0, constBytes = 0, arenaBytes = 0;
  std::vector<double> samples, incSamples;
  Record rec;
  /// Bound once when the candidate is loaded, so a timed run is the
  /// runtime call alone: input pointers per held-out set, the outputs.
  std::vector<std::vector<const void *>> inPtrs;
  std::vector<RValue> outs;
  std::vector<void *> outPtrs;
  ~Candidate() { release(); }
  void release() {
    if (session)
      amk_rt_session_destroy(session);
    session = nullptr;
    loaded.reset();
    outs.clear();
    outPtrs.clear();
  }
};

struct Tuner {
  MLIRContext &ctx;
  ModuleOp original;
  Space space;
  std::vector<std::vector<RValue>> inputs;   // Held-out sets.
  std::vector<std::vector<RValue>> expected; // Float reference outputs.
  std::vector<double> features;
  std::string modelHash, shapes, machine, compiler = AMK_VERSION, calibHash;
  std::string run, records;
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

  Tuner(MLIRContext &ctx, ModuleOp m) : ctx(ctx), original(m), rng(seed) {}

  double elapsed() const {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }
  bool outOfBudget() const {
    return trials >= budget || elapsed() >= timeLimit;
  }

  KnobMap knobs(const Config &c) const {
    KnobMap m;
    for (auto [i, k] : llvm::enumerate(space.knobs()))
      if (c[i] != 0)
        m[k.id()] = k.values[c[i]];
    return m;
  }
  std::optional<Config> fromKnobs(const KnobMap &m) const {
    Config c = space.defaults();
    for (auto &[id, v] : m) {
      int i = space.find(id);
      if (i < 0)
        return std::nullopt;
      auto &vals = space.knobs()[i].values;
      auto it = llvm::find(vals, v);
      if (it == vals.end())
        return std::nullopt;
      c[i] = it - vals.begin();
    }
    return c;
  }
  /// From the pipeline, not the knob: a precision pinned with --fix is
  /// no longer a knob of the space.
  bool quantized(const Candidate &c) const {
    return pipelinePrecision(c.pipeline) != "fp32";
  }

  void showProgress() {
    if (!progress || quiet)
      return;
    double best = incumbent && !incumbent->samples.empty()
                      ? median(incumbent->samples)
                      : NAN;
    unsigned width = 24,
             done = std::min<unsigned>(
                 width, trials * width / std::max(1u, budget.getValue()));
    std::string bar(done, '#');
    bar += std::string(width - done, '.');
    double left = std::max(0.0, timeLimit - elapsed());
    llvm::errs() << llvm::formatv(
        "\r[{0}] {1}/{2} trials, best {3} ({4:f2}x default), {5}:{6:d2} "
        "left   ",
        bar, trials, budget.getValue(),
        std::isfinite(best) ? llvm::formatv("{0:f3} ms", best).str()
                            : std::string("-"),
        incumbentSpeedup, (int)left / 60, (int)left % 60);
  }
  void endProgress() {
    if (progress && !quiet)
      llvm::errs() << "\n";
  }

  void write(Candidate &c) {
    c.rec.run = run;
    c.rec.trial = c.trial;
    c.rec.modelHash = modelHash;
    c.rec.modelName = llvm::sys::path::filename(modelPath).str();
    c.rec.shapes = shapes;
    c.rec.features = features;
    c.rec.pipeline = c.pipeline;
    c.rec.config = knobs(c.cfg);
    c.rec.compiler = compiler;
    c.rec.machine = machine;
    c.rec.calibrationHash = calibHash;
    if (c.loaded)
      c.rec.workers = c.loaded->program.num_workers;
    c.rec.samplesMs = c.samples;
    c.rec.incumbentSamplesMs = c.incSamples;
    c.rec.time.clear();
    if (records.empty())
      return;
    if (llvm::Error e = appendRecord(records, c.rec))
      die(llvm::toString(std::move(e)));
  }

  /// Compiles, validates, loads and checks a candidate on the held-out
  /// inputs. False (with the record's verdict and reason) when it fails.
  bool compileAndCheck(Candidate &c) {
    c.rec.verdict = "started";
    write(c);
    std::string diags;
    ScopedDiagnosticHandler capture(&ctx, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        diags += (diags.empty() ? "" : "; ") + d.str();
      return success();
    });
    auto fail = [&](const std::string &verdict, const std::string &why) {
      c.rec.verdict = verdict;
      c.rec.reason = why + (diags.empty() ? "" : ": " + diags);
      failures.push_back(llvm::formatv("trial {0} ({1}): {2}", c.trial,
                                       space.describe(c.cfg), c.rec.reason)
                             .str());
      c.release();
      return false;
    };
    OwningOpRef<ModuleOp> m = original.clone();
    std::string error;
    if (failed(amk::runPipeline(*m, c.pipeline, error)))
      return fail("failed", "compilation failed (" + error + ")");
    amk::task::ProgramOp program;
    for (auto p : m->getOps<amk::task::ProgramOp>())
      program = p;
    if (!program)
      return fail("failed", "the pipeline produced no task program");
    if (failed(amk::task::validateProgram(program)))
      return fail("failed", "the task program is invalid");
    c.loaded = amk::loadProgram(program, error);
    if (!c.loaded)
      return fail("failed", "cannot load the task program: " + error);
    c.programHash = amk::hashProgram(*c.loaded);
    if (DictionaryAttr stats = program.getStatsAttr()) {
      if (auto f = stats.getAs<FloatAttr>("flops"))
        c.flops = f.getValueAsDouble();
      if (auto b = stats.getAs<IntegerAttr>("const_bytes"))
        c.constBytes = b.getInt();
    }
    c.arenaBytes = c.loaded->program.arena_bytes;
    if (auto it = programTrial.find(c.programHash); it != programTrial.end()) {
      c.rec.verdict = "duplicate";
      c.rec.reason = llvm::formatv("compiles to the same program as trial {0}",
                                   it->second);
      c.release();
      return false;
    }
    programTrial[c.programHash] = c.trial;
    amk_rt_options opts{};
    opts.hang_timeout_s = 30;
    if (amk_rt_session_create(&c.loaded->program, &opts, &c.session) !=
        AMK_RT_OK)
      return fail("failed", std::string("cannot create a session: ") +
                                amk_rt_error_message(nullptr));
    if (std::string why = bind(c); !why.empty())
      return fail("failed", why);
    // Correctness before speed: every held-out set against the float
    // reference.
    bool quant = quantized(c);
    double worstRel = 0, worstCos = 1;
    unsigned agree = 0, rows = 0;
    for (size_t s = 0; s < inputs.size(); ++s) {
      if (!runOnce(c, s))
        return fail("rejected", std::string("the run failed: ") +
                                    amk_rt_error_message(c.session));
      const std::vector<RValue> &outs = c.outs;
      for (size_t o = 0; o < outs.size(); ++o) {
        const RValue &want = expected[s][o];
        if (!quant) {
          auto cmp = amk::ref::compareValues(
              want, outs[o], amk::ref::scaledTolerance(want, rtol));
          worstRel = std::max(worstRel, cmp.maxRelError);
          worstCos = std::min(worstCos, cmp.cosine);
          if (!cmp.ok)
            return fail("rejected",
                        llvm::formatv("output {0} differs from the float "
                                      "reference on held-out set {1}: {2}",
                                      o, s, cmp.message)
                            .str());
        } else {
          auto cmp = amk::ref::compareValues(want, outs[o], {1e30, 1e30});
          worstCos = std::min(worstCos, cmp.cosine);
          worstRel = std::max(worstRel, cmp.maxRelError);
          if (o == 0 && want.isTensor()) {
            // Top-1 over the last axis, row by row.
            const Tensor &a = want.getTensor(), &b = outs[o].getTensor();
            int64_t cols = a.rank() ? a.dim(-1) : 1;
            for (int64_t r = 0; cols > 0 && r < a.numel() / cols; ++r) {
              int64_t ia = 0, ib = 0;
              for (int64_t k = 1; k < cols; ++k) {
                if (a.getDouble(r * cols + k) > a.getDouble(r * cols + ia))
                  ia = k;
                if (b.getDouble(r * cols + k) > b.getDouble(r * cols + ib))
                  ib = k;
              }
              agree += ia == ib;
              ++rows;
            }
          }
        }
      }
    }
    c.rec.maxRelError = worstRel;
    c.rec.cosine = worstCos;
    if (quant) {
      c.rec.top1 = rows ? (double)agree / rows : 1;
      if (worstCos < minCosine || c.rec.top1 < minTop1)
        return fail("rejected",
                    llvm::formatv("quantized outputs too far from float: "
                                  "cosine {0:f5} (min {1}), top-1 {2:f3} "
                                  "(min {3})",
                                  worstCos, minCosine.getValue(), c.rec.top1,
                                  minTop1.getValue())
                        .str());
    }
    return true;
  }

  /// Binds the held-out inputs and fresh output buffers to a loaded
  /// candidate; a message if the program's interface does not fit them.
  std::string bind(Candidate &c) {
    const amk_rt_program &p = c.loaded->program;
    c.inPtrs.assign(inputs.size(), {});
    for (size_t s = 0; s < inputs.size(); ++s)
      for (unsigned i = 0; i < p.num_inputs; ++i) {
        const Tensor &t = inputs[s][i].getTensor();
        if ((uint64_t)t.byteSize() != p.inputs[i].bytes)
          return llvm::formatv("input {0} of the program takes {1} bytes, "
                               "the held-out input has {2}",
                               i, p.inputs[i].bytes, t.byteSize());
        c.inPtrs[s].push_back(t.raw());
      }
    for (unsigned i = 0; i < p.num_outputs; ++i) {
      auto type = c.loaded->outputTypes[i];
      Tensor t(*amk::onnx::getDataType(type.getElementType()), type.getShape());
      c.outPtrs.push_back(t.raw());
      c.outs.push_back(RValue(t));
    }
    return "";
  }

  /// Runs held-out set `set` into the candidate's output buffers.
  bool runOnce(Candidate &c, size_t set) {
    return amk_rt_run(c.session, c.inPtrs[set].data(), c.outPtrs.data()) ==
           AMK_RT_OK;
  }

  /// One repetition: the median of `iters` timed runs, in ms.
  double repetition(Candidate &c) {
    std::vector<double> t;
    runOnce(c, 0); // Warm caches after the other candidate ran.
    for (unsigned i = 0; i < std::max(1u, iters.getValue()); ++i) {
      auto t0 = Clock::now();
      if (!runOnce(c, 0))
        die("a run that passed its check failed while timed: " +
            std::string(amk_rt_error_message(c.session)));
      t.push_back(
          std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    return median(t);
  }

  /// `reps` more repetitions of `a` and `b`, interleaved, the order
  /// alternating so neither always runs first.
  void interleave(Candidate &a, std::vector<double> &aSamples, Candidate &b,
                  std::vector<double> &bSamples, unsigned reps) {
    for (unsigned r = 0; r < reps; ++r) {
      bool aFirst = (aSamples.size() + r) % 2 == 0;
      double first = repetition(aFirst ? a : b);
      double second = repetition(aFirst ? b : a);
      aSamples.push_back(aFirst ? first : second);
      bSamples.push_back(aFirst ? second : first);
    }
  }
  /// `reps` more repetitions of `c` against the incumbent.
  void measure(Candidate &c, unsigned reps) {
    interleave(*incumbent, c.incSamples, c, c.samples, reps);
  }

  /// Marks a measured candidate `withheld` when its median is below the
  /// physical floor (a measurement error). Returns whether it did.
  bool withheldBelowFloor(Candidate &c) {
    double floorMs =
        1e3 * physicalFloorSeconds(c.flops, c.constBytes, c.arenaBytes,
                                   peakGflops, bandwidthGbps, llcBytes);
    double ms = median(c.samples);
    if (ms >= floorMs)
      return false;
    c.rec.verdict = "withheld";
    c.rec.reason = llvm::formatv("measured {0:f4} ms is below the physical "
                                 "floor {1:f4} ms: a measurement error, not "
                                 "a result",
                                 ms, floorMs);
    return true;
  }

  double ratio(const Candidate &c) const {
    return median(c.samples) / median(c.incSamples);
  }

  /// Makes `c` the next trial (its number, its pipeline tried).
  Candidate &adopt(std::unique_ptr<Candidate> c) {
    c->pipeline = space.pipeline(c->cfg);
    c->trial = trials++;
    tried.insert(c->pipeline);
    all.push_back(std::move(c));
    return *all.back();
  }
  Candidate &newCandidate(const Config &cfg) {
    auto c = std::make_unique<Candidate>();
    c->cfg = cfg;
    return adopt(std::move(c));
  }

  /// The configurations one knob away from `from`.
  std::vector<std::pair<Config, bool>> neighbours(const Config &from) const {
    std::vector<std::pair<Config, bool>> out;
    for (auto [k, knob] : llvm::enumerate(space.knobs()))
      for (unsigned v = 0; v < knob.values.size(); ++v)
        if (v != from[k]) {
          Config n = from;
          n[k] = v;
          out.push_back({n, false});
        }
    return out;
  }

  /// The outcome recorded by an interrupted earlier run, if any: its
  /// verdict is taken instead of measuring again.
  const Record *resumedOutcome(const Candidate &c) const {
    auto it = resumed.find(c.trial);
    if (it == resumed.end() || it->second.pipeline != c.pipeline)
      return nullptr;
    return &it->second;
  }

  void baselineTrial() {
    Candidate &c = newCandidate(space.defaults());
    info("trial 0: the default pipeline " + c.pipeline);
    if (!compileAndCheck(c)) {
      write(c);
      info("the default pipeline fails: " + c.rec.reason);
      return;
    }
    baseline = incumbent = &c;
    // A baseline measured against itself gives its A/A noise.
    interleave(c, c.incSamples, c, c.samples, minReps);
    c.rec.verdict = "baseline";
    c.rec.speedup = 1;
    c.rec.ratio = ratio(c);
    double noise = aaNoise(c.samples, c.incSamples);
    c.rec.reason = llvm::formatv("A/A noise {0:f2}%", 100 * noise).str();
    withheldBelowFloor(c);
    write(c);
  }

  /// Ranks candidate configurations: rules first (skip moves a value to
  /// the end, prioritize to the front), then the prior's predicted
  /// speedup; warm-start configurations lead.
  std::vector<std::unique_ptr<Candidate>>
  rank(std::vector<std::pair<Config, bool>> configs, unsigned want) {
    struct Scored {
      Config cfg;
      bool warm;
      double score;
      int rule; // -1 skip, 0, +1 prioritize
      std::vector<std::string> ids;
    };
    std::vector<Scored> scored;
    for (auto &[cfg, warm] : configs) {
      if (tried.count(space.pipeline(cfg)))
        continue;
      Scored s{cfg, warm, 1, 0, {}};
      KnobMap km = knobs(cfg);
      if (prior && !prior->empty())
        s.score = prior->predict(features, km);
      for (const Rule &r : rules) {
        auto it = km.find(r.knob);
        if (it == km.end() || it->second != r.value ||
            !ruleApplies(r, features))
          continue;
        s.rule = r.action == "skip" ? std::min(s.rule, -1)
                                    : std::max(s.rule, s.rule < 0 ? -1 : 1);
        s.ids.push_back(r.id);
        rulesApplied.insert(r.id);
      }
      scored.push_back(std::move(s));
    }
    llvm::stable_sort(scored, [](const Scored &a, const Scored &b) {
      if (a.warm != b.warm)
        return a.warm;
      if (a.rule != b.rule)
        return a.rule > b.rule;
      return a.score > b.score;
    });
    std::vector<std::unique_ptr<Candidate>> out;
    std::uniform_real_distribution<double> coin(0, 1);
    for (size_t i = 0; i < scored.size() && out.size() < want; ++i) {
      if (scored[i].rule < 0)
        break; // Skipped values only come back through exploration.
      auto c = std::make_unique<Candidate>();
      c->cfg = scored[i].cfg;
      c->warm = scored[i].warm;
      c->rules = scored[i].ids;
      // Exploration: now and then a random point of the whole space.
      if (explore > 0 && coin(rng) < explore) {
        Config r = space.defaults();
        for (auto [k, knob] : llvm::enumerate(space.knobs()))
          r[k] = rng() % knob.values.size();
        if (!tried.count(space.pipeline(r))) {
          c->cfg = r;
          c->warm = false;
          c->rules = {"exploration"};
        }
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  /// One round: compile and check each candidate, successive halving on
  /// the correct ones, and a full decision for the last one standing.
  /// Returns whether the incumbent changed.
  bool round(std::vector<std::unique_ptr<Candidate>> pending) {
    std::vector<Candidate *> pool;
    Candidate *resumedKeep = nullptr;
    for (auto &p : pending) {
      if (outOfBudget())
        break;
      if (tried.count(space.pipeline(p->cfg)))
        continue;
      Candidate &c = adopt(std::move(p));
      showProgress();
      if (const Record *r = resumedOutcome(c)) {
        c.rec = *r;
        c.samples = r->samplesMs;
        c.incSamples = r->incumbentSamplesMs;
        if (r->verdict == "started") {
          c.rec.verdict = "crashed";
          c.rec.reason = "an earlier run stopped inside this trial (a crash "
                         "or an interruption); not tried again";
          write(c);
        } else if (r->verdict == "keep" && compileAndCheck(c)) {
          // The kept incumbent needs its program again; the rest of the
          // round is replayed first so trial numbers stay those recorded.
          c.rec = *r;
          write(c);
          resumedKeep = &c;
        }
        continue;
      }
      if (!compileAndCheck(c)) {
        write(c);
        continue;
      }
      pool.push_back(&c);
    }
    if (resumedKeep) {
      for (Candidate *c : pool)
        c->release();
      promote(*resumedKeep);
      return true;
    }
    if (pool.empty())
      return false;
    unsigned reps = 3, rung = 0;
    for (Candidate *c : pool)
      measure(*c, reps);
    while (pool.size() > 1) {
      llvm::stable_sort(pool, [&](Candidate *a, Candidate *b) {
        return ratio(*a) < ratio(*b);
      });
      size_t keep = (pool.size() + 1) / 2;
      std::vector<Candidate *> next;
      for (auto [i, c] : llvm::enumerate(pool)) {
        if (i < keep && ratio(*c) < 1.0) {
          next.push_back(c);
          continue;
        }
        c->rec.verdict = "eliminated";
        c->rec.rung = rung;
        c->rec.ratio = ratio(*c);
        c->rec.speedup = incumbentSpeedup / c->rec.ratio;
        c->rec.reason = llvm::formatv("successive halving, rung {0}: ratio "
                                      "{1:f3} vs the incumbent over {2} "
                                      "repetitions",
                                      rung, c->rec.ratio, c->samples.size());
        write(*c);
        c->release();
      }
      pool = next;
      ++rung;
      reps *= 2;
      for (Candidate *c : pool)
        measure(*c, reps);
    }
    if (pool.empty())
      return false;
    Candidate &c = *pool.front();
    c.rec.rung = rung;
    if (c.samples.size() < minReps)
      measure(c, minReps - c.samples.size());
    Decision d = decideInterleaved(c.incSamples, c.samples);
    if (d.verdict == Verdict::Inconclusive) {
      measure(c, minReps);
      d = decideInterleaved(c.incSamples, c.samples);
    }
    c.rec.ratio = d.ratio;
    c.rec.speedup = incumbentSpeedup / d.ratio;
    c.rec.reason = d.reason;
    c.rec.verdict = verdictName(d.verdict);
    if (d.verdict == Verdict::Keep)
      withheldBelowFloor(c);
    write(c);
    if (c.rec.verdict != "keep") {
      c.release();
      return false;
    }
    promote(c);
    return true;
  }

  /// `c` (kept) becomes the incumbent; the previous one's program is
  /// freed unless it is the baseline, which the final check needs.
  void promote(Candidate &c) {
    if (incumbent && incumbent != baseline)
      incumbent->release();
    incumbent = &c;
    if (c.rec.speedup > 0)
      incumbentSpeedup = c.rec.speedup;
  }

  void search() {
    // Round 0: the warm start (best pipelines of the nearest past models).
    std::vector<std::pair<Config, bool>> warm;
    if (prior && !prior->empty())
      for (const KnobMap &m : prior->warmStart(features))
        if (auto c = fromKnobs(m))
          warm.push_back({*c, true});
    if (!warm.empty() && !outOfBudget()) {
      info(llvm::formatv("warm start: {0} pipeline(s) of the nearest past "
                         "models",
                         warm.size()));
      round(rank(warm, warm.size()));
    }
    // Then neighbourhoods of the incumbent until a round keeps nothing
    // and every neighbour has been tried, or the budget ends.
    while (!outOfBudget()) {
      auto batch = rank(neighbours(incumbent->cfg), roundSize);
      if (batch.empty())
        break;
      round(std::move(batch));
    }
  }
};

std::vector<RValue> makeInputs(func::FuncOp func, uint64_t s,
                               llvm::StringRef dir, MLIRContext &ctx) {
  std::vector<RValue> in;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    Type t = func.getArgument(i).getType();
    auto tt = dyn_cast<RankedTensorType>(t);
    std::string name = amk::onnx::getTensorName(func.getArgument(i)).str();
    if (!dir.empty()) {
      std::string file = amk::findTensorFile(dir, name, "input", i);
      if (file.empty())
        die("--input-dir '" + dir + "' has no file for input '" + name + "'");
      auto v = amk::readValueFile(file, t, &ctx);
      if (!v)
        die("input '" + name + "': " + llvm::toString(v.takeError()));
      in.push_back(amk::ref::toRValue(*v, t));
      continue;
    }
    if (!tt || !tt.hasStaticShape())
      die("input '" + name + "' has no static shape; give --input-dir");
    ElementsAttr v = amk::makeRandomTensor(tt, s + i);
    if (!v)
      die("cannot make a random value for input '" + name + "'");
    in.push_back(RValue(*Tensor::fromAttr(v)));
  }
  return in;
}

/// --mine-rules: for every knob value, the models on which it was
/// measured, whether it helped on each (speedup over the model's default
/// above 2%) or hurt (below -2%), and a two-sided sign test.
int mine(const std::string &path) {
  LoadedRecords lr = loadRecords(path);
  if (lr.badLines)
    llvm::errs() << "amk-tune: skipped " << lr.badLines
                 << " corrupt line(s) of '" << path << "'\n";
  std::vector<Record> out = latestPerTrial(lr.records);
  // model -> knob=value -> best speedup of a trial that set it.
  std::map<std::string, std::map<std::string, double>> perModel;
  std::map<std::string, std::string> names;
  for (const Record &r : out) {
    if (r.speedup <= 0 || r.verdict == "baseline")
      continue;
    names[r.modelHash] = r.modelName;
    for (auto &[k, v] : r.config) {
      double &best = perModel[r.modelHash][k + "=" + v];
      best = std::max(best, r.speedup);
    }
  }
  std::map<std::string, std::vector<std::pair<std::string, double>>> byValue;
  for (auto &[model, values] : perModel)
    for (auto &[kv, s] : values)
      byValue[kv].push_back({names[model], s});
  nlohmann::ordered_json rules = nlohmann::ordered_json::array();
  for (auto &[kv, models] : byValue) {
    unsigned plus = 0, minus = 0;
    for (auto &[m, s] : models)
      plus += s > 1.02, minus += s < 0.98;
    unsigned n = plus + minus;
    if (n < 2)
      continue;
    // Two-sided sign test: P(X <= min(plus, minus)) * 2 under Bin(n, 1/2).
    unsigned k = std::min(plus, minus);
    double p = 0, c = 1;
    for (unsigned i = 0; i <= n; ++i) {
      if (i <= k)
        p += c;
      c = c * (n - i) / (i + 1);
    }
    p = std::min(1.0, 2 * p / std::pow(2.0, n));
    auto [knob, value] = llvm::StringRef(kv).split('=');
    nlohmann::ordered_json r;
    r["id"] = "mined-" + knob.str() + "-" + value.str();
    r["target"] = "cpu";
    r["action"] = plus > minus ? "prioritize" : "skip";
    r["knob"] = knob.str();
    r["value"] = value.str();
    r["confidence"] = p < 0.05 ? "medium" : "low";
    r["evidence"] = llvm::formatv("faster on {0} of {1} models, slower on "
                                  "{2} (sign test p = {3:f3})",
                                  plus, models.size(), minus, p)
                        .str();
    nlohmann::ordered_json sup = nlohmann::ordered_json::array();
    for (auto &[m, s] : models)
      sup.push_back({{"model", m}, {"best_speedup", s}});
    r["support"] = sup;
    r["sign_test_p"] = p;
    rules.push_back(r);
  }
  llvm::outs() << nlohmann::ordered_json{{"proposed_rules", rules}}.dump(2)
               << "\n";
  llvm::errs() << "amk-tune: " << rules.size() << " rule(s) proposed from "
               << out.size()
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

  std::vector<std::string> stages(std::begin(kStages), std::end(kStages));
  auto spaceOr = Space::fromRegistry(stages);
  if (!spaceOr)
    die(llvm::toString(spaceOr.takeError()));
  Space space = std::move(*spaceOr);
  std::string calibNote;
  if (calibrationData.empty()) {
    if (space.find("amk-quantize.precision") >= 0)
      if (llvm::Error e = space.pin("amk-quantize.precision=fp32"))
        die(llvm::toString(std::move(e)));
    calibNote = "precision is fp32: no --calibration-data";
  } else {
    llvm::SmallString<256> dir(calibrationData);
    if (!llvm::sys::fs::is_directory(dir))
      die("--calibration-data '" + calibrationData + "' is not a directory");
    llvm::sys::fs::make_absolute(dir);
    space.fixed["amk-quantize"] = "data-dir=\"" + std::string(dir) + "\"";
  }
  if (!spaceFile.empty()) {
    auto buf = llvm::MemoryBuffer::getFile(spaceFile);
    if (!buf)
      die("cannot read the space '" + spaceFile + "'");
    if (llvm::Error e = space.restrict((*buf)->getBuffer()))
      die(spaceFile + ": " + llvm::toString(std::move(e)));
  }
  for (const std::string &f : fixes)
    if (llvm::Error e = space.pin(f))
      die("--fix " + f + ": " + llvm::toString(std::move(e)));
  if (threadsOpt)
    if (llvm::Error e = space.pin("amk-schedule-megakernel.workers=" +
                                  std::to_string(threadsOpt)))
      die(llvm::toString(std::move(e)));
  space.dropPinned();
  if (listSpace) {
    llvm::outs() << space.print();
    return 0;
  }
  if (modelPath.empty())
    die("give a model (or --list-space, --mine-rules)");
  if (budget == 0)
    die("--budget must be at least 1");
  if (minReps < 9)
    die("--reps must be at least 9 (DESIGN.md section 5)");

  DialectRegistry registry;
  amk::registerAllDialects(registry);
  amk::registerConversionDialects(registry);
  MLIRContext ctx(registry);
  llvm::SourceMgr sm;
  SourceMgrDiagnosticHandler handler(sm, &ctx);
  amk::onnx::attachONNXNodeNotes(&ctx);
  OwningOpRef<ModuleOp> module = amk::loadModelFile(modelPath, &ctx, sm);
  if (!module)
    return 2;

  Tuner t(ctx, *module);
  t.space = space;
  t.records = records;
  t.modelHash = modelStructuralHash(*module);
  {
    OwningOpRef<ModuleOp> shaped = module->clone();
    std::string error;
    if (failed(amk::runPipeline(*shaped, "builtin.module(amk-infer-shapes)",
                                error)))
      die("shape inference failed: " + error);
    t.features = modelFeatures(*shaped);
  }
  amk::ref::Interpreter interp(*module);
  func::FuncOp func = interp.getFunction();
  if (!func)
    die("the module has no function @main_graph");
  for (Type ty : func.getArgumentTypes()) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << ty;
    t.shapes += (t.shapes.empty() ? "" : ", ") + s;
  }
  unsigned sets = inputDir.empty() ? std::max(1u, holdout.getValue()) : 1;
  for (unsigned s = 0; s < sets; ++s) {
    t.inputs.push_back(makeInputs(func, seed * 1000 + 7919 * s, inputDir, ctx));
    auto out = interp.run(t.inputs.back());
    if (failed(out))
      die("the float reference failed: " + interp.getFailure().message);
    t.expected.push_back(std::move(*out));
  }
  t.machine = amk::rt::machineFingerprint();
  if (!calibrationData.empty()) {
    // Reading the set here also checks it against the model before any
    // candidate is built.
    std::string error;
    auto hash = amk::quant::hashCalibrationSet(func, calibrationData, error);
    if (failed(hash))
      die(error);
    t.calibHash = hexHash(*hash);
  }
  t.run = hexHash(fnv(t.modelHash + "|" + t.machine + "|" + t.compiler + "|" +
                  space.print() + "|" + std::to_string(seed) + "|" +
                  t.calibHash + "|" + inputDir.getValue()));
  LoadedRecords lr = loadRecords(records);
  if (lr.badLines)
    info(llvm::formatv("skipped {0} corrupt line(s) of the records '{1}'",
                       lr.badLines, records));
  std::vector<Record> outcomes = latestPerTrial(lr.records);
  if (!fresh)
    for (const Record &r : outcomes)
      if (r.run == t.run)
        t.resumed[r.trial] = r;
  if (!t.resumed.empty())
    info(llvm::formatv("resuming run {0}: {1} trial(s) recorded", t.run,
                       t.resumed.size()));
  if (!noPrior)
    t.prior = std::make_unique<Prior>(outcomes, t.machine, t.modelHash);
  if (!noRules) {
    std::string dir = rulesDir.empty()
                          ? defaultRulesDir(llvm::sys::path::parent_path(
                                llvm::sys::fs::getMainExecutable(
                                    argv[0], reinterpret_cast<void *>(&info))))
                          : rulesDir.getValue();
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec)) {
      if (!llvm::StringRef(it->path()).ends_with(".json"))
        continue;
      auto rs = loadRules(it->path());
      if (!rs)
        die(llvm::toString(rs.takeError()));
      for (Rule &r : *rs)
        if (r.target == "cpu" || r.target == "any")
          t.rules.push_back(std::move(r));
    }
  }
  // The machine's limits for the physical floor.
  unsigned maxWorkers = 1;
  if (int k = space.find("amk-schedule-megakernel.workers"); k >= 0) {
    for (const std::string &v : space.knobs()[k].values)
      maxWorkers = std::max<unsigned>(maxWorkers, std::stoul(v));
  } else {
    maxWorkers = std::max(1u, threadsOpt.getValue());
    if (!threadsOpt)
      maxWorkers = 2;
  }
  t.peakGflops = amk::rt::measureFmaPeak(maxWorkers, 5'000'000, 3);
  t.bandwidthGbps = amk::rt::measureTriadBandwidth(maxWorkers, 16u << 20, 3);
  t.llcBytes = amk::rt::lastLevelCacheBytes();
  info(llvm::formatv("{0}; measured peak {1:f1} GFLOP/s, {2:f1} GB/s on {3} "
                     "thread(s); {4} knob(s), budget {5} trials / {6} s",
                     t.machine, t.peakGflops, t.bandwidthGbps, maxWorkers,
                     space.knobs().size(), budget.getValue(),
                     timeLimit.getValue()));

  t.baselineTrial();
  if (!t.incumbent) {
    // Without a correct default, any correct candidate becomes the
    // incumbent to beat.
    auto candidates = t.neighbours(space.defaults());
    for (auto &c : t.rank(candidates, candidates.size())) {
      if (t.outOfBudget())
        break;
      Candidate &cand = t.adopt(std::move(c));
      if (t.compileAndCheck(cand)) {
        t.incumbent = &cand;
        t.interleave(cand, cand.incSamples, cand, cand.samples, minReps);
        cand.rec.verdict = "baseline";
        cand.rec.reason = "the first correct candidate (the default failed)";
        t.write(cand);
        break;
      }
      t.write(cand);
    }
  }
  if (!t.incumbent) {
    t.endProgress();
    llvm::errs() << "amk-tune: error: no candidate compiled and ran "
                    "correctly; each one's reason:\n";
    for (const std::string &f : t.failures)
      llvm::errs() << "  " << f << "\n";
    return 1;
  }
  t.search();
  t.endProgress();

  // The tuned pipeline against the default, interleaved once more. If
  // this last check does not confirm the gain, the simpler (default)
  // pipeline is chosen: a gain that does not reproduce is not kept.
  std::optional<Decision> vsDefault;
  double defaultMs = NAN, bestMs = NAN;
  Candidate *chosen = t.incumbent;
  std::string finalNote;
  if (t.baseline && t.incumbent != t.baseline) {
    std::vector<double> a, b;
    t.interleave(*t.baseline, a, *t.incumbent, b, minReps);
    vsDefault = decideInterleaved(a, b);
    defaultMs = median(a);
    bestMs = median(b);
    if (vsDefault->verdict != Verdict::Keep) {
      finalNote = "the final interleaved check of the tuned pipeline (" +
                  t.space.describe(t.incumbent->cfg) +
                  ") against the default did not confirm its gain (" +
                  vsDefault->reason + "), so the default is chosen";
      info(finalNote);
      chosen = t.baseline;
      bestMs = defaultMs;
    }
  } else if (t.baseline) {
    defaultMs = bestMs = median(t.incumbent->samples);
  } else {
    bestMs = median(t.incumbent->samples);
  }
  Candidate &best = *chosen;
  if (!records.empty()) {
    // What amk-compile takes as this model's pipeline on this machine
    // (tune::findChoice): the pipeline printed below, with its evidence.
    Record r = best.rec;
    r.verdict = "chosen";
    r.reason =
        finalNote.empty()
            ? (vsDefault ? "tuned vs default, interleaved: " + vsDefault->reason
                         : std::string("the default pipeline"))
            : finalNote;
    r.speedup = std::isfinite(defaultMs) ? defaultMs / bestMs : 0;
    r.time.clear();
    if (llvm::Error e = appendRecord(records, r))
      die(llvm::toString(std::move(e)));
  }

  // ONNX Runtime on the same inputs, same threads, for the report.
  double ortMs = NAN;
  std::string ortNote;
  if (compareOrt && llvm::StringRef(modelPath).ends_with(".onnx") &&
      amk::ort::isAvailable()) {
    llvm::SmallString<256> work;
    llvm::sys::fs::createUniqueDirectory("amk-tune-ort", work);
    std::vector<amk::ort::NamedTensor> named;
    for (auto [i, v] : llvm::enumerate(t.inputs[0]))
      named.emplace_back(amk::onnx::getTensorName(func.getArgument(i)).str(),
                         v.getTensor());
    amk::ort::Options o;
    o.threads = best.loaded->program.num_workers;
    o.iterations = 3 + iters * minReps;
    auto res = amk::ort::run(modelPath, named, work, o);
    llvm::sys::fs::remove_directories(work);
    if (res && res->seconds.size() > 3) {
      std::vector<double> ms;
      for (size_t i = 3; i < res->seconds.size(); ++i)
        ms.push_back(res->seconds[i] * 1e3);
      ortMs = median(ms);
    } else if (!res) {
      ortNote = llvm::toString(res.takeError());
    }
  }

  // A trace of the chosen program for the breakdown.
  std::optional<Breakdown> breakdown;
  Roofline roof;
  roof.flops = best.flops;
  roof.bytes = best.constBytes + best.arenaBytes;
  roof.seconds = bestMs / 1e3;
  roof.peakGflops = t.peakGflops;
  roof.bandwidthGbps = t.bandwidthGbps;
  if (!reportDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(reportDir))
      die("cannot create '" + reportDir + "': " + ec.message());
    amk_rt_options o{};
    o.trace = 1;
    o.hang_timeout_s = 30;
    amk_rt_session *s = nullptr;
    if (amk_rt_session_create(&best.loaded->program, &o, &s) == AMK_RT_OK) {
      std::swap(s, best.session);
      for (int i = 0; i < 3; ++i)
        t.runOnce(best, 0);
      std::swap(s, best.session);
      std::string tracePath = reportDir + "/trace.json";
      if (amk_rt_write_trace(s, tracePath.c_str()) == AMK_RT_OK) {
        if (auto buf = llvm::MemoryBuffer::getFile(tracePath)) {
          auto b = analyzeTrace((*buf)->getBuffer());
          if (b)
            breakdown = *b;
          else
            llvm::consumeError(b.takeError());
        }
      }
      amk_rt_session_destroy(s);
    }
  }

  std::vector<double> trialMs;
  for (auto &c : t.all)
    trialMs.push_back(c->samples.empty() ? NAN : median(c->samples));
  // Best-so-far speedup after each trial: a trial that was later kept
  // counts from its own index (the trial that found it).
  std::vector<double> bestCurve;
  double bestSoFar = t.baseline ? 1 : 0;
  for (auto &c : t.all) {
    if (c->rec.verdict == "keep")
      bestSoFar = std::max(bestSoFar, c->rec.speedup);
    bestCurve.push_back(bestSoFar);
  }

  nlohmann::ordered_json result;
  result["model"] = modelPath.getValue();
  result["model_hash"] = t.modelHash;
  result["machine"] = t.machine;
  result["run"] = t.run;
  result["pipeline"] = best.pipeline;
  result["default_pipeline"] = t.space.pipeline(t.space.defaults());
  result["changes"] = t.space.describe(best.cfg);
  result["trials"] = t.trials;
  result["seconds"] = t.elapsed();
  result["default_ms"] = defaultMs;
  result["best_ms"] = bestMs;
  result["speedup_vs_default"] = defaultMs / bestMs;
  if (std::isfinite(ortMs))
    result["onnxruntime_ms"] = ortMs, result["amk_over_ort"] = bestMs / ortMs;
  result["best_so_far"] = bestCurve;
  result["rules_applied"] =
      std::vector<std::string>(t.rulesApplied.begin(), t.rulesApplied.end());
  nlohmann::ordered_json trialsJson = nlohmann::ordered_json::array();
  for (auto &c : t.all)
    trialsJson.push_back(
        {{"trial", c->trial},
         {"changes", t.space.describe(c->cfg)},
         {"verdict", c->rec.verdict},
         {"reason", c->rec.reason},
         {"median_ms", c->samples.empty()
                           ? nlohmann::ordered_json()
                           : nlohmann::ordered_json(median(c->samples))},
         {"speedup", c->rec.speedup},
         {"warm_start", c->warm},
         {"rules", c->rules}});
  result["trial_list"] = trialsJson;

  if (!reportDir.empty()) {
    std::string md;
    llvm::raw_string_ostream os(md);
    os << "# amk-tune report: " << llvm::sys::path::filename(modelPath)
       << "\n\n"
       << "Machine: " << t.machine << "; measured FMA peak "
       << llvm::formatv("{0:f1}", t.peakGflops) << " GFLOP/s, triad "
       << llvm::formatv("{0:f1}", t.bandwidthGbps) << " GB/s.\n\n"
       << "## Chosen pipeline\n\n```\n"
       << best.pipeline << "\n```\n\n"
       << "Changes from the default: " << t.space.describe(best.cfg)
       << ".\n\n| | median latency (ms) |\n|---|---|\n";
    if (std::isfinite(defaultMs))
      os << "| default pipeline | " << llvm::formatv("{0:f3}", defaultMs)
         << " |\n";
    os << "| chosen pipeline | " << llvm::formatv("{0:f3}", bestMs) << " |\n";
    if (std::isfinite(ortMs))
      os << "| ONNX Runtime (same inputs, " << best.loaded->program.num_workers
         << " thread(s)) | " << llvm::formatv("{0:f3}", ortMs) << " |\n";
    os << "\n";
    if (vsDefault)
      os << "Tuned vs default, measured interleaved: "
         << verdictName(vsDefault->verdict) << ": " << vsDefault->reason
         << ".\n\n";
    if (!ortNote.empty())
      os << "ONNX Runtime was not timed: " << ortNote << "\n\n";
    if (!calibNote.empty())
      os << "Note: " << calibNote << ".\n\n";
    if (!finalNote.empty())
      os << "Note: " << finalNote << ".\n\n";
    os << "## Where the time goes (trace of the chosen program)\n\n";
    if (breakdown)
      os << breakdownMarkdown(*breakdown, &roof, 0.05, reportDir + "/chosen");
    else
      os << "No trace could be analysed.\n";
    os << "\n## Trials\n\n![latency per trial](trials.svg)\n\n"
       << "| trial | changes from the default | verdict | median ms | "
          "speedup vs default | why |\n|---|---|---|---|---|---|\n";
    for (auto &c : t.all)
      os << "| " << c->trial << (c->warm ? " (warm)" : "") << " | "
         << t.space.describe(c->cfg) << " | " << c->rec.verdict << " | "
         << (c->samples.empty()
                 ? std::string("-")
                 : llvm::formatv("{0:f3}", median(c->samples)).str())
         << " | "
         << (c->rec.speedup > 0 ? llvm::formatv("{0:f3}", c->rec.speedup).str()
                                : std::string("-"))
         << " | " << c->rec.reason << " |\n";
    os << "\n## Knowledge rules applied\n\n";
    if (t.rulesApplied.empty())
      os << "None.\n";
    for (const Rule &r : t.rules)
      if (t.rulesApplied.count(r.id))
        os << "- `" << r.id << "` (" << r.action << " " << r.knob << "="
           << r.value << ", confidence " << r.confidence << "): " << r.evidence
           << "\n";
    if (t.prior && !t.prior->empty()) {
      os << "\n## Prior\n\nNearest past models:";
      for (auto &[h, d] : t.prior->nearest(t.features))
        os << " " << h << llvm::formatv(" (distance {0:f3})", d);
      os << ".\n";
    }
    if (llvm::Error e = writeFile(reportDir + "/report.md", md))
      die(llvm::toString(std::move(e)));
    if (llvm::Error e = writeFile(reportDir + "/trials.svg",
                                  trialsSVG(trialMs, "Median latency per "
                                                     "trial (ms)")))
      die(llvm::toString(std::move(e)));
    if (llvm::Error e = writeFile(reportDir + "/result.json", result.dump(2)))
      die(llvm::toString(std::move(e)));
    info("report: " + reportDir + "/report.md");
  }
  unsigned rejected = 0;
  for (auto &c : t.all)
    rejected += c->rec.verdict == "rejected" || c->rec.verdict == "failed";
  info(llvm::formatv("{0} trial(s) in {1:f1} s ({2} rejected or failed); "
                     "chosen: {3}; {4:f3} ms vs default {5:f3} ms",
                     t.trials, t.elapsed(), rejected,
                     t.space.describe(best.cfg), bestMs, defaultMs));
  llvm::outs() << best.pipeline << "\n";
  return 0;
}
