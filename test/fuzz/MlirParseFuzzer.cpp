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
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
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
  // A resource blob of alignment 0 aborts inside MLIR's parser (upstream);
  // the tools refuse it first with this check, and so does the harness
  // (regression resource-blob-alignment-zero.mlir).
  if (!amk::checkResourceBlobAlignment(text, "input").empty())
    return 0;
  // Parsed unverified first: MLIR 22's printer crashes on a dense
  // attribute of a zero-width integer type (`dense<0> : tensor<i0>`;
  // mlir-opt crashes the same way), and any verifier error prints the op.
  // Our onnx ops refuse such attributes without printing (regression
  // constant-zero-width-splat.mlir); elsewhere, an unregistered op's name
  // in the onnx namespace included (unregistered-op-zero-width.mlir), it
  // is upstream's bug, so those inputs are skipped (docs/security.md).
  mlir::ParserConfig unverified(&q.ctx, /*verifyAfterParse=*/false);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, unverified);
  if (!module)
    return 0;
  bool zeroWidthSplat = false;
  module->walk([&](mlir::Operation *op) {
    // Registered onnx ops refuse such attributes in their verifier; an
    // unregistered name in the onnx namespace is refused by MLIR, whose
    // error prints the op, so it is checked here like any other.
    if (op->isRegistered() && op->getDialect() &&
        op->getDialect()->getNamespace() == "onnx")
      return;
    for (mlir::Attribute a :
         {op->getPropertiesAsAttribute(),
          mlir::Attribute(op->getDiscardableAttrDictionary())})
      if (a)
        a.walk([&](mlir::DenseElementsAttr d) {
          if (d.getElementType().isInteger(0))
            zeroWidthSplat = true;
        });
  });
  if (zeroWidthSplat || failed(mlir::verify(*module)))
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
