//===- Session.h - Compile, load and run a model ----------------*- C++ -*-===//
//
// Part of AMK. What the tools share between reading a model and comparing
// its outputs: the context they read it in, the task program a pipeline
// leaves (scheduled, validated and loaded, or JIT-compiled), a runtime
// session bound to input sets, amk-run's whole run on any engine, and the
// references its outputs are checked against (the interpreter, ONNX
// Runtime). Errors are llvm::Error with the message a tool prints.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_EXECUTION_SESSION_H
#define AMK_EXECUTION_SESSION_H

#include "execution/HostCode.h"
#include "execution/Inputs.h"
#include "execution/ProgramLoader.h"
#include "reference/ORTBridge.h"
#include "reference/Tensor.h"
#include "runtime/include/amk/runtime.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace amk {
namespace ref {
class Interpreter;
} // namespace ref

/// The context the tools read models in: every dialect AMK reads or
/// creates, diagnostics printed with their source line and a note naming
/// the ONNX node.
class ModelContext {
public:
  ModelContext();
  ~ModelContext();
  mlir::MLIRContext &get() { return ctx; }
  /// Reads an ONNX, ONNX text or MLIR model (amk::loadModelFile); null
  /// once its diagnostics are printed.
  mlir::OwningOpRef<mlir::ModuleOp> load(llvm::StringRef path);

private:
  mlir::MLIRContext ctx;
  llvm::SourceMgr sm;
  mlir::SourceMgrDiagnosticHandler handler;
};

/// The pipeline that schedules a graph for `workers` workers.
std::string schedulePipeline(unsigned workers);

struct ProgramOptions {
  /// Workers of the schedule added when the pipeline stopped at the graph;
  /// 0: a module without a task program is an error.
  unsigned scheduleWorkers = 0;
  /// Whether several task programs are an error (a library holds one
  /// model); otherwise the last one is taken.
  bool single = false;
  /// Runs the schedule on the module: the caller's, so that its timing
  /// and error wording apply (amk::runPipeline when empty).
  std::function<llvm::Error(llvm::StringRef pipeline)> runPasses;
  /// Whether the loaded program gets its copy of the weights (it cannot
  /// run without; amk-compile only hashes it: loadProgram).
  bool loadConstants = true;
  /// Without the copy, whether the weights are hashed (amk-compile) or not
  /// read at all (a caller that loads them itself).
  bool hashConstants = true;
};

/// A task program and its loaded form.
struct CompiledProgram {
  amk::task::ProgramOp program; ///< In the module the pipeline ran on.
  std::unique_ptr<LoadedProgram> loaded;
  /// The schedule run after a pipeline that stopped at the graph, if any.
  std::string schedule;
};

/// The task program a pipeline left in `module`, scheduled when the
/// pipeline stopped at the graph, then validated (whatever the pipeline:
/// nothing runs unvalidated) and loaded.
llvm::Expected<CompiledProgram>
loadCompiledProgram(mlir::ModuleOp module, const ProgramOptions &options);

/// `program` through the LLVM lowering and the ORC JIT; the weights stay
/// where the loader put them (`loaded` must outlive the result).
llvm::Expected<std::unique_ptr<JitProgram>>
jitTaskProgram(amk::task::ProgramOp program, const LoadedProgram &loaded);

/// A runtime session of a loaded program with its input sets and output
/// buffers bound once, so that a timed run is the runtime call alone.
class Session {
public:
  /// Through `jit`'s entry points when given. `loaded` and `jit` must
  /// outlive the session.
  static llvm::Expected<std::unique_ptr<Session>>
  create(const LoadedProgram &loaded, const JitProgram *jit,
         const amk_rt_options &options);
  ~Session();

  const amk_rt_program &program() const { return *prog; }
  /// Binds an input set after checking it against the program's interface
  /// (count, dtypes, shapes); the values must outlive the session. Returns
  /// the set's index for run().
  llvm::Expected<unsigned> bindInputs(llvm::ArrayRef<ref::RValue> inputs);
  /// Forgets the bound input sets (their values may be gone); indices
  /// start at 0 again.
  void clearInputs();
  /// Binds new output buffers (copies of the previous outputs keep
  /// theirs).
  void freshOutputs();
  /// Makes output `output` write into input `input` of set `set` (same
  /// bytes required): a state the program updates in place, as a decoder's
  /// KV cache (amk-kv-cache). outputs()[output] is then not written.
  llvm::Error aliasOutputToInput(unsigned output, unsigned set, unsigned input);
  /// Runs input set `set` into the output buffers; returns the run's wall
  /// time in seconds.
  llvm::Expected<double> run(unsigned set = 0);
  const std::vector<ref::RValue> &outputs() const { return outs; }
  std::vector<ref::RValue> takeOutputs() { return std::move(outs); }
  /// The runtime's message about the last failure.
  const char *runtimeError() const;
  llvm::Error writeTrace(llvm::StringRef path) const;

private:
  Session(const LoadedProgram &loaded, const JitProgram *jit)
      : loaded(loaded), jit(jit) {}
  const LoadedProgram &loaded;
  const JitProgram *jit;
  const amk_rt_program *prog = nullptr;
  amk_rt_session *session = nullptr;
  std::vector<std::vector<const void *>> inputSets;
  std::vector<ref::RValue> outs;
  std::vector<void *> outPtrs;
  std::vector<void *> jitArgs; ///< Reused: a timed run does not allocate.
};

