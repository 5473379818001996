//===- amk-roundtrip.cpp - ONNX import/export round-trip checker ----------===//
//
// Part of AMK. For each model: import it (A), export A, import the export
// (B), and require that A and B print identically, locations (node and
// tensor names) and weight bytes included. It also writes each model's
// inputs (the ONNX test data's input_*.pb, or seeded random tensors) and a
// manifest, so scripts/ort/roundtrip.js can check that ONNX Runtime gives
// bit-identical outputs on the original and the re-exported model.
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "pipelines/Pipelines.h"
#include "translate/ONNXExport.h"
#include "translate/ONNXImport.h"
#include "translate/ONNXTensor.h"
#include "translate/TensorIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA1.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

using namespace mlir;
namespace cl = llvm::cl;

static cl::list<std::string> models(cl::Positional,
                                    cl::desc("<model.onnx>..."));
static cl::opt<std::string>
    listFile("list", cl::desc("File with one model path per line"),
             cl::init(""));
static cl::opt<std::string> outDir("out-dir", cl::desc("Output directory"),
                                   cl::Required);
static cl::opt<std::string>
    manifestFile("manifest", cl::desc("Write the ONNX Runtime manifest here"),
                 cl::init(""));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of random inputs"),
                              cl::init(1));
static cl::opt<bool> verbose("v", cl::desc("Print every model's verdict"),
                             cl::init(false));

namespace {

/// A raw_ostream that only hashes what is written to it.
class HashStream : public llvm::raw_ostream {
public:
  HashStream() { SetUnbuffered(); }
  std::string digest() {
    flush();
    auto d = sha.final();
    return llvm::toHex(d);
  }

private:
  void write_impl(const char *ptr, size_t size) override {
    sha.update(llvm::StringRef(ptr, size));
    pos += size;
  }
  uint64_t current_pos() const override { return pos; }
  llvm::SHA1 sha;
  uint64_t pos = 0;
};

std::string printHash(ModuleOp module) {
  HashStream hs;
  module->print(hs, OpPrintingFlags().enableDebugInfo());
  return hs.digest();
}

void printToFile(ModuleOp module, llvm::StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec)
    module->print(
        os, OpPrintingFlags().enableDebugInfo().elideLargeResourceString(64));
}

std::string modelId(llvm::StringRef path) {
  llvm::StringRef file = llvm::sys::path::filename(path);
  llvm::StringRef stem = llvm::sys::path::stem(path);
  std::string id;
  if (file == "model.onnx")
    id = llvm::sys::path::filename(llvm::sys::path::parent_path(path)).str();
  else
    id = stem.str();
  for (char &c : id)
    if (!llvm::isAlnum(c) && c != '_' && c != '-' && c != '.')
      c = '_';
  return id;
}

