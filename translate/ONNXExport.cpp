//===- ONNXExport.cpp - onnx dialect to ONNX model ------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "translate/ONNXExport.h"
#include "translate/ONNXTensor.h"
#include "translate/ONNXText.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>

#include <fcntl.h>
#include <unistd.h>

#include <climits>
#include <fstream>

using namespace mlir;

namespace amk {
namespace {

using onnx::AttrKind;
using onnx::ParamOption;

class ModelExporter {
public:
  ModelExporter(ModuleOp module, const ONNXExportOptions &options,
                llvm::StringRef outputDir)
      : module(module), options(options), outputDir(outputDir.str()) {}

  LogicalResult run(::onnx::ModelProto &model);

private:
  LogicalResult exportGraph(Region &region, ::onnx::GraphProto &graph,
                            func::FuncOp func);
  LogicalResult exportOp(Operation *op, ::onnx::GraphProto &graph);
  LogicalResult exportTypedOp(Operation *op, ::onnx::NodeProto &node,
                              ::onnx::GraphProto &graph);
  LogicalResult exportGenericOp(onnx::GenericOp op, ::onnx::NodeProto &node);
  LogicalResult exportAttr(Operation *op, llvm::StringRef name, Attribute attr,
                           std::optional<AttrKind> kind,
                           ::onnx::AttributeProto &out);
  LogicalResult exportRegion(Operation *op, Region &region,
                             llvm::StringRef name, ::onnx::AttributeProto &out);
  LogicalResult exportInitializer(onnx::ConstantOp op,
                                  ::onnx::GraphProto &graph);
  void exportType(Type type, ::onnx::TypeProto &out, ArrayAttr dimParams);
  void addValueInfo(::onnx::GraphProto &graph, Value v);

  /// Gives every value a unique ONNX name, preferring the names kept in
  /// locations and the graph outputs' names.
  void assignNames(Region &region);
  void reserveOutputs(Operation *terminator, ArrayRef<std::string> wanted,
                      bool strict);
  std::string freshName(llvm::StringRef base);
  std::string nameOf(Value v) {
    if (isa<NoneType>(v.getType()))
      return "";
    auto it = names.find(v);
    return it == names.end() ? "" : it->second;
  }
  void claimName(Value v, llvm::StringRef wanted) {
    if (names.count(v))
      return;
    names[v] = (!wanted.empty() && used.insert(wanted).second)
                   ? wanted.str()
                   : freshName(wanted.empty() ? "t" : wanted);
  }
  /// The ONNX name a value asks for. A constant without one (its location,
  /// which held the node, was not printed) asks for its resource blob's
  /// key, which the importer took from the tensor's name: re-importing the
  /// model then gives the blob the same key, and the IR is identical.
  llvm::StringRef wantedName(Value v) {
    llvm::StringRef n = onnx::getTensorName(v);
    if (!n.empty())
      return n;
    if (auto cst = v.getDefiningOp<onnx::ConstantOp>())
      if (auto value = cst.getValue())
        if (auto res = dyn_cast<DenseResourceElementsAttr>(*value))
          return res.getRawHandle().getKey();
    return n;
  }
  std::string nodeName(Operation *op) {
    llvm::StringRef n = onnx::getNodeName(op);
    if (onnx::findNodeAttr(op->getLoc()))
      return n.str();
    return freshNodeName(op->getName().stripDialect());
  }
  std::string freshNodeName(llvm::StringRef base) {
    return ("amk_" + base + "_" + llvm::Twine(nodeCounter++)).str();
  }

  LogicalResult fail(Operation *op, const llvm::Twine &msg) {
    return op->emitError() << "cannot export " << onnx::describeOp(op)
                           << " to ONNX: " << msg;
  }

