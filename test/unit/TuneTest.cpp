//===- TuneTest.cpp - The tuner: statistics, space, records, prior ----===//
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

//===----------------------------------------------------------------------===//
// The search space, the records, the prior, the rules and the trace
// breakdown (the rest of amk-tune; docs/tuning.md).
//===----------------------------------------------------------------------===//

#include "pipelines/Pipelines.h"
#include "tune/Knowledge.h"
#include "tune/Prior.h"
#include "tune/Records.h"
#include "tune/Report.h"
#include "tune/Space.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <unistd.h>

TEST(TuneSpace, ParsesTagsFromHelpText) {
  const char *help = "  --amk-x  -   A pass\n"
                     "    --a=<long>     - Tiles per op [tune: 2|1|4]\n"
                     "    --b            - Switch without tag\n"
                     "    --c=<string>   - Policy [tune: eft | round-robin]\n";
  auto knobs = Space::parseHelp("amk-x", help);
  ASSERT_EQ(knobs.size(), 2u);
  EXPECT_EQ(knobs[0].id(), "amk-x.a");
  EXPECT_EQ(knobs[0].values, (std::vector<std::string>{"2", "1", "4"}));
  EXPECT_EQ(knobs[0].description, "Tiles per op");
  EXPECT_EQ(knobs[1].values, (std::vector<std::string>{"eft", "round-robin"}));
}

static std::string expand(llvm::StringRef text) {
  std::string out, errors;
  llvm::raw_string_ostream es(errors);
  auto pm = mlir::parsePassPipeline(text, es);
  if (mlir::failed(pm))
    return "does not parse: " + errors;
  llvm::raw_string_ostream os(out);
  pm->printAsTextualPipeline(os);
  return out;
}

// The tag convention: the first value is the option's default. Checked
// for every knob by expanding the stage with and without it.
TEST(TuneSpace, FirstTagValueIsTheDefault) {
  amk::registerAllPasses();
  std::vector<std::string> stages = {"amk-graph-opt", "amk-quantize",
                                     "amk-schedule-megakernel"};
  auto space = Space::fromRegistry(stages);
  ASSERT_TRUE(!!space) << llvm::toString(space.takeError());
  EXPECT_GE(space->knobs().size(), 14u);
  for (const Knob &k : space->knobs()) {
    std::string with = expand("builtin.module(" + k.stage + "{" + k.name + "=" +
                              k.values.front() + "})");
    std::string without = expand("builtin.module(" + k.stage + ")");
    EXPECT_EQ(with, without) << k.id();
    // And a non-default value parses.
    std::string why;
    // (Quantized precisions need their calibration directory.)
    std::string extra = k.stage == "amk-quantize" ? " data-dir=/tmp" : "";
    EXPECT_TRUE(
        stageParses(k.stage, k.name + "=" + k.values.back() + extra, why))
        << k.id() << ": " << why;
  }
  // The default configuration spells every knob and parses.
  std::string p = space->pipeline(space->defaults());
  EXPECT_EQ(expand(p).rfind("does not parse", 0), std::string::npos) << p;
  EXPECT_EQ(space->describe(space->defaults()), "defaults");
}

TEST(TuneSpace, RestrictRefusesUnknownKnobsAndValues) {
  amk::registerAllPasses();
  auto space = Space::fromRegistry({"amk-schedule-megakernel"});
  ASSERT_TRUE(!!space);
  EXPECT_TRUE(!!space->restrict(R"({"amk-schedule-megakernel.nope": [1]})"));
  llvm::Error e =
      space->restrict(R"({"amk-schedule-megakernel.tasks-per-worker": ["x"]})");
  ASSERT_TRUE(!!e);
  EXPECT_NE(llvm::toString(std::move(e)).find("cannot take the value 'x'"),
            std::string::npos);
  // A kept default stays first; values are taken as given otherwise.
  ASSERT_FALSE(!!space->restrict(
      R"({"amk-schedule-megakernel.tasks-per-worker": [4, 1]})"));
  int i = space->find("amk-schedule-megakernel.tasks-per-worker");
  ASSERT_GE(i, 0);
  EXPECT_EQ(space->knobs()[i].values, (std::vector<std::string>{"1", "4"}));
}

