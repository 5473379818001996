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

/// Registers amk-schedule-megakernel, amk-lower-task-to-llvm and the
/// `amk-lower-to-llvm` pipeline.
void registerConversionPasses();

/// Registers the dialects and LLVM IR translations the lowering needs.
void registerConversionDialects(mlir::DialectRegistry &registry);

} // namespace amk

#endif // AMK_CONVERSION_PASSES_H