/// Writes a tensor as raw bytes (or a string list) for the Node script.
nlohmann::json writeInput(ElementsAttr value, llvm::StringRef name,
                          llvm::StringRef path) {
  nlohmann::json j;
  j["name"] = name.str();
  auto type = cast<ShapedType>(value.getType());
  j["dims"] = type.getShape().vec();
  auto dt = amk::onnx::getDataType(type.getElementType());
  j["dtype"] = dt ? amk::onnx::getDataTypeName(*dt).str() : "undefined";
  if (dt && *dt == amk::onnx::DataType::STRING) {
    auto strs = cast<DenseStringElementsAttr>(value);
    nlohmann::json arr = nlohmann::json::array();
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      arr.push_back(strs.getRawStringData()[strs.isSplat() ? 0 : i].str());
    j["strings"] = arr;
    return j;
  }
  auto raw = amk::getRawBytes(value);
  if (!raw) {
    j["error"] = llvm::toString(raw.takeError());
    return j;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  os << *raw;
  j["file"] = path.str();
  return j;
}

struct Result {
  std::string verdict; // pass, import-failed, export-failed, reimport-failed,
                       // ir-mismatch
  std::string message;
  nlohmann::json manifest;
};

Result check(llvm::StringRef path, DialectRegistry &registry) {
  Result r;
  std::string id = modelId(path);
  MLIRContext ctx(registry);
  std::string diags;
  ctx.getDiagEngine().registerHandler([&](Diagnostic &d) {
    diags += d.str() + "\n";
    return success();
  });
  amk::ONNXImportOptions opts;
  opts.locationFileName = "model";
  OwningOpRef<ModuleOp> a = amk::importONNXFile(path, &ctx, opts);
  if (!a)
    return {"import-failed", diags, {}};
  std::string hashA = printHash(*a);

  llvm::SmallString<256> exported(outDir);
  llvm::sys::path::append(exported, id + ".onnx");
  if (failed(amk::exportONNXToFile(*a, exported)))
    return {"export-failed", diags, {}};
  // A fresh context: resource names are uniqued per context, so a second
  // import into the same one would rename every blob.
  MLIRContext ctxB(registry);
  ctxB.getDiagEngine().registerHandler([&](Diagnostic &d) {
    diags += d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> b = amk::importONNXFile(exported, &ctxB, opts);
  if (!b)
    return {"reimport-failed", diags, {}};
  if (printHash(*b) != hashA) {
    llvm::SmallString<256> pa(outDir), pb(outDir);
    llvm::sys::path::append(pa, id + ".a.mlir");
    llvm::sys::path::append(pb, id + ".b.mlir");
    printToFile(*a, pa);
    printToFile(*b, pb);
    return {
        "ir-mismatch", "see " + pa.str().str() + " and " + pb.str().str(), {}};
  }

  // Inputs for the ONNX Runtime comparison.
  auto func = a->lookupSymbol<func::FuncOp>("main_graph");
  llvm::SmallString<256> dataDir(llvm::sys::path::parent_path(path));
  llvm::sys::path::append(dataDir, "test_data_set_0");
  nlohmann::json inputs = nlohmann::json::array();
  for (BlockArgument arg : func.getArguments()) {
    llvm::StringRef name = amk::onnx::getTensorName(arg);
    unsigned i = arg.getArgNumber();
    if (!isa<TensorType>(arg.getType()))
      return {"pass",
              "",
              {{"skip", "input '" + name.str() +
                            "' is a sequence or optional, which "
                            "the ORT Node binding cannot feed"}}};
    llvm::SmallString<256> pb(dataDir);
    llvm::sys::path::append(pb, "input_" + std::to_string(i) + ".pb");
    ElementsAttr value;
    if (llvm::sys::fs::exists(pb)) {
      auto v = amk::readTensorFile(pb, &ctx);
      if (!v)
        return {"pass", "", {{"skip", llvm::toString(v.takeError())}}};
      value = *v;
    } else {
      auto t = dyn_cast<RankedTensorType>(arg.getType());
      if (!t)
        return {
            "pass",
            "",
            {{"skip", "input '" + name.str() + "' has no ranked tensor type"}}};
      SmallVector<int64_t> shape(t.getShape());
      for (int64_t &d : shape)
        if (ShapedType::isDynamic(d))
          d = 1;
      value = amk::makeRandomTensor(t.clone(shape), seed + i);
      if (!value)
        return {
            "pass", "", {{"skip", "cannot make random " + std::to_string(i)}}};
    }
    llvm::SmallString<256> bin(outDir);
    llvm::sys::path::append(bin, id + ".input" + std::to_string(i) + ".bin");
    inputs.push_back(writeInput(value, name, bin));
  }
  r.verdict = "pass";
  r.manifest = {{"id", id},
                {"original", path.str()},
                {"exported", exported.str().str()},
                {"inputs", inputs}};
  return r;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "AMK ONNX import/export round-trip checker\n");
  std::vector<std::string> paths(models.begin(), models.end());
  if (!listFile.empty()) {
    auto buf = llvm::MemoryBuffer::getFile(listFile);
    if (!buf) {
      llvm::errs() << "cannot read " << listFile << "\n";
      return 2;
    }
    llvm::SmallVector<llvm::StringRef> lines;
    (*buf)->getBuffer().split(lines, '\n', -1, false);
    for (llvm::StringRef l : lines)
      if (!l.trim().empty())
        paths.push_back(l.trim().str());
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir)) {
    llvm::errs() << "cannot create " << outDir << ": " << ec.message() << "\n";
    return 2;
  }
  DialectRegistry registry;
  amk::registerAllDialects(registry);

  int passed = 0, failed = 0;
  nlohmann::json manifest = nlohmann::json::array();
  for (const std::string &p : paths) {
    Result r = check(p, registry);
    bool ok = r.verdict == "pass";
    ok ? ++passed : ++failed;
    if (!ok || verbose)
      llvm::outs() << (ok ? "PASS " : "FAIL ") << p << ": " << r.verdict
                   << (r.message.empty() ? "" : "\n  " + r.message) << "\n";
    if (ok && !r.manifest.is_null())
      manifest.push_back(r.manifest);
  }
  if (!manifestFile.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(manifestFile, ec);
    os << manifest.dump(1) << "\n";
  }
  llvm::outs() << "roundtrip: " << passed << " passed, " << failed
               << " failed\n";
  return failed ? 1 : 0;
}
