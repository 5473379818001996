//===- OnnxTextFuzzer.cpp - The ONNX text syntax path ---------------------===//
//
// Part of AMK. Input: a model in the ONNX text syntax (what `.onnxtxt`
// files hold). It goes through libonnx's parser and the same importer as
// binary models, then is verified and exported back.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "translate/ONNXExport.h"
#include "translate/ONNXImport.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  if (!amk::looksLikeONNXText(bytes))
    return -1; // The binary fuzzer's inputs.
  static mlir::DialectRegistry registry = [] {
    mlir::DialectRegistry r;
    amk::registerONNXImportDialects(r);
    return r;
  }();
  amk::fuzz::QuietContext q(registry);
  amk::ONNXImportOptions options;
  options.maxElements = int64_t(1) << 26;
  auto module = amk::importONNXBuffer(
      bytes, "/nonexistent-fuzz-dir/model.onnxtxt", &q.ctx, options);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  std::string out;
  llvm::raw_string_ostream os(out);
  (void)amk::exportONNXToStream(*module, os);
  return 0;
}
