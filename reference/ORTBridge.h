//===- ORTBridge.h - Running models in ONNX Runtime -------------*- C++ -*-===//
//
// Part of AMK. ONNX Runtime is AMK's reference for numerics and speed. It
// ships as the npm package onnxruntime-node (installed by scripts/setup.sh)
// without a C header, so AMK drives it through scripts/ort/run.js: inputs
// and outputs travel as raw little-endian files described by JSON.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_REFERENCE_ORTBRIDGE_H
#define AMK_REFERENCE_ORTBRIDGE_H

#include "reference/Tensor.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace amk::ort {

using NamedTensor = std::pair<std::string, ref::Tensor>;

/// Writes `t` for the Node scripts: raw bytes in `file`, or a string list;
/// returns the JSON descriptor {name, dtype, dims, file|strings}.
nlohmann::json writeTensor(const ref::Tensor &t, llvm::StringRef name,
                           llvm::StringRef file);
/// Reads a descriptor written by a Node script.
llvm::Expected<ref::Tensor> readTensor(const nlohmann::json &desc);

struct Options {
  int threads = 1;
  /// ORT graph optimization level: "all" or "disabled".
  std::string optimization = "all";
  int iterations = 1;
};

struct Result {
  std::vector<NamedTensor> outputs;
  /// Wall time of each run, in seconds.
  std::vector<double> seconds;
};

/// Runs `model` in ONNX Runtime on `inputs`, using `workDir` for the files.
llvm::Expected<Result> run(llvm::StringRef model,
                           llvm::ArrayRef<NamedTensor> inputs,
                           llvm::StringRef workDir, const Options &opts = {});

/// Runs scripts/ort/`script` on the request `req` (written to `workDir`,
/// with `outDir` set to it) and returns the result JSON it wrote; a result
/// with an `error` member is an error.
llvm::Expected<nlohmann::json>
runScript(llvm::StringRef script, nlohmann::json req, llvm::StringRef workDir);

/// Whether the ONNX Runtime package is installed.
bool isAvailable();

} // namespace amk::ort

#endif // AMK_REFERENCE_ORTBRIDGE_H