  ModuleOp module;
  const ONNXExportOptions &options;
  std::string outputDir;
  llvm::DenseMap<Value, std::string> names;
  /// Final output names of each graph terminator ("" keeps the value's).
  llvm::DenseMap<Operation *, SmallVector<std::string>> outputNames;
  llvm::StringSet<> used;
  unsigned counter = 0;
  unsigned nodeCounter = 0;
  std::unique_ptr<llvm::raw_fd_ostream> external;
  uint64_t externalOffset = 0;
};

std::string ModelExporter::freshName(llvm::StringRef base) {
  for (;;) {
    std::string n = (base + "__" + llvm::Twine(counter++)).str();
    if (used.insert(n).second)
      return n;
  }
}

/// Decides the names of a graph's outputs. A returned op result takes the
/// output name itself; anything else (an input, an initializer, a value
/// returned twice) keeps its name and gets an Identity node. Main-graph
/// output names are part of the model's interface and always win; a
/// subgraph output whose name is taken falls back to its value's name,
/// since subgraph outputs are positional.
void ModelExporter::reserveOutputs(Operation *terminator,
                                   ArrayRef<std::string> wanted, bool strict) {
  SmallVector<std::string> &final = outputNames[terminator];
  final.assign(wanted.begin(), wanted.end());
  for (auto [i, v] : llvm::enumerate(terminator->getOperands())) {
    const std::string &w = wanted[i];
    if (w.empty())
      continue;
    Operation *def = v.getDefiningOp();
    bool direct = def && def->getBlock() == terminator->getBlock() &&
                  onnx::findInitializerName(def->getLoc()).empty() &&
                  llvm::count(terminator->getOperands(), v) == 1 &&
                  !names.count(v);
    if (direct && used.insert(w).second) {
      names[v] = w;
      continue;
    }
    if (used.insert(w).second || strict)
      continue;       // Reserved for the Identity node.
    final[i].clear(); // Taken: use the value's own name.
  }
}

void ModelExporter::assignNames(Region &region) {
  region.walk([&](onnx::YieldOp yield) {
    SmallVector<std::string> wanted(yield.getNumOperands());
    if (onnx::NodeAttr node = onnx::findNodeAttr(yield->getLoc()))
      for (auto [i, a] : llvm::enumerate(node.getOutputs()))
        if (i < wanted.size())
          wanted[i] = cast<StringAttr>(a).str();
    reserveOutputs(yield, wanted, /*strict=*/false);
  });
  region.walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (BlockArgument arg : b.getArguments())
          claimName(arg, onnx::getTensorName(arg));
    for (Value res : op->getResults())
      if (!isa<NoneType>(res.getType()))
        claimName(res, wantedName(res));
  });
}

void ModelExporter::exportType(Type type, ::onnx::TypeProto &out,
                               ArrayAttr dimParams) {
  if (auto seq = dyn_cast<onnx::SeqType>(type)) {
    exportType(seq.getElementType(),
               *out.mutable_sequence_type()->mutable_elem_type(), nullptr);
    return;
  }
  if (auto opt = dyn_cast<onnx::OptType>(type)) {
    exportType(opt.getElementType(),
               *out.mutable_optional_type()->mutable_elem_type(), nullptr);
    return;
  }
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor)
    return;
  auto dt = onnx::getDataType(tensor.getElementType());
  auto *tt = out.mutable_tensor_type();
  tt->set_elem_type(dt ? static_cast<int32_t>(*dt) : 0);
  if (!tensor.hasRank())
    return;
  auto *shape = tt->mutable_shape();
  for (auto [i, d] : llvm::enumerate(tensor.getShape())) {
    auto *dim = shape->add_dim();
    llvm::StringRef param;
    if (dimParams && i < dimParams.size())
      param = cast<StringAttr>(dimParams[i]).getValue();
    if (!ShapedType::isDynamic(d))
      dim->set_dim_value(d);
    else if (!param.empty())
      dim->set_dim_param(param.str());
  }
}

void ModelExporter::addValueInfo(::onnx::GraphProto &graph, Value v) {
  Type t = v.getType();
  if (isa<NoneType, onnx::UnknownType>(t))
    return;
  auto *vi = graph.add_value_info();
  vi->set_name(nameOf(v));
  exportType(t, *vi->mutable_type(), nullptr);
}

