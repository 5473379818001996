//===- MlirParseFuzzer.cpp - MLIR parser and verifiers of AMK's dialects ---===//
//
// Part of AMK. Input: MLIR text. It is parsed with every AMK dialect (onnx,
// amk, amk_task) and the upstream ones AMK uses registered, which runs our
// ops' parsers and verifiers (schema-table checks of the onnx ops, the
// task program's structural verifier), then printed back and re-parsed:
// what AMK prints it must be able to read.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "pipelines/Pipelines.h"
#include "translate/ONNXToolOptions.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry registry = [] {
    mlir::DialectRegistry r;
    amk::registerAllDialects(r);
    return r;
  }();
  amk::fuzz::QuietContext q(registry);
  // Unknown dialects are refused, as amk-opt refuses them. The tools hand
  // the parser null-terminated buffers (llvm::MemoryBuffer), and MLIR's
  // lexer relies on it: so does this target.
  std::string owned(reinterpret_cast<const char *>(data), size);
  llvm::StringRef text(owned.c_str(), size);
  // Text the tools refuse before MLIR parses it (upstream bugs, see
  // docs/security.md): a resource blob of alignment 0 aborts MLIR's parser
  // (regression resource-blob-alignment-zero.mlir), and MLIR 22's printer
  // crashes on a dense attribute of a zero-width integer type, which any
  // verifier error prints with its op, even an enclosing op's
  // (constant-zero-width-splat.mlir, unregistered-op-zero-width.mlir,
  // module-error-prints-zero-width.mlir).
  if (!amk::checkMLIRText(text, "input").empty())
    return 0;
  mlir::ParserConfig verified(&q.ctx);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, verified);
  if (!module)
    return 0;
  mlir::ParserConfig config(&q.ctx);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os, mlir::OpPrintingFlags().printGenericOpForm());
  auto again = mlir::parseSourceString<mlir::ModuleOp>(printed, config);
  if (!again) {
    // A verified module whose generic form does not parse back is a bug in
    // one of our ops' attributes or printers.
    llvm::errs() << "printed module does not parse back:\n" << printed;
    std::abort();
  }
  return 0;
}
