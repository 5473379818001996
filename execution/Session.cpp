//===- Session.cpp - Compile, load and run a model ------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "execution/Session.h"
#include "execution/Segments.h"

#include "conversion/Passes.h"
#include "dialect/AMKTask/TaskProgram.h"
#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXTypes.h"
#include "pipelines/Pipelines.h"
#include "reference/Interpreter.h"
#include "transforms/Utils/PassUtils.h"
#include "translate/ONNXExport.h"
#include "translate/ONNXToolOptions.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <cstring>
#include <map>

using namespace mlir;
using namespace amk;
using ref::RValue;
using ref::Tensor;
using Clock = std::chrono::steady_clock;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

static double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

static mlir::DialectRegistry toolRegistry() {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerConversionDialects(registry);
  return registry;
}

ModelContext::ModelContext() : ctx(toolRegistry()), handler(sm, &ctx) {
  onnx::attachONNXNodeNotes(&ctx);
}

ModelContext::~ModelContext() = default;

OwningOpRef<ModuleOp> ModelContext::load(llvm::StringRef path) {
  return loadModelFile(path, &ctx, sm);
}

std::string amk::schedulePipeline(unsigned workers) {
  return llvm::formatv("builtin.module(amk-schedule-megakernel{{workers={0}})",
                       workers)
      .str();
}

/// The module's task program (the last one, or the only one when
/// `single`); null when there is none.
static llvm::Expected<task::ProgramOp> findProgram(ModuleOp module,
                                                   bool single) {
  task::ProgramOp found;
  unsigned n = 0;
  for (auto p : module.getOps<task::ProgramOp>()) {
    found = p;
    ++n;
  }
  if (single && n > 1)
    return error("the pipeline produced " + llvm::Twine(n) +
                 " task programs; a library holds one model");
  return found;
}

llvm::Expected<CompiledProgram>
amk::loadCompiledProgram(ModuleOp module, const ProgramOptions &options) {
  CompiledProgram c;
  auto program = findProgram(module, options.single);
  if (!program)
    return program.takeError();
  if (!*program && options.scheduleWorkers) {
    // The pipeline stopped at the graph: schedule it now.
    c.schedule = schedulePipeline(options.scheduleWorkers);
    auto schedule = [&]() -> llvm::Error {
      if (options.runPasses)
        return options.runPasses(c.schedule);
      std::string err;
      if (failed(runPipeline(module, c.schedule, err)))
        return error(err);
      return llvm::Error::success();
    };
    if (llvm::Error e = schedule())
      return std::move(e);
    program = findProgram(module, options.single);
    if (!program)
      return program.takeError();
  }
  if (!*program)
    return error("the pipeline produced no amk_task.program");
  c.program = *program;
  if (failed(task::validateProgram(c.program)))
    return error("the task program is invalid");
  std::string err;
  c.loaded =
      loadProgram(c.program, err, options.loadConstants, options.hashConstants);
  if (!c.loaded)
    return error("cannot load the task program: " + err);
  return c;
}

llvm::Expected<std::unique_ptr<JitProgram>>
amk::jitTaskProgram(task::ProgramOp program, const LoadedProgram &loaded) {
  OwningOpRef<ModuleOp> host = ModuleOp::create(program.getLoc());
  host->push_back(program.clone());
  PassManager pm(program.getContext());
  LowerTaskToLLVMOptions lopts;
  lopts.embedConstants = false;
  buildLowerToLLVMPipeline(pm, lopts);
  if (failed(pm.run(*host)))
    return error("cannot lower the task program to LLVM");
  auto compiled =
      jitCompile(*host, program.getSymName(), loaded.constants.get());
  if (!compiled)
    return error("JIT compilation failed: " +
                 llvm::toString(compiled.takeError()));
  return std::move(*compiled);
}

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

llvm::Expected<std::unique_ptr<Session>>
Session::create(const LoadedProgram &loaded, const JitProgram *jit,
                const amk_rt_options &options) {
  std::unique_ptr<Session> s(new Session(loaded, jit));
  s->prog = jit ? jit->program() : &loaded.program;
  int created = jit ? jit->sessionCreate(&options, &s->session)
                    : amk_rt_session_create(s->prog, &options, &s->session);
  if (created != AMK_RT_OK) {
    s->session = nullptr;
    return error(llvm::Twine("cannot create a runtime session: ") +
                 amk_rt_error_message(nullptr));
  }
  s->freshOutputs();
  return std::move(s);
}

