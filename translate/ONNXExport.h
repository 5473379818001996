//===- ONNXExport.h - onnx dialect to ONNX model ----------------*- C++ -*-===//
//
// Part of AMK. Writes a module of the onnx dialect back to an ONNX model:
// typed ops at the version their module's opset selects, onnx.Generic as
// the node it came from, ONNX names from the op locations, and weights as
// initializers (inline or in an external data file).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSLATE_ONNXEXPORT_H
#define AMK_TRANSLATE_ONNXEXPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace amk {

struct ONNXExportOptions {
  /// When set, initializers larger than `externalDataThreshold` bytes are
  /// written to this file (a path relative to the model's directory).
  std::string externalDataFile;
  size_t externalDataThreshold = 1024;
  /// Write the ONNX text syntax instead of a binary protobuf.
  bool text = false;
};

/// Exports `module` to `path`. External data, if requested, is written
/// next to it.
mlir::LogicalResult exportONNXToFile(mlir::ModuleOp module,
                                     llvm::StringRef path,
                                     const ONNXExportOptions &options = {});

/// Exports `module` to a stream (no external data).
mlir::LogicalResult exportONNXToStream(mlir::ModuleOp module,
                                       llvm::raw_ostream &os,
                                       const ONNXExportOptions &options = {});

} // namespace amk

#endif // AMK_TRANSLATE_ONNXEXPORT_H
