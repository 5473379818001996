//===- amk-run.cpp - Run a model and check its outputs --------------------===//
//
// Part of AMK. Runs an ONNX model (or an onnx-dialect MLIR module) on given
// or seeded random inputs, writes its outputs, and compares them with
// expected files or with ONNX Runtime on the same inputs.
//
//   amk-run model.onnx --threads 2 --bench --check-reference
//   amk-run model.onnx --reference --input-dir test_data_set_0 --compare \
//       test_data_set_0
//   amk-run model.onnx --reference --seed 1 --compare-ort --json
//   amk-run model.onnx --reference --check-pipeline \
//       --pipeline='builtin.module(amk-graph-opt)'
//
// Exit status: 0 success, 1 a comparison failed, 2 bad usage or input.
//
//===----------------------------------------------------------------------===//

#include "execution/Check.h"
#include "execution/Generate.h"
#include "execution/Inputs.h"
#include "execution/Session.h"
#include "pipelines/Pipelines.h"
#include "tools/lib/ToolError.h"
#include "translate/ONNXToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sys/resource.h>
#include <thread>

using namespace mlir;
namespace cl = llvm::cl;
using amk::ref::RValue;

static cl::OptionCategory runCat("amk-run options");
static cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                                      cl::desc("<model.onnx|model.mlir>"),
                                      cl::cat(runCat));
static cl::opt<bool>
    reference("reference",
              cl::desc("Run on the reference interpreter (the only engine "
                       "in this build; required)"),
              cl::cat(runCat));
static cl::list<std::string>
    inputFiles("input",
               cl::desc("An input: NAME=FILE, or FILE for the next input in "
                        "order (.pb TensorProto or .npy); repeatable"),
               cl::cat(runCat));
static cl::opt<double> minCosine(
    "min-cosine",
    cl::desc("Pass a floating-point output when its cosine with the "
             "expected one reaches this, instead of the elementwise "
             "tolerance (quantized models: engines differ by a step at "
             "rounding ties)"),
    cl::init(0), cl::cat(runCat));
static cl::opt<std::string>
    inputDir("input-dir",
             cl::desc("Directory with input_<i>.pb/.npy (by position when "
                      "input_0 is there) or else <name>.pb/.npy"),
             cl::init(""), cl::cat(runCat));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of random inputs for inputs not "
                                       "given (default 0)"),
                              cl::init(0), cl::cat(runCat));
static cl::list<std::string>
    dims("dim",
         cl::desc("NAME=N: size of a symbolic dimension of random inputs "
                  "(by its dim_param; default 1); repeatable"),
         cl::cat(runCat));
static cl::list<std::string> dimSets(
    "dim-set",
    cl::desc("NAME=N,NAME=N: run the model once more with its dimensions at "
             "these sizes (random inputs); repeatable: one process runs every "
             "set in order, compiling each distinct input shape once (a "
             "program cache) and reporting compile time against run time"),
    cl::cat(runCat));
static cl::opt<std::string> outputDir("output-dir",
                                      cl::desc("Write the outputs here"),
                                      cl::init(""), cl::cat(runCat));
static cl::opt<std::string> outputFormat("output-format",
                                         cl::desc("Output files: npy or pb"),
                                         cl::init("npy"), cl::cat(runCat));
static cl::opt<std::string>
    compareDir("compare",
               cl::desc("Compare with expected outputs in this directory "
                        "(output_<i>.pb/.npy by position when output_0 is "
                        "there, else <name>.pb/.npy)"),
               cl::init(""), cl::cat(runCat));
static cl::opt<bool> compareOrt(
    "compare-ort",
    cl::desc("Run ONNX Runtime on the same inputs and compare with it"),
    cl::cat(runCat));
static cl::opt<double> relTol("rtol",
                              cl::desc("Relative tolerance of floating-point "
                                       "comparisons (default 1e-3, 1e-4 with "
                                       "--compare-ort)"),
                              cl::init(-1), cl::cat(runCat));