Session::~Session() {
  if (session)
    amk_rt_session_destroy(session);
}

llvm::Expected<unsigned> Session::bindInputs(llvm::ArrayRef<RValue> inputs) {
  if (prog->num_inputs != inputs.size())
    return error(llvm::formatv("the program has {0} inputs, the model {1}",
                               prog->num_inputs, inputs.size()));
  std::vector<const void *> ptrs;
  for (unsigned i = 0; i < prog->num_inputs; ++i) {
    if (!inputs[i].isTensor())
      return error("input " + std::to_string(i) + " is not a tensor");
    const Tensor &t = inputs[i].getTensor();
    RankedTensorType want = loaded.inputTypes[i];
    auto wantDtype = onnx::getDataType(want.getElementType());
    if ((uint64_t)t.byteSize() != prog->inputs[i].bytes ||
        t.shape() != want.getShape() || !wantDtype || *wantDtype != t.dtype()) {
      std::string wantText;
      llvm::raw_string_ostream os(wantText);
      os << want;
      return error(llvm::formatv("input '{0}' must be {1}, got {2}",
                                 prog->inputs[i].name, wantText,
                                 inputs[i].describe()));
    }
    ptrs.push_back(t.raw());
  }
  inputSets.push_back(std::move(ptrs));
  return inputSets.size() - 1;
}

void Session::clearInputs() { inputSets.clear(); }

void Session::freshOutputs() {
  outs.clear();
  outPtrs.clear();
  for (unsigned i = 0; i < prog->num_outputs; ++i) {
    RankedTensorType type = loaded.outputTypes[i];
    Tensor t(*onnx::getDataType(type.getElementType()), type.getShape());
    outPtrs.push_back(t.raw());
    outs.push_back(RValue(t));
  }
}

llvm::Error Session::aliasOutputToInput(unsigned output, unsigned set,
                                        unsigned input) {
  if (output >= prog->num_outputs || set >= inputSets.size() ||
      input >= prog->num_inputs)
    return error("no such output, input set or input to alias");
  if (prog->outputs[output].bytes != prog->inputs[input].bytes)
    return error(
        llvm::formatv("output '{0}' ({1} bytes) cannot be written "
                      "into input '{2}' ({3} bytes)",
                      prog->outputs[output].name, prog->outputs[output].bytes,
                      prog->inputs[input].name, prog->inputs[input].bytes));
  outPtrs[output] = const_cast<void *>(inputSets[set][input]);
  return llvm::Error::success();
}

llvm::Expected<double> Session::run(unsigned set) {
  const std::vector<const void *> &in = inputSets[set];
  auto start = Clock::now();
  int rc;
  if (jit) {
    jitArgs.clear();
    for (const void *p : in)
      jitArgs.push_back(const_cast<void *>(p));
    jitArgs.insert(jitArgs.end(), outPtrs.begin(), outPtrs.end());
    rc = jit->run(session, jitArgs.data());
  } else {
    rc = amk_rt_run(session, in.data(), outPtrs.data());
  }
  double seconds = secondsSince(start);
  if (rc != AMK_RT_OK)
    return error(llvm::Twine("the run failed: ") + runtimeError());
  return seconds;
}

const char *Session::runtimeError() const {
  return amk_rt_error_message(session);
}

