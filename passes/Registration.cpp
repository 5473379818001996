//===- Registration.cpp - AMK passes, pipelines and dialects --------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/Verifier.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/AMKTask/AMKTaskDialect.h"
#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <cstdio>

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

LogicalResult amk::runPipeline(ModuleOp module, llvm::StringRef text,
                               std::string &error) {
  PassManager pm(module.getContext());
  std::string parseErrors;
  llvm::raw_string_ostream os(parseErrors);
  if (failed(parsePipeline(text, pm, os))) {
    error = "the pipeline '" + text.str() + "' does not parse: " + parseErrors;
    return failure();
  }
  if (failed(pm.run(module))) {
    error = "the pipeline '" + text.str() + "' failed";
    return failure();
  }
  if (failed(verify(module))) {
    error = "the pipeline '" + text.str() + "' left invalid IR";
    return failure();
  }
  return success();
}

FailureOr<std::string> amk::defaultPipeline(const DefaultPipelineOptions &o,
                                            std::string &error) {
  auto fail = [&](const std::string &msg) {
    error = msg;
    return failure();
  };
  if (o.target != "cpu" && o.target != "npu-like")
    return fail("--target must be cpu or npu-like, not '" + o.target + "'");
  if (o.precision != "fp32" && o.precision != "int8" && o.precision != "mixed")
    return fail("--precision must be fp32, int8 or mixed, not '" + o.precision +
                "'");
  std::string graph = "amk-graph-opt{target=" + o.target + "}";
  std::string schedule = o.schedule ? ",amk-schedule-megakernel{workers=" +
                                          std::to_string(o.workers) + "}"
                                    : std::string();
  if (o.precision == "fp32") {
    if (!o.calibrationData.empty())
      return fail(
          "--calibration-data is only used with --precision int8 or mixed");
    return "builtin.module(" + graph + schedule + ")";
  }
  if (o.calibrationData.empty())
    return fail("--precision " + o.precision +
                " needs --calibration-data DIR: inputs like the ones the "
                "model will see (.pb or .npy files, docs/quantization.md); "
                "AMK does not calibrate on made-up data");
  llvm::SmallString<256> dir(o.calibrationData);
  if (!llvm::sys::fs::is_directory(dir))
    return fail("--calibration-data '" + o.calibrationData +
                "' is not a directory");
  llvm::sys::fs::make_absolute(dir);
  if (llvm::StringRef(dir).contains('"'))
    return fail("--calibration-data may not contain '\"'");
  std::string quant = "amk-insert-qdq";
  if (o.precision == "mixed") {
    char db[32];
    std::snprintf(db, sizeof(db), "%g", o.sensitivityTarget);
    quant += std::string("{sensitivity-target=") + db + "}";
  }
  std::string run = o.schedule ? ",amk-emulate-qdq,amk-group-elementwise,"
                                 "canonicalize" +
                                     schedule
                               : std::string();
  return "builtin.module(" + graph + ",amk-calibrate{data-dir=\"" +
         std::string(dir) + "\"}," + quant + run + ")";
}

namespace {
struct GraphOptOptions : public PassPipelineOptions<GraphOptOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Target profile for amk-fuse-conv"),
                             llvm::cl::init("cpu")};
  Option<int64_t> targetOpset{
      *this, "target-opset",
      llvm::cl::desc("Opset amk-normalize-opset converts to first"),
      llvm::cl::init(21)};
};
} // namespace

void amk::buildGraphOptPipeline(OpPassManager &pm, llvm::StringRef target,
                                int64_t targetOpset) {
  pm.addPass(createNormalizeOpset(NormalizeOpsetOptions{targetOpset, true}));
  pm.addPass(createInferShapes());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createFoldConstants());
  FuseConvOptions conv;
  conv.target = target.str();
  pm.addPass(createFuseConv(conv));
  pm.addPass(createFuseAttention());
  pm.addPass(createFuseNorm());
  pm.addPass(createFuseGemm());
  pm.addPass(createFuseGelu());
  pm.addPass(createFuseBiasSoftmax());
  pm.addPass(createGroupElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void amk::registerAllPasses() {
  // MLIR's generic passes (canonicalize, cse, ...) go in AMK pipelines too.
  registerTransformsPasses();
  registerAMKPasses();
  PassPipelineRegistration<>(
      "amk-default",
      "The default AMK pipeline: canonicalize, then print a summary",
      buildDefaultPipeline);
  PassPipelineRegistration<GraphOptOptions>(
      "amk-graph-opt",
      "The graph passes in order: normalize the opset, infer shapes, "
      "canonicalize, fold constants, then every fusion (Conv gated by the "
      "target profile, attention, norms, Gemm, Gelu, bias+Softmax, "
      "elementwise groups), then canonicalize and CSE",
      [](OpPassManager &pm, const GraphOptOptions &o) {
        buildGraphOptPipeline(pm, o.target, o.targetOpset);
      });
}

void amk::registerAllDialects(DialectRegistry &registry) {
  registry.insert<onnx::ONNXDialect, fused::AMKDialect, task::AMKTaskDialect,
                  func::FuncDialect>();
}
