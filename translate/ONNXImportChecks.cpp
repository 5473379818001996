//===- ONNXImportChecks.cpp - Checks before libonnx's inference -----------===//
//
// Part of AMK. libonnx's shape inference crashes on models it assumes are
// well formed (each case found by test/fuzz); these checks run before it
// and refuse such a model with a message naming the node and the rule.
//
//===----------------------------------------------------------------------===//

#include "translate/ONNXImporter.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>

namespace amk::importer {

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
      "Conv",        "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool",
      "AveragePool", "LpPool",        "MaxUnpool",   "DeformConv"};
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
      return required ? std::string(what) + " '" + vi.name() + "' has no type"
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
          std::string e = checkBeforeInference(g, opsets, depth + 1, defined);
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
      bool positive =
          name == "strides" || name == "dilations" || name == "kernel_shape";
      bool perDim =
          positive || name == "output_padding" || name == "output_shape";
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
    int wIndex = node.op_type() == "QLinearConv"                    ? 3
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

} // namespace amk::importer
