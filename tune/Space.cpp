//===- Space.cpp - amk-tune's search space --------------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "tune/Space.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

using namespace amk::tune;

static llvm::Error err(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string amk::tune::registryHelp(llvm::StringRef stage) {
  const mlir::PassRegistryEntry *entry = mlir::PassInfo::lookup(stage);
  if (!entry)
    entry = mlir::PassPipelineInfo::lookup(stage);
  if (!entry)
    return "";
  // MLIR prints option descriptions only to llvm::outs() (the registry
  // keeps the option objects private), so the help is captured by pointing
  // stdout at a temporary file for the call.
  llvm::SmallString<128> path;
  int fd = -1;
  if (llvm::sys::fs::createTemporaryFile("amk-tune-help", "txt", fd, path))
    return "";
  llvm::outs().flush();
  std::fflush(stdout);
  int saved = dup(1);
  dup2(fd, 1);
  entry->printHelpStr(/*indent=*/2, /*descIndent=*/40);
  llvm::outs().flush();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  std::string text;
  if (auto buf = llvm::MemoryBuffer::getFile(path))
    text = (*buf)->getBuffer().str();
  llvm::sys::fs::remove(path);
  return text;
}

std::vector<Knob> Space::parseHelp(llvm::StringRef stage,
                                   llvm::StringRef help) {
  std::vector<Knob> knobs;
  llvm::SmallVector<llvm::StringRef> lines;
  help.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    llvm::StringRef l = line.trim();
    if (!l.consume_front("--"))
      continue;
    size_t end = l.find_first_of("= ");
    std::string name = l.substr(0, end).str();
    size_t dash = l.find(" - ");
    if (dash == llvm::StringRef::npos || name == stage)
      continue;
    llvm::StringRef desc = l.substr(dash + 3).trim();
    size_t tag = desc.rfind("[tune:");
    if (tag == llvm::StringRef::npos || !desc.ends_with("]"))
      continue;
    llvm::StringRef list = desc.substr(tag + 6, desc.size() - tag - 7).trim();
    Knob k;
    k.stage = stage.str();
    k.name = name;
    k.description = desc.substr(0, tag).trim().str();
    llvm::SmallVector<llvm::StringRef> values;
    list.split(values, '|', -1, false);
    for (llvm::StringRef v : values)
      k.values.push_back(v.trim().str());
    if (!k.values.empty())
      knobs.push_back(std::move(k));
  }
  return knobs;
}

bool amk::tune::stageParses(llvm::StringRef stage, llvm::StringRef options,
                            std::string &error) {
  std::string text = "builtin.module(" + stage.str();
  if (!options.empty())
    text += "{" + options.str() + "}";
  text += ")";
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (succeeded(mlir::parsePassPipeline(text, os)))
    return true;
  error = llvm::StringRef(errors).trim().str();
  return false;
}

llvm::Expected<Space>
Space::fromRegistry(const std::vector<std::string> &stages) {
  Space s;
  s.stageNames = stages;
  for (const std::string &stage : stages) {
    std::string help = registryHelp(stage);
    if (help.empty())
      return err("the pipeline stage '" + stage + "' is not registered");
    for (Knob &k : parseHelp(stage, help))
      s.knobList.push_back(std::move(k));
  }
  return s;
}

int Space::find(llvm::StringRef id) const {
  for (auto [i, k] : llvm::enumerate(knobList))
    if (k.id() == id)
      return i;
  return -1;
}

unsigned Space::distance(const Config &c) const {
  unsigned d = 0;
  for (unsigned v : c)
    d += v != 0;
  return d;
}

std::string Space::pipeline(const Config &c) const {
  std::string out = "builtin.module(";
  for (auto [si, stage] : llvm::enumerate(stageNames)) {
    std::vector<std::string> opts;
    for (auto [i, k] : llvm::enumerate(knobList))
      if (k.stage == stage)
        opts.push_back(k.name + "=" + k.values[c[i]]);
    if (auto it = fixed.find(stage); it != fixed.end() && !it->second.empty())
      opts.push_back(it->second);
    out += (si ? "," : "") + stage;
    if (!opts.empty())
      out += "{" + llvm::join(opts, " ") + "}";
  }
  return out + ")";
}

