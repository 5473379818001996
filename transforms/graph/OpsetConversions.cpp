//===- OpsetConversions.cpp - One op between two opsets' forms ------------===//
//
// Part of AMK. An op whose form changes between the source and the target
// opset is rebuilt in the target's form: attributes become inputs or
// inputs attributes (refused unless constant), renamed ops take their new
// name, and what the target cannot express (an attribute off its default,
// a used output it lacks) is refused naming the op.
//
//===----------------------------------------------------------------------===//

#include "transforms/graph/OpsetConversions.h"

#include "transforms/Utils/PassUtils.h"
#include "transforms/Utils/Patterns.h"

#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXSchema.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
namespace onnx = amk::onnx;
namespace ref = amk::ref;

namespace amk::opset {

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
    Edit r{op,
           "Resize",
           {e.operands[0], none(loc), scales, none(loc)},
           NamedAttrList(),
           e.results};
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
    return refuse(op, "ONNX has no '" + n.str() + "' at opset " + Twine(to) +
                          " (and AMK knows no equivalent)");
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
      int64_t axis =
          cast<IntegerAttr>(e.attrs.get("axis") ? e.attrs.get("axis")
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
    if (fromAtLeast(e, 18) && !toAtLeast(e, 18) &&
        !amk::isNone(e.operands[3])) {
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
      e.attrs.set("axis", IntegerAttr::get(
                              IntegerType::get(b->getContext(), 64), axis));
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
  int64_t axis =
      axisAttr ? axisAttr.getValue().getSExtValue() : (fromNew ? -1 : 1);
  // Old semantics on an input of unknown rank (exporters leave
  // intermediates untyped): the Flatten/Softmax/Reshape(Shape) form below
  // needs no rank. Going the other way, or a negative old axis, does.
  auto ut = dyn_cast<UnrankedTensorType>(e.operands[0].getType());
  if (!t && (!ut || !toNew || axis < 0))
    return refuse(op, "the input must be ranked to change Softmax's axis "
                      "semantics across opset 13");
  int64_t r = t ? t.getRank() : 0;
  Type elementType = t ? t.getElementType() : ut.getElementType();
  if (axis < 0)
    axis += r;
  MLIRContext *ctx = b->getContext();
  if (t && axis == r - 1) {
    // Coercion to 2-D at the last axis is per-row: both forms agree.
    e.attrs.set("axis", IntegerAttr::get(IntegerType::get(ctx, 64),
                                         toNew ? -1 : r - 1));
    return success();
  }
  if (toNew) {
    // Old semantics: normalize over all dims from `axis` on, as a 2-D
    // [prod(before), prod(after)] matrix: Flatten, Softmax, Reshape back.
    auto flatType = [&]() -> Type {
      auto prod = [&](int64_t lo, int64_t hi) {
        if (!t)
          return ShapedType::kDynamic;
        int64_t p = 1;
        for (int64_t d = lo; d < hi; ++d) {
          if (t.isDynamicDim(d))
            return ShapedType::kDynamic;
          p *= t.getDimSize(d);
        }
        return p;
      };
      return RankedTensorType::get({prod(0, axis), prod(axis, r)},
                                   elementType);
    }();
    Value flat = onnx::FlattenOp::create(
        *b, loc, TypeRange{flatType}, ValueRange{e.operands[0]},
        ArrayRef<NamedAttribute>{b->getNamedAttr(
            "axis", IntegerAttr::get(IntegerType::get(ctx, 64), axis))});
    OperationState st(loc, op->getName());
    st.addOperands({flat});
    st.addAttribute("axis", IntegerAttr::get(IntegerType::get(ctx, 64), -1));
    st.addTypes({flatType});
    Value sm = b->create(st)->getResult(0);
    Value shape;
    if (t && t.hasStaticShape())
      shape = constInts(loc, t.getShape());
    else
      shape = onnx::ShapeOp::create(
          *b, loc,
          TypeRange{RankedTensorType::get({t ? r : ShapedType::kDynamic},
                                          b->getIntegerType(64))},
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

} // namespace amk::opset
