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

#endif // AMK_DIALECT_ONNX_ONNXDIALECT_H
