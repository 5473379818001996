//===- ONNXToolOptions.h - Command-line options of ONNX I/O -----*- C++ -*-===//
//
// Part of AMK. The options every tool that reads or writes ONNX offers
// (--onnx-resource-threshold, --onnx-external-data, ...), declared once.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSLATE_ONNXTOOLOPTIONS_H
#define AMK_TRANSLATE_ONNXTOOLOPTIONS_H

#include "translate/ONNXExport.h"
#include "translate/ONNXImport.h"

#include "llvm/Support/SourceMgr.h"

namespace amk {

/// Registers the options with llvm::cl; call before parsing the command
/// line.
void registerONNXToolOptions();

/// Import options as given on the command line.
ONNXImportOptions getONNXImportOptionsFromCL();

/// Export options as given on the command line (external data settings).
ONNXExportOptions getONNXExportOptionsFromCL();

/// Loads what the tools take as a model: MLIR text or bytecode (`.mlir`,
/// `.mlirbc`, parsed through `sm` so diagnostics show the source) or an
/// ONNX file imported with the command line's import options. Null after
/// a diagnostic (or an "error: cannot read" on stderr).
/// Checks MLIR text before MLIR parses it: a hex blob in a
/// `dialect_resources` section whose first 4 bytes (its alignment) are 0
/// makes MLIR 22's parser allocate with alignment 0 and abort (an upstream
/// bug, docs/security.md). Returns an error naming the buffer, the line and
/// the blob, or an empty string.
std::string checkResourceBlobAlignment(llvm::StringRef text,
                                       llvm::StringRef bufferName);

/// Checks MLIR text for a zero-width integer type (`tensor<i0>`): MLIR 22's
/// printer crashes on a dense attribute of one (upstream), and any
/// verifier error prints the op holding it, so such text is refused before
/// it is parsed. String literals and comments are skipped, and so are
/// names (`%i0`, `@i0`, an attribute named i0). Returns an error naming the
/// buffer, line and column, or an empty string.
std::string checkZeroWidthIntegerTypes(llvm::StringRef text,
                                       llvm::StringRef bufferName);

/// Both checks above, the first error found or an empty string. The tools
/// call it on every MLIR text they read.
std::string checkMLIRText(llvm::StringRef text, llvm::StringRef bufferName);

mlir::OwningOpRef<mlir::ModuleOp> loadModelFile(llvm::StringRef path,
                                                mlir::MLIRContext *ctx,
                                                llvm::SourceMgr &sm);

} // namespace amk

#endif // AMK_TRANSLATE_ONNXTOOLOPTIONS_H