llvm::Error Session::writeTrace(llvm::StringRef path) const {
  if (amk_rt_write_trace(session, path.str().c_str()) != AMK_RT_OK)
    return error("cannot write the trace to '" + path + "'");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Running a model
//===----------------------------------------------------------------------===//

/// Runs `text` on `module`, adding its time to `seconds`.
static llvm::Error runTimed(ModuleOp module, llvm::StringRef text,
                            double &seconds) {
  auto start = Clock::now();
  std::string err;
  if (failed(runPipeline(module, text, err)))
    return error(err);
  seconds += secondsSince(start);
  return llvm::Error::success();
}

std::vector<std::string>
amk::parameterInputValues(func::FuncOp func, llvm::ArrayRef<RValue> inputs) {
  std::vector<std::string> specs;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    if (!v.isTensor())
      continue;
    const Tensor &t = v.getTensor();
    // Bool flags count too (an If's condition, a Compress mask).
    if (t.isString() || t.rank() > 1 || t.numel() > 64)
      continue;
    std::string spec = inputName(func, i) + "=";
    bool isFloat = t.dtype() == ref::DataType::FLOAT ||
                   t.dtype() == ref::DataType::DOUBLE ||
                   t.dtype() == ref::DataType::FLOAT16 ||
                   t.dtype() == ref::DataType::BFLOAT16;
    for (int64_t e = 0; e < t.numel(); ++e) {
      spec += e ? ":" : "";
      if (isFloat) {
        char buf[32]; // round-trips the value
        std::snprintf(buf, sizeof buf, "%.17g", t.getDouble(e));
        spec += buf;
      } else {
        spec += std::to_string(t.getInt(e));
      }
    }
    specs.push_back(spec);
  }
  return specs;
}

llvm::Error amk::bindInputShapes(ModuleOp module, func::FuncOp func,
                                 llvm::ArrayRef<RValue> inputs,
                                 llvm::ArrayRef<std::string> values) {
  bool dynamic = false;
  for (Type t : func.getArgumentTypes()) {
    auto rt = dyn_cast<RankedTensorType>(t);
    dynamic |= rt && !rt.hasStaticShape();
  }
  if (!dynamic && values.empty())
    return llvm::Error::success();
  BindShapesOptions o;
  o.values.assign(values.begin(), values.end());
  for (auto [i, v] : llvm::enumerate(inputs)) {
    auto rt = dyn_cast<RankedTensorType>(func.getArgumentTypes()[i]);
    if (!rt || rt.hasStaticShape() || !v.isTensor())
      continue;
    std::string spec = inputName(func, i) + "=";
    for (auto [d, size] : llvm::enumerate(v.getTensor().shape()))
      spec += (d ? "x" : "") + std::to_string(size);
    // A scalar has no dimension to bind.
    if (!v.getTensor().shape().empty())
      o.shapes.push_back(spec);
  }
  PassManager pm(module.getContext());
  pm.addPass(createBindShapes(o));
  if (failed(pm.run(module)))
    return error("the inputs' shapes do not fit the model (amk-bind-shapes)");
  return llvm::Error::success();
}

llvm::Error amk::bindShapes(ModuleOp module, llvm::ArrayRef<std::string> shapes,
                           llvm::ArrayRef<std::string> dims,
                           llvm::ArrayRef<std::string> values) {
  if (!shapes.empty() || !dims.empty() || !values.empty()) {
    BindShapesOptions o;
    o.shapes.assign(shapes.begin(), shapes.end());
    o.dims.assign(dims.begin(), dims.end());
    o.values.assign(values.begin(), values.end());
    PassManager pm(module.getContext());
    pm.addPass(createBindShapes(o));
    if (failed(pm.run(module)))
      return error("the shapes do not fit the model (amk-bind-shapes)");
  }
  // What is still dynamic, by input and dimension name, so the user knows
  // which option to add.
  auto funcs = module.getOps<func::FuncOp>();
  if (funcs.empty())
    return llvm::Error::success();
  func::FuncOp func = *funcs.begin();
  for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || rt.hasStaticShape())
      continue;
    auto params = func.getArgAttrOfType<ArrayAttr>(i, "onnx.dim_params");
    std::string which;
    for (int64_t d = 0; d < rt.getRank(); ++d) {
      if (!rt.isDynamicDim(d))
        continue;
      auto p = params && d < (int64_t)params.size()
                   ? dyn_cast<StringAttr>(params[d])
                   : StringAttr();
      which += (which.empty() ? "" : ", ") + std::to_string(d) +
               (p && !p.getValue().empty() ? " ('" + p.str() + "')" : "");
    }
    return error("input '" + inputName(func, i) + "' has dynamic dimensions " +
                 which + ": give its shape (--input-shape " +
                 inputName(func, i) + "=D0xD1x...) or the dimensions' sizes "
                 "(--dim NAME=N)");
  }
  return llvm::Error::success();
}

