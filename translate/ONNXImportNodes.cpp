//===- ONNXImportNodes.cpp - Nodes and their attributes -------------------===//
//
// Part of AMK. A node of a modeled ai.onnx operator becomes its typed op,
// checked against the operator's version in force (inputs, outputs,
// attributes and their kinds); any other node becomes an onnx.Generic that
// keeps what the model says.
//
//===----------------------------------------------------------------------===//

#include "translate/ONNXImporter.h"
#include "translate/ONNXTensor.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include <onnx/onnx_pb.h>

#include <cstdint>

using namespace mlir;

namespace amk::importer {

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

static std::optional<AttrKind> protoAttrKind(const ::onnx::AttributeProto &a) {
  using P = ::onnx::AttributeProto;
  switch (a.type()) {
  case P::FLOAT:
    return AttrKind::FLOAT;
  case P::INT:
    return AttrKind::INT;
  case P::STRING:
    return AttrKind::STRING;
  case P::TENSOR:
    return AttrKind::TENSOR;
  case P::GRAPH:
    return AttrKind::GRAPH;
  case P::SPARSE_TENSOR:
    return AttrKind::SPARSE_TENSOR;
  case P::TYPE_PROTO:
    return AttrKind::TYPE_PROTO;
  case P::FLOATS:
    return AttrKind::FLOATS;
  case P::INTS:
    return AttrKind::INTS;
  case P::STRINGS:
    return AttrKind::STRINGS;
  case P::TENSORS:
    return AttrKind::TENSORS;
  case P::GRAPHS:
    return AttrKind::GRAPHS;
  case P::SPARSE_TENSORS:
    return AttrKind::SPARSE_TENSORS;
  case P::TYPE_PROTOS:
    return AttrKind::TYPE_PROTOS;
  default:
    return std::nullopt;
  }
}

FailureOr<Attribute>
ModelImporter::convertAttribute(::onnx::AttributeProto &attr,
                                const ::onnx::NodeProto &node) {
  auto kind = protoAttrKind(attr);
  std::string what = nodeDesc(node) + " attribute '" + attr.name() + "'";
  if (!kind)
    return fail(fileLoc, what, " has no or an unknown type (",
                static_cast<int>(attr.type()), ")");
  switch (*kind) {
  case AttrKind::FLOAT:
    return Attribute(builder.getF32FloatAttr(attr.f()));
  case AttrKind::INT:
    return Attribute(builder.getI64IntegerAttr(attr.i()));
  case AttrKind::STRING:
    return Attribute(builder.getStringAttr(attr.s()));
  case AttrKind::FLOATS:
    return Attribute(builder.getDenseF32ArrayAttr(
        SmallVector<float>(attr.floats().begin(), attr.floats().end())));
  case AttrKind::INTS:
    return Attribute(builder.getDenseI64ArrayAttr(
        SmallVector<int64_t>(attr.ints().begin(), attr.ints().end())));
  case AttrKind::STRINGS: {
    SmallVector<Attribute> strs;
    for (const std::string &s : attr.strings())
      strs.push_back(builder.getStringAttr(s));
    return Attribute(builder.getArrayAttr(strs));
  }
  case AttrKind::TENSOR: {
    auto t = convertTensor(
        *attr.mutable_t(), what,
        node.name().empty() ? attr.name() : node.name() + "." + attr.name());
    if (failed(t))
      return failure();
    return Attribute(*t);
  }
  case AttrKind::TENSORS: {
    SmallVector<Attribute> ts;
    for (auto &t : *attr.mutable_tensors()) {
      auto a = convertTensor(t, what, attr.name());
      if (failed(a))
        return failure();
      ts.push_back(*a);
    }
    return Attribute(builder.getArrayAttr(ts));
  }
  case AttrKind::TYPE_PROTO: {
    auto t = convertType(attr.tp(), what);
    if (failed(t))
      return failure();
    return Attribute(TypeAttr::get(*t));
  }
  case AttrKind::TYPE_PROTOS: {
    SmallVector<Attribute> ts;
    for (const auto &tp : attr.type_protos()) {
      auto t = convertType(tp, what);
      if (failed(t))
        return failure();
      ts.push_back(TypeAttr::get(*t));
    }
    return Attribute(builder.getArrayAttr(ts));
  }
  case AttrKind::SPARSE_TENSOR: {
    auto &sp = *attr.mutable_sparse_tensor();
    SmallVector<int64_t> dims(sp.dims().begin(), sp.dims().end());
    auto n = checkedNumElements(dims, options.maxElements);
    if (!n)
      return fail(fileLoc, what, ": ", llvm::toString(n.takeError()));
    auto values = convertTensor(*sp.mutable_values(), what, "");
    auto indices = convertTensor(*sp.mutable_indices(), what, "");
    if (failed(values) || failed(indices))
      return failure();
    auto vt = cast<ShapedType>(values->getType());
    auto it = cast<ShapedType>(indices->getType());
    int64_t nnz = vt.getRank() == 1 ? vt.getDimSize(0) : -1;
    auto idxDense = dyn_cast<DenseElementsAttr>(*indices);
    auto valDense = dyn_cast<DenseElementsAttr>(*values);
    if (nnz < 0 || !idxDense || !valDense || !it.getElementType().isInteger(64))
      return fail(fileLoc, what,
                  ": sparse tensor needs 1-D values and int64 indices");
    // ONNX allows [NNZ] linearized or [NNZ, rank] indices; MLIR wants the
    // latter.
    SmallVector<int64_t> coords;
    auto raw = llvm::to_vector(idxDense.getValues<int64_t>());
    int64_t rank = dims.size();
    if (it.getRank() == 1 && it.getDimSize(0) == nnz) {
      for (int64_t lin : raw) {
        SmallVector<int64_t> c(rank);
        for (int64_t d = rank - 1; d >= 0; --d) {
          c[d] = dims[d] ? lin % dims[d] : 0;
          lin = dims[d] ? lin / dims[d] : 0;
        }
        coords.append(c);
      }
    } else if (it.getRank() == 2 && it.getDimSize(0) == nnz &&
               it.getDimSize(1) == rank) {
      coords = raw;
    } else {
      return fail(fileLoc, what, ": sparse indices have an invalid shape");
    }
    for (size_t i = 0; i < coords.size(); ++i)
      if (coords[i] < 0 || coords[i] >= dims[i % rank])
        return fail(fileLoc, what, ": sparse index out of bounds"), failure();
    auto idxType = RankedTensorType::get({nnz, rank}, builder.getI64Type());
    auto idxAttr = DenseIntElementsAttr::get(idxType, coords);
    auto type = RankedTensorType::get(dims, vt.getElementType());
    return Attribute(SparseElementsAttr::get(type, idxAttr, valDense));
  }
  case AttrKind::GRAPH:
  case AttrKind::GRAPHS:
  case AttrKind::SPARSE_TENSORS:
    break;
  }
  return fail(fileLoc, what, ": ", onnx::stringifyAttrKind(*kind).str(),
              " attributes are not supported");
}

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

Type ModelImporter::fallbackResultType(const VersionInfo *v, const OpInfo *info,
                                       unsigned slot,
                                       ArrayRef<Value> operands) {
  Type unknown = onnx::UnknownType::get(ctx);
  if (!v)
    return unknown;
  const onnx::ParamInfo *p = v->findOutputForSlot(slot);
  if (!p)
    return unknown;
  llvm::StringRef param = p->type;
  // A fixed type: tensor(int64) and friends.
  if (param.consume_front("tensor(") && param.consume_back(")")) {
    for (int32_t dt = 1; dt <= 22; ++dt)
      if (onnx::getDataTypeName(static_cast<onnx::DataType>(dt)) == param)
        return UnrankedTensorType::get(onnx::getElementType(ctx, dt));
    return unknown;
  }
  // The type of an input bound to the same parameter.
  for (const onnx::ParamInfo &in : v->inputs.get()) {
    if (llvm::StringRef(in.type) != p->type || in.slot >= operands.size())
      continue;
    Type t = operands[in.slot].getType();
    if (auto ranked = dyn_cast<TensorType>(t))
      return UnrankedTensorType::get(ranked.getElementType());
    if (!isa<NoneType>(t))
      return t;
  }
  return unknown;
}

LogicalResult ModelImporter::importNode(::onnx::NodeProto &node, Scope &scope,
                                        unsigned depth) {
  std::string domain = node.domain().empty() ? "ai.onnx" : node.domain();
  if (!opsets.count(domain))
    return fail(fileLoc, nodeDesc(node), ": domain '", domain,
                "' is not in the model's opset_import");
  int64_t opset = opsets[domain];
  SmallVector<std::string> outNames(node.output().begin(), node.output().end());
  Location loc = onnx::makeNodeLoc(ctx, locFile, node.name(), outNames);

  const OpInfo *info = nullptr;
  const VersionInfo *v = nullptr;
  bool typed = false;
  if (domain == "ai.onnx") {
    info = onnx::lookupOpInfo(node.op_type());
    if (!info)
      return fail(loc, nodeDesc(node), ": unknown operator '", node.op_type(),
                  "' in domain ai.onnx");
    if (!onnx::isUntypedVersion(node.op_type(), opset)) {
      v = info->selectVersion(opset);
      if (!v && opset < onnx::kMinOpset)
        return fail(loc, nodeDesc(node), ": the version of ", node.op_type(),
                    " in force at opset ", opset,
                    " is not supported; AMK models the operator versions "
                    "live in opsets ",
                    onnx::kMinOpset, "-", onnx::kMaxOpset,
                    " (convert the model to opset ", onnx::kMinOpset,
                    " or newer)");
      if (!v)
        return fail(loc, nodeDesc(node), ": operator ", node.op_type(),
                    " does not exist at opset ", opset,
                    " (introduced in opset ",
                    info->versions.get().front().since, ")");
      typed = true;
    }
  }

  // Operands, in union slot order for typed ops.
  SmallVector<Value> operands;
  auto lookup = [&](const std::string &name) -> FailureOr<Value> {
    if (name.empty())
      return noValue();
    Value val = scope.lookup(name);
    if (!val)
      return fail(loc, nodeDesc(node), ": input '", name, "' is not defined");
    return val;
  };
  auto versionName = [&] {
    return node.op_type() + "-" + std::to_string(v ? v->since : 0);
  };
  if (typed) {
    ArrayRef<onnx::SlotInfo> slots = info->inSlots.get();
    ArrayRef<onnx::ParamInfo> params = v->inputs.get();
    bool variadicLast =
        !params.empty() && params.back().option == ParamOption::Variadic;
    size_t maxIn = variadicLast ? SIZE_MAX : params.size();
    if (static_cast<size_t>(node.input_size()) > maxIn)
      return fail(loc, nodeDesc(node), ": ", versionName(), " takes at most ",
                  params.size(), " inputs, got ", node.input_size());
    size_t fixed = onnx::getNumFixedSlots(slots);
    operands.assign(fixed, nullptr);
    for (int i = 0; i < node.input_size(); ++i) {
      size_t pi = std::min<size_t>(i, params.size() - 1);
      unsigned slot = params[pi].slot;
      auto val = lookup(node.input(i));
      if (failed(val))
        return failure();
      if (slot < fixed)
        operands[slot] = *val;
      else
        operands.push_back(*val);
    }
    for (const onnx::ParamInfo &p : params)
      if (p.option == ParamOption::Single && p.slot < fixed &&
          (!operands[p.slot] || isa<NoneType>(operands[p.slot].getType())))
        return fail(loc, nodeDesc(node), ": ", versionName(),
                    " requires input '", p.name, "'");
    for (Value &operand : operands)
      if (!operand)
        operand = noValue();
  } else {
    for (const std::string &in : node.input()) {
      auto val = lookup(in);
      if (failed(val))
        return failure();
      operands.push_back(*val);
    }
  }

  // Attributes and graph attributes.
  SmallVector<NamedAttribute> attrs;
  SmallVector<std::pair<std::string, ::onnx::GraphProto *>> graphs;
  llvm::StringSet<> seenAttrs;
  for (auto &attr : *node.mutable_attribute()) {
    if (!seenAttrs.insert(attr.name()).second)
      return fail(loc, nodeDesc(node), ": attribute '", attr.name(),
                  "' is given twice");
    if (!attr.ref_attr_name().empty())
      return fail(loc, nodeDesc(node), ": attribute '", attr.name(),
                  "' refers to a function attribute, which is only valid "
                  "inside functions");
    auto kind = protoAttrKind(attr);
    if (typed) {
      const onnx::AttrInfo *ai = v->findAttr(attr.name());
      if (!ai)
        return fail(loc, nodeDesc(node), ": ", versionName(),
                    " has no attribute '", attr.name(), "'");
      if (!kind || *kind != ai->kind)
        return fail(loc, nodeDesc(node), ": attribute '", attr.name(),
                    "' must be ", onnx::stringifyAttrKind(ai->kind).str(),
                    ", got ",
                    kind ? onnx::stringifyAttrKind(*kind).str() : "no type");
    }
    if (kind == AttrKind::GRAPH) {
      graphs.emplace_back(attr.name(), attr.mutable_g());
      continue;
    }
    auto converted = convertAttribute(attr, node);
    if (failed(converted))
      return failure();
    attrs.push_back(builder.getNamedAttr(attr.name(), *converted));
  }
  if (typed)
    for (const onnx::AttrInfo &ai : v->attrs.get())
      if (ai.required && !seenAttrs.contains(ai.name))
        return fail(loc, nodeDesc(node), ": ", versionName(),
                    " requires attribute '", ai.name, "'");

  // Result types.
  SmallVector<Type> resultTypes;
  SmallVector<std::string> resultNames; // "" for none results.
  auto typeOf = [&](const std::string &name, unsigned slot) -> Type {
    if (name.empty())
      return builder.getNoneType();
    auto it = knownTypes.find(name);
    if (it != knownTypes.end() && !isa<onnx::UnknownType>(it->second))
      return it->second;
    return fallbackResultType(v, info, slot, operands);
  };
  if (typed) {
    ArrayRef<onnx::SlotInfo> slots = info->outSlots.get();
    ArrayRef<onnx::ParamInfo> params = v->outputs.get();
    bool variadicLast =
        !params.empty() && params.back().option == ParamOption::Variadic;
    if (!variadicLast &&
        static_cast<size_t>(node.output_size()) > params.size())
      return fail(loc, nodeDesc(node), ": ", versionName(), " has at most ",
                  params.size(), " outputs, got ", node.output_size());
    size_t fixed = onnx::getNumFixedSlots(slots);
    resultNames.assign(fixed, "");
    for (int i = 0; i < node.output_size(); ++i) {
      size_t pi = std::min<size_t>(i, params.size() - 1);
      unsigned slot = params[pi].slot;
      if (slot < fixed)
        resultNames[slot] = node.output(i);
      else
        resultNames.push_back(node.output(i));
    }
    for (const onnx::ParamInfo &p : params)
      if (p.option == ParamOption::Single && p.slot < fixed &&
          resultNames[p.slot].empty())
        return fail(loc, nodeDesc(node), ": ", versionName(),
                    " requires output '", p.name, "'");
    for (auto [i, name] : llvm::enumerate(resultNames))
      resultTypes.push_back(typeOf(name, std::min<unsigned>(i, fixed)));
  } else {
    for (const std::string &out : node.output()) {
      resultNames.push_back(out);
      resultTypes.push_back(typeOf(out, 0));
    }
  }

  // The op's location names the node and its outputs in slot order.
  SmallVector<std::string> slotNames(resultNames.begin(), resultNames.end());
  loc = onnx::makeNodeLoc(ctx, locFile, node.name(), slotNames);

  OperationState state(loc, typed ? "onnx." + node.op_type()
                                  : onnx::GenericOp::getOperationName().str());
  state.addOperands(operands);
  state.addTypes(resultTypes);
  SmallVector<Region *> regions;
  if (typed) {
    state.addAttributes(attrs);
  } else {
    state.addAttribute("op_type", builder.getStringAttr(node.op_type()));
    state.addAttribute(
        "domain", builder.getStringAttr(node.domain().empty() ? "" : domain));
    state.addAttribute("onnx_attrs", builder.getDictionaryAttr(attrs));
    SmallVector<Attribute> names;
    for (const auto &g : graphs)
      names.push_back(builder.getStringAttr(g.first));
    state.addAttribute("region_names", builder.getArrayAttr(names));
  }
  // Typed ops: region names are sorted with then_branch first (see the
  // generator); generic ops keep the node's order.
  SmallVector<std::pair<std::string, ::onnx::GraphProto *>> ordered(
      graphs.begin(), graphs.end());
  if (typed)
    llvm::sort(ordered, [](const auto &a, const auto &b) {
      auto key = [](const std::string &n) {
        return n == "then_branch" ? std::string("0") : "1" + n;
      };
      return key(a.first) < key(b.first);
    });
  for (size_t i = 0; i < ordered.size(); ++i)
    regions.push_back(state.addRegion());

  // Subgraph argument hints: Loop bodies get (int64, bool, carried...).
  SmallVector<Type> loopHints;
  if (typed && node.op_type() == "Loop") {
    loopHints.push_back(RankedTensorType::get({}, builder.getI64Type()));
    loopHints.push_back(RankedTensorType::get({}, builder.getI1Type()));
    for (size_t i = 2; i < operands.size(); ++i)
      loopHints.push_back(operands[i].getType());
  }
  for (auto [region, g] : llvm::zip(regions, ordered))
    if (failed(importSubgraph(*g.second, *region, scope, depth + 1, loopHints)))
      return failure();

  Operation *op = builder.create(state);
  for (auto [name, result] : llvm::zip(resultNames, op->getResults())) {
    if (name.empty())
      continue;
    scope.define(name, result);
  }
  return success();
}

} // namespace amk::importer
