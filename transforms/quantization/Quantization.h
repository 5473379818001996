//===- Quantization.h - Calibration and QDQ insertion -----------*- C++ -*-===//
//
// Part of AMK. What amk-calibrate and amk-insert-qdq share, so that they
// cannot disagree: the one configuration object (every option, one set of
// defaults, serialized and read back identically), the choice of the
// tensors that receive a Quantize/Dequantize pair, the streaming range
// statistics and the four ways of turning them into a range, and the
// arithmetic of scales and zero points. docs/quantization.md.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PASSES_QUANTIZATION_H
#define AMK_PASSES_QUANTIZATION_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace amk::quant {

/// Every quantization option. The defaults written here are the only ones:
/// pass options left empty take them, a config file overrides them, and
/// toJSON/fromJSON round-trip every field.
struct QuantConfig {
  // What gets quantized.
  std::string activationType = "uint8"; ///< uint8 | int8 | int16
  std::string weightType = "int8";      ///< int8 | uint8
  bool perChannel = true;               ///< Conv/Gemm/MatMul weights
  bool symmetricActivations = false;
  /// Ops whose activation inputs, output and weights are quantized.
  std::vector<std::string> quantizedOps = {"Conv", "amk.conv", "Gemm",
                                           "MatMul", "amk.gemm"};
  /// Ops kept in float even if listed above, by op name or node name.
  std::vector<std::string> keepFloat = {};
  // Calibration.
  std::string method = "minmax"; ///< minmax | percentile | entropy | mse
  double percentile = 99.999;    ///< of |x| mass kept, for "percentile"
  int64_t bins = 2048;           ///< histogram bins (percentile/entropy/mse)
  /// Values at or below this are attention-style masks, not data: they are
  /// left out of the statistics (and saturate after quantization).
  double maskThreshold = -1e9;
  std::string dataDir = "";      ///< calibration inputs (.pb/.npy)
  int64_t syntheticSamples = 0;  ///< >0: seeded random inputs instead
  uint64_t seed = 1;             ///< of the synthetic generator
  int64_t maxSamples = 0;        ///< 0: every sample of dataDir
  // Sensitivity (amk-insert-qdq): keep the nodes whose quantization hurts
  // most in float until the graph outputs' SQNR reaches this (dB); 0: off.
  double sensitivityTargetDb = 0;
  int64_t sensitivitySamples = 4; ///< calibration samples it measures on

  nlohmann::ordered_json toJSON() const;
  /// Fails on an unknown key, a wrong type or an invalid value.
  static llvm::Expected<QuantConfig> fromJSON(const nlohmann::json &j);
  /// Checks every field (types, method, ranges of the numbers).
  llvm::Error validate() const;
  bool operator==(const QuantConfig &o) const {
    return toJSON() == o.toJSON();
  }
};

/// Reads a config file (JSON) into `config` over its current values.
llvm::Error readConfigFile(llvm::StringRef path, QuantConfig &config);

/// The pass options, as given (empty: not given). applyOverrides reads the
/// config file first, then each given option over it, then validates.
struct ConfigOverrides {
  std::string configFile;
  std::optional<std::string> activationType, weightType, method, dataDir;
  std::optional<bool> perChannel, symmetricActivations;
  std::optional<double> percentile, sensitivityTarget;
  std::optional<int64_t> bins, synthetic, maxSamples, sensitivitySamples;
  std::optional<uint64_t> seed;
  std::vector<std::string> quantizedOps, keepFloat;
};
llvm::Error applyOverrides(const ConfigOverrides &o, QuantConfig &config);

/// The integer type's range and ONNX element type.
struct QType {
  std::string name;
  int64_t qmin = 0, qmax = 0;
  bool isSigned = false;
  int bits = 8;
};
llvm::Expected<QType> getQType(llvm::StringRef name);

/// The tensors that receive a Quantize/Dequantize pair: the floating-point
/// activation inputs and the outputs of every quantized op (graph inputs
/// included), in program order, and the constant weights of those ops.
struct QuantTargets {
  llvm::SmallVector<mlir::Value> activations;
  /// (op, operand index) of each weight to quantize, and of each bias.
  llvm::SmallVector<std::pair<mlir::Operation *, unsigned>> weights, biases;
  llvm::SmallVector<mlir::Operation *> quantizedOps;
};
QuantTargets selectTargets(mlir::ModuleOp module, const QuantConfig &config);

/// The ONNX tensor name of a value ("" if none), for reports and errors.
std::string valueName(mlir::Value v);

/// Names for the nodes and initializers a pass adds: the exporter needs
/// them unique, so each is `base`, or `base_K` for the first K free among
/// the module's node and tensor names and those already given.
class FreshNames {
public:
  explicit FreshNames(mlir::ModuleOp module);
  std::string operator()(const std::string &base);

private:
  llvm::StringSet<> used;
};

/// Streaming statistics of one tensor: min/max, then (second pass, once
/// the range is known) a histogram of |x| over [0, absmax] with `bins`
/// bins. No tensor is kept.
class RangeStats {
public:
  void observeMinMax(const float *data, int64_t n, double maskThreshold);
  void startHistogram(int64_t bins);
  void observeHistogram(const float *data, int64_t n, double maskThreshold);
  bool needsHistogram(llvm::StringRef method) const {
    return method != "minmax";
  }
  double min() const { return lo; }
  double max() const { return hi; }
  int64_t count() const { return n; }
  int64_t masked() const { return numMasked; }
  bool empty() const { return n == 0; }
  const std::vector<double> &histogram() const { return hist; }
  double absMax() const { return std::max(std::abs(lo), std::abs(hi)); }

  /// The calibrated range [min, max] by `method`. For the histogram
  /// methods the threshold T on |x| is chosen, then the range is
  /// [max(min, -T), min(max, T)]. `levels`: the quantized type's levels.
  std::pair<double, double> range(llvm::StringRef method, double percentile,
                                  int64_t levels) const;

private:
  double lo = 0, hi = 0;
  int64_t n = 0, numMasked = 0;
  std::vector<double> hist;
};

/// TensorRT-style KL-divergence threshold search on a histogram of |x|:
/// returns the bin index (exclusive end) whose threshold minimizes
/// KL(P || Q) with Q the distribution quantized to `levels` levels.
int64_t entropyThresholdBin(const std::vector<double> &hist, int64_t levels);
/// The threshold bin that minimizes the expected squared error of
/// quantizing the histogram's values to `levels` levels with clipping.
int64_t mseThresholdBin(const std::vector<double> &hist, int64_t levels);

/// Scale and zero point for [rmin, rmax] (widened to contain 0).
struct QParams {
  double scale = 1;
  int64_t zeroPoint = 0;
};
QParams computeQParams(double rmin, double rmax, const QType &t,
                       bool symmetric);

/// The range attribute of a value: `amk.range` on block arguments (as an
/// argument attribute) and an entry of `amk.ranges` on ops.
std::optional<std::pair<double, double>> getRange(mlir::Value v);
void setRange(mlir::Value v, double rmin, double rmax);

} // namespace amk::quant

#endif // AMK_PASSES_QUANTIZATION_H
