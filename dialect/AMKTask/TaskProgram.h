//===- TaskProgram.h - Task program analyses --------------------*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PASSES_TASKPROGRAM_H
#define AMK_PASSES_TASKPROGRAM_H

#include "dialect/AMKTask/AMKTaskDialect.h"

namespace amk::task {

/// Checks that `program` cannot deadlock, race or access bytes outside its
/// buffers (see amk-validate-task-program); emits an error on the first
/// offending op otherwise.
mlir::LogicalResult validateProgram(ProgramOp program);

/// The runtime op code of an epilogue activation name (amk.conv/amk.gemm's
/// `activation`), or -1.
int activationCode(llvm::StringRef name);

} // namespace amk::task

#endif // AMK_PASSES_TASKPROGRAM_H
