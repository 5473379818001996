//===- BindShapes.cpp - amk-bind-shapes -----------------------------------===//
//
// Part of AMK. Binds the dynamic dimensions of the graph inputs to sizes
// (Passes.td has the contract). Everything is checked before anything is
// changed, so a bad binding leaves the module as it was.
//
//===----------------------------------------------------------------------===//

#include "transforms/graph/Passes.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"

#include <limits>

namespace amk {
#define GEN_PASS_DEF_BINDSHAPES
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;

namespace {

/// Largest size a dimension may take: the element count of a tensor must
/// stay representable, so one dimension alone must.
constexpr int64_t kMaxDim = int64_t(1) << 40;

/// Parses a size (0 included: a decoder's empty past); an empty string on
/// success, else why not.
std::string parseSize(StringRef text, int64_t &size) {
  text = text.trim();
  unsigned long long v;
  if (text.empty() || text.getAsInteger(10, v))
    return "'" + text.str() + "' is not a size";
  if (v > (unsigned long long)kMaxDim)
    return "the size " + text.str() + " is too large (at most 2^40)";
  size = (int64_t)v;
  return "";
}

class BindShapesPass : public amk::impl::BindShapesBase<BindShapesPass> {
public:
  using BindShapesBase::BindShapesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](const Twine &msg) {
      module.emitError("amk-bind-shapes: ") << msg;
      signalPassFailure();
    };
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    if (funcs.size() != 1)
      return fail("expected one graph function, found " +
                  Twine(funcs.size()));
    func::FuncOp func = funcs.front();

    // The requested sizes, checked for repeats first.
    llvm::StringMap<SmallVector<int64_t>> byInput;
    for (const std::string &spec : shapes) {
      // The last '=': an ONNX input name may hold one, a shape cannot.
      auto [name, dimsText] = StringRef(spec).rsplit('=');
      name = name.trim();
      if (name.empty() || dimsText.empty())
        return fail("shapes entry '" + spec + "' is not NAME=D0xD1x...");
      if (byInput.count(name))
        return fail("input '" + name + "' is given two shapes");
      SmallVector<StringRef> parts;
      dimsText.split(parts, 'x');
      SmallVector<int64_t> sizes;
      for (auto [d, part] : llvm::enumerate(parts)) {
        int64_t size;
        std::string why = parseSize(part, size);
        if (!why.empty())
          return fail("input '" + name + "' dimension " + Twine(d) + ": " +
                      why);
        sizes.push_back(size);
      }
      byInput[name] = sizes;
    }
    llvm::StringMap<int64_t> byDim;
    llvm::StringMap<bool> dimUsed;
    for (const std::string &spec : dims) {
      auto [name, sizeText] = StringRef(spec).split('=');
      name = name.trim();
      int64_t size;
      if (name.empty() || sizeText.empty())
        return fail("dims entry '" + spec + "' is not NAME=SIZE");
      std::string why = parseSize(sizeText, size);
      if (!why.empty())
        return fail("dimension '" + name + "': " + why);
      auto [it, fresh] = byDim.try_emplace(name, size);
      if (!fresh && it->second != size)
        return fail("dimension '" + name + "' is bound to " +
                    Twine(it->second) + " and to " + Twine(size));
      dimUsed[name] = false;
    }

    // The new argument types, and the size each dimension name got, so a
    // name bound through one input's shape binds it everywhere.
    llvm::StringMap<std::pair<int64_t, std::string>> named; // size, by what
    SmallVector<Type> argTypes;
    llvm::StringMap<bool> inputSeen;
    int64_t bound = 0;
    for (BlockArgument arg : func.getArguments()) {
      unsigned i = arg.getArgNumber();
      auto nameAttr = func.getArgAttrOfType<StringAttr>(i, amk::onnx::kNameAttr);
      std::string input = nameAttr ? nameAttr.str() : "input_" + std::to_string(i);
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      auto params = func.getArgAttrOfType<ArrayAttr>(i, "onnx.dim_params");
      auto shapeIt = byInput.find(input);
      inputSeen[input] = true;
      if (!type) {
        if (shapeIt != byInput.end())
          return fail("input '" + input + "' has no known rank to bind");
        argTypes.push_back(arg.getType());
        continue;
      }
      if (shapeIt != byInput.end() &&
          (int64_t)shapeIt->second.size() != type.getRank())
        return fail("input '" + input + "' has rank " +
                    Twine(type.getRank()) + ", its shape has " +
                    Twine(shapeIt->second.size()) + " dimensions");
      SmallVector<int64_t> shape(type.getShape());
      for (int64_t d = 0; d < type.getRank(); ++d) {
        StringRef param;
        if (params && d < (int64_t)params.size())
          if (auto s = dyn_cast<StringAttr>(params[d]))
            param = s.getValue();
        std::optional<int64_t> want;
        std::string source;
        if (shapeIt != byInput.end()) {
          want = shapeIt->second[d];
          source = "shapes=" + input;
        }
        if (!param.empty()) {
          auto dimIt = byDim.find(param);
          if (dimIt != byDim.end()) {
            dimUsed[param] = true;
            if (want && *want != dimIt->second)
              return fail("input '" + input + "' dimension " + Twine(d) +
                          " ('" + param + "') is " + Twine(*want) +
                          " by its shape but " + Twine(dimIt->second) +
                          " by dims");
            want = dimIt->second;
            source = "dims=" + param.str();
          }
          if (want) {
            auto [it, fresh] = named.try_emplace(param, *want, source);
            if (!fresh && it->second.first != *want)
              return fail("dimension '" + param + "' is " +
                          Twine(it->second.first) + " (" + it->second.second +
                          ") and " + Twine(*want) + " (" + source +
                          ", input '" + input + "')");
          }
        }
        if (!want)
          continue;
        if (!ShapedType::isDynamic(shape[d])) {
          if (shape[d] != *want)
            return fail("input '" + input + "' dimension " + Twine(d) +
                        " is " + Twine(shape[d]) + " in the model, not " +
                        Twine(*want));
          continue;
        }
        shape[d] = *want;
        ++bound;
      }
      argTypes.push_back(RankedTensorType::get(shape, type.getElementType()));
    }
    for (auto &entry : byInput)
      if (!inputSeen.count(entry.getKey()))
        return fail("the model has no input named '" + entry.getKey() + "'");
    // A name no input has binds nothing; a warning, not an error, so one
    // set of sizes can serve several models (amk-run --dim does the same).
    for (auto &entry : dimUsed)
      if (!entry.getValue())
        module.emitWarning("amk-bind-shapes: no input has a dimension named '")
            << entry.getKey() << "'; it binds nothing";

