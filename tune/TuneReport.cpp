//===- TuneReport.cpp - amk-tune's report ---------------------------------===//
//
// Part of AMK. report.md (the chosen pipeline, where its time goes, every
// trial with its verdict, the rules and the prior behind the ranking),
// trials.svg and result.json.
//
//===----------------------------------------------------------------------===//

#include "tune/Tuner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <set>

using namespace amk::tune;

static nlohmann::ordered_json resultJSON(const TuneResult &r) {
  nlohmann::ordered_json result;
  result["model"] = r.modelPath;
  result["model_hash"] = r.modelHash;
  result["machine"] = r.machine;
  result["run"] = r.run;
  result["pipeline"] = r.pipeline;
  result["default_pipeline"] = r.defaultPipeline;
  result["changes"] = r.changes;
  result["trials"] = r.trials;
  result["seconds"] = r.seconds;
  result["default_ms"] = r.defaultMs;
  result["best_ms"] = r.bestMs;
  result["speedup_vs_default"] = r.defaultMs / r.bestMs;
  if (std::isfinite(r.ortMs))
    result["onnxruntime_ms"] = r.ortMs,
    result["amk_over_ort"] = r.bestMs / r.ortMs;
  result["best_so_far"] = r.bestSoFar;
  std::set<std::string> ids;
  for (const Rule &rule : r.rulesApplied)
    ids.insert(rule.id);
  result["rules_applied"] = std::vector<std::string>(ids.begin(), ids.end());
  nlohmann::ordered_json trialsJson = nlohmann::ordered_json::array();
  for (const TrialSummary &t : r.trialList)
    trialsJson.push_back(
        {{"trial", t.trial},
         {"changes", t.changes},
         {"verdict", t.verdict},
         {"reason", t.reason},
         {"median_ms", t.medianMs ? nlohmann::ordered_json(*t.medianMs)
                                  : nlohmann::ordered_json()},
         {"speedup", t.speedup},
         {"warm_start", t.warm},
         {"rules", t.rules}});
  result["trial_list"] = trialsJson;
  return result;
}

static std::string reportMarkdown(const TuneResult &r, llvm::StringRef dir) {
  std::string md;
  llvm::raw_string_ostream os(md);
  os << "# amk-tune report: " << llvm::sys::path::filename(r.modelPath)
     << "\n\n"
     << "Machine: " << r.machine << "; measured FMA peak "
     << llvm::formatv("{0:f1}", r.peakGflops) << " GFLOP/s, triad "
     << llvm::formatv("{0:f1}", r.bandwidthGbps) << " GB/s.\n\n"
     << "## Chosen pipeline\n\n```\n"
     << r.pipeline << "\n```\n\n"
     << "Changes from the default: " << r.changes
     << ".\n\n| | median latency (ms) |\n|---|---|\n";
  if (std::isfinite(r.defaultMs))
    os << "| default pipeline | " << llvm::formatv("{0:f3}", r.defaultMs)
       << " |\n";
  os << "| chosen pipeline | " << llvm::formatv("{0:f3}", r.bestMs) << " |\n";
  if (std::isfinite(r.ortMs))
    os << "| ONNX Runtime (same inputs, " << r.workers << " thread(s)) | "
       << llvm::formatv("{0:f3}", r.ortMs) << " |\n";
  os << "\n";
  if (r.vsDefault)
    os << "Tuned vs default, measured interleaved: "
       << verdictName(r.vsDefault->verdict) << ": " << r.vsDefault->reason
       << ".\n\n";
  if (!r.ortNote.empty())
    os << "ONNX Runtime was not timed: " << r.ortNote << "\n\n";
  if (!r.calibNote.empty())
    os << "Note: " << r.calibNote << ".\n\n";
  if (!r.finalNote.empty())
    os << "Note: " << r.finalNote << ".\n\n";
  os << "## Where the time goes (trace of the chosen program)\n\n";
  if (r.breakdown)
    os << breakdownMarkdown(*r.breakdown, &r.roof, 0.05,
                            (dir + "/chosen").str());
  else
    os << "No trace could be analysed.\n";
  os << "\n## Trials\n\n![latency per trial](trials.svg)\n\n"
     << "| trial | changes from the default | verdict | median ms | "
        "speedup vs default | why |\n|---|---|---|---|---|---|\n";
  for (const TrialSummary &t : r.trialList)
    os << "| " << t.trial << (t.warm ? " (warm)" : "") << " | " << t.changes
       << " | " << t.verdict << " | "
       << (t.medianMs ? llvm::formatv("{0:f3}", *t.medianMs).str()
                      : std::string("-"))
       << " | "
       << (t.speedup > 0 ? llvm::formatv("{0:f3}", t.speedup).str()
                         : std::string("-"))
       << " | " << t.reason << " |\n";
  os << "\n## Knowledge rules applied\n\n";
  if (r.rulesApplied.empty())
    os << "None.\n";
  for (const Rule &rule : r.rulesApplied)
    os << "- `" << rule.id << "` (" << rule.action << " " << rule.knob << "="
       << rule.value << ", confidence " << rule.confidence
       << "): " << rule.evidence << "\n";
  if (r.nearest) {
    os << "\n## Prior\n\nNearest past models:";
    for (auto &[h, d] : *r.nearest)
      os << " " << h << llvm::formatv(" (distance {0:f3})", d);
    os << ".\n";
  }
  return md;
}

llvm::Error amk::tune::writeTuneReport(const TuneResult &result,
                                       llvm::StringRef dir) {
  std::vector<double> trialMs;
  for (const TrialSummary &t : result.trialList)
    trialMs.push_back(t.medianMs ? *t.medianMs : NAN);
  if (llvm::Error e =
          writeFile((dir + "/report.md").str(), reportMarkdown(result, dir)))
    return e;
  if (llvm::Error e =
          writeFile((dir + "/trials.svg").str(),
                    trialsSVG(trialMs, "Median latency per trial (ms)")))
    return e;
  return writeFile((dir + "/result.json").str(), resultJSON(result).dump(2));
}