static llvm::Error runOnInterpreter(ModuleOp module, const RunOptions &options,
                                    ModelRun &run) {
  if (!options.pipeline.empty())
    if (llvm::Error e = runTimed(module, options.pipeline, run.pipelineSeconds))
      return e;
  run.interpreter = std::make_shared<ref::Interpreter>(module);
  ref::Interpreter &interp = *run.interpreter;
  run.func = interp.getFunction();
  if (!run.func)
    return error("the module has no function @main_graph");
  llvm::Error unsupported = llvm::Error::success();
  for (const std::string &u : interp.findUnsupported())
    unsupported = llvm::joinErrors(std::move(unsupported), error(u));
  if (unsupported)
    return unsupported;
  auto inputs = prepareInputs(run.func, options.inputs);
  if (!inputs)
    return inputs.takeError();
  run.inputs = std::move(*inputs);
  auto start = Clock::now();
  auto outputs = interp.run(run.inputs);
  run.seconds = secondsSince(start);
  if (failed(outputs))
    return error(interp.getFailure().message);
  run.outputs = std::move(*outputs);
  return llvm::Error::success();
}

ProgramStats amk::statsOf(task::ProgramOp program, const amk_rt_program &prog) {
  ProgramStats s;
  s.workers = prog.num_workers;
  s.tasks = prog.num_tasks;
  s.arenaBytes = prog.arena_bytes;
  if (auto tb = program.getTensorBytes())
    s.tensorBytes = *tb;
  if (DictionaryAttr stats = program.getStatsAttr()) {
    if (auto c = stats.getAs<IntegerAttr>("const_bytes"))
      s.constBytes = c.getInt();
    if (auto f = stats.getAs<FloatAttr>("flops"))
      s.flops = f.getValueAsDouble();
    if (auto kf = stats.getAs<DenseF64ArrayAttr>("kernel_flops")) {
      llvm::ArrayRef<double> values = kf.asArrayRef();
      std::map<std::string, double> byName;
      std::vector<std::string> order;
      size_t i = 0;
      for (auto k : program.getBody().getOps<task::KernelOp>()) {
        if (i >= values.size())
          break;
        std::string name = k.getName().str();
        if (!byName.count(name))
          order.push_back(name);
        byName[name] += values[i++];
        std::string kernel = (task::stringifyKernelKind(k.getKind()) + "/" +
                              llvm::Twine(k.getVariant()))
                                 .str();
        std::string &kinds = s.nodeKernels[name];
        if (kinds.find(kernel) == std::string::npos)
          kinds += (kinds.empty() ? "" : ", ") + kernel;
      }
      for (const std::string &n : order)
        s.nodeFlops.push_back({n, byName[n]});
    }
  }
  return s;
}

std::string ProgramCache::keyOf(func::FuncOp func,
                                llvm::ArrayRef<RValue> inputs) {
  std::string key;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    key += (i ? "," : "") + inputName(func, i) + "=";
    if (!v.isTensor()) {
      key += "?";
      continue;
    }
    llvm::ArrayRef<int64_t> shape = v.getTensor().shape();
    for (auto [d, n] : llvm::enumerate(shape))
      key += (d ? "x" : "") + std::to_string(n);
    if (shape.empty())
      key += "scalar";
  }
  return key;
}

ProgramCache::Entry *ProgramCache::find(llvm::StringRef key) {
  for (auto &e : all)
    if (e->key == key)
      return e.get();
  return nullptr;
}

ProgramCache::Entry &ProgramCache::insert(std::unique_ptr<Entry> entry) {
  all.push_back(std::move(entry));
  return *all.back();
}