LogicalResult ModelExporter::exportAttr(Operation *op, llvm::StringRef name,
                                        Attribute attr,
                                        std::optional<AttrKind> kind,
                                        ::onnx::AttributeProto &out) {
  using P = ::onnx::AttributeProto;
  out.set_name(name.str());
  // Generic ops carry no schema: the attribute's class gives its kind.
  if (!kind) {
    if (isa<IntegerAttr>(attr))
      kind = AttrKind::INT;
    else if (isa<FloatAttr>(attr))
      kind = AttrKind::FLOAT;
    else if (isa<StringAttr>(attr))
      kind = AttrKind::STRING;
    else if (isa<DenseI64ArrayAttr>(attr))
      kind = AttrKind::INTS;
    else if (isa<DenseF32ArrayAttr>(attr))
      kind = AttrKind::FLOATS;
    else if (isa<SparseElementsAttr>(attr))
      kind = AttrKind::SPARSE_TENSOR;
    else if (isa<ElementsAttr>(attr))
      kind = AttrKind::TENSOR;
    else if (isa<TypeAttr>(attr))
      kind = AttrKind::TYPE_PROTO;
    else if (auto arr = dyn_cast<ArrayAttr>(attr)) {
      if (!arr.empty() && isa<ElementsAttr>(arr[0]))
        kind = AttrKind::TENSORS;
      else if (!arr.empty() && isa<TypeAttr>(arr[0]))
        kind = AttrKind::TYPE_PROTOS;
      else
        kind = AttrKind::STRINGS;
    }
  }
  if (!kind)
    return fail(op, "attribute '" + name + "' has no ONNX encoding");
  auto mismatch = [&] {
    return fail(op, "attribute '" + name + "' is not a valid " +
                        onnx::stringifyAttrKind(*kind));
  };
  switch (*kind) {
  case AttrKind::INT: {
    auto a = dyn_cast<IntegerAttr>(attr);
    if (!a)
      return mismatch();
    out.set_type(P::INT);
    out.set_i(a.getValue().getSExtValue());
    return success();
  }
  case AttrKind::FLOAT: {
    auto a = dyn_cast<FloatAttr>(attr);
    if (!a)
      return mismatch();
    out.set_type(P::FLOAT);
    out.set_f(a.getValue().convertToFloat());
    return success();
  }
  case AttrKind::STRING: {
    auto a = dyn_cast<StringAttr>(attr);
    if (!a)
      return mismatch();
    out.set_type(P::STRING);
    out.set_s(a.getValue().str());
    return success();
  }
  case AttrKind::INTS: {
    auto a = dyn_cast<DenseI64ArrayAttr>(attr);
    if (!a)
      return mismatch();
    out.set_type(P::INTS);
    for (int64_t v : a.asArrayRef())
      out.add_ints(v);
    return success();
  }
  case AttrKind::FLOATS: {
    auto a = dyn_cast<DenseF32ArrayAttr>(attr);
    if (!a)
      return mismatch();
    out.set_type(P::FLOATS);
    for (float v : a.asArrayRef())
      out.add_floats(v);
    return success();
  }
  case AttrKind::STRINGS: {
    auto a = dyn_cast<ArrayAttr>(attr);
    if (!a)
      return mismatch();
    out.set_type(P::STRINGS);
    for (Attribute s : a) {
      auto str = dyn_cast<StringAttr>(s);
      if (!str)
        return mismatch();
      out.add_strings(str.getValue().str());
    }
    return success();
  }
  case AttrKind::TENSOR: {
    auto a = dyn_cast<ElementsAttr>(attr);
    if (!a)
      return mismatch();
    out.set_type(P::TENSOR);
    if (auto err = exportElementsAttr(a, *out.mutable_t()))
      return fail(op, "attribute '" + name +
                          "': " + llvm::toString(std::move(err)));
    return success();
  }
  case AttrKind::TENSORS: {
    auto a = dyn_cast<ArrayAttr>(attr);
    if (!a)
      return mismatch();
    out.set_type(P::TENSORS);
    for (Attribute e : a) {
      auto el = dyn_cast<ElementsAttr>(e);
      if (!el)
        return mismatch();
      if (auto err = exportElementsAttr(el, *out.add_tensors()))
        return fail(op, llvm::toString(std::move(err)));
    }
    return success();
  }
  case AttrKind::SPARSE_TENSOR: {
    auto a = dyn_cast<SparseElementsAttr>(attr);
    if (!a)
      return mismatch();
    out.set_type(P::SPARSE_TENSOR);
    auto *sp = out.mutable_sparse_tensor();
    for (int64_t d : a.getType().getShape())
      sp->add_dims(d);
    if (auto err = exportElementsAttr(a.getValues(), *sp->mutable_values()))
      return fail(op, llvm::toString(std::move(err)));
    if (auto err = exportElementsAttr(a.getIndices(), *sp->mutable_indices()))
      return fail(op, llvm::toString(std::move(err)));
    return success();
  }
  case AttrKind::TYPE_PROTO: {
    auto a = dyn_cast<TypeAttr>(attr);
    if (!a)
      return mismatch();
    out.set_type(P::TYPE_PROTO);
    exportType(a.getValue(), *out.mutable_tp(), nullptr);
    return success();
  }
  case AttrKind::TYPE_PROTOS: {
    auto a = dyn_cast<ArrayAttr>(attr);
    if (!a)
      return mismatch();
    out.set_type(P::TYPE_PROTOS);
    for (Attribute t : a) {
      auto ta = dyn_cast<TypeAttr>(t);
      if (!ta)
        return mismatch();
      exportType(ta.getValue(), *out.add_type_protos(), nullptr);
    }
    return success();
  }
  case AttrKind::GRAPH:
  case AttrKind::GRAPHS:
  case AttrKind::SPARSE_TENSORS:
    break;
  }
  return fail(op, "attribute '" + name + "' of kind " +
                      onnx::stringifyAttrKind(*kind) + " is not supported");
}

