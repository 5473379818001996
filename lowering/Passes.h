//===- Passes.h - AMK lowering passes ---------------------------*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LOWERING_PASSES_H
#define AMK_LOWERING_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace amk {

#define GEN_PASS_DECL
#include "lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/Passes.h.inc"

/// `amk-lower-to-llvm{prefix embed-constants}`: amk-lower-task-to-llvm,
/// then MLIR's conversions of scf, arith, math and cf to the llvm dialect.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              const LowerTaskToLLVMOptions &options);

/// Registers the lowering passes and the `amk-lower-to-llvm` pipeline.
void registerLoweringPasses();

/// Registers the dialects and LLVM IR translations the lowering needs.
void registerLoweringDialects(mlir::DialectRegistry &registry);

} // namespace amk

#endif // AMK_LOWERING_PASSES_H
