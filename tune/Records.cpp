//===- Records.cpp - amk-tune's trial records -----------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "tune/Records.h"

#include "runtime/support/Fnv1a.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <ctime>

using namespace amk::tune;
using json = nlohmann::ordered_json;

static llvm::Error err(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string amk::tune::toJSONLine(const Record &r) {
  json j;
  j["run"] = r.run;
  j["trial"] = r.trial;
  j["verdict"] = r.verdict;
  j["reason"] = r.reason;
  j["model_hash"] = r.modelHash;
  j["model"] = r.modelName;
  j["shapes"] = r.shapes;
  j["features"] = r.features;
  j["pipeline"] = r.pipeline;
  j["config"] = r.config;
  j["compiler"] = r.compiler;
  j["machine"] = r.machine;
  j["calibration_hash"] = r.calibrationHash;
  j["workers"] = r.workers;
  j["samples_ms"] = r.samplesMs;
  j["incumbent_samples_ms"] = r.incumbentSamplesMs;
  j["ratio"] = r.ratio;
  j["speedup"] = r.speedup;
  j["max_rel_error"] = r.maxRelError;
  j["cosine"] = r.cosine;
  j["top1"] = r.top1;
  j["rung"] = r.rung;
  j["time"] = r.time;
  return j.dump();
}

llvm::Expected<Record> amk::tune::fromJSONLine(llvm::StringRef line) {
  json j = json::parse(line.begin(), line.end(), nullptr,
                       /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return err("not a JSON object");
  Record r;
  // Every field is checked before it is read: the build has no exceptions,
  // and a corrupt record must be skipped, not abort the tuner.
  auto str = [&](const char *key, std::string &out, bool required) {
    if (!j.contains(key))
      return !required;
    if (!j[key].is_string())
      return false;
    out = j[key].get<std::string>();
    return true;
  };
  auto num = [&](const char *key, double &out) {
    if (!j.contains(key))
      return true;
    if (!j[key].is_number())
      return false;
    out = j[key].get<double>();
    return true;
  };
  auto uns = [&](const char *key, unsigned &out, bool required) {
    if (!j.contains(key))
      return !required;
    if (!j[key].is_number_unsigned())
      return false;
    out = j[key].get<unsigned>();
    return true;
  };
  auto nums = [&](const char *key, std::vector<double> &out) {
    if (!j.contains(key))
      return true;
    if (!j[key].is_array())
      return false;
    for (const auto &v : j[key]) {
      if (!v.is_number())
        return false;
      out.push_back(v.get<double>());
    }
    return true;
  };
  bool ok =
      str("run", r.run, true) && uns("trial", r.trial, true) &&
      str("verdict", r.verdict, true) && str("reason", r.reason, false) &&
      str("model_hash", r.modelHash, true) &&
      str("model", r.modelName, false) && str("shapes", r.shapes, false) &&
      nums("features", r.features) && str("pipeline", r.pipeline, true) &&
      str("compiler", r.compiler, false) && str("machine", r.machine, false) &&
      str("calibration_hash", r.calibrationHash, false) &&
      uns("workers", r.workers, false) && nums("samples_ms", r.samplesMs) &&
      nums("incumbent_samples_ms", r.incumbentSamplesMs) &&
      num("ratio", r.ratio) && num("speedup", r.speedup) &&
      num("max_rel_error", r.maxRelError) && num("cosine", r.cosine) &&
      num("top1", r.top1) && uns("rung", r.rung, false) &&
      str("time", r.time, false);
  if (!ok)
    return err("a field is missing or has the wrong type");
  if (j.contains("config")) {
    if (!j["config"].is_object())
      return err("'config' is not an object");
    for (auto &[k, v] : j["config"].items()) {
      if (!v.is_string())
        return err("'config' values must be strings");
      r.config[k] = v.get<std::string>();
    }
  }
  return r;
}

LoadedRecords amk::tune::loadRecords(llvm::StringRef path) {
  LoadedRecords out;
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return out;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buf)->getBuffer().split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    if (line.trim().empty())
      continue;
    auto r = fromJSONLine(line);
    if (!r) {
      llvm::consumeError(r.takeError());
      ++out.badLines;
      continue;
    }
    out.records.push_back(std::move(*r));
  }
  return out;
}

