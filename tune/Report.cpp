//===- Report.cpp - Profiles and tuning reports ---------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "tune/Report.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

using namespace amk::tune;

static llvm::Error err(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string amk::tune::categoryOf(llvm::StringRef cat) {
  if (cat == "gemm" || cat == "conv" || cat == "dwconv" || cat == "attention")
    return "compute";
  if (cat == "elementwise")
    return "elementwise";
  if (cat == "softmax" || cat == "layernorm" || cat == "pool")
    return "normalization/pooling";
  if (cat == "copy" || cat == "gather")
    return "data movement";
  if (cat == "sync" || cat == "wait")
    return "sync/wait";
  return "other";
}

namespace {
struct Span {
  double start, end;
  std::string name, cat;
};
} // namespace

llvm::Expected<Breakdown> amk::tune::analyzeTrace(llvm::StringRef text) {
  auto j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded())
    return err("the trace is not JSON");
  const nlohmann::json *events = &j;
  if (j.is_object()) {
    if (!j.contains("traceEvents") || !j["traceEvents"].is_array())
      return err("the trace has no traceEvents array");
    events = &j["traceEvents"];
  } else if (!j.is_array()) {
    return err("the trace is neither an object nor an array of events");
  }
  std::map<int64_t, std::vector<Span>> perThread;
  std::map<int64_t, std::vector<Span>> open; // B/E pairs.
  for (const auto &e : *events) {
    if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string())
      continue;
    std::string ph = e["ph"].get<std::string>();
    if (ph != "X" && ph != "B" && ph != "E")
      continue;
    if (!e.contains("ts") || !e["ts"].is_number())
      return err("an event has no numeric 'ts'");
    int64_t tid = e.contains("tid") && e["tid"].is_number_integer()
                      ? e["tid"].get<int64_t>()
                      : 0;
    double ts = e["ts"].get<double>();
    std::string name = e.contains("name") && e["name"].is_string()
                           ? e["name"].get<std::string>()
                           : "";
    std::string cat = e.contains("cat") && e["cat"].is_string()
                          ? e["cat"].get<std::string>()
                          : "";
    if (ph == "X") {
      if (!e.contains("dur") || !e["dur"].is_number())
        return err("a complete event has no numeric 'dur'");
      double dur = e["dur"].get<double>();
      if (dur < 0 || !std::isfinite(dur) || !std::isfinite(ts))
        return err("an event has a negative or non-finite duration");
      perThread[tid].push_back({ts, ts + dur, name, cat});
    } else if (ph == "B") {
      open[tid].push_back({ts, ts, name, cat});
    } else {
      if (open[tid].empty())
        return err("an 'E' event closes nothing");
      Span s = open[tid].back();
      open[tid].pop_back();
      s.end = std::max(ts, s.start);
      perThread[tid].push_back(s);
    }
  }
  Breakdown b;
  double first = INFINITY, last = -INFINITY;
  for (auto &[tid, spans] : perThread) {
    // Outer spans first (earlier start, then longer); a stack of open
    // spans gives each instant to the innermost one.
    llvm::sort(spans, [](const Span &a, const Span &c) {
      return a.start != c.start ? a.start < c.start : a.end > c.end;
    });
    std::vector<std::pair<const Span *, double>> stack; // span, exclusive
    // Timestamps are printed to the nanosecond: a span that starts within
    // that of its predecessor's end follows it, it is not nested in it (a
    // task would otherwise be clipped to nothing and its time lost).
    constexpr double kTieUs = 1e-3;
    auto close = [&](double until) {
      while (!stack.empty() && stack.back().first->end <= until + kTieUs) {
        auto [s, excl] = stack.back();
        stack.pop_back();
        double own = std::max(0.0, excl);
        std::string category = categoryOf(s->cat);
        b.categoryUs[category] += own;
        if (category != "sync/wait") {
          b.nodeUs[s->name] += own;
          b.nodeCategory[s->name] = category;
        }
        if (!stack.empty())
          stack.back().second -= s->end - s->start;
      }
    };
    for (Span &s : spans) {
      close(s.start);
      // A span that overlaps its parent's end is clipped to it.
      if (!stack.empty() && s.end > stack.back().first->end)
        s.end = stack.back().first->end;
      stack.push_back({&s, s.end - s.start});
      first = std::min(first, s.start);
      last = std::max(last, s.end);
      ++b.events;
    }
    close(INFINITY);
  }
  b.threads = perThread.size();
  if (b.events == 0)
    return err("the trace has no duration events");
  b.endToEndUs = last - first;
  double busy = 0;
  for (auto &[c, us] : b.categoryUs)
    busy += us;
  b.categoryUs["idle"] = std::max(0.0, b.threads * b.endToEndUs - busy);
  return b;
}

