//===- amk-compile.cpp - A model as a library with a C API ---------------===//
//
// Part of AMK. `amk-compile model.onnx -o libmodel.a --header model.h`:
// imports the model, runs a pass pipeline down to a validated task program,
// lowers it to LLVM (tables, weights, generated elementwise code, entry
// points) and writes an object file, a static archive or a shared library,
// plus a C header over amk/model.h (docs/integration.md).
//
//===----------------------------------------------------------------------===//

#include "conversion/Passes.h"
#include "dialect/ONNX/ONNXNames.h"
#include "execution/ModelLibrary.h"
#include "execution/Session.h"
#include "pipelines/Pipelines.h"
#include "tools/lib/ToolError.h"
#include "transforms/Utils/PassUtils.h"
#include "translate/ONNXToolOptions.h"
#include "tune/Records.h"
#include "tune/Tuner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

#include <optional>
#include <thread>

using namespace mlir;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory compileCat("amk-compile options");
cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                               cl::desc("<model.onnx | model.mlir>"),
                               cl::cat(compileCat));
cl::opt<std::string>
    outputPath("o",
               cl::desc("Output: libNAME.a (static), libNAME.so (shared) or "
                        "NAME.o (object file)"),
               cl::value_desc("file"), cl::cat(compileCat));
cl::opt<std::string> headerPath("header",
                                cl::desc("Also write the model's C header"),
                                cl::value_desc("file.h"), cl::cat(compileCat));
cl::opt<std::string>
    modelName("name",
              cl::desc("The model's C name: the prefix of its symbols "
                       "(default: the output's name without lib and "
                       "extension)"),
              cl::cat(compileCat));
cl::opt<std::string>
    pipeline("pipeline",
             cl::desc("The pass pipeline, as amk-opt --pass-pipeline takes it "
                      "(default: chosen from --target and --precision)"),
             cl::cat(compileCat));
cl::opt<std::string> target("target",
                            cl::desc("Target of the default pipeline"),
                            cl::init("cpu"), cl::cat(compileCat));
cl::opt<std::string>
    precision("precision",
              cl::desc("fp32 | int8 | mixed | dynamic | w8 | w4 (default "
                       "pipeline only)"),
              cl::init("fp32"), cl::cat(compileCat));
cl::opt<std::string> calibrationData(
    "calibration-data",
    cl::desc("Directory of calibration inputs for int8 and mixed"),
    cl::cat(compileCat));
cl::opt<double> sensitivityTarget(
    "sensitivity-target",
    cl::desc("--precision mixed: the SQNR (dB) of the outputs to reach by "
             "keeping the most sensitive nodes in float"),
    cl::init(40.0), cl::cat(compileCat));
cl::opt<unsigned>
    workers("workers",
            cl::desc("Workers of the schedule when the pipeline does not "
                     "schedule the program itself (default: this "
                     "machine's cores)"),
            cl::init(0), cl::cat(compileCat));
cl::opt<bool> printPipeline("print-pipeline",
                            cl::desc("Print the pipeline and exit"),
                            cl::cat(compileCat));
cl::opt<bool>
    checkPipelineOnly("check-pipeline",
                      cl::desc("Only check that --pipeline parses (what "
                               "amk_add_model does at configure time)"),
                      cl::cat(compileCat));
cl::opt<std::string>
    runtimeLibrary("runtime-library",
                   cl::desc("libamk_runtime.a for shared libraries (default: "
                            "../lib/libamk_runtime.a next to this tool)"),
                   cl::cat(compileCat));
cl::opt<std::string>
    linker("linker",
           cl::desc("The C++ compiler driver that links shared libraries "
                    "(default: $CXX, else c++)"),
           cl::cat(compileCat));
cl::opt<std::string> recordsPath(
    "records",
    cl::desc("amk-tune's records store: without --pipeline, the pipeline "
             "amk-tune chose for this model, machine, compiler and "
             "precision is used when it holds one (default: "
             "$XDG_CACHE_HOME/amk/records.jsonl)"),
    cl::value_desc("file"), cl::cat(compileCat));
cl::opt<bool>
    noRecords("no-records",
              cl::desc("Never take the pipeline from amk-tune's records"),
              cl::cat(compileCat));
cl::list<std::string>
    inputShapes("input-shape",
                cl::desc("NAME=D0xD1x...: compile for this shape of input "
                         "NAME (a model with dynamic dimensions); "
                         "repeatable: an input named again starts another "
                         "shape set, and each set is a variant of the "
                         "library"),
                cl::cat(compileCat));
