//===- amk-conformance.cpp - ONNX backend tests on the reference interpreter -===//
//
// Part of AMK. Runs every ONNX backend test under a directory (default: the
// 932 node tests of libonnx-testdata) on the reference interpreter and
// classifies each as pass, mismatch (with the worst element), unsupported
// (with the exact reason) or error. Writes a JSON report and a Markdown
// table, and with --baseline fails when a test that passed before does not.
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "pipelines/Pipelines.h"
#include "reference/Compare.h"
#include "reference/Interpreter.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "translate/ONNXImport.h"
#include "translate/TensorIO.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <set>

using namespace mlir;
namespace cl = llvm::cl;
using amk::ref::RValue;

static cl::opt<std::string>
    dataDir("data", cl::desc("Directory of ONNX backend tests"),
            cl::init("/usr/share/libonnx-testdata/data/node"));
static cl::opt<std::string> filter("filter",
                                   cl::desc("Only tests matching this regex"),
                                   cl::init(""));
static cl::opt<std::string> jsonOut("json", cl::desc("Write a JSON report"),
                                    cl::init(""));
static cl::opt<std::string> markdownOut("markdown",
                                        cl::desc("Write a Markdown report"),
                                        cl::init(""));
static cl::opt<std::string>
    baseline("baseline",
             cl::desc("File listing the tests that must pass (one per line)"),
             cl::init(""));
static cl::opt<bool>
    updateBaseline("update-baseline",
                   cl::desc("Rewrite --baseline with today's passing tests"),
                   cl::init(false));
static cl::opt<std::string> pipeline(
    "pipeline",
    cl::desc("Run this pass pipeline on each model first; the outputs must "
             "then match both the expected outputs and the model's outputs "
             "before the pipeline (float: rtol 1e-5 of the output's scale; "
             "others exact). A pipeline that refuses a model with an error "
             "counts as 'refused', not as a regression"),
    cl::init(""));
static cl::opt<bool> verbose("v", cl::desc("Print every test's verdict"),
                             cl::init(false));
static cl::opt<bool>
    missingKernels("missing-kernels",
                   cl::desc("List the typed ops without a reference kernel "
                            "and exit"),
                   cl::init(false));

