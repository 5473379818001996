//===- ONNXNames.h - ONNX node and tensor names on MLIR IR ------*- C++ -*-===//
//
// Part of AMK. ONNX identifies nodes and tensors by name; MLIR by SSA value.
// AMK keeps the ONNX names in locations: an op's location is a FusedLoc
// whose metadata is `#onnx.node<name, [outputs]>` (or `#onnx.initializer`),
// so the names survive passes that preserve or fuse locations, show up in
// every diagnostic, and cost nothing in the printed IR unless asked for
// (`--mlir-print-debuginfo`). Graph inputs and outputs carry `onnx.name`
// argument/result attributes; subgraph inputs use NameLocs on block
// arguments.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_ONNX_ONNXNAMES_H
#define AMK_DIALECT_ONNX_ONNXNAMES_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <string>

namespace amk::onnx {

class NodeAttr;

/// Function argument/result attribute holding an ONNX graph input/output
/// name.
constexpr llvm::StringLiteral kNameAttr = "onnx.name";

/// Location of an op imported from node `nodeName` of `file`.
mlir::Location makeNodeLoc(mlir::MLIRContext *ctx, llvm::StringRef file,
                           llvm::StringRef nodeName,
                           llvm::ArrayRef<std::string> outputs);
/// Location of an `onnx.Constant` imported from an initializer.
mlir::Location makeInitializerLoc(mlir::MLIRContext *ctx, llvm::StringRef file,
                                  llvm::StringRef name);

/// The node attribute found in `loc` (depth-first), or null.
NodeAttr findNodeAttr(mlir::Location loc);
/// Name of the initializer `loc` came from, or empty.
llvm::StringRef findInitializerName(mlir::Location loc);

/// ONNX node name of `op`, or empty.
llvm::StringRef getNodeName(mlir::Operation *op);
/// ONNX name of `value`, or empty when it has none.
llvm::StringRef getTensorName(mlir::Value value);

/// "node 'conv1' (Conv)" for diagnostics; "op 'onnx.Conv'" without a name.
std::string describeOp(mlir::Operation *op);

/// Registers a diagnostic handler on `ctx` that attaches a note naming the
/// ONNX node (and its outputs) to every diagnostic whose location carries
/// one, then lets the previously registered handlers print it. Register it
/// after the printing handler (handlers run newest first).
void attachONNXNodeNotes(mlir::MLIRContext *ctx);

} // namespace amk::onnx

#endif // AMK_DIALECT_ONNX_ONNXNAMES_H
