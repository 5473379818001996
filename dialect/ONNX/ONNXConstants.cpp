//===- ONNXConstants.cpp - Reading constants and broadcasting shapes ------===//
//
// Part of AMK. Helpers shared by the dialect's verifiers and
// canonicalization patterns and by AMK's passes.
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXDialect.h"

using namespace mlir;

namespace amk::onnx {

std::optional<double> getSplatValue(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return std::nullopt;
  if (auto f = c.getValueFloatAttr())
    return f.getValueAsDouble();
  if (auto i = c.getValueIntAttr())
    return static_cast<double>(i.getValue().getSExtValue());
  std::optional<double> first;
  auto same = [&](double x) {
    if (!first)
      first = x;
    return *first == x;
  };
  if (auto fs = c.getValueFloatsAttr()) {
    if (!llvm::all_of(fs.asArrayRef(), same))
      return std::nullopt;
    return first;
  }
  if (auto is = c.getValueIntsAttr()) {
    if (!llvm::all_of(is.asArrayRef(),
                      [&](int64_t x) { return same(double(x)); }))
      return std::nullopt;
    return first;
  }
  auto e = dyn_cast_or_null<ElementsAttr>(c.getValueAttr());
  if (!e || e.getNumElements() == 0)
    return std::nullopt;
  if (isa<FloatType>(e.getElementType())) {
    auto values = e.tryGetValues<APFloat>();
    if (!values || !llvm::all_of(*values, [&](const APFloat &f) {
          return same(f.convertToDouble());
        }))
      return std::nullopt;
    return first;
  }
  if (auto it = dyn_cast<IntegerType>(e.getElementType())) {
    auto values = e.tryGetValues<APInt>();
    bool zext = it.isUnsigned() || it.getWidth() == 1;
    // Each branch converted on its own: `zext ? u64 : i64` is a uint64_t
    // and turned -9 into 2^64 - 9.
    if (!values || !llvm::all_of(*values, [&](const APInt &i) {
          return same(zext ? static_cast<double>(i.getZExtValue())
                           : static_cast<double>(i.getSExtValue()));
        }))
      return std::nullopt;
    return first;
  }
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> getIntValues(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return std::nullopt;
  if (auto i = c.getValueIntAttr())
    return SmallVector<int64_t>{i.getValue().getSExtValue()};
  if (auto is = c.getValueIntsAttr())
    return SmallVector<int64_t>(is.asArrayRef());
  auto e = dyn_cast_or_null<ElementsAttr>(c.getValueAttr());
  if (!e || !isa<IntegerType>(e.getElementType()))
    return std::nullopt;
  auto values = e.tryGetValues<APInt>();
  if (!values)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &i : *values)
    out.push_back(i.getSExtValue());
  return out;
}

FailureOr<SmallVector<int64_t>>
broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes, std::string *why) {
  size_t rank = 0;
  for (ArrayRef<int64_t> s : shapes)
    rank = std::max(rank, s.size());
  // size[i]: the static size other than 1 seen at i (1: none yet).
  SmallVector<int64_t> size(rank, 1);
  SmallVector<bool> allStatic(rank, true);
  for (ArrayRef<int64_t> s : shapes) {
    size_t off = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t d = s[i];
      if (ShapedType::isDynamic(d)) {
        allStatic[off + i] = false;
        continue;
      }
      if (d == 1)
        continue;
      if (size[off + i] != 1 && size[off + i] != d) {
        if (why) {
          std::string shape = "[";
          for (size_t k = 0; k < s.size(); ++k)
            shape += (k ? "," : "") + (ShapedType::isDynamic(s[k])
                                           ? std::string("?")
                                           : std::to_string(s[k]));
          *why = "dimension " + std::to_string(i) + " of an operand of shape " +
                 shape + "] is " + std::to_string(d) +
                 " where another operand has " + std::to_string(size[off + i]);
        }
        return failure();
      }
      size[off + i] = d;
    }
  }
  for (size_t i = 0; i < rank; ++i)
    if (size[i] == 1 && !allStatic[i])
      size[i] = ShapedType::kDynamic;
  return size;
}

} // namespace amk::onnx
