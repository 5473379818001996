//===- ONNXSchema.cpp - Per-version ONNX operator schemas -----------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXSchema.h"

#include "mlir/AsmParser/AsmParser.h"
#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace amk::onnx {
namespace {
#include "dialect/ONNX/ONNXSchemaTable.inc"
} // namespace

StringRef stringifyAttrKind(AttrKind kind) {
  switch (kind) {
  case AttrKind::FLOAT:
    return "FLOAT";
  case AttrKind::INT:
    return "INT";
  case AttrKind::STRING:
    return "STRING";
  case AttrKind::TENSOR:
    return "TENSOR";
  case AttrKind::GRAPH:
    return "GRAPH";
  case AttrKind::SPARSE_TENSOR:
    return "SPARSE_TENSOR";
  case AttrKind::TYPE_PROTO:
    return "TYPE_PROTO";
  case AttrKind::FLOATS:
    return "FLOATS";
  case AttrKind::INTS:
    return "INTS";
  case AttrKind::STRINGS:
    return "STRINGS";
  case AttrKind::TENSORS:
    return "TENSORS";
  case AttrKind::GRAPHS:
    return "GRAPHS";
  case AttrKind::SPARSE_TENSORS:
    return "SPARSE_TENSORS";
  case AttrKind::TYPE_PROTOS:
    return "TYPE_PROTOS";
  }
  return "UNDEFINED";
}

const AttrInfo *VersionInfo::findAttr(StringRef name) const {
  for (const AttrInfo &a : attrs.get())
    if (name == a.name)
      return &a;
  return nullptr;
}

const ParamInfo *VersionInfo::findInputForSlot(unsigned slot) const {
  for (const ParamInfo &p : inputs.get())
    if (p.slot == slot)
      return &p;
  return nullptr;
}

const ParamInfo *VersionInfo::findOutputForSlot(unsigned slot) const {
  for (const ParamInfo &p : outputs.get())
    if (p.slot == slot)
      return &p;
  return nullptr;
}

StringRef VersionInfo::allowedTypes(StringRef typeParam) const {
  for (const TypeConstraintInfo &t : types.get())
    if (typeParam == t.param)
      return t.allowed;
  return "";
}

const VersionInfo *OpInfo::selectVersion(int64_t opset) const {
  const VersionInfo *best = nullptr;
  for (const VersionInfo &v : versions.get())
    if (v.since <= opset)
      best = &v;
  return best;
}

bool isUntypedVersion(StringRef opType, int64_t opset) {
  for (const UntypedVersion &u : kUntypedVersions) {
    if (opType != u.name || opset < u.since)
      continue;
    // In force unless a typed version at or below `opset` supersedes it.
    const OpInfo *info = lookupOpInfo(opType);
    const VersionInfo *v = info ? info->selectVersion(opset) : nullptr;
    if (!v || v->since < u.since)
      return true;
  }
  return false;
}

ArrayRef<OpInfo> getAllOpInfos() { return ArrayRef<OpInfo>(kOpInfos); }

const OpInfo *lookupOpInfo(StringRef opType) {
  static const llvm::StringMap<const OpInfo *> map = [] {
    llvm::StringMap<const OpInfo *> m;
    for (const OpInfo &info : kOpInfos)
      m[info.name] = &info;
    return m;
  }();
  auto it = map.find(opType);
  return it == map.end() ? nullptr : it->second;
}

std::optional<int64_t> getOpsetVersion(Operation *op, StringRef domain) {
  if (domain.empty() || domain == "ai.onnx")
    domain = kDefaultDomain;
  for (Operation *p = op; p; p = p->getParentOp()) {
    auto imports = p->getAttrOfType<DictionaryAttr>(kOpsetImportAttr);
    if (!imports)
      continue;
    if (auto v = imports.getAs<IntegerAttr>(domain))
      return v.getInt();
    return std::nullopt;
  }
  return std::nullopt;
}

int64_t getDefaultOpset(Operation *op) {
  return getOpsetVersion(op).value_or(kDefaultOpset);
}

const VersionInfo *getVersionInfo(Operation *op) {
  if (!isa_and_nonnull<ONNXDialect>(op->getDialect()))
    return nullptr;
  const OpInfo *info = lookupOpInfo(op->getName().stripDialect());
  return info ? info->selectVersion(getDefaultOpset(op)) : nullptr;
}

std::string getONNXTypeString(Type type) {
  if (auto seq = dyn_cast<SeqType>(type)) {
    std::string inner = getONNXTypeString(seq.getElementType());
    return inner.empty() ? "" : "seq(" + inner + ")";
  }
  if (auto opt = dyn_cast<OptType>(type)) {
    std::string inner = getONNXTypeString(opt.getElementType());
    return inner.empty() ? "" : "optional(" + inner + ")";
  }
  if (auto tensor = dyn_cast<TensorType>(type)) {
    auto dt = getDataType(tensor.getElementType());
    if (!dt)
      return "";
    return ("tensor(" + getDataTypeName(*dt) + ")").str();
  }
  return "";
}

