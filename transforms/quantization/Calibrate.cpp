//===- Calibrate.cpp - amk-calibrate -------------------------------------===//
//
// Part of AMK. Runs the graph on a calibration set with the reference
// interpreter and stores a range on every tensor amk-insert-qdq will
// quantize (passes/Quantization.h, docs/quantization.md).
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXNames.h"
#include "transforms/Utils/PassUtils.h"
#include "transforms/quantization/Passes.h"
#include "transforms/quantization/CalibrationData.h"
#include "transforms/quantization/Quantization.h"
#include "transforms/quantization/SharedOptions.h"
#include "reference/Interpreter.h"
#include "translate/TensorIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace amk {
#define GEN_PASS_DEF_CALIBRATE
#include "transforms/quantization/Passes.h.inc"
} // namespace amk

using namespace mlir;
using namespace amk;
using namespace amk::quant;

namespace {

class CalibratePass : public amk::impl::CalibrateBase<CalibratePass> {
public:
  using CalibrateBase::CalibrateBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    ConfigOverrides o =
        sharedOverrides(config, activationType, weightType, perChannel,
                        symmetricActivations, quantizedOps, keepFloat);
    o.method = givenName(method);
    o.percentile = amk::givenOption(percentile);
    o.bins = amk::givenOption(bins);
    if (!dataDir.empty())
      o.dataDir = dataDir;
    o.synthetic = amk::givenOption(synthetic);
    o.seed = amk::givenOption(seed);
    o.maxSamples = amk::givenOption(maxSamples);
    QuantConfig cfg;
    if (llvm::Error e = applyOverrides(o, cfg)) {
      module.emitError("amk-calibrate: ") << llvm::toString(std::move(e));
      return signalPassFailure();
    }
    QuantTargets targets = selectTargets(module, cfg);
    if (targets.activations.empty()) {
      module.emitError("amk-calibrate: nothing to calibrate: the graph has "
                       "no activation of the quantized ops (")
          << llvm::join(cfg.quantizedOps, ", ") << ")";
      return signalPassFailure();
    }
    ref::Interpreter interp(module);
    func::FuncOp func = interp.getFunction();
    if (!func) {
      module.emitError("amk-calibrate: the module has no graph function");
      return signalPassFailure();
    }
    auto unsupported = interp.findUnsupported();
    if (!unsupported.empty()) {
      module.emitError("amk-calibrate: the reference interpreter cannot run "
                       "the graph: ")
          << unsupported.front();
      return signalPassFailure();
    }
    SampleSource samples(func, cfg);
    std::string error;
    if (failed(samples.init(error))) {
      module.emitError("amk-calibrate: ") << error;
      return signalPassFailure();
    }

    llvm::DenseMap<Value, unsigned> index;
    for (auto [i, v] : llvm::enumerate(targets.activations))
      index[v] = i;
    std::vector<RangeStats> stats(targets.activations.size());
    bool histogramPass = false;
    auto observe = [&](Value v, const ref::RValue &rv) {
      auto it = index.find(v);
      if (it == index.end() || !rv.isTensor())
        return;
      const ref::Tensor &t = rv.getTensor();
      if (t.dtype() != ref::DataType::FLOAT)
        return;
      RangeStats &s = stats[it->second];
      if (histogramPass)
        s.observeHistogram(t.data<float>(), t.numel(), cfg.maskThreshold);
      else
        s.observeMinMax(t.data<float>(), t.numel(), cfg.maskThreshold);
    };
    interp.setObserver([&](Operation *op, unsigned i, llvm::StringRef,
                           const ref::RValue &rv) {
      observe(op->getResult(i), rv);
    });
    // Pass 1: min/max. Pass 2 (histogram methods): |x| histograms over
    // the ranges pass 1 found. Both stream: no tensor outlives its run.
    uint64_t hash = 0;
    int passes = cfg.method == "minmax" ? 1 : 2;
    for (int pass = 0; pass < passes; ++pass) {
      histogramPass = pass == 1;
      if (histogramPass)
        for (RangeStats &s : stats)
          s.startHistogram(cfg.bins);
      for (int64_t k = 0; k < samples.size(); ++k) {
        auto inputs = samples.get(k, error);
        if (failed(inputs)) {
          module.emitError("amk-calibrate: ") << error;
          return signalPassFailure();
        }
        for (auto [i, arg] : llvm::enumerate(func.getArguments()))
          observe(arg, (*inputs)[i]);
        if (failed(interp.run(*inputs))) {
          module.emitError("amk-calibrate: the graph failed on sample ")
              << k << ": " << interp.getFailure().message;
          return signalPassFailure();
        }
      }
      if (pass == 0)
        hash = samples.hash();
    }

    // Ranges.
    auto qt = getQType(cfg.activationType);
    if (!qt) {
      module.emitError("amk-calibrate: ") << llvm::toString(qt.takeError());
      return signalPassFailure();
    }
    int64_t levels = (qt->qmax - qt->qmin + 1) / 2;
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    for (auto [i, v] : llvm::enumerate(targets.activations)) {
      const RangeStats &s = stats[i];
      std::string name = valueName(v);
      if (s.empty()) {
        module.emitError("amk-calibrate: tensor '")
            << name
            << "' must receive a range, but the calibration set never "
               "produced a value for it (all NaN, all masked, or never "
               "computed)";
        return signalPassFailure();
      }
      auto [lo, hi] = s.range(cfg.method, cfg.percentile, levels);
      if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi) {
        module.emitError("amk-calibrate: tensor '")
            << name << "' got an invalid range [" << lo << ", " << hi << "]";
        return signalPassFailure();
      }
      setRange(v, lo, hi);
      nlohmann::ordered_json t;
      t["name"] = name;
      t["min"] = lo;
      t["max"] = hi;
      t["observed_min"] = s.min();
      t["observed_max"] = s.max();
      t["values"] = s.count();
      if (s.masked())
        t["masked_values"] = s.masked();
      tensors.push_back(t);
    }
    std::string hashText = llvm::formatv("{0:x16}", hash).str();
    MLIRContext *ctx = module.getContext();
    Builder b(ctx);
    module->setAttr(
        "amk.calibration",
        b.getDictionaryAttr(
            {b.getNamedAttr("method", b.getStringAttr(cfg.method)),
             b.getNamedAttr("samples", b.getI64IntegerAttr(samples.size())),
             b.getNamedAttr("set_hash", b.getStringAttr(hashText)),
             b.getNamedAttr("synthetic", b.getBoolAttr(samples.synthetic())),
             b.getNamedAttr("config",
                            b.getStringAttr(cfg.toJSON().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)))}));
    if (!report.empty()) {
      nlohmann::ordered_json r;
      r["method"] = cfg.method;
      r["samples"] = samples.size();
      r["calibration_set_hash"] = hashText;
      r["synthetic"] = samples.synthetic();
      if (samples.synthetic())
        r["note"] = "calibrated on seeded synthetic inputs, not real data";
      r["config"] = cfg.toJSON();
      r["tensors"] = tensors;
      std::error_code ec;
      llvm::raw_fd_ostream os(report, ec);
      if (ec) {
        module.emitError("amk-calibrate: cannot write '")
            << report << "': " << ec.message();
        return signalPassFailure();
      }
      os << r.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
    emitPassRemark(this, module, RemarkKind::Analysis, "calibrated",
                   llvm::formatv("{0} tensors over {1} {2}samples ({3}), set "
                                 "hash {4}",
                                 targets.activations.size(), samples.size(),
                                 samples.synthetic() ? "synthetic " : "",
                                 cfg.method, hashText));
  }
};

} // namespace
