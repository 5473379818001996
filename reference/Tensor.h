//===- Tensor.h - Values of the reference interpreter -----------*- C++ -*-===//
//
// Part of AMK. The reference interpreter's values: dense row-major tensors of
// every ONNX element type, sequences of values, and `none` (an omitted
// optional input, or an empty optional). Storage is shared and never
// mutated after a kernel returns, so passing a tensor through Identity,
// Reshape or a sequence costs nothing.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_REFERENCE_TENSOR_H
#define AMK_REFERENCE_TENSOR_H

#include "dialect/ONNX/ONNXTypes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace amk::ref {

using onnx::DataType;
using Shape = llvm::SmallVector<int64_t, 6>;

/// Number of elements of `shape`.
int64_t numElements(llvm::ArrayRef<int64_t> shape);
/// Row-major strides of `shape`, in elements.
Shape stridesOf(llvm::ArrayRef<int64_t> shape);
/// "[2,3,4]".
std::string shapeToString(llvm::ArrayRef<int64_t> shape);

/// Bytes one element occupies in memory (bool: 1; int4/uint4: 1, unpacked;
/// string: 0, strings are held apart).
size_t elementSize(DataType dt);

/// IEEE half and bfloat16 conversions (round to nearest even).
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bf16ToFloat(uint16_t b);
uint16_t floatToBf16(float f);

class Tensor {
public:
  Tensor() = default;
  /// A zero-initialized tensor.
  Tensor(DataType dt, llvm::ArrayRef<int64_t> shape);

  DataType dtype() const { return dt; }
  llvm::ArrayRef<int64_t> shape() const { return dims; }
  int64_t rank() const { return dims.size(); }
  int64_t dim(int64_t i) const { return dims[i < 0 ? i + rank() : i]; }
  int64_t numel() const { return n; }
  bool isString() const { return dt == DataType::STRING; }
  bool valid() const { return dt != DataType::UNDEFINED; }

  template <typename T> T *data() {
    return reinterpret_cast<T *>(buffer.get());
  }
  template <typename T> const T *data() const {
    return reinterpret_cast<const T *>(buffer.get());
  }
  char *raw() { return buffer.get(); }
  const char *raw() const { return buffer.get(); }
  size_t byteSize() const { return n * elementSize(dt); }
  std::vector<std::string> &strings() { return *strs; }
  const std::vector<std::string> &strings() const { return *strs; }

  /// The same bytes seen as another type of the same size.
  Tensor bitcast(DataType to) const;

  /// The same data with another shape (same element count).
  Tensor reshaped(llvm::ArrayRef<int64_t> newShape) const;

  /// Element `i` (flat index) converted to double / int64 (numeric types).
  double getDouble(int64_t i) const;
  int64_t getInt(int64_t i) const;
  /// Stores `v` into element `i`, converting to the element type.
  void setDouble(int64_t i, double v);
  void setInt(int64_t i, int64_t v);

  /// All elements as int64 (for shape-like inputs).
  std::vector<int64_t> toInt64Vector() const;

  static Tensor scalar(DataType dt, double v);
  static Tensor fromInt64(llvm::ArrayRef<int64_t> values,
                          llvm::ArrayRef<int64_t> shape);

  /// Conversions to and from MLIR elements attributes (constants, files).
  static llvm::Expected<Tensor> fromAttr(mlir::ElementsAttr attr);
  mlir::ElementsAttr toAttr(mlir::MLIRContext *ctx) const;

  /// Whether two tensors share type, shape and bytes.
  bool identical(const Tensor &other) const;

private:
  DataType dt = DataType::UNDEFINED;
  Shape dims;
  int64_t n = 0;
  std::shared_ptr<char[]> buffer;
  std::shared_ptr<std::vector<std::string>> strs;
};

/// A runtime value of the interpreter: a tensor, a sequence, or none.
class RValue {
public:
  enum class Kind { None, Tensor, Sequence };
  RValue() = default;
  RValue(Tensor t) : kind(Kind::Tensor), tensor(std::move(t)) {}
  static RValue sequence(std::vector<RValue> items) {
    RValue v;
    v.kind = Kind::Sequence;
    v.seq = std::make_shared<std::vector<RValue>>(std::move(items));
    return v;
  }
  static RValue none() { return RValue(); }

  bool isNone() const { return kind == Kind::None; }
  bool isTensor() const { return kind == Kind::Tensor; }
  bool isSequence() const { return kind == Kind::Sequence; }
  Kind getKind() const { return kind; }
  const Tensor &getTensor() const { return tensor; }
  Tensor &getTensor() { return tensor; }
  const std::vector<RValue> &getSequence() const { return *seq; }

  std::string describe() const;

private:
  Kind kind = Kind::None;
  Tensor tensor;
  std::shared_ptr<std::vector<RValue>> seq;
};

} // namespace amk::ref

#endif // AMK_REFERENCE_TENSOR_H
