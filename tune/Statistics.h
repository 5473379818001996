//===- Statistics.h - Keep/revert decisions from latency samples -*- C++
//-*-===//
//
// Part of AMK. The statistics amk-tune's decisions rest on (DESIGN.md §5,
// docs/tuning.md): the Mann-Whitney U test, a seeded bootstrap confidence
// interval of the ratio of medians, the A/A noise of the incumbent, and
// the keep / revert / inconclusive rule built from them. Written here
// because no Debian package provides the test (Boost.Math and GSL give
// distributions, not rank tests); docs/tuning.md says so.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TUNE_STATISTICS_H
#define AMK_TUNE_STATISTICS_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>

namespace amk::tune {

double median(llvm::ArrayRef<double> samples);

struct MannWhitney {
  /// U of the first sample: how many (a, b) pairs have a > b (ties 1/2).
  double u = 0;
  /// Two-sided p-value.
  double p = 1;
  /// Exact null distribution (small samples without ties), else the
  /// normal approximation with tie and continuity corrections.
  bool exact = false;
};

/// Two-sided Mann-Whitney U test of `a` against `b`.
MannWhitney mannWhitneyU(llvm::ArrayRef<double> a, llvm::ArrayRef<double> b);

struct Interval {
  double lo = 0, hi = 0;
};

/// Percentile bootstrap interval of median(b) / median(a): `resamples`
/// resamplings of each sample with replacement, drawn from a generator
/// seeded with `seed` (the same inputs give the same interval).
Interval bootstrapMedianRatio(llvm::ArrayRef<double> a,
                              llvm::ArrayRef<double> b, double confidence,
                              unsigned resamples, uint64_t seed);

/// The A/A noise of a configuration measured twice in one session (its
/// repetitions split in two interleaved halves): |median ratio - 1|.
double aaNoise(llvm::ArrayRef<double> first, llvm::ArrayRef<double> second);

struct DecisionOptions {
  unsigned minRepetitions = 9;
  double alpha = 0.05;
  /// The smallest speedup worth a more complex pipeline.
  double minGain = 0.02;
  /// The gain must also exceed this many times the A/A noise.
  double noiseFactor = 3;
  double confidence = 0.95;
  unsigned resamples = 2000;
  uint64_t seed = 1;
};

enum class Verdict { Keep, Revert, Inconclusive };

struct Decision {
  Verdict verdict = Verdict::Inconclusive;
  /// median(candidate) / median(incumbent): below 1 is faster.
  double ratio = 1;
  Interval interval;
  double p = 1;
  /// The ratio the interval must stay below to keep: 1 - max(minGain,
  /// noiseFactor * noise).
  double threshold = 1;
  std::string reason;
};

/// Keep the candidate only if it is faster with p < alpha and the whole
/// interval of the latency ratio lies below the threshold; revert when the
/// interval cannot reach the threshold (no gain worth keeping is
/// plausible) or when the candidate is significantly slower; otherwise
/// inconclusive (measure more, then revert to the simpler pipeline).
/// Latencies are per repetition (each the median of its iterations),
/// measured interleaved in one session.
Decision decide(llvm::ArrayRef<double> incumbent,
                llvm::ArrayRef<double> candidate, double noise,
                const DecisionOptions &options = {});

const char *verdictName(Verdict v);

/// The decision for a candidate measured interleaved with the incumbent,
/// the A/A noise taken from the incumbent's own repetitions split into
/// two interleaved halves (even and odd).
Decision decideInterleaved(llvm::ArrayRef<double> incumbent,
                           llvm::ArrayRef<double> candidate,
                           const DecisionOptions &options = {});

/// The latency (seconds) no correct program can beat on this machine:
/// its FLOPs at the measured FMA peak and, when its weights and arena do
/// not fit in the last-level cache, reading the weights the cache cannot
/// hold once at the measured bandwidth. A measurement below it is an
/// error, not a result.
double physicalFloorSeconds(double flops, double constBytes, double arenaBytes,
                            double peakGflops, double bandwidthGbps,
                            double llcBytes);

} // namespace amk::tune

#endif // AMK_TUNE_STATISTICS_H