cl::list<std::string>
    dimSizes("dim",
             cl::desc("NAME=N: compile for this size of the model's "
                      "dimension NAME (its dim_param); repeatable: a name "
                      "given again starts another set (another variant)"),
             cl::cat(compileCat));
cl::list<std::string>
    inputValues("input-value",
                cl::desc("NAME=V0:V1:...: compile for these values of the "
                         "small input NAME (at most 64 elements: Resize "
                         "scales, Slice starts, reduction axes given as "
                         "inputs); every variant is specialized on them and "
                         "ignores the input at run time"),
                cl::cat(compileCat));
cl::opt<unsigned> generatePromptLen(
    "generate-prompt-len",
    cl::desc("Compile a decoder in Hugging Face Optimum's interface for "
             "amk_model_generate (amk/model.h): variant 0 the prefill of a "
             "prompt of this many tokens, variant 1 the decode step over a "
             "KV cache of --max-context slots written in place "
             "(docs/decoder.md)"),
    cl::init(0), cl::cat(compileCat));
cl::opt<unsigned> maxContext(
    "max-context",
    cl::desc("With --generate-prompt-len: the KV cache's slots, the most "
             "tokens (prompt included) one generation holds"),
    cl::init(0), cl::cat(compileCat));
cl::opt<bool> quiet("quiet", cl::desc("Do not print the pipeline used"),
                    cl::cat(compileCat));

const amk::ToolErrors errors("amk-compile", 1);

std::string choosePipeline(unsigned nworkers) {
  if (!pipeline.empty())
    return pipeline;
  amk::DefaultPipelineOptions o;
  o.target = target;
  o.precision = precision;
  o.calibrationData = calibrationData;
  o.sensitivityTarget = sensitivityTarget;
  o.workers = nworkers;
  std::string error;
  auto text = amk::defaultPipeline(o, error);
  if (failed(text))
    errors.fail(error);
  return *text;
}

std::string findRuntimeLibrary(const char *argv0) {
  if (!runtimeLibrary.empty())
    return runtimeLibrary;
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&findRuntimeLibrary));
  llvm::SmallString<256> lib(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(lib, "lib", "libamk_runtime.a");
  return std::string(lib);
}

/// The pipeline amk-tune chose for this model on this machine, from the
/// records, when there is one for this compiler, precision, calibration
/// set and (when given) worker count; says why when records of the model
/// exist but none applies.
std::optional<std::string> tunedPipeline(ModuleOp module) {
  std::string path =
      recordsPath.empty() ? amk::tune::defaultRecordsPath() : recordsPath;
  if (!recordsPath.empty() && !llvm::sys::fs::exists(path))
    errors.fail("--records '" + path + "' does not exist");
  amk::tune::LoadedRecords lr = amk::tune::loadRecords(path);
  if (lr.badLines && !quiet)
    errors.warning("skipped " + llvm::Twine(lr.badLines) +
                   " corrupt line(s) of the records '" + path + "'");
  if (lr.records.empty())
    return std::nullopt;
  amk::tune::TunedPipelineQuery query;
  query.records = path;
  query.precision = precision;
  query.calibrationData = calibrationData;
  if (workers.getNumOccurrences())
    query.workers = workers;
  amk::tune::TunedPipeline found =
      errors(amk::tune::findTunedPipeline(module, lr.records, query));
  if (!found.pipeline) {
    if (!found.note.empty() && !quiet)
      errors.note(found.note + " (records '" + path +
                  "'); using the default pipeline");
    return std::nullopt;
  }
  if (!quiet)
    llvm::errs() << llvm::formatv(
        "amk-compile: the pipeline amk-tune chose for this model on this "
        "machine (records '{0}', run {1}, {2}; {3:f2}x the default "
        "pipeline's speed there)\n",
        path, found.chosen.run, found.chosen.time, found.chosen.speedup);
  return found.pipeline;
}

/// The shape sets given on the command line: an entry naming an input (or
/// dimension) that the current set already holds starts the next set.
std::vector<std::vector<std::string>>
groupSets(llvm::ArrayRef<std::string> specs, bool lastEquals) {
  std::vector<std::vector<std::string>> sets;
  llvm::StringSet<> names;
  for (const std::string &spec : specs) {
    llvm::StringRef text(spec);
    llvm::StringRef name =
        (lastEquals ? text.rsplit('=') : text.split('=')).first.trim();
    if (sets.empty() || names.contains(name)) {
      sets.emplace_back();
      names.clear();
    }
    names.insert(name);
    sets.back().push_back(spec);
  }
  return sets;
}

