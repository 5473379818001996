//===- amk-translate.cpp - ONNX <-> MLIR translation driver ---------------===//
//
// Part of AMK. `mlir-translate` with AMK's translations:
//   --import-onnx        .onnx (binary or ONNX text syntax) -> onnx dialect
//   --export-onnx        onnx dialect -> binary .onnx
//   --export-onnx-text   onnx dialect -> ONNX text syntax
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXNames.h"
#include "execution/HostCode.h"
#include "conversion/Passes.h"
#include "pipelines/Pipelines.h"
#include "translate/ONNXExport.h"
#include "translate/ONNXImport.h"
#include "translate/ONNXToolOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static LogicalResult exportTo(Operation *op, llvm::raw_ostream &os, bool text) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError("expected a builtin.module");
  amk::ONNXExportOptions o = amk::getONNXExportOptionsFromCL();
  o.text = text;
  if (!o.externalDataFile.empty()) {
    // The external file is written where the user asked; the model refers
    // to it by file name, so it must sit next to the model.
    llvm::SmallString<256> dir(o.externalDataFile);
    llvm::sys::path::remove_filename(dir);
    o.externalDataFile = llvm::sys::path::filename(o.externalDataFile).str();
    llvm::SmallString<256> tmp(dir);
    if (tmp.empty())
      tmp = ".";
    llvm::sys::path::append(tmp, ".amk-export.onnx");
    if (failed(amk::exportONNXToFile(module, tmp, o)))
      return failure();
    auto buf = llvm::MemoryBuffer::getFile(tmp);
    llvm::sys::fs::remove(tmp);
    if (!buf)
      return module.emitError("cannot read back the exported model");
    os << (*buf)->getBuffer();
    return success();
  }
  return amk::exportONNXToStream(module, os, o);
}

int main(int argc, char **argv) {
  amk::registerONNXToolOptions();
  TranslateToMLIRRegistration importReg(
      "import-onnx", "Import an ONNX model (binary or text syntax)",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *ctx) -> OwningOpRef<Operation *> {
        amk::onnx::attachONNXNodeNotes(ctx);
        const llvm::MemoryBuffer *buf =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        llvm::StringRef name = buf->getBufferIdentifier();
        // A real file is streamed from disk (the mapped copy is not
        // touched); standard input is parsed from memory.
        auto module =
            name != "<stdin>" && llvm::sys::fs::is_regular_file(name)
                ? amk::importONNXFile(name, ctx,
                                      amk::getONNXImportOptionsFromCL())
                : amk::importONNXBuffer(buf->getBuffer(), name, ctx,
                                        amk::getONNXImportOptionsFromCL());
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) { amk::registerAllDialects(registry); });
  TranslateFromMLIRRegistration exportReg(
      "export-onnx", "Export the onnx dialect to a binary ONNX model",
      [](Operation *op, llvm::raw_ostream &os) {
        return exportTo(op, os, /*text=*/false);
      },
      [](DialectRegistry &registry) { amk::registerAllDialects(registry); });
  TranslateFromMLIRRegistration exportTextReg(
      "export-onnx-text", "Export the onnx dialect to the ONNX text syntax",
      [](Operation *op, llvm::raw_ostream &os) {
        return exportTo(op, os, /*text=*/true);
      },
      [](DialectRegistry &registry) { amk::registerAllDialects(registry); });
  // The host code of a lowered task program (amk-lower-to-llvm).
  TranslateFromMLIRRegistration llvmIrReg(
      "mlir-to-llvmir", "Translate the llvm dialect to LLVM IR",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        llvm::LLVMContext llvmCtx;
        auto m = translateModuleToLLVMIR(op, llvmCtx);
        if (!m)
          return op->emitError("cannot translate to LLVM IR");
        m->print(os, nullptr);
        return success();
      },
      [](DialectRegistry &registry) {
        amk::registerConversionDialects(registry);
      });
  TranslateFromMLIRRegistration objectReg(
      "amk-emit-object",
      "Compile the llvm dialect (after amk-lower-to-llvm) to a relocatable "
      "object file for this host, optimized at O3",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin.module");
        llvm::SmallVector<char, 0> buf;
        llvm::raw_svector_ostream objOs(buf);
        if (failed(amk::emitObjectFile(module, objOs)))
          return failure();
        os.write(buf.data(), buf.size());
        return success();
      },
      [](DialectRegistry &registry) {
        amk::registerAllDialects(registry);
        amk::registerConversionDialects(registry);
      });
  // MLIR's parser aborts on a resource blob of alignment 0 (upstream,
  // docs/security.md); mlirTranslateMain reads the input itself, so the
  // MLIR text files named on the command line are checked first (an ONNX
  // model's bytes, weights included, may spell anything).
  bool importsONNX = false;
  for (int i = 1; i < argc; ++i)
    importsONNX |= llvm::StringRef(argv[i]).ltrim('-').starts_with(
        "import-onnx");
  for (int i = 1; i < argc && !importsONNX; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.starts_with("-") || !llvm::sys::fs::is_regular_file(arg))
      continue;
    auto buf = llvm::MemoryBuffer::getFile(arg);
    if (!buf)
      continue;
    std::string bad = amk::checkMLIRText((*buf)->getBuffer(), arg);
    if (!bad.empty()) {
      llvm::errs() << bad << "\n";
      return 1;
    }
  }
  return failed(mlirTranslateMain(argc, argv, "AMK translation driver"));
}
