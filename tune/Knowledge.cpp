//===- Knowledge.cpp - Curated tuning rules -------------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "tune/Knowledge.h"
#include "tune/Prior.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

using namespace amk::tune;

static llvm::Error err(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Expected<std::vector<Rule>> amk::tune::loadRules(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return err("cannot read the rules '" + path + "'");
  llvm::StringRef text = (*buf)->getBuffer();
  auto j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("rules") ||
      !j["rules"].is_array())
    return err(path + ": expected {\"rules\": [...]}");
  std::vector<Rule> rules;
  for (auto [i, r] : llvm::enumerate(j["rules"])) {
    auto where = (path + ": rule " + llvm::Twine(i)).str();
    if (!r.is_object())
      return err(where + " is not an object");
    Rule rule;
    rule.source = path.str();
    for (auto [key, out] :
         {std::pair<const char *, std::string *>{"id", &rule.id},
          {"target", &rule.target},
          {"action", &rule.action},
          {"knob", &rule.knob},
          {"value", &rule.value},
          {"evidence", &rule.evidence},
          {"confidence", &rule.confidence}}) {
      if (!r.contains(key) || !r[key].is_string())
        return err(where + ": '" + key + "' must be a string");
      *out = r[key].get<std::string>();
    }
    if (rule.action != "skip" && rule.action != "prioritize")
      return err(where + " ('" + rule.id +
                 "'): action must be skip or prioritize, not '" + rule.action +
                 "'");
    if (rule.confidence != "low" && rule.confidence != "medium" &&
        rule.confidence != "high")
      return err(where + " ('" + rule.id +
                 "'): confidence must be low, medium or high");
    if (r.contains("when")) {
      if (!r["when"].is_object())
        return err(where + ": 'when' must be an object");
      for (auto &[name, cond] : r["when"].items()) {
        if (!llvm::is_contained(featureNames(), name))
          return err(where + " ('" + rule.id + "'): unknown feature '" + name +
                     "'");
        if (!cond.is_object())
          return err(where + ": the condition on '" + name +
                     "' must be an object like {\">=\": 0.5}");
        for (auto &[op, v] : cond.items()) {
          if (op != "<" && op != "<=" && op != ">" && op != ">=" && op != "==")
            return err(where + ": unknown comparison '" + op + "'");
          if (!v.is_number())
            return err(where + ": the bound of '" + name +
                       "' must be a number");
          rule.when.push_back({name, op, v.get<double>()});
        }
      }
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

std::string amk::tune::defaultRulesDir(llvm::StringRef exeDir) {
  if (const char *d = std::getenv("AMK_KNOWLEDGE_DIR"); d && *d)
    return (llvm::Twine(d) + "/rules").str();
  if (!exeDir.empty()) {
    llvm::SmallString<256> p(llvm::sys::path::parent_path(exeDir));
    llvm::sys::path::append(p, "share", "amk", "knowledge", "rules");
    if (llvm::sys::fs::is_directory(p))
      return std::string(p);
  }
#ifdef AMK_SOURCE_DIR
  if (llvm::sys::fs::is_directory(AMK_SOURCE_DIR "/knowledge/rules"))
    return AMK_SOURCE_DIR "/knowledge/rules";
#endif
  return "knowledge/rules";
}

bool amk::tune::ruleApplies(const Rule &rule,
                            const std::vector<double> &features) {
  for (const Condition &c : rule.when) {
    double v = feature(features, c.feature);
    if (std::isnan(v))
      return false;
    bool ok = c.op == "<"    ? v < c.value
              : c.op == "<=" ? v <= c.value
              : c.op == ">"  ? v > c.value
              : c.op == ">=" ? v >= c.value
                             : v == c.value;
    if (!ok)
      return false;
  }
  return true;
}

nlohmann::ordered_json
amk::tune::proposeRules(const std::vector<Record> &outcomes) {
  // model -> knob=value -> best speedup of a trial that set it.
  std::map<std::string, std::map<std::string, double>> perModel;
  std::map<std::string, std::string> names;
  for (const Record &r : outcomes) {
    if (r.speedup <= 0 || r.verdict == "baseline")
      continue;
    names[r.modelHash] = r.modelName;
    for (auto &[k, v] : r.config) {
      double &best = perModel[r.modelHash][k + "=" + v];
      best = std::max(best, r.speedup);
    }
  }
  std::map<std::string, std::vector<std::pair<std::string, double>>> byValue;
  for (auto &[model, values] : perModel)
    for (auto &[kv, s] : values)
      byValue[kv].push_back({names[model], s});
  nlohmann::ordered_json rules = nlohmann::ordered_json::array();
  for (auto &[kv, models] : byValue) {
    unsigned plus = 0, minus = 0;
    for (auto &[m, s] : models)
      plus += s > 1.02, minus += s < 0.98;
    unsigned n = plus + minus;
    if (n < 2)
      continue;
    // Two-sided sign test: P(X <= min(plus, minus)) * 2 under Bin(n, 1/2).
    unsigned k = std::min(plus, minus);
    double p = 0, c = 1;
    for (unsigned i = 0; i <= n; ++i) {
      if (i <= k)
        p += c;
      c = c * (n - i) / (i + 1);
    }
    p = std::min(1.0, 2 * p / std::pow(2.0, n));
    auto [knob, value] = llvm::StringRef(kv).split('=');
    nlohmann::ordered_json r;
    r["id"] = "mined-" + knob.str() + "-" + value.str();
    r["target"] = "cpu";
    r["action"] = plus > minus ? "prioritize" : "skip";
    r["knob"] = knob.str();
    r["value"] = value.str();
    r["confidence"] = p < 0.05 ? "medium" : "low";
    r["evidence"] = llvm::formatv("faster on {0} of {1} models, slower on "
                                  "{2} (sign test p = {3:f3})",
                                  plus, models.size(), minus, p)
                        .str();
    nlohmann::ordered_json sup = nlohmann::ordered_json::array();
    for (auto &[m, s] : models)
      sup.push_back({{"model", m}, {"best_speedup", s}});
    r["support"] = sup;
    r["sign_test_p"] = p;
    rules.push_back(r);
  }
  return rules;
}
