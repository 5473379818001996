//===- ONNXImportGraph.cpp - Types, graphs and initializers ---------------===//
//
// Part of AMK. Graphs are imported in dependency order (a sorted model keeps
// its file order), after every name they read is checked to be defined
// exactly once, here or in an enclosing graph.
//
//===----------------------------------------------------------------------===//

#include "translate/ONNXImporter.h"
#include "translate/ONNXTensor.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <deque>
#include <vector>

using namespace mlir;

namespace amk::importer {

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

FailureOr<Type> ModelImporter::convertType(const ::onnx::TypeProto &type,
                                           llvm::StringRef what) {
  switch (type.value_case()) {
  case ::onnx::TypeProto::kTensorType: {
    const auto &tt = type.tensor_type();
    Type elt = onnx::getElementType(ctx, tt.elem_type());
    if (!elt)
      return Type(onnx::UnknownType::get(ctx));
    if (!tt.has_shape())
      return Type(UnrankedTensorType::get(elt));
    SmallVector<int64_t> dims;
    for (const auto &d : tt.shape().dim()) {
      if (d.has_dim_value()) {
        if (d.dim_value() < 0)
          return fail(fileLoc, what, " has a negative dimension ",
                      d.dim_value());
        dims.push_back(d.dim_value());
      } else {
        dims.push_back(ShapedType::kDynamic);
      }
    }
    SmallVector<int64_t> statics;
    for (int64_t d : dims)
      if (!ShapedType::isDynamic(d))
        statics.push_back(d);
    auto n = checkedNumElements(statics, options.maxElements);
    if (!n) {
      (void)fail(fileLoc, what, ": ", llvm::toString(n.takeError()));
      return failure();
    }
    return Type(RankedTensorType::get(dims, elt));
  }
  case ::onnx::TypeProto::kSequenceType: {
    auto inner = convertType(type.sequence_type().elem_type(), what);
    if (failed(inner))
      return failure();
    return Type(onnx::SeqType::get(ctx, *inner));
  }
  case ::onnx::TypeProto::kOptionalType: {
    auto inner = convertType(type.optional_type().elem_type(), what);
    if (failed(inner))
      return failure();
    return Type(onnx::OptType::get(ctx, *inner));
  }
  default:
    // Maps, sparse tensors and absent types: the value is kept with an
    // unknown type (export then writes no value_info for it).
    return Type(onnx::UnknownType::get(ctx));
  }
}

FailureOr<Type>
ModelImporter::convertValueInfoType(const ::onnx::ValueInfoProto &vi) {
  if (!vi.has_type())
    return Type(onnx::UnknownType::get(ctx));
  return convertType(vi.type(), "value '" + vi.name() + "'");
}

/// The dim_param names of a graph input/output, kept for export.
static ArrayAttr dimParams(Builder &b, const ::onnx::ValueInfoProto &vi) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
    return nullptr;
  SmallVector<Attribute> names;
  bool any = false;
  for (const auto &d : vi.type().tensor_type().shape().dim()) {
    names.push_back(b.getStringAttr(d.dim_param()));
    any |= !d.dim_param().empty();
  }
  return any ? b.getArrayAttr(names) : nullptr;
}

//===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===//

Value ModelImporter::noValue() {
  Block *block = builder.getInsertionBlock();
  auto it = noValues.find(block);
  if (it != noValues.end())
    return it->second;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);
  Value v = onnx::NoValueOp::create(builder, fileLoc, builder.getNoneType())
                .getResult();
  noValues[block] = v;
  return v;
}

LogicalResult ModelImporter::collectTypes(const ::onnx::GraphProto &graph) {
  for (const auto &vi : graph.value_info()) {
    auto t = convertValueInfoType(vi);
    if (failed(t))
      return failure();
    knownTypes[vi.name()] = *t;
  }
  for (const auto &vi : graph.output()) {
    auto t = convertValueInfoType(vi);
    if (failed(t))
      return failure();
    // A graph output's declared type wins over value_info.
    if (!isa<onnx::UnknownType>(*t) || !knownTypes.count(vi.name()))
      knownTypes[vi.name()] = *t;
  }
  return success();
}

FailureOr<ElementsAttr>
ModelImporter::convertTensor(::onnx::TensorProto &tensor, llvm::StringRef what,
                             llvm::StringRef blobName) {
  TensorImportOptions topts;
  topts.baseDir = baseDir;
  topts.resourceThreshold = options.resourceThreshold;
  topts.blobName = blobName.empty() ? "tensor" : blobName.str();
  topts.maxElements = options.maxElements;
  auto attr = convertTensorProto(tensor, ctx, topts);
  if (!attr) {
    (void)fail(fileLoc, what, ": ", llvm::toString(attr.takeError()));
    return failure();
  }
  return *attr;
}

