//===- AMKDialect.h - AMK's fused ops ---------------------------*- C++ -*-===//
//
// Part of AMK. See AMKOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMK_AMKDIALECT_H
#define AMK_DIALECT_AMK_AMKDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/AMK/AMKOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "dialect/AMK/AMKOps.h.inc"

namespace amk::fused {

/// Whether `name` is an epilogue activation amk.conv and amk.gemm accept.
bool isKnownActivation(llvm::StringRef name);

} // namespace amk::fused

#endif // AMK_DIALECT_AMK_AMKDIALECT_H
