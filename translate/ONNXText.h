//===- ONNXText.h - Printer for the ONNX text syntax ------------*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSLATE_ONNXTEXT_H
#define AMK_TRANSLATE_ONNXTEXT_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace onnx {
class ModelProto;
} // namespace onnx

namespace amk {

/// Prints `model` in the ONNX text syntax that libonnx's parser reads;
/// fails (printing nothing) when a string cannot be written in it.
llvm::Error printONNXText(const ::onnx::ModelProto &model,
                          llvm::raw_ostream &os);

} // namespace amk

#endif // AMK_TRANSLATE_ONNXTEXT_H
