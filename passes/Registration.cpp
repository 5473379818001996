//===- Registration.cpp - AMK passes, pipelines and dialects --------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void amk::buildDefaultPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createPrintSummary());
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
  registry.insert<onnx::ONNXDialect, func::FuncDialect>();
}
