//===- ONNXTensor.h - TensorProto <-> MLIR elements attributes --*- C++ -*-===//
//
// Part of AMK. Converts ONNX TensorProto values (initializers, Constant
// values, tensor attributes, .pb input files) to MLIR ElementsAttr and back,
// checking every size the file claims against the bytes it holds, and
// resolving external data inside the model's directory only.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSLATE_ONNXTENSOR_H
#define AMK_TRANSLATE_ONNXTENSOR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

#include <string>

namespace onnx {
class TensorProto;
class TensorShapeProto;
} // namespace onnx

namespace amk {

struct TensorImportOptions {
  /// Directory external data is resolved in; empty refuses external data.
  std::string baseDir;
  /// Tensors larger than this many bytes become dense_resource blobs.
  size_t resourceThreshold = 1024;
  /// Name of the blob (usually the tensor name).
  std::string blobName = "tensor";
  int64_t maxElements = int64_t(1) << 40;
};

/// Number of elements of `dims`, or an error when a dimension is negative
/// or the product exceeds `maxElements`.
llvm::Expected<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> dims,
                                           int64_t maxElements);

/// Converts `tensor` to an ElementsAttr. Raw data is moved out of `tensor`
/// into the blob when it becomes a resource (no copy), so `tensor` is left
/// without its payload.
llvm::Expected<mlir::ElementsAttr>
convertTensorProto(::onnx::TensorProto &tensor, mlir::MLIRContext *ctx,
                   const TensorImportOptions &options);

/// Fills `tensor` (dims, data_type, raw_data or string_data) from `attr`.
llvm::Error exportElementsAttr(mlir::ElementsAttr attr,
                               ::onnx::TensorProto &tensor);

/// An inline elements attribute from raw bytes in ONNX layout; checks that
/// the size matches the type.
llvm::Expected<mlir::ElementsAttr> elementsFromRaw(mlir::RankedTensorType type,
                                                   llvm::StringRef raw);

/// Raw little-endian bytes of a numeric ElementsAttr in ONNX layout (bool:
/// one byte per element; int4: two per byte, low nibble first).
llvm::Expected<std::string> getRawBytes(mlir::ElementsAttr attr);

} // namespace amk

#endif // AMK_TRANSLATE_ONNXTENSOR_H
