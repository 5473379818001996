//===- NormalizeOpset.cpp - amk-normalize-opset ---------------------------===//
//
// Part of AMK. Rewrites a model of any default-domain opset from 7 to 21
// into the canonical form at the target opset (see Passes.td and
// docs/passes.md). The conversion runs on a clone of the module; the
// module is replaced only when every op converted and verifies at the
// target opset, so a refusal leaves the input IR untouched and valid.
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"
#include "transforms/graph/Passes.h"
#include "transforms/Utils/Patterns.h"

#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXSchema.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

#include <cmath>

namespace amk {
#define GEN_PASS_DEF_NORMALIZEOPSET
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;
namespace onnx = amk::onnx;
namespace ref = amk::ref;

namespace {

/// The ONNX IR version an opset needs at least.
int64_t minIRVersion(int64_t opset) {
  static const int64_t table[] = {3, 3, 4, 5, 6, 7, 7, 7, 8, 8,
                                  8, 8, 9, 9, 10};
  return table[std::clamp<int64_t>(opset, 7, 21) - 7];
}

/// An op being rewritten: operands (one per slot), attributes and result
/// types, rebuilt at the end.
struct Edit {
  Operation *op;
  std::string name;
  SmallVector<Value> operands;
  NamedAttrList attrs;
  SmallVector<Type> results;
};

class Converter {
public:
  Converter(int64_t from, int64_t to) : from(from), to(to) {}

  /// Converts one op (no-op when its version in force does not change
  /// form); emits an error and fails when it cannot be expressed.
  LogicalResult convert(Operation *op);

  /// Drops attributes equal to their version-independent default.
  LogicalResult stripDefaults(Operation *op);

  /// Recomposes Gelu and LayerNormalization where the target has them.
  void recompose(func::FuncOp func);

  int64_t converted = 0, recomposed = 0, decomposed = 0;

private:
  int64_t from, to;
  OpBuilder *b = nullptr;

  /// Since-version of `opType` in force at `opset` (0: does not exist).
  static int64_t since(llvm::StringRef opType, int64_t opset) {
    const onnx::OpInfo *info = onnx::lookupOpInfo(opType);
    const onnx::VersionInfo *v = info ? info->selectVersion(opset) : nullptr;
    return v && !v->deprecated ? v->since : 0;
  }
  /// Whether the op's form at the source is "v or later", and at target.
  bool fromAtLeast(const Edit &e, int64_t v) const {
    return since(e.name, from) >= v;
  }
  bool toAtLeast(const Edit &e, int64_t v) const {
    return since(e.name, to) >= v;
  }

  InFlightDiagnostic refuse(Operation *op, const Twine &why) {
    return op->emitError() << onnx::describeOp(op) << " (opset " << from
                           << ") cannot be normalized to opset " << to
                           << ": " << why;
  }

  Value constInts(Location loc, ArrayRef<int64_t> v) {
    return amk::createConstant(*b, loc, ref::Tensor::fromInt64(
                                            v, {int64_t(v.size())}));
  }
  Value constScalarLike(Location loc, double x, Value like) {
    auto t = dyn_cast<TensorType>(like.getType());
    auto dt = t ? onnx::getDataType(t.getElementType()) : std::nullopt;
    return amk::createConstant(
        *b, loc, ref::Tensor::scalar(dt ? *dt : ref::DataType::FLOAT, x));
  }
  Value none(Location loc) { return amk::getNoneValue(*b, loc); }

  /// Moves attribute `attr` into operand slot `slot` as an int64 tensor.
  void intsAttrToInput(Edit &e, llvm::StringRef attr, unsigned slot) {
    Attribute a = e.attrs.get(attr);
    if (!a)
      return;
    SmallVector<int64_t> v;
    if (auto arr = dyn_cast<DenseI64ArrayAttr>(a))
      v.assign(arr.asArrayRef().begin(), arr.asArrayRef().end());
    else if (auto i = dyn_cast<IntegerAttr>(a))
      v.push_back(i.getValue().getSExtValue());
    e.operands[slot] = constInts(e.op->getLoc(), v);
    e.attrs.erase(attr);
  }
  /// Moves a float-array attribute into operand slot `slot` as a tensor.
  void floatsAttrToInput(Edit &e, llvm::StringRef attr, unsigned slot) {
    auto a = dyn_cast_or_null<DenseF32ArrayAttr>(e.attrs.get(attr));
    if (!a)
      return;
    ref::Tensor t(ref::DataType::FLOAT, {int64_t(a.size())});
    llvm::copy(a.asArrayRef(), t.data<float>());
    e.operands[slot] = amk::createConstant(*b, e.op->getLoc(), t);
    e.attrs.erase(attr);
  }
  /// Moves a constant int64 operand into attribute `attr`.
  LogicalResult intsInputToAttr(Edit &e, unsigned slot, llvm::StringRef attr,
                                bool scalar = false) {
    Value v = e.operands[slot];
    if (amk::isNone(v))
      return success();
    auto c = onnx::getIntValues(v);
    if (!c)
      return refuse(e.op, "its '" + attr.str() +
                              "' input is not a constant, and the target "
                              "opset takes it as an attribute");
    if (scalar)
      e.attrs.set(attr, IntegerAttr::get(IntegerType::get(b->getContext(), 64), c->front()));
    else
      e.attrs.set(attr, b->getDenseI64ArrayAttr(*c));
    e.operands[slot] = none(e.op->getLoc());
    return success();
  }
  void floatAttrToInput(Edit &e, llvm::StringRef attr, unsigned slot,
                        Value like) {
    auto a = dyn_cast_or_null<FloatAttr>(e.attrs.get(attr));
    if (!a)
      return;
    e.operands[slot] =
        constScalarLike(e.op->getLoc(), a.getValueAsDouble(), like);
    e.attrs.erase(attr);
  }
  LogicalResult floatInputToAttr(Edit &e, unsigned slot,
                                 llvm::StringRef attr) {
    Value v = e.operands[slot];
    if (amk::isNone(v))
      return success();
    auto c = onnx::getSplatValue(v);
    if (!c)
      return refuse(e.op, "its '" + attr.str() +
                              "' input is not a constant, and the target "
                              "opset takes it as an attribute");
    e.attrs.set(attr, b->getF32FloatAttr(static_cast<float>(*c)));
    e.operands[slot] = none(e.op->getLoc());
    return success();
  }