LogicalResult ModelExporter::exportRegion(Operation *op, Region &region,
                                          llvm::StringRef name,
                                          ::onnx::AttributeProto &out) {
  out.set_name(name.str());
  out.set_type(::onnx::AttributeProto::GRAPH);
  auto *g = out.mutable_g();
  g->set_name(name.str());
  return exportGraph(region, *g, nullptr);
}

LogicalResult ModelExporter::exportTypedOp(Operation *op,
                                           ::onnx::NodeProto &node,
                                           ::onnx::GraphProto &graph) {
  llvm::StringRef opType = op->getName().stripDialect();
  const onnx::OpInfo *info = onnx::lookupOpInfo(opType);
  if (!info)
    return fail(op, "no ONNX schema");
  int64_t opset = onnx::getDefaultOpset(op);
  const onnx::VersionInfo *v = info->selectVersion(opset);
  if (!v)
    return fail(op, llvm::Twine(opType) + " does not exist at opset " +
                        llvm::Twine(opset));
  std::string vname = (opType + "-" + llvm::Twine(v->since)).str();
  node.set_op_type(opType.str());

  auto emitParams = [&](ValueRange values, ArrayRef<onnx::SlotInfo> slots,
                        ArrayRef<onnx::ParamInfo> params, bool isInput,
                        auto add) -> LogicalResult {
    size_t fixed = onnx::getNumFixedSlots(slots);
    // Every present value must belong to a parameter of this version.
    for (auto [i, val] : llvm::enumerate(values)) {
      if (isa<NoneType>(val.getType()))
        continue;
      unsigned slot = std::min<unsigned>(i, fixed);
      bool mapped = llvm::any_of(
          params, [&](const onnx::ParamInfo &p) { return p.slot == slot; });
      if (!mapped)
        return fail(
            op, llvm::Twine(isInput ? "input '" : "output '") +
                    slots[std::min<size_t>(slot, slots.size() - 1)].onnxName +
                    "' does not exist in " + vname);
    }
    SmallVector<std::string> out;
    for (const onnx::ParamInfo &p : params) {
      if (p.slot < fixed) {
        out.push_back(p.slot < values.size() ? nameOf(values[p.slot]) : "");
        continue;
      }
      for (Value val :
           values.drop_front(std::min<size_t>(fixed, values.size())))
        out.push_back(nameOf(val));
    }
    while (!out.empty() && out.back().empty())
      out.pop_back();
    for (const std::string &s : out)
      add(s);
    return success();
  };
  if (failed(emitParams(op->getOperands(), info->inSlots.get(), v->inputs.get(),
                        true,
                        [&](const std::string &s) { node.add_input(s); })) ||
      failed(emitParams(op->getResults(), info->outSlots.get(),
                        v->outputs.get(), false,
                        [&](const std::string &s) { node.add_output(s); })))
    return failure();

  for (StringAttr name :
       op->getName().getRegisteredInfo()->getAttributeNames()) {
    Attribute attr = op->getInherentAttr(name).value_or(Attribute());
    if (!attr)
      continue;
    const onnx::AttrInfo *ai = v->findAttr(name.getValue());
    if (!ai)
      return fail(op, "attribute '" + name.getValue() + "' does not exist in " +
                          vname);
    if (failed(exportAttr(op, name.getValue(), attr, ai->kind,
                          *node.add_attribute())))
      return failure();
  }
  // Region names follow the ODS order, which the generator chose.
  SmallVector<llvm::StringRef> regionNames;
  if (opType == "If")
    regionNames = {"then_branch", "else_branch"};
  else if (op->getNumRegions() == 1)
    regionNames = {"body"};
  for (auto [region, name] : llvm::zip(op->getRegions(), regionNames))
    if (failed(exportRegion(op, region, name, *node.add_attribute())))
      return failure();
  (void)graph;
  return success();
}

