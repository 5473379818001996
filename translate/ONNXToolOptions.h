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

namespace amk {

/// Registers the options with llvm::cl; call before parsing the command
/// line.
void registerONNXToolOptions();

/// Import options as given on the command line.
ONNXImportOptions getONNXImportOptionsFromCL();

/// Export options as given on the command line (external data settings).
ONNXExportOptions getONNXExportOptionsFromCL();

} // namespace amk

#endif // AMK_TRANSLATE_ONNXTOOLOPTIONS_H
