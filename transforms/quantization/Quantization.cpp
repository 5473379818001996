//===- Quantization.cpp - Calibration and QDQ insertion, shared -----------===//
//
// Part of AMK. See Quantization.h.
//
//===----------------------------------------------------------------------===//

#include "transforms/quantization/Quantization.h"

#include "dialect/ONNX/ONNXNames.h"
#include "transforms/Utils/PassUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace amk;
using namespace amk::quant;

namespace {

llvm::Error configError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "quantization config: " + msg);
}

} // namespace

nlohmann::ordered_json QuantConfig::toJSON() const {
  nlohmann::ordered_json j;
  j["activation_type"] = activationType;
  j["weight_type"] = weightType;
  j["per_channel"] = perChannel;
  j["symmetric_activations"] = symmetricActivations;
  j["quantized_ops"] = quantizedOps;
  j["keep_float"] = keepFloat;
  j["method"] = method;
  j["percentile"] = percentile;
  j["bins"] = bins;
  j["mask_threshold"] = maskThreshold;
  j["data_dir"] = dataDir;
  j["synthetic_samples"] = syntheticSamples;
  j["seed"] = seed;
  j["max_samples"] = maxSamples;
  j["sensitivity_target_db"] = sensitivityTargetDb;
  j["sensitivity_samples"] = sensitivitySamples;
  return j;
}

llvm::Expected<QuantConfig> QuantConfig::fromJSON(const nlohmann::json &j) {
  if (!j.is_object())
    return configError("expected a JSON object");
  QuantConfig c;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string &k = it.key();
    const nlohmann::json &v = it.value();
    auto want = [&](bool ok, const char *what) -> llvm::Error {
      if (ok)
        return llvm::Error::success();
      return configError("'" + k + "' must be " + what + ", got " + v.dump());
    };
    auto strings = [&](std::vector<std::string> &out) -> llvm::Error {
      if (!v.is_array())
        return want(false, "a list of strings");
      out.clear();
      for (const auto &e : v) {
        if (!e.is_string())
          return want(false, "a list of strings");
        out.push_back(e.get<std::string>());
      }
      return llvm::Error::success();
    };
    llvm::Error e = llvm::Error::success();
    if (k == "activation_type") {
      e = want(v.is_string(), "a string");
      if (!e)
        c.activationType = v.get<std::string>();
    } else if (k == "weight_type") {
      e = want(v.is_string(), "a string");
      if (!e)
        c.weightType = v.get<std::string>();
    } else if (k == "per_channel") {
      e = want(v.is_boolean(), "true or false");
      if (!e)
        c.perChannel = v.get<bool>();
    } else if (k == "symmetric_activations") {
      e = want(v.is_boolean(), "true or false");
      if (!e)
        c.symmetricActivations = v.get<bool>();
    } else if (k == "quantized_ops") {
      e = strings(c.quantizedOps);
    } else if (k == "keep_float") {
      e = strings(c.keepFloat);
    } else if (k == "method") {
      e = want(v.is_string(), "a string");
      if (!e)
        c.method = v.get<std::string>();
    } else if (k == "percentile") {
      e = want(v.is_number(), "a number");
      if (!e)
        c.percentile = v.get<double>();
    } else if (k == "bins") {
      e = want(v.is_number_integer(), "an integer");
      if (!e)
        c.bins = v.get<int64_t>();
    } else if (k == "mask_threshold") {
      e = want(v.is_number(), "a number");
      if (!e)
        c.maskThreshold = v.get<double>();
    } else if (k == "data_dir") {
      e = want(v.is_string(), "a string");
      if (!e)
        c.dataDir = v.get<std::string>();
    } else if (k == "synthetic_samples") {
      e = want(v.is_number_integer(), "an integer");
      if (!e)
        c.syntheticSamples = v.get<int64_t>();
    } else if (k == "seed") {
      e = want(v.is_number_unsigned() || v.is_number_integer(),
               "a non-negative integer");
      if (!e)
        c.seed = v.get<uint64_t>();
    } else if (k == "max_samples") {
      e = want(v.is_number_integer(), "an integer");
      if (!e)
        c.maxSamples = v.get<int64_t>();
    } else if (k == "sensitivity_target_db") {
      e = want(v.is_number(), "a number");
      if (!e)
        c.sensitivityTargetDb = v.get<double>();
    } else if (k == "sensitivity_samples") {
      e = want(v.is_number_integer(), "an integer");
      if (!e)
        c.sensitivitySamples = v.get<int64_t>();
    } else {
      return configError("unknown key '" + k + "'");
    }
    if (e)
      return std::move(e);
  }
  if (llvm::Error e = c.validate())
    return std::move(e);
  return c;
}

