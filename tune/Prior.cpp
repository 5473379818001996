//===- Prior.cpp - Model features and the learned prior -------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "tune/Prior.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "transforms/Utils/CostModel.h"
#include "transforms/graph/FusionCandidates.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>
#include <cmath>

using namespace amk::tune;

const std::vector<std::string> &amk::tune::featureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (unsigned c = 0; c < amk::kNumOpClasses; ++c) {
      std::string cls = amk::opClassName(static_cast<amk::OpClass>(c)).str();
      for (char &ch : cls)
        if (ch == '-' || ch == ' ')
          ch = '_';
      n.push_back(cls + "_count_share");
      n.push_back(cls + "_flop_share");
    }
    n.push_back("log10_gflops");
    n.push_back("log10_weight_mb");
    n.push_back("log10_ops");
    return n;
  }();
  return names;
}

std::vector<double> amk::tune::modelFeatures(mlir::ModuleOp module) {
  // Attention is recognised by the fusion-candidate analysis; without its
  // op set the profile would count attention MatMuls as plain MatMuls.
  amk::FusionCandidates fc = amk::findFusionCandidates(module);
  amk::GraphProfile p = amk::profileGraph(module, fc.attentionOps);
  std::vector<double> f;
  for (unsigned c = 0; c < amk::kNumOpClasses; ++c) {
    auto cls = static_cast<amk::OpClass>(c);
    f.push_back(p.countShare(cls));
    f.push_back(p.flopShare(cls));
  }
  double weightBytes = 0;
  module.walk([&](mlir::Operation *op) {
    for (mlir::NamedAttribute a : op->getAttrs())
      if (auto e = llvm::dyn_cast<mlir::ElementsAttr>(a.getValue()))
        if (auto t = llvm::dyn_cast<mlir::ShapedType>(e.getType());
            t && t.hasStaticShape() && t.getElementType().isIntOrFloat())
          weightBytes += (double)t.getNumElements() *
                         std::max(1u, t.getElementTypeBitWidth() / 8);
  });
  f.push_back(std::log10(std::max(1e-6, p.totalFlops / 1e9)));
  f.push_back(std::log10(std::max(1e-6, weightBytes / 1e6)));
  f.push_back(std::log10(std::max<double>(1, p.totalOps)));
  return f;
}

double amk::tune::feature(const std::vector<double> &features,
                          llvm::StringRef name) {
  const auto &names = featureNames();
  for (size_t i = 0; i < names.size() && i < features.size(); ++i)
    if (names[i] == name)
      return features[i];
  return std::nan("");
}

double amk::tune::featureDistance(const std::vector<double> &a,
                                  const std::vector<double> &b) {
  if (a.size() != b.size())
    return INFINITY;
  // Shares lie in [0, 1]; the three log10 sizes span a few decades, so
  // they are weighted down to count about as much as one share each.
  size_t logs = 3;
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double w = i + logs >= a.size() ? 0.3 : 1.0;
    d += w * w * (a[i] - b[i]) * (a[i] - b[i]);
  }
  return std::sqrt(d);
}

Prior::Prior(const std::vector<Record> &outcomes, llvm::StringRef machine,
             llvm::StringRef excludeModelHash, unsigned k)
    : k(k) {
  bool anyOnMachine = llvm::any_of(outcomes, [&](const Record &r) {
    return r.machine == machine && r.modelHash != excludeModelHash;
  });
  for (const Record &r : outcomes) {
    if (r.modelHash == excludeModelHash || r.speedup <= 0 || r.features.empty())
      continue;
    if (anyOnMachine && r.machine != machine)
      continue;
    static const char *measured[] = {"keep", "revert", "inconclusive",
                                     "eliminated", "baseline"};
    if (!llvm::is_contained(measured, r.verdict))
      continue;
    ModelData &m = models[r.modelHash];
    m.name = r.modelName;
    m.features = r.features;
    m.speedups.emplace_back(r.config, r.speedup);
  }
}

std::vector<std::pair<std::string, double>>
Prior::nearest(const std::vector<double> &features) const {
  std::vector<std::pair<std::string, double>> out;
  for (const auto &[hash, m] : models)
    out.emplace_back(hash, featureDistance(features, m.features));
  llvm::sort(out, [](auto &a, auto &b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  if (out.size() > k)
    out.resize(k);
  return out;
}

double Prior::predict(const std::vector<double> &features,
                      const KnobMap &candidate) const {
  auto near = nearest(features);
  if (near.empty())
    return 1;
  // Per neighbour: the exact configuration if it was measured; otherwise
  // the sum of the knob effects estimated on that neighbour, each effect
  // being the mean log-speedup of its trials that set the knob to the
  // candidate's value minus that of its trials that did not.
  double num = 0, den = 0;
  for (auto &[hash, dist] : near) {
    const ModelData &m = models.at(hash);
    double w = 1 / (dist + 0.05);
    double logSpeedup = 0;
    bool exact = false;
    for (auto &[cfg, s] : m.speedups)
      if (cfg == candidate) {
        logSpeedup = std::log(s);
        exact = true;
      }
    if (!exact) {
      for (auto &[knob, value] : candidate) {
        double with = 0, without = 0;
        unsigned nWith = 0, nWithout = 0;
        for (auto &[cfg, s] : m.speedups) {
          auto it = cfg.find(knob);
          if (it != cfg.end() && it->second == value)
            with += std::log(s), ++nWith;
          else
            without += std::log(s), ++nWithout;
        }
        if (nWith && nWithout)
          logSpeedup += with / nWith - without / nWithout;
      }
    }
    num += w * logSpeedup;
    den += w;
  }
  return std::exp(num / den);
}

std::vector<KnobMap> Prior::warmStart(const std::vector<double> &features,
                                      unsigned perModel) const {
  std::vector<KnobMap> out;
  for (auto &[hash, dist] : nearest(features)) {
    auto sorted = models.at(hash).speedups;
    llvm::stable_sort(sorted,
                      [](auto &a, auto &b) { return a.second > b.second; });
    unsigned taken = 0;
    for (auto &[cfg, s] : sorted) {
      if (taken >= perModel || s <= 1.0)
        break;
      if (cfg.empty() || llvm::is_contained(out, cfg))
        continue;
      out.push_back(cfg);
      ++taken;
    }
  }
  return out;
}