static cl::opt<double> absTol("atol",
                              cl::desc("Absolute tolerance (default 1e-7; with "
                                       "--compare-ort, rtol times the largest "
                                       "expected magnitude)"),
                              cl::init(-1), cl::cat(runCat));
static cl::opt<std::string>
    pipeline("pipeline",
             cl::desc("Run this pass pipeline (amk-opt's --pass-pipeline "
                      "syntax) on the model before running it"),
             cl::init(""), cl::cat(runCat));
static cl::opt<std::string>
    target("target",
           cl::desc("Target of the default pipeline (without --pipeline): "
                    "cpu | npu-like"),
           cl::init("cpu"), cl::cat(runCat));
static cl::opt<std::string> precision(
    "precision",
    cl::desc("Precision of the default pipeline: fp32 | int8 | mixed | "
             "dynamic | w8 | w4 (int8/mixed: calibrated QDQ from "
             "--calibration-data, as amk-compile does; dynamic: int8 "
             "weights, activations quantized at run time; w8/w4: "
             "weight-only int8 per column (the activations of products "
             "of 6 rows or more rounded to bfloat16), or "
             "uint4 with a zero point per block of 32 with a token's "
             "activations in int8; dynamic, w8 and w4 need no data)"),
    cl::init("fp32"), cl::cat(runCat));
static cl::opt<std::string> calibrationData(
    "calibration-data",
    cl::desc("Directory of calibration samples for --precision int8/mixed"),
    cl::cat(runCat));
static cl::opt<double> sensitivityTarget(
    "sensitivity-target",
    cl::desc("--precision mixed: SQNR (dB) of the outputs to reach"),
    cl::init(40.0), cl::cat(runCat));
static cl::opt<bool> checkPipeline(
    "check-pipeline",
    cl::desc("Also run the model before --pipeline and compare: the "
             "pipeline must not change the outputs (float: rtol 1e-5 of "
             "each output's scale; integers, bool, strings: exact)"),
    cl::cat(runCat));
static cl::opt<bool> jsonOut("json", cl::desc("Print a JSON report"),
                             cl::cat(runCat));
// --threads N is parsed by hand: a library linked into amk-run already
// registers a cl::opt named "threads".
static unsigned threads = 0;
static cl::opt<bool> bench("bench",
                           cl::desc("Benchmark: report min/median/p90 "
                                    "latency over --iters runs"),
                           cl::cat(runCat));
static cl::opt<unsigned> iters("iters", cl::desc("Benchmark iterations"),
                               cl::init(50), cl::cat(runCat));
static cl::opt<unsigned> warmup("warmup",
                                cl::desc("Benchmark warm-up iterations"),
                                cl::init(5), cl::cat(runCat));
static cl::opt<std::string>
    tracePath("trace",
              cl::desc("Write the last run's per-task trace (Chrome trace "
                       "JSON) to this file"),
              cl::init(""), cl::cat(runCat));
static cl::opt<bool> checkReference(
    "check-reference",
    cl::desc("Compare the compiled program's outputs with the reference "
             "interpreter on the model as loaded (rtol 1e-4 of each "
             "output's scale)"),
    cl::cat(runCat));
static cl::opt<bool> singleThread(
    "single-thread",
    cl::desc("Run the task program on one thread in program order (the "
             "differential executor)"),
    cl::cat(runCat));
static cl::opt<unsigned>
    repeat("repeat",
           cl::desc("Run the program this many times and require "
                    "identical outputs every time"),
           cl::init(1), cl::cat(runCat));
static cl::opt<bool>
    jit("jit",
        cl::desc("Lower the task program to LLVM (amk-lower-to-llvm: tables, "
                 "entry points, generated elementwise code), compile it with "
                 "the ORC JIT and run through its entry points"),
        cl::cat(runCat));
static cl::opt<double>
    hangTimeout("hang-timeout",
                cl::desc("Seconds without progress before a run is "
                         "declared hung"),
                cl::init(30), cl::cat(runCat));
