//===- ONNXToolOptions.cpp - Command-line options of ONNX I/O -------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "translate/ONNXToolOptions.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace {
struct Options {
  cl::OptionCategory cat{"ONNX input/output options"};
  cl::opt<size_t> resourceThreshold{
      "onnx-resource-threshold",
      cl::desc("Tensors larger than this many bytes are imported as "
               "dense_resource blobs"),
      cl::init(1024), cl::cat(cat)};
  cl::opt<bool> inferShapes{
      "onnx-infer-shapes",
      cl::desc("Run ONNX shape inference when importing a model"),
      cl::init(true), cl::cat(cat)};
  cl::opt<std::string> locationName{
      "onnx-location-name",
      cl::desc("File name to use in locations instead of the model's path"),
      cl::init(""), cl::cat(cat)};
  cl::opt<unsigned> inferTimeout{
      "onnx-infer-timeout",
      cl::desc("Seconds libonnx's shape inference may run (in a child "
               "process) before the import goes on without it"),
      cl::init(300), cl::cat(cat)};
  cl::opt<int64_t> maxElements{
      "onnx-max-elements",
      cl::desc("Largest number of elements a tensor may claim"),
      cl::init(int64_t(1) << 40), cl::cat(cat)};
  cl::opt<std::string> externalData{
      "onnx-external-data",
      cl::desc("When writing ONNX: put initializers larger than "
               "--onnx-external-threshold bytes in this file (a name, "
               "placed next to the output model)"),
      cl::init(""), cl::cat(cat)};
  cl::opt<size_t> externalThreshold{
      "onnx-external-threshold",
      cl::desc("Size above which initializers go to --onnx-external-data"),
      cl::init(1024), cl::cat(cat)};
};
llvm::ManagedStatic<Options> options;
} // namespace

void amk::registerONNXToolOptions() { *options; }

amk::ONNXImportOptions amk::getONNXImportOptionsFromCL() {
  ONNXImportOptions o;
  o.resourceThreshold = options->resourceThreshold;
  o.inferShapes = options->inferShapes;
  o.locationFileName = options->locationName;
  o.maxElements = options->maxElements;
  o.inferenceTimeoutSeconds = options->inferTimeout;
  return o;
}

amk::ONNXExportOptions amk::getONNXExportOptionsFromCL() {
  ONNXExportOptions o;
  o.externalDataFile = options->externalData;
  o.externalDataThreshold = options->externalThreshold;
  return o;
}

mlir::OwningOpRef<mlir::ModuleOp> amk::loadModelFile(llvm::StringRef path,
                                                     mlir::MLIRContext *ctx,
                                                     llvm::SourceMgr &sm) {
  if (path.ends_with(".mlir") || path.ends_with(".mlirbc")) {
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf) {
      llvm::errs() << "error: cannot read '" << path
                   << "': " << buf.getError().message() << "\n";
      return nullptr;
    }
    sm.AddNewSourceBuffer(std::move(*buf), llvm::SMLoc());
    return mlir::parseSourceFile<mlir::ModuleOp>(sm, ctx);
  }
  return importONNXFile(path, ctx, getONNXImportOptionsFromCL());
}
