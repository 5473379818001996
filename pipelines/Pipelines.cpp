//===- Pipelines.cpp - AMK pipelines, passes and dialects -----------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "pipelines/Pipelines.h"

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

std::optional<std::pair<std::string, std::string>>
amk::splitSchedule(MLIRContext *ctx, llvm::StringRef text) {
  PassManager pm(ctx);
  std::string ignored;
  llvm::raw_string_ostream os(ignored);
  if (failed(parsePipeline(text, pm, os)) || pm.size() == 0)
    return std::nullopt;
  SmallVector<Pass *> passes;
  for (Pass &p : pm.getPasses())
    passes.push_back(&p);
  if (passes.back()->getArgument() != "amk-schedule-megakernel")
    return std::nullopt;
  auto print = [](ArrayRef<Pass *> list) {
    std::string out = "builtin.module(";
    llvm::raw_string_ostream s(out);
    llvm::interleave(
        list, s, [&](Pass *p) { p->printAsTextualPipeline(s); }, ",");
    return out + ")";
  };
  return std::make_pair(print(ArrayRef<Pass *>(passes).drop_back()),
                        print(ArrayRef<Pass *>(passes).take_back()));
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
  bool weightOnly = o.precision == "w8" || o.precision == "w4";
  if (o.precision != "fp32" && o.precision != "int8" &&
      o.precision != "mixed" && o.precision != "dynamic" && !weightOnly)
    return fail("--precision must be fp32, int8, mixed, dynamic, w8 or w4, "
                "not '" +
                o.precision + "'");
  std::string graph = "amk-graph-opt{target=" + o.target + "}";
  std::string schedule = o.schedule ? ",amk-schedule-megakernel{workers=" +
                                          std::to_string(o.workers) + "}"
                                    : std::string();
  if (o.precision == "fp32" || o.precision == "dynamic" || weightOnly) {
    if (!o.calibrationData.empty())
      return fail(
          "--calibration-data is only used with --precision int8 or mixed");
    // Dynamic and weight-only quantization need no data: activations are
    // quantized at run time or not at all.
    if (o.precision != "fp32")
      return "builtin.module(" + graph + ",amk-quantize{precision=" +
             o.precision + "}" + schedule + ")";
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
  // One quantization pipeline for the tools and the tuner: amk-quantize.
  std::string quant = "amk-quantize{precision=" + o.precision + " data-dir=\"" +
                      std::string(dir) + "\"";
  if (o.precision == "mixed") {
    char db[32];
    std::snprintf(db, sizeof(db), "%g", o.sensitivityTarget);
    quant += std::string(" sensitivity-target=") + db;
  }
  if (!o.schedule)
    quant += " emulate=false";
  return "builtin.module(" + graph + "," + quant + "}" + schedule + ")";
}


void amk::buildGraphOptPipeline(OpPassManager &pm, const GraphOptOptions &s) {
  pm.addPass(createNormalizeOpset(NormalizeOpsetOptions{s.targetOpset, true}));
  pm.addPass(createInferShapes());
  // Before canonicalize: it removes the cast pairs between widened ops.
  pm.addPass(createWidenFloat());
  pm.addPass(createDecomposeOps());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createFoldConstants());
  pm.addPass(createSpeculateIf());
  if (s.fuseConv) {
    FuseConvOptions conv;
    conv.target = s.target;
    conv.densityThreshold = s.convDensityThreshold;
    pm.addPass(createFuseConv(conv));
  }
  if (s.fuseAttention)
    pm.addPass(createFuseAttention());
  if (s.fuseNorm)
    pm.addPass(createFuseNorm());
  if (s.fuseGemm)
    pm.addPass(createFuseGemm());
  if (s.fuseGelu)
    pm.addPass(createFuseGelu());
  if (s.fuseRope)
    pm.addPass(createFuseRope());
  if (s.fuseBiasSoftmax)
    pm.addPass(createFuseBiasSoftmax());
  if (s.lowerQDQ) {
    pm.addPass(createLowerQDQ());
    pm.addPass(createEmulateQDQ());
  }
  if (s.groupElementwise)
    pm.addPass(createGroupElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void amk::registerAllPasses() {
  // MLIR's generic passes (canonicalize, cse, ...) go in AMK pipelines too.
  registerTransformsPasses();
  registerAMKGraphPasses();
  registerAMKFusionPasses();
  registerAMKQuantizationPasses();
  registerAMKTaskPasses();
  registerConversionPasses();
  PassPipelineRegistration<>(
      "amk-default",
      "The default AMK pipeline: canonicalize, then print a summary",
      buildDefaultPipeline);
  PassPipelineRegistration<GraphOptOptions>(
      "amk-graph-opt",
      "The graph passes in order: normalize the opset, infer shapes, "
      "widen float16/bfloat16 to float32, decompose DFT/STFT/MVN and "
      "non-adjacent reductions, canonicalize, fold constants, then every "
      "fusion (Conv gated by the "
      "target profile, attention, norms, Gemm, Gelu, RoPE, bias+Softmax, "
      "elementwise groups), then canonicalize and CSE",
      buildGraphOptPipeline);
  registerQuantizationPipelines();
}

void amk::registerAllDialects(DialectRegistry &registry) {
  registry.insert<onnx::ONNXDialect, fused::AMKDialect, task::AMKTaskDialect,
                  func::FuncDialect>();
}
