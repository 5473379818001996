//===- ONNXTypes.h - ONNX data types and their MLIR types -------*- C++ -*-===//
//
// Part of AMK. The mapping between ONNX element data types (the values of
// TensorProto.DataType) and MLIR element types. Signed integers are
// signless (`i8`), unsigned ones are `ui8`, bool is `i1`, string is
// `!onnx.string`. Kept free of protobuf so every layer can use it.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_ONNX_ONNXTYPES_H
#define AMK_DIALECT_ONNX_ONNXTYPES_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace amk::onnx {

/// Values of onnx.TensorProto.DataType.
enum class DataType : int32_t {
  UNDEFINED = 0,
  FLOAT = 1,
  UINT8 = 2,
  INT8 = 3,
  UINT16 = 4,
  INT16 = 5,
  INT32 = 6,
  INT64 = 7,
  STRING = 8,
  BOOL = 9,
  FLOAT16 = 10,
  DOUBLE = 11,
  UINT32 = 12,
  UINT64 = 13,
  COMPLEX64 = 14,
  COMPLEX128 = 15,
  BFLOAT16 = 16,
  FLOAT8E4M3FN = 17,
  FLOAT8E4M3FNUZ = 18,
  FLOAT8E5M2 = 19,
  FLOAT8E5M2FNUZ = 20,
  UINT4 = 21,
  INT4 = 22,
};

/// MLIR element type of an ONNX data type; null for UNDEFINED and for
/// values outside the enum.
mlir::Type getElementType(mlir::MLIRContext *ctx, int32_t dataType);
/// ONNX data type of an MLIR element type.
std::optional<DataType> getDataType(mlir::Type elementType);
/// The name ONNX type strings use: "float", "int64", "bfloat16"...
llvm::StringRef getDataTypeName(DataType dataType);
/// Size in bits of one element (1 byte for bool, 0 for string).
unsigned getDataTypeBitWidth(DataType dataType);

} // namespace amk::onnx

#endif // AMK_DIALECT_ONNX_ONNXTYPES_H
