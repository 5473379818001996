//===- amk-translate.cpp - ONNX <-> MLIR translation driver ---------------===//
//
// Part of AMK. `mlir-translate` with AMK's translations:
//   --import-onnx        .onnx (binary or ONNX text syntax) -> onnx dialect
//   --export-onnx        onnx dialect -> binary .onnx
//   --export-onnx-text   onnx dialect -> ONNX text syntax
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXNames.h"
#include "passes/Passes.h"
#include "translate/ONNXExport.h"
#include "translate/ONNXImport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static llvm::cl::OptionCategory importCat("ONNX import options");
static llvm::cl::opt<size_t> resourceThreshold(
    "onnx-resource-threshold",
    llvm::cl::desc("Tensors larger than this many bytes are imported as "
                   "dense_resource blobs"),
    llvm::cl::init(1024), llvm::cl::cat(importCat));
static llvm::cl::opt<bool> inferShapes(
    "onnx-infer-shapes",
    llvm::cl::desc("Run ONNX shape inference before importing"),
    llvm::cl::init(true), llvm::cl::cat(importCat));
static llvm::cl::opt<std::string> locationName(
    "onnx-location-name",
    llvm::cl::desc("File name to use in locations instead of the input's"),
    llvm::cl::init(""), llvm::cl::cat(importCat));

static llvm::cl::OptionCategory exportCat("ONNX export options");
static llvm::cl::opt<std::string> externalData(
    "onnx-external-data",
    llvm::cl::desc("Write initializers larger than --onnx-external-threshold "
                   "bytes to this file (give it the directory of -o; the "
                   "model records its file name)"),
    llvm::cl::init(""), llvm::cl::cat(exportCat));
static llvm::cl::opt<size_t> externalThreshold(
    "onnx-external-threshold",
    llvm::cl::desc("Size above which initializers go to --onnx-external-data"),
    llvm::cl::init(1024), llvm::cl::cat(exportCat));

static amk::ONNXImportOptions importOptions() {
  amk::ONNXImportOptions o;
  o.resourceThreshold = resourceThreshold;
  o.inferShapes = inferShapes;
  o.locationFileName = locationName;
  return o;
}

static LogicalResult exportTo(Operation *op, llvm::raw_ostream &os,
                              bool text) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError("expected a builtin.module");
  amk::ONNXExportOptions o;
  o.text = text;
  if (!externalData.empty()) {
    // The external file is written where the user asked; the model refers
    // to it by file name, so it must sit next to the model.
    llvm::SmallString<256> dir(externalData.getValue());
    llvm::sys::path::remove_filename(dir);
    o.externalDataFile = llvm::sys::path::filename(externalData).str();
    o.externalDataThreshold = externalThreshold;
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
                ? amk::importONNXFile(name, ctx, importOptions())
                : amk::importONNXBuffer(buf->getBuffer(), name, ctx,
                                        importOptions());
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) {
        amk::registerAllDialects(registry);
      });
  TranslateFromMLIRRegistration exportReg(
      "export-onnx", "Export the onnx dialect to a binary ONNX model",
      [](Operation *op, llvm::raw_ostream &os) {
        return exportTo(op, os, /*text=*/false);
      },
      [](DialectRegistry &registry) {
        amk::registerAllDialects(registry);
      });
  TranslateFromMLIRRegistration exportTextReg(
      "export-onnx-text", "Export the onnx dialect to the ONNX text syntax",
      [](Operation *op, llvm::raw_ostream &os) {
        return exportTo(op, os, /*text=*/true);
      },
      [](DialectRegistry &registry) {
        amk::registerAllDialects(registry);
      });
  return failed(mlirTranslateMain(argc, argv, "AMK translation driver"));
}
