//===- QuantizationTest.cpp - The quantization config and statistics -----===//
//
// Part of AMK. The one configuration object round-trips every field and
// refuses what it does not know; the range methods and the scale/zero-point
// arithmetic give the values computed by hand.
//
//===----------------------------------------------------------------------===//

#include "transforms/quantization/Quantization.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace amk::quant;

TEST(QuantConfig, RoundTripsEveryField) {
  QuantConfig c;
  // Defaults round-trip.
  auto back = QuantConfig::fromJSON(c.toJSON());
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(*back == c);
  // Every field changed round-trips too, through text.
  c.activationType = "int16";
  c.weightType = "uint8";
  c.perChannel = false;
  c.symmetricActivations = true;
  c.quantizedOps = {"Conv", "amk.gemm"};
  c.keepFloat = {"head", "Softmax"};
  c.method = "entropy";
  c.percentile = 99.5;
  c.bins = 4096;
  c.maskThreshold = -1e4;
  c.dataDir = "calib";
  c.maxSamples = 7;
  c.seed = 42;
  c.sensitivityTargetDb = 35;
  c.sensitivitySamples = 2;
  auto text = c.toJSON().dump();
  auto again = QuantConfig::fromJSON(nlohmann::json::parse(text));
  ASSERT_TRUE(static_cast<bool>(again)) << llvm::toString(again.takeError());
  EXPECT_TRUE(*again == c);
  EXPECT_EQ(again->toJSON().dump(), text);
  // The JSON names every field: nothing is left to a second default.
  EXPECT_EQ(c.toJSON().size(), 16u);
}

TEST(QuantConfig, RefusesUnknownKeysTypesAndValues) {
  auto err = [](const char *text) {
    auto r = QuantConfig::fromJSON(nlohmann::json::parse(text));
    return r ? std::string() : llvm::toString(r.takeError());
  };
  EXPECT_NE(err(R"({"activation": "uint8"})").find("unknown key 'activation'"),
            std::string::npos);
  EXPECT_NE(err(R"({"per_channel": "yes"})").find("must be true or false"),
            std::string::npos);
  EXPECT_NE(err(R"({"activation_type": "uint4"})")
                .find("activation_type must be uint8, int8 or int16"),
            std::string::npos);
  EXPECT_NE(err(R"({"bins": 10})").find("bins must be in"), std::string::npos);
  EXPECT_NE(err(R"({"data_dir": "d", "synthetic_samples": 3})")
                .find("not both"),
            std::string::npos);
  EXPECT_EQ(err(R"({})"), "");
}

TEST(QuantParams, MatchHandComputedValues) {
  auto u8 = *getQType("uint8");
  auto i8 = *getQType("int8");
  QParams p = computeQParams(-1, 6, u8, false);
  EXPECT_FLOAT_EQ(p.scale, 7.0f / 255);
  EXPECT_EQ(p.zeroPoint, 36);
  // A range that does not contain 0 is widened to.
  p = computeQParams(2, 3, u8, false);
  EXPECT_FLOAT_EQ(p.scale, 3.0f / 255);
  EXPECT_EQ(p.zeroPoint, 0);
  p = computeQParams(-3, 1, i8, true);
  EXPECT_FLOAT_EQ(p.scale, 3.0f / 127);
  EXPECT_EQ(p.zeroPoint, 0);
  p = computeQParams(0, 4.5, i8, false);
  EXPECT_FLOAT_EQ(p.scale, 4.5f / 255);
  EXPECT_EQ(p.zeroPoint, -128);
  // An all-zero tensor gets a usable scale.
  p = computeQParams(0, 0, u8, false);
  EXPECT_GT(p.scale, 0);
}

TEST(RangeStats, MethodsClipOutliersMinMaxDoesNot) {
  // 100,000 Gaussian values and one outlier at 50.
  std::mt19937 rng(1);
  std::normal_distribution<float> g(0, 1);
  std::vector<float> x(100000);
  for (float &v : x)
    v = g(rng);
  x[17] = 50;
  x[18] = -1e30f; // a mask value: not data
  RangeStats s;
  s.observeMinMax(x.data(), x.size(), -1e9);
  EXPECT_EQ(s.max(), 50);
  EXPECT_EQ(s.masked(), 1);
  EXPECT_GT(s.min(), -10);
  s.startHistogram(2048);
  s.observeHistogram(x.data(), x.size(), -1e9);
  EXPECT_EQ(s.range("minmax", 0, 128).second, 50);
  for (const char *m : {"percentile", "entropy"}) {
    auto [lo, hi] = s.range(m, 99.99, 128);
    EXPECT_LT(hi, 10) << m;   // the outlier is clipped
    EXPECT_GT(hi, 2.5) << m;  // the Gaussian's bulk is kept
    EXPECT_LT(lo, -2.5) << m;
  }
  // MSE weighs the outlier's squared clipping error against the rounding
  // error of 100,000 values: by hand, about half the outlier's magnitude
  // (threshold 25: 100000 * (25/128)^2 / 12 + 25^2 is near the minimum).
  auto [lo, hi] = s.range("mse", 0, 128);
  EXPECT_GT(hi, 15);
  EXPECT_LT(hi, 35);
  EXPECT_LT(lo, -2.5);
}

TEST(RangeStats, EntropyKeepsEverythingWithoutOutliers) {
  // A uniform histogram has nothing to clip: the KL search keeps (almost)
  // the whole range.
  std::vector<double> hist(2048, 1.0);
  EXPECT_GE(entropyThresholdBin(hist, 128), 2000);
  EXPECT_GE(mseThresholdBin(hist, 128), 2000);
}