llvm::Error QuantConfig::validate() const {
  if (!getQType(activationType))
    return configError("activation_type must be uint8, int8 or int16, not '" +
                       activationType + "'");
  if (weightType != "int8" && weightType != "uint8")
    return configError("weight_type must be int8 or uint8, not '" +
                       weightType + "'");
  if (method != "minmax" && method != "percentile" && method != "entropy" &&
      method != "mse")
    return configError(
        "method must be minmax, percentile, entropy or mse, not '" + method +
        "'");
  if (!(percentile > 0 && percentile <= 100))
    return configError("percentile must be in (0, 100], not " +
                       std::to_string(percentile));
  if (bins < 128 || bins > (1 << 20))
    return configError("bins must be in [128, 1048576], not " +
                       std::to_string(bins));
  if (syntheticSamples < 0 || maxSamples < 0)
    return configError("sample counts must not be negative");
  if (!dataDir.empty() && syntheticSamples > 0)
    return configError("give data_dir or synthetic_samples, not both");
  if (quantizedOps.empty())
    return configError("quantized_ops is empty: nothing would be quantized");
  if (sensitivityTargetDb < 0 || sensitivityTargetDb > 200)
    return configError("sensitivity_target_db must be in [0, 200] (0: off), "
                       "not " + std::to_string(sensitivityTargetDb));
  if (sensitivitySamples < 1)
    return configError("sensitivity_samples must be at least 1");
  return llvm::Error::success();
}

llvm::Error amk::quant::readConfigFile(llvm::StringRef path,
                                       QuantConfig &config) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return configError("cannot read '" + path + "'");
  nlohmann::json j = nlohmann::json::parse((*buf)->getBuffer().begin(),
                                           (*buf)->getBuffer().end(), nullptr,
                                           /*allow_exceptions=*/false);
  if (j.is_discarded())
    return configError("'" + path + "' is not valid JSON");
  // The file's keys over the current values.
  nlohmann::json merged = config.toJSON();
  if (!j.is_object())
    return configError("'" + path + "' must hold a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it)
    merged[it.key()] = it.value();
  auto parsed = QuantConfig::fromJSON(merged);
  if (!parsed)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s (in '%s')",
                                   llvm::toString(parsed.takeError()).c_str(),
                                   path.str().c_str());
  config = *parsed;
  return llvm::Error::success();
}

llvm::Error amk::quant::applyOverrides(const ConfigOverrides &o,
                                       QuantConfig &c) {
  if (!o.configFile.empty())
    if (llvm::Error e = readConfigFile(o.configFile, c))
      return e;
  auto set = [](auto &out, const auto &given) {
    if (given)
      out = *given;
  };
  set(c.activationType, o.activationType);
  set(c.weightType, o.weightType);
  set(c.method, o.method);
  set(c.dataDir, o.dataDir);
  set(c.perChannel, o.perChannel);
  set(c.symmetricActivations, o.symmetricActivations);
  set(c.percentile, o.percentile);
  set(c.bins, o.bins);
  set(c.syntheticSamples, o.synthetic);
  set(c.seed, o.seed);
  set(c.maxSamples, o.maxSamples);
  set(c.sensitivitySamples, o.sensitivitySamples);
  set(c.sensitivityTargetDb, o.sensitivityTarget);
  if (!o.quantizedOps.empty())
    c.quantizedOps = o.quantizedOps;
  if (!o.keepFloat.empty())
    c.keepFloat = o.keepFloat;
  return c.validate();
}