static cl::opt<uint64_t> maxLoopIterations(
    "max-loop-iterations",
    cl::desc("A model run as segments stops with an error when one Loop, "
             "Scan or SequenceMap runs its body more often than this"),
    cl::init(1000000), cl::cat(runCat));

static cl::OptionCategory genCat("amk-run --generate (decoder models)");
static cl::opt<unsigned> generateTokens(
    "generate",
    cl::desc("Greedy generation of N tokens with a decoder in Hugging Face "
             "Optimum's interface: the prompt as one program, then every "
             "step on one program compiled for --max-context whose KV cache "
             "is updated in place (amk-kv-cache); reports time to first "
             "token, per-token latency and tokens/s"),
    cl::init(0), cl::cat(genCat));
static cl::opt<unsigned> promptLen("prompt-len",
                                   cl::desc("Prompt length (seeded random "
                                            "ids from --seed; default 8)"),
                                   cl::init(8), cl::cat(genCat));
static cl::list<int64_t> promptIds("prompt",
                                   cl::desc("The prompt's token ids, "
                                            "comma-separated"),
                                   cl::CommaSeparated, cl::cat(genCat));
static cl::opt<unsigned> maxContext(
    "max-context",
    cl::desc("KV cache slots the decode program is compiled for (default: "
             "the prompt plus the generated tokens)"),
    cl::init(0), cl::cat(genCat));
static cl::opt<unsigned> generateRuns(
    "generate-runs",
    cl::desc("Whole generations to run and time (each must give the same "
             "tokens; default 1)"),
    cl::init(1), cl::cat(genCat));
static cl::opt<double> logitTolerance(
    "logit-tolerance",
    cl::desc("--generate --compare-ort: largest logit difference, as a "
             "fraction of the step's largest ONNX Runtime logit (default "
             "1e-3)"),
    cl::init(1e-3), cl::cat(genCat));

static cl::opt<double> minTokenAgreement(
    "min-token-agreement",
    cl::desc("--generate with --compare-ort or --check-reference: pass when "
             "at least this fraction of the greedy tokens agree, whatever "
             "the logits' difference (quantized weights against the float "
             "model; default: every token, logits within --logit-tolerance)"),
    cl::init(-1), cl::cat(genCat));

namespace {

const amk::ToolErrors errors("amk-run", 2);

/// Takes --threads N out of the arguments (see `threads`).
std::vector<char *> takeThreads(int argc, char **argv) {
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    llvm::StringRef value;
    if (a == "--threads" || a == "-threads") {
      if (i + 1 >= argc)
        errors.fail("--threads needs a value");
      value = argv[++i];
    } else if (a.consume_front("--threads=") || a.consume_front("-threads=")) {
      value = a;
    } else {
      args.push_back(argv[i]);
      continue;
    }
    if (value.getAsInteger(10, threads) || threads == 0 || threads > 1024)
      errors.fail("--threads must be a number in [1, 1024], not '" + value +
                  "'");
  }
  return args;
}

/// --pipeline, else amk-compile's default for --target/--precision: the
/// runtime's schedule; on the interpreter, nothing for fp32 and the QDQ
/// graph itself for int8/mixed.
std::string chosenPipeline(unsigned workers) {
  if (!pipeline.empty() ||
      (reference && precision == "fp32" && calibrationData.empty()))
    return pipeline;
  amk::DefaultPipelineOptions o;
  o.target = target;
  o.precision = precision;
  o.calibrationData = calibrationData;
  o.sensitivityTarget = sensitivityTarget;
  o.workers = workers;
  o.schedule = !reference;
  std::string error;
  auto text = amk::defaultPipeline(o, error);
  if (failed(text))
    errors.fail(error);
  return *text;
}

