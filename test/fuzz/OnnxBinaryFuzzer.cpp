//===- OnnxBinaryFuzzer.cpp - The ONNX protobuf importer ------------------===//
//
// Part of AMK. Input: a serialized ModelProto (OnnxFuzz.h says what runs).
//
//===----------------------------------------------------------------------===//

#include "OnnxFuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return amk::fuzz::importAndExport(data, size, /*text=*/false);
}
