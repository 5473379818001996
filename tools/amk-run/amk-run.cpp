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

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXTypes.h"
#include "execution/HostCode.h"
#include "conversion/Passes.h"
#include "execution/ProgramLoader.h"
#include "pipelines/Pipelines.h"
#include "dialect/AMKTask/TaskProgram.h"
#include "runtime/include/amk/runtime.h"
#include "reference/Compare.h"
#include "reference/Interpreter.h"
#include "reference/ORTBridge.h"
#include "translate/ONNXExport.h"
#include "translate/ONNXImport.h"
#include "translate/ONNXToolOptions.h"
#include "translate/TensorIO.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

using namespace mlir;
namespace cl = llvm::cl;
using amk::ref::RValue;
using amk::ref::Tensor;

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
static cl::opt<std::string> outputDir("output-dir",
                                      cl::desc("Write the outputs here"),
                                      cl::init(""), cl::cat(runCat));
static cl::opt<std::string>
    outputFormat("output-format", cl::desc("Output files: npy or pb"),
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
    cl::desc("Precision of the default pipeline: fp32 | int8 | mixed "
             "(int8/mixed: calibrated QDQ from --calibration-data, as "
             "amk-compile does)"),
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
static cl::opt<std::string> tracePath(
    "trace", cl::desc("Write the last run's per-task trace (Chrome trace "
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
static cl::opt<unsigned> repeat(
    "repeat", cl::desc("Run the program this many times and require "
                       "identical outputs every time"),
    cl::init(1), cl::cat(runCat));
static cl::opt<bool> jit(
    "jit",
    cl::desc("Lower the task program to LLVM (amk-lower-to-llvm: tables, "
             "entry points, generated elementwise code), compile it with "
             "the ORC JIT and run through its entry points"),
    cl::cat(runCat));
static cl::opt<double> hangTimeout(
    "hang-timeout", cl::desc("Seconds without progress before a run is "
                             "declared hung"),
    cl::init(30), cl::cat(runCat));

namespace {

[[noreturn]] void die(const llvm::Twine &msg) {
  llvm::errs() << "amk-run: error: " << msg << "\n";
  std::exit(2);
}

/// The source of every input: a file, or random.
struct InputPlan {
  std::vector<std::string> files;
};

std::string argName(func::FuncOp func, unsigned i) {
  llvm::StringRef n = amk::onnx::getTensorName(func.getArgument(i));
  return n.empty() ? "input_" + std::to_string(i) : n.str();
}

std::string resultName(func::FuncOp func, unsigned i) {
  auto n = func.getResultAttrOfType<StringAttr>(i, amk::onnx::kNameAttr);
  return n ? n.str() : "output_" + std::to_string(i);
}

RValue loadValue(llvm::StringRef file, Type type, MLIRContext &ctx,
                 llvm::StringRef what) {
  auto v = amk::readValueFile(file, type, &ctx);
  if (!v)
    die(what + ": " + llvm::toString(v.takeError()));
  return amk::ref::toRValue(*v, type);
}

std::vector<RValue> prepareInputs(func::FuncOp func, MLIRContext &ctx) {
  unsigned n = func.getNumArguments();
  std::vector<std::string> files(n);
  unsigned next = 0;
  for (const std::string &spec : inputFiles) {
    auto [name, file] = llvm::StringRef(spec).split('=');
    if (file.empty()) { // Positional.
      if (next >= n)
        die("more --input files than the model's " + std::to_string(n) +
            " inputs");
      files[next++] = name.str();
      continue;
    }
    bool found = false;
    for (unsigned i = 0; i < n; ++i)
      if (argName(func, i) == name) {
        files[i] = file.str();
        found = true;
      }
    if (!found) {
      std::string names;
      for (unsigned i = 0; i < n; ++i)
        names += (i ? ", " : "") + argName(func, i);
      die("the model has no input '" + name + "' (its inputs: " + names +
          ")");
    }
  }
  std::map<std::string, int64_t> dimValues;
  for (const std::string &spec : dims) {
    auto [name, value] = llvm::StringRef(spec).split('=');
    int64_t v;
    if (value.getAsInteger(10, v) || v < 0)
      die("--dim '" + spec + "' is not NAME=N");
    dimValues[name.str()] = v;
  }
  std::vector<RValue> inputs;
  for (unsigned i = 0; i < n; ++i) {
    Type t = func.getArgument(i).getType();
    std::string name = argName(func, i);
    if (files[i].empty() && !inputDir.empty())
      files[i] = amk::findTensorFile(inputDir, name, "input", i);
    if (!files[i].empty()) {
      if (!llvm::sys::fs::exists(files[i]))
        die("input '" + name + "': no such file '" + files[i] + "'");
      inputs.push_back(loadValue(files[i], t, ctx, "input '" + name + "'"));
      continue;
    }
    auto tt = dyn_cast<RankedTensorType>(t);
    if (!tt)
      die("input '" + name + "' has no static tensor type; give it with "
                             "--input");
    auto params =
        func.getArgAttrOfType<ArrayAttr>(i, "onnx.dim_params");
    SmallVector<int64_t> shape(tt.getShape());
    for (auto [d, size] : llvm::enumerate(shape)) {
      if (!ShapedType::isDynamic(size))
        continue;
      std::string param =
          params && d < params.size()
              ? cast<StringAttr>(params[d]).str()
              : "";
      size = dimValues.count(param) ? dimValues[param] : 1;
    }
    ElementsAttr value = amk::makeRandomTensor(tt.clone(shape), seed + i);
    if (!value)
      die("cannot make a random value of " + amk::onnx::getONNXTypeString(t) +
          " for input '" + name + "'");
    inputs.push_back(RValue(*Tensor::fromAttr(value)));
  }
  return inputs;
}

llvm::Error writeOutput(const RValue &v, llvm::StringRef name,
                        MLIRContext &ctx) {
  if (!v.isTensor())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "output '" + name +
                                       "' is not a tensor; not written");
  std::string safe = name.str();
  for (char &c : safe)
    if (!llvm::isAlnum(c) && c != '_' && c != '-' && c != '.')
      c = '_';
  llvm::SmallString<256> p(outputDir);
  llvm::sys::path::append(p, safe + "." + outputFormat.getValue());
  return amk::writeTensorFile(p, v.getTensor().toAttr(&ctx), name);
}

/// min/median/p90 of run times in seconds, as milliseconds.
nlohmann::ordered_json latencyStats(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  auto q = [&](double f) {
    return samples[std::min(samples.size() - 1,
                            (size_t)(f * (samples.size() - 1) + 0.5))];
  };
  return {{"iters", samples.size()},
          {"warmup", warmup.getValue()},
          {"min_ms", samples.front() * 1e3},
          {"median_ms", q(0.5) * 1e3},
          {"p90_ms", q(0.9) * 1e3}};
}

nlohmann::json describe(const amk::ref::Comparison &c) {
  return {{"ok", c.ok},
          {"max_abs_error", c.maxAbsError},
          {"max_rel_error", c.maxRelError},
          {"cosine", c.cosine},
          {"worst_index", c.worstIndex},
          {"worst_expected", c.worstExpected},
          {"worst_actual", c.worstActual},
          {"message", c.message}};
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  amk::registerONNXToolOptions();
  amk::registerAllPasses();
  cl::HideUnrelatedOptions({&runCat});
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    llvm::StringRef value;
    if (a == "--threads" || a == "-threads") {
      if (i + 1 >= argc)
        die("--threads needs a value");
      value = argv[++i];
    } else if (a.consume_front("--threads=") || a.consume_front("-threads=")) {
      value = a;
    } else {
      args.push_back(argv[i]);
      continue;
    }
    if (value.getAsInteger(10, threads) || threads == 0 || threads > 1024)
      die("--threads must be a number in [1, 1024], not '" + value + "'");
  }
  int nargs = args.size();
  cl::ParseCommandLineOptions(
      nargs, args.data(),
      "Runs a model and checks its outputs\n\n"
      "  --threads N   workers of the compiled program (default: the "
      "machine's cores)\n");
  if (outputFormat != "npy" && outputFormat != "pb")
    die("--output-format must be npy or pb");

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

  // The module as loaded, run first with --check-pipeline and
  // --check-reference.
  OwningOpRef<ModuleOp> original;
  if (jit && reference)
    die("--jit compiles the task program; it cannot be combined with "
        "--reference");
  if (checkPipeline || checkReference || !reference)
    original = module->clone();
  unsigned workers =
      threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  // Without --pipeline: amk-compile's default for --target/--precision
  // (the runtime's schedule; on the interpreter, nothing for fp32 and the
  // QDQ graph itself for int8/mixed).
  std::string runPipeline = pipeline;
  if (runPipeline.empty() &&
      (!reference || precision != "fp32" || !calibrationData.empty())) {
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
      die(error);
    runPipeline = *text;
  }
  if (checkPipeline && runPipeline.empty())
    die("--check-pipeline needs --pipeline");
  if (!pipeline.empty() &&
      (precision != "fp32" || !calibrationData.empty() || target != "cpu")) {
    die("--target, --precision and --calibration-data choose the default "
        "pipeline; they cannot be combined with --pipeline");
  }
  double pipelineSeconds = 0;
  auto runPasses = [&](llvm::StringRef text) {
    auto start = std::chrono::steady_clock::now();
    std::string err;
    if (failed(amk::runPipeline(*module, text, err)))
      die(err);
    pipelineSeconds += std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
  };

  func::FuncOp func;
  std::vector<RValue> inputs;
  FailureOr<std::vector<RValue>> outputs = failure();
  double seconds = 0;
  nlohmann::ordered_json latency;
  if (reference) {
    if (!runPipeline.empty())
      runPasses(runPipeline);
    static std::unique_ptr<amk::ref::Interpreter> interpHolder;
    interpHolder = std::make_unique<amk::ref::Interpreter>(*module);
    amk::ref::Interpreter &interp = *interpHolder;
    func = interp.getFunction();
    if (!func)
      die("the module has no function @main_graph");
    auto unsupported = interp.findUnsupported();
    if (!unsupported.empty()) {
      for (const std::string &u : unsupported)
        llvm::errs() << "amk-run: error: " << u << "\n";
      return 2;
    }
    inputs = prepareInputs(func, ctx);
    auto start = std::chrono::steady_clock::now();
    outputs = interp.run(inputs);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            start)
                  .count();
    if (failed(outputs))
      die(interp.getFailure().message);
  } else {
    // Inputs and the interface come from the graph before compilation.
    amk::ref::Interpreter sig(*original);
    func = sig.getFunction();
    if (!func)
      die("the module has no function @main_graph");
    inputs = prepareInputs(func, ctx);
    runPasses(runPipeline);
    amk::task::ProgramOp program;
    for (auto p : module->getOps<amk::task::ProgramOp>())
      program = p;
    if (!program) {
      // The pipeline stopped at the graph: schedule it now.
      runPasses(llvm::formatv("builtin.module(amk-schedule-megakernel{{"
                              "workers={0}})",
                              workers)
                    .str());
      for (auto p : module->getOps<amk::task::ProgramOp>())
        program = p;
    }
    if (!program)
      die("the pipeline produced no amk_task.program");
    // The validator runs before anything executes, whatever the pipeline.
    if (failed(amk::task::validateProgram(program)))
      die("the task program is invalid");
    std::string err;
    auto loaded = amk::loadProgram(program, err);
    if (!loaded)
      die("cannot load the task program: " + err);
    // --jit: the same program through the LLVM lowering and the ORC JIT;
    // the weights stay where the loader put them (embed-constants=false).
    std::unique_ptr<amk::JitProgram> jitted;
    if (jit) {
      auto jitStart = std::chrono::steady_clock::now();
      OwningOpRef<ModuleOp> host = ModuleOp::create(program.getLoc());
      host->push_back(program.clone());
      PassManager pm(&ctx);
      amk::LowerTaskToLLVMOptions lopts;
      lopts.embedConstants = false;
      amk::buildLowerToLLVMPipeline(pm, lopts);
      if (failed(pm.run(*host)))
        die("cannot lower the task program to LLVM");
      auto compiled = amk::jitCompile(*host, program.getSymName(),
                                      loaded->constants.get());
      if (!compiled)
        die("JIT compilation failed: " +
            llvm::toString(compiled.takeError()));
      jitted = std::move(*compiled);
      latency["jit_seconds"] = std::chrono::duration<double>(
                                   std::chrono::steady_clock::now() - jitStart)
                                   .count();
    }
    const amk_rt_program &prog = jitted ? *jitted->program() : loaded->program;
    if (prog.num_inputs != inputs.size())
      die(llvm::formatv("the program has {0} inputs, the model {1}",
                        prog.num_inputs, inputs.size()));
    std::vector<const void *> inPtrs;
    for (unsigned i = 0; i < prog.num_inputs; ++i) {
      if (!inputs[i].isTensor())
        die("input " + std::to_string(i) + " is not a tensor");
      const Tensor &t = inputs[i].getTensor();
      RankedTensorType want = loaded->inputTypes[i];
      auto wantDtype = amk::onnx::getDataType(want.getElementType());
      if ((uint64_t)t.byteSize() != prog.inputs[i].bytes ||
          t.shape() != want.getShape() || !wantDtype ||
          *wantDtype != t.dtype()) {
        std::string wantText;
        llvm::raw_string_ostream os(wantText);
        os << want;
        die(llvm::formatv("input '{0}' must be {1}, got {2}",
                          prog.inputs[i].name, wantText,
                          inputs[i].describe()));
      }
      inPtrs.push_back(t.raw());
    }
    amk_rt_options ropts{};
    ropts.single_thread = singleThread;
    ropts.trace = !tracePath.empty();
    ropts.hang_timeout_s = hangTimeout;
    amk_rt_session *session = nullptr;
    int created = jitted ? jitted->sessionCreate(&ropts, &session)
                         : amk_rt_session_create(&prog, &ropts, &session);
    if (created != AMK_RT_OK)
      die(std::string("cannot create a runtime session: ") +
          amk_rt_error_message(nullptr));
    std::vector<RValue> outs;
    std::vector<void *> outPtrs;
    auto freshOutputs = [&] {
      outs.clear();
      outPtrs.clear();
      for (unsigned i = 0; i < prog.num_outputs; ++i) {
        auto type = loaded->outputTypes[i];
        auto dt = *amk::onnx::getDataType(type.getElementType());
        Tensor t(dt, type.getShape());
        outPtrs.push_back(t.raw());
        outs.push_back(RValue(t));
      }
    };
    auto runOnce = [&] {
      auto start = std::chrono::steady_clock::now();
      int rc;
      if (jitted) {
        std::vector<void *> args;
        for (const void *p : inPtrs)
          args.push_back(const_cast<void *>(p));
        args.insert(args.end(), outPtrs.begin(), outPtrs.end());
        rc = jitted->run(session, args.data());
      } else {
        rc = amk_rt_run(session, inPtrs.data(), outPtrs.data());
      }
      double s = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - start)
                     .count();
      if (rc != AMK_RT_OK) {
        std::string msg = amk_rt_error_message(session);
        amk_rt_session_destroy(session);
        die("the run failed: " + msg);
      }
      return s;
    };
    freshOutputs();
    seconds = runOnce();
    // Repeated runs must agree bit for bit (no flaky schedules).
    for (unsigned r = 1; r < repeat; ++r) {
      std::vector<RValue> first = outs;
      freshOutputs();
      runOnce();
      for (unsigned i = 0; i < outs.size(); ++i)
        if (std::memcmp(first[i].getTensor().raw(), outs[i].getTensor().raw(),
                        first[i].getTensor().byteSize()))
          die(llvm::formatv("run {0} gave different bytes for output {1} "
                            "than run 0",
                            r, i));
    }
    if (bench) {
      for (unsigned i = 0; i < warmup; ++i)
        runOnce();
      std::vector<double> samples;
      for (unsigned i = 0; i < std::max(1u, iters.getValue()); ++i)
        samples.push_back(runOnce());
      latency = latencyStats(samples);
    }
    if (!tracePath.empty() &&
        amk_rt_write_trace(session, tracePath.c_str()) != AMK_RT_OK)
      die("cannot write the trace to '" + tracePath + "'");
    amk_rt_session_destroy(session);
    outputs = std::move(outs);
    latency["workers"] = prog.num_workers;
    latency["tasks"] = prog.num_tasks;
    latency["arena_bytes"] = prog.arena_bytes;
    if (auto tb = program.getTensorBytes())
      latency["tensor_bytes"] = *tb;
    if (DictionaryAttr stats = program.getStatsAttr()) {
      if (auto c = stats.getAs<IntegerAttr>("const_bytes"))
        latency["const_bytes"] = c.getInt();
      if (auto f = stats.getAs<FloatAttr>("flops")) {
        latency["flops"] = f.getValueAsDouble();
        if (latency.contains("median_ms"))
          latency["gflops_per_s"] = f.getValueAsDouble() /
                                    latency["median_ms"].get<double>() / 1e6;
      }
    }
  }

  nlohmann::ordered_json report;
  report["model"] = modelPath.getValue();
  report["engine"] = reference ? "reference" : jit ? "jit" : "runtime";
  if (!latency.empty())
    report["runtime"] = latency;
  report["seconds"] = seconds;
  report["outputs"] = nlohmann::ordered_json::array();
  int status = 0;

  if (!outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      die("cannot create '" + outputDir + "': " + ec.message());
    for (auto [i, v] : llvm::enumerate(*outputs))
      if (auto err = writeOutput(v, resultName(func, i), ctx))
        llvm::errs() << "amk-run: warning: "
                     << llvm::toString(std::move(err)) << "\n";
  }

  // Expected outputs: files, ONNX Runtime, or the model before the
  // pipeline, on the same inputs.
  std::vector<std::optional<RValue>> expected(outputs->size());
  std::string against;
  if (!runPipeline.empty())
    report["pipeline"] = {{"pipeline", runPipeline},
                          {"seconds", pipelineSeconds}};
  if (checkReference) {
    if (checkPipeline || !compareDir.empty() || compareOrt)
      die("--check-reference cannot be combined with --check-pipeline, "
          "--compare or --compare-ort");
    against = "reference";
    amk::ref::Interpreter refInterp(*original);
    auto refOut = refInterp.run(inputs);
    if (failed(refOut))
      die("reference interpreter: " + refInterp.getFailure().message);
    for (unsigned i = 0; i < outputs->size(); ++i)
      expected[i] = std::move((*refOut)[i]);
  }
  if (checkPipeline) {
    if (!compareDir.empty() || compareOrt)
      die("--check-pipeline compares with the model before the pipeline; "
          "it cannot be combined with --compare or --compare-ort");
    against = "before-pipeline";
    amk::ref::Interpreter before(*original);
    auto beforeOut = before.run(inputs);
    if (failed(beforeOut))
      die("before the pipeline: " + before.getFailure().message);
    if (beforeOut->size() != outputs->size())
      die(llvm::formatv("the pipeline changed the number of outputs ({0} "
                        "before, {1} after)",
                        beforeOut->size(), outputs->size()));
    for (unsigned i = 0; i < outputs->size(); ++i)
      expected[i] = std::move((*beforeOut)[i]);
  }
  if (!compareDir.empty()) {
    against = compareDir;
    for (unsigned i = 0; i < outputs->size(); ++i) {
      std::string f =
          amk::findTensorFile(compareDir, resultName(func, i), "output", i);
      if (f.empty())
        die("no expected file for output '" + resultName(func, i) + "' in '" +
            compareDir + "'");
      expected[i] = loadValue(f, func.getResultTypes()[i], ctx,
                              "expected output '" + resultName(func, i) +
                                  "'");
    }
  }
  if (compareOrt) {
    against = "onnxruntime";
    llvm::SmallString<256> model(modelPath.getValue()), work;
    if (!llvm::StringRef(modelPath).ends_with(".onnx")) {
      // ORT needs an ONNX file: export the module next to the inputs.
      llvm::sys::fs::createUniqueDirectory("amk-run-ort", work);
      model = work;
      llvm::sys::path::append(model, "model.onnx");
      if (failed(amk::exportONNXToFile(*module, model)))
        return 2;
    } else {
      llvm::sys::fs::createUniqueDirectory("amk-run-ort", work);
    }
    std::vector<amk::ort::NamedTensor> named;
    for (auto [i, v] : llvm::enumerate(inputs)) {
      if (!v.isTensor())
        die("--compare-ort needs tensor inputs");
      named.emplace_back(argName(func, i), v.getTensor());
    }
    amk::ort::Options ortOpts;
    // With --bench, ORT is measured in the same run the same way: same
    // threads (intra-op, all graph optimizations), same warm-up and
    // iterations.
    ortOpts.threads = reference ? 1 : (int)latency.value("workers", 1);
    if (bench && !reference)
      ortOpts.iterations = warmup + std::max(1u, iters.getValue());
    auto res = amk::ort::run(model, named, work, ortOpts);
    llvm::sys::fs::remove_directories(work);
    if (!res)
      die(llvm::toString(res.takeError()));
    if (bench && !reference && res->seconds.size() > warmup) {
      nlohmann::ordered_json ortLatency = latencyStats(
          std::vector<double>(res->seconds.begin() + warmup,
                              res->seconds.end()));
      ortLatency["threads"] = ortOpts.threads;
      report["onnxruntime_latency"] = ortLatency;
      report["amk_over_ort_median"] = latency["median_ms"].get<double>() /
                                      ortLatency["median_ms"].get<double>();
    }
    for (unsigned i = 0; i < outputs->size(); ++i)
      for (auto &[name, t] : res->outputs)
        if (name == resultName(func, i))
          expected[i] = RValue(t);
    report["onnxruntime_seconds"] = res->seconds;
  }

  for (auto [i, v] : llvm::enumerate(*outputs)) {
    nlohmann::ordered_json o;
    o["name"] = resultName(func, i);
    o["value"] = v.describe();
    if (!against.empty()) {
      if (!expected[i]) {
        o["comparison"] = {{"ok", false},
                           {"message", "no expected value"}};
        status = 1;
      } else {
        double rtol = relTol >= 0 ? relTol
                      : checkPipeline ? 1e-5
                      : checkReference ? 1e-4
                      : compareOrt    ? 1e-4
                                      : 1e-3;
        // Against ORT or another graph, near-zero elements are judged
        // relative to the output's scale.
        amk::ref::Tolerance tol =
            (compareOrt || checkPipeline || checkReference) && absTol < 0
                ? amk::ref::scaledTolerance(*expected[i], rtol)
                : amk::ref::Tolerance{rtol, absTol >= 0 ? absTol : 1e-7};
        auto c = amk::ref::compareValues(*expected[i], v, tol);
        o["comparison"] = describe(c);
        o["comparison"]["rtol"] = tol.rtol;
        o["comparison"]["atol"] = tol.atol;
        if (!c.ok)
          status = 1;
      }
    }
    report["outputs"].push_back(o);
  }
  report["compared_with"] = against;
  report["ok"] = status == 0;

  if (jsonOut) {
    llvm::outs() << report.dump(2) << "\n";
    return status;
  }
  if (reference)
    llvm::outs() << llvm::formatv("ran {0} on the reference interpreter in "
                                  "{1:f3} s\n",
                                  modelPath, seconds);
  else
    llvm::outs() << llvm::formatv(
        "ran {0} on the runtime{4} ({1} workers, {2} tasks) in {3:f3} ms\n",
        modelPath, latency.value("workers", 0), latency.value("tasks", 0),
        seconds * 1e3, jit ? " through the LLVM JIT" : "");
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
      if (c.value("ok", false))
        llvm::outs() << llvm::formatv(
            "  ok vs {0} (max abs {1:e}, max rel {2:e}, cosine {3:f6})",
            against, c.value("max_abs_error", 0.0),
            c.value("max_rel_error", 0.0), c.value("cosine", 1.0));
      else
        llvm::outs() << "  MISMATCH vs " << against << ": "
                     << c.value("message", std::string());
    }
    llvm::outs() << "\n";
  }
  return status;
}
