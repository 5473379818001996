//===- CalibrationData.h - The samples of a calibration set -----*- C++ -*-===//
//
// Part of AMK. Reads a calibration set one sample at a time (a directory of
// samples, or seeded synthetic inputs when asked), checks each input
// against the graph, and hashes the set. Used by amk-calibrate, by
// amk-insert-qdq's sensitivity search, and (the hash) by amk-tune and
// amk-compile.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PASSES_CALIBRATIONDATA_H
#define AMK_PASSES_CALIBRATIONDATA_H

#include "transforms/quantization/Quantization.h"
#include "reference/Interpreter.h"
#include "runtime/support/Fnv1a.h"
#include "translate/TensorIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>
#include <vector>

namespace amk::quant {

/// Where the samples come from: files, one directory per sample, or a
/// seeded generator. Samples are produced one at a time (streaming).
class SampleSource {
public:
  SampleSource(mlir::func::FuncOp func, const QuantConfig &config)
      : func(func), config(config) {}

  /// Lists the samples; fails on an empty set or a missing directory.
  mlir::LogicalResult init(std::string &error) {
    if (config.syntheticSamples > 0) {
      count = config.syntheticSamples;
      return mlir::success();
    }
    if (config.dataDir.empty()) {
      error = "no calibration data: give data-dir=DIR (a directory of "
              "samples) or, to calibrate on seeded random inputs, "
              "synthetic=N explicitly";
      return mlir::failure();
    }
    if (!llvm::sys::fs::is_directory(config.dataDir)) {
      error = "the calibration directory '" + config.dataDir +
              "' does not exist";
      return mlir::failure();
    }
    std::error_code ec;
    bool hasFiles = false;
    for (llvm::sys::fs::directory_iterator it(config.dataDir, ec), end;
         it != end && !ec; it.increment(ec)) {
      if (llvm::sys::fs::is_directory(it->path()))
        dirs.push_back(it->path());
      else if (llvm::StringRef(it->path()).ends_with(".pb") ||
               llvm::StringRef(it->path()).ends_with(".npy"))
        hasFiles = true;
    }
    std::sort(dirs.begin(), dirs.end());
    // A directory of tensor files is one sample.
    if (dirs.empty() && hasFiles)
      dirs.push_back(config.dataDir);
    if (dirs.empty()) {
      error = "the calibration set '" + config.dataDir +
              "' is empty: it has no sample directories and no .pb/.npy "
              "files";
      return mlir::failure();
    }
    if (config.maxSamples > 0 && (int64_t)dirs.size() > config.maxSamples)
      dirs.resize(config.maxSamples);
    count = dirs.size();
    return mlir::success();
  }

  int64_t size() const { return count; }
  bool synthetic() const { return config.syntheticSamples > 0; }

  /// The inputs of sample k, checked against the graph's input types.
  mlir::FailureOr<std::vector<ref::RValue>> get(int64_t k, std::string &error) {
    std::vector<ref::RValue> inputs;
    mlir::MLIRContext *ctx = func.getContext();
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto type = mlir::dyn_cast<mlir::RankedTensorType>(func.getArgument(i).getType());
      std::string name = valueName(func.getArgument(i));
      // A dynamic model is calibrated at the samples' shapes (each sample
      // may have its own); synthetic samples need sizes to be made with.
      if (!type || (synthetic() && !type.hasStaticShape())) {
        error = "graph input '" + name + "' has no static shape; " +
                (type ? "synthetic samples need one (bind its dimensions "
                        "first: amk-bind-shapes, or give samples)"
                      : "calibration needs its rank at least");
        return mlir::failure();
      }
      mlir::ElementsAttr attr;
      std::string where;
      if (synthetic()) {
        attr = makeRandomTensor(type, config.seed * 1000003ull + k * 131 + i);
        where = "synthetic sample " + std::to_string(k);
      } else {
        std::string file = findTensorFile(dirs[k], name, "input", i);
        where = "sample '" + dirs[k] + "'";
        if (file.empty()) {
          error = where + ": no file for input '" + name + "' (" + name +
                  ".npy/.pb or input_" + std::to_string(i) + ".npy/.pb)";
          return mlir::failure();
        }
        auto read = readTensorFile(file, ctx);
        if (!read) {
          error = where + ": " + llvm::toString(read.takeError());
          return mlir::failure();
        }
        attr = *read;
        where = "'" + file + "'";
      }
      auto got = mlir::cast<mlir::ShapedType>(attr.getType());
      if (got.getElementType() != type.getElementType() ||
          failed(mlir::verifyCompatibleShape(got.getShape(),
                                             type.getShape())) ||
          got.getRank() != type.getRank()) {
        std::string g, w;
        llvm::raw_string_ostream gs(g), ws(w);
        gs << got;
        ws << type;
        error = where + ": input '" + name + "' is " + g +
                ", the model needs " + w;
        return mlir::failure();
      }
      auto t = ref::Tensor::fromAttr(attr);
      if (!t) {
        error = where + ": " + llvm::toString(t.takeError());
        return mlir::failure();
      }
      // The set's identity: every byte of every sample, in order.
      mix(t->raw(), t->byteSize());
      inputs.push_back(ref::RValue(std::move(*t)));
    }
    return inputs;
  }

  uint64_t hash() const { return setHash; }

private:
  void mix(const char *data, size_t n) { setHash = fnv1a(data, n, setHash); }

  mlir::func::FuncOp func;
  const QuantConfig &config;
  std::vector<std::string> dirs;
  int64_t count = 0;
  uint64_t setHash = kFnv1aOffset;
};

/// The identity of the calibration set in `dataDir`, as amk-calibrate
/// records it (every byte of every sample, in order). Reading the set also
/// checks each sample against `func`. What amk-tune records and
/// amk-compile matches a tuned int8 pipeline against.
inline mlir::FailureOr<uint64_t> hashCalibrationSet(mlir::func::FuncOp func,
                                                    llvm::StringRef dataDir,
                                                    std::string &error) {
  QuantConfig qc;
  qc.dataDir = dataDir.str();
  SampleSource samples(func, qc);
  if (failed(samples.init(error)))
    return mlir::failure();
  for (int64_t k = 0; k < samples.size(); ++k)
    if (failed(samples.get(k, error)))
      return mlir::failure();
  return samples.hash();
}

} // namespace amk::quant

#endif // AMK_PASSES_CALIBRATIONDATA_H