llvm::Expected<QType> amk::quant::getQType(llvm::StringRef name) {
  if (name == "uint8")
    return QType{"uint8", 0, 255, false, 8};
  if (name == "int8")
    return QType{"int8", -128, 127, true, 8};
  if (name == "int16")
    return QType{"int16", -32768, 32767, true, 16};
  if (name == "uint16")
    return QType{"uint16", 0, 65535, false, 16};
  return configError("unknown integer type '" + name + "'");
}

std::string amk::quant::valueName(Value v) {
  llvm::StringRef n = onnx::getTensorName(v);
  if (!n.empty())
    return n.str();
  if (auto arg = dyn_cast<BlockArgument>(v))
    return "input #" + std::to_string(arg.getArgNumber());
  return "result #" + std::to_string(cast<OpResult>(v).getResultNumber()) +
         " of " + v.getDefiningOp()->getName().getStringRef().str();
}

FreshNames::FreshNames(ModuleOp module) {
  module.walk([&](Operation *op) {
    if (llvm::StringRef n = onnx::getNodeName(op); !n.empty())
      used.insert(n);
    for (Value r : op->getResults())
      if (llvm::StringRef t = onnx::getTensorName(r); !t.empty())
        used.insert(t);
  });
}

std::string FreshNames::operator()(const std::string &base) {
  std::string name = base;
  for (int k = 1; used.contains(name); ++k)
    name = base + "_" + std::to_string(k);
  used.insert(name);
  return name;
}

namespace {

bool isFloatTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getElementType().isF32();
}

bool isConstant(Value v) { return getConstantTensor(v).has_value(); }

/// "Conv" names onnx.Conv; "amk.conv" names itself.
bool opListed(Operation *op, const std::vector<std::string> &list) {
  llvm::StringRef full = op->getName().getStringRef();
  llvm::StringRef type = full;
  bool isOnnx = type.consume_front("onnx.");
  llvm::StringRef node = onnx::getNodeName(op);
  for (const std::string &e : list)
    if (e == full || (isOnnx && e == type) || (!node.empty() && e == node))
      return true;
  return false;
}

} // namespace

QuantTargets amk::quant::selectTargets(ModuleOp module,
                                       const QuantConfig &config) {
  QuantTargets t;
  llvm::DenseSet<Value> seen;
  auto addActivation = [&](Value v) {
    if (isFloatTensor(v) && !isConstant(v) && seen.insert(v).second)
      t.activations.push_back(v);
  };
  module.walk([&](Operation *op) {
    if (!op->getName().getStringRef().starts_with("onnx.") &&
        !op->getName().getStringRef().starts_with("amk."))
      return;
    if (!opListed(op, config.quantizedOps) || opListed(op, config.keepFloat))
      return;
    llvm::StringRef type = op->getName().getStringRef();
    type.consume_front("onnx.");
    // Which operand is the weight, which the bias.
    int weight = -1, bias = -1;
    if (type == "Conv" || type == "amk.conv" || type == "ConvTranspose") {
      weight = 1;
      bias = 2;
    } else if (type == "Gemm" || type == "MatMul" || type == "amk.gemm") {
      weight = 1;
      bias = type == "MatMul" ? -1 : 2;
    }
    bool any = false;
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      if (isNone(operand) || !isFloatTensor(operand))
        continue;
      if ((int)i == weight && isConstant(operand)) {
        t.weights.push_back({op, (unsigned)i});
        any = true;
      } else if ((int)i == bias && isConstant(operand)) {
        auto ty = cast<RankedTensorType>(operand.getType());
        if (ty.getRank() == 1)
          t.biases.push_back({op, (unsigned)i});
      } else if (!isConstant(operand)) {
        addActivation(operand);
        any = true;
      }
    }
    for (Value r : op->getResults())
      addActivation(r);
    if (any)
      t.quantizedOps.push_back(op);
  });
  return t;
}

