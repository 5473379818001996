//===- Passes.h - AMK conversion passes -------------------------*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_CONVERSION_PASSES_H
#define AMK_CONVERSION_PASSES_H

#include "dialect/AMKTask/AMKTaskDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace amk {

/// amk-schedule-megakernel's conv-kernel option.
enum class ConvKernel { Auto, Direct, Im2col, Winograd };
/// amk-schedule-megakernel's policy option.
enum class SchedulePolicy { EarliestFinish, RoundRobin };

#define GEN_PASS_DECL
#include "conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "conversion/Passes.h.inc"

/// `amk-lower-to-llvm{prefix embed-constants}`: amk-lower-task-to-llvm,
/// then MLIR's conversions of scf, arith, math and cf to the llvm dialect.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              const LowerTaskToLLVMOptions &options);

/// The unit attribute with which a driver marks an onnx.Constant whose
/// resource amk-schedule-megakernel may free once it packed it.
inline constexpr llvm::StringLiteral kReleaseAfterPackingAttr =
    "amk.release_after_packing";

/// Marks (kReleaseAfterPackingAttr) every constant whose resource only the
/// GEMM packing reads: each reference to it, in all of `modules`, is an
/// onnx.Constant feeding only the B operand of products that
/// amk-schedule-megakernel packs into one set of panels (packedWeightKey;
/// for amk.wgemm, B, its scale or zero point: wgemmPackedWeightKey), so
/// they (shared by name across programs) replace it everywhere. `modules` must
/// hold every reference to those weights in the context and must be past
/// the passes that could read them (only the schedule to come): a holder
/// left out would read freed data. Returns the bytes marked.
uint64_t
markWeightsReleasedAfterPacking(llvm::ArrayRef<mlir::ModuleOp> modules);

/// Registers amk-schedule-megakernel, amk-lower-task-to-llvm and the
/// `amk-lower-to-llvm` pipeline.
void registerConversionPasses();

/// Registers the dialects and LLVM IR translations the lowering needs.
void registerConversionDialects(mlir::DialectRegistry &registry);

} // namespace amk

#endif // AMK_CONVERSION_PASSES_H
