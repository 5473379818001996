//===- ONNXImport.cpp - ONNX model to onnx dialect ------------------------===//
//
// Part of AMK. The importer validates what ONNX's own checker would (names
// defined once and before use, no cycles, attribute kinds, opset imports,
// tensor sizes against their data) and reports every problem with the file,
// node name, operator and opset, so a broken model never reaches a pass.
//
//===----------------------------------------------------------------------===//

#include "translate/ONNXImport.h"
#include "translate/GuardedInference.h"
#include "translate/ONNXTensor.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <fcntl.h>
#include <unistd.h>

#include <climits>
#include <deque>
#include <map>
#include <set>

using namespace mlir;

namespace amk {
namespace {

/// Discardable attribute of an onnx.Constant whose initializer is also a
/// graph input (IR < 4): the input's name.
constexpr llvm::StringLiteral kInputNameAttr = "onnx.input_name";

using onnx::AttrKind;
using onnx::OpInfo;
using onnx::ParamOption;
using onnx::VersionInfo;

/// Error reported by the importer: the message already names the file and
/// the node, and the location carries the node for tools that print it.
struct ImportError {
  Location loc;
  std::string message;
};

class Scope {
public:
  explicit Scope(Scope *parent) : parent(parent) {}
  Value lookup(llvm::StringRef name) const {
    for (const Scope *s = this; s; s = s->parent) {
      auto it = s->values.find(name);
      if (it != s->values.end())
        return it->second;
    }
    return nullptr;
  }
  bool definesLocally(llvm::StringRef name) const { return values.count(name); }
  void define(llvm::StringRef name, Value v) { values[name] = v; }
  Scope *parent;
  llvm::StringMap<Value> values;
};

/// "node 'name' (Op, domain opset N)" for errors, with `opsets` keyed by
/// domain ("ai.onnx" for the default one).
std::string describeNode(const ::onnx::NodeProto &node,
                         const std::map<std::string, int64_t> &opsets) {
  std::string domain = node.domain().empty() ? "ai.onnx" : node.domain();
  auto it = opsets.find(domain);
  std::string ver = it == opsets.end() ? "?" : std::to_string(it->second);
  std::string name = node.name().empty() ? "<unnamed>" : node.name();
  return "node '" + name + "' (" + node.op_type() + ", " + domain +
         " opset " + ver + ")";
}

class ModelImporter {
public:
  ModelImporter(MLIRContext *ctx, llvm::StringRef path,
                const ONNXImportOptions &options)
      : ctx(ctx), builder(ctx), path(path.str()), options(options),
        fileLoc(UnknownLoc::get(ctx)) {
    locFile = options.locationFileName.empty() ? this->path
                                               : options.locationFileName;
    llvm::SmallString<256> dir(path);
    llvm::sys::path::remove_filename(dir);
    if (dir.empty())
      dir = ".";
    baseDir = std::string(dir);
    fileLoc = FileLineColLoc::get(ctx, locFile, 0, 0);
  }

  OwningOpRef<ModuleOp> run(::onnx::ModelProto &model);

private:
  // Errors ------------------------------------------------------------------
  /// Converts to failure() of any result type, so `return fail(...)` works
  /// in functions returning LogicalResult or FailureOr<T>.
  struct Failed {
    operator LogicalResult() const { return failure(); }
    template <typename T> operator FailureOr<T>() const { return failure(); }
  };
  template <typename... Ts> Failed fail(Location loc, Ts &&...parts) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    (os << ... << parts);
    error = ImportError{loc, msg};
    return Failed();
  }
  std::string nodeDesc(const ::onnx::NodeProto &node) const {
    return describeNode(node, opsets);
  }

  // Model-level -------------------------------------------------------------
  LogicalResult readOpsets(const ::onnx::ModelProto &model);
  void setModelAttrs(ModuleOp module, const ::onnx::ModelProto &model);

  // Types -------------------------------------------------------------------
  FailureOr<Type> convertType(const ::onnx::TypeProto &type,
                              llvm::StringRef what);
  FailureOr<Type> convertValueInfoType(const ::onnx::ValueInfoProto &vi);

