//===- Check.cpp - What a model's run is checked against ------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "execution/Check.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdio>

using namespace mlir;
using namespace amk;
using ref::RValue;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

/// Errors of `value` prefixed with `what`.
template <typename T>
static llvm::Expected<T> context(const llvm::Twine &what,
                                 llvm::Expected<T> value) {
  if (!value)
    return error(what + llvm::toString(value.takeError()));
  return value;
}

llvm::Expected<ExpectedOutputs>
amk::expectedOutputs(ModuleOp module, ModuleOp original, const ModelRun &run,
                     const CheckOptions &options) {
  ExpectedOutputs e;
  size_t n = run.outputs.size();
  e.values.resize(n);
  if (options.checkReference) {
    if (options.checkPipeline || !options.compareDir.empty() ||
        options.compareOrt)
      return error("--check-reference cannot be combined with "
                   "--check-pipeline, --compare or --compare-ort");
    e.against = "reference";
    auto ref =
        context("reference interpreter: ", runReference(original, run.inputs));
    if (!ref)
      return ref.takeError();
    for (unsigned i = 0; i < n; ++i)
      e.values[i] = std::move((*ref)[i]);
  }
  if (options.checkPipeline) {
    if (!options.compareDir.empty() || options.compareOrt)
      return error("--check-pipeline compares with the model before the "
                   "pipeline; it cannot be combined with --compare or "
                   "--compare-ort");
    e.against = "before-pipeline";
    auto before =
        context("before the pipeline: ", runReference(original, run.inputs));
    if (!before)
      return before.takeError();
    if (before->size() != n)
      return error(llvm::formatv("the pipeline changed the number of outputs "
                                 "({0} before, {1} after)",
                                 before->size(), n));
    for (unsigned i = 0; i < n; ++i)
      e.values[i] = std::move((*before)[i]);
  }
  if (!options.compareDir.empty()) {
    e.against = options.compareDir;
    auto files = readOutputFiles(run.func, options.compareDir);
    if (!files)
      return files.takeError();
    for (unsigned i = 0; i < n; ++i)
      e.values[i] = std::move((*files)[i]);
  }
  if (options.compareOrt) {
    e.against = "onnxruntime";
    // A model that is not an ONNX file is exported for ONNX Runtime: as
    // loaded (the compiled module holds a task program, not a graph).
    auto res = runOnnxRuntime(options.modelPath, original ? original : module,
                              run.func, run.inputs, options.ortOptions);
    if (!res)
      return res.takeError();
    for (unsigned i = 0; i < n; ++i)
      for (auto &[name, t] : res->outputs)
        if (name == outputName(run.func, i))
          e.values[i] = RValue(t);
    e.ort = std::move(*res);
  }
  return e;
}

ref::Tolerance amk::checkTolerance(const CheckOptions &o,
                                   const RValue &expected) {
  double rtol = o.rtol >= 0        ? o.rtol
                : o.checkPipeline  ? 1e-5
                : o.checkReference ? 1e-4
                : o.compareOrt     ? 1e-4
                                   : 1e-3;
  if ((o.compareOrt || o.checkPipeline || o.checkReference) && o.atol < 0)
    return ref::scaledTolerance(expected, rtol);
  return ref::Tolerance{rtol, o.atol >= 0 ? o.atol : 1e-7};
}

namespace {
/// Whether result `i` of `func` is a QuantizeLinear's: its reference value
/// quantizes float32 arithmetic, where an integer kernel sums exactly.
bool quantizedOutput(mlir::func::FuncOp func, unsigned i) {
  if (!func || func.getBody().empty())
    return false;
  mlir::Operation *ret = func.getBody().front().getTerminator();
  if (!ret || i >= ret->getNumOperands())
    return false;
  mlir::Operation *def = ret->getOperand(i).getDefiningOp();
  return def && def->getName().getStringRef() == "onnx.QuantizeLinear";
}

/// Whether `func` requantizes: its float results can then move by
/// quantization steps between integer kernels and the reference.
bool requantizes(mlir::func::FuncOp func) {
  if (!func)
    return false;
  bool found = false;
  func.walk([&](mlir::Operation *op) {
    llvm::StringRef n = op->getName().getStringRef();
    if (n == "onnx.QuantizeLinear" || n == "onnx.DynamicQuantizeLinear" ||
        n == "onnx.QLinearConv" || n == "onnx.QLinearMatMul")
      found = true;
  });
  return found;
}

bool isFloat(amk::ref::DataType t) {
  using amk::ref::DataType;
  return t == DataType::FLOAT || t == DataType::DOUBLE ||
         t == DataType::FLOAT16 || t == DataType::BFLOAT16;
}
} // namespace

