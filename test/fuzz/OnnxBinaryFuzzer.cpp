//===- OnnxBinaryFuzzer.cpp - The ONNX protobuf importer ------------------===//
//
// Part of AMK. Input: a serialized ModelProto. It is imported (protobuf
// parse, libonnx shape inference, conversion to the onnx dialect, weights,
// subgraphs), verified, and exported back. Any outcome but a crash, a
// sanitizer report or a hang is fine. External data resolves against a
// directory that does not exist, so no input reads the machine's files.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "translate/ONNXExport.h"
#include "translate/ONNXImport.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  if (amk::looksLikeONNXText(bytes))
    return -1; // The text fuzzer's inputs; keep them out of this corpus.
  static mlir::DialectRegistry registry = [] {
    mlir::DialectRegistry r;
    amk::registerONNXImportDialects(r);
    return r;
  }();
  amk::fuzz::QuietContext q(registry);
  amk::ONNXImportOptions options;
  // Bounded memory: no tensor over 2^26 elements.
  options.maxElements = int64_t(1) << 26;
  auto module = amk::importONNXBuffer(bytes, "/nonexistent-fuzz-dir/model.onnx",
                                      &q.ctx, options);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  std::string out;
  llvm::raw_string_ostream os(out);
  (void)amk::exportONNXToStream(*module, os);
  return 0;
}
