//===- Prior.h - Model features and the learned prior -----------*- C++ -*-===//
//
// Part of AMK. The tuner ranks candidates by what past trials on similar
// models measured: a k-nearest-neighbour model over the model features
// below, and an additive model of knob effects in log-speedup fitted on the
// neighbours' records (docs/tuning.md says why this and not boosted trees:
// tens to hundreds of records, where k-NN with an additive correction is
// the better-conditioned choice and needs no library).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TUNE_PRIOR_H
#define AMK_TUNE_PRIOR_H

#include "tune/Records.h"

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <string>
#include <vector>

namespace amk::tune {

/// The names of the model features, in the order of the feature vector:
/// for each op class its count share and FLOP share, then log10 of the
/// GFLOPs, of the weight megabytes and of the op count.
const std::vector<std::string> &featureNames();

/// The features of an onnx-dialect module with static shapes.
std::vector<double> modelFeatures(mlir::ModuleOp module);

/// A feature by name (e.g. "conv_flop_share"), or NaN.
double feature(const std::vector<double> &features, llvm::StringRef name);

/// A candidate: its non-default knob values.
using KnobMap = std::map<std::string, std::string>;

class Prior {
public:
  /// Learns from trial outcomes with a speedup over their run's default;
  /// records of the model being tuned (`excludeModelHash`) are left out so
  /// the prior only transfers what was learned elsewhere, and only records
  /// of `machine` are used when there are any.
  Prior(const std::vector<Record> &outcomes, llvm::StringRef machine,
        llvm::StringRef excludeModelHash, unsigned k = 3);

  /// Whether anything was learned.
  bool empty() const { return neighbours.empty() && models.empty(); }
  /// The models the prior will draw on for `features`, nearest first, with
  /// their distances.
  std::vector<std::pair<std::string, double>>
  nearest(const std::vector<double> &features) const;
  /// Predicted speedup over the default pipeline (1 when unknown).
  double predict(const std::vector<double> &features,
                 const KnobMap &candidate) const;
  /// The best measured pipelines of the nearest models (best first per
  /// model, nearest model first): the warm start.
  std::vector<KnobMap> warmStart(const std::vector<double> &features,
                                 unsigned perModel = 2) const;

private:
  struct ModelData {
    std::string name;
    std::vector<double> features;
    std::vector<std::pair<KnobMap, double>> speedups;
  };
  std::map<std::string, ModelData> models; ///< By model hash.
  std::vector<std::string> neighbours;
  unsigned k;
};

double featureDistance(const std::vector<double> &a,
                       const std::vector<double> &b);

} // namespace amk::tune

#endif // AMK_TUNE_PRIOR_H