bool amk::compareOutputs(const ModelRun &run, const CheckOptions &options,
                         const ExpectedOutputs &expected,
                         nlohmann::ordered_json &outputs) {
  bool ok = true;
  for (auto [i, v] : llvm::enumerate(run.outputs)) {
    nlohmann::ordered_json o;
    o["name"] = outputName(run.func, i);
    o["value"] = v.describe();
    if (!expected.against.empty()) {
      if (const std::optional<RValue> &want = expected.values[i]) {
        ref::Tolerance tol = checkTolerance(options, *want);
        if (quantizedOutput(run.func, i) && want->isTensor() &&
            ref::elementSize(want->getTensor().dtype()) == 1)
          tol.intSteps = 1;
        ref::Comparison c = ref::compareValues(*want, v, tol);
        if (options.minCosine > 0 && want->isTensor() &&
            !llvm::StringRef(c.message).starts_with("shape") &&
            isFloat(want->getTensor().dtype())) {
          c.ok = c.cosine >= options.minCosine;
          char text[96];
          std::snprintf(text, sizeof(text), "cosine %.7f %s the floor %g",
                        c.cosine, c.ok ? ">=" : "<", options.minCosine);
          c.message = text;
        }
        if (!c.ok && options.minCosine <= 0 && want->isTensor() &&
            isFloat(want->getTensor().dtype()) && requantizes(run.func))
          c.message += "; the model requantizes (QuantizeLinear), where "
                       "integer kernels round exact sums and the reference "
                       "float32 ones, so values can move by quantization "
                       "steps: compare with --min-cosine (e.g. 0.99)";
        o["comparison"] = comparisonJSON(c);
        o["comparison"]["rtol"] = tol.rtol;
        o["comparison"]["atol"] = tol.atol;
        ok &= c.ok;
      } else {
        o["comparison"] = {{"ok", false}, {"message", "no expected value"}};
        ok = false;
      }
    }
    outputs.push_back(o);
  }
  return ok;
}

nlohmann::ordered_json amk::latencyJSON(std::vector<double> samples,
                                        unsigned warmup) {
  std::sort(samples.begin(), samples.end());
  auto q = [&](double f) {
    return samples[std::min(samples.size() - 1,
                            (size_t)(f * (samples.size() - 1) + 0.5))];
  };
  return {{"iters", samples.size()},
          {"warmup", warmup},
          {"min_ms", samples.front() * 1e3},
          {"median_ms", q(0.5) * 1e3},
          {"p90_ms", q(0.9) * 1e3}};
}

nlohmann::ordered_json amk::runtimeJSON(const ModelRun &run, bool bench,
                                        unsigned warmup) {
  nlohmann::ordered_json latency;
  if (run.jitSeconds)
    latency["jit_seconds"] = *run.jitSeconds;
  if (bench)
    latency = latencyJSON(run.benchSeconds, warmup);
  const ProgramStats &p = *run.program;
  latency["workers"] = p.workers;
  latency["tasks"] = p.tasks;
  latency["arena_bytes"] = p.arenaBytes;
  if (p.tensorBytes)
    latency["tensor_bytes"] = *p.tensorBytes;
  if (p.constBytes)
    latency["const_bytes"] = *p.constBytes;
  if (p.flops) {
    latency["flops"] = *p.flops;
    if (latency.contains("median_ms"))
      latency["gflops_per_s"] =
          *p.flops / latency["median_ms"].get<double>() / 1e6;
  }
  if (!p.nodeFlops.empty()) {
    nlohmann::ordered_json nodes = nlohmann::ordered_json::object();
    for (const auto &[name, f] : p.nodeFlops)
      nodes[name] = f;
    latency["node_flops"] = std::move(nodes);
    nlohmann::ordered_json kernels = nlohmann::ordered_json::object();
    for (const auto &[name, k] : p.nodeKernels)
      kernels[name] = k;
    latency["node_kernels"] = std::move(kernels);
  }
  return latency;
}

nlohmann::json amk::comparisonJSON(const ref::Comparison &c) {
  return {{"ok", c.ok},
          {"max_abs_error", c.maxAbsError},
          {"max_rel_error", c.maxRelError},
          {"cosine", c.cosine},
          {"worst_index", c.worstIndex},
          {"worst_expected", c.worstExpected},
          {"worst_actual", c.worstActual},
          {"steps_off", c.stepsOff},
          {"message", c.message}};
}