LogicalResult ModelExporter::exportGenericOp(onnx::GenericOp op,
                                             ::onnx::NodeProto &node) {
  node.set_op_type(op.getOpType().str());
  if (!op.getDomain().empty())
    node.set_domain(op.getDomain().str());
  for (Value in : op.getInputs())
    node.add_input(nameOf(in));
  while (node.input_size() && node.input(node.input_size() - 1).empty())
    node.mutable_input()->RemoveLast();
  for (Value out : op.getOutputs())
    node.add_output(nameOf(out));
  while (node.output_size() && node.output(node.output_size() - 1).empty())
    node.mutable_output()->RemoveLast();
  for (NamedAttribute attr : op.getOnnxAttrs())
    if (failed(exportAttr(op, attr.getName().getValue(), attr.getValue(),
                          std::nullopt, *node.add_attribute())))
      return failure();
  for (auto [region, name] :
       llvm::zip(op.getGraphs(), op.getRegionNames().getValue()))
    if (failed(exportRegion(op, region, cast<StringAttr>(name).getValue(),
                            *node.add_attribute())))
      return failure();
  return success();
}

LogicalResult ModelExporter::exportInitializer(onnx::ConstantOp op,
                                               ::onnx::GraphProto &graph) {
  auto *t = graph.add_initializer();
  t->set_name(nameOf(op.getResult()));
  if (auto err = exportElementsAttr(*op.getValue(), *t))
    return fail(op, llvm::toString(std::move(err)));
  // An initializer that is also a graph input (IR < 4 models).
  if (op->hasAttr("onnx.input_name")) {
    auto *vi = graph.add_input();
    vi->set_name(t->name());
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(t->data_type());
    auto *shape = tt->mutable_shape();
    for (int64_t d : t->dims())
      shape->add_dim()->set_dim_value(d);
  }
  if (options.externalDataFile.empty() ||
      t->raw_data().size() <= options.externalDataThreshold)
    return success();
  if (!external) {
    llvm::SmallString<256> p(outputDir);
    llvm::sys::path::append(p, options.externalDataFile);
    std::error_code ec;
    external = std::make_unique<llvm::raw_fd_ostream>(p, ec);
    if (ec)
      return fail(op, "cannot write external data file '" + p +
                          "': " + ec.message());
  }
  // Align each tensor to 64 bytes so the file can be mapped and used as is.
  uint64_t pad = (64 - externalOffset % 64) % 64;
  external->write_zeros(pad);
  externalOffset += pad;
  const std::string &raw = t->raw_data();
  external->write(raw.data(), raw.size());
  auto addKV = [&](const std::string &k, const std::string &v) {
    auto *kv = t->add_external_data();
    kv->set_key(k);
    kv->set_value(v);
  };
  addKV("location", options.externalDataFile);
  addKV("offset", std::to_string(externalOffset));
  addKV("length", std::to_string(raw.size()));
  externalOffset += raw.size();
  t->clear_raw_data();
  t->set_data_location(::onnx::TensorProto::EXTERNAL);
  return success();
}

LogicalResult ModelExporter::exportOp(Operation *op,
                                      ::onnx::GraphProto &graph) {
  if (isa<onnx::NoValueOp, func::ReturnOp, onnx::YieldOp>(op))
    return success();
  if (auto cst = dyn_cast<onnx::ConstantOp>(op)) {
    bool fromNode = static_cast<bool>(onnx::findNodeAttr(op->getLoc()));
    if (!fromNode && cst.getValue() &&
        !isa<SparseElementsAttr>(*cst.getValue()))
      return exportInitializer(cst, graph);
  }
  ::onnx::NodeProto node;
  node.set_name(nodeName(op));
  if (auto generic = dyn_cast<onnx::GenericOp>(op)) {
    if (failed(exportGenericOp(generic, node)))
      return failure();
  } else if (isa<onnx::ONNXDialect>(op->getDialect())) {
    if (failed(exportTypedOp(op, node, graph)))
      return failure();
  } else {
    return fail(op, "only onnx dialect ops can be exported");
  }
  *graph.add_node() = std::move(node);
  return success();
}