TEST(TuneRecords, RoundTripEveryField) {
  Record r;
  r.run = "run1";
  r.trial = 7;
  r.verdict = "keep";
  r.reason = "faster \"quoted\"";
  r.modelHash = "abc";
  r.modelName = "m.onnx";
  r.shapes = "tensor<1x3xf32>";
  r.features = {0.5, 1.25};
  r.pipeline = "builtin.module(x{a=1})";
  r.config = {{"x.a", "1"}};
  r.compiler = "0.1.0";
  r.machine = "cpu";
  r.calibrationHash = "c0ffee";
  r.workers = 2;
  r.samplesMs = {1.5, 1.25};
  r.incumbentSamplesMs = {2.0};
  r.ratio = 0.75;
  r.speedup = 1.3;
  r.maxRelError = 1e-6;
  r.cosine = 0.999;
  r.top1 = 1;
  r.rung = 2;
  r.time = "2026-11-24T00:00:00Z";
  auto back = fromJSONLine(toJSONLine(r));
  ASSERT_TRUE(!!back);
  EXPECT_EQ(toJSONLine(*back), toJSONLine(r));
  EXPECT_EQ(back->config, r.config);
  EXPECT_EQ(back->samplesMs, r.samplesMs);
}

TEST(TuneRecords, CorruptLinesAreSkippedAndCounted) {
  llvm::SmallString<128> path;
  int fd;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("rec", "jsonl", fd, path));
  ::close(fd);
  Record a;
  a.run = "r";
  a.trial = 0;
  a.verdict = "started";
  a.modelHash = "h";
  a.pipeline = "p";
  ASSERT_FALSE(!!appendRecord(path, a));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Append);
    os << "{not json\n";
    os << R"({"run":"r","trial":"zero","verdict":"x","model_hash":"h","pipeline":"p"})"
       << "\n";
  }
  a.verdict = "keep";
  ASSERT_FALSE(!!appendRecord(path, a));
  LoadedRecords lr = loadRecords(path);
  EXPECT_EQ(lr.badLines, 2u);
  ASSERT_EQ(lr.records.size(), 2u);
  auto latest = latestPerTrial(lr.records);
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_EQ(latest[0].verdict, "keep");
  llvm::sys::fs::remove(path);
}

static Record chosenRecord(const std::string &machine,
                           const std::string &compiler,
                           const std::string &pipeline, unsigned workers,
                           const std::string &calib = "") {
  Record r;
  r.run = "r";
  r.trial = 3;
  r.verdict = "chosen";
  r.modelHash = "m1";
  r.machine = machine;
  r.compiler = compiler;
  r.pipeline = pipeline;
  r.workers = workers;
  r.calibrationHash = calib;
  return r;
}