static std::string fmt(double v, int digits = 1) {
  return llvm::formatv("{0}", llvm::format("%.*f", digits, v)).str();
}

/// Text for SVG: the three characters XML reserves in text, escaped.
static std::string xmlText(llvm::StringRef text) {
  std::string out;
  for (char c : text)
    out += c == '<'   ? "&lt;"
           : c == '>' ? "&gt;"
           : c == '&' ? "&amp;"
                      : std::string(1, c);
  return out;
}

/// The opening of every chart: size, font and a bold title.
static void svgOpen(llvm::raw_ostream &os, int width, int height,
                    llvm::StringRef title) {
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
     << "\" height=\"" << height
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
     << "<text x=\"10\" y=\"18\" font-weight=\"bold\">" << xmlText(title)
     << "</text>\n";
}

std::string
amk::tune::barChartSVG(const std::vector<std::pair<std::string, double>> &bars,
                       llvm::StringRef unit, llvm::StringRef title) {
  double maxV = 0;
  for (auto &[l, v] : bars)
    maxV = std::max(maxV, v);
  int rowH = 22, left = 230, width = 640, top = 30;
  int height = top + rowH * (int)bars.size() + 10;
  std::string s;
  llvm::raw_string_ostream os(s);
  svgOpen(os, width, height, title);
  for (auto [i, bar] : llvm::enumerate(bars)) {
    double w = maxV > 0 ? (width - left - 90) * bar.second / maxV : 0;
    int y = top + rowH * i;
    std::string label = xmlText(
        bar.first.size() > 34 ? bar.first.substr(0, 31) + "..." : bar.first);
    os << "<text x=\"" << left - 6 << "\" y=\"" << y + 14
       << "\" text-anchor=\"end\">" << label << "</text>\n"
       << "<rect x=\"" << left << "\" y=\"" << y + 3 << "\" width=\"" << fmt(w)
       << "\" height=\"" << rowH - 6 << "\" fill=\"#4a7ab5\"/>\n"
       << "<text x=\"" << left + w + 4 << "\" y=\"" << y + 14 << "\">"
       << fmt(bar.second, 2) << " " << unit << "</text>\n";
  }
  os << "</svg>\n";
  return s;
}

std::string amk::tune::trialsSVG(const std::vector<double> &lat,
                                 llvm::StringRef title) {
  int width = 640, height = 300, l = 60, r = 20, t = 30, bm = 40;
  double lo = INFINITY, hi = -INFINITY;
  for (double v : lat)
    if (std::isfinite(v))
      lo = std::min(lo, v), hi = std::max(hi, v);
  std::string s;
  llvm::raw_string_ostream os(s);
  svgOpen(os, width, height, title);
  if (!std::isfinite(lo)) {
    os << "<text x=\"60\" y=\"150\">no trial has a latency</text></svg>\n";
    return s;
  }
  if (hi - lo < 1e-9)
    hi = lo + 1e-3;
  double pad = (hi - lo) * 0.1;
  lo -= pad, hi += pad;
  size_t n = std::max<size_t>(lat.size(), 2);
  auto X = [&](size_t i) { return l + (width - l - r) * (double)i / (n - 1); };
  auto Y = [&](double v) {
    return t + (height - t - bm) * (1 - (v - lo) / (hi - lo));
  };
  os << "<line x1=\"" << l << "\" y1=\"" << height - bm << "\" x2=\""
     << width - r << "\" y2=\"" << height - bm << "\" stroke=\"black\"/>\n"
     << "<line x1=\"" << l << "\" y1=\"" << t << "\" x2=\"" << l << "\" y2=\""
     << height - bm << "\" stroke=\"black\"/>\n"
     << "<text x=\"" << width / 2 << "\" y=\"" << height - 8
     << "\" text-anchor=\"middle\">trial</text>\n"
     << "<text x=\"8\" y=\"" << t + 10 << "\">" << fmt(hi, 2) << " ms</text>\n"
     << "<text x=\"8\" y=\"" << height - bm << "\">" << fmt(lo, 2)
     << " ms</text>\n";
  std::string path;
  double best = INFINITY;
  for (size_t i = 0; i < lat.size(); ++i) {
    if (std::isfinite(lat[i])) {
      os << "<circle cx=\"" << fmt(X(i)) << "\" cy=\"" << fmt(Y(lat[i]))
         << "\" r=\"3\" fill=\"#999\"/>\n";
      best = std::min(best, lat[i]);
    }
    if (std::isfinite(best))
      path += (path.empty() ? "M" : " L") + fmt(X(i)) + " " + fmt(Y(best));
  }
  os << "<path d=\"" << path
     << "\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\"/>\n"
     << "<text x=\"" << width - r - 150 << "\" y=\"" << t + 10
     << "\" fill=\"#c0392b\">best so far</text>\n</svg>\n";
  return s;
}