  // Graphs ------------------------------------------------------------------
  LogicalResult importMainGraph(::onnx::GraphProto &graph, ModuleOp module);
  LogicalResult importBody(::onnx::GraphProto &graph, Block *block,
                           Scope &scope, unsigned depth);
  LogicalResult collectTypes(const ::onnx::GraphProto &graph);
  LogicalResult importInitializers(::onnx::GraphProto &graph, Scope &scope);
  FailureOr<SmallVector<int>> sortNodes(const ::onnx::GraphProto &graph,
                                        const Scope &scope);
  LogicalResult importNode(::onnx::NodeProto &node, Scope &scope,
                           unsigned depth);
  LogicalResult importSubgraph(::onnx::GraphProto &graph, Region &region,
                               Scope &scope, unsigned depth,
                               ArrayRef<Type> argHints);

  // Attributes --------------------------------------------------------------
  FailureOr<Attribute> convertAttribute(::onnx::AttributeProto &attr,
                                        const ::onnx::NodeProto &node);
  FailureOr<ElementsAttr> convertTensor(::onnx::TensorProto &tensor,
                                        llvm::StringRef what,
                                        llvm::StringRef blobName);

  Value noValue();
  Type fallbackResultType(const VersionInfo *v, const OpInfo *info,
                          unsigned slot, ArrayRef<Value> operands);