class SegmentedModel;

/// What a segmented model (Segments.h) compiled and what its last run did.
struct SegmentStats {
  /// Segment programs compiled so far (one per segment and input shapes)
  /// and the time they took.
  unsigned programs = 0;
  double compileSeconds = 0;
  /// Tasks summed over the compiled programs.
  unsigned tasks = 0;
  /// The last run: segment programs run, ops run on the host, the time
  /// spent in each.
  unsigned segmentRuns = 0, hostRuns = 0;
  double segmentSeconds = 0, hostSeconds = 0;
  /// Every op that ran on the host, once: "node 'nz' (NonZero)".
  std::vector<std::string> hostOps;
};

/// Which engine runs a model (amk-run).
enum class Engine { Reference, Runtime, Jit };

/// The programs of one model compiled per input shapes: a model with
/// dynamic dimensions is compiled once for each shape it runs at, and a
/// shape seen again reuses its program, JIT code and session (workers,
/// arena). Compiling is paid per shape; the cache says what it cost.
class ProgramCache {
public:
  struct Entry {
    std::string key; ///< ProgramCache::keyOf of the inputs.
    mlir::OwningOpRef<mlir::ModuleOp> module;
    CompiledProgram compiled;
    std::unique_ptr<JitProgram> jit;
    std::unique_ptr<Session> session;
    /// Instead of one program: the model as segments, compiled as it runs
    /// (a model whose sizes depend on data).
    std::shared_ptr<SegmentedModel> segmented;
    std::string segmentCut; ///< The op that made the first cut.
    /// Binding, the pipeline, the schedule, validation, loading, the JIT
    /// and the session's start: everything a new shape costs.
    double compileSeconds = 0;
    unsigned uses = 0;
  };
  /// The inputs' shapes as a key: `name=1x3x224x224,mask=1x128`.
  static std::string keyOf(mlir::func::FuncOp func,
                           llvm::ArrayRef<ref::RValue> inputs);
  Entry *find(llvm::StringRef key);
  Entry &insert(std::unique_ptr<Entry> entry);
  const std::vector<std::unique_ptr<Entry>> &entries() const { return all; }
  /// Runs that found their shape compiled.
  unsigned hits = 0;

private:
  std::vector<std::unique_ptr<Entry>> all;
};

struct RunOptions {
  Engine engine = Engine::Runtime;
  /// Runs on the model first; on the reference interpreter only when not
  /// empty.
  std::string pipeline;
  /// Workers of the schedule added when the pipeline stops at the graph.
  unsigned workers = 1;
  InputOptions inputs;
  bool singleThread = false;
  double hangTimeout = 30;
  /// Segmented models: a Loop (or any host op) that runs its body more
  /// often than this stops with an error naming it.
  uint64_t maxLoopIterations = 1000000;
  /// The last run's per-task trace goes here (runtime and JIT).
  std::string tracePath;
  /// Runs that must give the same bytes.
  unsigned repeat = 1;
  /// Benchmark: `warmup` runs, then `iters` (at least one) timed ones.
  bool bench = false;
  unsigned warmup = 5, iters = 50;
  /// Runtime and JIT: compile through this cache (the module given to
  /// runModel is then left as it is, each shape compiled from a copy).
  ProgramCache *cache = nullptr;
};

/// What the runtime ran.
struct ProgramStats {
  unsigned workers = 0, tasks = 0;
  uint64_t arenaBytes = 0;
  std::optional<uint64_t> tensorBytes;
  std::optional<int64_t> constBytes;
  std::optional<double> flops;
  /// FLOPs per ONNX node (the kernels' `name`, summed over its kernels).
  std::vector<std::pair<std::string, double>> nodeFlops;
  /// The kernels each node runs on, as "kind/variant" ("conv/3").
  std::map<std::string, std::string> nodeKernels;
};

/// What `prog`, loaded from `program`, holds.
ProgramStats statsOf(amk::task::ProgramOp program, const amk_rt_program &prog);

struct ModelRun {
  /// The graph's interface, as the inputs were made for it.
  mlir::func::FuncOp func;
  std::vector<ref::RValue> inputs, outputs;
  double seconds = 0; ///< The first run.
  double pipelineSeconds = 0;
  std::vector<double> benchSeconds;
  std::optional<double> jitSeconds;
  std::optional<ProgramStats> program; ///< Runtime and JIT.
  /// With a ProgramCache: the inputs' shapes, and whether they were
  /// compiled already (pipelineSeconds and jitSeconds are then 0).
  std::string shapeKey;
  bool cacheHit = false;
  /// The inputs whose values the program was specialized on
  /// (`NAME=V0:V1:...`, amk-bind-shapes' `values`): set when the model
  /// could not be compiled for the inputs' shapes alone. shapeKey then
  /// holds the values too.
  std::vector<std::string> specializedOn;
  /// Set when the model ran as segments and host ops (Segments.h): the
  /// op that made the first cut, and what was compiled and run.
  std::string segmentCut;
  std::optional<SegmentStats> segments;
  std::shared_ptr<ref::Interpreter> interpreter;
};