  LogicalResult convertSoftmax(Edit &e, bool &replaced);
  LogicalResult convertResize(Edit &e);
  LogicalResult decomposeGelu(Operation *op);
  LogicalResult decomposeLayerNorm(Operation *op);
  Operation *rebuild(Edit &e);
};

Operation *Converter::rebuild(Edit &e) {
  OperationState state(e.op->getLoc(), "onnx." + e.name);
  state.addOperands(e.operands);
  state.addAttributes(e.attrs);
  state.addTypes(e.results);
  Operation *n = b->create(state);
  e.op->replaceAllUsesWith(n->getResults());
  e.op->erase();
  ++converted;
  return n;
}

LogicalResult Converter::convert(Operation *op) {
  if (!isa_and_nonnull<onnx::ONNXDialect>(op->getDialect()) ||
      isa<onnx::GenericOp, onnx::NoValueOp, onnx::YieldOp>(op))
    return success();
  OpBuilder builder(op);
  b = &builder;
  Edit e{op, op->getName().stripDialect().str(),
         SmallVector<Value>(op->getOperands()),
         NamedAttrList(op->getAttrDictionary()),
         SmallVector<Type>(op->getResultTypes())};
  std::string origName = e.name;
  llvm::StringRef n = origName;
  Location loc = op->getLoc();
  bool changed = false;

  // Ops that became other ops.
  if (n == "Upsample" && to >= 10) {
    // Upsample-7/9 is Resize-10's algorithm (asymmetric coordinates,
    // nearest rounds down) with scales as an attribute before opset 9.
    floatsAttrToInput(e, "scales", 1);
    Value scales = e.operands[1];
    std::string mode = "nearest";
    if (auto m = dyn_cast_or_null<StringAttr>(e.attrs.get("mode")))
      mode = m.getValue() == "bilinear" ? "linear" : m.getValue().str();
    Edit r{op, "Resize", {e.operands[0], none(loc), scales, none(loc)},
           NamedAttrList(), e.results};
    r.attrs.set("mode", b->getStringAttr(mode));
    if (to >= 11) {
      r.attrs.set("coordinate_transformation_mode",
                  b->getStringAttr("asymmetric"));
      if (mode == "nearest")
        r.attrs.set("nearest_mode", b->getStringAttr("floor"));
      if (to < 13)
        r.operands[1] = amk::createConstant(
            *b, loc, ref::Tensor(ref::DataType::FLOAT, {0}));
    }
    rebuild(r);
    return success();
  }
  bool renamed = false;
  if (n == "Scatter" && to >= 11) {
    e.name = "ScatterElements";
    renamed = changed = true;
  } else if (n == "ScatterElements" && to < 11) {
    e.name = "Scatter";
    renamed = changed = true;
  }
  if (n == "Gelu" && to < 20)
    return decomposeGelu(op);
  if (n == "LayerNormalization" && to < 17)
    return decomposeLayerNorm(op);

  int64_t sFrom = since(n, from), sTo = since(e.name, to);
  if (sTo == 0)
    return refuse(op, "ONNX has no '" + n.str() + "' at opset " +
                          Twine(to) + " (and AMK knows no equivalent)");
  if (sFrom == sTo && !renamed)
    return success();
  if (renamed)
    n = ""; // Only the generic attribute and output checks below apply.

  // Cast to bfloat16 truncates before opset 19 and rounds to nearest even
  // from 19 on: crossing 19 would change the numbers.
  if ((n == "Cast" || n == "CastLike") && (sFrom >= 19) != (sTo >= 19)) {
    bool bf16 = false;
    for (Type t : e.results)
      if (auto tt = dyn_cast<TensorType>(t))
        bf16 |= tt.getElementType().isBF16();
    if (bf16)
      return refuse(op, "a cast to bfloat16 truncates before opset 19 and "
                        "rounds to nearest even from opset 19 on");
  }

  // Attribute <-> input moves.
  auto axesMove = [&](int64_t v) -> LogicalResult {
    if (!fromAtLeast(e, v) && toAtLeast(e, v)) {
      intsAttrToInput(e, "axes", 1);
      changed = true;
    } else if (fromAtLeast(e, v) && !toAtLeast(e, v)) {
      if (failed(intsInputToAttr(e, 1, "axes")))
        return failure();
      changed = true;
    }
    return success();
  };
  if (n == "Squeeze" || n == "Unsqueeze" || n == "ReduceSum") {
    if (failed(axesMove(13)))
      return failure();
  } else if (n.starts_with("Reduce")) {
    if (failed(axesMove(18)))
      return failure();
  } else if (n == "Split") {
    if (fromAtLeast(e, 18) && !toAtLeast(e, 18) && e.attrs.get("num_outputs")) {
      // Equal parts (the last smaller): explicit sizes need a static dim.
      auto t = dyn_cast<RankedTensorType>(e.operands[0].getType());
      int64_t axis = cast<IntegerAttr>(e.attrs.get("axis")
                                           ? e.attrs.get("axis")
                                           : b->getI64IntegerAttr(0))
                         .getValue()
                         .getSExtValue();
      int64_t parts = cast<IntegerAttr>(e.attrs.get("num_outputs"))
                          .getValue()
                          .getSExtValue();
      if (!t || (axis < 0 ? axis + t.getRank() : axis) >= t.getRank() ||
          t.isDynamicDim(axis < 0 ? axis + t.getRank() : axis))
        return refuse(op, "'num_outputs' needs a static split dimension "
                          "to be written as sizes");
      int64_t dim = t.getDimSize(axis < 0 ? axis + t.getRank() : axis);
      int64_t chunk = (dim + parts - 1) / parts;
      SmallVector<int64_t> sizes;
      for (int64_t left = dim; left > 0; left -= chunk)
        sizes.push_back(std::min(chunk, left));
      e.attrs.erase("num_outputs");
      e.operands[1] = constInts(loc, sizes);
      changed = true;
    }
    if (!fromAtLeast(e, 13) && toAtLeast(e, 13)) {
      intsAttrToInput(e, "split", 1);
      changed = true;
    } else if (fromAtLeast(e, 13) && !toAtLeast(e, 13)) {
      if (failed(intsInputToAttr(e, 1, "split")))
        return failure();
      changed = true;
    }
  } else if (n == "Slice") {
    if (!fromAtLeast(e, 10) && toAtLeast(e, 10)) {
      intsAttrToInput(e, "starts", 1);
      intsAttrToInput(e, "ends", 2);
      intsAttrToInput(e, "axes", 3);
      changed = true;
    } else if (fromAtLeast(e, 10) && !toAtLeast(e, 10)) {
      if (!amk::isNone(e.operands[4])) {
        auto steps = onnx::getIntValues(e.operands[4]);
        if (!steps || llvm::any_of(*steps, [](int64_t s) { return s != 1; }))
          return refuse(op, "steps other than 1 need opset 10");
        e.operands[4] = none(loc);
      }
      if (failed(intsInputToAttr(e, 1, "starts")) ||
          failed(intsInputToAttr(e, 2, "ends")) ||
          failed(intsInputToAttr(e, 3, "axes")))
        return failure();
      changed = true;
    }
  } else if (n == "TopK") {
    if (!fromAtLeast(e, 10) && toAtLeast(e, 10)) {
      intsAttrToInput(e, "k", 1);
      changed = true;
    } else if (fromAtLeast(e, 10) && !toAtLeast(e, 10)) {
      if (failed(intsInputToAttr(e, 1, "k", /*scalar=*/true)))
        return failure();
      changed = true;
    }
    if (fromAtLeast(e, 11) && !toAtLeast(e, 11)) {
      for (const char *a : {"largest", "sorted"}) {
        auto v = dyn_cast_or_null<IntegerAttr>(e.attrs.get(a));
        if (v && v.getValue().getSExtValue() != 1)
          return refuse(op, Twine("'") + a + "=0' needs opset 11");
        e.attrs.erase(a);
      }
      changed = true;
    }
  } else if (n == "Clip") {
    if (!fromAtLeast(e, 11) && toAtLeast(e, 11)) {
      floatAttrToInput(e, "min", 1, e.operands[0]);
      floatAttrToInput(e, "max", 2, e.operands[0]);
      changed = true;
    } else if (fromAtLeast(e, 11) && !toAtLeast(e, 11)) {
      if (failed(floatInputToAttr(e, 1, "min")) ||
          failed(floatInputToAttr(e, 2, "max")))
        return failure();
      changed = true;
    }
  } else if (n == "Pad") {
    if (fromAtLeast(e, 18) && !toAtLeast(e, 18) && !amk::isNone(e.operands[3])) {
      auto axes = onnx::getIntValues(e.operands[3]);
      auto pads = onnx::getIntValues(e.operands[1]);
      auto t = dyn_cast<RankedTensorType>(e.operands[0].getType());
      if (!axes || !pads || !t)
        return refuse(op, "'axes' needs constant pads and a ranked input "
                          "before opset 18");
      int64_t r = t.getRank(), k = axes->size();
      SmallVector<int64_t> full(2 * r, 0);
      for (int64_t i = 0; i < k; ++i) {
        int64_t a = (*axes)[i] < 0 ? (*axes)[i] + r : (*axes)[i];
        full[a] = (*pads)[i];
        full[a + r] = (*pads)[i + k];
      }
      e.operands[1] = constInts(loc, full);
      e.operands[3] = none(loc);
      changed = true;
    }
    if (!fromAtLeast(e, 11) && toAtLeast(e, 11)) {
      intsAttrToInput(e, "pads", 1);
      floatAttrToInput(e, "value", 2, e.operands[0]);
      changed = true;
    } else if (fromAtLeast(e, 11) && !toAtLeast(e, 11)) {
      if (failed(intsInputToAttr(e, 1, "pads")) ||
          failed(floatInputToAttr(e, 2, "value")))
        return failure();
      changed = true;
    }
  } else if (n == "Dropout") {
    if (!fromAtLeast(e, 12) && toAtLeast(e, 12)) {
      floatAttrToInput(e, "ratio", 1, e.operands[0]);
      changed = true;
    } else if (fromAtLeast(e, 12) && !toAtLeast(e, 12)) {
      Value t = e.operands[2];
      if (!amk::isNone(t)) {
        auto c = onnx::getSplatValue(t);
        if (!c || *c != 0)
          return refuse(op, "training mode needs opset 12");
        e.operands[2] = none(loc);
      }
      if (failed(floatInputToAttr(e, 1, "ratio")))
        return failure();
      changed = true;
    }
  } else if (n == "Upsample") {
    if (!fromAtLeast(e, 9) && toAtLeast(e, 9)) {
      floatsAttrToInput(e, "scales", 1);
      changed = true;
    }
  } else if (n == "Resize") {
    if (failed(convertResize(e)))
      return failure();
    changed = true;
  } else if (n == "Softmax" || n == "LogSoftmax" || n == "Hardmax") {
    bool replaced = false;
    if (failed(convertSoftmax(e, replaced)))
      return failure();
    if (replaced)
      return success();
    changed = true;
  } else if (n == "BatchNormalization") {
    if (!fromAtLeast(e, 9) && toAtLeast(e, 9)) {
      auto sp = dyn_cast_or_null<IntegerAttr>(e.attrs.get("spatial"));
      if (sp && sp.getValue().getSExtValue() != 1)
        return refuse(op, "'spatial=0' does not exist from opset 9 on");
      e.attrs.erase("spatial");
      changed = true;
    }
    if (fromAtLeast(e, 14) && !toAtLeast(e, 14)) {
      auto tm = dyn_cast_or_null<IntegerAttr>(e.attrs.get("training_mode"));
      if (tm && tm.getValue().getSExtValue() != 0)
        return refuse(op, "'training_mode=1' needs opset 14");
      e.attrs.erase("training_mode");
      changed = true;
    }
  } else if (n == "RoiAlign") {
    // RoiAlign-10 is "output_half_pixel"; from 16 the default is
    // "half_pixel".
    if (!fromAtLeast(e, 16) && toAtLeast(e, 16)) {
      e.attrs.set("coordinate_transformation_mode",
                  b->getStringAttr("output_half_pixel"));
      changed = true;
    } else if (fromAtLeast(e, 16) && !toAtLeast(e, 16)) {
      auto m = dyn_cast_or_null<StringAttr>(
          e.attrs.get("coordinate_transformation_mode"));
      if (!m || m.getValue() != "output_half_pixel")
        return refuse(op, "RoiAlign before opset 16 only has "
                          "'output_half_pixel' coordinates");
      e.attrs.erase("coordinate_transformation_mode");
      changed = true;
    }
  } else if (n == "DFT") {
    // DFT-20 takes the axis as a scalar input (default -2); DFT-17 as an
    // attribute (default 1).
    if (!fromAtLeast(e, 20) && toAtLeast(e, 20)) {
      auto a = dyn_cast_or_null<IntegerAttr>(e.attrs.get("axis"));
      e.operands[2] = amk::createConstant(
          *b, loc,
          ref::Tensor::fromInt64({a ? a.getValue().getSExtValue() : 1}, {}));
      e.attrs.erase("axis");
      changed = true;
    } else if (fromAtLeast(e, 20) && !toAtLeast(e, 20)) {
      int64_t axis = -2;
      if (!amk::isNone(e.operands[2])) {
        auto c = onnx::getIntValues(e.operands[2]);
        if (!c || c->size() != 1)
          return refuse(op, "its axis input is not a constant");
        axis = c->front();
      }
      e.attrs.set("axis", IntegerAttr::get(IntegerType::get(b->getContext(), 64),
                                           axis));
      e.operands[2] = none(loc);
      changed = true;
    }
  } else if (n == "Cast" || n == "CastLike") {
    if (fromAtLeast(e, 19) && !toAtLeast(e, 19)) {
      e.attrs.erase("saturate"); // Only float8 casts saturate.
      changed = true;
    }
  }

  // Attributes the target version does not have: an explicit default
  // (older versions behave as the default) is dropped, anything else is
  // refused.
  if (const onnx::OpInfo *ti = onnx::lookupOpInfo(e.name))
    if (const onnx::VersionInfo *tver = ti->selectVersion(to)) {
      SmallVector<StringAttr> drop;
      for (NamedAttribute a : e.attrs) {
        if (tver->findAttr(a.getName().getValue()))
          continue;
        if (a.getName().getValue().starts_with("onnx."))
          continue; // AMK's own discardable attributes.
        // The default is the source op's (a rename keeps its semantics).
        auto d = onnx::getAttrDefault(b->getContext(), origName,
                                      a.getName().getValue());
        if (!d || a.getValue() != *d)
          return refuse(op, "attribute '" + a.getName().getValue().str() +
                                "' does not exist at the target opset and "
                                "is not its default value");
        drop.push_back(a.getName());
      }
      for (StringAttr a : drop) {
        e.attrs.erase(a);
        changed = true;
      }
    }

  // Outputs the target version does not have must be unused.
  const onnx::OpInfo *info = onnx::lookupOpInfo(e.name);
  const onnx::VersionInfo *tv = info ? info->selectVersion(to) : nullptr;
  if (tv)
    for (unsigned i = 0, fixed = onnx::getNumFixedSlots(info->outSlots.get());
         i < e.results.size() && i < fixed; ++i)
      if (!tv->findOutputForSlot(i) && !isa<NoneType>(e.results[i])) {
        if (!op->getResult(i).use_empty())
          return refuse(op, "output " + Twine(i) +
                                " is used and does not exist at the target");
        e.results[i] = b->getNoneType();
        changed = true;
      }
  if (changed)
    rebuild(e);
  return success();
}

LogicalResult Converter::stripDefaults(Operation *op) {
  // Canonical form: an attribute equal to its (version-independent)
  // default is not written, so models from exporters that spell defaults
  // out and from those that do not normalize to the same IR.
  llvm::StringRef name = op->getName().stripDialect();
  SmallVector<StringAttr> drop;
  for (NamedAttribute a : op->getAttrDictionary())
    if (auto d = onnx::getAttrDefault(op->getContext(), name,
                                      a.getName().getValue());
        d && *d == a.getValue())
      drop.push_back(a.getName());
  for (StringAttr a : drop)
    op->removeAttr(a);
  return success();
}

LogicalResult Converter::convertResize(Edit &e) {
  Operation *op = e.op;
  Location loc = op->getLoc();
  auto str = [&](llvm::StringRef name, llvm::StringRef dflt) {
    auto a = dyn_cast_or_null<StringAttr>(e.attrs.get(name));
    return a ? a.getValue().str() : dflt.str();
  };
  if (!fromAtLeast(e, 11) && toAtLeast(e, 11)) {
    // Resize-10: asymmetric coordinates, nearest rounds down.
    e.attrs.set("coordinate_transformation_mode",
                b->getStringAttr("asymmetric"));
    if (str("mode", "nearest") == "nearest")
      e.attrs.set("nearest_mode", b->getStringAttr("floor"));
  } else if (fromAtLeast(e, 11) && !toAtLeast(e, 11)) {
    std::string mode = str("mode", "nearest");
    if (str("coordinate_transformation_mode", "half_pixel") != "asymmetric" ||
        (mode == "nearest" &&
         str("nearest_mode", "round_prefer_floor") != "floor") ||
        mode == "cubic" || !amk::isNone(e.operands[3]))
      return refuse(op, "Resize before opset 11 only has asymmetric "
                        "coordinates, nearest rounding down, no cubic mode "
                        "and no 'sizes'");
    for (const char *a :
         {"coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
          "exclude_outside", "extrapolation_value"})
      e.attrs.erase(a);
    e.operands[1] = none(loc);
  }
  if (fromAtLeast(e, 18) && !toAtLeast(e, 18)) {
    auto aa = dyn_cast_or_null<IntegerAttr>(e.attrs.get("antialias"));
    if ((aa && aa.getValue().getSExtValue() != 0) || e.attrs.get("axes") ||
        str("keep_aspect_ratio_policy", "stretch") != "stretch")
      return refuse(op, "'antialias', 'axes' and 'keep_aspect_ratio_policy' "
                        "need opset 18");
    e.attrs.erase("antialias");
    e.attrs.erase("keep_aspect_ratio_policy");
  }
  if (fromAtLeast(e, 19) && !toAtLeast(e, 19) &&
      str("coordinate_transformation_mode", "") == "half_pixel_symmetric")
    return refuse(op, "'half_pixel_symmetric' needs opset 19");
  // Resize-11 and -12 require roi; from 13 on it is optional.
  bool needsRoi = toAtLeast(e, 11) && !toAtLeast(e, 13);
  if (needsRoi && amk::isNone(e.operands[1]))
    e.operands[1] =
        amk::createConstant(*b, loc, ref::Tensor(ref::DataType::FLOAT, {0}));
  if (!toAtLeast(e, 11))
    e.operands[1] = none(loc);
  return success();
}

LogicalResult Converter::convertSoftmax(Edit &e, bool &replaced) {
  Operation *op = e.op;
  Location loc = op->getLoc();
  bool fromNew = fromAtLeast(e, 13), toNew = toAtLeast(e, 13);
  if (fromNew == toNew)
    return success();
  auto t = dyn_cast<RankedTensorType>(e.operands[0].getType());
  auto axisAttr = dyn_cast_or_null<IntegerAttr>(e.attrs.get("axis"));
  int64_t axis = axisAttr ? axisAttr.getValue().getSExtValue()
                          : (fromNew ? -1 : 1);
  if (!t)
    return refuse(op, "the input must be ranked to change Softmax's axis "
                      "semantics across opset 13");
  int64_t r = t.getRank();
  if (axis < 0)
    axis += r;
  MLIRContext *ctx = b->getContext();
  if (axis == r - 1) {
    // Coercion to 2-D at the last axis is per-row: both forms agree.
    e.attrs.set("axis", IntegerAttr::get(IntegerType::get(ctx, 64), toNew ? -1 : r - 1));
    return success();
  }
  if (toNew) {
    // Old semantics: normalize over all dims from `axis` on, as a 2-D
    // [prod(before), prod(after)] matrix: Flatten, Softmax, Reshape back.
    auto flatType = [&]() -> Type {
      auto prod = [&](int64_t lo, int64_t hi) {
        int64_t p = 1;
        for (int64_t d = lo; d < hi; ++d) {
          if (t.isDynamicDim(d))
            return ShapedType::kDynamic;
          p *= t.getDimSize(d);
        }
        return p;
      };
      return RankedTensorType::get({prod(0, axis), prod(axis, r)},
                                   t.getElementType());
    }();
    Value flat = onnx::FlattenOp::create(
        *b, loc, TypeRange{flatType}, ValueRange{e.operands[0]},
        ArrayRef<NamedAttribute>{
            b->getNamedAttr("axis", IntegerAttr::get(IntegerType::get(ctx, 64), axis))});
    OperationState st(loc, op->getName());
    st.addOperands({flat});
    st.addAttribute("axis", IntegerAttr::get(IntegerType::get(ctx, 64), -1));
    st.addTypes({flatType});
    Value sm = b->create(st)->getResult(0);
    Value shape;
    if (t.hasStaticShape())
      shape = constInts(loc, t.getShape());
    else
      shape = onnx::ShapeOp::create(
          *b, loc,
          TypeRange{RankedTensorType::get({r}, b->getIntegerType(64))},
          ValueRange{e.operands[0]}, ArrayRef<NamedAttribute>{});
    Value back = onnx::ReshapeOp::create(*b, loc, TypeRange{e.results[0]},
                                         ValueRange{sm, shape},
                                         ArrayRef<NamedAttribute>{});
    op->getResult(0).replaceAllUsesWith(back);
    op->erase();
    replaced = true;
    ++converted;
    return success();
  }
  // New semantics at an inner axis, before opset 13: move the axis last.
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < r; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  SmallVector<int64_t> inv(r);
  for (int64_t i = 0; i < r; ++i)
    inv[perm[i]] = i;
  SmallVector<int64_t> tdims;
  for (int64_t p : perm)
    tdims.push_back(t.getDimSize(p));
  auto tt = RankedTensorType::get(tdims, t.getElementType());
  Value tin = onnx::TransposeOp::create(
      *b, loc, TypeRange{tt}, ValueRange{e.operands[0]},
      ArrayRef<NamedAttribute>{
          b->getNamedAttr("perm", b->getDenseI64ArrayAttr(perm))});
  OperationState st(loc, op->getName());
  st.addOperands({tin});
  st.addAttribute("axis", IntegerAttr::get(IntegerType::get(ctx, 64), r - 1));
  st.addTypes({tt});
  Value sm = b->create(st)->getResult(0);
  Value back = onnx::TransposeOp::create(
      *b, loc, TypeRange{e.results[0]}, ValueRange{sm},
      ArrayRef<NamedAttribute>{
          b->getNamedAttr("perm", b->getDenseI64ArrayAttr(inv))});
  op->getResult(0).replaceAllUsesWith(back);
  op->erase();
  replaced = true;
  ++converted;
  return success();
}

/// Builds a binary op of the result type `type`.
template <typename OpTy>
Value binary(OpBuilder &b, Location loc, Type type, Value x, Value y) {
  return OpTy::create(b, loc, TypeRange{type}, ValueRange{x, y},
                      ArrayRef<NamedAttribute>{});
}
template <typename OpTy>
Value unary(OpBuilder &b, Location loc, Type type, Value x) {
  return OpTy::create(b, loc, TypeRange{type}, ValueRange{x},
                      ArrayRef<NamedAttribute>{});
}

LogicalResult Converter::decomposeGelu(Operation *op) {
  auto gelu = cast<onnx::GeluOp>(op);
  Value x = gelu.getX();
  Type type = gelu.getType();
  Location loc = op->getLoc();
  if (!isa<TensorType>(x.getType()))
    return refuse(op, "the input type is unknown");
  Value result;
  auto c = [&](double v) { return constScalarLike(loc, v, x); };
  if (gelu.getApproximate() == "tanh") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Value cube = binary<onnx::PowOp>(*b, loc, type, x, c(3.0));
    Value inner = binary<onnx::AddOp>(
        *b, loc, type, x, binary<onnx::MulOp>(*b, loc, type, cube,
                                              c(0.044715)));
    Value th = unary<onnx::TanhOp>(
        *b, loc, type,
        binary<onnx::MulOp>(*b, loc, type, inner,
                            c(std::sqrt(2.0 / M_PI))));
    result = binary<onnx::MulOp>(
        *b, loc, type,
        binary<onnx::MulOp>(*b, loc, type, x,
                            binary<onnx::AddOp>(*b, loc, type, th, c(1.0))),
        c(0.5));
  } else {
    // 0.5 x (1 + erf(x / sqrt(2)))
    Value erf = unary<onnx::ErfOp>(
        *b, loc, type,
        binary<onnx::DivOp>(*b, loc, type, x, c(std::sqrt(2.0))));
    result = binary<onnx::MulOp>(
        *b, loc, type,
        binary<onnx::MulOp>(*b, loc, type, x,
                            binary<onnx::AddOp>(*b, loc, type, erf, c(1.0))),
        c(0.5));
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  ++decomposed;
  return success();
}

LogicalResult Converter::decomposeLayerNorm(Operation *op) {
  auto ln = cast<onnx::LayerNormalizationOp>(op);
  Location loc = op->getLoc();
  auto t = dyn_cast<RankedTensorType>(ln.getX().getType());
  if (!t)
    return refuse(op, "decomposing LayerNormalization needs a ranked input");
  for (unsigned i = 1; i < op->getNumResults(); ++i)
    if (!isa<NoneType>(op->getResult(i).getType()) &&
        !op->getResult(i).use_empty())
      return refuse(op, "its Mean/InvStdDev outputs are used");
  int64_t r = t.getRank(), axis = ln.getAxis();
  if (axis < 0)
    axis += r;
  SmallVector<int64_t> axes, reducedDims(t.getShape());
  for (int64_t d = axis; d < r; ++d) {
    axes.push_back(d - r);
    reducedDims[d] = 1;
  }
  auto reduced = RankedTensorType::get(reducedDims, t.getElementType());
  Type type = ln.getY().getType();
  auto mean = [&](Value v) {
    NamedAttrList attrs;
    attrs.set("axes", b->getDenseI64ArrayAttr(axes));
    attrs.set("keepdims", IntegerAttr::get(IntegerType::get(b->getContext(), 64), 1));
    return onnx::ReduceMeanOp::create(*b, loc, TypeRange{reduced},
                                      ValueRange{v, none(loc)}, attrs)
        .getResult();
  };
  if (to >= 18)
    return refuse(op, "internal: ReduceMean form for opset >= 18");
  Value x = ln.getX();
  Value d = binary<onnx::SubOp>(*b, loc, t, x, mean(x));
  Value var = mean(binary<onnx::PowOp>(*b, loc, t, d,
                                       constScalarLike(loc, 2.0, x)));
  Value stdv = unary<onnx::SqrtOp>(
      *b, loc, reduced,
      binary<onnx::AddOp>(*b, loc, reduced, var,
                          constScalarLike(loc, ln.getEpsilon().convertToDouble(),
                                          x)));
  Value y = binary<onnx::MulOp>(*b, loc, type,
                                binary<onnx::DivOp>(*b, loc, t, d, stdv),
                                ln.getScale());
  if (!amk::isNone(ln.getB()))
    y = binary<onnx::AddOp>(*b, loc, type, y, ln.getB());
  op->getResult(0).replaceAllUsesWith(y);
  op->erase();
  ++decomposed;
  return success();
}

/// Erases the ops of a replaced match, users before producers.
static void eraseMatched(ArrayRef<Operation *> ops,
                         llvm::DenseSet<Operation *> &erased) {
  SmallVector<Operation *> order(ops.begin(), ops.end());
  llvm::sort(order,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  order.erase(std::unique(order.begin(), order.end()), order.end());
  for (Operation *m : order) {
    erased.insert(m);
    m->erase();
  }
}

void Converter::recompose(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<onnx::MulOp, onnx::AddOp, onnx::DivOp>(op))
      ops.push_back(op);
  });
  llvm::DenseSet<Operation *> erased;
  // Roots are the last ops of their patterns: visit in reverse order so a
  // LayerNorm is matched at its bias Add before its scale Mul.
  for (Operation *op : llvm::reverse(ops)) {
    if (erased.contains(op))
      continue;
    OpBuilder builder(op);
    if (to >= 20) {
      if (auto g = amk::matchGelu(op);
          g && g->form != "quick" && amk::isSelfContained(g->ops) &&
          g->input.getType() == op->getResult(0).getType()) {
        NamedAttrList attrs;
        if (g->form == "tanh")
          attrs.set("approximate", builder.getStringAttr("tanh"));
        Value v = onnx::GeluOp::create(builder, op->getLoc(),
                                       TypeRange{op->getResult(0).getType()},
                                       ValueRange{g->input}, attrs);
        op->getResult(0).replaceAllUsesWith(v);
        eraseMatched(g->ops, erased);
        ++recomposed;
        continue;
      }
    }
    if (to >= 17) {
      if (auto n = amk::matchNorm(op);
          n && !n->rms && amk::isSelfContained(n->ops) &&
          n->input.getType() == op->getResult(0).getType()) {
        NamedAttrList attrs;
        attrs.set("axis", IntegerAttr::get(IntegerType::get(builder.getContext(), 64), n->axis));
        attrs.set("epsilon",
                  builder.getF32FloatAttr(static_cast<float>(n->epsilon)));
        Value noneV = amk::getNoneValue(builder, op->getLoc());
        Value scale = n->scale;
        if (!scale) {
          // LayerNormalization's scale is required: ones over the
          // normalized dims.
          auto in = dyn_cast<RankedTensorType>(n->input.getType());
          if (!in || !in.hasStaticShape() || !in.getElementType().isF32())
            continue;
          amk::ref::Shape dims(in.getShape().take_back(-n->axis));
          amk::ref::Tensor ones(amk::ref::DataType::FLOAT, dims);
          for (int64_t i = 0; i < ones.numel(); ++i)
            ones.setDouble(i, 1.0);
          scale = amk::createConstant(builder, op->getLoc(), ones);
        }
        auto ln = onnx::LayerNormalizationOp::create(
            builder, op->getLoc(),
            TypeRange{op->getResult(0).getType(), builder.getNoneType(),
                      builder.getNoneType()},
            ValueRange{n->input, scale, n->bias ? n->bias : noneV},
            attrs);
        op->getResult(0).replaceAllUsesWith(ln.getY());
        eraseMatched(n->ops, erased);
        ++recomposed;
      }
    }
  }
}

