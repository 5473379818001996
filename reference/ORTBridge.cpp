//===- ORTBridge.cpp - Running models in ONNX Runtime ---------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "reference/ORTBridge.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#ifndef AMK_SOURCE_DIR
#error "AMK_SOURCE_DIR must be defined"
#endif

using namespace amk::ref;

namespace amk::ort {

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

static std::string scriptPath(llvm::StringRef name) {
  llvm::SmallString<256> p(AMK_SOURCE_DIR);
  llvm::sys::path::append(p, "scripts", "ort", name);
  return std::string(p);
}

bool isAvailable() {
  llvm::SmallString<256> p(AMK_SOURCE_DIR);
  llvm::sys::path::append(p, "third_party", "node_modules",
                          "onnxruntime-node", "package.json");
  return llvm::sys::fs::exists(p) &&
         static_cast<bool>(llvm::sys::findProgramByName("node"));
}

nlohmann::json writeTensor(const Tensor &t, llvm::StringRef name,
                           llvm::StringRef file) {
  nlohmann::json j;
  j["name"] = name.str();
  j["dims"] = std::vector<int64_t>(t.shape().begin(), t.shape().end());
  j["dtype"] = onnx::getDataTypeName(t.dtype()).str();
  if (t.isString()) {
    j["strings"] = t.strings();
    return j;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(file, ec);
  os.write(t.raw(), t.byteSize());
  j["file"] = file.str();
  return j;
}

llvm::Expected<Tensor> readTensor(const nlohmann::json &desc) {
  std::string dtype = desc.value("dtype", "");
  std::vector<int64_t> dims = desc.value("dims", std::vector<int64_t>{});
  std::optional<DataType> dt;
  for (int32_t d = 1; d <= 22; ++d)
    if (onnx::getDataTypeName(static_cast<DataType>(d)) == dtype)
      dt = static_cast<DataType>(d);
  if (!dt)
    return makeError("ONNX Runtime returned an output of type '" + dtype +
                     "'");
  Tensor t(*dt, dims);
  if (t.isString()) {
    auto strs = desc.value("strings", std::vector<std::string>{});
    if (static_cast<int64_t>(strs.size()) != t.numel())
      return makeError("string output has the wrong length");
    t.strings() = strs;
    return t;
  }
  auto buf = llvm::MemoryBuffer::getFile(desc.value("file", ""));
  if (!buf || (*buf)->getBufferSize() != t.byteSize())
    return makeError("cannot read ONNX Runtime's output '" +
                     desc.value("name", "") + "'");
  std::memcpy(t.raw(), (*buf)->getBufferStart(), t.byteSize());
  return t;
}

llvm::Expected<nlohmann::json>
runScript(llvm::StringRef script, nlohmann::json req, llvm::StringRef workDir) {
  if (!isAvailable())
    return makeError("ONNX Runtime is not installed (run scripts/setup.sh)");
  if (std::error_code ec = llvm::sys::fs::create_directories(workDir))
    return makeError("cannot create '" + workDir + "': " + ec.message());
  req["outDir"] = workDir.str();
  llvm::SmallString<256> reqPath(workDir), resPath(workDir);
  llvm::sys::path::append(reqPath, "request.json");
  llvm::sys::path::append(resPath, "result.json");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(reqPath, ec);
    os << req.dump();
  }
  llvm::sys::fs::remove(resPath);
  auto node = llvm::sys::findProgramByName("node");
  std::string path = scriptPath(script);
  std::string reqStr(reqPath);
  llvm::StringRef args[] = {*node, path, reqStr};
  std::string errMsg;
  int rc = llvm::sys::ExecuteAndWait(*node, args, std::nullopt, {}, 0, 0,
                                     &errMsg);
  auto buf = llvm::MemoryBuffer::getFile(resPath);
  if (rc != 0 || !buf)
    return makeError("ONNX Runtime did not run (exit " + std::to_string(rc) +
                     (errMsg.empty() ? "" : ": " + errMsg) + ")");
  auto res = nlohmann::json::parse((*buf)->getBuffer(), nullptr, false);
  if (res.is_discarded())
    return makeError("ONNX Runtime's result is not JSON");
  if (res.contains("error"))
    return makeError("ONNX Runtime: " + res["error"].get<std::string>());
  return res;
}

llvm::Expected<Result> run(llvm::StringRef model,
                           llvm::ArrayRef<NamedTensor> inputs,
                           llvm::StringRef workDir, const Options &opts) {
  if (std::error_code ec = llvm::sys::fs::create_directories(workDir))
    return makeError("cannot create '" + workDir + "': " + ec.message());
  nlohmann::json req;
  llvm::SmallString<256> absModel(model);
  llvm::sys::fs::make_absolute(absModel);
  req["model"] = std::string(absModel);
  req["threads"] = opts.threads;
  req["optimization"] = opts.optimization;
  req["iterations"] = opts.iterations;
  req["inputs"] = nlohmann::json::array();
  for (auto [i, in] : llvm::enumerate(inputs)) {
    llvm::SmallString<256> f(workDir);
    llvm::sys::path::append(f, "input_" + std::to_string(i) + ".bin");
    req["inputs"].push_back(writeTensor(in.second, in.first, f));
  }
  auto res = runScript("run.js", std::move(req), workDir);
  if (!res)
    return res.takeError();
  Result out;
  out.seconds = res->value("seconds", std::vector<double>{});
  for (const auto &o : (*res)["outputs"]) {
    auto t = readTensor(o);
    if (!t)
      return t.takeError();
    out.outputs.emplace_back(o.value("name", ""), std::move(*t));
  }
  return out;
}

} // namespace amk::ort