std::string Space::describe(const Config &c) const {
  std::vector<std::string> parts;
  for (auto [i, k] : llvm::enumerate(knobList))
    if (c[i] != 0)
      parts.push_back(k.id() + "=" + k.values[c[i]]);
  return parts.empty() ? "defaults" : llvm::join(parts, ", ");
}

llvm::Error Space::narrow(llvm::StringRef id,
                          llvm::ArrayRef<std::string> values) {
  int i = find(id);
  if (i < 0) {
    std::vector<std::string> ids;
    for (const Knob &k : knobList)
      ids.push_back(k.id());
    return err("unknown knob '" + id +
               "' (the knobs: " + llvm::join(ids, ", ") + ")");
  }
  if (values.empty())
    return err("knob '" + id + "': give a non-empty list of values");
  Knob &k = knobList[i];
  for (const std::string &value : values) {
    std::string why, opts = k.name + "=" + value;
    if (auto f = fixed.find(k.stage); f != fixed.end() && !f->second.empty())
      opts += " " + f->second;
    if (!stageParses(k.stage, opts, why))
      return err("knob '" + id + "' cannot take the value '" + value +
                 "': " + why);
  }
  std::vector<std::string> chosen(values.begin(), values.end());
  // The default stays first when it is kept.
  std::stable_partition(
      chosen.begin(), chosen.end(),
      [&](const std::string &v) { return v == k.values.front(); });
  k.values = std::move(chosen);
  return llvm::Error::success();
}

llvm::Error Space::restrict(llvm::StringRef text) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr,
                                           /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return err("the space must be a JSON object {\"stage.knob\": [values]}");
  for (auto &[id, values] : j.items()) {
    if (!values.is_array())
      return err("knob '" + id + "': give a non-empty list of values");
    std::vector<std::string> list;
    for (const auto &v : values) {
      if (v.is_string())
        list.push_back(v.get<std::string>());
      else if (v.is_boolean())
        list.push_back(v.get<bool>() ? "true" : "false");
      else if (v.is_number())
        list.push_back(v.dump());
      else
        return err("knob '" + id + "': values must be strings or numbers");
    }
    if (llvm::Error e = narrow(id, list))
      return e;
  }
  return llvm::Error::success();
}

llvm::Error Space::pin(llvm::StringRef assignment) {
  auto [id, value] = assignment.split('=');
  if (value.empty())
    return err("'" + assignment + "' is not stage.knob=value");
  return narrow(id, {value.str()});
}

void Space::dropPinned() {
  std::vector<Knob> kept;
  for (Knob &k : knobList) {
    if (k.values.size() > 1) {
      kept.push_back(std::move(k));
      continue;
    }
    std::string &f = fixed[k.stage];
    f += (f.empty() ? "" : " ") + k.name + "=" + k.values.front();
  }
  knobList = std::move(kept);
}

std::string Space::print() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  double total = 1; // Only printed; a double cannot overflow here.
  for (const Knob &k : knobList)
    total *= k.values.size();
  os << "search space: " << knobList.size() << " knobs over "
     << stageNames.size() << " stages, " << llvm::formatv("{0:f0}", total)
     << " pipelines\n";
  for (const std::string &stage : stageNames) {
    os << stage << "\n";
    for (const Knob &k : knobList) {
      if (k.stage != stage)
        continue;
      os << "  " << k.name << " = " << k.values.front() << " (default)";
      for (size_t v = 1; v < k.values.size(); ++v)
        os << " | " << k.values[v];
      os << "\n      " << k.description << "\n";
    }
    if (auto it = fixed.find(stage); it != fixed.end() && !it->second.empty())
      os << "  fixed: " << it->second << "\n";
  }
  return out;
}
