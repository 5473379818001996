//===- AMKTaskDialect.h - The task program dialect --------------*- C++ -*-===//
//
// Part of AMK. See AMKTaskOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMKTASK_AMKTASKDIALECT_H
#define AMK_DIALECT_AMKTASK_AMKTASKDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#include "dialect/AMKTask/AMKTaskEnums.h.inc"
#include "dialect/AMKTask/AMKTaskOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/AMKTask/AMKTaskAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialect/AMKTask/AMKTaskOps.h.inc"

namespace amk::task {

/// The runtime kernel kind (amk_rt_kernel_kind) spelled `name`, or -1.
int kernelKindFromName(llvm::StringRef name);

/// The runtime's dtype code (amk_rt_dtype) for an element type a buffer may
/// have, or -1 when the runtime has none.
int64_t runtimeDtype(mlir::Type elementType);

/// The dialect spelling of runtime kernel kind `kind`, or "unknown".
llvm::StringRef kernelKindName(int kind);

/// One access: `rows` rows of `rowBytes` bytes, `stride` bytes apart,
/// starting `offset` bytes into buffer `buffer`.
struct Access {
  int64_t buffer, offset, rowBytes, stride, rows;
  int64_t end() const { return offset + (rows - 1) * stride + rowBytes; }
};

/// Whether two accesses (already in one address space) share a byte.
/// Exact for equal strides, conservative (byte hull) otherwise.
bool accessesOverlap(int64_t baseA, const Access &a, int64_t baseB,
                     const Access &b);

/// About how many bytes two accesses share (0 when accessesOverlap says
/// none): exact for spans, for rows against a span and for rows of one
/// stride; the byte hull's overlap times the sparser access's density for
/// rows of two strides. A cost estimate, not a dependency test.
int64_t accessesOverlapBytes(int64_t baseA, const Access &a, int64_t baseB,
                             const Access &b);

} // namespace amk::task

#endif // AMK_DIALECT_AMKTASK_AMKTASKDIALECT_H
