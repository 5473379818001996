//===- InsertQDQ.cpp - amk-insert-qdq ------------------------------------===//
//
// Part of AMK. Quantize/Dequantize pairs from the ranges amk-calibrate
// stored in the IR (passes/Quantization.h, docs/quantization.md).
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXSchema.h"
#include "transforms/Utils/PassUtils.h"
#include "transforms/quantization/Passes.h"
#include "transforms/quantization/CalibrationData.h"
#include "transforms/quantization/Quantization.h"
#include "transforms/quantization/SharedOptions.h"
#include "reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace amk {
#define GEN_PASS_DEF_INSERTQDQ
#include "transforms/quantization/Passes.h.inc"
} // namespace amk

using namespace mlir;
using namespace amk;
using namespace amk::quant;

namespace {

ref::DataType dataTypeOf(const QType &t) {
  if (t.name == "uint8")
    return ref::DataType::UINT8;
  if (t.name == "int8")
    return ref::DataType::INT8;
  if (t.name == "int16")
    return ref::DataType::INT16;
  return ref::DataType::UINT16;
}

Type elementTypeOf(const QType &t, MLIRContext *ctx) {
  return IntegerType::get(ctx, t.bits,
                          t.isSigned ? IntegerType::Signless
                                     : IntegerType::Unsigned);
}

/// Ops that only move or select values: their output takes their input's
/// scale and zero point.
bool sharesInputScale(Operation *op) {
  static const llvm::StringSet<> ops = {
      "onnx.Reshape",   "onnx.Transpose", "onnx.Flatten", "onnx.Squeeze",
      "onnx.Unsqueeze", "onnx.MaxPool",   "onnx.Identity", "onnx.Slice",
      "onnx.Gather",    "onnx.Expand",    "onnx.Tile",     "onnx.Dropout",
      "onnx.DepthToSpace", "onnx.SpaceToDepth"};
  return op && ops.contains(op->getName().getStringRef());
}

bool isRelu(Operation *op) {
  if (!op)
    return false;
  llvm::StringRef n = op->getName().getStringRef();
  if (n == "onnx.Relu")
    return true;
  // Fused activations of amk.conv / amk.gemm.
  if (auto act = op->getAttrOfType<StringAttr>("activation"))
    return act.getValue() == "relu";
  return false;
}

/// What quantizeModule did, for the report and the remark.
struct QuantResult {
  nlohmann::ordered_json activations = nlohmann::ordered_json::array();
  nlohmann::ordered_json weights = nlohmann::ordered_json::array();
  int64_t pairs = 0, numWeights = 0, numBiases = 0;
};

/// Quantizes `module` by `cfg` from the ranges in its IR. Returns an error
/// message, empty on success.
std::string quantizeModule(ModuleOp module, const QuantConfig &cfg,
                           QuantResult &result) {
  MLIRContext *ctx = module.getContext();
  auto fail = [](const llvm::Twine &msg) { return msg.str(); };
  auto aq = getQType(cfg.activationType);
  auto wq = getQType(cfg.weightType);
  if (!aq || !wq) {
    llvm::consumeError(aq.takeError());
    llvm::consumeError(wq.takeError());
    return fail("bad quantized types");
  }

  // What the module's opset can express.
  int64_t opset = onnx::kDefaultOpset;
  if (auto d = module->getAttrOfType<DictionaryAttr>(onnx::kOpsetImportAttr))
    if (auto v = d.getAs<IntegerAttr>(onnx::kDefaultDomain))
      opset = v.getInt();
  if (opset < 10)
    return fail(llvm::formatv("QuantizeLinear needs opset 10; the module "
                              "is at opset {0} (amk-normalize-opset"
                              "{{target-opset=13})",
                              opset)
                    .str());
  if (aq->bits > 8 && opset < 21)
    return fail(llvm::formatv("activation-type {0} needs QuantizeLinear-21 "
                              "(opset 21); the module is at opset {1}: "
                              "normalize it with amk-normalize-opset"
                              "{{target-opset=21} or use uint8/int8",
                              aq->name, opset)
                    .str());
  if (cfg.perChannel && opset < 13)
    return fail(llvm::formatv("per-channel weights need DequantizeLinear's "
                              "axis (opset 13); the module is at opset {0}: "
                              "normalize it or set per-channel=false",
                              opset)
                    .str());

  QuantTargets targets = selectTargets(module, cfg);
  if (targets.activations.empty())
    return fail("nothing to quantize: no activation of the quantized ops");

  // Scale and zero point of every activation, op-aware.
  llvm::DenseMap<Value, QParams> params;
  llvm::DenseMap<Value, std::string> why;
  for (Value v : targets.activations) {
    auto range = getRange(v);
    if (!range)
      return fail("tensor '" + valueName(v) +
                  "' must be quantized but has no calibrated range: run "
                  "amk-calibrate with the same configuration first");
    auto [lo, hi] = *range;
    if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "[%g, %g]", lo, hi);
      return fail("tensor '" + valueName(v) + "' has an invalid range " +
                  buf);
    }
    Operation *def = v.getDefiningOp();
    std::string rule = "calibrated";
    if (def && def->getName().getStringRef() == "onnx.Softmax") {
      lo = 0;
      hi = 1;
      rule = "softmax output: [0, 1]";
    }
    bool symmetric = cfg.symmetricActivations;
    if (symmetric && isRelu(def)) {
      symmetric = false;
      rule += ", relu output: asymmetric";
    }
    params[v] = computeQParams(lo, hi, *aq, symmetric);
    why[v] = rule;
  }
  // Shape-only ops share their input's parameters (resolved through
  // chains of them).
  std::function<QParams(Value, int)> resolve = [&](Value v,
                                                   int depth) -> QParams {
    Operation *def = v.getDefiningOp();
    if (depth < 64 && sharesInputScale(def) && def->getNumOperands() &&
        params.count(def->getOperand(0))) {
      why[v] = "shares the scale of '" + valueName(def->getOperand(0)) + "'";
      return resolve(def->getOperand(0), depth + 1);
    }
    return params[v];
  };
  for (Value v : targets.activations)
    params[v] = resolve(v, 0);

  // Names of the new nodes and initializers (the exporter needs unique
  // ones): derived from the tensor they quantize.
  FreshNames fresh(module);
  auto nodeLoc = [&](const std::string &node, const std::string &output) {
    return onnx::makeNodeLoc(ctx, "amk-insert-qdq", fresh(node),
                             {fresh(output)});
  };
  auto initLoc = [&](const std::string &name) {
    return onnx::makeInitializerLoc(ctx, "amk-insert-qdq", fresh(name));
  };

  OpBuilder b(ctx);
  auto scalarConst = [&](Location loc, ref::DataType dt, double v) {
    ref::Tensor t(dt, {});
    if (dt == ref::DataType::FLOAT)
      t.setDouble(0, v);
    else
      t.setInt(0, (int64_t)v);
    return createConstant(b, loc, t);
  };
  auto create = [&](Location loc, llvm::StringRef name, ValueRange operands,
                    Type result, std::optional<int64_t> axis) -> Value {
    OperationState st(loc, name);
    st.addOperands(operands);
    st.addTypes(result);
    if (axis)
      st.addAttribute("axis", b.getI64IntegerAttr(*axis));
    return b.create(st)->getResult(0);
  };

  nlohmann::ordered_json &acts = result.activations;
  int64_t &pairs = result.pairs;
  for (Value v : targets.activations) {
    QParams p = params[v];
    auto type = cast<RankedTensorType>(v.getType());
    // A graph output nothing else reads keeps its float value: a pair
    // there would have no reader.
    if (llvm::all_of(v.getUses(), [](OpOperand &use) {
          return isa<func::ReturnOp>(use.getOwner());
        }))
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v))
      b.setInsertionPointToStart(arg.getOwner());
    else
      b.setInsertionPointAfter(v.getDefiningOp());
    std::string base = valueName(v);
    Value scale =
        scalarConst(initLoc(base + "_scale"), ref::DataType::FLOAT, p.scale);
    Value zp = scalarConst(initLoc(base + "_zero_point"), dataTypeOf(*aq),
                           (double)p.zeroPoint);
    Value q = create(nodeLoc(base + "_QuantizeLinear", base + "_quantized"),
                     "onnx.QuantizeLinear", {v, scale, zp},
                     type.clone(elementTypeOf(*aq, ctx)), std::nullopt);
    Value dq =
        create(nodeLoc(base + "_DequantizeLinear", base + "_dequantized"),
               "onnx.DequantizeLinear", {q, scale, zp}, type, std::nullopt);
    v.replaceUsesWithIf(dq, [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return user != q.getDefiningOp() && !isa<func::ReturnOp>(user);
    });
    ++pairs;
    nlohmann::ordered_json a;
    a["name"] = valueName(v);
    auto range = getRange(v);
    a["range"] = {range->first, range->second};
    a["scale"] = p.scale;
    a["zero_point"] = p.zeroPoint;
    a["rule"] = why[v];
    acts.push_back(a);
  }

  // Weights: quantized offline, read through a DequantizeLinear.
  llvm::DenseMap<Operation *, std::vector<double>> weightScales;
  nlohmann::ordered_json &ws = result.weights;
  for (auto [op, idx] : targets.weights) {
    Value w = op->getOperand(idx);
    auto t = getConstantTensor(w);
    if (!t)
      continue;
    llvm::StringRef name = op->getName().getStringRef();
    int64_t rank = t->rank();
    // The output-channel axis.
    int64_t axis = 0;
    if (name == "onnx.MatMul")
      axis = rank - 1;
    else if (name == "onnx.Gemm") {
      auto tb = op->getAttrOfType<IntegerAttr>("transB");
      axis = tb && tb.getInt() ? 0 : 1;
    } else if (name == "amk.gemm") {
      // B' = B permuted by perm_b: its last axis is B's axis perm_b[-1].
      auto pb = op->getAttrOfType<DenseI64ArrayAttr>("perm_b");
      axis = pb && !pb.empty() ? pb[pb.size() - 1] : rank - 1;
    }
    bool perAxis = cfg.perChannel && rank >= 1 &&
                   ((name != "onnx.MatMul" && name != "amk.gemm") ||
                    rank == 2);
    int64_t channels = perAxis ? t->dim(axis) : 1;
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < rank; ++d)
      inner *= t->dim(d);
    auto channelOf = [&](int64_t i) -> int64_t {
      return perAxis ? (i / inner) % channels : 0;
    };
    std::vector<double> lo(channels, 0), hi(channels, 0);
    for (int64_t i = 0; i < t->numel(); ++i) {
      double x = t->getDouble(i);
      int64_t c = channelOf(i);
      lo[c] = std::min(lo[c], x);
      hi[c] = std::max(hi[c], x);
    }
    std::vector<QParams> qp(channels);
    for (int64_t c = 0; c < channels; ++c)
      qp[c] = computeQParams(lo[c], hi[c], *wq, /*symmetric=*/wq->isSigned);
    ref::Tensor quant(dataTypeOf(*wq), t->shape());
    for (int64_t i = 0; i < t->numel(); ++i) {
      const QParams &p = qp[channelOf(i)];
      double x = std::nearbyint(t->getDouble(i) / p.scale) + p.zeroPoint;
      quant.setInt(i, (int64_t)std::clamp<double>(x, wq->qmin, wq->qmax));
    }
    b.setInsertionPoint(op);
    std::string base = valueName(w);
    Value qw = createConstant(b, initLoc(base + "_quantized"), quant);
    Location loc = initLoc(base + "_scale");
    Location zloc = initLoc(base + "_zero_point");
    Value scale, zp;
    if (perAxis) {
      ref::Tensor s(ref::DataType::FLOAT, {channels});
      ref::Tensor z(dataTypeOf(*wq), {channels});
      for (int64_t c = 0; c < channels; ++c) {
        s.setDouble(c, qp[c].scale);
        z.setInt(c, qp[c].zeroPoint);
      }
      scale = createConstant(b, loc, s);
      zp = createConstant(b, zloc, z);
    } else {
      scale = scalarConst(loc, ref::DataType::FLOAT, qp[0].scale);
      zp = scalarConst(zloc, dataTypeOf(*wq), (double)qp[0].zeroPoint);
    }
    Value dq = create(nodeLoc(base + "_DequantizeLinear",
                              base + "_dequantized"),
                      "onnx.DequantizeLinear", {qw, scale, zp},
                      w.getType(),
                      perAxis ? std::optional<int64_t>(axis) : std::nullopt);
    op->setOperand(idx, dq);
    std::vector<double> scales;
    for (const QParams &p : qp)
      scales.push_back(p.scale);
    if (perAxis || channels == 1)
      weightScales[op] = scales;
    nlohmann::ordered_json e;
    e["op"] = onnx::getNodeName(op).str();
    e["channels"] = channels;
    e["axis"] = perAxis ? axis : -1;
    ws.push_back(e);
  }

  // Biases: int32 with scale = input scale x weight scale.
  int64_t &numBiases = result.numBiases;
  for (auto [op, idx] : targets.biases) {
    auto sc = weightScales.find(op);
    Value x = op->getOperand(0);
    // The input as the op reads it: the DequantizeLinear inserted above.
    Operation *xdq = x.getDefiningOp();
    if (sc == weightScales.end() || !xdq ||
        xdq->getName().getStringRef() != "onnx.DequantizeLinear")
      continue;
    Value orig = xdq->getOperand(0).getDefiningOp()->getOperand(0);
    if (!params.count(orig))
      continue;
    double xs = params[orig].scale;
    Value bv = op->getOperand(idx);
    auto t = getConstantTensor(bv);
    if (!t || t->rank() != 1)
      continue;
    int64_t n = t->dim(0);
    const std::vector<double> &wsc = sc->second;
    if ((int64_t)wsc.size() != n && wsc.size() != 1)
      continue;
    ref::Tensor q(ref::DataType::INT32, {n});
    ref::Tensor s(ref::DataType::FLOAT, {n});
    for (int64_t c = 0; c < n; ++c) {
      double scale = (double)(float)(xs * wsc[wsc.size() == 1 ? 0 : c]);
      s.setDouble(c, scale);
      double v = std::nearbyint(t->getDouble(c) / scale);
      q.setInt(c, (int64_t)std::clamp<double>(v, -2147483648.0,
                                              2147483647.0));
    }
    b.setInsertionPoint(op);
    std::string base = valueName(bv);
    Value qb = createConstant(b, initLoc(base + "_quantized"), q);
    Value scale = createConstant(b, initLoc(base + "_scale"), s);
    ref::Tensor z(ref::DataType::INT32, {n});
    for (int64_t c = 0; c < n; ++c)
      z.setInt(c, 0);
    Value zp = createConstant(b, initLoc(base + "_zero_point"), z);
    Value dq = create(nodeLoc(base + "_DequantizeLinear",
                              base + "_dequantized"),
                      "onnx.DequantizeLinear", {qb, scale, zp},
                      bv.getType(), std::optional<int64_t>(0));
    op->setOperand(idx, dq);
    ++numBiases;
  }

  // The ranges are now scales and zero points.
  module.walk([&](Operation *op) { op->removeAttr("amk.ranges"); });
  module.walk([&](func::FuncOp f) {
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      f.removeArgAttr(i, "amk.range");
  });
  updateSignaturesAndErase(module);
  Builder ab(ctx);
  module->setAttr(
      "amk.quantization",
      ab.getDictionaryAttr(
          {ab.getNamedAttr("activation_pairs", ab.getI64IntegerAttr(pairs)),
           ab.getNamedAttr("weights",
                           ab.getI64IntegerAttr(targets.weights.size())),
           ab.getNamedAttr("biases", ab.getI64IntegerAttr(numBiases)),
           ab.getNamedAttr("config",
                           ab.getStringAttr(cfg.toJSON().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)))}));
  result.numWeights = targets.weights.size();
  return "";
}

