//===- ONNXDialect.cpp - The onnx dialect ---------------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace amk::onnx;

#include "dialect/ONNX/ONNXOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/ONNX/ONNXOpsTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/ONNX/ONNXOpsAttrs.cpp.inc"

void ONNXDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "dialect/ONNX/ONNXOps.cpp.inc"
      >();
}

void ONNXDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialect/ONNX/ONNXOpsTypes.cpp.inc"
      >();
}

void ONNXDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/ONNX/ONNXOpsAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// GenericOp
//===----------------------------------------------------------------------===//

/// Whether `attr` has one of the encodings of an ONNX attribute value.
static bool isONNXAttributeValue(Attribute attr) {
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getType().isInteger(64);
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getType().isF32();
  if (isa<StringAttr, DenseI64ArrayAttr, DenseF32ArrayAttr, ElementsAttr,
          TypeAttr>(attr))
    return true;
  if (auto arr = dyn_cast<ArrayAttr>(attr)) {
    // STRINGS, TENSORS or TYPE_PROTOS: one kind throughout.
    if (arr.empty())
      return true;
    Attribute first = arr[0];
    return llvm::all_of(arr, [&](Attribute a) {
      return (isa<StringAttr>(first) && isa<StringAttr>(a)) ||
             (isa<ElementsAttr>(first) && isa<ElementsAttr>(a)) ||
             (isa<TypeAttr>(first) && isa<TypeAttr>(a));
    });
  }
  return false;
}

LogicalResult GenericOp::verify() {
  if (getOpType().empty())
    return emitOpError("requires a non-empty op_type");
  if (getRegionNames().size() != getGraphs().size())
    return emitOpError() << "has " << getGraphs().size() << " regions but "
                         << getRegionNames().size() << " region names";
  for (NamedAttribute attr : getOnnxAttrs())
    if (!isONNXAttributeValue(attr.getValue()))
      return emitOpError() << "attribute '" << attr.getName().getValue()
                           << "' has no ONNX encoding: " << attr.getValue();
  for (Region &r : getGraphs())
    if (r.empty() || !isa<YieldOp>(r.front().getTerminator()))
      return emitOpError("graph regions must end with onnx.Yield");
  return success();
}

#define GET_OP_CLASSES
#include "dialect/ONNX/ONNXOps.cpp.inc"