void RangeStats::observeMinMax(const float *data, int64_t count,
                               double maskThreshold) {
  for (int64_t i = 0; i < count; ++i) {
    double x = data[i];
    if (std::isnan(x))
      continue;
    if (x <= maskThreshold) {
      ++numMasked;
      continue;
    }
    if (n == 0) {
      lo = hi = x;
    } else {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    ++n;
  }
}

void RangeStats::startHistogram(int64_t bins) { hist.assign(bins, 0.0); }

void RangeStats::observeHistogram(const float *data, int64_t count,
                                  double maskThreshold) {
  double amax = absMax();
  if (hist.empty() || amax <= 0)
    return;
  double perBin = hist.size() / amax;
  int64_t last = (int64_t)hist.size() - 1;
  for (int64_t i = 0; i < count; ++i) {
    double x = data[i];
    if (std::isnan(x) || x <= maskThreshold)
      continue;
    int64_t b = std::min<int64_t>(last, (int64_t)(std::abs(x) * perBin));
    hist[b] += 1;
  }
}

int64_t amk::quant::entropyThresholdBin(const std::vector<double> &hist,
                                        int64_t levels) {
  int64_t nbins = hist.size();
  int64_t start = std::min<int64_t>(levels, nbins);
  int64_t best = nbins;
  double bestKL = std::numeric_limits<double>::infinity();
  std::vector<double> p, q;
  for (int64_t i = start; i <= nbins; ++i) {
    // P: the first i bins, the mass beyond folded into the last one.
    p.assign(hist.begin(), hist.begin() + i);
    double outliers = 0;
    for (int64_t k = i; k < nbins; ++k)
      outliers += hist[k];
    p[i - 1] += outliers;
    double total = 0;
    for (double x : p)
      total += x;
    if (total <= 0)
      continue;
    // Q: the first i bins merged into `levels` groups, each group's mass
    // spread evenly over its non-empty bins.
    q.assign(i, 0.0);
    for (int64_t g = 0; g < levels; ++g) {
      int64_t b0 = g * i / levels, b1 = (g + 1) * i / levels;
      if (g == levels - 1)
        b1 = i;
      double mass = 0;
      int64_t nonEmpty = 0;
      for (int64_t b = b0; b < b1; ++b) {
        mass += hist[b];
        nonEmpty += hist[b] != 0;
      }
      for (int64_t b = b0; b < b1; ++b)
        if (hist[b] != 0)
          q[b] = mass / nonEmpty;
    }
    double qTotal = 0;
    for (double x : q)
      qTotal += x;
    double kl = 0;
    for (int64_t b = 0; b < i; ++b) {
      if (p[b] == 0)
        continue;
      double pb = p[b] / total;
      // A bin P has and Q lacks (the folded outliers): smoothed.
      double qb = q[b] > 0 ? q[b] / qTotal : 1e-12;
      kl += pb * std::log(pb / qb);
    }
    if (kl < bestKL) {
      bestKL = kl;
      best = i;
    }
  }
  return best;
}

int64_t amk::quant::mseThresholdBin(const std::vector<double> &hist,
                                    int64_t levels) {
  int64_t nbins = hist.size();
  int64_t best = nbins;
  double bestErr = std::numeric_limits<double>::infinity();
  // Bin centres in units of one bin width; threshold i bins.
  for (int64_t i = std::min<int64_t>(16, nbins); i <= nbins; ++i) {
    double step = (double)i / levels;
    double err = 0;
    for (int64_t b = 0; b < nbins; ++b) {
      if (hist[b] == 0)
        continue;
      double x = b + 0.5;
      double e;
      if (x >= i) {
        e = x - i; // clipped
      } else {
        double qx = std::round(x / step) * step;
        e = x - qx;
      }
      // Uniform rounding error within a step averages step^2/12; the
      // centre's error stands in for it plus that variance.
      err += hist[b] * (e * e + (x < i ? step * step / 12 : 0));
    }
    if (err < bestErr) {
      bestErr = err;
      best = i;
    }
  }
  return best;
}

std::pair<double, double> RangeStats::range(llvm::StringRef method,
                                            double percentileValue,
                                            int64_t levels) const {
  if (method == "minmax" || hist.empty() || absMax() == 0)
    return {lo, hi};
  int64_t nbins = hist.size();
  int64_t endBin = nbins;
  if (method == "percentile") {
    double total = 0;
    for (double x : hist)
      total += x;
    double want = total * percentileValue / 100.0, acc = 0;
    for (int64_t b = 0; b < nbins; ++b) {
      acc += hist[b];
      if (acc >= want) {
        endBin = b + 1;
        break;
      }
    }
  } else if (method == "entropy") {
    endBin = entropyThresholdBin(hist, levels);
  } else if (method == "mse") {
    endBin = mseThresholdBin(hist, levels);
  }
  double threshold = absMax() * endBin / nbins;
  return {std::max(lo, -threshold), std::min(hi, threshold)};
}

QParams amk::quant::computeQParams(double rmin, double rmax, const QType &t,
                                   bool symmetric) {
  rmin = std::min(rmin, 0.0);
  rmax = std::max(rmax, 0.0);
  QParams p;
  if (symmetric) {
    double amax = std::max(std::abs(rmin), std::abs(rmax));
    // Signed: [-qmax, qmax] around 0; unsigned symmetric centres at the
    // middle of the range.
    if (t.isSigned) {
      p.scale = amax / t.qmax;
      p.zeroPoint = 0;
    } else {
      p.scale = 2 * amax / (t.qmax - t.qmin);
      p.zeroPoint = (t.qmax + t.qmin + 1) / 2;
    }
  } else {
    p.scale = (rmax - rmin) / double(t.qmax - t.qmin);
    if (p.scale > 0)
      p.zeroPoint = std::clamp<int64_t>(
          (int64_t)std::llround(t.qmin - rmin / p.scale), t.qmin, t.qmax);
    else
      p.zeroPoint = t.isSigned ? 0 : t.qmin;
  }
  // A constant-zero tensor: any positive scale represents it exactly.
  if (!(p.scale > 0) || !std::isfinite(p.scale))
    p.scale = 1.0;
  // QuantizeLinear's scale is float32: round it there so that every
  // consumer (bias scales included) sees the same value.
  p.scale = (double)(float)p.scale;
  return p;
}

std::optional<std::pair<double, double>> amk::quant::getRange(Value v) {
  auto decode = [](Attribute a) -> std::optional<std::pair<double, double>> {
    auto arr = dyn_cast_or_null<DenseF64ArrayAttr>(a);
    if (!arr || arr.size() != 2)
      return std::nullopt;
    return std::make_pair(arr[0], arr[1]);
  };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!func)
      return std::nullopt;
    return decode(func.getArgAttr(arg.getArgNumber(), "amk.range"));
  }
  auto res = cast<OpResult>(v);
  auto all = res.getOwner()->getAttrOfType<ArrayAttr>("amk.ranges");
  if (!all || res.getResultNumber() >= all.size())
    return std::nullopt;
  return decode(all[res.getResultNumber()]);
}

void amk::quant::setRange(Value v, double rmin, double rmax) {
  MLIRContext *ctx = v.getContext();
  auto attr = DenseF64ArrayAttr::get(ctx, {rmin, rmax});
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
    func.setArgAttr(arg.getArgNumber(), "amk.range", attr);
    return;
  }
  auto res = cast<OpResult>(v);
  Operation *op = res.getOwner();
  SmallVector<Attribute> entries(op->getNumResults(), UnitAttr::get(ctx));
  if (auto old = op->getAttrOfType<ArrayAttr>("amk.ranges"))
    for (auto [i, a] : llvm::enumerate(old.getValue()))
      if (i < entries.size())
        entries[i] = a;
  entries[res.getResultNumber()] = attr;
  op->setAttr("amk.ranges", ArrayAttr::get(ctx, entries));
}
