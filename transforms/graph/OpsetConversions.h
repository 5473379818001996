//===- OpsetConversions.h - amk-normalize-opset's converter -----*- C++ -*-===//
//
// Part of AMK. What the files of amk-normalize-opset share: the Converter
// that rewrites one op at a time between the forms of two opsets
// (OpsetConversions.cpp) and decomposes or recomposes Gelu and
// LayerNormalization where only one side has them
// (OpsetDecompositions.cpp). NormalizeOpset.cpp holds the pass.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_GRAPH_OPSETCONVERSIONS_H
#define AMK_TRANSFORMS_GRAPH_OPSETCONVERSIONS_H

#include "transforms/Utils/PassUtils.h"

#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXSchema.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OperationSupport.h"

#include <string>

namespace amk::opset {

using mlir::ArrayRef;
using mlir::Attribute;
using mlir::DenseF32ArrayAttr;
using mlir::DenseI64ArrayAttr;
using mlir::dyn_cast;
using mlir::dyn_cast_or_null;
using mlir::FloatAttr;
using mlir::InFlightDiagnostic;
using mlir::IntegerAttr;
using mlir::IntegerType;
using mlir::Location;
using mlir::LogicalResult;
using mlir::NamedAttrList;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::SmallVector;
using mlir::success;
using mlir::TensorType;
using mlir::Twine;
using mlir::Type;
using mlir::Value;
namespace func = mlir::func;

/// An op being rewritten: operands (one per slot), attributes and result
/// types, rebuilt at the end.
struct Edit {
  Operation *op;
  std::string name;
  SmallVector<Value> operands;
  NamedAttrList attrs;
  SmallVector<Type> results;
};

class Converter {
public:
  Converter(int64_t from, int64_t to) : from(from), to(to) {}

  /// Converts one op (no-op when its version in force does not change
  /// form); emits an error and fails when it cannot be expressed.
  LogicalResult convert(Operation *op);

  /// Drops attributes equal to their version-independent default.
  LogicalResult stripDefaults(Operation *op);

  /// Recomposes Gelu and LayerNormalization where the target has them.
  void recompose(func::FuncOp func);

  int64_t converted = 0, recomposed = 0, decomposed = 0;

private:
  int64_t from, to;
  OpBuilder *b = nullptr;

  /// Since-version of `opType` in force at `opset` (0: does not exist).
  static int64_t since(llvm::StringRef opType, int64_t opset) {
    const onnx::OpInfo *info = onnx::lookupOpInfo(opType);
    const onnx::VersionInfo *v = info ? info->selectVersion(opset) : nullptr;
    return v && !v->deprecated ? v->since : 0;
  }
  /// Whether the op's form at the source is "v or later", and at target.
  bool fromAtLeast(const Edit &e, int64_t v) const {
    return since(e.name, from) >= v;
  }
  bool toAtLeast(const Edit &e, int64_t v) const {
    return since(e.name, to) >= v;
  }

  InFlightDiagnostic refuse(Operation *op, const Twine &why) {
    return op->emitError() << onnx::describeOp(op) << " (opset " << from
                           << ") cannot be normalized to opset " << to << ": "
                           << why;
  }

  Value constInts(Location loc, ArrayRef<int64_t> v) {
    return amk::createConstant(*b, loc,
                               ref::Tensor::fromInt64(v, {int64_t(v.size())}));
  }
  Value constScalarLike(Location loc, double x, Value like) {
    auto t = dyn_cast<TensorType>(like.getType());
    auto dt = t ? onnx::getDataType(t.getElementType()) : std::nullopt;
    return amk::createConstant(
        *b, loc, ref::Tensor::scalar(dt ? *dt : ref::DataType::FLOAT, x));
  }
  Value none(Location loc) { return amk::getNoneValue(*b, loc); }

  /// Moves attribute `attr` into operand slot `slot` as an int64 tensor.
  void intsAttrToInput(Edit &e, llvm::StringRef attr, unsigned slot) {
    Attribute a = e.attrs.get(attr);
    if (!a)
      return;
    SmallVector<int64_t> v;
    if (auto arr = dyn_cast<DenseI64ArrayAttr>(a))
      v.assign(arr.asArrayRef().begin(), arr.asArrayRef().end());
    else if (auto i = dyn_cast<IntegerAttr>(a))
      v.push_back(i.getValue().getSExtValue());
    e.operands[slot] = constInts(e.op->getLoc(), v);
    e.attrs.erase(attr);
  }
  /// Moves a float-array attribute into operand slot `slot` as a tensor.
  void floatsAttrToInput(Edit &e, llvm::StringRef attr, unsigned slot) {
    auto a = dyn_cast_or_null<DenseF32ArrayAttr>(e.attrs.get(attr));
    if (!a)
      return;
    ref::Tensor t(ref::DataType::FLOAT, {int64_t(a.size())});
    llvm::copy(a.asArrayRef(), t.data<float>());
    e.operands[slot] = amk::createConstant(*b, e.op->getLoc(), t);
    e.attrs.erase(attr);
  }
  /// Moves a constant int64 operand into attribute `attr`.
  LogicalResult intsInputToAttr(Edit &e, unsigned slot, llvm::StringRef attr,
                                bool scalar = false) {
    Value v = e.operands[slot];
    if (amk::isNone(v))
      return success();
    auto c = onnx::getIntValues(v);
    if (!c)
      return refuse(e.op, "its '" + attr.str() +
                              "' input is not a constant, and the target "
                              "opset takes it as an attribute");
    if (scalar)
      e.attrs.set(attr, IntegerAttr::get(IntegerType::get(b->getContext(), 64),
                                         c->front()));
    else
      e.attrs.set(attr, b->getDenseI64ArrayAttr(*c));
    e.operands[slot] = none(e.op->getLoc());
    return success();
  }
  void floatAttrToInput(Edit &e, llvm::StringRef attr, unsigned slot,
                        Value like) {
    auto a = dyn_cast_or_null<FloatAttr>(e.attrs.get(attr));
    if (!a)
      return;
    e.operands[slot] =
        constScalarLike(e.op->getLoc(), a.getValueAsDouble(), like);
    e.attrs.erase(attr);
  }
  LogicalResult floatInputToAttr(Edit &e, unsigned slot, llvm::StringRef attr) {
    Value v = e.operands[slot];
    if (amk::isNone(v))
      return success();
    auto c = onnx::getSplatValue(v);
    if (!c)
      return refuse(e.op, "its '" + attr.str() +
                              "' input is not a constant, and the target "
                              "opset takes it as an attribute");
    e.attrs.set(attr, b->getF32FloatAttr(static_cast<float>(*c)));
    e.operands[slot] = none(e.op->getLoc());
    return success();
  }

  LogicalResult convertSoftmax(Edit &e, bool &replaced);
  LogicalResult convertResize(Edit &e);
  LogicalResult decomposeGelu(Operation *op);
  LogicalResult decomposeLayerNorm(Operation *op);
  Operation *rebuild(Edit &e);
};

} // namespace amk::opset

#endif // AMK_TRANSFORMS_GRAPH_OPSETCONVERSIONS_H
