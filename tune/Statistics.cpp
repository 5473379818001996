//===- Statistics.cpp - Keep/revert decisions from latency samples --------===//
//
// Part of AMK. See Statistics.h.
//
//===----------------------------------------------------------------------===//

#include "tune/Statistics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace amk::tune;

double amk::tune::median(llvm::ArrayRef<double> samples) {
  if (samples.empty())
    return std::nan("");
  std::vector<double> v(samples.begin(), samples.end());
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double hi = v[mid];
  if (v.size() % 2)
    return hi;
  double lo = *std::max_element(v.begin(), v.begin() + mid);
  return (lo + hi) / 2;
}

MannWhitney amk::tune::mannWhitneyU(llvm::ArrayRef<double> a,
                                    llvm::ArrayRef<double> b) {
  MannWhitney r;
  size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0)
    return r;
  // Average ranks of the pooled sample.
  std::vector<std::pair<double, bool>> pooled;
  for (double x : a)
    pooled.push_back({x, true});
  for (double x : b)
    pooled.push_back({x, false});
  llvm::sort(pooled,
             [](const auto &l, const auto &r) { return l.first < r.first; });
  double rankSumA = 0, tieTerm = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first)
      ++j;
    double t = double(j - i);
    double avgRank = (double(i + 1) + double(j)) / 2;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second)
        rankSumA += avgRank;
    tieTerm += t * t * t - t;
    i = j;
  }
  r.u = rankSumA - double(n1) * double(n1 + 1) / 2;
  double mean = double(n1) * double(n2) / 2;
  if (tieTerm == 0 && n1 <= 50 && n2 <= 50) {
    // Exact null distribution of U: f(i, j, u) arrangements of i a's and
    // j b's with U = u; the largest element is an a (adding j to U) or a
    // b: f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u).
    size_t maxU = n1 * n2;
    std::vector<std::vector<double>> f(n1 + 1,
                                       std::vector<double>(maxU + 1, 0));
    for (size_t i = 0; i <= n1; ++i)
      f[i][0] = 1; // j = 0
    for (size_t j = 1; j <= n2; ++j)
      for (size_t i = 1; i <= n1; ++i) // f[0][*] stays (u = 0: 1)
        for (size_t u = maxU + 1; u-- > 0;)
          f[i][u] += (u >= j ? f[i - 1][u - j] : 0);
    // Note: the in-place update reads f[i - 1] already at j (row i - 1
    // was updated first) and f[i] at j - 1 (not yet updated): the
    // recurrence above.
    double total = 0, below = 0, above = 0;
    for (size_t u = 0; u <= maxU; ++u) {
      double c = f[n1][u];
      total += c;
      if (double(u) <= r.u)
        below += c;
      if (double(u) >= r.u)
        above += c;
    }
    r.exact = true;
    r.p = std::min(1.0, 2 * std::min(below, above) / total);
    return r;
  }
  double var = double(n1) * double(n2) / 12 *
               (double(n + 1) - tieTerm / (double(n) * double(n - 1)));
  if (var <= 0) {
    r.p = 1;
    return r;
  }
  double z = std::max(0.0, std::fabs(r.u - mean) - 0.5) / std::sqrt(var);
  r.p = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

Interval amk::tune::bootstrapMedianRatio(llvm::ArrayRef<double> a,
                                         llvm::ArrayRef<double> b,
                                         double confidence, unsigned resamples,
                                         uint64_t seed) {
  Interval iv;
  if (a.empty() || b.empty() || resamples == 0)
    return iv;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pickA(0, a.size() - 1),
      pickB(0, b.size() - 1);
  std::vector<double> ratios, ra(a.size()), rb(b.size());
  ratios.reserve(resamples);
  for (unsigned r = 0; r < resamples; ++r) {
    for (double &x : ra)
      x = a[pickA(rng)];
    for (double &x : rb)
      x = b[pickB(rng)];
    ratios.push_back(median(rb) / median(ra));
  }
  llvm::sort(ratios);
  double tail = (1 - confidence) / 2;
  auto at = [&](double q) {
    size_t i = size_t(std::floor(q * double(resamples - 1) + 0.5));
    return ratios[std::min(i, ratios.size() - 1)];
  };
  iv.lo = at(tail);
  iv.hi = at(1 - tail);
  return iv;
}

double amk::tune::aaNoise(llvm::ArrayRef<double> first,
                          llvm::ArrayRef<double> second) {
  return std::fabs(median(second) / median(first) - 1);
}

const char *amk::tune::verdictName(Verdict v) {
  switch (v) {
  case Verdict::Keep:
    return "keep";
  case Verdict::Revert:
    return "revert";
  case Verdict::Inconclusive:
    return "inconclusive";
  }
  return "?";
}

Decision amk::tune::decide(llvm::ArrayRef<double> incumbent,
                           llvm::ArrayRef<double> candidate, double noise,
                           const DecisionOptions &o) {
  Decision d;
  d.threshold = 1 - std::max(o.minGain, o.noiseFactor * noise);
  if (incumbent.size() < o.minRepetitions ||
      candidate.size() < o.minRepetitions) {
    d.reason =
        llvm::formatv("{0} and {1} repetitions; at least {2} each "
                      "are needed",
                      incumbent.size(), candidate.size(), o.minRepetitions)
            .str();
    return d;
  }
  d.ratio = median(candidate) / median(incumbent);
  d.p = mannWhitneyU(candidate, incumbent).p;
  d.interval = bootstrapMedianRatio(incumbent, candidate, o.confidence,
                                    o.resamples, o.seed);
  std::string evidence =
      llvm::formatv("latency ratio {0:f3} ({1:P0} interval {2:f3}..{3:f3}), "
                    "Mann-Whitney p = {4:e2}, threshold {5:f3} (max of "
                    "{6:P0} and {7:F1} x A/A noise {8:P1})",
                    d.ratio, o.confidence, d.interval.lo, d.interval.hi, d.p,
                    d.threshold, o.minGain, o.noiseFactor, noise)
          .str();
  if (d.p < o.alpha && d.interval.hi < d.threshold) {
    d.verdict = Verdict::Keep;
    d.reason = "faster beyond the threshold: " + evidence;
  } else if (d.p < o.alpha && d.ratio > 1) {
    d.verdict = Verdict::Revert;
    d.reason = "significantly slower: " + evidence;
  } else if (d.interval.lo >= d.threshold) {
    d.verdict = Verdict::Revert;
    d.reason = "no gain above the threshold is plausible: " + evidence;
  } else {
    d.reason = "undecided, measure more: " + evidence;
  }
  return d;
}

Decision amk::tune::decideInterleaved(llvm::ArrayRef<double> incumbent,
                                      llvm::ArrayRef<double> candidate,
                                      const DecisionOptions &options) {
  std::vector<double> even, odd;
  for (size_t i = 0; i < incumbent.size(); ++i)
    (i % 2 ? odd : even).push_back(incumbent[i]);
  return decide(incumbent, candidate, aaNoise(even, odd), options);
}

double amk::tune::physicalFloorSeconds(double flops, double constBytes,
                                       double arenaBytes, double peakGflops,
                                       double bandwidthGbps, double llcBytes) {
  double compute = peakGflops > 0 ? flops / (peakGflops * 1e9) : 0;
  double memory = 0;
  // At most the cache's bytes can be hits (a model a little larger than
  // the cache keeps part of its weights there from run to run); the rest
  // come from memory.
  if (bandwidthGbps > 0 && constBytes + arenaBytes > llcBytes)
    memory = std::max(0.0, constBytes - llcBytes) / (bandwidthGbps * 1e9);
  return std::max(compute, memory);
}
