//===- Report.h - Profiles and tuning reports -------------------*- C++ -*-===//
//
// Part of AMK. The time breakdown of a runtime trace (amk-run --trace, the
// Chrome trace JSON the runtime writes) by op category, the bottlenecks,
// the roofline position, and the SVG charts of the tuner's report.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TUNE_REPORT_H
#define AMK_TUNE_REPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace amk::tune {

struct Breakdown {
  double endToEndUs = 0; ///< First start to last end over all threads.
  unsigned threads = 0;
  /// Exclusive time per category (compute, elementwise, normalization,
  /// data movement, sync/wait, other) summed over threads, plus "idle":
  /// threads x end-to-end minus everything else.
  std::map<std::string, double> categoryUs;
  /// Exclusive time per event name (the ONNX node), summed over threads.
  std::map<std::string, double> nodeUs;
  std::map<std::string, std::string> nodeCategory;
  unsigned events = 0;
};

/// The category of a trace event's `cat` (the runtime's kernel kinds).
std::string categoryOf(llvm::StringRef cat);

/// Reads a Chrome trace (complete "X" events; "B"/"E" pairs too) and
/// attributes each microsecond to the innermost span on its thread, so a
/// nested span is never counted twice.
llvm::Expected<Breakdown> analyzeTrace(llvm::StringRef json);

struct Roofline {
  double flops = 0, bytes = 0; ///< Per inference.
  double seconds = 0;          ///< Measured latency.
  double peakGflops = 0, bandwidthGbps = 0;
  unsigned workers = 1; ///< The peak above is for this many threads.
  /// FLOPs per ONNX node (amk-run's `node_flops`): the per-layer table.
  std::map<std::string, double> nodeFlops;
  /// Kernel kind and variant per node (amk-run's `node_kernels`).
  std::map<std::string, std::string> nodeKernels;
};

/// Markdown for a breakdown: the category table (share of threads x
/// end-to-end), nodes above `threshold` of it, and the roofline position
/// when `roof` has FLOPs. Charts are inline SVG files written next to
/// `svgPrefix` (e.g. "out/report" gives out/report-breakdown.svg) when it
/// is not empty.
std::string breakdownMarkdown(const Breakdown &b, const Roofline *roof,
                              double threshold, llvm::StringRef svgPrefix);

/// A horizontal bar chart (labels, values, unit) as SVG.
std::string barChartSVG(const std::vector<std::pair<std::string, double>> &bars,
                        llvm::StringRef unit, llvm::StringRef title);
/// Trial latencies (points; NaN for a trial without one) and the best so
/// far (a line), as SVG.
std::string trialsSVG(const std::vector<double> &latencyMs,
                      llvm::StringRef title);
/// The roofline (peak and bandwidth roofs) with the model's point.
std::string rooflineSVG(const Roofline &r);

llvm::Error writeFile(llvm::StringRef path, llvm::StringRef text);

} // namespace amk::tune

#endif // AMK_TUNE_REPORT_H
