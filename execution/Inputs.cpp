//===- Inputs.cpp - A graph's inputs and outputs as values and files ------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "execution/Inputs.h"

#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXSchema.h"
#include "reference/Compare.h"
#include "translate/TensorIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace mlir;
using namespace amk;
using ref::RValue;
using ref::Tensor;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

std::string amk::inputName(func::FuncOp func, unsigned i) {
  llvm::StringRef n = onnx::getTensorName(func.getArgument(i));
  return n.empty() ? "input_" + std::to_string(i) : n.str();
}

std::string amk::outputName(func::FuncOp func, unsigned i) {
  auto n = func.getResultAttrOfType<StringAttr>(i, onnx::kNameAttr);
  return n ? n.str() : "output_" + std::to_string(i);
}

/// Reads `file` as a value of `type`; errors start with `what`.
static llvm::Expected<RValue> readValue(llvm::StringRef file, Type type,
                                        const llvm::Twine &what) {
  auto v = readValueFile(file, type, type.getContext());
  if (!v)
    return error(what + ": " + llvm::toString(v.takeError()));
  return ref::toRValue(*v, type);
}

/// The file of each input from NAME=FILE and FILE specs ("" where none).
static llvm::Expected<std::vector<std::string>>
inputFiles(func::FuncOp func, llvm::ArrayRef<std::string> specs) {
  unsigned n = func.getNumArguments();
  std::vector<std::string> files(n);
  unsigned next = 0;
  for (const std::string &spec : specs) {
    auto [name, file] = llvm::StringRef(spec).split('=');
    if (file.empty()) { // Positional.
      if (next >= n)
        return error("more --input files than the model's " +
                     std::to_string(n) + " inputs");
      files[next++] = name.str();
      continue;
    }
    bool found = false;
    for (unsigned i = 0; i < n; ++i)
      if (inputName(func, i) == name) {
        files[i] = file.str();
        found = true;
      }
    if (!found) {
      std::string names;
      for (unsigned i = 0; i < n; ++i)
        names += (i ? ", " : "") + inputName(func, i);
      return error("the model has no input '" + name +
                   "' (its inputs: " + names + ")");
    }
  }
  return files;
}

/// A seeded random value for input `i`, its symbolic dimensions sized
/// from `dims`.
static llvm::Expected<RValue>
randomInput(func::FuncOp func, unsigned i, const InputOptions &options,
            const std::map<std::string, int64_t> &dims) {
  Type t = func.getArgument(i).getType();
  std::string name = inputName(func, i);
  auto tt = dyn_cast<RankedTensorType>(t);
  if (!options.symbolicDims && (!tt || !tt.hasStaticShape()))
    return error("input '" + name + "' has no static shape; give --input-dir");
  if (!tt)
    return error("input '" + name +
                 "' has no static tensor type; give it with --input");
  auto params = func.getArgAttrOfType<ArrayAttr>(i, "onnx.dim_params");
  SmallVector<int64_t> shape(tt.getShape());
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (!ShapedType::isDynamic(size))
      continue;
    std::string param =
        params && d < params.size() ? cast<StringAttr>(params[d]).str() : "";
    auto it = dims.find(param);
    size = it != dims.end() ? it->second : 1;
  }
  ElementsAttr value = makeRandomTensor(tt.clone(shape), options.seed + i);
  if (!value)
    return error("cannot make a random value of " + onnx::getONNXTypeString(t) +
                 " for input '" + name + "'");
  return RValue(*Tensor::fromAttr(value));
}

llvm::Expected<std::vector<RValue>>
amk::prepareInputs(func::FuncOp func, const InputOptions &options) {
  auto files = inputFiles(func, options.files);
  if (!files)
    return files.takeError();
  std::map<std::string, int64_t> dims;
  for (const std::string &spec : options.dims) {
    auto [name, value] = llvm::StringRef(spec).split('=');
    int64_t v;
    if (value.getAsInteger(10, v) || v < 0)
      return error("--dim '" + spec + "' is not NAME=N");
    dims[name.str()] = v;
  }
  std::vector<RValue> inputs;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    std::string name = inputName(func, i);
    std::string &file = (*files)[i];
    if (file.empty() && !options.dir.empty()) {
      file = findTensorFile(options.dir, name, "input", i);
      if (file.empty() && options.dirHoldsAll)
        return error("--input-dir '" + options.dir +
                     "' has no file for input '" + name + "'");
    }
    if (!file.empty() && !llvm::sys::fs::exists(file))
      return error("input '" + name + "': no such file '" + file + "'");
    llvm::Expected<RValue> value =
        file.empty() ? randomInput(func, i, options, dims)
                     : readValue(file, func.getArgument(i).getType(),
                                 "input '" + name + "'");
    if (!value)
      return value.takeError();
    inputs.push_back(std::move(*value));
  }
  return inputs;
}

llvm::Error amk::writeOutputFile(llvm::StringRef dir, llvm::StringRef name,
                                 llvm::StringRef format, const RValue &value,
                                 MLIRContext *ctx) {
  if (!value.isTensor())
    return error("output '" + name + "' is not a tensor; not written");
  std::string safe = name.str();
  for (char &c : safe)
    if (!llvm::isAlnum(c) && c != '_' && c != '-' && c != '.')
      c = '_';
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, safe + "." + format);
  return writeTensorFile(path, value.getTensor().toAttr(ctx), name);
}

llvm::Expected<std::vector<RValue>> amk::readOutputFiles(func::FuncOp func,
                                                         llvm::StringRef dir) {
  std::vector<RValue> expected;
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    std::string name = outputName(func, i);
    std::string file = findTensorFile(dir, name, "output", i);
    if (file.empty())
      return error("no expected file for output '" + name + "' in '" + dir +
                   "'");
    auto value = readValue(file, func.getResultTypes()[i],
                           "expected output '" + name + "'");
    if (!value)
      return value.takeError();
    expected.push_back(std::move(*value));
  }
  return expected;
}
