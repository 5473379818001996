//===- OnnxFuzz.h - What both ONNX importer fuzzers run ---------*- C++ -*-===//
//
// Part of AMK. Imports `bytes` (protobuf parse or the text parser, libonnx
// shape inference in its helper process, conversion, weights, subgraphs),
// verifies and exports the result. Inputs of the other syntax are
// rejected (-1) so each fuzzer's corpus keeps its own. External data resolves
// against a directory that does not exist, so no input reads the machine's
// files; no tensor may exceed 2^26 elements (bounded memory). Any outcome but a
// crash, a sanitizer report or a hang is fine.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TEST_FUZZ_ONNXFUZZ_H
#define AMK_TEST_FUZZ_ONNXFUZZ_H

#include "FuzzCommon.h"
#include "translate/ONNXExport.h"
#include "translate/ONNXImport.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace amk::fuzz {

inline int importAndExport(const uint8_t *data, size_t size, bool text) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  if (amk::looksLikeONNXText(bytes) != text)
    return -1;
  static mlir::DialectRegistry registry = [] {
    mlir::DialectRegistry r;
    amk::registerONNXImportDialects(r);
    return r;
  }();
  QuietContext q(registry);
  amk::ONNXImportOptions options;
  options.maxElements = int64_t(1) << 26;
  auto module = amk::importONNXBuffer(
      bytes,
      text ? "/nonexistent-fuzz-dir/model.onnxtxt"
           : "/nonexistent-fuzz-dir/model.onnx",
      &q.ctx, options);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  std::string out;
  llvm::raw_string_ostream os(out);
  (void)amk::exportONNXToStream(*module, os);
  return 0;
}

} // namespace amk::fuzz

#endif // AMK_TEST_FUZZ_ONNXFUZZ_H