namespace {

struct TestResult {
  std::string name;
  std::string op;
  std::string verdict; // pass, mismatch, unsupported, error, refused
  std::string message;
  double seconds = 0;
};

std::string squash(llvm::StringRef s) {
  std::string out;
  for (char c : s)
    if (c != '_')
      out += llvm::toLower(c);
  return out;
}

/// The operator a test is about: its single node's op type, or the longest
/// op name its test name starts with ("test_reduce_log_sum_exp_..." ->
/// ReduceLogSumExp), for multi-node and expanded tests.
std::string primaryOp(llvm::StringRef testName, ModuleOp module) {
  std::set<std::string> ops;
  module.walk([&](Operation *op) {
    if (isa<amk::onnx::NoValueOp, amk::onnx::YieldOp, amk::onnx::ConstantOp>(
            op) ||
        !isa<amk::onnx::ONNXDialect>(op->getDialect()))
      return;
    if (auto g = dyn_cast<amk::onnx::GenericOp>(op))
      ops.insert(g.getOpType().str());
    else
      ops.insert(op->getName().stripDialect().str());
  });
  std::string key = squash(testName.drop_front(5)); // "test_"
  // Abbreviations the ONNX test names use.
  static const std::pair<const char *, const char *> kAliases[] = {
      {"sce", "SoftmaxCrossEntropyLoss"},
      {"nllloss", "NegativeLogLikelihoodLoss"},
      {"mvn", "MeanVarianceNormalization"},
      {"batchnorm", "BatchNormalization"},
      {"instancenorm", "InstanceNormalization"},
      {"strnorm", "StringNormalizer"}};
  for (auto [prefix, op] : kAliases)
    if (llvm::StringRef(key).starts_with(prefix))
      return op;
  std::string best;
  for (const amk::onnx::OpInfo &info : amk::onnx::getAllOpInfos()) {
    std::string n = squash(info.name);
    if (llvm::StringRef(key).starts_with(n) && n.size() > best.size())
      best = info.name;
  }
  if (!best.empty())
    return best;
  if (ops.size() == 1)
    return *ops.begin();
  return "(other)";
}

TestResult runTest(const std::string &dir, DialectRegistry &registry) {
  TestResult r;
  r.name = llvm::sys::path::filename(dir).str();
  auto start = std::chrono::steady_clock::now();
  MLIRContext ctx(registry);
  std::string diags;
  ctx.getDiagEngine().registerHandler([&](Diagnostic &d) {
    if (diags.empty())
      diags = d.str();
    return success();
  });
  llvm::SmallString<256> model(dir);
  llvm::sys::path::append(model, "model.onnx");
  OwningOpRef<ModuleOp> module = amk::importONNXFile(model, &ctx);
  auto finish = [&](std::string verdict, std::string message) {
    r.verdict = std::move(verdict);
    r.message = std::move(message);
    r.seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    return r;
  };
  if (!module) {
    r.op = "(import)";
    return finish("error", "import failed: " + diags);
  }
  r.op = primaryOp(r.name, *module);
  OwningOpRef<ModuleOp> original;
  if (!pipeline.empty()) {
    original = module->clone();
    PassManager pm(&ctx);
    std::string err;
    llvm::raw_string_ostream errOs(err);
    if (failed(amk::parsePipeline(pipeline, pm, errOs))) {
      llvm::errs() << "amk-conformance: bad --pipeline: " << err << "\n";
      std::exit(2);
    }
    if (failed(pm.run(*module)))
      return finish("refused", diags);
    if (failed(verify(*module)))
      return finish("error", "the pipeline left invalid IR: " + diags);
  }
  amk::ref::Interpreter interp(*module);
  auto unsupported = interp.findUnsupported();
  if (!unsupported.empty())
    return finish("unsupported", unsupported.front());
  func::FuncOp func = interp.getFunction();

  std::error_code ec;
  std::vector<std::string> sets;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::StringRef(llvm::sys::path::filename(it->path()))
            .starts_with("test_data_set_"))
      sets.push_back(it->path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty())
    return finish("error", "no test_data_set_* directory");
  for (const std::string &set : sets) {
    std::vector<RValue> inputs;
    for (BlockArgument arg : func.getArguments()) {
      llvm::SmallString<256> p(set);
      llvm::sys::path::append(p,
                              "input_" + std::to_string(arg.getArgNumber()) +
                                  ".pb");
      auto v = amk::readValueFile(p, arg.getType(), &ctx);
      if (!v)
        return finish("error", llvm::toString(v.takeError()));
      inputs.push_back(amk::ref::toRValue(*v, arg.getType()));
    }
    auto outputs = interp.run(inputs);
    if (failed(outputs)) {
      const auto &f = interp.getFailure();
      return finish(f.kind == amk::ref::RunFailure::Kind::Unsupported
                        ? "unsupported"
                        : "error",
                    f.message);
    }
    if (original) {
      amk::ref::Interpreter before(*original);
      auto beforeOut = before.run(inputs);
      if (failed(beforeOut))
        return finish("error", "before the pipeline: " +
                                   before.getFailure().message);
      for (unsigned i = 0; i < outputs->size(); ++i) {
        const RValue &e = (*beforeOut)[i];
        amk::ref::Comparison c = amk::ref::compareValues(
            e, (*outputs)[i], amk::ref::scaledTolerance(e, 1e-5));
        if (!c.ok)
          return finish("mismatch", "output " + std::to_string(i) +
                                        " changed by the pipeline: " +
                                        c.message);
      }
    }
    for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
      llvm::SmallString<256> p(set);
      llvm::sys::path::append(p, "output_" + std::to_string(i) + ".pb");
      auto expected = amk::readValueFile(p, type, &ctx);
      if (!expected)
        return finish("error", llvm::toString(expected.takeError()));
      auto name = func.getResultAttrOfType<StringAttr>(i, amk::onnx::kNameAttr);
      amk::ref::Comparison c = amk::ref::compareValues(
          amk::ref::toRValue(*expected, type), (*outputs)[i],
          amk::ref::Tolerance());
      if (!c.ok)
        return finish("mismatch", "output '" + (name ? name.str() : "") +
                                      "' (" +
                                      llvm::sys::path::filename(set).str() +
                                      "): " + c.message);
    }
  }
  return finish("pass", "");
}

/// Typed ops of the dialect without a reference kernel.
std::vector<std::string> opsWithoutKernels() {
  std::vector<std::string> out;
  const auto &reg = amk::ref::KernelRegistry::get();
  for (const amk::onnx::OpInfo &info : amk::onnx::getAllOpInfos())
    if (!reg.lookup("", info.name))
      out.push_back(info.name);
  return out;
}