LogicalResult ModelImporter::importInitializers(::onnx::GraphProto &graph,
                                                Scope &scope) {
  for (auto &init : *graph.mutable_initializer()) {
    if (init.name().empty())
      return fail(fileLoc, "an initializer has no name");
    if (scope.definesLocally(init.name()))
      return fail(fileLoc, "initializer '", init.name(), "' is defined twice");
    auto value =
        convertTensor(init, "initializer '" + init.name() + "'", init.name());
    if (failed(value))
      return failure();
    Location loc = onnx::makeInitializerLoc(ctx, locFile, init.name());
    auto op = onnx::ConstantOp::create(
        builder, loc, TypeRange{value->getType()}, ValueRange{},
        ArrayRef<NamedAttribute>{builder.getNamedAttr("value", *value)});
    scope.define(init.name(), op.getResult());
    // The name is part of the model's interface here, so it is kept as an
    // attribute rather than only in the location.
    if (initializerInputs.contains(init.name()))
      op->setAttr(kInputNameAttr, builder.getStringAttr(init.name()));
  }
  for (auto &sparse : *graph.mutable_sparse_initializer()) {
    const std::string &name = sparse.values().name();
    return fail(fileLoc, "sparse initializer '", name,
                "' is not supported; convert it to a dense initializer");
  }
  return success();
}

/// Every name a node reads, including the names its subgraphs read from
/// enclosing scopes.
static void collectReads(const ::onnx::NodeProto &node,
                         llvm::StringSet<> &reads) {
  for (const std::string &in : node.input())
    if (!in.empty())
      reads.insert(in);
  for (const auto &attr : node.attribute()) {
    std::vector<const ::onnx::GraphProto *> graphs;
    if (attr.has_g())
      graphs.push_back(&attr.g());
    for (const auto &g : attr.graphs())
      graphs.push_back(&g);
    for (const ::onnx::GraphProto *g : graphs) {
      llvm::StringSet<> defined;
      for (const auto &i : g->input())
        defined.insert(i.name());
      for (const auto &i : g->initializer())
        defined.insert(i.name());
      for (const auto &n : g->node())
        for (const std::string &o : n.output())
          defined.insert(o);
      llvm::StringSet<> inner;
      for (const auto &n : g->node())
        collectReads(n, inner);
      for (const auto &o : g->output())
        inner.insert(o.name());
      for (const auto &r : inner)
        if (!defined.contains(r.getKey()))
          reads.insert(r.getKey());
    }
  }
}

FailureOr<SmallVector<int>>
ModelImporter::sortNodes(const ::onnx::GraphProto &graph, const Scope &scope) {
  int n = graph.node_size();
  llvm::StringMap<int> producer;
  for (int i = 0; i < n; ++i) {
    const auto &node = graph.node(i);
    for (const std::string &out : node.output()) {
      if (out.empty())
        continue;
      auto prev = producer.find(out);
      if (prev != producer.end())
        return fail(fileLoc, nodeDesc(node), ": output '", out,
                    "' is already produced by ",
                    nodeDesc(graph.node(prev->second)));
      if (scope.lookup(out))
        return fail(fileLoc, nodeDesc(node), ": output '", out,
                    "' is already defined as a graph input or initializer");
      producer[out] = i;
    }
  }
  std::vector<SmallVector<int>> users(n);
  SmallVector<int> indeg(n, 0);
  for (int i = 0; i < n; ++i) {
    llvm::StringSet<> reads;
    collectReads(graph.node(i), reads);
    for (const auto &r : reads) {
      auto it = producer.find(r.getKey());
      if (it != producer.end()) {
        users[it->second].push_back(i);
        ++indeg[i];
        continue;
      }
      if (!scope.lookup(r.getKey()))
        return fail(fileLoc, nodeDesc(graph.node(i)), ": input '",
                    r.getKey().str(),
                    "' is not produced by any node, graph input or "
                    "initializer");
    }
  }
  // Kahn's algorithm, taking nodes in file order when they are ready so a
  // sorted model keeps its order.
  SmallVector<int> order;
  std::deque<int> ready;
  for (int i = 0; i < n; ++i)
    if (indeg[i] == 0)
      ready.push_back(i);
  std::vector<bool> done(n, false);
  while (!ready.empty()) {
    std::sort(ready.begin(), ready.end());
    int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    done[i] = true;
    for (int u : users[i])
      if (--indeg[u] == 0)
        ready.push_back(u);
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i)
      if (!done[i])
        return fail(fileLoc, "the graph has a cycle through ",
                    nodeDesc(graph.node(i)));
  }
  return order;
}

LogicalResult ModelImporter::importBody(::onnx::GraphProto &graph, Block *block,
                                        Scope &scope, unsigned depth) {
  if (depth > options.maxGraphDepth)
    return fail(fileLoc, "subgraphs are nested more than ",
                options.maxGraphDepth, " levels deep");
  if (failed(collectTypes(graph)))
    return failure();
  builder.setInsertionPointToEnd(block);
  if (failed(importInitializers(graph, scope)))
    return failure();
  auto order = sortNodes(graph, scope);
  if (failed(order))
    return failure();
  for (int i : *order) {
    builder.setInsertionPointToEnd(block);
    if (failed(importNode(*graph.mutable_node(i), scope, depth)))
      return failure();
  }
  builder.setInsertionPointToEnd(block);
  return success();
}

