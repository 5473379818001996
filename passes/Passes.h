//===- Passes.h - AMK passes and pipelines ----------------------*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PASSES_PASSES_H
#define AMK_PASSES_PASSES_H

#include "dialect/AMK/AMKDialect.h"
#include "dialect/AMKTask/AMKTaskDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace amk {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// The pipeline `amk-default`: what `amk-opt` runs on a model when the user
/// asks for the default (today: canonicalization, then the summary).
void buildDefaultPipeline(mlir::OpPassManager &pm);

/// The pipeline `amk-graph-opt{target=cpu target-opset=21}`: every graph
/// pass in the order that lets each fusion see the forms it matches.
void buildGraphOptPipeline(mlir::OpPassManager &pm, llvm::StringRef target,
                           int64_t targetOpset);

/// Parses a textual pipeline into `pm`: either anchored
/// (`builtin.module(a,b)`, as amk-opt's --pass-pipeline takes it) or a bare
/// list of module passes (`a,b`).
mlir::LogicalResult parsePipeline(llvm::StringRef text, mlir::PassManager &pm,
                                  llvm::raw_ostream &errors);

/// Parses `text` (as parsePipeline), runs it on `module` and verifies the
/// result; on failure `error` says which step failed (the passes' own
/// diagnostics go to the context's handler).
mlir::LogicalResult runPipeline(mlir::ModuleOp module, llvm::StringRef text,
                                std::string &error);

/// Registers every AMK pass and named pipeline with the global registry.
void registerAllPasses();

/// Registers every dialect AMK's passes and tools may create or read.
void registerAllDialects(mlir::DialectRegistry &registry);

} // namespace amk

#endif // AMK_PASSES_PASSES_H