/// "x=[1,3,224,224], mask=[1,128]": a program's input shapes.
std::string inputShapesText(const amk::LoadedProgram &lp) {
  std::string out;
  for (auto [i, t] : llvm::enumerate(lp.inputs)) {
    out += (i ? ", " : "") + std::string(t.name) + "=[";
    for (uint32_t d = 0; d < t.rank; ++d)
      out += (d ? "," : "") + std::to_string(t.dims[d]);
    out += "]";
  }
  return out;
}

/// The two shape sets of a decoder compiled for generation: the prefill
/// of P tokens with an empty past, and one token after T - 1 past slots
/// (amk-kv-cache then makes those T-slot caches). Any input other than
/// Optimum's is an error naming it.
std::vector<std::vector<std::string>>
generationShapeSets(ModuleOp module, unsigned P, unsigned T) {
  func::FuncOp f;
  module.walk([&](func::FuncOp fn) {
    if (!f)
      f = fn;
  });
  if (!f)
    errors.fail("--generate-prompt-len: the model has no function");
  std::vector<std::string> prefill, decode;
  auto spec = [](llvm::StringRef name, llvm::ArrayRef<int64_t> dims) {
    std::string s = name.str() + "=";
    for (auto [i, d] : llvm::enumerate(dims))
      s += (i ? "x" : "") + std::to_string(d);
    return s;
  };
  bool ids = false;
  for (BlockArgument arg : f.getArguments()) {
    llvm::StringRef name = amk::onnx::getTensorName(arg);
    auto t = dyn_cast<RankedTensorType>(arg.getType());
    if (name == "input_ids" || name == "position_ids") {
      ids |= name == "input_ids";
      prefill.push_back(spec(name, {1, P}));
      decode.push_back(spec(name, {1, 1}));
    } else if (name == "attention_mask") {
      prefill.push_back(spec(name, {1, P}));
      decode.push_back(spec(name, {1, T}));
    } else if (name.starts_with("past_key_values.") && t && t.getRank() == 4 &&
               !t.isDynamicDim(1) && !t.isDynamicDim(3)) {
      prefill.push_back(spec(name, {1, t.getDimSize(1), 0, t.getDimSize(3)}));
      decode.push_back(
          spec(name, {1, t.getDimSize(1), T - 1, t.getDimSize(3)}));
    } else {
      errors.fail("--generate-prompt-len: input '" + name +
                  "' is not part of Optimum's decoder interface (input_ids, "
                  "attention_mask, position_ids, past_key_values.N.key/value "
                  "with static heads and head size)");
    }
  }
  if (!ids)
    errors.fail("--generate-prompt-len: the model has no input named "
                "input_ids");
  return {prefill, decode};
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  amk::registerONNXToolOptions();
  amk::registerAllPasses();
  cl::HideUnrelatedOptions({&compileCat});
  cl::ParseCommandLineOptions(
      argc, argv,
      "Compiles a model into a library with a C API (amk/model.h)\n\n"
      "  amk-compile model.onnx -o libmodel.a --header model.h\n"
      "  amk-compile model.onnx -o libmodel.so --pipeline='builtin.module("
      "...)'\n");

  unsigned nworkers =
      workers ? workers : std::max(1u, std::thread::hardware_concurrency());
  if (nworkers > 1024)
    errors.fail("--workers must be at most 1024");
  std::string pipelineText = choosePipeline(nworkers);

  amk::ModelContext context;
  {
    PassManager pm(&context.get());
    std::string err;
    llvm::raw_string_ostream errOs(err);
    if (failed(amk::parsePipeline(pipelineText, pm, errOs)))
      errors.fail("the pipeline '" + pipelineText + "' does not parse: " + err);
  }
  if (checkPipelineOnly)
    return 0;

  OwningOpRef<ModuleOp> module;
  auto load = [&] {
    if (!llvm::sys::fs::exists(modelPath))
      errors.fail("the model '" + modelPath + "' does not exist");
    module = context.load(modelPath);
    if (!module)
      std::exit(1);
  };
  // One program per shape set (several sets make a library of variants).
  std::vector<std::vector<std::string>> shapeSets =
      groupSets(inputShapes, /*lastEquals=*/true);
  std::vector<std::vector<std::string>> dimSets =
      groupSets(dimSizes, /*lastEquals=*/false);
  auto setFor = [&](const std::vector<std::vector<std::string>> &sets,
                    size_t k) {
    return sets.empty() ? std::vector<std::string>()
                        : sets[sets.size() == 1 ? 0 : k];
  };
  if (pipeline.empty() && !noRecords && target == "cpu") {
    load();
    // amk-tune keys records by the shapes it tuned at: look the model up
    // at (the first variant's) sizes. A binding that fails is reported
    // when the variant is compiled.
    OwningOpRef<ModuleOp> bound = module->clone();
    if (llvm::Error e = amk::bindShapes(*bound, setFor(shapeSets, 0),
                                        setFor(dimSets, 0), inputValues))
      llvm::consumeError(std::move(e));
    if (std::optional<std::string> tuned = tunedPipeline(*bound))
      pipelineText = *tuned;
  }
  if (printPipeline) {
    llvm::outs() << pipelineText << "\n";
    return 0;
  }
  if (outputPath.empty())
    errors.fail("-o is required (libNAME.a, libNAME.so or NAME.o)");
  if (!amk::libraryKind(outputPath))
    errors.fail("-o '" + outputPath + "': the name must end in .a, .so or .o");
  std::string name =
      modelName.empty() ? amk::defaultModelName(outputPath) : modelName;
  if (!amk::isCName(name))
    errors.fail("--name '" + name + "' is not a C identifier");
  if (!module)
    load();

  bool generation = generatePromptLen.getNumOccurrences() > 0;
  if (generation) {
    if (!inputShapes.empty() || !dimSizes.empty())
      errors.fail("--generate-prompt-len gives the shapes itself; drop "
                  "--input-shape and --dim");
    if (generatePromptLen < 1 || maxContext < generatePromptLen ||
        maxContext < 2)
      errors.fail("--generate-prompt-len " + llvm::Twine(generatePromptLen) +
                  " needs --max-context of at least the prompt and 2, not " +
                  llvm::Twine(maxContext));
    shapeSets = generationShapeSets(*module, generatePromptLen, maxContext);
  } else if (maxContext.getNumOccurrences()) {
    errors.fail("--max-context goes with --generate-prompt-len");
  }
  if (shapeSets.size() > 1 && dimSets.size() > 1 &&
      shapeSets.size() != dimSets.size())
    errors.fail("--input-shape gives " + llvm::Twine(shapeSets.size()) +
                " shape sets and --dim " + llvm::Twine(dimSets.size()) +
                "; give one set of either for all variants, or as many of "
                "each");
  size_t numVariants =
      std::max<size_t>({1, shapeSets.size(), dimSets.size()});
  // Each variant compiles from a clone of the imported module; one
  // variant needs no clone.
  OwningOpRef<ModuleOp> source;
  if (numVariants > 1)
    source = module->clone();
  std::vector<OwningOpRef<ModuleOp>> modules;
  std::vector<amk::CompiledProgram> compiled;
  std::vector<uint64_t> hashes;
  std::string schedule;
  // Every variant is past its graph passes before any is scheduled: the
  // weights only the GEMM packing still reads are then freed as their
  // panels are made, which all variants share.
  std::optional<std::pair<std::string, std::string>> split =
      amk::splitSchedule(&context.get(), pipelineText);
  for (size_t k = 0; k < numVariants; ++k) {
    modules.push_back(k == 0 ? std::move(module) : source->clone());
    ModuleOp m = *modules.back();
    // The pipeline up to its schedule (all of it when it has none).
    auto runPasses = [&](llvm::StringRef text) -> llvm::Error {
      std::string err;
      if (failed(amk::runPipeline(m, text, err)))
        return llvm::createStringError(err + " on '" + modelPath + "'");
      return llvm::Error::success();
    };
    // A dynamic model is compiled for the sizes given; one left dynamic is
    // an error naming the input and its dimensions.
    std::vector<std::string> shapes = setFor(shapeSets, k),
                             sizes = setFor(dimSets, k);
    if (llvm::Error e = amk::bindShapes(m, shapes, sizes, inputValues)) {
      if (numVariants == 1)
        errors(std::move(e));
      std::string set;
      for (const std::string &x : shapes)
        set += " --input-shape " + x;
      for (const std::string &x : sizes)
        set += " --dim " + x;
      errors.fail("variant " + llvm::Twine(k) + " (" +
                  llvm::StringRef(set).ltrim() +
                  "): " + llvm::toString(std::move(e)));
    }
    if (generation && k == 0) {
      // The prefill computes the LM head for the last position only, when
      // the head is a plain product; otherwise the model as it stands.
      OwningOpRef<ModuleOp> backup = m.clone();
      std::string err;
      LogicalResult r = failure();
      {
        ScopedDiagnosticHandler quietDiagnostics(
            m.getContext(), [](Diagnostic &) { return success(); });
        r = amk::runPipeline(
            m, "builtin.module(amk-last-token-logits{output=logits})", err);
      }
      if (failed(r)) {
        modules.back() = std::move(backup);
        m = *modules.back();
      }
    } else if (generation) {
      errors(runPasses("builtin.module(amk-kv-cache)"));
    }
    errors(runPasses(split ? split->first : pipelineText));
  }
  source = nullptr;
  llvm::SmallVector<ModuleOp> graphs;
  SmallVector<Operation *> live;
  for (OwningOpRef<ModuleOp> &mod : modules) {
    graphs.push_back(*mod);
    live.push_back(*mod);
  }
  // What the graph passes replaced (weights folded or quantized) goes
  // first; then the weights only the packing reads are marked.
  amk::releaseUnreferencedBlobs(&context.get(), live);
  amk::markWeightsReleasedAfterPacking(graphs);
  for (size_t k = 0; k < numVariants; ++k) {
    ModuleOp m = *modules[k];
    auto runPasses = [&](llvm::StringRef text) -> llvm::Error {
      std::string err;
      if (failed(amk::runPipeline(m, text, err)))
        return llvm::createStringError(err + " on '" + modelPath + "'");
      return llvm::Error::success();
    };
    // Then the schedule (the pipeline's own, or the default one when the
    // pipeline stopped at the graph, as amk-run does).
    if (split)
      errors(runPasses(split->second));
    amk::ProgramOptions programOptions;
    programOptions.scheduleWorkers = nworkers;
    programOptions.single = true;
    programOptions.runPasses = runPasses;
    // The library's weights are written from the program's attributes
    // (emitModelVariantsObject); a loaded copy would only be hashed.
    programOptions.loadConstants = false;
    compiled.push_back(errors(amk::loadCompiledProgram(m, programOptions)));
    schedule = compiled.back().schedule;
    hashes.push_back(amk::hashProgram(*compiled.back().loaded));
    // The weights the schedule replaced are freed: what the programs and
    // the variants still to schedule reference stays.
    amk::releaseUnreferencedBlobs(&context.get(), live);
    for (size_t j = 0; j < k; ++j)
      if (inputShapesText(*compiled[j].loaded) ==
          inputShapesText(*compiled[k].loaded))
        errors.fail("variants " + llvm::Twine(j) + " and " + llvm::Twine(k) +
                    " have the same input shapes (" +
                    inputShapesText(*compiled[k].loaded) +
                    "); give each shape set once");
  }
  if (!schedule.empty())
    pipelineText += " + " + schedule;
  std::vector<amk::task::ProgramOp> programs;
  std::vector<const amk::LoadedProgram *> loaded;
  for (amk::CompiledProgram &c : compiled) {
    programs.push_back(c.program);
    loaded.push_back(c.loaded.get());
  }
  uint64_t hash = numVariants == 1 ? hashes.front()
                                   : amk::combineVariantHashes(hashes);

  amk::ModelObjects object =
      errors(amk::emitModelVariantsObject(programs, name, pipelineText, hash));
  amk::SharedLibraryOptions shared;
  shared.runtimeLibrary = findRuntimeLibrary(argv[0]);
  shared.linker = linker;
  errors(amk::writeModelLibrary(outputPath, name, object, shared));
  if (!headerPath.empty())
    errors(amk::writeFileData(
        headerPath,
        amk::modelHeader(name, modelPath, loaded, hash, pipelineText)));
  const amk_rt_program &prog = compiled.front().loaded->program;
  if (!quiet) {
    llvm::errs() << "amk-compile: " << outputPath << " (model '" << name
                 << "', " << prog.num_workers << " workers, "
                 << prog.num_tasks << " tasks";
    if (numVariants > 1) {
      llvm::errs() << "; " << numVariants << " variants:";
      for (const amk::LoadedProgram *lp : loaded)
        llvm::errs() << " [" << inputShapesText(*lp) << "]";
    }
    llvm::errs() << "); pipeline: " << pipelineText << "\n";
  }
  return 0;
}