TEST(TuneRecords, ChoiceMatchesModelMachineCompilerPrecision) {
  const std::string fp32 = "builtin.module(amk-graph-opt{fuse-conv=false},"
                           "amk-quantize{precision=fp32},"
                           "amk-schedule-megakernel{workers=2})";
  const std::string int8 = "builtin.module(amk-quantize{data-dir=\"/d\" "
                           "precision=int8 sensitivity-target=40})";
  EXPECT_EQ(pipelinePrecision(fp32), "fp32");
  EXPECT_EQ(pipelinePrecision(int8), "int8");
  EXPECT_EQ(pipelinePrecision("builtin.module(amk-graph-opt)"), "fp32");

  ChoiceKey key;
  key.modelHash = "m1";
  key.machine = "M";
  key.compiler = "1.0";
  // Nothing for the model: no choice and no note.
  ChoiceLookup none = findChoice({}, key);
  EXPECT_FALSE(none.chosen);
  EXPECT_TRUE(none.note.empty());

  Record older = chosenRecord("M", "1.0", fp32, 2);
  Record newer = chosenRecord("M", "1.0", fp32 + " ", 2);
  Record trial = newer;
  trial.verdict = "keep"; // A trial outcome is never a choice.
  trial.pipeline = "trial";
  std::vector<Record> rs = {older,
                            newer,
                            trial,
                            chosenRecord("other", "1.0", "o", 2),
                            chosenRecord("M", "0.9", "c", 2),
                            chosenRecord("M", "1.0", int8, 2, "h1")};
  ChoiceLookup hit = findChoice(rs, key);
  ASSERT_TRUE(hit.chosen);
  EXPECT_EQ(hit.chosen->pipeline, newer.pipeline); // The newest wins.
  // The chosen record is not a trial event.
  EXPECT_EQ(latestPerTrial(rs).size(), 1u);
  EXPECT_EQ(latestPerTrial(rs)[0].pipeline, "trial");

  key.workers = 4;
  ChoiceLookup w = findChoice(rs, key);
  EXPECT_FALSE(w.chosen);
  EXPECT_EQ(w.note, "the records tuned this model for 2 workers, not 4");
  key.workers = 0;

  key.precision = "int8";
  key.calibrationHash = "h2";
  ChoiceLookup c = findChoice(rs, key);
  EXPECT_FALSE(c.chosen);
  EXPECT_NE(c.note.find("another calibration set"), std::string::npos);
  key.calibrationHash = "h1";
  ASSERT_TRUE(findChoice(rs, key).chosen);
  EXPECT_EQ(findChoice(rs, key).chosen->pipeline, int8);

  key.precision = "mixed";
  EXPECT_NE(findChoice(rs, key).note.find("for precision fp32, not mixed"),
            std::string::npos);
  key.precision = "fp32";
  key.compiler = "2.0";
  EXPECT_NE(findChoice(rs, key).note.find("with AMK 1.0, not 2.0"),
            std::string::npos);
  key.machine = "N";
  EXPECT_NE(findChoice(rs, key).note.find("on another machine"),
            std::string::npos);
  key.modelHash = "m2";
  EXPECT_TRUE(findChoice(rs, key).note.empty());
}

static Record outcome(const std::string &model, std::vector<double> f,
                      KnobMap cfg, double speedup) {
  Record r;
  r.run = "run-" + model;
  r.modelHash = model;
  r.modelName = model;
  r.features = std::move(f);
  r.config = std::move(cfg);
  r.speedup = speedup;
  r.verdict = "keep";
  r.machine = "M";
  r.pipeline = "p";
  return r;
}

TEST(TunePrior, NearestModelsWarmStartAndPredict) {
  std::vector<Record> rs = {
      outcome("cnn", {1, 0, 0}, {{"k.a", "1"}}, 1.30),
      outcome("cnn", {1, 0, 0}, {{"k.b", "1"}}, 0.80),
      outcome("bert", {0, 1, 0}, {{"k.b", "1"}}, 1.50),
      outcome("self", {0.9, 0, 0}, {{"k.c", "1"}}, 9.0),
  };
  // The model being tuned ("self") is left out: the prior transfers.
  Prior prior(rs, "M", "self", /*k=*/1);
  auto near = prior.nearest({0.9, 0.1, 0});
  ASSERT_EQ(near.size(), 1u);
  EXPECT_EQ(near[0].first, "cnn");
  auto warm = prior.warmStart({0.9, 0.1, 0});
  ASSERT_EQ(warm.size(), 1u);
  EXPECT_EQ(warm[0], (KnobMap{{"k.a", "1"}}));
  // An exactly measured configuration predicts its speedup; a knob never
  // seen predicts no change.
  EXPECT_NEAR(prior.predict({0.9, 0.1, 0}, {{"k.a", "1"}}), 1.30, 1e-12);
  EXPECT_NEAR(prior.predict({0.9, 0.1, 0}, {{"k.z", "1"}}), 1.0, 1e-12);
  // Near the transformer, k.b is predicted to help.
  EXPECT_GT(prior.predict({0, 0.95, 0}, {{"k.b", "1"}}), 1.4);
  // Without records: nothing learned.
  Prior empty({}, "M", "x");
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.predict({1, 0, 0}, {{"k.a", "1"}}), 1.0);
}

