//===- OnnxTextFuzzer.cpp - The ONNX text syntax path ---------------------===//
//
// Part of AMK. Input: a model in the ONNX text syntax (what `.onnxtxt`
// files hold). It goes through libonnx's parser and the same importer as
// binary models, then is verified and exported back.
//
//===----------------------------------------------------------------------===//

#include "OnnxFuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return amk::fuzz::importAndExport(data, size, /*text=*/true);
}
