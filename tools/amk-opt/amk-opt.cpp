//===- amk-opt.cpp - AMK optimizer driver ---------------------------------===//
//
// Part of AMK. `mlir-opt` with every AMK dialect and pass, which also reads
// ONNX models (`.onnx`, `.onnxtxt`, or any input that is not MLIR) and
// writes one when `-o` ends in `.onnx` or `.onnxtxt`:
//
//   amk-opt model.onnx --pass-pipeline='builtin.module(amk-default)' \
//       -o out.onnx
//
// An ONNX input is imported, handed to MlirOptMain as bytecode (so weights
// are not printed and re-parsed as text), and an ONNX output is produced
// by reading MlirOptMain's bytecode result back and exporting it.
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXNames.h"
#include "conversion/Passes.h"
#include "transforms/Utils/PassUtils.h"
#include "pipelines/Pipelines.h"
#include "translate/ONNXExport.h"
#include "translate/ONNXImport.h"
#include "translate/ONNXToolOptions.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

/// Whether `path` holds an ONNX model rather than MLIR text or bytecode.
static bool isONNXInput(llvm::StringRef path) {
  if (path.ends_with(".onnx") || path.ends_with(".onnxtxt"))
    return true;
  if (path.ends_with(".mlir") || path.ends_with(".mlirbc") || path == "-")
    return false;
  auto buf = llvm::MemoryBuffer::getFileSlice(path, 64, 0);
  if (!buf)
    return false;
  llvm::StringRef head = (*buf)->getBuffer();
  // MLIR bytecode starts with "ML\xefR"; MLIR text is printable. ONNX
  // protobufs start with a binary field tag.
  if (head.starts_with("ML\xef"
                       "R"))
    return false;
  return !head.empty() && static_cast<unsigned char>(head[0]) < 0x20 &&
         !llvm::isSpace(head[0]);
}

static bool isONNXOutput(llvm::StringRef path) {
  return path.ends_with(".onnx") || path.ends_with(".onnxtxt");
}

/// Imports an ONNX model and returns it as an in-memory bytecode buffer that
/// refers to `storage` (no copy: the weights are the bulk of it).
static std::unique_ptr<llvm::MemoryBuffer>
importToBytecode(llvm::StringRef path, DialectRegistry &registry,
                 llvm::SmallVectorImpl<char> &storage) {
  MLIRContext ctx(registry);
  llvm::SourceMgr sm;
  SourceMgrDiagnosticHandler handler(sm, &ctx);
  amk::onnx::attachONNXNodeNotes(&ctx);
  OwningOpRef<ModuleOp> module =
      amk::importONNXFile(path, &ctx, amk::getONNXImportOptionsFromCL());
  if (!module)
    return nullptr;
  llvm::raw_svector_ostream os(storage);
  if (failed(writeBytecodeToFile(*module, os)))
    return nullptr;
  return llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(storage.data(), storage.size()), path,
      /*RequiresNullTerminator=*/false);
}

static LogicalResult exportResult(llvm::StringRef bytecode,
                                  llvm::StringRef path,
                                  DialectRegistry &registry) {
  MLIRContext ctx(registry);
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(bytecode, path,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sm, &ctx);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sm, &ctx);
  if (!module)
    return failure();
  amk::ONNXExportOptions opts = amk::getONNXExportOptionsFromCL();
  opts.text = path.ends_with(".onnxtxt");
  return amk::exportONNXToFile(*module, path, opts);
}

/// Removes `--mlir-pass-statistics[-display=...]` from the command line and
/// says whether it was there. Debian's MLIR is built without
/// LLVM_ENABLE_STATS, so MLIR's own statistics would all read 0; AMK passes
/// keep real counters (amk::PassCounters) that amk-opt prints instead.
static bool takePassStatisticsFlag(int &argc, char **argv) {
  bool found = false;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    arg.consume_front("-");
    arg.consume_front("-");
    if (arg == "mlir-pass-statistics" ||
        arg.starts_with("mlir-pass-statistics-display")) {
      found = true;
      continue;
    }
    argv[out++] = argv[i];
  }
  argc = out;
  return found;
}

int main(int argc, char **argv) {
  bool passStatistics = takePassStatisticsFlag(argc, argv);
  registerTransformsPasses();
  amk::registerAllPasses();
  amk::registerONNXToolOptions();
  DialectRegistry registry;
  amk::registerAllDialects(registry);
  amk::registerConversionDialects(registry);

  auto [inputFile, outputFile] = registerAndParseCLIOptions(
      argc, argv, "AMK optimizer driver (reads and writes MLIR or ONNX)",
      registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFile, outputFile, registry));
  // Diagnostics from passes on imported models name the ONNX node.
  MlirOptMainConfig base = config;
  config.setPassPipelineSetupFn([base, passStatistics](PassManager &pm) {
    amk::onnx::attachONNXNodeNotes(pm.getContext());
    if (passStatistics)
      pm.addInstrumentation(
          std::make_unique<amk::PassCountersInstrumentation>(llvm::errs()));
    return base.setupPassPipeline(pm);
  });

  bool onnxIn = isONNXInput(inputFile);
  bool onnxOut = isONNXOutput(outputFile);
  std::unique_ptr<llvm::MemoryBuffer> input;
  llvm::SmallVector<char, 0> bytecode;
  if (onnxIn) {
    // The imported module (and its weights) is freed when importToBytecode
    // returns, before MlirOptMain parses the bytecode.
    input = importToBytecode(inputFile, registry, bytecode);
    if (!input)
      return EXIT_FAILURE;
  } else {
    std::string error;
    input = openInputFile(inputFile, &error);
    if (!input) {
      llvm::errs() << error << "\n";
      return EXIT_FAILURE;
    }
    std::string bad = amk::checkMLIRText(
        input->getBuffer(), inputFile == "-" ? "<stdin>" : inputFile);
    if (!bad.empty()) {
      llvm::errs() << bad << "\n";
      return EXIT_FAILURE;
    }
  }

  if (!onnxOut) {
    std::string error;
    auto output = openOutputFile(outputFile, &error);
    if (!output) {
      llvm::errs() << error << "\n";
      return EXIT_FAILURE;
    }
    if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
      return EXIT_FAILURE;
    output->keep();
    return EXIT_SUCCESS;
  }

  config.emitBytecode(true);
  std::string result;
  llvm::raw_string_ostream os(result);
  if (failed(MlirOptMain(os, std::move(input), registry, config)))
    return EXIT_FAILURE;
  return failed(exportResult(result, outputFile, registry)) ? EXIT_FAILURE
                                                            : EXIT_SUCCESS;
}