/// Compiles `module` (bound to the inputs' shapes first) into `entry`:
/// program, JIT code, session.
static llvm::Error compileShape(ModuleOp module, const RunOptions &options,
                                ModelRun &run, ProgramCache::Entry &entry,
                                llvm::ArrayRef<std::string> values = {},
                                llvm::StringRef afterBinding = "") {
  auto start = Clock::now();
  // A model with dynamic dimensions is compiled for the inputs' shapes.
  if (llvm::Error e = bindInputShapes(module, run.func, run.inputs, values))
    return e;
  run.pipelineSeconds += secondsSince(start);
  if (!afterBinding.empty())
    if (llvm::Error e = runTimed(module, afterBinding, run.pipelineSeconds))
      return e;
  if (llvm::Error e = runTimed(module, options.pipeline, run.pipelineSeconds))
    return e;
  ProgramOptions popts;
  popts.scheduleWorkers = options.workers;
  popts.runPasses = [&](llvm::StringRef text) {
    return runTimed(module, text, run.pipelineSeconds);
  };
  popts.loadConstants = false;
  popts.hashConstants = false;
  auto compiled = loadCompiledProgram(module, popts);
  if (!compiled)
    return compiled.takeError();
  // The program's blob becomes its weights' only copy in this process: the
  // packed weights' resources view it (loadProgramsSharingConstants).
  auto loaded = loadProgramsSharingConstants({compiled->program},
                                             /*rehome=*/true);
  if (!loaded)
    return loaded.takeError();
  compiled->loaded = std::move(loaded->front());
  entry.compiled = std::move(*compiled);
  if (options.engine == Engine::Jit) {
    auto start = Clock::now();
    auto j = jitTaskProgram(entry.compiled.program, *entry.compiled.loaded);
    if (!j)
      return j.takeError();
    entry.jit = std::move(*j);
    run.jitSeconds = secondsSince(start);
  }
  amk_rt_options ropts{};
  ropts.single_thread = options.singleThread;
  ropts.trace = !options.tracePath.empty();
  ropts.hang_timeout_s = options.hangTimeout;
  auto session =
      Session::create(*entry.compiled.loaded, entry.jit.get(), ropts);
  if (!session)
    return session.takeError();
  entry.session = std::move(*session);
  entry.compileSeconds = secondsSince(start);
  return llvm::Error::success();
}

llvm::Error amk::compileForInputs(ModuleOp module, func::FuncOp func,
                                  llvm::ArrayRef<RValue> inputs,
                                  const RunOptions &options,
                                  ProgramCache::Entry &entry,
                                  llvm::StringRef afterBinding) {
  ModelRun run;
  run.func = func;
  run.inputs.assign(inputs.begin(), inputs.end());
  return compileShape(module, options, run, entry, {}, afterBinding);
}

llvm::Expected<std::string>
amk::prepareForInputs(ModuleOp module, func::FuncOp func,
                      llvm::ArrayRef<RValue> inputs, const RunOptions &options,
                      llvm::StringRef afterBinding, double &seconds) {
  auto start = Clock::now();
  if (llvm::Error e = bindInputShapes(module, func, inputs))
    return std::move(e);
  seconds += secondsSince(start);
  if (!afterBinding.empty())
    if (llvm::Error e = runTimed(module, afterBinding, seconds))
      return std::move(e);
  auto split = splitSchedule(module.getContext(), options.pipeline);
  if (llvm::Error e =
          runTimed(module, split ? split->first : options.pipeline, seconds))
    return std::move(e);
  return split ? split->second : std::string();
}

