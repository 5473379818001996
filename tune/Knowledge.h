//===- Knowledge.h - Curated tuning rules -----------------------*- C++ -*-===//
//
// Part of AMK. knowledge/rules/<target>.json holds rules a human accepted:
// each has a scope (target, conditions on model features), the evidence
// and confidence behind it, and the action it implies for one knob value
// (skip: rank it last, prioritize: rank it first). Rules are soft: a
// skipped value can still be drawn by the tuner's random exploration, and
// the tuner cites every rule it applied in its report.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TUNE_KNOWLEDGE_H
#define AMK_TUNE_KNOWLEDGE_H

#include "tune/Records.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace amk::tune {

struct Condition {
  std::string feature; ///< A name of featureNames().
  std::string op;      ///< <, <=, >, >=, ==
  double value = 0;
};

struct Rule {
  std::string id;
  std::string target;
  std::vector<Condition> when; ///< All must hold.
  std::string action;          ///< skip | prioritize
  std::string knob;            ///< stage.knob
  std::string value;
  std::string evidence;
  std::string confidence; ///< low | medium | high
  std::string source;     ///< The file it came from.
};

/// Reads a rules file ({"rules": [...]}); every field is checked.
llvm::Expected<std::vector<Rule>> loadRules(llvm::StringRef path);

/// The rules directory: $AMK_KNOWLEDGE_DIR/rules, else the installed copy
/// next to the tool (`exeDir`/../share/amk/knowledge/rules, whatever the
/// prefix it was installed to), else the source tree's knowledge/rules
/// (a build tree).
std::string defaultRulesDir(llvm::StringRef exeDir = "");

/// Whether every condition holds for `features`.
bool ruleApplies(const Rule &rule, const std::vector<double> &features);

/// Rules proposed from trial outcomes (amk-tune --mine-rules), in the
/// rules files' format plus their support: for every knob value, the
/// models on which it was measured, whether it helped on each (speedup
/// over the model's default above 2%) or hurt (below -2%), and a
/// two-sided sign test. A human reviews them before they join
/// knowledge/rules.
nlohmann::ordered_json proposeRules(const std::vector<Record> &outcomes);

} // namespace amk::tune

#endif // AMK_TUNE_KNOWLEDGE_H