std::string amk::tune::rooflineSVG(const Roofline &rf) {
  int width = 640, height = 360, l = 70, r = 20, t = 30, bm = 45;
  double ai = rf.bytes > 0 ? rf.flops / rf.bytes : 1;
  double achieved = rf.seconds > 0 ? rf.flops / rf.seconds / 1e9 : 0;
  double xlo = std::log10(std::min(0.1, ai / 4)),
         xhi = std::log10(std::max(1000.0, ai * 4));
  double ylo = std::log10(std::max(1e-3, std::min(1.0, achieved / 4))),
         yhi = std::log10(rf.peakGflops * 2);
  auto X = [&](double v) {
    return l + (width - l - r) * (std::log10(v) - xlo) / (xhi - xlo);
  };
  auto Y = [&](double v) {
    return t + (height - t - bm) * (1 - (std::log10(v) - ylo) / (yhi - ylo));
  };
  std::string s;
  llvm::raw_string_ostream os(s);
  svgOpen(os, width, height,
          "Roofline (log-log): " + fmt(rf.peakGflops) + " GFLOP/s peak, " +
              fmt(rf.bandwidthGbps) + " GB/s");
  // The roof: min(peak, bandwidth x intensity), sampled in log space.
  std::string roof;
  for (int i = 0; i <= 100; ++i) {
    double x = std::pow(10, xlo + (xhi - xlo) * i / 100);
    double y = std::min(rf.peakGflops, rf.bandwidthGbps * x);
    y = std::max(y, std::pow(10, ylo));
    roof += (i ? " L" : "M") + fmt(X(x)) + " " + fmt(Y(y));
  }
  os << "<path d=\"" << roof
     << "\" fill=\"none\" stroke=\"black\" stroke-width=\"2\"/>\n"
     << "<circle cx=\"" << fmt(X(ai)) << "\" cy=\""
     << fmt(Y(std::max(achieved, std::pow(10, ylo))))
     << "\" r=\"5\" fill=\"#c0392b\"/>\n"
     << "<text x=\"" << fmt(X(ai) + 8) << "\" y=\""
     << fmt(Y(std::max(achieved, std::pow(10, ylo))) - 6) << "\">"
     << fmt(achieved) << " GFLOP/s at " << fmt(ai, 2) << " FLOP/B</text>\n"
     << "<text x=\"" << width / 2 << "\" y=\"" << height - 10
     << "\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte)</text>\n"
     << "</svg>\n";
  return s;
}

llvm::Error amk::tune::writeFile(llvm::StringRef path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return err("cannot write '" + path + "': " + ec.message());
  os << text;
  return llvm::Error::success();
}

