//===- ONNXImporter.h - The importer's state, between its files -*- C++ -*-===//
//
// Part of AMK. Internal to the ONNX importer: ONNXImport.cpp holds the
// entry points and the model level, ONNXImportChecks.cpp what is checked
// before libonnx's shape inference, ONNXImportGraph.cpp types and graphs,
// ONNXImportNodes.cpp nodes and their attributes. Only this library
// includes it (it needs libonnx's protobuf headers).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSLATE_ONNXIMPORTER_H
#define AMK_TRANSLATE_ONNXIMPORTER_H

#include "translate/ONNXImport.h"

#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <set>
#include <string>

namespace amk::importer {

// The importer's files spell MLIR's names unqualified.
using mlir::ArrayRef;
using mlir::Attribute;
using mlir::Block;
using mlir::ElementsAttr;
using mlir::failure;
using mlir::FailureOr;
using mlir::FileLineColLoc;
using mlir::Location;
using mlir::LogicalResult;
using mlir::MLIRContext;
using mlir::ModuleOp;
using mlir::OpBuilder;
using mlir::OwningOpRef;
using mlir::Region;
using mlir::SmallVector;
using mlir::Type;
using mlir::UnknownLoc;
using mlir::Value;

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
                         const std::map<std::string, int64_t> &opsets);

/// What libonnx's shape inference assumes and does not check; empty when
/// the graph is safe to hand to it (ONNXImportChecks.cpp).
std::string checkBeforeInference(const ::onnx::GraphProto &graph,
                                 const std::map<std::string, int64_t> &opsets,
                                 unsigned depth,
                                 const std::set<std::string> &outer);

/// The first node that does not match its libonnx schema; empty if none
/// (ONNXImportChecks.cpp).
std::string checkSchemas(const ::onnx::GraphProto &graph,
                         const std::map<std::string, int64_t> &opsets,
                         unsigned depth);

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

} // namespace amk::importer

#endif // AMK_TRANSLATE_ONNXIMPORTER_H
