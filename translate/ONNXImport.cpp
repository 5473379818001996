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
#include "translate/ONNXImporter.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <fcntl.h>
#include <unistd.h>

#include <climits>
#include <map>

using namespace mlir;

namespace amk::importer {

std::string describeNode(const ::onnx::NodeProto &node,
                         const std::map<std::string, int64_t> &opsets) {
  std::string domain = node.domain().empty() ? "ai.onnx" : node.domain();
  auto it = opsets.find(domain);
  std::string ver = it == opsets.end() ? "?" : std::to_string(it->second);
  std::string name = node.name().empty() ? "<unnamed>" : node.name();
  return "node '" + name + "' (" + node.op_type() + ", " + domain +
         " opset " + ver + ")";
}

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

} // namespace amk::importer

namespace amk {
namespace {

using importer::checkBeforeInference;
using importer::checkSchemas;
using importer::ModelImporter;

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

/// Clears the empty types (a TypeProto with nothing set) of `graph`'s
/// outputs and value_info, and of its inputs when it is a body, at every
/// depth: PyTorch writes If branch outputs that way at opsets 15-16, and
/// ONNX Runtime infers their types. An empty type then means what a
/// missing one means: inferred. A main graph input must still say its type.
void dropEmptyTypes(::onnx::GraphProto &graph, bool body) {
  auto drop = [](::onnx::ValueInfoProto &vi) {
    if (vi.has_type() &&
        vi.type().value_case() == ::onnx::TypeProto::VALUE_NOT_SET)
      vi.clear_type();
  };
  if (body)
    for (auto &vi : *graph.mutable_input())
      drop(vi);
  for (auto &vi : *graph.mutable_output())
    drop(vi);
  for (auto &vi : *graph.mutable_value_info())
    drop(vi);
  for (auto &node : *graph.mutable_node())
    for (auto &attr : *node.mutable_attribute()) {
      if (attr.has_g())
        dropEmptyTypes(*attr.mutable_g(), true);
      for (auto &g : *attr.mutable_graphs())
        dropEmptyTypes(g, true);
    }
}

OwningOpRef<ModuleOp> importModel(::onnx::ModelProto &model,
                                  llvm::StringRef path, MLIRContext *ctx,
                                  const ONNXImportOptions &options) {
  ctx->loadDialect<onnx::ONNXDialect, func::FuncDialect>();
  if (model.has_graph())
    dropEmptyTypes(*model.mutable_graph(), false);
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
