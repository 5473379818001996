//===- amk-report.cpp - Profile report over a runtime trace ---------------===//
//
// Part of AMK. Profiling without tuning: reads the Chrome trace that
// `amk-run --trace` writes and prints where the time went (per category,
// nested spans counted once), the nodes above a share of the run, and,
// given `amk-run --json` output of the same run, the roofline position
// against this machine's measured peak and bandwidth. The same analysis
// is a section of amk-tune's report.
//
//   amk-run model.onnx --bench --trace t.json --json > run.json
//   amk-report t.json --run-json run.json -o report.md
//
//===----------------------------------------------------------------------===//

#include "runtime/support/Peak.h"
#include "tools/lib/ToolError.h"
#include "tune/Report.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

namespace cl = llvm::cl;

static cl::opt<std::string> tracePath(cl::Positional, cl::Required,
                                      cl::desc("<trace.json>"));
static cl::opt<std::string> runJson("run-json",
                                    cl::desc("amk-run --json output of the "
                                             "traced run (for the roofline)"),
                                    cl::init(""));
static cl::opt<std::string> output("o",
                                   cl::desc("Markdown output (default "
                                            "stdout); SVG charts go "
                                            "next to it"),
                                   cl::init("-"));
static cl::opt<double> threshold("threshold",
                                 cl::desc("Report nodes above this share"),
                                 cl::init(0.05));

static const amk::ToolErrors errors("amk-report", 2);

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "Profile report of a runtime "
                              "trace\n");
  auto buf = llvm::MemoryBuffer::getFile(tracePath);
  if (!buf)
    errors.fail("cannot read '" + tracePath + "'");
  auto b = amk::tune::analyzeTrace((*buf)->getBuffer());
  if (!b)
    errors.fail(tracePath + ": " + llvm::toString(b.takeError()));
  std::optional<amk::tune::Roofline> roof;
  std::string shapes; // The run's input shapes (a dynamic model's binding).
  if (!runJson.empty()) {
    auto rb = llvm::MemoryBuffer::getFile(runJson);
    if (!rb)
      errors.fail("cannot read '" + runJson + "'");
    auto j = nlohmann::json::parse((*rb)->getBuffer().begin(),
                                   (*rb)->getBuffer().end(), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("runtime") ||
        !j["runtime"].is_object())
      errors.fail(runJson + ": not amk-run --json output of a runtime run");
    const auto &rt = j["runtime"];
    if (j.contains("shapes") && j["shapes"].is_string())
      shapes = j["shapes"].get<std::string>();
    auto num = [&](const char *k) {
      return rt.contains(k) && rt[k].is_number() ? rt[k].get<double>() : 0.0;
    };
    roof.emplace();
    roof->flops = num("flops");
    // Bytes touched at least once per inference: the weights and the
    // arena (as amk-tune's report counts them).
    roof->bytes = num("const_bytes") + num("arena_bytes");
    double ms = num("median_ms") > 0
                    ? num("median_ms")
                    : (j.contains("seconds") && j["seconds"].is_number()
                           ? j["seconds"].get<double>() * 1e3
                           : 0);
    roof->seconds = ms / 1e3;
    unsigned workers = (unsigned)std::max(1.0, num("workers"));
    roof->workers = workers;
    if (rt.contains("node_flops") && rt["node_flops"].is_object())
      for (auto &[name, f] : rt["node_flops"].items())
        if (f.is_number())
          roof->nodeFlops[name] = f.get<double>();
    if (rt.contains("node_kernels") && rt["node_kernels"].is_object())
      for (auto &[name, k] : rt["node_kernels"].items())
        if (k.is_string())
          roof->nodeKernels[name] = k.get<std::string>();
    roof->peakGflops = amk::rt::measureFmaPeak(workers, 5'000'000, 3);
    roof->bandwidthGbps = amk::rt::measureTriadBandwidth(workers, 16u << 20, 3);
    if (roof->flops <= 0 || roof->seconds <= 0)
      errors.fail(runJson +
                  ": no FLOPs or latency in it (run amk-run with --json "
                  "on the runtime)");
  }
  std::string prefix;
  if (output != "-") {
    llvm::SmallString<256> p(output);
    llvm::sys::path::replace_extension(p, "");
    prefix = std::string(p);
  }
  std::string md = "# Profile: " + llvm::sys::path::filename(tracePath).str() +
                   "\n\n" +
                   (shapes.empty() ? std::string()
                                   : "Input shapes: " + shapes + "\n\n") +
                   amk::tune::breakdownMarkdown(*b, roof ? &*roof : nullptr,
                                                threshold, prefix);
  if (output == "-") {
    llvm::outs() << md;
    return 0;
  }
  if (llvm::Error e = amk::tune::writeFile(output, md))
    errors.fail(std::move(e));
  return 0;
}