TEST(TuneReport, NestedSpansAreCountedOnce) {
  // Thread 0: a 10 us parent (other) with a 4 us gemm child inside; a
  // 2 us wait. Thread 1: one B/E copy of 5 us. End to end 0..12 us.
  const char *trace = R"({"traceEvents":[
    {"ph":"X","tid":0,"ts":0,"dur":10,"name":"outer","cat":"nop"},
    {"ph":"X","tid":0,"ts":3,"dur":4,"name":"mm","cat":"gemm"},
    {"ph":"X","tid":0,"ts":10,"dur":2,"name":"wait","cat":"sync"},
    {"ph":"B","tid":1,"ts":1,"name":"cp","cat":"copy"},
    {"ph":"E","tid":1,"ts":6},
    {"ph":"M","tid":1,"name":"thread_name"}]})";
  auto b = analyzeTrace(trace);
  ASSERT_TRUE(!!b) << llvm::toString(b.takeError());
  EXPECT_EQ(b->threads, 2u);
  EXPECT_DOUBLE_EQ(b->endToEndUs, 12);
  EXPECT_DOUBLE_EQ(b->categoryUs["compute"], 4);
  EXPECT_DOUBLE_EQ(b->categoryUs["other"], 6); // 10 - 4, not 10.
  EXPECT_DOUBLE_EQ(b->categoryUs["sync/wait"], 2);
  EXPECT_DOUBLE_EQ(b->categoryUs["data movement"], 5);
  EXPECT_DOUBLE_EQ(b->categoryUs["idle"], 2 * 12 - 17);
  EXPECT_DOUBLE_EQ(b->nodeUs["outer"], 6);
  EXPECT_FALSE(!!analyzeTrace("{\"traceEvents\": 3}"));
  EXPECT_FALSE(!!analyzeTrace("not json"));
  auto md = breakdownMarkdown(*b, nullptr, 0.2, "");
  EXPECT_NE(md.find("- `outer` (other)"), std::string::npos) << md;
  EXPECT_EQ(md.find("`mm`"), std::string::npos) << md; // 4/24 < 20%.
}

TEST(TuneReport, PerLayerRateAgainstOneCore) {
  // Two workers; node "a" ran 1000 us in all (two tiles), "b" 500 us. With a
  // 2-thread peak of 200 GFLOP/s, one core's is 100: a's 50 MFLOP in 1 ms
  // is 50 GFLOP/s, 50% of it.
  const char *trace = R"({"traceEvents":[
    {"ph":"X","tid":0,"ts":0,"dur":500,"name":"a","cat":"conv"},
    {"ph":"X","tid":1,"ts":0,"dur":500,"name":"a","cat":"conv"},
    {"ph":"X","tid":0,"ts":500,"dur":500,"name":"b","cat":"gemm"}]})";
  auto b = analyzeTrace(trace);
  ASSERT_TRUE(!!b) << llvm::toString(b.takeError());
  Roofline roof;
  roof.flops = 75e6, roof.bytes = 1e6, roof.seconds = 1e-3;
  roof.peakGflops = 200, roof.bandwidthGbps = 20, roof.workers = 2;
  roof.nodeFlops = {{"a", 50e6}, {"b", 25e6}};
  roof.nodeKernels = {{"a", "conv/3"}};
  auto md = breakdownMarkdown(*b, &roof, 0.1, "");
  EXPECT_NE(md.find("one core's FMA peak of 100.0 GFLOP/s"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| `a` | conv/3 | 1.000 | 0.050 | 50.0 | 50.0% |"),
            std::string::npos)
      << md;
  // No kernel given: the category instead.
  EXPECT_NE(md.find("| `b` | compute | 0.500 | 0.025 | 50.0 | 50.0% |"),
            std::string::npos)
      << md;
  // Without node FLOPs there is no per-layer table.
  roof.nodeFlops.clear();
  EXPECT_EQ(breakdownMarkdown(*b, &roof, 0.1, "").find("Per layer"),
            std::string::npos);
}

