//===- amk-compile.cpp - A model as a library with a C API ---------------===//
//
// Part of AMK. `amk-compile model.onnx -o libmodel.a --header model.h`:
// imports the model, runs a pass pipeline down to a validated task program,
// lowers it to LLVM (tables, weights, generated elementwise code, entry
// points) and writes an object file, a static archive or a shared library,
// plus a C header over amk/model.h (docs/integration.md).
//
//===----------------------------------------------------------------------===//

#include "execution/ModelLibrary.h"
#include "execution/Session.h"
#include "pipelines/Pipelines.h"
#include "tools/lib/ToolError.h"
#include "translate/ONNXToolOptions.h"
#include "tune/Records.h"
#include "tune/Tuner.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"
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
              cl::desc("fp32 | int8 | mixed (default pipeline only)"),
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
                         "repeatable"),
                cl::cat(compileCat));
cl::list<std::string>
    dimSizes("dim",
             cl::desc("NAME=N: compile for this size of the model's "
                      "dimension NAME (its dim_param); repeatable"),
             cl::cat(compileCat));
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
  if (pipeline.empty() && !noRecords && target == "cpu") {
    load();
    if (std::optional<std::string> tuned = tunedPipeline(*module))
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

  // The pipeline, then the schedule if it stopped at the graph (as
  // amk-run does).
  auto runPasses = [&](llvm::StringRef text) -> llvm::Error {
    std::string err;
    if (failed(amk::runPipeline(*module, text, err)))
      return llvm::createStringError(err + " on '" + modelPath + "'");
    return llvm::Error::success();
  };
  // A dynamic model is compiled for the sizes given; one left dynamic is
  // an error naming the input and its dimensions.
  errors(amk::bindShapes(*module, inputShapes, dimSizes));
  errors(runPasses(pipelineText));
  amk::ProgramOptions programOptions;
  programOptions.scheduleWorkers = nworkers;
  programOptions.single = true;
  programOptions.runPasses = runPasses;
  amk::CompiledProgram compiled =
      errors(amk::loadCompiledProgram(*module, programOptions));
  if (!compiled.schedule.empty())
    pipelineText += " + " + compiled.schedule;
  uint64_t hash = amk::hashProgram(*compiled.loaded);

  llvm::SmallString<0> object =
      errors(amk::emitModelObject(compiled.program, name, pipelineText));
  amk::SharedLibraryOptions shared;
  shared.runtimeLibrary = findRuntimeLibrary(argv[0]);
  shared.linker = linker;
  errors(amk::writeModelLibrary(outputPath, name, object, shared));
  if (!headerPath.empty())
    errors(amk::writeFileData(
        headerPath, amk::modelHeader(name, modelPath, *compiled.loaded, hash,
                                     pipelineText)));
  const amk_rt_program &prog = compiled.loaded->program;
  if (!quiet)
    llvm::errs() << "amk-compile: " << outputPath << " (model '" << name
                 << "', " << prog.num_workers << " workers, " << prog.num_tasks
                 << " tasks); pipeline: " << pipelineText << "\n";
  return 0;
}