llvm::Error amk::tune::appendRecord(llvm::StringRef path, const Record &r) {
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  if (!dir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      return err("cannot create '" + dir + "': " + ec.message());
  Record stamped = r;
  if (stamped.time.empty()) {
    std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    stamped.time = buf;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Append);
  if (ec)
    return err("cannot open the records '" + path + "': " + ec.message());
  os << toJSONLine(stamped) << "\n";
  os.flush();
  if (os.has_error())
    return err("cannot write the records '" + path + "'");
  return llvm::Error::success();
}

std::vector<Record>
amk::tune::latestPerTrial(const std::vector<Record> &records) {
  std::map<std::pair<std::string, unsigned>, size_t> last;
  std::vector<std::pair<std::string, unsigned>> order;
  for (auto [i, r] : llvm::enumerate(records)) {
    if (r.verdict == "chosen")
      continue;
    auto key = std::make_pair(r.run, r.trial);
    if (!last.count(key))
      order.push_back(key);
    last[key] = i;
  }
  std::vector<Record> out;
  for (auto &key : order)
    out.push_back(records[last[key]]);
  return out;
}

std::string amk::tune::defaultRecordsPath() {
  llvm::SmallString<256> p;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
    p = x;
  else if (const char *h = std::getenv("HOME"); h && *h) {
    p = h;
    llvm::sys::path::append(p, ".cache");
  } else {
    p = ".";
  }
  llvm::sys::path::append(p, "amk", "records.jsonl");
  return std::string(p);
}

std::string amk::tune::modelStructuralHash(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  flags.elideLargeElementsAttrs(8);
  flags.elideLargeResourceString(8);
  module.print(os, flags);
  return hexHash(amk::fnv1a(text.data(), text.size()));
}

std::string amk::tune::hexHash(uint64_t hash) {
  return llvm::formatv("{0}", llvm::format_hex_no_prefix(hash, 16)).str();
}

std::string amk::tune::pipelinePrecision(llvm::StringRef pipeline) {
  // amk-quantize{... precision=X ...}: the options are space separated
  // inside the braces.
  size_t at = pipeline.find("amk-quantize{");
  if (at == llvm::StringRef::npos)
    return "fp32";
  llvm::StringRef opts = pipeline.substr(at + 13);
  opts = opts.take_until([](char c) { return c == '}'; });
  llvm::SmallVector<llvm::StringRef> words;
  opts.split(words, ' ', -1, false);
  for (llvm::StringRef w : words)
    if (w.consume_front("precision="))
      return w.trim("\"").str();
  return "fp32";
}

ChoiceLookup amk::tune::findChoice(const std::vector<Record> &records,
                                   const ChoiceKey &key) {
  ChoiceLookup out;
  // Why the nearest miss missed, most specific last: a run on this
  // machine with this compiler beats one with another compiler, which
  // beats one on another machine.
  int missRank = -1;
  auto miss = [&](int rank, std::string why) {
    if (rank > missRank) {
      missRank = rank;
      out.note = std::move(why);
    }
  };
  for (const Record &r : records) {
    if (r.verdict != "chosen" || r.modelHash != key.modelHash)
      continue;
    if (r.machine != key.machine) {
      miss(0, "the records tuned this model on another machine (" + r.machine +
                  ")");
      continue;
    }
    if (r.compiler != key.compiler) {
      miss(1, "the records tuned this model with AMK " + r.compiler + ", not " +
                  key.compiler + "; run amk-tune again");
      continue;
    }
    std::string precision = pipelinePrecision(r.pipeline);
    if (precision != key.precision) {
      miss(2, "the records tuned this model for precision " + precision +
                  ", not " + key.precision);
      continue;
    }
    if (precision != "fp32" && r.calibrationHash != key.calibrationHash) {
      miss(3, "the records tuned this model with another calibration set "
              "(hash " +
                  r.calibrationHash + ", this one " + key.calibrationHash +
                  ")");
      continue;
    }
    if (key.workers && r.workers != key.workers) {
      miss(4, "the records tuned this model for " + std::to_string(r.workers) +
                  " workers, not " + std::to_string(key.workers));
      continue;
    }
    out.chosen = r; // The store is in time order: the last match wins.
  }
  if (out.chosen)
    out.note.clear();
  return out;
}