/// SQNR (dB) of `q` against `ref`, over every float output of every
/// sample: 10 log10(sum f^2 / sum (f - q)^2).
double sqnrDb(const std::vector<std::vector<ref::RValue>> &refOut,
              const std::vector<std::vector<ref::RValue>> &qOut) {
  double signal = 0, noise = 0;
  for (size_t s = 0; s < refOut.size(); ++s)
    for (size_t o = 0; o < refOut[s].size() && o < qOut[s].size(); ++o) {
      if (!refOut[s][o].isTensor() || !qOut[s][o].isTensor())
        continue;
      const ref::Tensor &f = refOut[s][o].getTensor();
      const ref::Tensor &q = qOut[s][o].getTensor();
      if (f.dtype() != ref::DataType::FLOAT || f.numel() != q.numel())
        continue;
      for (int64_t i = 0; i < f.numel(); ++i) {
        double a = f.getDouble(i), d = a - q.getDouble(i);
        signal += a * a;
        noise += d * d;
      }
    }
  if (noise == 0)
    return 200;
  return 10 * std::log10(signal / noise);
}

/// Keeps the most sensitive quantized nodes in float until the graph
/// outputs' SQNR against float reaches cfg.sensitivityTargetDb, measured on
/// the first calibration samples; adds them to cfg.keepFloat.
std::string sensitivitySearch(ModuleOp module, QuantConfig &cfg,
                              nlohmann::ordered_json &report) {
  ref::Interpreter floatInterp(module);
  func::FuncOp func = floatInterp.getFunction();
  if (!func)
    return "sensitivity: the module has no graph function";
  SampleSource samples(func, cfg);
  std::string err;
  if (failed(samples.init(err)))
    return "sensitivity: " + err;
  int64_t k = std::min<int64_t>(cfg.sensitivitySamples, samples.size());
  std::vector<std::vector<ref::RValue>> inputs, floatOut;
  for (int64_t i = 0; i < k; ++i) {
    auto in = samples.get(i, err);
    if (failed(in))
      return "sensitivity: " + err;
    auto out = floatInterp.run(*in);
    if (failed(out))
      return "sensitivity: " + floatInterp.getFailure().message;
    inputs.push_back(*in);
    floatOut.push_back(*out);
  }
  std::vector<std::string> nodes;
  for (Operation *op : selectTargets(module, cfg).quantizedOps)
    if (llvm::StringRef n = onnx::getNodeName(op); !n.empty())
      nodes.push_back(n.str());
  auto measure = [&](const std::vector<std::string> &keep,
                     double &db) -> std::string {
    OwningOpRef<ModuleOp> clone(cast<ModuleOp>(module->clone()));
    QuantConfig c = cfg;
    c.sensitivityTargetDb = 0;
    c.keepFloat.insert(c.keepFloat.end(), keep.begin(), keep.end());
    // Everything kept in float: the float graph itself.
    if (selectTargets(*clone, c).activations.empty()) {
      db = 200;
      return "";
    }
    QuantResult r;
    if (std::string e = quantizeModule(*clone, c, r); !e.empty())
      return e;
    ref::Interpreter interp(*clone);
    std::vector<std::vector<ref::RValue>> outs;
    for (const auto &in : inputs) {
      auto o = interp.run(in);
      if (failed(o))
        return "sensitivity: " + interp.getFailure().message;
      outs.push_back(*o);
    }
    db = sqnrDb(floatOut, outs);
    return "";
  };
  double target = cfg.sensitivityTargetDb, all = 0;
  if (std::string e = measure({}, all); !e.empty())
    return e;
  report["target_db"] = target;
  report["samples"] = k;
  report["all_quantized_db"] = all;
  nlohmann::ordered_json kept = nlohmann::ordered_json::array();
  double current = all;
  if (all < target) {
    // Each node quantized alone: the lower its SQNR, the more it hurts.
    std::vector<std::pair<double, std::string>> alone;
    for (const std::string &n : nodes) {
      std::vector<std::string> others;
      for (const std::string &m : nodes)
        if (m != n)
          others.push_back(m);
      double db = 0;
      if (std::string e = measure(others, db); !e.empty())
        return e;
      alone.push_back({db, n});
    }
    llvm::sort(alone);
    nlohmann::ordered_json per = nlohmann::ordered_json::array();
    for (auto &[db, n] : alone)
      per.push_back({{"node", n}, {"sqnr_db_alone", db}});
    report["nodes"] = per;
    std::vector<std::string> keep;
    for (auto &[db, n] : alone) {
      if (current >= target)
        break;
      if (keep.size() + 1 == alone.size())
        return llvm::formatv("sensitivity: the target {0} dB is not met "
                             "unless every node stays in float (all "
                             "quantized: {1:f1} dB, all but '{2}' in float: "
                             "{3:f1} dB); lower sensitivity-target",
                             target, all, n, current)
            .str();
      keep.push_back(n);
      if (std::string e = measure(keep, current); !e.empty())
        return e;
      kept.push_back({{"node", n},
                      {"sqnr_db_alone", db},
                      {"sqnr_db_after", current},
                      {"why", "most sensitive remaining node while the "
                              "graph was below the target"}});
    }
    cfg.keepFloat.insert(cfg.keepFloat.end(), keep.begin(), keep.end());
  }
  report["kept_float"] = kept;
  report["final_db"] = current;
  report["target_met"] = current >= target;
  return "";
}

