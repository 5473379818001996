//===- ONNXDialect.h - The onnx dialect -------------------------*- C++ -*-===//
//
// Part of AMK. Include this header to use the onnx dialect: its types,
// attributes, typed ops and the schema helpers they rely on.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_ONNX_ONNXDIALECT_H
#define AMK_DIALECT_ONNX_ONNXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/ONNX/ONNXSchema.h"
#include "dialect/ONNX/ONNXTypes.h"

#include "dialect/ONNX/ONNXOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/ONNX/ONNXOpsTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/ONNX/ONNXOpsAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialect/ONNX/ONNXOps.h.inc"

namespace amk::onnx {

/// The value of `v` when it is an onnx.Constant (any value form) whose
/// elements are all equal, as a double; nullopt otherwise. Reads the
/// attribute in place (no copy of the tensor).
std::optional<double> getSplatValue(mlir::Value v);

/// The elements of `v` when it is an integer onnx.Constant (axes, shapes,
/// permutations); nullopt otherwise.
std::optional<llvm::SmallVector<int64_t>> getIntValues(mlir::Value v);

/// Numpy (multidirectional) broadcasting of shapes that may have dynamic
/// dimensions: a result dimension is static when some operand has a static
/// size other than 1 there, or when every operand's size there is static;
/// otherwise it is dynamic. Fails, describing the conflict in `why`, when
/// two static sizes other than 1 differ.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                std::string *why = nullptr);

} // namespace amk::onnx

#endif // AMK_DIALECT_ONNX_ONNXDIALECT_H