LogicalResult ModelImporter::importMainGraph(::onnx::GraphProto &graph,
                                             ModuleOp module) {
  llvm::StringSet<> initNames;
  for (const auto &init : graph.initializer())
    initNames.insert(init.name());

  SmallVector<Type> argTypes;
  SmallVector<const ::onnx::ValueInfoProto *> args;
  llvm::StringSet<> inputNames;
  for (const auto &in : graph.input()) {
    if (in.name().empty())
      return fail(fileLoc, "a graph input has no name");
    if (!inputNames.insert(in.name()).second)
      return fail(fileLoc, "graph input '", in.name(), "' is listed twice");
    if (initNames.contains(in.name())) {
      // IR < 4 style: an input with a default value. AMK compiles it as a
      // constant; importInitializers marks it so export restores the input.
      initializerInputs.insert(in.name());
      continue;
    }
    auto t = convertValueInfoType(in);
    if (failed(t))
      return failure();
    if (isa<onnx::UnknownType>(*t))
      return fail(fileLoc, "graph input '", in.name(),
                  "' has no type or an unsupported type");
    argTypes.push_back(*t);
    args.push_back(&in);
  }
  SmallVector<Type> resultTypes;
  for (const auto &out : graph.output()) {
    auto t = convertValueInfoType(out);
    if (failed(t))
      return failure();
    resultTypes.push_back(*t);
  }

  builder.setInsertionPointToEnd(module.getBody());
  auto func =
      func::FuncOp::create(builder, fileLoc, "main_graph",
                           builder.getFunctionType(argTypes, resultTypes));
  if (!graph.name().empty())
    func->setAttr("onnx.graph_name", builder.getStringAttr(graph.name()));
  if (!graph.doc_string().empty())
    func->setAttr("onnx.doc_string", builder.getStringAttr(graph.doc_string()));
  Block *entry = func.addEntryBlock();
  Scope scope(nullptr);
  for (auto [i, vi] : llvm::enumerate(args)) {
    func.setArgAttr(i, onnx::kNameAttr, builder.getStringAttr(vi->name()));
    if (ArrayAttr dp = dimParams(builder, *vi))
      func.setArgAttr(i, "onnx.dim_params", dp);
    scope.define(vi->name(), entry->getArgument(i));
  }
  if (failed(importBody(graph, entry, scope, 0)))
    return failure();

  SmallVector<Value> results;
  for (auto [i, out] : llvm::enumerate(graph.output())) {
    Value v = scope.lookup(out.name());
    if (!v)
      return fail(fileLoc, "graph output '", out.name(),
                  "' is not produced by any node, input or initializer");
    func.setResultAttr(i, onnx::kNameAttr, builder.getStringAttr(out.name()));
    if (ArrayAttr dp = dimParams(builder, out))
      func.setResultAttr(i, "onnx.dim_params", dp);
    // The function type carries what the value really is; the declared
    // type was already used for the producing node.
    resultTypes[i] = v.getType();
    results.push_back(v);
  }
  func.setFunctionType(builder.getFunctionType(argTypes, resultTypes));
  builder.setInsertionPointToEnd(entry);
  func::ReturnOp::create(builder, fileLoc, results);
  return success();
}

LogicalResult ModelImporter::importSubgraph(::onnx::GraphProto &graph,
                                            Region &region, Scope &parent,
                                            unsigned depth,
                                            ArrayRef<Type> argHints) {
  Block *block = new Block();
  region.push_back(block);
  Scope scope(&parent);
  for (auto [i, in] : llvm::enumerate(graph.input())) {
    auto t = convertValueInfoType(in);
    if (failed(t))
      return failure();
    Type type = *t;
    if (isa<onnx::UnknownType>(type) && i < argHints.size() && argHints[i])
      type = argHints[i];
    Value arg = block->addArgument(
        type, NameLoc::get(builder.getStringAttr(in.name())));
    scope.define(in.name(), arg);
  }
  OpBuilder::InsertionGuard guard(builder);
  if (failed(importBody(graph, block, scope, depth)))
    return failure();
  SmallVector<Value> outs;
  SmallVector<std::string> names;
  for (const auto &out : graph.output()) {
    Value v = scope.lookup(out.name());
    if (!v)
      return fail(fileLoc, "subgraph '", graph.name(), "' output '", out.name(),
                  "' is not defined");
    outs.push_back(v);
    names.push_back(out.name());
  }
  builder.setInsertionPointToEnd(block);
  onnx::YieldOp::create(builder, onnx::makeNodeLoc(ctx, locFile, "", names),
                        outs);
  return success();
}

} // namespace amk::importer