    // A name bound through a shape binds the same name on other inputs.
    for (BlockArgument arg : func.getArguments()) {
      unsigned i = arg.getArgNumber();
      auto type = dyn_cast<RankedTensorType>(argTypes[i]);
      auto params = func.getArgAttrOfType<ArrayAttr>(i, "onnx.dim_params");
      if (!type || !params)
        continue;
      SmallVector<int64_t> shape(type.getShape());
      for (int64_t d = 0; d < type.getRank() && d < (int64_t)params.size();
           ++d) {
        auto s = dyn_cast<StringAttr>(params[d]);
        if (!s || !ShapedType::isDynamic(shape[d]))
          continue;
        auto it = named.find(s.getValue());
        if (it != named.end()) {
          shape[d] = it->second.first;
          ++bound;
        }
      }
      argTypes[i] = RankedTensorType::get(shape, type.getElementType());
    }

    // Values: each checked against its input's (bound) type first.
    SmallVector<std::pair<unsigned, DenseElementsAttr>> constants;
    llvm::StringMap<bool> valued;
    for (const std::string &spec : values) {
      auto [name, text] = StringRef(spec).rsplit('=');
      name = name.trim();
      if (name.empty() || !StringRef(spec).contains('='))
        return fail("values entry '" + spec + "' is not NAME=V0:V1:...");
      if (valued.count(name))
        return fail("input '" + name + "' is given values twice");
      valued[name] = true;
      std::optional<unsigned> index;
      for (BlockArgument arg : func.getArguments()) {
        unsigned i = arg.getArgNumber();
        auto n = func.getArgAttrOfType<StringAttr>(i, amk::onnx::kNameAttr);
        if ((n ? n.str() : "input_" + std::to_string(i)) == name)
          index = i;
      }
      if (!index)
        return fail("the model has no input named '" + name + "'");
      auto type = dyn_cast<RankedTensorType>(argTypes[*index]);
      if (!type || !type.hasStaticShape() || type.getNumElements() > 64 ||
          !(isa<IntegerType>(type.getElementType()) ||
            isa<FloatType>(type.getElementType())))
        return fail("input '" + name + "' is not a small numeric tensor of "
                    "static shape (at most 64 elements), so it cannot be "
                    "given values");
      SmallVector<StringRef> parts; // none for an empty tensor
      if (!text.empty())
        text.split(parts, ':');
      if ((int64_t)parts.size() != type.getNumElements())
        return fail("input '" + name + "' has " +
                    Twine(type.getNumElements()) + " elements, its values " +
                    Twine(parts.size()));
      Type et = type.getElementType();
      SmallVector<Attribute> elems;
      for (StringRef part : parts) {
        part = part.trim();
        if (auto it = dyn_cast<IntegerType>(et)) {
          int64_t v;
          if (part.getAsInteger(10, v))
            return fail("value '" + part + "' of input '" + name +
                        "' is not an integer");
          unsigned w = it.getWidth();
          bool fits = w == 1 ? (v == 0 || v == 1)
                      : it.isUnsigned()
                          ? v >= 0 && (w >= 64 || (uint64_t)v >> w == 0)
                          : w >= 64 || (v >= -(int64_t(1) << (w - 1)) &&
                                        v < (int64_t(1) << (w - 1)));
          if (!fits)
            return fail("value " + part + " of input '" + name +
                        "' does not fit its type");
          elems.push_back(
              IntegerAttr::get(et, APInt(w, (uint64_t)v, !it.isUnsigned() && w > 1)));
        } else {
          double v;
          if (part.getAsDouble(v))
            return fail("value '" + part + "' of input '" + name +
                        "' is not a number");
          elems.push_back(FloatAttr::get(et, v));
        }
      }
      constants.push_back({*index, DenseElementsAttr::get(type, elems)});
    }

    for (BlockArgument arg : func.getArguments())
      arg.setType(argTypes[arg.getArgNumber()]);
    func.setFunctionType(FunctionType::get(
        func.getContext(), argTypes, func.getFunctionType().getResults()));
    if (!constants.empty()) {
      OpBuilder b(&func.getBody().front(), func.getBody().front().begin());
      for (auto [i, value] : constants) {
        BlockArgument arg = func.getArgument(i);
        Value c = amk::onnx::ConstantOp::create(
            b, arg.getLoc(), TypeRange{value.getType()}, ValueRange{},
            ArrayRef<NamedAttribute>{b.getNamedAttr("value", value)});
        arg.replaceAllUsesWith(c);
      }
    }
    numBound = bound;
    if (!infer)
      return;
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(amk::createInferShapes());
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();
  }
};

} // namespace