LogicalResult ModelExporter::exportGraph(Region &region,
                                         ::onnx::GraphProto &graph,
                                         func::FuncOp func) {
  Block &block = region.front();
  Operation *terminator = block.getTerminator();
  // Graph inputs.
  for (BlockArgument arg : block.getArguments()) {
    auto *vi = graph.add_input();
    vi->set_name(nameOf(arg));
    ArrayAttr dp = func ? func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(),
                                                           "onnx.dim_params")
                        : nullptr;
    if (!isa<onnx::UnknownType>(arg.getType()))
      exportType(arg.getType(), *vi->mutable_type(), dp);
  }
  // Nodes and initializers.
  for (Operation &op : block)
    if (failed(exportOp(&op, graph)))
      return failure();
  // Graph outputs: names decided by reserveOutputs.
  ArrayRef<std::string> wanted = outputNames[terminator];
  llvm::DenseSet<Value> outputValues;
  for (auto [i, v] : llvm::enumerate(terminator->getOperands())) {
    std::string have = nameOf(v);
    std::string name =
        i < wanted.size() && !wanted[i].empty() ? wanted[i] : have;
    if (name != have) {
      auto *id = graph.add_node();
      id->set_op_type("Identity");
      id->set_name(freshNodeName("Identity"));
      id->add_input(have);
      id->add_output(name);
    }
    outputValues.insert(v);
    auto *vi = graph.add_output();
    vi->set_name(name);
    ArrayAttr dp =
        func ? func.getResultAttrOfType<ArrayAttr>(i, "onnx.dim_params")
             : nullptr;
    if (!isa<onnx::UnknownType>(v.getType()))
      exportType(v.getType(), *vi->mutable_type(), dp);
  }
  // Types of intermediate values, so a re-import needs no inference.
  for (Operation &op : block) {
    if (isa<onnx::NoValueOp>(op))
      continue;
    if (auto cst = dyn_cast<onnx::ConstantOp>(op))
      if (!onnx::findNodeAttr(op.getLoc()))
        continue; // Initializers carry their own type.
    for (Value r : op.getResults())
      if (!outputValues.contains(r))
        addValueInfo(graph, r);
  }
  return success();
}

static bool usesDefaultDomain(const ::onnx::GraphProto &graph) {
  for (const auto &node : graph.node()) {
    if (node.domain().empty() || node.domain() == "ai.onnx")
      return true;
    for (const auto &attr : node.attribute())
      if (attr.has_g() && usesDefaultDomain(attr.g()))
        return true;
  }
  return false;
}

