//===- Passes.h - AMK quantization passes -----------------------*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_QUANTIZATION_PASSES_H
#define AMK_TRANSFORMS_QUANTIZATION_PASSES_H

#include "transforms/quantization/QuantOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace amk {

#define GEN_PASS_DECL
#include "transforms/quantization/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "transforms/quantization/Passes.h.inc"

/// The pipeline `amk-quantize{precision=int8 data-dir=DIR}`: calibration on
/// the samples in `dataDir`, Q/DQ insertion (mixed: with the sensitivity
/// search to `sensitivityTarget` dB) and, with `emulate`, the lowering of
/// the pairs for the runtime's float kernels. fp32 adds nothing; w4's
/// products take `activationBits` (amk-lower-qdq). Fails with `error` on a
/// bad precision or a missing data directory.
mlir::LogicalResult
buildQuantizePipeline(mlir::OpPassManager &pm, quant::Precision precision,
                      llvm::StringRef dataDir, double sensitivityTarget,
                      bool emulate, int64_t activationBits, std::string &error);

/// Registers the quantization passes and the `amk-quantize` pipeline.
void registerQuantizationPipelines();

} // namespace amk

#endif // AMK_TRANSFORMS_QUANTIZATION_PASSES_H
