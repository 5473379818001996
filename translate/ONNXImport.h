//===- ONNXImport.h - ONNX model to onnx dialect ----------------*- C++ -*-===//
//
// Part of AMK. Imports an ONNX model (binary protobuf or the ONNX text
// syntax) into a module of the onnx dialect. See docs/import-export.md for
// the contract: what is kept, how names and weights are represented, and
// what is refused.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSLATE_ONNXIMPORT_H
#define AMK_TRANSLATE_ONNXIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstddef>
#include <string>

namespace amk {

struct ONNXImportOptions {
  /// Initializers and tensor attributes larger than this many bytes become
  /// `dense_resource` blobs instead of inline `dense` attributes.
  size_t resourceThreshold = 1024;
  /// Run ONNX's shape inference (libonnx) before importing, so that values
  /// the model does not annotate get their types.
  bool inferShapes = true;
  /// File name used in locations; defaults to the model's path. The
  /// round-trip checker sets it so two imports can be compared.
  std::string locationFileName;
  /// Largest number of elements a tensor may claim (default 2^40, about a
  /// terabyte of bytes); guards against hostile shapes.
  int64_t maxElements = int64_t(1) << 40;
  /// Deepest subgraph nesting accepted.
  unsigned maxGraphDepth = 64;
  /// libonnx's inference runs in a child process (it crashes on some
  /// models); the child is killed after this many seconds.
  unsigned inferenceTimeoutSeconds = 300;
};

/// Imports the model in `path` (binary or text, detected from the content).
/// Errors are reported as diagnostics on `ctx`; returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp>
importONNXFile(llvm::StringRef path, mlir::MLIRContext *ctx,
               const ONNXImportOptions &options = {});

/// Imports a model held in memory. `path` names it in diagnostics and
/// anchors external data (its directory); it need not exist otherwise.
mlir::OwningOpRef<mlir::ModuleOp>
importONNXBuffer(llvm::StringRef bytes, llvm::StringRef path,
                 mlir::MLIRContext *ctx, const ONNXImportOptions &options = {});

/// Whether `bytes` look like the ONNX text syntax rather than a protobuf.
bool looksLikeONNXText(llvm::StringRef bytes);

/// Registers the dialects an imported module uses.
void registerONNXImportDialects(mlir::DialectRegistry &registry);

} // namespace amk

#endif // AMK_TRANSLATE_ONNXIMPORT_H