void writeMarkdown(const std::vector<TestResult> &results,
                   llvm::raw_ostream &os) {
  std::map<std::string, std::array<int, 4>> byOp;
  std::map<std::string, int> verdicts;
  for (const TestResult &r : results) {
    auto &row = byOp[r.op];
    int k = r.verdict == "pass"         ? 0
            : r.verdict == "mismatch"   ? 1
            : r.verdict == "unsupported" ? 2
                                         : 3;
    ++row[k];
    ++verdicts[r.verdict];
  }
  os << "# ONNX backend node tests on the reference interpreter\n\n"
     << "Generated by `amk-conformance` (`test/scripts/conformance.sh`); do not "
        "edit. Why each remaining test does not pass: `docs/interpreter.md`, "
        "section Deviations.\n\n"
     << "| | tests |\n|---|---|\n";
  for (auto v : {"pass", "mismatch", "unsupported", "error"})
    os << "| " << v << " | " << verdicts[v] << " |\n";
  os << "| total | " << results.size() << " |\n\n";
  os << "## By operator\n\n| operator | tests | pass | mismatch | "
        "unsupported | error |\n|---|---|---|---|---|---|\n";
  for (const auto &[op, row] : byOp)
    os << "| " << op << " | " << row[0] + row[1] + row[2] + row[3] << " | "
       << row[0] << " | " << row[1] << " | " << row[2] << " | " << row[3]
       << " |\n";
  auto missing = opsWithoutKernels();
  os << "\n## Typed ops without a reference kernel\n\n"
     << (missing.empty() ? "None: every typed op of the dialect has one.\n"
                         : "");
  for (const std::string &m : missing)
    os << "- `" << m << "`\n";
  os << "\n## Tests that do not pass\n\n| test | verdict | reason |\n"
        "|---|---|---|\n";
  for (const TestResult &r : results) {
    if (r.verdict == "pass")
      continue;
    std::string msg = r.message;
    for (char &c : msg)
      if (c == '|' || c == '\n')
        c = c == '|' ? '/' : ' ';
    os << "| " << r.name << " | " << r.verdict << " | " << msg << " |\n";
  }
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  amk::registerAllPasses();
  cl::ParseCommandLineOptions(
      argc, argv, "Runs ONNX backend tests on AMK's reference interpreter\n");
  DialectRegistry registry;
  amk::registerAllDialects(registry);
  if (missingKernels) {
    auto missing = opsWithoutKernels();
    for (const std::string &m : missing)
      llvm::outs() << m << "\n";
    llvm::outs() << missing.size() << " of " << amk::onnx::getAllOpInfos().size()
                 << " typed ops have no reference kernel\n";
    return 0;
  }

  std::vector<std::string> dirs;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dataDir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::SmallString<256> model(it->path());
    llvm::sys::path::append(model, "model.onnx");
    if (llvm::sys::fs::exists(model))
      dirs.push_back(it->path());
  }
  if (ec || dirs.empty()) {
    llvm::errs() << "amk-conformance: no tests under '" << dataDir << "'\n";
    return 2;
  }
  std::sort(dirs.begin(), dirs.end());
  llvm::Regex re(filter);
  std::vector<TestResult> results;
  for (const std::string &d : dirs) {
    if (!filter.empty() && !re.match(llvm::sys::path::filename(d)))
      continue;
    results.push_back(runTest(d, registry));
    const TestResult &r = results.back();
    if (verbose || (r.verdict != "pass" && baseline.empty()) ||
        r.verdict == "refused")
      llvm::outs() << r.verdict << " " << r.name << " [" << r.op << "]"
                   << (r.message.empty() ? "" : ": " + r.message) << "\n";
  }

  int counts[5] = {0, 0, 0, 0, 0};
  for (const TestResult &r : results)
    ++counts[r.verdict == "pass"          ? 0
             : r.verdict == "mismatch"    ? 1
             : r.verdict == "unsupported" ? 2
             : r.verdict == "refused"     ? 4
                                          : 3];
  if (!jsonOut.empty()) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const TestResult &r : results)
      j.push_back({{"test", r.name},
                   {"op", r.op},
                   {"verdict", r.verdict},
                   {"message", r.message},
                   {"seconds", r.seconds}});
    std::error_code wec;
    llvm::raw_fd_ostream os(jsonOut, wec);
    os << j.dump(1) << "\n";
  }
  if (!markdownOut.empty()) {
    std::error_code wec;
    llvm::raw_fd_ostream os(markdownOut, wec);
    writeMarkdown(results, os);
  }

  int status = 0;
  if (!baseline.empty()) {
    std::set<std::string> passing;
    for (const TestResult &r : results)
      if (r.verdict == "pass")
        passing.insert(r.name);
    if (updateBaseline) {
      std::error_code wec;
      llvm::raw_fd_ostream os(baseline, wec);
      for (const std::string &n : passing)
        os << n << "\n";
    } else {
      auto buf = llvm::MemoryBuffer::getFile(baseline);
      if (!buf) {
        llvm::errs() << "amk-conformance: cannot read " << baseline << "\n";
        return 2;
      }
      llvm::SmallVector<llvm::StringRef> lines;
      (*buf)->getBuffer().split(lines, '\n', -1, false);
      int regressions = 0;
      for (llvm::StringRef l : lines) {
        l = l.trim();
        if (l.empty() || passing.count(l.str()))
          continue;
        bool refused = false;
        for (const TestResult &r : results)
          refused |= r.name == l && r.verdict == "refused";
        if (refused)
          continue;
        for (const TestResult &r : results)
          if (r.name == l)
            llvm::outs() << "REGRESSION " << r.name << ": " << r.verdict
                         << ": " << r.message << "\n";
        ++regressions;
      }
      llvm::outs() << "baseline: " << lines.size() << " tests expected to "
                   << "pass, " << regressions << " regressions\n";
      status = regressions ? 1 : 0;
    }
  }
  llvm::outs() << "conformance: " << counts[0] << " passed, " << counts[1]
               << " mismatched, " << counts[2] << " unsupported, "
               << counts[3] << " errors";
  if (!pipeline.empty())
    llvm::outs() << ", " << counts[4] << " refused by the pipeline";
  llvm::outs() << " (of " << results.size() << ")\n";
  return status;
}