void printReport(const nlohmann::ordered_json &report,
                 const nlohmann::ordered_json &latency, double seconds,
                 llvm::StringRef against) {
  if (reference)
    llvm::outs() << llvm::formatv("ran {0} on the reference interpreter in "
                                  "{1:f3} s\n",
                                  modelPath, seconds);
  else
    llvm::outs() << llvm::formatv(
        "ran {0} on the runtime{4} ({1} workers, {2} tasks) in {3:f3} ms\n",
        modelPath, latency.value("workers", 0), latency.value("tasks", 0),
        seconds * 1e3, jit ? " through the LLVM JIT" : "");
  if (report.contains("specialized_on")) {
    // Not compilable for the shapes alone: the program holds these inputs'
    // values and is recompiled when they change.
    llvm::outs() << "  specialized on the values of inputs:";
    for (const auto &v : report["specialized_on"])
      llvm::outs() << " " << v.get<std::string>();
    llvm::outs() << "\n";
  }
  if (report.contains("segments")) {
    // Sizes depend on data: compiled programs between host ops.
    const auto &g = report["segments"];
    llvm::outs() << llvm::formatv(
        "  ran as segments ({0} makes sizes depend on data): {1} programs "
        "compiled in {2:f3} s; last run: {3} segment runs ({4:f3} ms), {5} "
        "host ops ({6:f3} ms):",
        g["cut"].get<std::string>(), g["programs"].get<unsigned>(),
        g["compile_seconds"].get<double>(), g["segment_runs"].get<unsigned>(),
        g["segment_ms"].get<double>(), g["host_runs"].get<unsigned>(),
        g["host_ms"].get<double>());
    for (const auto &h : g["host_ops"])
      llvm::outs() << " " << h.get<std::string>();
    llvm::outs() << "\n";
  }
  if (latency.contains("median_ms"))
    llvm::outs() << llvm::formatv(
        "  latency over {0} runs: min {1:f3} ms, median {2:f3} ms, p90 "
        "{3:f3} ms\n",
        latency["iters"].get<int>(), latency["min_ms"].get<double>(),
        latency["median_ms"].get<double>(), latency["p90_ms"].get<double>());
  if (report.contains("onnxruntime_latency")) {
    const auto &o = report["onnxruntime_latency"];
    llvm::outs() << llvm::formatv(
        "  onnxruntime ({0} threads) over {1} runs: min {2:f3} ms, median "
        "{3:f3} ms, p90 {4:f3} ms; AMK/ORT median {5:f3}\n",
        o["threads"].get<int>(), o["iters"].get<int>(),
        o["min_ms"].get<double>(), o["median_ms"].get<double>(),
        o["p90_ms"].get<double>(),
        latency["median_ms"].get<double>() / o["median_ms"].get<double>());
  }
  for (const auto &o : report["outputs"]) {
    llvm::outs() << "  " << o["name"].get<std::string>() << ": "
                 << o["value"].get<std::string>();
    if (o.contains("comparison")) {
      const auto &c = o["comparison"];
      if (!c.value("ok", false)) {
        llvm::outs() << "  MISMATCH vs " << against << ": "
                     << c.value("message", std::string());
      } else {
        llvm::outs() << llvm::formatv(
            "  ok vs {0} (max abs {1:e}, max rel {2:e}, cosine {3:f6})",
            against, c.value("max_abs_error", 0.0),
            c.value("max_rel_error", 0.0), c.value("cosine", 1.0));
        if (int64_t steps = c.value("steps_off", int64_t(0)))
          llvm::outs() << llvm::formatv(
              "; {0} elements one step off (QuantizeLinear of the "
              "reference's float32 sums)",
              steps);
      }
    }
    llvm::outs() << "\n";
  }
}

