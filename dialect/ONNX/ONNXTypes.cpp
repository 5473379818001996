//===- ONNXTypes.cpp - ONNX data types and their MLIR types ---------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXTypes.h"
#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace amk::onnx {

Type getElementType(MLIRContext *ctx, int32_t dataType) {
  Builder b(ctx);
  switch (static_cast<DataType>(dataType)) {
  case DataType::FLOAT:
    return b.getF32Type();
  case DataType::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case DataType::INT8:
    return b.getIntegerType(8);
  case DataType::UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case DataType::INT16:
    return b.getIntegerType(16);
  case DataType::INT32:
    return b.getIntegerType(32);
  case DataType::INT64:
    return b.getIntegerType(64);
  case DataType::STRING:
    return StringType::get(ctx);
  case DataType::BOOL:
    return b.getI1Type();
  case DataType::FLOAT16:
    return b.getF16Type();
  case DataType::DOUBLE:
    return b.getF64Type();
  case DataType::UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case DataType::UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  case DataType::COMPLEX64:
    return ComplexType::get(b.getF32Type());
  case DataType::COMPLEX128:
    return ComplexType::get(b.getF64Type());
  case DataType::BFLOAT16:
    return b.getBF16Type();
  case DataType::FLOAT8E4M3FN:
    return Float8E4M3FNType::get(ctx);
  case DataType::FLOAT8E4M3FNUZ:
    return Float8E4M3FNUZType::get(ctx);
  case DataType::FLOAT8E5M2:
    return Float8E5M2Type::get(ctx);
  case DataType::FLOAT8E5M2FNUZ:
    return Float8E5M2FNUZType::get(ctx);
  case DataType::UINT4:
    return b.getIntegerType(4, /*isSigned=*/false);
  case DataType::INT4:
    return b.getIntegerType(4);
  case DataType::UNDEFINED:
    break;
  }
  return nullptr;
}

std::optional<DataType> getDataType(Type t) {
  if (!t)
    return std::nullopt;
  if (t.isF32())
    return DataType::FLOAT;
  if (t.isF64())
    return DataType::DOUBLE;
  if (t.isF16())
    return DataType::FLOAT16;
  if (t.isBF16())
    return DataType::BFLOAT16;
  if (isa<Float8E4M3FNType>(t))
    return DataType::FLOAT8E4M3FN;
  if (isa<Float8E4M3FNUZType>(t))
    return DataType::FLOAT8E4M3FNUZ;
  if (isa<Float8E5M2Type>(t))
    return DataType::FLOAT8E5M2;
  if (isa<Float8E5M2FNUZType>(t))
    return DataType::FLOAT8E5M2FNUZ;
  if (isa<StringType>(t))
    return DataType::STRING;
  if (auto c = dyn_cast<ComplexType>(t)) {
    if (c.getElementType().isF32())
      return DataType::COMPLEX64;
    if (c.getElementType().isF64())
      return DataType::COMPLEX128;
    return std::nullopt;
  }
  auto it = dyn_cast<IntegerType>(t);
  if (!it || it.isSigned())
    return std::nullopt;
  bool u = it.isUnsigned();
  switch (it.getWidth()) {
  case 1:
    return u ? std::nullopt : std::optional(DataType::BOOL);
  case 4:
    return u ? DataType::UINT4 : DataType::INT4;
  case 8:
    return u ? DataType::UINT8 : DataType::INT8;
  case 16:
    return u ? DataType::UINT16 : DataType::INT16;
  case 32:
    return u ? DataType::UINT32 : DataType::INT32;
  case 64:
    return u ? DataType::UINT64 : DataType::INT64;
  default:
    return std::nullopt;
  }
}

llvm::StringRef getDataTypeName(DataType dt) {
  switch (dt) {
  case DataType::FLOAT:
    return "float";
  case DataType::UINT8:
    return "uint8";
  case DataType::INT8:
    return "int8";
  case DataType::UINT16:
    return "uint16";
  case DataType::INT16:
    return "int16";
  case DataType::INT32:
    return "int32";
  case DataType::INT64:
    return "int64";
  case DataType::STRING:
    return "string";
  case DataType::BOOL:
    return "bool";
  case DataType::FLOAT16:
    return "float16";
  case DataType::DOUBLE:
    return "double";
  case DataType::UINT32:
    return "uint32";
  case DataType::UINT64:
    return "uint64";
  case DataType::COMPLEX64:
    return "complex64";
  case DataType::COMPLEX128:
    return "complex128";
  case DataType::BFLOAT16:
    return "bfloat16";
  case DataType::FLOAT8E4M3FN:
    return "float8e4m3fn";
  case DataType::FLOAT8E4M3FNUZ:
    return "float8e4m3fnuz";
  case DataType::FLOAT8E5M2:
    return "float8e5m2";
  case DataType::FLOAT8E5M2FNUZ:
    return "float8e5m2fnuz";
  case DataType::UINT4:
    return "uint4";
  case DataType::INT4:
    return "int4";
  case DataType::UNDEFINED:
    break;
  }
  return "undefined";
}

unsigned getDataTypeBitWidth(DataType dt) {
  switch (dt) {
  case DataType::BOOL:
  case DataType::UINT8:
  case DataType::INT8:
  case DataType::FLOAT8E4M3FN:
  case DataType::FLOAT8E4M3FNUZ:
  case DataType::FLOAT8E5M2:
  case DataType::FLOAT8E5M2FNUZ:
    return 8;
  case DataType::UINT16:
  case DataType::INT16:
  case DataType::FLOAT16:
  case DataType::BFLOAT16:
    return 16;
  case DataType::FLOAT:
  case DataType::INT32:
  case DataType::UINT32:
    return 32;
  case DataType::INT64:
  case DataType::UINT64:
  case DataType::DOUBLE:
  case DataType::COMPLEX64:
    return 64;
  case DataType::COMPLEX128:
    return 128;
  case DataType::UINT4:
  case DataType::INT4:
    return 4;
  case DataType::STRING:
  case DataType::UNDEFINED:
    break;
  }
  return 0;
}

} // namespace amk::onnx
