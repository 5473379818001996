//===- Space.h - amk-tune's search space ------------------------*- C++ -*-===//
//
// Part of AMK. The search space is not declared in the tuner: it is read
// from the pass registry. A pipeline is a fixed sequence of stages (named
// pipelines or passes: amk-graph-opt, amk-quantize,
// amk-schedule-megakernel), and every option of a stage whose description
// ends in `[tune: v0|v1|...]` is a knob with those values, v0 being the
// option's default. Adding a tagged option to a stage's pass adds a knob.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TUNE_SPACE_H
#define AMK_TUNE_SPACE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace amk::tune {

struct Knob {
  std::string stage; ///< The pass or named pipeline it is an option of.
  std::string name;  ///< The option's name.
  std::string description;
  std::vector<std::string> values; ///< values[0] is the default.
  /// "stage.name", how users and records refer to the knob.
  std::string id() const { return stage + "." + name; }
};

/// A point of the space: one value index per knob.
using Config = std::vector<unsigned>;

class Space {
public:
  /// The stages in pipeline order.
  const std::vector<std::string> &stages() const { return stageNames; }
  const std::vector<Knob> &knobs() const { return knobList; }
  /// The knob's index, or -1.
  int find(llvm::StringRef id) const;

  /// Every knob at its default.
  Config defaults() const { return Config(knobList.size(), 0); }
  /// How many knobs differ from their default (the tuner prefers fewer).
  unsigned distance(const Config &c) const;
  /// The pipeline string of `c`: every stage with every one of its knobs
  /// spelled out, plus `fixed` options (stage -> "k=v ...") that are not
  /// knobs (a calibration directory). amk-opt --pass-pipeline runs it.
  std::string pipeline(const Config &c) const;
  /// "stage.knob=value, ..." for the knobs that differ from the default.
  std::string describe(const Config &c) const;

  /// Reads the stages' knobs from the pass registry (passes and pipelines
  /// must be registered). Fails if a stage is not registered.
  static llvm::Expected<Space>
  fromRegistry(const std::vector<std::string> &stages);

  /// Narrows the space to a user's JSON object {"stage.knob": [values]}:
  /// an unknown knob, a value the knob does not take (checked by parsing
  /// the stage with it) or an empty list is an error. A knob narrowed to
  /// values without its default gets the first listed as its default.
  llvm::Error restrict(llvm::StringRef json);
  /// Narrows one knob to `values` (the checks of restrict()).
  llvm::Error narrow(llvm::StringRef id, llvm::ArrayRef<std::string> values);
  /// Pins a knob to one value (`stage.knob=value`).
  llvm::Error pin(llvm::StringRef assignment);
  /// Drops knobs left with a single value (they appear in the pipeline
  /// through `fixed`).
  void dropPinned();

  /// Options of a stage that are not searched (data-dir=...).
  std::map<std::string, std::string> fixed;

  /// The space as text (amk-tune --list-space).
  std::string print() const;

  /// Parses the tags out of a pass's help text (as printHelpStr writes
  /// it); exposed for tests.
  static std::vector<Knob> parseHelp(llvm::StringRef stage,
                                     llvm::StringRef help);

private:
  std::vector<std::string> stageNames;
  std::vector<Knob> knobList;
};

/// The help text of a registered pass or pipeline (its options with their
/// descriptions), or an empty string if it is not registered.
std::string registryHelp(llvm::StringRef stage);

/// Whether `stage{options}` parses as a pipeline; on failure `error` says
/// why.
bool stageParses(llvm::StringRef stage, llvm::StringRef options,
                 std::string &error);

} // namespace amk::tune

#endif // AMK_TUNE_SPACE_H