class NormalizeOpsetPass
    : public amk::impl::NormalizeOpsetBase<NormalizeOpsetPass> {
public:
  using NormalizeOpsetBase::NormalizeOpsetBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (targetOpset < onnx::kMinOpset || targetOpset > onnx::kMaxOpset) {
      module.emitError() << "amk-normalize-opset: target-opset must be in ["
                         << onnx::kMinOpset << ", " << onnx::kMaxOpset
                         << "], got " << static_cast<int64_t>(targetOpset);
      return signalPassFailure();
    }
    int64_t from = onnx::getDefaultOpset(module);
    // Convert a clone; the module changes only if everything converts.
    OwningOpRef<ModuleOp> work = module.clone();
    Converter conv(from, targetOpset);
    bool ok = true;
    SmallVector<Operation *> ops;
    work->walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops)
      if (failed(conv.convert(op)))
        ok = false;
    if (ok && recompose)
      work->walk([&](func::FuncOp f) { conv.recompose(f); });
    if (ok)
      work->walk([&](Operation *op) {
        if (isa_and_nonnull<onnx::ONNXDialect>(op->getDialect()))
          (void)conv.stripDefaults(op);
      });
    setOpset(*work);
    if (ok && failed(verify(*work))) {
      module.emitError() << "amk-normalize-opset: the model does not verify "
                            "at opset "
                         << static_cast<int64_t>(targetOpset)
                         << " (see the errors above)";
      ok = false;
    }
    if (!ok)
      return signalPassFailure();
    module.getBodyRegion().takeBody(work->getBodyRegion());
    module->setAttrs(work->getOperation()->getAttrDictionary());
    amk::updateSignaturesAndErase(module);
    amk::emitPassRemark(
        this, module, amk::RemarkKind::Passed, "Normalized",
        "opset " + Twine(from) + " -> " + Twine(targetOpset) + ": " +
            Twine(conv.converted) + " ops rewritten, " +
            Twine(conv.recomposed) + " Gelu/LayerNormalization recomposed, " +
            Twine(conv.decomposed) + " decomposed");
    numConverted = conv.converted;
    numRecomposed = conv.recomposed;
    numDecomposed = conv.decomposed;
    amk::PassCounters::add(this, "converted", conv.converted,
                           "ops rewritten to their target-opset form");
    amk::PassCounters::add(this, "recomposed", conv.recomposed,
                           "Gelu/LayerNormalization recomposed");
    amk::PassCounters::add(this, "decomposed", conv.decomposed,
                           "Gelu/LayerNormalization decomposed");
  }

private:
  void setOpset(ModuleOp m) {
    MLIRContext *ctx = m.getContext();
    NamedAttrList opsets;
    if (auto d = m->getAttrOfType<DictionaryAttr>(onnx::kOpsetImportAttr))
      opsets.append(d.getValue());
    opsets.set(onnx::kDefaultDomain,
               IntegerAttr::get(IntegerType::get(ctx, 64), targetOpset));
    m->setAttr(onnx::kOpsetImportAttr, opsets.getDictionary(ctx));
    auto ir = m->getAttrOfType<IntegerAttr>("onnx.ir_version");
    int64_t need = minIRVersion(targetOpset);
    if (ir && ir.getInt() < need)
      m->setAttr("onnx.ir_version",
                 IntegerAttr::get(IntegerType::get(ctx, 64), need));
  }
};

} // namespace
