//===- ONNXNames.cpp - ONNX node and tensor names on MLIR IR --------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace amk::onnx {

Location makeNodeLoc(MLIRContext *ctx, StringRef file, StringRef nodeName,
                     ArrayRef<std::string> outputs) {
  Builder b(ctx);
  SmallVector<Attribute> outs;
  for (const std::string &o : outputs)
    outs.push_back(b.getStringAttr(o));
  auto node =
      NodeAttr::get(ctx, b.getStringAttr(nodeName), b.getArrayAttr(outs));
  return FusedLoc::get(ctx, {FileLineColLoc::get(ctx, file, 0, 0)}, node);
}

Location makeInitializerLoc(MLIRContext *ctx, StringRef file, StringRef name) {
  auto init = InitializerAttr::get(ctx, StringAttr::get(ctx, name));
  return FusedLoc::get(ctx, {FileLineColLoc::get(ctx, file, 0, 0)}, init);
}

NodeAttr findNodeAttr(Location loc) {
  NodeAttr result;
  loc->walk([&](Location l) {
    if (auto fused = dyn_cast<FusedLoc>(l))
      if (auto node = dyn_cast_or_null<NodeAttr>(fused.getMetadata())) {
        result = node;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return result;
}

StringRef findInitializerName(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (auto init = dyn_cast_or_null<InitializerAttr>(fused.getMetadata()))
      return init.getName().getValue();
  return "";
}

StringRef getNodeName(Operation *op) {
  if (NodeAttr node = findNodeAttr(op->getLoc()))
    return node.getName().getValue();
  return "";
}

StringRef getTensorName(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto func = dyn_cast_or_null<func::FuncOp>(parent))
      if (auto name =
              func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kNameAttr))
        return name.getValue();
    if (auto nameLoc = dyn_cast<NameLoc>(arg.getLoc()))
      return nameLoc.getName().getValue();
    return "";
  }
  Operation *op = value.getDefiningOp();
  StringRef init = findInitializerName(op->getLoc());
  if (!init.empty())
    return init;
  // Only the op's own node names its results; a fused location from a
  // rewrite may hold several nodes, whose outputs no longer match.
  if (auto fused = dyn_cast<FusedLoc>(op->getLoc()))
    if (auto node = dyn_cast_or_null<NodeAttr>(fused.getMetadata())) {
      unsigned idx = cast<OpResult>(value).getResultNumber();
      if (idx < node.getOutputs().size())
        return cast<StringAttr>(node.getOutputs()[idx]).getValue();
    }
  return "";
}

std::string describeOp(Operation *op) {
  StringRef name = getNodeName(op);
  std::string opType = op->getName().stripDialect().str();
  std::string full = op->getName().getStringRef().str();
  if (auto generic = dyn_cast<GenericOp>(op)) {
    // A node without a typed op is named by its own domain and type.
    opType = generic.getDomain().empty() || generic.getDomain() == "ai.onnx"
                 ? generic.getOpType().str()
                 : (generic.getDomain() + "." + generic.getOpType()).str();
    full = opType;
  }
  if (name.empty())
    return "op '" + full + "'";
  return ("node '" + name + "' (" + opType + ")").str();
}

void attachONNXNodeNotes(MLIRContext *ctx) {
  ctx->getDiagEngine().registerHandler([](Diagnostic &diag) {
    NodeAttr node = findNodeAttr(diag.getLocation());
    if (!node)
      return failure();
    std::string outs;
    for (Attribute a : node.getOutputs()) {
      llvm::StringRef o = cast<StringAttr>(a).getValue();
      if (o.empty())
        continue;
      outs += (outs.empty() ? "'" : ", '") + o.str() + "'";
    }
    auto &note = diag.attachNote();
    if (!node.getName().getValue().empty())
      note << "in ONNX node '" << node.getName().getValue() << "'";
    else
      note << "in the unnamed ONNX node";
    if (!outs.empty())
      note << " producing " << outs;
    return failure(); // Let the printing handler print it, with the note.
  });
}

} // namespace amk::onnx