LogicalResult ModelExporter::run(::onnx::ModelProto &model) {
  func::FuncOp func = module.lookupSymbol<func::FuncOp>("main_graph");
  if (!func) {
    auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
    if (funcs.size() != 1)
      return module.emitError(
          "cannot export to ONNX: the module needs a function @main_graph "
          "or exactly one function");
    func = funcs.front();
  }
  if (func.isExternal())
    return func.emitError("cannot export a function without a body");

  auto getInt = [&](llvm::StringRef n, int64_t dflt) {
    auto a = module->getAttrOfType<IntegerAttr>(n);
    return a ? a.getInt() : dflt;
  };
  auto getStr = [&](llvm::StringRef n) -> std::string {
    auto a = module->getAttrOfType<StringAttr>(n);
    return a ? a.str() : "";
  };
  // IR version 8 (ONNX 1.10) reads in every runtime we test against.
  model.set_ir_version(getInt("onnx.ir_version", 8));
  model.set_producer_name(getStr("onnx.producer_name"));
  model.set_producer_version(getStr("onnx.producer_version"));
  model.set_domain(getStr("onnx.domain"));
  model.set_doc_string(getStr("onnx.doc_string"));
  if (int64_t mv = getInt("onnx.model_version", 0))
    model.set_model_version(mv);
  if (auto props = module->getAttrOfType<DictionaryAttr>("onnx.metadata_props"))
    for (NamedAttribute kv : props) {
      auto *p = model.add_metadata_props();
      p->set_key(kv.getName().str());
      if (auto s = dyn_cast<StringAttr>(kv.getValue()))
        p->set_value(s.str());
    }
  auto imports = module->getAttrOfType<DictionaryAttr>(onnx::kOpsetImportAttr);
  bool hasDefault = false;
  if (imports)
    for (NamedAttribute kv : imports) {
      auto *imp = model.add_opset_import();
      llvm::StringRef domain = kv.getName().getValue();
      hasDefault |= domain == onnx::kDefaultDomain;
      imp->set_domain(domain == onnx::kDefaultDomain ? "" : domain.str());
      imp->set_version(cast<IntegerAttr>(kv.getValue()).getInt());
    }

  // Names: graph inputs and outputs first, so they keep their names.
  Region &body = func.getBody();
  for (BlockArgument arg : body.getArguments()) {
    auto n =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), onnx::kNameAttr);
    claimName(arg, n ? n.getValue() : "input");
  }
  Operation *ret = body.front().getTerminator();
  SmallVector<std::string> wanted;
  for (unsigned i = 0; i < ret->getNumOperands(); ++i) {
    auto n = func.getResultAttrOfType<StringAttr>(i, onnx::kNameAttr);
    wanted.push_back(n ? n.str() : "output_" + std::to_string(i));
  }
  reserveOutputs(ret, wanted, /*strict=*/true);
  for (auto cst : body.getOps<onnx::ConstantOp>())
    if (auto n = cst->getAttrOfType<StringAttr>("onnx.input_name"))
      claimName(cst.getResult(), n.getValue());
  assignNames(body);

  auto *graph = model.mutable_graph();
  if (auto n = func->getAttrOfType<StringAttr>("onnx.graph_name"))
    graph->set_name(n.str());
  else
    graph->set_name(func.getSymName().str());
  if (auto d = func->getAttrOfType<StringAttr>("onnx.doc_string"))
    graph->set_doc_string(d.str());
  if (failed(exportGraph(body, *graph, func)))
    return failure();
  if (external)
    external->close();
  // A module written by hand may use typed ops without recording an opset:
  // they are at the default opset, which the model must then import.
  if (!hasDefault && usesDefaultDomain(*graph)) {
    auto *imp = model.add_opset_import();
    imp->set_domain("");
    imp->set_version(onnx::kDefaultOpset);
  }
  return success();
}

LogicalResult exportModel(ModuleOp module, const ONNXExportOptions &options,
                          llvm::StringRef outputDir,
                          ::onnx::ModelProto &model) {
  ModelExporter exporter(module, options, outputDir);
  if (failed(exporter.run(model)))
    return failure();
  if (!options.text && model.ByteSizeLong() > static_cast<size_t>(INT_MAX))
    return module.emitError()
           << "the model is larger than protobuf's 2 GB limit; export with "
              "external data (--onnx-external-data=<file>)";
  return success();
}

} // namespace

LogicalResult exportONNXToStream(ModuleOp module, llvm::raw_ostream &os,
                                 const ONNXExportOptions &options) {
  ::onnx::ModelProto model;
  ONNXExportOptions opts = options;
  opts.externalDataFile.clear();
  if (failed(exportModel(module, opts, ".", model)))
    return failure();
  if (options.text) {
    if (auto err = printONNXText(model, os))
      return module.emitError(llvm::toString(std::move(err)));
    return success();
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return module.emitError("protobuf serialization failed");
  os << bytes;
  return success();
}

LogicalResult exportONNXToFile(ModuleOp module, llvm::StringRef path,
                               const ONNXExportOptions &options) {
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  ::onnx::ModelProto model;
  if (failed(exportModel(module, options, dir, model)))
    return failure();
  if (options.text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return module.emitError()
             << "cannot write '" << path << "': " << ec.message();
    if (auto err = printONNXText(model, os))
      return module.emitError(llvm::toString(std::move(err)));
    return success();
  }
  int fd = ::open(path.str().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return module.emitError() << "cannot write '" << path << "'";
  bool ok;
  {
    google::protobuf::io::FileOutputStream out(fd);
    ok = model.SerializeToZeroCopyStream(&out) && out.Flush();
  }
  ::close(fd);
  if (!ok)
    return module.emitError() << "failed to write '" << path << "'";
  return success();
}

} // namespace amk