std::string amk::tune::breakdownMarkdown(const Breakdown &b,
                                         const Roofline *roof, double threshold,
                                         llvm::StringRef svgPrefix) {
  std::string s;
  llvm::raw_string_ostream os(s);
  double capacity = b.threads * b.endToEndUs;
  os << "End to end " << fmt(b.endToEndUs / 1e3, 3) << " ms on " << b.threads
     << " worker(s), " << b.events << " trace events.\n\n"
     << "| category | time (ms, summed over workers) | share of workers x "
        "end-to-end |\n|---|---|---|\n";
  std::vector<std::pair<std::string, double>> cats(b.categoryUs.begin(),
                                                   b.categoryUs.end());
  llvm::stable_sort(cats, [](auto &a, auto &c) { return a.second > c.second; });
  for (auto &[c, us] : cats)
    os << "| " << c << " | " << fmt(us / 1e3, 3) << " | "
       << fmt(100 * us / capacity) << "% |\n";
  std::vector<std::pair<std::string, double>> nodes(b.nodeUs.begin(),
                                                    b.nodeUs.end());
  llvm::stable_sort(nodes,
                    [](auto &a, auto &c) { return a.second > c.second; });
  os << "\nBottlenecks (nodes above " << fmt(100 * threshold, 0)
     << "% of workers x end-to-end):\n\n";
  unsigned shown = 0;
  for (auto &[n, us] : nodes) {
    if (us / capacity < threshold)
      break;
    os << "- `" << n << "` (" << b.nodeCategory.at(n)
       << "): " << fmt(us / 1e3, 3) << " ms, " << fmt(100 * us / capacity)
       << "%\n";
    ++shown;
  }
  if (!shown)
    os << "- none: no node takes " << fmt(100 * threshold, 0) << "% or more\n";
  if (roof && roof->flops > 0 && roof->seconds > 0) {
    double achieved = roof->flops / roof->seconds / 1e9;
    double ai = roof->bytes > 0 ? roof->flops / roof->bytes : 0;
    double ridge =
        roof->bandwidthGbps > 0 ? roof->peakGflops / roof->bandwidthGbps : 0;
    double attainable =
        ai > 0 ? std::min(roof->peakGflops, roof->bandwidthGbps * ai)
               : roof->peakGflops;
    os << "\nRoofline: " << fmt(roof->flops / 1e9, 3) << " GFLOP and "
       << fmt(roof->bytes / 1e6) << " MB per inference, intensity "
       << fmt(ai, 2) << " FLOP/B (ridge point " << fmt(ridge, 2)
       << "): " << (ai >= ridge ? "compute" : "memory") << "-bound; achieved "
       << fmt(achieved) << " GFLOP/s = " << fmt(100 * achieved / attainable)
       << "% of the attainable " << fmt(attainable) << " GFLOP/s.\n";
  }
  if (roof && !roof->nodeFlops.empty() && roof->peakGflops > 0) {
    // A node's tasks run on one worker each, so its time summed over
    // workers is compared with one core's peak. Winograd convolutions
    // count the direct convolution's FLOPs (effective rates, which can
    // exceed the peak).
    double corePeak = roof->peakGflops / std::max(1u, roof->workers);
    os << "\nPer layer (nodes above " << fmt(100 * threshold, 0)
       << "% as above, at most 30; GFLOP/s over the node's time summed over "
          "workers, against one core's FMA peak of "
       << fmt(corePeak) << " GFLOP/s):\n\n"
       << "| node | kernel/variant | ms | GFLOP | GFLOP/s | % of peak |\n"
          "|---|---|---|---|---|---|\n";
    unsigned rows = 0;
    for (auto &[n, us] : nodes) {
      if (rows == 30 || (rows && us / capacity < threshold))
        break;
      auto f = roof->nodeFlops.find(n);
      if (f == roof->nodeFlops.end() || f->second <= 0 || us <= 0)
        continue;
      double gflops = f->second / (us * 1e3);
      auto kernel = roof->nodeKernels.find(n);
      os << "| `" << n << "` | "
         << (kernel != roof->nodeKernels.end() ? kernel->second
                                               : b.nodeCategory.at(n))
         << " | " << fmt(us / 1e3, 3) << " | " << fmt(f->second / 1e9, 3)
         << " | " << fmt(gflops) << " | " << fmt(100 * gflops / corePeak)
         << "% |\n";
      ++rows;
    }
  }
  if (!svgPrefix.empty()) {
    std::vector<std::pair<std::string, double>> bars;
    for (auto &[c, us] : cats)
      bars.emplace_back(c, us / 1e3);
    std::string file = (svgPrefix + "-breakdown.svg").str();
    if (llvm::Error e =
            writeFile(file, barChartSVG(bars, "ms", "Time by category")))
      llvm::consumeError(std::move(e));
    else
      os << "\n![time by category](" << llvm::sys::path::filename(file)
         << ")\n";
    if (roof && roof->flops > 0 && roof->seconds > 0) {
      std::string rfile = (svgPrefix + "-roofline.svg").str();
      if (llvm::Error e = writeFile(rfile, rooflineSVG(*roof)))
        llvm::consumeError(std::move(e));
      else
        os << "\n![roofline](" << llvm::sys::path::filename(rfile) << ")\n";
    }
  }
  return s;
}
