//===- amk-compile.cpp - A model as a library with a C API ---------------===//
//
// Part of AMK. `amk-compile model.onnx -o libmodel.a --header model.h`:
// imports the model, runs a pass pipeline down to a validated task program,
// lowers it to LLVM (tables, weights, generated elementwise code, entry
// points) and writes an object file, a static archive or a shared library,
// plus a C header over amk/model.h (docs/integration.md).
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "execution/HostCode.h"
#include "conversion/Passes.h"
#include "execution/ProgramLoader.h"
#include "transforms/quantization/CalibrationData.h"
#include "pipelines/Pipelines.h"
#include "dialect/AMKTask/TaskProgram.h"
#include "runtime/include/amk/model.h"
#include "runtime/support/Peak.h"
#include "translate/ONNXImport.h"
#include "translate/ONNXToolOptions.h"
#include "tune/Records.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <thread>

using namespace mlir;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory compileCat("amk-compile options");
cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                               cl::desc("<model.onnx | model.mlir>"),
                               cl::cat(compileCat));
cl::opt<std::string> outputPath(
    "o", cl::desc("Output: libNAME.a (static), libNAME.so (shared) or "
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
cl::opt<std::string> pipeline(
    "pipeline",
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
cl::opt<std::string> runtimeLibrary(
    "runtime-library",
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
cl::opt<bool> quiet("quiet", cl::desc("Do not print the pipeline used"),
                    cl::cat(compileCat));

[[noreturn]] void die(const llvm::Twine &msg) {
  llvm::errs() << "amk-compile: error: " << msg << "\n";
  std::exit(1);
}

/// The C name: [A-Za-z_][A-Za-z0-9_]*.
std::string defaultName() {
  llvm::StringRef stem = llvm::sys::path::filename(outputPath);
  stem.consume_front("lib");
  stem = stem.take_until([](char c) { return c == '.'; });
  std::string name;
  for (char c : stem)
    name.push_back(llvm::isAlnum(c) ? c : '_');
  if (name.empty() || llvm::isDigit(name[0]))
    name = "model_" + name;
  return name;
}

bool isCName(llvm::StringRef s) {
  if (s.empty() || llvm::isDigit(s[0]))
    return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

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
    die(error);
  return *text;
}

const char *dtypeName(uint32_t dtype) {
  switch (dtype) {
  case AMK_DTYPE_FLOAT32:
    return "float32";
  case AMK_DTYPE_UINT8:
    return "uint8";
  case AMK_DTYPE_INT8:
    return "int8";
  case AMK_DTYPE_INT32:
    return "int32";
  case AMK_DTYPE_INT64:
    return "int64";
  case AMK_DTYPE_BOOL:
    return "bool";
  }
  return "?";
}

/// A C comment cannot hold "*/".
std::string commentSafe(llvm::StringRef s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    out.push_back(s[i]);
    if (s[i] == '*' && i + 1 < s.size() && s[i + 1] == '/')
      out.push_back(' ');
  }
  return out;
}

std::string makeHeader(const std::string &name, const amk::LoadedProgram &lp,
                       uint64_t hash, llvm::StringRef pipelineText) {
  std::string upper = llvm::StringRef(name).upper();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "/* Generated by amk-compile from "
     << commentSafe(llvm::sys::path::filename(modelPath)) << ". Do not edit.\n"
     << " * Pipeline: " << commentSafe(pipelineText) << "\n"
     << " * Scheduled for " << lp.program.num_workers
     << " workers. The API is amk/model.h; docs/integration.md. */\n"
     << "#ifndef AMK_MODEL_" << upper << "_H\n"
     << "#define AMK_MODEL_" << upper << "_H\n\n"
     << "#include <amk/model.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "#define " << upper << "_MODEL_HASH UINT64_C("
     << llvm::formatv("{0:x16}", hash) << ")\n"
     << "#define " << upper << "_NUM_INPUTS " << lp.inputs.size() << "u\n"
     << "#define " << upper << "_NUM_OUTPUTS " << lp.outputs.size()
     << "u\n\n";
  auto io = [&](const char *kind, const char *macro,
                const std::vector<amk_rt_io> &v) {
    for (auto [i, t] : llvm::enumerate(v)) {
      os << "/* " << kind << " " << i << " '" << commentSafe(t.name)
         << "': " << dtypeName(t.dtype) << " [";
      for (uint32_t d = 0; d < t.rank; ++d)
        os << (d ? ", " : "") << t.dims[d];
      os << "] */\n#define " << upper << "_" << macro << "_" << i
         << "_BYTES " << t.bytes << "u\n";
    }
  };
  io("input", "INPUT", lp.inputs);
  io("output", "OUTPUT", lp.outputs);
  os << "\n/* The compiled model (defined in the library). */\n"
     << "const amk_model *" << name << "_model(void);\n\n"
     << "/* A session of this model; checks that this header, the library "
        "and\n * the runtime belong together. */\n"
     << "static inline amk_status " << name
     << "_session_create(const amk_session_options *options,\n"
     << "                                          amk_session **session) {\n"
     << "  return amk_session_create(" << name
     << "_model(), AMK_MODEL_API_VERSION,\n"
     << "                            " << upper
     << "_MODEL_HASH, options, session);\n}\n\n"
     << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return s;
}

void writeFile(llvm::StringRef path, llvm::StringRef data) {
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    die("cannot write '" + path + "': " + ec.message());
  out.os() << data;
  out.os().close();
  if (out.os().has_error())
    die("cannot write '" + path + "'");
  out.keep();
}

std::string findRuntimeLibrary(const char *argv0) {
  if (!runtimeLibrary.empty())
    return runtimeLibrary;
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&findRuntimeLibrary));
  llvm::SmallString<256> lib(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(lib, "lib", "libamk_runtime.a");
  return std::string(lib);
}

/// The pipeline amk-tune chose for this model on this machine, from the
/// records, when there is one for this compiler, precision, calibration
/// set and (when given) worker count; says why when records of the model
/// exist but none applies. The recorded pipeline reads the calibration
/// samples from the directory given here (the same bytes, by the hash).
std::optional<std::string> tunedPipeline(ModuleOp module) {
  MLIRContext &ctx = *module.getContext();
  std::string path =
      recordsPath.empty() ? amk::tune::defaultRecordsPath() : recordsPath;
  if (!recordsPath.empty() && !llvm::sys::fs::exists(path))
    die("--records '" + path + "' does not exist");
  amk::tune::LoadedRecords lr = amk::tune::loadRecords(path);
  if (lr.badLines && !quiet)
    llvm::errs() << "amk-compile: warning: skipped " << lr.badLines
                 << " corrupt line(s) of the records '" << path << "'\n";
  if (lr.records.empty())
    return std::nullopt;
  amk::tune::ChoiceKey key;
  key.modelHash = amk::tune::modelStructuralHash(module);
  key.machine = amk::rt::machineFingerprint();
  key.compiler = AMK_VERSION;
  key.precision = precision;
  if (precision != "fp32" && !calibrationData.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>("main_graph");
    if (!func)
      die("the model has no function @main_graph");
    std::string error;
    auto hash = amk::quant::hashCalibrationSet(func, calibrationData, error);
    if (failed(hash))
      die(error);
    key.calibrationHash = amk::tune::hexHash(*hash);
  }
  if (workers.getNumOccurrences())
    key.workers = workers;
  amk::tune::ChoiceLookup found = amk::tune::findChoice(lr.records, key);
  if (!found.chosen) {
    if (!found.note.empty() && !quiet)
      llvm::errs() << "amk-compile: note: " << found.note << " (records '"
                   << path << "'); using the default pipeline\n";
    return std::nullopt;
  }
  std::string text = found.chosen->pipeline;
  if (key.precision != "fp32") {
    // data-dir="..." -> this invocation's directory.
    llvm::SmallString<256> dir(calibrationData);
    llvm::sys::fs::make_absolute(dir);
    size_t at = text.find("data-dir=\"");
    size_t end = at == std::string::npos ? at : text.find('"', at + 10);
    if (end == std::string::npos)
      die("the recorded pipeline '" + text + "' (records '" + path +
          "') has no data-dir for its calibration samples");
    text.replace(at, end + 1 - at, "data-dir=\"" + std::string(dir) + "\"");
  }
  PassManager pm(&ctx);
  std::string err;
  llvm::raw_string_ostream errOs(err);
  if (failed(amk::parsePipeline(text, pm, errOs)))
    die("the recorded pipeline '" + text + "' (records '" + path +
        "'; give --no-records to use the default pipeline) does not parse: " +
        err);
  if (!quiet)
    llvm::errs() << llvm::formatv(
        "amk-compile: the pipeline amk-tune chose for this model on this "
        "machine (records '{0}', run {1}, {2}; {3:f2}x the default "
        "pipeline's speed there)\n",
        path, found.chosen->run, found.chosen->time, found.chosen->speedup);
  return text;
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
    die("--workers must be at most 1024");
  std::string pipelineText = choosePipeline(nworkers);

  DialectRegistry registry;
  amk::registerAllDialects(registry);
  amk::registerConversionDialects(registry);
  MLIRContext ctx(registry);
  {
    PassManager pm(&ctx);
    std::string err;
    llvm::raw_string_ostream errOs(err);
    if (failed(amk::parsePipeline(pipelineText, pm, errOs)))
      die("the pipeline '" + pipelineText + "' does not parse: " + err);
  }
  if (checkPipelineOnly)
    return 0;

  llvm::SourceMgr sm;
  SourceMgrDiagnosticHandler handler(sm, &ctx);
  amk::onnx::attachONNXNodeNotes(&ctx);
  OwningOpRef<ModuleOp> module;
  auto load = [&] {
    if (!llvm::sys::fs::exists(modelPath))
      die("the model '" + modelPath + "' does not exist");
    module = amk::loadModelFile(modelPath, &ctx, sm);
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
    die("-o is required (libNAME.a, libNAME.so or NAME.o)");
  llvm::StringRef out = outputPath;
  enum { Archive, Shared, Object } kind;
  if (out.ends_with(".a"))
    kind = Archive;
  else if (out.ends_with(".so"))
    kind = Shared;
  else if (out.ends_with(".o"))
    kind = Object;
  else
    die("-o '" + out + "': the name must end in .a, .so or .o");
  std::string name = modelName.empty() ? defaultName() : modelName;
  if (!isCName(name))
    die("--name '" + name + "' is not a C identifier");

  if (!module)
    load();

  auto runPasses = [&](llvm::StringRef text) {
    std::string err;
    if (failed(amk::runPipeline(*module, text, err)))
      die(err + " on '" + modelPath + "'");
  };
  runPasses(pipelineText);
  auto findProgram = [&] {
    amk::task::ProgramOp found;
    unsigned n = 0;
    for (auto p : module->getOps<amk::task::ProgramOp>()) {
      found = p;
      ++n;
    }
    if (n > 1)
      die("the pipeline produced " + llvm::Twine(n) +
          " task programs; a library holds one model");
    return found;
  };
  amk::task::ProgramOp program = findProgram();
  if (!program) {
    // The pipeline stopped at the graph: schedule it (as amk-run does).
    std::string schedule =
        llvm::formatv("builtin.module(amk-schedule-megakernel{{workers={0}})",
                      nworkers)
            .str();
    runPasses(schedule);
    pipelineText += " + " + schedule;
    program = findProgram();
  }
  if (!program)
    die("the pipeline produced no amk_task.program");
  if (failed(amk::task::validateProgram(program)))
    die("the task program is invalid");
  std::string err;
  std::unique_ptr<amk::LoadedProgram> lp = amk::loadProgram(program, err);
  if (!lp)
    die("cannot load the task program: " + err);
  uint64_t hash = amk::hashProgram(*lp);

  // Lower the program alone, its weights embedded, under the model's name.
  OwningOpRef<ModuleOp> host = ModuleOp::create(program.getLoc());
  (*host)->setAttr("amk.pipeline", StringAttr::get(&ctx, pipelineText));
  host->push_back(program.clone());
  {
    PassManager pm(&ctx);
    amk::LowerTaskToLLVMOptions lopts;
    lopts.prefix = name;
    lopts.embedConstants = true;
    amk::buildLowerToLLVMPipeline(pm, lopts);
    if (failed(pm.run(*host)))
      die("cannot lower the task program to LLVM");
  }
  llvm::SmallString<0> object;
  {
    llvm::raw_svector_ostream os(object);
    if (failed(amk::emitObjectFile(*host, os)))
      die("cannot emit the object file");
  }

  switch (kind) {
  case Object:
    writeFile(out, object);
    break;
  case Archive: {
    std::vector<llvm::NewArchiveMember> members(1);
    members[0].Buf = llvm::MemoryBuffer::getMemBuffer(
        llvm::StringRef(object.data(), object.size()), name + ".o", false);
    members[0].MemberName = members[0].Buf->getBufferIdentifier();
    if (llvm::Error e = llvm::writeArchive(
            out, members, llvm::SymtabWritingMode::NormalSymtab,
            llvm::object::Archive::K_GNU, /*Deterministic=*/true,
            /*Thin=*/false))
      die("cannot write '" + out + "': " + llvm::toString(std::move(e)));
    break;
  }
  case Shared: {
    // The model's object and the runtime in one library that exports only
    // the C API and the model's entry points.
    std::string runtime = findRuntimeLibrary(argv[0]);
    if (!llvm::sys::fs::exists(runtime))
      die("the AMK runtime library '" + runtime +
          "' does not exist (--runtime-library)");
    llvm::SmallString<128> tmpObj;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "amk-compile", "o", tmpObj))
      die("cannot create a temporary file: " + ec.message());
    llvm::FileRemover removeObj(tmpObj);
    writeFile(tmpObj, object);
    // Exports: the C API (amk_*) and the model's entry points; the
    // runtime's C++ internals stay local.
    llvm::SmallString<128> tmpMap;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "amk-compile", "map", tmpMap))
      die("cannot create a temporary file: " + ec.message());
    llvm::FileRemover removeMap(tmpMap);
    writeFile(tmpMap, "{ global: amk_*; " + name + "_*; local: *; };\n");
    std::string driver = linker;
    if (driver.empty())
      driver = std::getenv("CXX") ? std::getenv("CXX") : "c++";
    auto driverPath = llvm::sys::findProgramByName(driver);
    if (!driverPath)
      die("cannot find the linker driver '" + driver + "' (--linker, $CXX)");
    std::vector<std::string> args = {*driverPath,
                                     "-shared",
                                     "-o",
                                     outputPath,
                                     std::string(tmpObj),
                                     "-Wl,--whole-archive",
                                     runtime,
                                     "-Wl,--no-whole-archive",
                                     "-Wl,--version-script=" +
                                         std::string(tmpMap),
                                     "-lxsmm",
                                     "-lxsmmnoblas",
                                     "-lpthread",
                                     "-ldl",
                                     "-lm"};
    std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
    std::string linkErr;
    int rc = llvm::sys::ExecuteAndWait(*driverPath, argRefs, std::nullopt, {},
                                       0, 0, &linkErr);
    if (rc != 0)
      die("linking '" + out + "' failed (" + llvm::join(args, " ") + ")" +
          (linkErr.empty() ? "" : ": " + linkErr));
    break;
  }
  }
  if (!headerPath.empty())
    writeFile(headerPath, makeHeader(name, *lp, hash, pipelineText));
  if (!quiet)
    llvm::errs() << "amk-compile: " << out << " (model '" << name << "', "
                 << lp->program.num_workers << " workers, "
                 << lp->program.num_tasks << " tasks); pipeline: "
                 << pipelineText << "\n";
  return 0;
}