llvm::Error amk::finishSharingWeights(
    llvm::ArrayRef<ModuleOp> modules, llvm::ArrayRef<std::string> schedules,
    const RunOptions &options, llvm::ArrayRef<ProgramCache::Entry *> entries,
    llvm::ArrayRef<ModuleOp> holders, bool releaseWeights) {
  if (releaseWeights) {
    SmallVector<ModuleOp> all(modules.begin(), modules.end());
    all.append(holders.begin(), holders.end());
    markWeightsReleasedAfterPacking(all);
    // What the graph passes replaced (the float weights of a weight-only
    // quantized model, weights folded) goes before the schedules pack
    // more; the holders gave their weights up.
    if (!modules.empty()) {
      SmallVector<Operation *> live(modules.begin(), modules.end());
      releaseUnreferencedBlobs(modules.front()->getContext(), live);
    }
  }
  SmallVector<task::ProgramOp> programs;
  for (size_t k = 0; k < modules.size(); ++k) {
    ModuleOp module = modules[k];
    auto start = Clock::now();
    double seconds = 0;
    if (!schedules[k].empty())
      if (llvm::Error e = runTimed(module, schedules[k], seconds))
        return e;
    ProgramOptions popts;
    popts.scheduleWorkers = options.workers;
    popts.loadConstants = false;
    popts.hashConstants = false;
    popts.runPasses = [&](llvm::StringRef text) {
      return runTimed(module, text, seconds);
    };
    auto compiled = loadCompiledProgram(module, popts);
    if (!compiled)
      return compiled.takeError();
    entries[k]->compiled = std::move(*compiled);
    programs.push_back(entries[k]->compiled.program);
    entries[k]->compileSeconds += secondsSince(start);
  }
  if (releaseWeights && !modules.empty()) {
    // What no program reads (weights the graph passes replaced, such as
    // the float weights of a weight-only quantized model) goes now; the
    // holders gave their weights up.
    SmallVector<Operation *> live;
    for (ModuleOp m : modules)
      live.push_back(m);
    releaseUnreferencedBlobs(live.front()->getContext(), live);
  }
  auto start = Clock::now();
  auto loaded = loadProgramsSharingConstants(programs, /*rehome=*/true);
  if (!loaded)
    return loaded.takeError();
  double loadSeconds = secondsSince(start) / entries.size();
  for (auto [k, entry] : llvm::enumerate(entries)) {
    auto start = Clock::now();
    entry->compiled.loaded = std::move((*loaded)[k]);
    if (options.engine == Engine::Jit) {
      auto j = jitTaskProgram(entry->compiled.program, *entry->compiled.loaded);
      if (!j)
        return j.takeError();
      entry->jit = std::move(*j);
    }
    amk_rt_options ropts{};
    ropts.single_thread = options.singleThread;
    ropts.trace = !options.tracePath.empty();
    ropts.hang_timeout_s = options.hangTimeout;
    auto session =
        Session::create(*entry->compiled.loaded, entry->jit.get(), ropts);
    if (!session)
      return session.takeError();
    entry->session = std::move(*session);
    entry->compileSeconds += loadSeconds + secondsSince(start);
  }
  return llvm::Error::success();
}

/// Runs a segmented model as runOnRuntime runs one program: repeats
/// that must agree bit for bit, then the timed runs.
static llvm::Error runSegmented(ProgramCache::Entry &entry,
                                const RunOptions &options, ModelRun &run) {
  if (!options.tracePath.empty())
    return error("--trace writes one task program's trace; this model runs "
                 "as segments (" +
                 run.segmentCut + " makes sizes depend on data)");
  SegmentedModel &m = *entry.segmented;
  unsigned compiledBefore = m.stats().programs;
  double compileBefore = m.stats().compileSeconds;
  auto once = [&]() -> llvm::Expected<std::vector<RValue>> {
    auto start = Clock::now();
    auto outs = m.run(run.inputs);
    if (outs)
      run.benchSeconds.push_back(secondsSince(start));
    return outs;
  };
  auto first = once();
  if (!first)
    return first.takeError();
  run.seconds = run.benchSeconds.back();
  run.pipelineSeconds += m.stats().compileSeconds - compileBefore;
  run.cacheHit = m.stats().programs == compiledBefore && entry.uses > 0;
  ++entry.uses;
  for (unsigned r = 1; r < options.repeat; ++r) {
    auto again = once();
    if (!again)
      return again.takeError();
    for (unsigned i = 0; i < first->size(); ++i) {
      const RValue &a = (*first)[i], &b = (*again)[i];
      if (a.isTensor() != b.isTensor() ||
          (a.isTensor() &&
           (a.getTensor().shape() != b.getTensor().shape() ||
            std::memcmp(a.getTensor().raw(), b.getTensor().raw(),
                        a.getTensor().byteSize()))))
        return error(llvm::formatv("run {0} gave different bytes for output "
                                   "{1} than run 0",
                                   r, i));
    }
  }
  run.benchSeconds.clear();
  if (options.bench) {
    for (unsigned i = 0; i < options.warmup; ++i)
      if (auto o = m.run(run.inputs); !o)
        return o.takeError();
    for (unsigned i = 0; i < std::max(1u, options.iters); ++i)
      if (auto o = once(); !o)
        return o.takeError();
  }
  run.outputs = std::move(*first);
  run.segments = m.stats();
  ProgramStats ps;
  ps.workers = options.workers;
  ps.tasks = m.stats().tasks;
  run.program = ps;
  return llvm::Error::success();
}