class InsertQDQPass : public amk::impl::InsertQDQBase<InsertQDQPass> {
public:
  using InsertQDQBase::InsertQDQBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](const llvm::Twine &msg) {
      module.emitError("amk-insert-qdq: ") << msg;
      signalPassFailure();
    };

    // The configuration amk-calibrate used, then this pass's options.
    auto calib = module->getAttrOfType<DictionaryAttr>("amk.calibration");
    auto recorded =
        calib ? calib.getAs<StringAttr>("config") : StringAttr();
    if (!recorded)
      return fail("the module has no calibration (amk.calibration): run "
                  "amk-calibrate first; ranges are read from the IR only");
    auto j = nlohmann::json::parse(recorded.getValue().str(), nullptr, false);
    auto parsed = QuantConfig::fromJSON(j);
    if (!parsed)
      return fail("the recorded calibration config is invalid: " +
                  llvm::toString(parsed.takeError()));
    QuantConfig cfg = *parsed;
    nlohmann::ordered_json sensitivityReport;
    ConfigOverrides o =
        sharedOverrides(config, activationType, weightType, perChannel,
                        symmetricActivations, quantizedOps, keepFloat);
    o.sensitivityTarget = amk::givenOption(sensitivityTarget);
    o.sensitivitySamples = amk::givenOption(sensitivitySamples);
    if (llvm::Error e = applyOverrides(o, cfg))
      return fail(llvm::toString(std::move(e)));
    if (cfg.sensitivityTargetDb > 0) {
      std::string err = sensitivitySearch(module, cfg, sensitivityReport);
      if (!err.empty())
        return fail(err);
    }
    QuantResult r;
    std::string err = quantizeModule(module, cfg, r);
    if (!err.empty())
      return fail(err);
    nlohmann::ordered_json &acts = r.activations, &ws = r.weights;
    int64_t pairs = r.pairs, numBiases = r.numBiases;
    (void)pairs;
    if (!report.empty())
      report_json(report, cfg, acts, ws, numBiases, sensitivityReport);
    emitPassRemark(this, module, RemarkKind::Passed, "quantized",
                   llvm::formatv("{0} activation Q/DQ pairs ({1}), {2} "
                                 "weights ({3}{4}), {5} int32 biases",
                                 pairs, cfg.activationType,
                                 r.numWeights, cfg.weightType,
                                 cfg.perChannel ? ", per channel" : "",
                                 numBiases));
  }

private:
  void report_json(const std::string &path, const QuantConfig &cfg,
                   const nlohmann::ordered_json &acts,
                   const nlohmann::ordered_json &ws, int64_t numBiases,
                   const nlohmann::ordered_json &sensitivity) {
    nlohmann::ordered_json r;
    r["config"] = cfg.toJSON();
    if (!sensitivity.is_null())
      r["sensitivity"] = sensitivity;
    r["activations"] = acts;
    r["weights"] = ws;
    r["int32_biases"] = numBiases;
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec) {
      getOperation().emitError("amk-insert-qdq: cannot write '")
          << path << "': " << ec.message();
      return signalPassFailure();
    }
    os << r.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
};

} // namespace
