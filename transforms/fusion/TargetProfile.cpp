//===- TargetProfile.cpp - Target profiles of knowledge/targets -----------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "transforms/fusion/TargetProfile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <set>

namespace amk {

std::vector<std::string> targetSearchPath(llvm::StringRef dir) {
  std::vector<std::string> path;
  if (!dir.empty())
    path.push_back(dir.str());
  if (const char *env = std::getenv("AMK_TARGETS_DIR"))
    path.push_back(env);
#ifdef AMK_SOURCE_DIR
  path.push_back(AMK_SOURCE_DIR "/knowledge/targets");
#endif
#ifdef AMK_INSTALL_PREFIX
  path.push_back(AMK_INSTALL_PREFIX "/share/amk/targets");
#endif
  return path;
}

static mlir::FailureOr<TargetProfile> parseProfile(const std::string &path,
                                                   std::string &error) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) {
    error = "cannot read target profile '" + path +
            "': " + buf.getError().message();
    return mlir::failure();
  }
  nlohmann::json j = nlohmann::json::parse((*buf)->getBuffer().begin(),
                                           (*buf)->getBuffer().end(), nullptr,
                                           /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    error = "target profile '" + path + "' is not a JSON object";
    return mlir::failure();
  }
  TargetProfile p;
  p.path = path;
  p.name = j.value("name", llvm::sys::path::stem(path).str());
  if (j.contains("conv_fusion")) {
    const nlohmann::json &c = j["conv_fusion"];
    auto share = [&](const char *key, double &out) {
      if (!c.contains(key))
        return true;
      if (!c[key].is_number() || c[key].get<double>() < 0 ||
          c[key].get<double>() > 1) {
        error = "target profile '" + path + "': conv_fusion." + key +
                " must be a number in [0, 1]";
        return false;
      }
      out = c[key].get<double>();
      return true;
    };
    if (!share("max_conv_flop_share", p.maxConvFlopShare) ||
        !share("max_conv_count_share", p.maxConvCountShare))
      return mlir::failure();
    if (c.contains("evidence") && c["evidence"].is_string())
      p.convFusionEvidence = c["evidence"].get<std::string>();
  }
  return p;
}

mlir::FailureOr<TargetProfile> loadTargetProfile(llvm::StringRef target,
                                                 llvm::StringRef dir,
                                                 std::string &error) {
  if (target.ends_with(".json"))
    return parseProfile(target.str(), error);
  std::set<std::string> known;
  for (const std::string &d : targetSearchPath(dir)) {
    llvm::SmallString<256> file(d);
    llvm::sys::path::append(file, target + ".json");
    if (llvm::sys::fs::exists(file))
      return parseProfile(std::string(file), error);
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(d, ec), end; !ec && it != end;
         it.increment(ec))
      if (llvm::sys::path::extension(it->path()) == ".json")
        known.insert(llvm::sys::path::stem(it->path()).str());
  }
  error = "unknown target '" + target.str() + "'";
  if (!known.empty()) {
    error += " (known:";
    for (const std::string &k : known)
      error += " " + k;
    error += ")";
  }
  return mlir::failure();
}

} // namespace amk
