//===- Registration.cpp - AMK passes, pipelines and dialects --------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void amk::buildDefaultPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createPrintSummary());
}

LogicalResult amk::parsePipeline(llvm::StringRef text, PassManager &pm,
                                 llvm::raw_ostream &errors) {
  text = text.trim();
  if (text.starts_with("builtin.module(")) {
    // An anchored pipeline replaces pm's (anchored on builtin.module):
    // parsing it *into* pm would nest it under another module.
    FailureOr<OpPassManager> parsed = parsePassPipeline(text, errors);
    if (failed(parsed))
      return failure();
    static_cast<OpPassManager &>(pm) = *parsed;
    return success();
  }
  return parsePassPipeline(text, pm, errors);
}

void amk::registerAllPasses() {
  // MLIR's generic passes (canonicalize, cse, ...) go in AMK pipelines too.
  registerTransformsPasses();
  registerAMKPasses();
  PassPipelineRegistration<>(
      "amk-default",
      "The default AMK pipeline: canonicalize, then print a summary",
      buildDefaultPipeline);
}

void amk::registerAllDialects(DialectRegistry &registry) {
  registry.insert<onnx::ONNXDialect, fused::AMKDialect, func::FuncDialect>();
}