/// Binds the dynamic dimensions of `module`'s inputs to the shapes of
/// `inputs` (made for `func`, the graph's interface) with amk-bind-shapes,
/// so shape computations fold and the program is static; nothing to do
/// for a static model.
llvm::Error bindInputShapes(mlir::ModuleOp module, mlir::func::FuncOp func,
                            llvm::ArrayRef<ref::RValue> inputs,
                            llvm::ArrayRef<std::string> values = {});

/// The small inputs a program can be specialized on: numeric or bool
/// tensors of rank 0 or 1 with at most 64 elements, as amk-bind-shapes `values`
/// entries (`NAME=V0:V1:...`) holding `inputs`' values.
std::vector<std::string> parameterInputValues(mlir::func::FuncOp func,
                                              llvm::ArrayRef<ref::RValue> inputs);

/// Binds `module`'s dynamic input dimensions by input shape
/// (`NAME=D0xD1x...`) and by dimension name (`NAME=N`), as amk-bind-shapes
/// does; fails, naming the input and its dimensions, if any input is still
/// dynamic after that (amk-compile compiles static programs only).
llvm::Error bindShapes(mlir::ModuleOp module,
                       llvm::ArrayRef<std::string> shapes,
                       llvm::ArrayRef<std::string> dims,
                       llvm::ArrayRef<std::string> values = {});

/// Compiles `module` (changed in place) for the shapes of `inputs`, made
/// for `func` as runModel does for a new shape: binding, then
/// `afterBinding` (a pass pipeline, may be empty), then options.pipeline,
/// the schedule, validation, loading, the JIT when asked and a session.
/// The time it all took is entry.compileSeconds.
llvm::Error compileForInputs(mlir::ModuleOp module, mlir::func::FuncOp func,
                             llvm::ArrayRef<ref::RValue> inputs,
                             const RunOptions &options,
                             ProgramCache::Entry &entry,
                             llvm::StringRef afterBinding = "");

/// compileForInputs in two halves, for programs of one model that share
/// their weights (a decoder's prefill and decode step, amk::generate).
/// The first binds `module` to the inputs' shapes and runs `afterBinding`
/// and options.pipeline up to its schedule (amk::splitSchedule); it
/// returns the schedule still to run ("" when the pipeline has none: the
/// default one then runs, as compileForInputs does). Its time is added to
/// `seconds`.
llvm::Expected<std::string>
prepareForInputs(mlir::ModuleOp module, mlir::func::FuncOp func,
                 llvm::ArrayRef<ref::RValue> inputs, const RunOptions &options,
                 llvm::StringRef afterBinding, double &seconds);

/// The second half: schedules each prepared module (`schedules` from
/// prepareForInputs), loads all the programs over one blob of weights
/// whose bytes the weights' resources then read (their own copies freed:
/// loadProgramsSharingConstants), and gives each entry its JIT code and
/// session. With `releaseWeights`, the weights only the GEMM packing reads
/// are also freed as the schedules pack them: every module that references
/// them must be in `modules` or `holders`, and a holder (the imported
/// model) must not be run afterwards. Each entry's compileSeconds gets its
/// schedule, loading, JIT and session time.
llvm::Error finishSharingWeights(llvm::ArrayRef<mlir::ModuleOp> modules,
                                 llvm::ArrayRef<std::string> schedules,
                                 const RunOptions &options,
                                 llvm::ArrayRef<ProgramCache::Entry *> entries,
                                 llvm::ArrayRef<mlir::ModuleOp> holders,
                                 bool releaseWeights);

/// Runs `module` as `options` says. The pipeline changes `module`;
/// `original` (the model before it) gives the runtime engines the graph's
/// interface.
llvm::Expected<ModelRun> runModel(mlir::ModuleOp module,
                                  mlir::ModuleOp original,
                                  const RunOptions &options);

/// The reference interpreter's outputs of `module` on `inputs`; fails with
/// the interpreter's message.
llvm::Expected<std::vector<ref::RValue>>
runReference(mlir::ModuleOp module, llvm::ArrayRef<ref::RValue> inputs);

/// Runs the model in ONNX Runtime on `inputs`, named after `func`'s
/// inputs: `modelPath` when it is an ONNX file, else `module` exported to
/// a temporary one.
llvm::Expected<ort::Result> runOnnxRuntime(llvm::StringRef modelPath,
                                           mlir::ModuleOp module,
                                           mlir::func::FuncOp func,
                                           llvm::ArrayRef<ref::RValue> inputs,
                                           const ort::Options &options);

} // namespace amk

#endif // AMK_EXECUTION_SESSION_H