/// --dim-set: runs the model once per set through one program cache, each
/// run checked as a single run is; prints a line per run and what the
/// cache saved. Returns the exit status.
int runShapeSets(ModuleOp module, ModuleOp original, amk::RunOptions ro,
                 amk::CheckOptions check) {
  amk::ProgramCache cache;
  ro.cache = &cache;
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  int status = 0;
  double runSeconds = 0;
  for (auto [i, set] : llvm::enumerate(dimSets)) {
    ro.inputs.dims.assign(dims.begin(), dims.end());
    llvm::SmallVector<llvm::StringRef> entries;
    llvm::StringRef(set).split(entries, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef e : entries)
      ro.inputs.dims.push_back(e.trim().str());
    amk::ModelRun run = errors(amk::runModel(module, original, ro));
    nlohmann::ordered_json latency = amk::runtimeJSON(run, bench, warmup);
    check.ortOptions.threads = latency.value("workers", 1);
    amk::ExpectedOutputs expected =
        errors(amk::expectedOutputs(module, original, run, check));
    nlohmann::ordered_json r;
    r["dims"] = set;
    r["shapes"] = run.shapeKey;
    r["cache_hit"] = run.cacheHit;
    if (!run.cacheHit)
      r["compile_seconds"] = cache.find(run.shapeKey)->compileSeconds;
    r["seconds"] = run.seconds;
    r["runtime"] = latency;
    r["outputs"] = nlohmann::ordered_json::array();
    bool ok = amk::compareOutputs(run, check, expected, r["outputs"]);
    r["compared_with"] = expected.against;
    r["ok"] = ok;
    status |= ok ? 0 : 1;
    double t = bench ? latency["median_ms"].get<double>() / 1e3 : run.seconds;
    runSeconds += t;
    if (!jsonOut) {
      llvm::outs() << llvm::formatv("run {0} ({1}): ", i, run.shapeKey);
      if (run.cacheHit)
        llvm::outs() << "program reused";
      else
        llvm::outs() << llvm::formatv("compiled in {0:f3} s",
                                      r["compile_seconds"].get<double>());
      llvm::outs() << llvm::formatv("; ran in {0:f3} ms{1}", t * 1e3,
                                    bench ? " (median)" : "");
      if (!expected.against.empty())
        llvm::outs() << (ok ? "; outputs ok vs " : "; outputs MISMATCH vs ")
                     << expected.against;
      llvm::outs() << "\n";
    }
    runs.push_back(std::move(r));
  }
  double compileSeconds = 0;
  for (const auto &e : cache.entries())
    compileSeconds += e->compileSeconds;
  nlohmann::ordered_json summary = {
      {"runs", dimSets.size()},
      {"shapes_compiled", cache.entries().size()},
      {"reused", cache.hits},
      {"compile_seconds", compileSeconds},
      {"run_seconds", runSeconds}};
  if (jsonOut) {
    nlohmann::ordered_json report;
    report["model"] = modelPath.getValue();
    report["engine"] = jit ? "jit" : "runtime";
    report["pipeline"] = ro.pipeline;
    report["runs"] = std::move(runs);
    report["program_cache"] = summary;
    report["ok"] = status == 0;
    llvm::outs() << report.dump(2) << "\n";
  } else {
    llvm::outs() << llvm::formatv(
        "program cache: {0} runs, {1} shapes compiled in {2:f3} s, {3} "
        "reused; the runs took {4:f3} ms\n",
        dimSets.size(), cache.entries().size(), compileSeconds, cache.hits,
        runSeconds * 1e3);
  }
  return status;
}