static llvm::Error runOnRuntime(ModuleOp module, ModuleOp original,
                                const RunOptions &options, ModelRun &run) {
  // Inputs and the interface come from the graph before compilation.
  run.func = ref::Interpreter(original).getFunction();
  if (!run.func)
    return error("the module has no function @main_graph");
  auto inputs = prepareInputs(run.func, options.inputs);
  if (!inputs)
    return inputs.takeError();
  run.inputs = std::move(*inputs);
  run.shapeKey = ProgramCache::keyOf(run.func, run.inputs);
  // A model whose parameters come in as inputs (Resize scales, Slice
  // starts, reduction axes...) is compiled for their values when it
  // cannot be compiled for the shapes alone; the key then holds them.
  std::vector<std::string> values = parameterInputValues(run.func, run.inputs);
  std::string valueKey;
  for (const std::string &v : values)
    valueKey += ";" + v;
  if (!valueKey.empty())
    valueKey = run.shapeKey + valueKey;
  ProgramCache *cache = options.cache;
  std::unique_ptr<ProgramCache::Entry> owned;
  ProgramCache::Entry *entry = cache ? cache->find(run.shapeKey) : nullptr;
  if (!entry && cache && !valueKey.empty() && (entry = cache->find(valueKey))) {
    run.shapeKey = valueKey;
    run.specializedOn = values;
  }
  if (entry) {
    run.cacheHit = true;
    ++cache->hits;
    if (entry->segmented)
      run.segmentCut = entry->segmentCut;
  } else {
    // A model whose sizes depend on data runs as segments, unless the data
    // they depend on is in small inputs: then one program specialized on
    // their values is tried first.
    auto cut = findSegmentCut(original, run.func, run.inputs);
    if (!cut)
      return cut.takeError();
    run.segmentCut = *cut;
    auto segmented = [&] {
      auto e = std::make_unique<ProgramCache::Entry>();
      e->key = run.shapeKey;
      e->segmentCut = run.segmentCut;
      e->segmented = std::make_shared<SegmentedModel>(original, options);
      return e;
    };
    if (!cut->empty() && values.empty())
      owned = segmented();
  }
  if (!entry && !owned) {
    owned = std::make_unique<ProgramCache::Entry>();
    owned->key = run.shapeKey;
    // Through a cache every shape compiles from the model as given; a
    // retry on values needs the model as given too.
    OwningOpRef<ModuleOp> spare;
    if (!values.empty())
      spare = module.clone();
    if (cache)
      owned->module = module.clone();
    // With a retry possible, the first attempt's diagnostics are held back
    // and shown only if the retry fails too.
    std::vector<std::string> held;
    std::optional<ScopedDiagnosticHandler> hold;
    auto where = [](Location loc) {
      std::string text;
      loc->walk([&](Location l) {
        if (auto fl = dyn_cast<FileLineColLoc>(l)) {
          text = llvm::formatv("{0}:{1}:{2}", fl.getFilename().getValue(),
                               fl.getLine(), fl.getColumn())
                     .str();
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (text.empty())
        llvm::raw_string_ostream(text) << loc;
      return text;
    };
    if (!values.empty())
      hold.emplace(module.getContext(), [&](Diagnostic &d) {
        held.push_back(
            where(d.getLocation()) +
            (d.getSeverity() == DiagnosticSeverity::Error     ? ": error: "
             : d.getSeverity() == DiagnosticSeverity::Warning ? ": warning: "
                                                              : ": note: ") +
            d.str());
        for (const Diagnostic &n : d.getNotes())
          held.push_back(where(n.getLocation()) + ": note: " + n.str());
        return success();
      });
    llvm::Error first = compileShape(cache ? *owned->module : module, options,
                                     run, *owned);
    size_t firstHeld = held.size();
    if (llvm::Error e = std::move(first)) {
      auto showHeld = [&] {
        hold.reset();
        for (size_t i = 0; i < firstHeld; ++i)
          llvm::errs() << held[i] << "\n";
      };
      if (values.empty())
        return e;
      auto retry = std::make_unique<ProgramCache::Entry>();
      retry->key = valueKey;
      retry->module = std::move(spare);
      if (llvm::Error again =
              compileShape(*retry->module, options, run, *retry, values)) {
        llvm::consumeError(std::move(again));
        if (run.segmentCut.empty()) {
          showHeld();
          return e; // the refusal for the shapes names what is missing
        }
        llvm::consumeError(std::move(e));
        owned = std::make_unique<ProgramCache::Entry>();
        owned->key = run.shapeKey;
        owned->segmentCut = run.segmentCut;
        owned->segmented = std::make_shared<SegmentedModel>(original, options);
      } else {
        llvm::consumeError(std::move(e));
        owned = std::move(retry);
        run.shapeKey = valueKey;
        run.specializedOn = values;
      }
    }
  }
  if (!entry)
    entry = cache ? &cache->insert(std::move(owned)) : owned.get();
  if (entry->segmented)
    return runSegmented(*entry, options, run);
  Session &s = *entry->session;
  if (entry->uses++) {
    s.freshOutputs(); // The last run's outputs went to its caller.
    s.clearInputs();  // And its inputs are gone.
  }
  auto set = s.bindInputs(run.inputs);
  if (!set)
    return set.takeError();
  auto seconds = s.run(*set);
  if (!seconds)
    return seconds.takeError();
  run.seconds = *seconds;
  // Repeated runs must agree bit for bit (no flaky schedules).
  for (unsigned r = 1; r < options.repeat; ++r) {
    std::vector<RValue> first = s.outputs();
    s.freshOutputs();
    if (auto again = s.run(*set); !again)
      return again.takeError();
    for (unsigned i = 0; i < first.size(); ++i)
      if (std::memcmp(first[i].getTensor().raw(),
                      s.outputs()[i].getTensor().raw(),
                      first[i].getTensor().byteSize()))
        return error(llvm::formatv("run {0} gave different bytes for output "
                                   "{1} than run 0",
                                   r, i));
  }
  if (options.bench) {
    for (unsigned i = 0; i < options.warmup; ++i)
      if (auto t = s.run(*set); !t)
        return t.takeError();
    for (unsigned i = 0; i < std::max(1u, options.iters); ++i) {
      auto t = s.run(*set);
      if (!t)
        return t.takeError();
      run.benchSeconds.push_back(*t);
    }
  }
  if (!options.tracePath.empty())
    if (llvm::Error e = s.writeTrace(options.tracePath))
      return e;
  run.outputs = s.takeOutputs();
  run.program = statsOf(entry->compiled.program, s.program());
  return llvm::Error::success();
}

llvm::Expected<ModelRun> amk::runModel(ModuleOp module, ModuleOp original,
                                       const RunOptions &options) {
  ModelRun run;
  llvm::Error e = options.engine == Engine::Reference
                      ? runOnInterpreter(module, options, run)
                      : runOnRuntime(module, original, options, run);
  if (e)
    return std::move(e);
  return std::move(run);
}

llvm::Expected<std::vector<RValue>>
amk::runReference(ModuleOp module, llvm::ArrayRef<RValue> inputs) {
  ref::Interpreter interp(module);
  auto outputs = interp.run(inputs);
  if (failed(outputs))
    return error(interp.getFailure().message);
  return std::move(*outputs);
}

llvm::Expected<ort::Result> amk::runOnnxRuntime(llvm::StringRef modelPath,
                                                ModuleOp module,
                                                func::FuncOp func,
                                                llvm::ArrayRef<RValue> inputs,
                                                const ort::Options &options) {
  std::vector<ort::NamedTensor> named;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    if (!v.isTensor())
      return error("--compare-ort needs tensor inputs");
    named.emplace_back(inputName(func, i), v.getTensor());
  }
  llvm::SmallString<256> model(modelPath), work;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("amk-ort", work))
    return error("cannot create a directory for ONNX Runtime: " + ec.message());
  if (!modelPath.ends_with(".onnx")) {
    // ONNX Runtime needs an ONNX file: export the module next to the
    // inputs.
    model = work;
    llvm::sys::path::append(model, "model.onnx");
    if (failed(exportONNXToFile(module, model))) {
      llvm::sys::fs::remove_directories(work);
      return error("cannot export the model to ONNX for ONNX Runtime");
    }
  }
  auto result = ort::run(model, named, work, options);
  llvm::sys::fs::remove_directories(work);
  return result;
}