TEST(TuneReport, SpansThatTouchAreSiblings) {
  // Rounded timestamps: the conv's printed end is a hair after the next
  // task's start. The second task is not nested (and clipped) in the first.
  const char *trace = R"({"traceEvents":[
    {"ph":"X","tid":0,"ts":0.781,"dur":1059.3,"name":"a","cat":"conv"},
    {"ph":"X","tid":0,"ts":1060.0809999,"dur":900,"name":"b","cat":"dwconv"}]})";
  auto b = analyzeTrace(trace);
  ASSERT_TRUE(!!b) << llvm::toString(b.takeError());
  EXPECT_NEAR(b->categoryUs["compute"], 1959.3, 1e-6);
  EXPECT_NEAR(b->categoryUs["idle"], 0, 1e-3);
  EXPECT_NEAR(b->nodeUs["b"], 900, 1e-6);
}

TEST(TuneKnowledge, RulesAreCheckedAndMatched) {
  llvm::SmallString<128> path;
  int fd;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("rules", "json", fd, path));
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << R"({"rules": [{"id": "r1", "target": "cpu", "action": "skip",
      "knob": "amk-graph-opt.fuse-conv", "value": "false",
      "evidence": "e", "confidence": "high",
      "when": {"conv_flop_share": {">=": 0.5}}}]})";
  }
  auto rules = loadRules(path);
  ASSERT_TRUE(!!rules) << llvm::toString(rules.takeError());
  ASSERT_EQ(rules->size(), 1u);
  std::vector<double> f(featureNames().size(), 0);
  EXPECT_FALSE(ruleApplies((*rules)[0], f));
  f[1] = 0.9; // conv_flop_share
  EXPECT_EQ(featureNames()[1], "conv_flop_share");
  EXPECT_TRUE(ruleApplies((*rules)[0], f));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << R"({"rules": [{"id": "r2", "target": "cpu", "action": "skip",
      "knob": "k", "value": "v", "evidence": "e", "confidence": "high",
      "when": {"colour": {">": 1}}}]})";
  }
  auto bad = loadRules(path);
  ASSERT_FALSE(!!bad);
  EXPECT_NE(llvm::toString(bad.takeError()).find("unknown feature 'colour'"),
            std::string::npos);
  llvm::sys::fs::remove(path);
}

TEST(TuneStatistics, PhysicalFloorByHand) {
  // 2 GFLOP at 400 GFLOP/s: 5 ms. 132 MB of weights beyond a 32 MB cache
  // read the 100 MB the cache cannot hold at 20 GB/s: 5 ms too; 232 MB:
  // 10 ms, which then bounds it.
  EXPECT_DOUBLE_EQ(physicalFloorSeconds(2e9, 0, 0, 400, 20, 32e6), 5e-3);
  EXPECT_DOUBLE_EQ(physicalFloorSeconds(2e9, 132e6, 1e6, 400, 20, 32e6), 5e-3);
  EXPECT_DOUBLE_EQ(physicalFloorSeconds(2e9, 232e6, 1e6, 400, 20, 32e6), 10e-3);
  // Weights and arena that fit in the cache are not read from memory.
  EXPECT_DOUBLE_EQ(physicalFloorSeconds(2e9, 20e6, 1e6, 400, 20, 32e6), 5e-3);
  // Unknown peak and bandwidth: no floor.
  EXPECT_DOUBLE_EQ(physicalFloorSeconds(2e9, 200e6, 0, 0, 0, 0), 0);
}

TEST(TuneStatistics, InterleavedDecisionTakesNoiseFromTheIncumbent) {
  // The incumbent alternates 10.0 / 10.4 between its even and odd
  // repetitions: A/A noise |10.4/10.0 - 1| = 4%, so the threshold is
  // 1 - 3 x 4% = 0.88 and a 10% gain is not kept, a 20% gain is.
  std::vector<double> inc, ten, twenty;
  for (int i = 0; i < 12; ++i) {
    inc.push_back(i % 2 ? 10.4 : 10.0);
    ten.push_back((i % 2 ? 10.4 : 10.0) * 0.9);
    twenty.push_back((i % 2 ? 10.4 : 10.0) * 0.8);
  }
  Decision d10 = decideInterleaved(inc, ten);
  EXPECT_NEAR(d10.threshold, 0.88, 1e-9);
  EXPECT_NE(d10.verdict, Verdict::Keep);
  EXPECT_EQ(decideInterleaved(inc, twenty).verdict, Verdict::Keep);
}
