//===- SymbolicShapes.h - amk-infer-shapes' symbolic rules ------*- C++ -*-===//
//
// Part of AMK. The shapes of values, and the values of small integer
// tensors (shape arithmetic), as symbolic expressions (SymbolicExpr.h).
// Rules cover the op families models are built from; the pass falls back
// to evaluating an op's reference kernel where no rule applies.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_GRAPH_SYMBOLICSHAPES_H
#define AMK_TRANSFORMS_GRAPH_SYMBOLICSHAPES_H

#include "transforms/graph/SymbolicExpr.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace amk::sym {

using Dims = llvm::SmallVector<Dim, 4>;

/// What a rule says of one result: its dimensions (nullopt: rank unknown)
/// and element type (null: keep the IR's).
struct ResultShape {
  std::optional<Dims> dims;
  mlir::Type elementType;
};

class SymbolicShapes {
public:
  /// Seeds a graph input: named dimensions become symbols, unnamed
  /// dynamic ones anonymous symbols unique to the input and dimension.
  void seedArgument(mlir::Value arg, llvm::ArrayRef<llvm::StringRef> names,
                    llvm::StringRef inputName);

  /// The rule for `op`'s results; nullopt when none applies.
  std::optional<llvm::SmallVector<ResultShape>> infer(mlir::Operation *op);

  /// Records `op`'s results after the pass settled their types: the
  /// dimensions (the rule's, where the type has no static size) and, for
  /// small integer results, their element values.
  void record(mlir::Operation *op,
              const std::optional<llvm::SmallVector<ResultShape>> &rule);

  /// Drops what is known of a value about to be erased (its storage may
  /// be reused by a value created later).
  void forget(mlir::Value v) {
    dims.erase(v);
    ints.erase(v);
  }

  /// What is known of a value's dimensions; nullopt when its rank is not.
  std::optional<Dims> dimsOf(mlir::Value v) const;
  /// The element values of a small integer tensor (rank 0 or 1).
  std::optional<Dims> intsOf(mlir::Value v) const;

private:
  std::optional<llvm::SmallVector<ResultShape>> inferShape(mlir::Operation *op);
  std::optional<llvm::SmallVector<ResultShape>> inferFused(mlir::Operation *op);
  std::optional<Dims> computeInts(mlir::Operation *op);

  llvm::DenseMap<mlir::Value, Dims> dims;
  llvm::DenseMap<mlir::Value, Dims> ints;
};

/// Helpers the rules and the value tracking share.
namespace detail {
/// A Slice end at or beyond this means "to the end" (exporters write
/// INT64_MAX, INT32_MAX or 2^31-1).
constexpr int64_t kSliceToEnd = int64_t(1) << 30;
std::optional<int64_t> attrInt(mlir::Operation *op, llvm::StringRef name);
std::optional<llvm::SmallVector<int64_t>> attrInts(mlir::Operation *op,
                                                   llvm::StringRef name);
mlir::Type elementOf(mlir::Value v);
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);
Dim product(llvm::ArrayRef<Dim> dims);
bool nonNegative(const Dim &d);
std::optional<Dims> broadcast(llvm::ArrayRef<Dims> shapes);
int64_t sliceLength(int64_t n, int64_t start, int64_t end, int64_t step);
Dim sliceDim(const Dim &d, const Dim &start, const Dim &end, int64_t step);
ResultShape shaped(std::optional<Dims> dims, mlir::Type elt = mlir::Type());
std::optional<llvm::SmallVector<int64_t>>
constants(const std::optional<Dims> &values);
} // namespace detail

} // namespace amk::sym

#endif // AMK_TRANSFORMS_GRAPH_SYMBOLICSHAPES_H