namespace {

/// Whether `typeStr` is one of the comma-separated entries of `allowed`.
bool isAllowed(StringRef allowed, StringRef typeStr) {
  while (!allowed.empty()) {
    auto [head, tail] = allowed.split(',');
    if (head == typeStr)
      return true;
    allowed = tail;
  }
  return false;
}

std::string describeAllowed(StringRef allowed) {
  std::string s = allowed.str();
  std::replace(s.begin(), s.end(), ',', ' ');
  return s;
}

/// The operands (or results) of `values` that belong to union slot `slot`.
/// Only the last slot can be variadic and it takes what is left.
ValueRange slotValues(ValueRange values, unsigned numSlots, unsigned slot) {
  if (slot + 1 < numSlots)
    return slot < values.size() ? values.slice(slot, 1) : ValueRange();
  if (slot >= values.size())
    return ValueRange();
  return values.drop_front(slot);
}

struct TypeBinding {
  std::string typeStr;
  std::string where;
};

class SchemaVerifier {
public:
  SchemaVerifier(Operation *op, const OpInfo &info, const VersionInfo &v)
      : op(op), info(info), v(v) {}

  LogicalResult run() {
    if (failed(checkParams(op->getOperands(), info.inSlots.get(), true)) ||
        failed(checkParams(op->getResults(), info.outSlots.get(), false)) ||
        failed(checkAttrs()))
      return failure();
    return success();
  }

private:
  std::string versionName() const {
    return (Twine(info.name) + "-" + Twine(v.since)).str();
  }

  LogicalResult checkParams(ValueRange values, ArrayRef<SlotInfo> slots,
                            bool isInput) {
    StringRef kind = isInput ? "input" : "output";
    for (unsigned s = 0; s < slots.size(); ++s) {
      ValueRange vals = slotValues(values, slots.size(), s);
      unsigned present = llvm::count_if(
          vals, [](Value x) { return !isa<NoneType>(x.getType()); });
      const ParamInfo *p =
          isInput ? v.findInputForSlot(s) : v.findOutputForSlot(s);
      if (!p) {
        if (present)
          return op->emitOpError()
                 << kind << " '" << slots[s].onnxName << "' does not exist in "
                 << versionName() << " (opset " << getDefaultOpset(op) << ")";
        continue;
      }
      if (p->option == ParamOption::Single && present != 1)
        return op->emitOpError() << "requires " << kind << " '" << p->name
                                 << "' of " << versionName();
      if (p->option != ParamOption::Variadic && vals.size() > 1)
        return op->emitOpError() << "has " << vals.size() << " values for "
                                 << kind << " '" << p->name << "'";
      unsigned idx = 0;
      for (Value x : vals) {
        if (failed(checkType(x, *p, kind, idx++)))
          return failure();
      }
    }
    return success();
  }

  LogicalResult checkType(Value x, const ParamInfo &p, StringRef kind,
                          unsigned idx) {
    if (isa<NoneType>(x.getType()))
      return success();
    std::string ts = getONNXTypeString(x.getType());
    if (ts.empty())
      return success(); // Unknown types are checked once they are inferred.
    std::string where =
        (Twine(kind) + " '" + p.name + "'" +
         (p.option == ParamOption::Variadic ? "[" + Twine(idx) + "]"
                                            : Twine("")))
            .str();
    StringRef param = p.type;
    if (param.contains('(')) {
      // A fixed type such as tensor(int64).
      if (ts != param)
        return op->emitOpError() << where << " must be " << param << " in "
                                 << versionName() << ", got " << ts;
      return success();
    }
    StringRef allowed = v.allowedTypes(param);
    if (!allowed.empty() && !isAllowed(allowed, ts))
      return op->emitOpError()
             << where << " has type " << ts << ", which type constraint "
             << param << " of " << versionName()
             << " does not allow (allowed: " << describeAllowed(allowed) << ")";
    // Heterogeneous variadics (Loop's loop-carried values) bind per value.
    if (p.option == ParamOption::Variadic && !p.homogeneous)
      return success();
    auto [it, inserted] = bindings.try_emplace(param, TypeBinding{ts, where});
    if (!inserted && it->second.typeStr != ts)
      return op->emitOpError()
             << where << " has type " << ts << " but " << it->second.where
             << " has type " << it->second.typeStr << "; both are " << param
             << " in " << versionName();
    return success();
  }

