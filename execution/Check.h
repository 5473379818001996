//===- Check.h - What a model's run is checked against ----------*- C++ -*-===//
//
// Part of AMK. amk-run's checks: the expected outputs of a run (the
// reference interpreter on the model as loaded or before the pipeline,
// expected files, ONNX Runtime on the same inputs), the tolerance of each
// comparison, and the JSON its report is made of (amk-report reads the
// "runtime" object).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_EXECUTION_CHECK_H
#define AMK_EXECUTION_CHECK_H

#include "execution/Session.h"
#include "reference/Compare.h"
#include "reference/ORTBridge.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace amk {

struct CheckOptions {
  /// The reference interpreter on the model as loaded.
  bool checkReference = false;
  /// The reference interpreter on the model before the pipeline: the
  /// pipeline must not change the outputs.
  bool checkPipeline = false;
  /// Expected output files in this directory.
  std::string compareDir;
  /// ONNX Runtime on the same inputs, run as `ortOptions` say, on
  /// `modelPath` when it is an ONNX file.
  bool compareOrt = false;
  ort::Options ortOptions;
  std::string modelPath;
  /// Negative: the default of the check (checkTolerance).
  double rtol = -1, atol = -1;
  /// > 0: a floating-point output passes when its cosine with the expected
  /// one reaches this, whatever the elementwise tolerance. For quantized
  /// models, where two correct engines differ by a quantization step
  /// wherever a value lands on a rounding tie (docs/quantization.md).
  double minCosine = 0;
};

struct ExpectedOutputs {
  /// What they come from: "reference", "before-pipeline", the directory
  /// or "onnxruntime"; empty without a check.
  std::string against;
  std::vector<std::optional<ref::RValue>> values;
  /// ONNX Runtime's run, its timings included.
  std::optional<ort::Result> ort;
};

/// The expected outputs of `run` (whose pipeline changed `module`;
/// `original` is the model as loaded). Fails on checks that cannot be
/// combined and on references that fail.
llvm::Expected<ExpectedOutputs> expectedOutputs(mlir::ModuleOp module,
                                                mlir::ModuleOp original,
                                                const ModelRun &run,
                                                const CheckOptions &options);

/// The tolerance of a comparison with `expected`: rtol 1e-5 for
/// --check-pipeline, 1e-4 against the reference or ONNX Runtime, else
/// 1e-3; against ONNX Runtime or another graph, near-zero elements are
/// judged relative to the output's scale.
ref::Tolerance checkTolerance(const CheckOptions &options,
                              const ref::RValue &expected);

/// Compares each output of `run` with its expected value, appending to
/// `outputs` its name, value and comparison (none without a check);
/// false if any differs or has no expected value.
bool compareOutputs(const ModelRun &run, const CheckOptions &options,
                    const ExpectedOutputs &expected,
                    nlohmann::ordered_json &outputs);

/// min/median/p90 of run times in seconds, as milliseconds.
nlohmann::ordered_json latencyJSON(std::vector<double> seconds,
                                   unsigned warmup);
/// What the runtime ran and how fast (amk-run's "runtime"): with `bench`,
/// latencyJSON of the benchmark and no jit_seconds.
nlohmann::ordered_json runtimeJSON(const ModelRun &run, bool bench,
                                   unsigned warmup);
nlohmann::json comparisonJSON(const ref::Comparison &c);

} // namespace amk

#endif // AMK_EXECUTION_CHECK_H
