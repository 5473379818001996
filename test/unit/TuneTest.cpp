//===- TuneTest.cpp - The tuner's statistics
//-------------------------------===//
//
// Part of AMK. Each expected value is computed by hand (or from the
// textbook tables) in the comment next to it.
//
//===----------------------------------------------------------------------===//

#include "tune/Statistics.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace amk::tune;

TEST(TuneStatistics, MedianOfOddAndEvenSamples) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(TuneStatistics, MannWhitneyExactMatchesTheTable) {
  // Complete separation of 5 and 5: U = 25 (every a above every b); of
  // the C(10, 5) = 252 equally likely arrangements one has U = 25, so the
  // two-sided p is 2 / 252.
  MannWhitney r = mannWhitneyU({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 25);
  EXPECT_NEAR(r.p, 2.0 / 252, 1e-12);
  // U = 1 for the other order's neighbour: arrangements with U <= 1 are 2
  // (U = 0 and U = 1), p = 2 * 2 / 252.
  MannWhitney s = mannWhitneyU({1, 2, 3, 4, 6}, {5, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(s.u, 1);
  EXPECT_NEAR(s.p, 4.0 / 252, 1e-12);
  // Interleaved samples: U at its mean, p = 1.
  MannWhitney t = mannWhitneyU({1, 4, 5, 8}, {2, 3, 6, 7});
  EXPECT_DOUBLE_EQ(t.u, 8);
  EXPECT_DOUBLE_EQ(t.p, 1);
}

TEST(TuneStatistics, MannWhitneyNormalWithTies) {
  // Ties force the normal approximation: a = {1, 2, 2}, b = {2, 3, 3}.
  // Pooled ranks: 1 -> 1, the three 2s -> 3, the two 3s -> 5.5; R_a =
  // 1 + 3 + 3 = 7, U = 7 - 6 = 1. Tie term: (27 - 3) + (8 - 2) = 30;
  // var = 9 / 12 * (7 - 30 / 30) = 4.5; z = (|1 - 4.5| - 0.5) / sqrt(4.5)
  // = 1.41421, p = erfc(1.41421 / sqrt 2) = erfc(1) = 0.157299.
  MannWhitney r = mannWhitneyU({1, 2, 2}, {2, 3, 3});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 1);
  EXPECT_NEAR(r.p, 0.157299, 1e-5);
  // All equal: no evidence at all.
  EXPECT_DOUBLE_EQ(mannWhitneyU({1, 1, 1}, {1, 1}).p, 1);
}

TEST(TuneStatistics, BootstrapIsSeededAndCoversTheRatio) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.02);
  std::vector<double> a, b;
  for (int i = 0; i < 15; ++i) {
    a.push_back(10 * (1 + noise(rng)));
    b.push_back(8 * (1 + noise(rng)));
  }
  Interval x = bootstrapMedianRatio(a, b, 0.95, 2000, 1);
  Interval y = bootstrapMedianRatio(a, b, 0.95, 2000, 1);
  EXPECT_EQ(x.lo, y.lo);
  EXPECT_EQ(x.hi, y.hi);
  EXPECT_LT(x.lo, 0.8);
  EXPECT_GT(x.hi, 0.8);
  EXPECT_LT(x.hi - x.lo, 0.05);
}

namespace {
std::vector<double> samples(double center, double spread, unsigned n,
                            uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0, spread);
  std::vector<double> v;
  for (unsigned i = 0; i < n; ++i)
    v.push_back(center * (1 + d(rng)));
  return v;
}
} // namespace

TEST(TuneStatistics, DecisionsFollowTheRule) {
  auto inc = samples(10, 0.01, 11, 1);
  // 10% faster with 1% noise: kept.
  Decision keep = decide(inc, samples(9, 0.01, 11, 2), 0.005);
  EXPECT_EQ(keep.verdict, Verdict::Keep) << keep.reason;
  EXPECT_LT(keep.interval.hi, keep.threshold);
  EXPECT_EQ(keep.reason.rfind("faster beyond the threshold: latency ratio "
                              "0.897 (95% interval 0.889..0.904)",
                              0),
            0u)
      << keep.reason;
  // 1% faster: below the 2% floor, so reverted (the interval cannot reach
  // 0.98) or at best inconclusive, never kept.
  Decision small = decide(inc, samples(9.9, 0.002, 11, 3), 0.001);
  EXPECT_NE(small.verdict, Verdict::Keep) << small.reason;
  // 5% slower: reverted.
  Decision slow = decide(inc, samples(10.5, 0.01, 11, 4), 0.005);
  EXPECT_EQ(slow.verdict, Verdict::Revert) << slow.reason;
  // The same 10% gain is not enough when the A/A noise is 4% (threshold
  // 1 - 3 x 4% = 0.88).
  Decision noisy = decide(inc, samples(9, 0.01, 11, 2), 0.04);
  EXPECT_DOUBLE_EQ(noisy.threshold, 1 - 3 * 0.04);
  EXPECT_NE(noisy.verdict, Verdict::Keep) << noisy.reason;
  // Too few repetitions: inconclusive whatever the numbers.
  Decision few = decide(samples(10, 0.01, 5, 1), samples(5, 0.01, 5, 2), 0);
  EXPECT_EQ(few.verdict, Verdict::Inconclusive);
  EXPECT_NE(few.reason.find("at least 9"), std::string::npos);
}