/// --generate: the generation, its check against ONNX Runtime and the
/// figures. Returns the exit status.
int runGenerate(ModuleOp module, const amk::RunOptions &ro) {
  amk::GenerateOptions go;
  go.steps = generateTokens;
  go.promptLength = promptLen;
  go.prompt.assign(promptIds.begin(), promptIds.end());
  go.seed = seed;
  go.maxContext = maxContext;
  go.runs = generateRuns;
  go.run = ro;
  // The interpreter reads the model's weights; otherwise the programs'
  // one blob is their only copy.
  go.releaseModelWeights = !checkReference;
  amk::GenerateResult g = errors(amk::generate(module, go));
  nlohmann::ordered_json report;
  report["model"] = modelPath.getValue();
  report["engine"] = jit ? "jit" : "runtime";
  report["workers"] = ro.workers;
  report["prompt_length"] = g.prompt.size();
  report["generated"] = g.tokens.size();
  report["max_context"] = g.maxContext;
  report["prompt"] = g.prompt;
  report["tokens"] = g.tokens;
  report["compile_seconds"] = {{"prefill", g.prefillCompileSeconds},
                               {"decode", g.decodeCompileSeconds}};
  report["decode_program"] = {
      {"tasks", g.decodeProgram.tasks},
      {"arena_bytes", g.decodeProgram.arenaBytes},
      {"const_bytes", g.decodeProgram.constBytes.value_or(0)},
      {"cache_bytes", g.cacheBytes}};
  nlohmann::ordered_json amkJ = amk::generationJSON(g.runs, g.prompt.size());
  report["amk"] = amkJ;
  int status = 0;
  if (compareOrt || checkReference) {
    amk::OrtGeneration o =
        compareOrt ? errors(amk::generateOnnxRuntime(
                         modelPath, module, g, (int)ro.workers, generateRuns))
                   : errors(amk::generateReference(module, g));
    size_t same = 0;
    double worst = 0;
    int64_t worstStep = -1;
    for (size_t i = 0; i < g.tokens.size(); ++i) {
      same += o.tokens[i] == g.tokens[i];
      double scale = 0, diff = 0;
      for (size_t v = 0; v < o.logits[i].size(); ++v) {
        scale = std::max(scale, (double)std::fabs(o.logits[i][v]));
        diff =
            std::max(diff, (double)std::fabs(o.logits[i][v] - g.logits[i][v]));
      }
      double rel = diff / std::max(scale, 1e-30);
      if (rel > worst)
        worst = rel, worstStep = i;
    }
    bool ok = minTokenAgreement >= 0
                  ? same >= minTokenAgreement * g.tokens.size()
                  : same == g.tokens.size() && worst <= logitTolerance;
    status = ok ? 0 : 1;
    if (compareOrt)
      report["onnxruntime"] = amk::generationJSON(o.runs, g.prompt.size());
    report["check"] = {{"against", compareOrt ? "onnxruntime" : "reference"},
                       {"identical_tokens", same},
                       {"steps", g.tokens.size()},
                       {"max_logit_error_of_scale", worst},
                       {"worst_step", worstStep},
                       {"token_agreement", (double)same / g.tokens.size()},
                       {"tolerance", logitTolerance.getValue()},
                       {"ok", ok}};
    if (compareOrt && amkJ.contains("per_token_median_ms")) {
      const auto &ortJ = report["onnxruntime"];
      report["amk_over_ort"] = {
          {"per_token_median", amkJ["per_token_median_ms"].get<double>() /
                                   ortJ["per_token_median_ms"].get<double>()},
          {"ttft",
           amkJ["ttft_ms"].get<double>() / ortJ["ttft_ms"].get<double>()}};
    }
  }
  report["ok"] = status == 0;
  // This process alone (ONNX Runtime runs in its own): the memory floor
  // of issue 24 compares it with the weight bytes.
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) == 0)
    report["peak_rss_mb"] = usage.ru_maxrss / 1024.0;
  if (jsonOut) {
    llvm::outs() << report.dump(2) << "\n";
    return status;
  }
  llvm::outs() << llvm::formatv(
      "generated {0} tokens after a prompt of {1} on the runtime{2} ({3} "
      "workers; decode program for {4} cache slots, compiled in {5:f2} s, "
      "prefill in {6:f2} s)\n",
      g.tokens.size(), g.prompt.size(), jit ? " through the LLVM JIT" : "",
      ro.workers, g.maxContext, g.decodeCompileSeconds,
      g.prefillCompileSeconds);
  llvm::outs() << "  tokens:";
  for (int64_t t : g.tokens)
    llvm::outs() << " " << t;
  llvm::outs() << "\n";
  auto line = [](llvm::StringRef who, const nlohmann::ordered_json &j) {
    llvm::outs() << llvm::formatv("  {0}: time to first token {1:f3} ms", who,
                                  j["ttft_ms"].get<double>());
    if (j.contains("per_token_median_ms"))
      llvm::outs() << llvm::formatv(
          ", per token median {0:f3} ms, p90 {1:f3} ms, {2:f1} tokens/s",
          j["per_token_median_ms"].get<double>(),
          j["per_token_p90_ms"].get<double>(), j["tokens_per_s"].get<double>());
    llvm::outs() << "\n";
  };
  line("AMK", amkJ);
  if (report.contains("onnxruntime")) {
    line("onnxruntime", report["onnxruntime"]);
  }
  if (report.contains("check")) {
    const auto &c = report["check"];
    llvm::outs() << llvm::formatv(
        "  {0}: {1}/{2} tokens identical to {4}'s greedy choice, largest "
        "logit difference {3:e} of the step's scale\n",
        c["ok"].get<bool>() ? "ok" : "MISMATCH",
        c["identical_tokens"].get<size_t>(), c["steps"].get<size_t>(),
        c["max_logit_error_of_scale"].get<double>(),
        compareOrt ? "ONNX Runtime" : "the reference interpreter");
  }
  return status;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  amk::registerONNXToolOptions();
  amk::registerAllPasses();
  cl::HideUnrelatedOptions({&runCat, &genCat});
  std::vector<char *> args = takeThreads(argc, argv);
  int nargs = args.size();
  cl::ParseCommandLineOptions(
      nargs, args.data(),
      "Runs a model and checks its outputs\n\n"
      "  --threads N   workers of the compiled program (default: the "
      "machine's cores)\n");
  if (outputFormat != "npy" && outputFormat != "pb")
    errors.fail("--output-format must be npy or pb");

  amk::ModelContext context;
  OwningOpRef<ModuleOp> module = context.load(modelPath);
  if (!module)
    return 2;
  if (jit && reference)
    errors.fail("--jit compiles the task program; it cannot be combined "
                "with --reference");
  // The module as loaded: the runtime's interface, and what
  // --check-pipeline and --check-reference compare with.
  OwningOpRef<ModuleOp> original;
  if (checkPipeline || checkReference || !reference)
    original = module->clone();
  unsigned workers =
      threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  std::string runPipeline = chosenPipeline(workers);
  if (checkPipeline && runPipeline.empty())
    errors.fail("--check-pipeline needs --pipeline");
  if (!pipeline.empty() &&
      (precision != "fp32" || !calibrationData.empty() || target != "cpu"))
    errors.fail("--target, --precision and --calibration-data choose the "
                "default pipeline; they cannot be combined with --pipeline");

  amk::RunOptions ro;
  ro.engine = reference ? amk::Engine::Reference
              : jit     ? amk::Engine::Jit
                        : amk::Engine::Runtime;
  ro.pipeline = runPipeline;
  ro.workers = workers;
  ro.inputs.files = inputFiles;
  ro.inputs.dir = inputDir;
  ro.inputs.seed = seed;
  ro.inputs.dims = dims;
  ro.singleThread = singleThread;
  ro.hangTimeout = hangTimeout;
  ro.maxLoopIterations = maxLoopIterations;
  ro.tracePath = tracePath;
  ro.repeat = repeat;
  ro.bench = bench;
  ro.warmup = warmup;
  ro.iters = iters;

  if (generateTokens) {
    if (reference || !inputFiles.empty() || !inputDir.empty() ||
        !dimSets.empty() || checkPipeline || !compareDir.empty() || bench ||
        (compareOrt && checkReference))
      errors.fail("--generate runs a decoder on the compiled runtime and "
                  "checks it with --compare-ort or --check-reference (one "
                  "of them); it cannot be combined with --reference, "
                  "--input, --input-dir, --dim-set, --check-pipeline, "
                  "--compare or --bench (it times every step itself)");
    return runGenerate(*original, ro);
  }
  if (!dimSets.empty()) {
    if (reference || !inputFiles.empty() || !inputDir.empty() ||
        !outputDir.empty() || !tracePath.empty() || checkPipeline ||
        !compareDir.empty())
      errors.fail("--dim-set runs random inputs on the compiled runtime; it "
                  "cannot be combined with --reference, --input, "
                  "--input-dir, --output-dir, --trace, --check-pipeline or "
                  "--compare");
    amk::CheckOptions check;
    check.checkReference = checkReference;
    check.compareOrt = compareOrt;
    if (bench)
      check.ortOptions.iterations = warmup + std::max(1u, iters.getValue());
    check.modelPath = modelPath;
    check.rtol = relTol;
    check.atol = absTol;
    check.minCosine = minCosine;
    return runShapeSets(*module, *original, ro, check);
  }
  amk::ModelRun run =
      errors(amk::runModel(*module, original ? *original : ModuleOp(), ro));

  nlohmann::ordered_json latency;
  if (run.program)
    latency = amk::runtimeJSON(run, bench, warmup);
  nlohmann::ordered_json report;
  report["model"] = modelPath.getValue();
  report["engine"] = reference ? "reference" : jit ? "jit" : "runtime";
  if (!latency.empty())
    report["runtime"] = latency;
  report["seconds"] = run.seconds;
  if (!run.shapeKey.empty())
    report["shapes"] = run.shapeKey;
  if (!run.specializedOn.empty())
    report["specialized_on"] = run.specializedOn;
  if (run.segments) {
    const amk::SegmentStats &g = *run.segments;
    report["segments"] = {{"cut", run.segmentCut},
                          {"programs", g.programs},
                          {"compile_seconds", g.compileSeconds},
                          {"segment_runs", g.segmentRuns},
                          {"segment_ms", g.segmentSeconds * 1e3},
                          {"host_runs", g.hostRuns},
                          {"host_ms", g.hostSeconds * 1e3},
                          {"host_ops", g.hostOps}};
  }
  report["outputs"] = nlohmann::ordered_json::array();

  if (!outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      errors.fail("cannot create '" + outputDir + "': " + ec.message());
    for (auto [i, v] : llvm::enumerate(run.outputs))
      if (llvm::Error e =
              amk::writeOutputFile(outputDir, amk::outputName(run.func, i),
                                   outputFormat, v, &context.get()))
        errors.warning(llvm::toString(std::move(e)));
  }
  if (!runPipeline.empty())
    report["pipeline"] = {{"pipeline", runPipeline},
                          {"seconds", run.pipelineSeconds}};

  // Expected outputs: the interpreter, the model before the pipeline,
  // files or ONNX Runtime, on the same inputs. With --bench, ONNX Runtime
  // is measured the same way: same threads (intra-op, all graph
  // optimizations), same warm-up and iterations.
  amk::CheckOptions check;
  check.checkReference = checkReference;
  check.checkPipeline = checkPipeline;
  check.compareDir = compareDir;
  check.compareOrt = compareOrt;
  check.ortOptions.threads = reference ? 1 : (int)latency.value("workers", 1);
  if (bench && !reference)
    check.ortOptions.iterations = warmup + std::max(1u, iters.getValue());
  check.modelPath = modelPath;
  check.rtol = relTol;
  check.atol = absTol;
  check.minCosine = minCosine;
  amk::ExpectedOutputs expected = errors(amk::expectedOutputs(
      *module, original ? *original : ModuleOp(), run, check));
  if (expected.ort && bench && !reference &&
      expected.ort->seconds.size() > warmup) {
    const std::vector<double> &s = expected.ort->seconds;
    nlohmann::ordered_json ortLatency = amk::latencyJSON(
        std::vector<double>(s.begin() + warmup, s.end()), warmup);
    ortLatency["threads"] = check.ortOptions.threads;
    report["onnxruntime_latency"] = ortLatency;
    report["amk_over_ort_median"] = latency["median_ms"].get<double>() /
                                    ortLatency["median_ms"].get<double>();
  }
  if (expected.ort)
    report["onnxruntime_seconds"] = expected.ort->seconds;
  int status =
      amk::compareOutputs(run, check, expected, report["outputs"]) ? 0 : 1;
  report["compared_with"] = expected.against;
  report["ok"] = status == 0;

  if (jsonOut)
    llvm::outs() << report.dump(2) << "\n";
  else
    printReport(report, latency, run.seconds, expected.against);
  return status;
}