  LogicalResult checkAttrs() {
    auto registered = op->getName().getRegisteredInfo();
    for (StringAttr name : registered->getAttributeNames()) {
      if (!op->getInherentAttr(name.getValue()).value_or(Attribute()))
        continue;
      if (!v.findAttr(name.getValue()))
        return op->emitOpError()
               << "attribute '" << name.getValue() << "' does not exist in "
               << versionName() << " (opset " << getDefaultOpset(op) << ")";
    }
    for (const AttrInfo &a : v.attrs.get()) {
      if (!a.required || a.kind == AttrKind::GRAPH)
        continue;
      if (!op->getInherentAttr(a.name).value_or(Attribute()))
        return op->emitOpError()
               << "requires attribute '" << a.name << "' of " << versionName();
    }
    return success();
  }

  Operation *op;
  const OpInfo &info;
  const VersionInfo &v;
  llvm::StringMap<TypeBinding> bindings;
};

} // namespace

/// A tensor attribute of a zero-width integer type (`dense<0> :
/// tensor<i0>`): ONNX has no such type, and MLIR 22's printer crashes on a
/// splat of it, which any error attached to the op would print (the
/// "see current operation" note). Refused with an error that names the
/// location only, before anything prints the op.
static LogicalResult rejectZeroWidthTensors(Operation *op) {
  Type bad;
  auto check = [&](Attribute a) {
    if (!a)
      return;
    a.walk([&](DenseElementsAttr d) {
      if (auto it = dyn_cast<IntegerType>(d.getElementType());
          it && it.getWidth() == 0)
        bad = d.getType();
    });
  };
  check(op->getPropertiesAsAttribute());
  check(op->getDiscardableAttrDictionary());
  if (!bad)
    return success();
  return mlir::emitError(op->getLoc())
         << "'" << op->getName() << "' has a tensor attribute of type " << bad
         << ": ONNX has no zero-width integer type";
}

/// QuantizeLinear and DequantizeLinear: the zero point has the scale's
/// shape (ONNX: "Shape must match y_scale"). The kernels index both with
/// one index, so a shorter zero point was read past its end, by the
/// runtime and the interpreter alike.
static LogicalResult verifyZeroPointShape(Operation *op) {
  StringRef name = op->getName().stripDialect();
  if ((name != "QuantizeLinear" && name != "DequantizeLinear") ||
      op->getNumOperands() < 3)
    return success();
  auto scale = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  auto zp = dyn_cast<RankedTensorType>(op->getOperand(2).getType());
  // One value each ([] against [1]) is per tensor either way, as ONNX
  // Runtime reads it; exporters write both.
  if (!scale || !zp || !scale.hasStaticShape() || !zp.hasStaticShape() ||
      scale.getShape() == zp.getShape() ||
      (scale.getNumElements() == 1 && zp.getNumElements() == 1))
    return success();
  auto dims = [](ArrayRef<int64_t> shape) {
    std::string text = "[";
    for (auto [i, d] : llvm::enumerate(shape))
      text += (i ? "," : "") + std::to_string(d);
    return text + "]";
  };
  return op->emitOpError() << "zero point of shape " << dims(zp.getShape())
                           << " where the scale has shape "
                           << dims(scale.getShape()) << "; they must match";
}

LogicalResult verifyAgainstSchema(Operation *op) {
  if (failed(rejectZeroWidthTensors(op)) || failed(verifyZeroPointShape(op)))
    return failure();
  const OpInfo *info = lookupOpInfo(op->getName().stripDialect());
  if (!info)
    return op->emitOpError("has no ONNX schema");
  int64_t opset = getDefaultOpset(op);
  if (opset < 1 || opset > kMaxOpset)
    return op->emitOpError() << "is in a module of opset " << opset
                             << "; AMK supports opsets up to " << kMaxOpset;
  const VersionInfo *v = info->selectVersion(opset);
  if (!v)
    return op->emitOpError()
           << "does not exist at opset " << opset << " (introduced in opset "
           << info->versions.get().front().since << ")";
  return SchemaVerifier(op, *info, *v).run();
}

} // namespace amk::onnx

namespace {
struct AttrDefault {
  const char *op, *attr, *text;
};
const AttrDefault kAttrDefaults[] = {
#include "dialect/ONNX/ONNXAttrDefaults.inc"
};
} // namespace

std::optional<mlir::Attribute>
amk::onnx::getAttrDefault(mlir::MLIRContext *ctx, llvm::StringRef opType,
                          llvm::StringRef attr) {
  // The table is sorted by operator, then attribute.
  const AttrDefault *begin = std::begin(kAttrDefaults),
                    *end = std::end(kAttrDefaults);
  const AttrDefault *it = std::lower_bound(
      begin, end, std::make_pair(opType, attr),
      [](const AttrDefault &d, std::pair<llvm::StringRef, llvm::StringRef> k) {
        return std::make_pair(llvm::StringRef(d.op), llvm::StringRef(d.attr)) <
               k;
      });
  if (it == end || opType != it->op || attr != it->attr)
    return std::nullopt;
  if (mlir::Attribute a = mlir::parseAttribute(it->text, ctx))
    return a;
  return std::nullopt;
}
