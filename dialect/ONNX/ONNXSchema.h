//===- ONNXSchema.h - Per-version ONNX operator schemas ---------*- C++ -*-===//
//
// Part of AMK. The generated table (ONNXSchemaTable.inc) describes every
// version of every typed op: its inputs, outputs, attributes and type
// constraints, and where each input lands among the op's union operands.
// The importer, the exporter and the verifiers all read this one table, so
// they cannot disagree about what an ONNX version allows.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_ONNX_ONNXSCHEMA_H
#define AMK_DIALECT_ONNX_ONNXSCHEMA_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace amk::onnx {

/// Opsets whose operator versions AMK models.
constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 21;
/// The default-domain opset assumed when a module records none.
constexpr int64_t kDefaultOpset = kMaxOpset;
/// Name of the module attribute mapping each domain to its opset version.
constexpr llvm::StringLiteral kOpsetImportAttr = "onnx.opset_import";
/// The default ONNX domain as spelled in `onnx.opset_import`.
constexpr llvm::StringLiteral kDefaultDomain = "ai.onnx";

enum class ParamOption : uint8_t { Single, Optional, Variadic };

/// ONNX AttributeProto.AttributeType, spelled as in onnx.proto.
enum class AttrKind : uint8_t {
  FLOAT,
  INT,
  STRING,
  TENSOR,
  GRAPH,
  SPARSE_TENSOR,
  TYPE_PROTO,
  FLOATS,
  INTS,
  STRINGS,
  TENSORS,
  GRAPHS,
  SPARSE_TENSORS,
  TYPE_PROTOS,
};

llvm::StringRef stringifyAttrKind(AttrKind kind);

template <typename T> struct TableSpan {
  const T *data;
  size_t size;
  llvm::ArrayRef<T> get() const { return llvm::ArrayRef<T>(data, size); }
};

/// One input or output of one version.
struct ParamInfo {
  const char *name;
  /// A type parameter ("T") or a fixed ONNX type ("tensor(int64)").
  const char *type;
  ParamOption option;
  /// Index of the union operand/result this parameter maps to.
  unsigned slot;
  /// For variadic parameters: whether all values share one type.
  bool homogeneous;
};

struct AttrInfo {
  const char *name;
  AttrKind kind;
  bool required;
};

struct TypeConstraintInfo {
  const char *param;
  /// Comma-separated ONNX type strings.
  const char *allowed;
};

struct VersionInfo {
  int64_t since;
  bool deprecated;
  TableSpan<ParamInfo> inputs;
  TableSpan<ParamInfo> outputs;
  TableSpan<AttrInfo> attrs;
  TableSpan<TypeConstraintInfo> types;

  const AttrInfo *findAttr(llvm::StringRef name) const;
  /// The parameter mapped to union slot `slot`, or null.
  const ParamInfo *findInputForSlot(unsigned slot) const;
  const ParamInfo *findOutputForSlot(unsigned slot) const;
  /// Allowed types of a parameter; empty when `type` is a fixed type.
  llvm::StringRef allowedTypes(llvm::StringRef typeParam) const;
};

/// A union operand or result: its ONNX name and its ODS accessor name.
struct SlotInfo {
  const char *onnxName;
  const char *odsName;
  /// The loosest option over all versions: Single only if every version
  /// requires it; at most the last slot is Variadic.
  ParamOption option;
};

/// Number of slots before the variadic one (all of them if none is).
inline size_t getNumFixedSlots(llvm::ArrayRef<SlotInfo> slots) {
  return slots.size() -
         (!slots.empty() && slots.back().option == ParamOption::Variadic ? 1
                                                                         : 0);
}

struct OpInfo {
  const char *name;
  TableSpan<VersionInfo> versions;
  TableSpan<SlotInfo> inSlots;
  TableSpan<SlotInfo> outSlots;

  /// The version in force at `opset`: the newest one not newer than it.
  const VersionInfo *selectVersion(int64_t opset) const;
};

/// An ONNX operator version that AMK keeps as onnx.Generic although the
/// operator has a typed op (its operands do not fit the typed op).
struct UntypedVersion {
  const char *name;
  int64_t since;
};

/// Whether the version of `opType` in force at `opset` is untyped.
bool isUntypedVersion(llvm::StringRef opType, int64_t opset);

/// Schema of the typed op for ONNX operator `opType`, or null.
const OpInfo *lookupOpInfo(llvm::StringRef opType);
/// Every typed op, sorted by name.
llvm::ArrayRef<OpInfo> getAllOpInfos();

/// Opset version of `domain` in force for `op`, read from the nearest
/// enclosing `onnx.opset_import`; the empty domain means ai.onnx.
std::optional<int64_t> getOpsetVersion(mlir::Operation *op,
                                       llvm::StringRef domain = "");
/// The default-domain opset for `op` (kDefaultOpset when none is recorded).
int64_t getDefaultOpset(mlir::Operation *op);

/// Schema version of the typed op `op` at its opset, or null when the op
/// is not a typed op or did not exist at that opset.
const VersionInfo *getVersionInfo(mlir::Operation *op);

/// Table-driven verification of a typed op against the version in force:
/// which inputs, outputs and attributes exist, required ones, and element
/// type constraints.
llvm::LogicalResult verifyAgainstSchema(mlir::Operation *op);

/// The default of attribute `attr` of ONNX operator `opType` when it is the
/// same in every version that has the attribute (from the ONNX schemas);
/// nullopt when there is none or it depends on the version.
std::optional<mlir::Attribute> getAttrDefault(mlir::MLIRContext *ctx,
                                              llvm::StringRef opType,
                                              llvm::StringRef attr);

/// ONNX type string of an MLIR type ("tensor(float)", "seq(tensor(int64))"),
/// or empty for types with no ONNX spelling (!onnx.unknown, none).
std::string getONNXTypeString(mlir::Type type);

} // namespace amk::onnx

#endif // AMK_DIALECT_ONNX_ONNXSCHEMA_H
