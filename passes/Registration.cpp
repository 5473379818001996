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

namespace {
// The options of the named pipelines. A `[tune: a|b|c]` tag at the end of
// a description puts the option in amk-tune's search space with those
// values, the first being the option's default (docs/tuning.md; a unit
// test checks that): the tuner reads the tags from the registry, so a new
// tunable knob is a new tagged option here or in Passes.td.
struct GraphOptOptions : public PassPipelineOptions<GraphOptOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Target profile for amk-fuse-conv"),
                             llvm::cl::init("cpu")};
  Option<int64_t> targetOpset{
      *this, "target-opset",
      llvm::cl::desc("Opset amk-normalize-opset converts to first "
                     "[tune: 21|17|13]"),
      llvm::cl::init(21)};
  Option<bool> fuseConv{*this, "fuse-conv",
                        llvm::cl::desc("Run amk-fuse-conv (BatchNorm folding, "
                                       "Add/activation epilogues) "
                                       "[tune: true|false]"),
                        llvm::cl::init(true)};
  Option<double> convDensityThreshold{
      *this, "conv-density-threshold",
      llvm::cl::desc("amk-fuse-conv's density-threshold (negative: the "
                     "target profile's) [tune: -1|0.5|0.9]"),
      llvm::cl::init(-1.0)};
  Option<bool> fuseAttention{
      *this, "fuse-attention",
      llvm::cl::desc("Run amk-fuse-attention [tune: true|false]"),
      llvm::cl::init(true)};
  Option<bool> fuseNorm{*this, "fuse-norm",
                        llvm::cl::desc("Run amk-fuse-norm [tune: true|false]"),
                        llvm::cl::init(true)};
  Option<bool> fuseGemm{*this, "fuse-gemm",
                        llvm::cl::desc("Run amk-fuse-gemm [tune: true|false]"),
                        llvm::cl::init(true)};
  Option<bool> fuseGelu{*this, "fuse-gelu",
                        llvm::cl::desc("Run amk-fuse-gelu [tune: true|false]"),
                        llvm::cl::init(true)};
  Option<bool> fuseBiasSoftmax{
      *this, "fuse-bias-softmax",
      llvm::cl::desc("Run amk-fuse-bias-softmax [tune: true|false]"),
      llvm::cl::init(true)};
  Option<bool> groupElementwise{
      *this, "group-elementwise",
      llvm::cl::desc("Run amk-group-elementwise [tune: true|false]"),
      llvm::cl::init(true)};
};

struct QuantizeOptions : public PassPipelineOptions<QuantizeOptions> {
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("fp32 (nothing), int8 (every Conv/Gemm/MatMul "
                     "quantized) or mixed (the sensitivity search keeps "
                     "nodes in float) [tune: fp32|int8|mixed]"),
      llvm::cl::init("fp32")};
  Option<std::string> dataDir{
      *this, "data-dir",
      llvm::cl::desc("Calibration samples (required for int8 and mixed)"),
      llvm::cl::init("")};
  Option<double> sensitivityTarget{
      *this, "sensitivity-target",
      llvm::cl::desc("mixed: SQNR (dB) of the outputs to reach "
                     "[tune: 40|30]"),
      llvm::cl::init(40.0)};
  Option<bool> emulate{
      *this, "emulate",
      llvm::cl::desc("Lower the Q/DQ pairs for the runtime's float kernels "
                     "(amk-emulate-qdq, amk-group-elementwise, "
                     "canonicalize); false keeps the QDQ graph"),
      llvm::cl::init(true)};
};
} // namespace

void amk::buildGraphOptPipeline(OpPassManager &pm, const GraphOptSettings &s) {
  pm.addPass(createNormalizeOpset(NormalizeOpsetOptions{s.targetOpset, true}));
  pm.addPass(createInferShapes());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createFoldConstants());
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
  if (s.fuseBiasSoftmax)
    pm.addPass(createFuseBiasSoftmax());
  if (s.groupElementwise)
    pm.addPass(createGroupElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

LogicalResult amk::buildQuantizePipeline(OpPassManager &pm,
                                         llvm::StringRef precision,
                                         llvm::StringRef dataDir,
                                         double sensitivityTarget, bool emulate,
                                         std::string &error) {
  if (precision == "fp32")
    return success();
  if (precision != "int8" && precision != "mixed") {
    error =
        "precision must be fp32, int8 or mixed, not '" + precision.str() + "'";
    return failure();
  }
  if (dataDir.empty()) {
    error = "precision " + precision.str() +
            " needs data-dir: calibration samples like the inputs the model "
            "will see (docs/quantization.md); AMK does not calibrate on "
            "made-up data";
    return failure();
  }
  CalibrateOptions calib;
  calib.dataDir = dataDir.str();
  pm.addPass(createCalibrate(calib));
  InsertQDQOptions qdq;
  if (precision == "mixed") {
    char db[32];
    std::snprintf(db, sizeof(db), "%g", sensitivityTarget);
    qdq.sensitivityTarget = db;
  }
  pm.addPass(createInsertQDQ(qdq));
  if (emulate) {
    pm.addPass(createEmulateQDQ());
    pm.addPass(createGroupElementwise());
    pm.addPass(createCanonicalizerPass());
  }
  return success();
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
        GraphOptSettings s;
        s.target = o.target;
        s.targetOpset = o.targetOpset;
        s.fuseConv = o.fuseConv;
        s.convDensityThreshold = o.convDensityThreshold;
        s.fuseAttention = o.fuseAttention;
        s.fuseNorm = o.fuseNorm;
        s.fuseGemm = o.fuseGemm;
        s.fuseGelu = o.fuseGelu;
        s.fuseBiasSoftmax = o.fuseBiasSoftmax;
        s.groupElementwise = o.groupElementwise;
        buildGraphOptPipeline(pm, s);
      });
  // Registered by hand rather than with PassPipelineRegistration: a bad
  // precision or a missing data-dir must fail the parse with a message,
  // which the plain builder signature cannot do.
  mlir::registerPassPipeline(
      "amk-quantize",
      "Calibrate and insert Q/DQ pairs (amk-calibrate, amk-insert-qdq with "
      "the sensitivity search for mixed), then lower them for the runtime "
      "(amk-emulate-qdq); precision=fp32 adds nothing",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        QuantizeOptions o;
        std::string parseErrors;
        llvm::raw_string_ostream os(parseErrors);
        if (failed(o.parseFromString(optionsText, os)))
          return errorHandler("amk-quantize: " + parseErrors);
        std::string error;
        if (failed(buildQuantizePipeline(pm, o.precision, o.dataDir,
                                         o.sensitivityTarget, o.emulate,
                                         error)))
          return errorHandler("amk-quantize: " + error);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(QuantizeOptions());
      });
}

void amk::registerAllDialects(DialectRegistry &registry) {
  registry.insert<onnx::ONNXDialect, fused::AMKDialect, task::AMKTaskDialect,
                  func::FuncDialect>();
}