  MLIRContext *ctx;
  OpBuilder builder;
  std::string path;
  std::string locFile;
  std::string baseDir;
  const ONNXImportOptions &options;
  Location fileLoc;
  std::map<std::string, int64_t> opsets;
  /// Types from value_info and graph outputs, by tensor name.
  llvm::StringMap<Type> knownTypes;
  /// The NoValue op of the block being built.
  llvm::DenseMap<Block *, Value> noValues;
  /// Main-graph inputs that are also initializers.
  llvm::StringSet<> initializerInputs;
  std::optional<ImportError> error;

public:
  const std::optional<ImportError> &getError() const { return error; }
};

//===----------------------------------------------------------------------===//
// Model level
//===----------------------------------------------------------------------===//

LogicalResult ModelImporter::readOpsets(const ::onnx::ModelProto &model) {
  if (model.opset_import_size() == 0)
    return fail(fileLoc, "the model has no opset_import");
  for (const auto &imp : model.opset_import()) {
    std::string domain = imp.domain().empty() ? "ai.onnx" : imp.domain();
    if (opsets.count(domain) && opsets[domain] != imp.version())
      return fail(fileLoc, "domain '", domain,
                  "' is imported twice with different versions");
    opsets[domain] = imp.version();
  }
  auto it = opsets.find("ai.onnx");
  if (it == opsets.end())
    return success(); // A model of custom domains only.
  // Older opsets are accepted node by node: an operator whose version at
  // that opset is still live at opset 7 (Elu-6, Not-1) is modeled.
  if (it->second < 1 || it->second > onnx::kMaxOpset)
    return fail(fileLoc, "opset ", it->second,
                " of ai.onnx is not supported; AMK supports opsets up to ",
                onnx::kMaxOpset);
  return success();
}

void ModelImporter::setModelAttrs(ModuleOp module,
                                  const ::onnx::ModelProto &model) {
  SmallVector<NamedAttribute> imports;
  for (auto &[domain, version] : opsets)
    imports.push_back(
        builder.getNamedAttr(domain, builder.getI64IntegerAttr(version)));
  module->setAttr(onnx::kOpsetImportAttr, builder.getDictionaryAttr(imports));
  module->setAttr("onnx.ir_version",
                  builder.getI64IntegerAttr(model.ir_version()));
  auto setStr = [&](llvm::StringRef name, const std::string &v) {
    if (!v.empty())
      module->setAttr(name, builder.getStringAttr(v));
  };
  setStr("onnx.producer_name", model.producer_name());
  setStr("onnx.producer_version", model.producer_version());
  setStr("onnx.domain", model.domain());
  setStr("onnx.doc_string", model.doc_string());
  if (model.model_version())
    module->setAttr("onnx.model_version",
                    builder.getI64IntegerAttr(model.model_version()));
  if (model.metadata_props_size()) {
    SmallVector<NamedAttribute> props;
    for (const auto &kv : model.metadata_props())
      props.push_back(
          builder.getNamedAttr(kv.key(), builder.getStringAttr(kv.value())));
    module->setAttr("onnx.metadata_props", builder.getDictionaryAttr(props));
  }
}

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

OwningOpRef<ModuleOp> ModelImporter::run(::onnx::ModelProto &model) {
  if (failed(readOpsets(model)))
    return nullptr;
  if (!model.has_graph())
    return (void)fail(fileLoc, "the model has no graph"), nullptr;
  if (model.functions_size())
    return (void)fail(fileLoc, "the model defines ", model.functions_size(),
                      " local functions ('", model.functions(0).name(),
                      "'...); model-local functions are not supported"),
           nullptr;
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  setModelAttrs(*module, model);
  if (failed(importMainGraph(*model.mutable_graph(), *module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// Protobuf's default nesting limit (100 messages) stops at about 30 levels
/// of subgraphs, before the importer's own, clearer depth check; each graph
/// level costs three messages (graph, node, attribute).
constexpr int kProtoRecursionLimit = 1000;
constexpr llvm::StringLiteral kCorruptMessage =
    "not a valid ONNX model (the protobuf is truncated or corrupt, or nests "
    "messages more than 1000 deep)";

/// Parses a binary ModelProto without protobuf's 64 MB default limit.
bool parseBinary(llvm::StringRef bytes, ::onnx::ModelProto &model) {
  google::protobuf::io::ArrayInputStream raw(bytes.data(),
                                             static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT_MAX);
  coded.SetRecursionLimit(kProtoRecursionLimit);
  return model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

/// What libonnx's shape inference assumes and does not check (each found
/// by test/fuzz as a crash there): declared types that say what they are,
/// inputs that something defines, and, for the convolution and pooling
/// family, attributes it divides by or indexes with the spatial rank.
/// These checks run first and refuse such a model, naming the node (or
/// value) and the rule.
std::string checkBeforeInference(const ::onnx::GraphProto &graph,
                                    const std::map<std::string, int64_t> &opsets,
                                    unsigned depth,
                                    const std::set<std::string> &outer) {
  static const llvm::StringSet<> family = {
      "Conv",        "ConvTranspose", "ConvInteger", "QLinearConv",
      "MaxPool",     "AveragePool",   "LpPool",      "MaxUnpool",
      "DeformConv"};
  if (depth > 64)
    return "";
  // Ranks the model declares, for the spatial-rank checks.
  std::map<std::string, int> ranks;
  auto noteRank = [&](const ::onnx::ValueInfoProto &vi) {
    if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape())
      ranks[vi.name()] = vi.type().tensor_type().shape().dim_size();
  };
  for (const auto &vi : graph.input())
    noteRank(vi);
  for (const auto &vi : graph.value_info())
    noteRank(vi);
  for (const auto &t : graph.initializer())
    ranks[t.name()] = t.dims_size();
  // Declared types must say what they are: libonnx reads a graph input's
  // type without checking that it has one (a Shape of an untyped input
  // crashed there; found by test/fuzz).
  auto typeError = [&](const ::onnx::ValueInfoProto &vi, const char *what,
                       bool required) -> std::string {
    if (!vi.has_type())
      return required ? std::string(what) + " '" + vi.name() +
                            "' has no type"
                      : std::string();
    if (vi.type().value_case() == ::onnx::TypeProto::VALUE_NOT_SET)
      return std::string(what) + " '" + vi.name() +
             "' has a type that is neither a tensor, a sequence, a map nor "
             "an optional";
    return "";
  };
  for (const auto &vi : graph.input())
    if (std::string e = typeError(vi, "graph input", depth == 0); !e.empty())
      return e;
  for (const auto &vi : graph.output())
    if (std::string e = typeError(vi, "graph output", false); !e.empty())
      return e;
  for (const auto &vi : graph.value_info())
    if (std::string e = typeError(vi, "value_info", false); !e.empty())
      return e;
  // Every name a node reads must be defined (libonnx's inference
  // dereferences the producer's type without checking): inputs,
  // initializers, any node's outputs (order is checked later), and the
  // enclosing graphs' names.
  std::set<std::string> defined = outer;
  for (const auto &vi : graph.input())
    defined.insert(vi.name());
  for (const auto &t : graph.initializer())
    defined.insert(t.name());
  for (const auto &node : graph.node())
    for (const auto &o : node.output())
      defined.insert(o);
  auto describe = [&](const ::onnx::NodeProto &node) {
    return describeNode(node, opsets);
  };
  for (const auto &node : graph.node()) {
    for (const auto &i : node.input())
      if (!i.empty() && !defined.count(i))
        return describe(node) + ": input '" + i +
               "' is not produced by any node, graph input or initializer";
    for (const auto &attr : node.attribute())
      if (attr.has_g()) {
        std::string e =
            checkBeforeInference(attr.g(), opsets, depth + 1, defined);
        if (!e.empty())
          return e;
      } else {
        for (const auto &g : attr.graphs()) {
          std::string e =
              checkBeforeInference(g, opsets, depth + 1, defined);
          if (!e.empty())
            return e;
        }
      }
    if (!(node.domain().empty() || node.domain() == "ai.onnx") ||
        !family.contains(node.op_type()))
      continue;
    std::string what = describe(node);
    // The spatial rank: from kernel_shape, else from the input's rank.
    int64_t spatial = -1;
    auto in = node.input_size() ? ranks.find(node.input(0)) : ranks.end();
    if (in != ranks.end())
      spatial = in->second - 2;
    for (const auto &attr : node.attribute()) {
      llvm::StringRef name = attr.name();
      bool positive = name == "strides" || name == "dilations" ||
                      name == "kernel_shape";
      bool perDim = positive || name == "output_padding" ||
                    name == "output_shape";
      bool isPads = name == "pads";
      if (!perDim && !isPads)
        continue;
      std::string list;
      for (int64_t v : attr.ints())
        list += (list.empty() ? "" : ", ") + std::to_string(v);
      for (int64_t v : attr.ints())
        if ((positive && v <= 0) || (isPads && v < 0))
          return what + ": attribute '" + name.str() + "' must hold " +
                 (positive ? "positive" : "non-negative") + " values, got [" +
                 list + "]";
      if (name == "kernel_shape" && spatial < 0)
        spatial = attr.ints_size();
      int64_t want = isPads ? 2 * spatial : spatial;
      if (spatial >= 0 && attr.ints_size() != want)
        return what + ": attribute '" + name.str() + "' has " +
               std::to_string(attr.ints_size()) + " values; the node has " +
               std::to_string(spatial) + " spatial dimensions, so it needs " +
               std::to_string(want);
    }
    for (const auto &attr : node.attribute())
      if (attr.name() == "group" && attr.i() <= 0)
        return what + ": attribute 'group' must be positive, got " +
               std::to_string(attr.i());
    if (in != ranks.end() && in->second < 3)
      return what + ": its input '" + node.input(0) + "' has rank " +
             std::to_string(in->second) + "; it needs at least 3";
    // The weights' rank must match the data's.
    int wIndex = node.op_type() == "QLinearConv" ? 3
                 : llvm::StringRef(node.op_type()).contains("Conv") ? 1
                                                                    : -1;
    if (wIndex > 0 && in != ranks.end() && node.input_size() > wIndex) {
      auto w = ranks.find(node.input(wIndex));
      if (w != ranks.end() && w->second != in->second)
        return what + ": its weights '" + node.input(wIndex) + "' have rank " +
               std::to_string(w->second) + " but its input has rank " +
               std::to_string(in->second);
    }
  }
  return "";
}

/// Names in a hostile model may hold any bytes: control bytes are escaped
/// as \xNN, and so are non-ASCII bytes unless the message is valid UTF-8
/// (e.g. non-Latin tensor names are kept as they are).
std::string printableMessage(llvm::StringRef text) {
  const auto *begin = reinterpret_cast<const llvm::UTF8 *>(text.data());
  bool utf8 = llvm::isLegalUTF8String(&begin, begin + text.size());
  std::string out;
  for (unsigned char c : text)
    if ((c >= 0x20 && c < 0x7f) || (utf8 && c >= 0x80))
      out.push_back((char)c);
    else
      out += llvm::formatv("\\x{0:x-2}", (unsigned)c).str();
  return out;
}

/// Every node of a default-domain opset that libonnx knows must match its
/// schema (input and output counts, required attributes and their types)
/// before libonnx's inference functions, which assume it, read it: a Scan
/// without num_scan_inputs crashed there (found by test/fuzz). Returns the
/// first mismatch; the caller then skips libonnx's inference and reports
/// it unless the importer's own checks (clearer messages) find something.
std::string checkSchemas(const ::onnx::GraphProto &graph,
                         const std::map<std::string, int64_t> &opsets,
                         unsigned depth) {
  if (depth > 64)
    return "";
  const auto &known =
      ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  for (const auto &node : graph.node()) {
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    auto opset = opsets.find(domain.empty() ? "ai.onnx" : domain);
    auto range = known.find(domain);
    // Opsets newer than libonnx's schemas (the overlay of
    // gen_onnx_dialect.py covers them) are not checked against older ones.
    if (opset != opsets.end() && range != known.end() &&
        opset->second <= range->second.second) {
      if (const ::onnx::OpSchema *schema = ::onnx::OpSchemaRegistry::Schema(
              node.op_type(), (int)opset->second, domain)) {
        try {
          schema->Verify(node);
        } catch (const std::exception &e) {
          return describeNode(node, opsets) + ": " + e.what();
        }
      }
    }
    for (const auto &attr : node.attribute()) {
      if (attr.has_g()) {
        std::string e = checkSchemas(attr.g(), opsets, depth + 1);
        if (!e.empty())
          return e;
      }
      for (const auto &g : attr.graphs()) {
        std::string e = checkSchemas(g, opsets, depth + 1);
        if (!e.empty())
          return e;
      }
    }
  }
  return "";
}

OwningOpRef<ModuleOp> importModel(::onnx::ModelProto &model,
                                  llvm::StringRef path, MLIRContext *ctx,
                                  const ONNXImportOptions &options) {
  ctx->loadDialect<onnx::ONNXDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(ctx, path, 0, 0);
  // libonnx's inference annotates the values the model leaves untyped. When
  // it rejects the model, our own checks run first (they name the node and
  // the rule); its message is the error only if ours find nothing.
  // Every message may quote names from the model: escaped in one place.
  auto reject = [&](Location loc, llvm::StringRef msg) {
    emitError(loc) << printableMessage(msg);
    return nullptr;
  };
  std::string inferenceError, schemaError;
  if (options.inferShapes && model.has_graph()) {
    std::map<std::string, int64_t> opsets;
    for (const auto &o : model.opset_import())
      opsets[o.domain().empty() ? "ai.onnx" : o.domain()] = o.version();
    std::string unsafe = checkBeforeInference(model.graph(), opsets, 0, {});
    if (!unsafe.empty())
      return reject(fileLoc, unsafe);
    // A node that does not match its schema never reaches libonnx's
    // inference functions, which assume it does.
    schemaError = checkSchemas(model.graph(), opsets, 0);
    if (schemaError.empty()) {
      GuardedInference r =
          inferShapesGuarded(model, options.inferenceTimeoutSeconds);
      if (r.outcome == GuardedInference::Rejected)
        inferenceError =
            "the model's shapes or types are inconsistent: " + r.message;
      else if (r.outcome != GuardedInference::Inferred)
        // libonnx's bug, not the model's fault: go on with the types the
        // model declares (the importer's fallbacks, then AMK's own shape
        // inference) rather than fail a model that may be valid.
        emitWarning(fileLoc)
            << "libonnx's shape inference " << r.message
            << " on this model; importing it with the types the model "
               "declares (the amk-infer-shapes pass infers the rest)";
    }
  }
  ModelImporter importer(ctx, path, options);
  OwningOpRef<ModuleOp> module = importer.run(model);
  if (!module) {
    const auto &err = importer.getError();
    return reject(err ? err->loc : fileLoc,
                  err ? err->message : std::string("import failed"));
  }
  if (failed(verify(*module)))
    return nullptr;
  if (!schemaError.empty())
    return reject(fileLoc, schemaError);
  if (!inferenceError.empty())
    return reject(fileLoc, inferenceError);
  return module;
}

} // namespace

bool looksLikeONNXText(llvm::StringRef bytes) {
  llvm::StringRef s = bytes.ltrim();
  // Skip '#' comments.
  while (s.starts_with("#")) {
    s = s.drop_until([](char c) { return c == '\n'; }).ltrim();
  }
  if (s.empty())
    return false;
  if (s.front() == '<')
    return true;
  // `name (inputs) => (outputs)` graphs without a model header.
  size_t n = std::min<size_t>(s.size(), 256);
  for (char c : s.take_front(n))
    if (!llvm::isPrint(c) && !llvm::isSpace(c))
      return false;
  return llvm::isAlpha(s.front());
}

OwningOpRef<ModuleOp> importONNXBuffer(llvm::StringRef bytes,
                                       llvm::StringRef path, MLIRContext *ctx,
                                       const ONNXImportOptions &options) {
  ::onnx::ModelProto model;
  Location fileLoc = FileLineColLoc::get(ctx, path, 0, 0);
  if (looksLikeONNXText(bytes)) {
    std::string text = bytes.str();
    try {
      ::onnx::OnnxParser parser(text.c_str());
      auto status = parser.Parse(model);
      if (!status.IsOK()) {
        emitError(fileLoc) << "ONNX text syntax error: "
                           << status.ErrorMessage();
        return nullptr;
      }
    } catch (const std::exception &e) {
      emitError(fileLoc) << "ONNX text syntax error: " << e.what();
      return nullptr;
    }
  } else if (!parseBinary(bytes, model)) {
    emitError(fileLoc) << kCorruptMessage;
    return nullptr;
  }
  return importModel(model, path, ctx, options);
}

OwningOpRef<ModuleOp> importONNXFile(llvm::StringRef path, MLIRContext *ctx,
                                     const ONNXImportOptions &options) {
  Location fileLoc = FileLineColLoc::get(ctx, path, 0, 0);
  if (!llvm::sys::fs::is_regular_file(path)) {
    emitError(fileLoc) << "no such model file";
    return nullptr;
  }
  // Stream the protobuf from the file descriptor: the payload is read once
  // into the proto, whose raw_data strings then become the weight blobs.
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf) {
    emitError(fileLoc) << "cannot read: " << buf.getError().message();
    return nullptr;
  }
  llvm::StringRef bytes = (*buf)->getBuffer();
  if (looksLikeONNXText(bytes))
    return importONNXBuffer(bytes, path, ctx, options);
  ::onnx::ModelProto model;
  {
    int fd = ::open(path.str().c_str(), O_RDONLY);
    if (fd < 0) {
      emitError(fileLoc) << "cannot open";
      return nullptr;
    }
    buf->reset(); // Release the mapping before the proto takes the bytes.
    google::protobuf::io::FileInputStream raw(fd);
    google::protobuf::io::CodedInputStream coded(&raw);
    coded.SetTotalBytesLimit(INT_MAX);
    coded.SetRecursionLimit(kProtoRecursionLimit);
    bool ok =
        model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
    ::close(fd);
    if (!ok) {
      emitError(fileLoc) << kCorruptMessage;
      return nullptr;
    }
  }
  return importModel(model, path, ctx, options);
}

void registerONNXImportDialects(DialectRegistry &registry) {
  registry.insert<onnx::ONNXDialect, func::FuncDialect>();
}

} // namespace amk
