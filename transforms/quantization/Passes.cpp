//===- Passes.cpp - The amk-quantize pipeline ------------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "transforms/quantization/Passes.h"

#include "transforms/fusion/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"


using namespace mlir;

namespace {
struct QuantizeOptions : public PassPipelineOptions<QuantizeOptions> {
  Option<amk::quant::Precision> precision{
      *this, "precision",
      llvm::cl::desc("fp32 (nothing), int8 (every Conv/Gemm/MatMul "
                     "quantized) or mixed (the sensitivity search keeps "
                     "nodes in float) [tune: fp32|int8|mixed]"),
      llvm::cl::init(amk::quant::Precision::FP32),
      llvm::cl::values(
          clEnumValN(amk::quant::Precision::FP32, "fp32", "float32 only"),
          clEnumValN(amk::quant::Precision::Int8, "int8",
                     "every Conv/Gemm/MatMul quantized"),
          clEnumValN(amk::quant::Precision::Dynamic, "dynamic",
                     "matrix products with int8 weights and activations "
                     "quantized at run time (amk-quantize-dynamic); no "
                     "calibration data"),
          clEnumValN(amk::quant::Precision::W8, "w8",
                     "weight-only: int8 weights per column, the "
                     "activations of products of 6 rows or more rounded "
                     "to bfloat16 (activation-bits); no calibration "
                     "data"),
          clEnumValN(amk::quant::Precision::W4, "w4",
                     "weight-only: uint4 weights with a zero point per "
                     "block of 32, a token's activations int8 "
                     "(activation-bits); no calibration data"),
          clEnumValN(amk::quant::Precision::Mixed, "mixed",
                     "int8 where the outputs' SQNR allows"))};
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
  Option<int64_t> activationBits{
      *this, "activation-bits",
      llvm::cl::desc("Weight-only products' activations (amk.wgemm "
                     "activation_bits): w4 with 8 quantizes a token's "
                     "activations to int8 per block (integer products); w8 "
                     "with 16 rounds those of products of 6 rows or more "
                     "to bfloat16 (bf16 units); 0 keeps them float; -1, "
                     "the default, is 8 for w4 and 16 for w8"),
      llvm::cl::init(-1)};
};
} // namespace

LogicalResult amk::buildQuantizePipeline(OpPassManager &pm,
                                         quant::Precision precision,
                                         llvm::StringRef dataDir,
                                         double sensitivityTarget, bool emulate,
                                         int64_t activationBits,
                                         std::string &error) {
  if (precision == quant::Precision::FP32)
    return success();
  if (precision == quant::Precision::Dynamic) {
    if (!dataDir.empty()) {
      error = "precision dynamic needs no data-dir: activations are "
              "quantized at run time";
      return failure();
    }
    pm.addPass(createQuantizeDynamic());
    pm.addPass(createCanonicalizerPass());
    return success();
  }
  if (precision == quant::Precision::W8 || precision == quant::Precision::W4) {
    if (!dataDir.empty()) {
      error = "precision " + stringify(precision).str() +
              " needs no data-dir: only the weights are quantized";
      return failure();
    }
    const bool w8 = precision == quant::Precision::W8;
    if (activationBits == -1)
      activationBits = w8 ? 16 : 8;
    if (activationBits != 0 && activationBits != (w8 ? 16 : 8)) {
      error = "activation-bits must be 0 or " + std::to_string(w8 ? 16 : 8) +
              " with precision " + stringify(precision).str() + ", not " +
              std::to_string(activationBits);
      return failure();
    }
    QuantizeWeightsOptions w;
    w.bits = precision == quant::Precision::W8 ? 8 : 4;
    // int4 with a zero point per block (ONNX Runtime's default): 16 levels
    // over [min, max] rather than a symmetric range that leaves one side
    // half empty. On the trained decoder it is what keeps 95% of the
    // greedy tokens (docs/quantization.md); the kernel pays nothing for
    // it (signed int4 carries a zero-point table too).
    w.symmetric = precision == quant::Precision::W8;
    pm.addPass(createQuantizeWeights(w));
    if (emulate) {
      // int8 activations meet int4 weights only (u4 x s8 products never
      // saturate); int8 weights take bf16 ones (docs/quantization.md).
      LowerQDQOptions lower;
      lower.activationBits = activationBits;
      pm.addPass(createLowerQDQ(lower));
    }
    pm.addPass(createCanonicalizerPass());
    return success();
  }
  if (dataDir.empty()) {
    error = "precision " + stringify(precision).str() +
            " needs data-dir: calibration samples like the inputs the model "
            "will see (docs/quantization.md); AMK does not calibrate on "
            "made-up data";
    return failure();
  }
  CalibrateOptions calib;
  calib.dataDir = dataDir.str();
  pm.addPass(createCalibrate(calib));
  InsertQDQOptions qdq;
  if (precision == quant::Precision::Mixed)
    qdq.sensitivityTarget = sensitivityTarget;
  pm.addPass(createInsertQDQ(qdq));
  if (emulate) {
    pm.addPass(createLowerQDQ());
    pm.addPass(createEmulateQDQ());
    pm.addPass(createGroupElementwise());
    pm.addPass(createCanonicalizerPass());
  }
  return success();
}

void amk::registerQuantizationPipelines() {
  // Registered by hand rather than with PassPipelineRegistration: a bad
  // precision or a missing data-dir must fail the parse with a message,
  // which the plain builder signature cannot do.
  mlir::registerPassPipeline(
      "amk-quantize",
      "Calibrate and insert Q/DQ pairs (amk-calibrate, amk-insert-qdq with "
      "the sensitivity search for mixed), then lower them for the runtime "
      "(amk-lower-qdq, amk-emulate-qdq); precision=dynamic quantizes the "
      "matrix products' weights and their activations at run time "
      "(amk-quantize-dynamic, no data); precision=w8|w4 quantizes only the "
      "weights (amk-quantize-weights, amk-lower-qdq to amk.wgemm, no data); "
      "precision=fp32 adds nothing",
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
                                         o.activationBits, error)))
          return errorHandler("amk-quantize: " + error);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(QuantizeOptions());
      });
}
