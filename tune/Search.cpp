//===- Search.cpp - The tuner's search
//--------------------------------------===//
//
// Part of AMK. Candidates are compiled and checked against the float
// reference, measured interleaved with the incumbent, narrowed by
// successive halving, and kept only on a full decision (docs/tuning.md).
//
//===----------------------------------------------------------------------===//

#include "tune/TunerImpl.h"

#include "pipelines/Pipelines.h"
#include "reference/Compare.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace amk;
using namespace amk::tune;
using ref::RValue;
using ref::Tensor;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

void Tuner::showProgress(bool done) const {
  if (!opts.progress)
    return;
  TuneProgress p;
  p.trials = trials;
  p.budget = opts.budget;
  if (incumbent && !incumbent->samples.empty())
    p.bestMs = median(incumbent->samples);
  p.speedup = incumbentSpeedup;
  p.secondsLeft = std::max(0.0, opts.timeLimit - elapsed());
  p.done = done;
  opts.progress(p);
}

KnobMap Tuner::knobs(const Config &c) const {
  KnobMap m;
  for (auto [i, k] : llvm::enumerate(space.knobs()))
    if (c[i] != 0)
      m[k.id()] = k.values[c[i]];
  return m;
}

std::optional<Config> Tuner::fromKnobs(const KnobMap &m) const {
  Config c = space.defaults();
  for (auto &[id, v] : m) {
    int i = space.find(id);
    if (i < 0)
      return std::nullopt;
    auto &vals = space.knobs()[i].values;
    auto it = llvm::find(vals, v);
    if (it == vals.end())
      return std::nullopt;
    c[i] = it - vals.begin();
  }
  return c;
}

llvm::Error Tuner::write(Candidate &c) {
  c.rec.run = run;
  c.rec.trial = c.trial;
  c.rec.modelHash = modelHash;
  c.rec.modelName = llvm::sys::path::filename(opts.modelPath).str();
  c.rec.shapes = shapes;
  c.rec.features = features;
  c.rec.pipeline = c.pipeline;
  c.rec.config = knobs(c.cfg);
  c.rec.compiler = compiler;
  c.rec.machine = machine;
  c.rec.calibrationHash = calibHash;
  if (c.loaded)
    c.rec.workers = c.loaded->program.num_workers;
  c.rec.samplesMs = c.samples;
  c.rec.incumbentSamplesMs = c.incSamples;
  c.rec.time.clear();
  if (opts.records.empty())
    return llvm::Error::success();
  return appendRecord(opts.records, c.rec);
}

llvm::Expected<bool> Tuner::compileAndCheck(Candidate &c) {
  c.rec.verdict = "started";
  if (llvm::Error e = write(c))
    return std::move(e);
  std::string diags;
  ScopedDiagnosticHandler capture(original.getContext(), [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      diags += (diags.empty() ? "" : "; ") + d.str();
    return success();
  });
  auto fail = [&](const std::string &verdict, const std::string &why) {
    c.rec.verdict = verdict;
    c.rec.reason = why + (diags.empty() ? "" : ": " + diags);
    failures.push_back(llvm::formatv("trial {0} ({1}): {2}", c.trial,
                                     space.describe(c.cfg), c.rec.reason)
                           .str());
    c.release();
    return false;
  };
  OwningOpRef<ModuleOp> m = original.clone();
  std::string err;
  if (failed(runPipeline(*m, c.pipeline, err)))
    return fail("failed", "compilation failed (" + err + ")");
  auto compiled = loadCompiledProgram(*m, {});
  if (!compiled)
    return fail("failed", llvm::toString(compiled.takeError()));
  c.loaded = std::move(compiled->loaded);
  c.programHash = hashProgram(*c.loaded);
  if (DictionaryAttr stats = compiled->program.getStatsAttr()) {
    if (auto f = stats.getAs<FloatAttr>("flops"))
      c.flops = f.getValueAsDouble();
    if (auto b = stats.getAs<IntegerAttr>("const_bytes"))
      c.constBytes = b.getInt();
  }
  c.arenaBytes = c.loaded->program.arena_bytes;
  if (auto it = programTrial.find(c.programHash); it != programTrial.end()) {
    c.rec.verdict = "duplicate";
    c.rec.reason =
        llvm::formatv("compiles to the same program as trial {0}", it->second);
    c.release();
    return false;
  }
  programTrial[c.programHash] = c.trial;
  amk_rt_options ropts{};
  ropts.hang_timeout_s = 30;
  auto session = Session::create(*c.loaded, nullptr, ropts);
  if (!session)
    return fail("failed", llvm::toString(session.takeError()));
  c.session = std::move(*session);
  for (const std::vector<RValue> &set : inputs)
    if (auto bound = c.session->bindInputs(set); !bound)
      return fail("failed", llvm::toString(bound.takeError()));
  auto checked = checkOutputs(c, fail);
  if (!checked || !*checked)
    return checked;
  if (opts.inPlace.empty())
    return true;
  // Checked on outputs of their own; timed updating the state in place, in
  // a copy of set 0 (the held-out sets stay as the reference saw them).
  for (const RValue &v : inputs[0]) {
    const Tensor &t = v.getTensor();
    Tensor copy(t.dtype(), t.shape());
    std::memcpy(copy.raw(), t.raw(), t.byteSize());
    c.timedInputs.push_back(RValue(copy));
  }
  auto timed = c.session->bindInputs(c.timedInputs);
  if (!timed)
    return fail("failed", llvm::toString(timed.takeError()));
  c.timedSet = *timed;
  for (auto [out, in] : opts.inPlace)
    if (llvm::Error e = c.session->aliasOutputToInput(out, c.timedSet, in))
      return fail("failed", llvm::toString(std::move(e)));
  return true;
}

/// Correctness before speed: every held-out set against the float
/// reference.
llvm::Expected<bool> Tuner::checkOutputs(
    Candidate &c,
    llvm::function_ref<bool(const std::string &, const std::string &)> fail) {
  bool quant = quantized(c);
  double worstRel = 0, worstCos = 1;
  unsigned agree = 0, rows = 0;
  for (size_t s = 0; s < inputs.size(); ++s) {
    if (auto ran = c.session->run(s); !ran)
      return fail("rejected", llvm::toString(ran.takeError()));
    const std::vector<RValue> &outs = c.session->outputs();
    for (size_t o = 0; o < outs.size(); ++o) {
      const RValue &want = expected[s][o];
      if (!quant) {
        auto cmp = ref::compareValues(want, outs[o],
                                      ref::scaledTolerance(want, opts.rtol));
        worstRel = std::max(worstRel, cmp.maxRelError);
        worstCos = std::min(worstCos, cmp.cosine);
        if (!cmp.ok)
          return fail("rejected",
                      llvm::formatv("output {0} differs from the float "
                                    "reference on held-out set {1}: {2}",
                                    o, s, cmp.message)
                          .str());
        continue;
      }
      auto cmp = ref::compareValues(want, outs[o], {1e30, 1e30});
      worstCos = std::min(worstCos, cmp.cosine);
      worstRel = std::max(worstRel, cmp.maxRelError);
      if (o != 0 || !want.isTensor())
        continue;
      // Top-1 over the last axis, row by row.
      const Tensor &a = want.getTensor(), &b = outs[o].getTensor();
      int64_t cols = a.rank() ? a.dim(-1) : 1;
      for (int64_t r = 0; cols > 0 && r < a.numel() / cols; ++r) {
        int64_t ia = 0, ib = 0;
        for (int64_t k = 1; k < cols; ++k) {
          if (a.getDouble(r * cols + k) > a.getDouble(r * cols + ia))
            ia = k;
          if (b.getDouble(r * cols + k) > b.getDouble(r * cols + ib))
            ib = k;
        }
        agree += ia == ib;
        ++rows;
      }
    }
  }
  c.rec.maxRelError = worstRel;
  c.rec.cosine = worstCos;
  if (quant) {
    c.rec.top1 = rows ? (double)agree / rows : 1;
    if (worstCos < opts.minCosine || c.rec.top1 < opts.minTop1)
      return fail("rejected",
                  llvm::formatv("quantized outputs too far from float: "
                                "cosine {0:f5} (min {1}), top-1 {2:f3} "
                                "(min {3})",
                                worstCos, opts.minCosine, c.rec.top1,
                                opts.minTop1)
                      .str());
  }
  return true;
}

/// One repetition: the median of `iters` timed runs, in ms.
llvm::Expected<double> Tuner::repetition(Candidate &c) {
  std::vector<double> t;
  // Warms the caches after the other candidate ran; a failure here shows
  // in the timed runs.
  if (auto warm = c.session->run(c.timedSet); !warm)
    llvm::consumeError(warm.takeError());
  for (unsigned i = 0; i < std::max(1u, opts.iters); ++i) {
    auto t0 = Clock::now();
    if (auto ran = c.session->run(c.timedSet); !ran) {
      llvm::consumeError(ran.takeError());
      return error("a run that passed its check failed while timed: " +
                   llvm::Twine(c.session->runtimeError()));
    }
    t.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return median(t);
}

/// `reps` more repetitions of `a` and `b`, interleaved, the order
/// alternating so neither always runs first.
llvm::Error Tuner::interleave(Candidate &a, std::vector<double> &aSamples,
                              Candidate &b, std::vector<double> &bSamples,
                              unsigned reps) {
  for (unsigned r = 0; r < reps; ++r) {
    bool aFirst = (aSamples.size() + r) % 2 == 0;
    auto first = repetition(aFirst ? a : b);
    if (!first)
      return first.takeError();
    auto second = repetition(aFirst ? b : a);
    if (!second)
      return second.takeError();
    aSamples.push_back(aFirst ? *first : *second);
    bSamples.push_back(aFirst ? *second : *first);
  }
  return llvm::Error::success();
}

/// Marks a measured candidate `withheld` when its median is below the
/// physical floor (a measurement error). Returns whether it did.
bool Tuner::withheldBelowFloor(Candidate &c) {
  double floorMs =
      1e3 * physicalFloorSeconds(c.flops, c.constBytes, c.arenaBytes,
                                 peakGflops, bandwidthGbps, llcBytes);
  double ms = median(c.samples);
  if (ms >= floorMs)
    return false;
  c.rec.verdict = "withheld";
  c.rec.reason = llvm::formatv("measured {0:f4} ms is below the physical "
                               "floor {1:f4} ms: a measurement error, not "
                               "a result",
                               ms, floorMs);
  return true;
}

/// Makes `c` the next trial (its number, its pipeline tried).
Candidate &Tuner::adopt(std::unique_ptr<Candidate> c) {
  c->pipeline = space.pipeline(c->cfg);
  c->trial = trials++;
  tried.insert(c->pipeline);
  all.push_back(std::move(c));
  return *all.back();
}

/// The configurations one knob away from `from`.
std::vector<std::pair<Config, bool>>
Tuner::neighbours(const Config &from) const {
  std::vector<std::pair<Config, bool>> out;
  for (auto [k, knob] : llvm::enumerate(space.knobs()))
    for (unsigned v = 0; v < knob.values.size(); ++v)
      if (v != from[k]) {
        Config n = from;
        n[k] = v;
        out.push_back({n, false});
      }
  return out;
}

/// The outcome recorded by an interrupted earlier run, if any: its
/// verdict is taken instead of measuring again.
const Record *Tuner::resumedOutcome(const Candidate &c) const {
  auto it = resumed.find(c.trial);
  if (it == resumed.end() || it->second.pipeline != c.pipeline)
    return nullptr;
  return &it->second;
}

llvm::Error Tuner::baselineTrial() {
  auto fresh = std::make_unique<Candidate>();
  fresh->cfg = space.defaults();
  Candidate &c = adopt(std::move(fresh));
  info("trial 0: the default pipeline " + c.pipeline);
  auto ok = compileAndCheck(c);
  if (!ok)
    return ok.takeError();
  if (!*ok) {
    if (llvm::Error e = write(c))
      return e;
    info("the default pipeline fails: " + c.rec.reason);
    return llvm::Error::success();
  }
  baseline = incumbent = &c;
  // A baseline measured against itself gives its A/A noise.
  if (llvm::Error e = interleave(c, c.incSamples, c, c.samples, opts.minReps))
    return e;
  c.rec.verdict = "baseline";
  c.rec.speedup = 1;
  c.rec.ratio = ratio(c);
  double noise = aaNoise(c.samples, c.incSamples);
  c.rec.reason = llvm::formatv("A/A noise {0:f2}%", 100 * noise).str();
  withheldBelowFloor(c);
  return write(c);
}

/// Without a correct default, any correct candidate becomes the
/// incumbent to beat.
llvm::Error Tuner::firstCorrectTrial() {
  auto candidates = neighbours(space.defaults());
  for (auto &fresh : rank(candidates, candidates.size())) {
    if (outOfBudget())
      break;
    Candidate &c = adopt(std::move(fresh));
    auto ok = compileAndCheck(c);
    if (!ok)
      return ok.takeError();
    if (*ok) {
      incumbent = &c;
      if (llvm::Error e =
              interleave(c, c.incSamples, c, c.samples, opts.minReps))
        return e;
      c.rec.verdict = "baseline";
      c.rec.reason = "the first correct candidate (the default failed)";
      return write(c);
    }
    if (llvm::Error e = write(c))
      return e;
  }
  return llvm::Error::success();
}

/// Ranks candidate configurations: rules first (skip moves a value to
/// the end, prioritize to the front), then the prior's predicted
/// speedup; warm-start configurations lead.
std::vector<std::unique_ptr<Candidate>>
Tuner::rank(std::vector<std::pair<Config, bool>> configs, unsigned want) {
  struct Scored {
    Config cfg;
    bool warm;
    double score;
    int rule; // -1 skip, 0, +1 prioritize
    std::vector<std::string> ids;
  };
  std::vector<Scored> scored;
  for (auto &[cfg, warm] : configs) {
    if (tried.count(space.pipeline(cfg)))
      continue;
    Scored s{cfg, warm, 1, 0, {}};
    KnobMap km = knobs(cfg);
    if (prior && !prior->empty())
      s.score = prior->predict(features, km);
    for (const Rule &r : rules) {
      auto it = km.find(r.knob);
      if (it == km.end() || it->second != r.value || !ruleApplies(r, features))
        continue;
      s.rule = r.action == "skip" ? std::min(s.rule, -1)
                                  : std::max(s.rule, s.rule < 0 ? -1 : 1);
      s.ids.push_back(r.id);
      rulesApplied.insert(r.id);
    }
    scored.push_back(std::move(s));
  }
  llvm::stable_sort(scored, [](const Scored &a, const Scored &b) {
    if (a.warm != b.warm)
      return a.warm;
    if (a.rule != b.rule)
      return a.rule > b.rule;
    return a.score > b.score;
  });
  std::vector<std::unique_ptr<Candidate>> out;
  std::uniform_real_distribution<double> coin(0, 1);
  for (size_t i = 0; i < scored.size() && out.size() < want; ++i) {
    if (scored[i].rule < 0)
      break; // Skipped values only come back through exploration.
    auto c = std::make_unique<Candidate>();
    c->cfg = scored[i].cfg;
    c->warm = scored[i].warm;
    c->rules = scored[i].ids;
    // Exploration: now and then a random point of the whole space.
    if (opts.explore > 0 && coin(rng) < opts.explore) {
      Config r = space.defaults();
      for (auto [k, knob] : llvm::enumerate(space.knobs()))
        r[k] = rng() % knob.values.size();
      if (!tried.count(space.pipeline(r))) {
        c->cfg = r;
        c->warm = false;
        c->rules = {"exploration"};
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

/// One round: compile and check each candidate, successive halving on
/// the correct ones, and a full decision for the last one standing.
llvm::Error Tuner::round(std::vector<std::unique_ptr<Candidate>> pending) {
  std::vector<Candidate *> pool;
  Candidate *resumedKeep = nullptr;
  for (auto &p : pending) {
    if (outOfBudget())
      break;
    if (tried.count(space.pipeline(p->cfg)))
      continue;
    Candidate &c = adopt(std::move(p));
    showProgress();
    if (const Record *r = resumedOutcome(c)) {
      c.rec = *r;
      c.samples = r->samplesMs;
      c.incSamples = r->incumbentSamplesMs;
      if (r->verdict == "started") {
        c.rec.verdict = "crashed";
        c.rec.reason = "an earlier run stopped inside this trial (a crash "
                       "or an interruption); not tried again";
        if (llvm::Error e = write(c))
          return e;
      } else if (r->verdict == "keep") {
        auto ok = compileAndCheck(c);
        if (!ok)
          return ok.takeError();
        if (*ok) {
          // The kept incumbent needs its program again; the rest of the
          // round is replayed first so trial numbers stay those recorded.
          c.rec = *r;
          if (llvm::Error e = write(c))
            return e;
          resumedKeep = &c;
        }
      }
      continue;
    }
    auto ok = compileAndCheck(c);
    if (!ok)
      return ok.takeError();
    if (!*ok) {
      if (llvm::Error e = write(c))
        return e;
      continue;
    }
    pool.push_back(&c);
  }
  if (resumedKeep) {
    for (Candidate *c : pool)
      c->release();
    promote(*resumedKeep);
    return llvm::Error::success();
  }
  if (pool.empty())
    return llvm::Error::success();
  unsigned reps = 3, rung = 0;
  for (Candidate *c : pool)
    if (llvm::Error e = measure(*c, reps))
      return e;
  while (pool.size() > 1) {
    llvm::stable_sort(pool, [&](Candidate *a, Candidate *b) {
      return ratio(*a) < ratio(*b);
    });
    size_t keep = (pool.size() + 1) / 2;
    std::vector<Candidate *> next;
    for (auto [i, c] : llvm::enumerate(pool)) {
      if (i < keep && ratio(*c) < 1.0) {
        next.push_back(c);
        continue;
      }
      c->rec.verdict = "eliminated";
      c->rec.rung = rung;
      c->rec.ratio = ratio(*c);
      c->rec.speedup = incumbentSpeedup / c->rec.ratio;
      c->rec.reason = llvm::formatv("successive halving, rung {0}: ratio "
                                    "{1:f3} vs the incumbent over {2} "
                                    "repetitions",
                                    rung, c->rec.ratio, c->samples.size());
      if (llvm::Error e = write(*c))
        return e;
      c->release();
    }
    pool = next;
    ++rung;
    reps *= 2;
    for (Candidate *c : pool)
      if (llvm::Error e = measure(*c, reps))
        return e;
  }
  if (pool.empty())
    return llvm::Error::success();
  Candidate &c = *pool.front();
  c.rec.rung = rung;
  if (c.samples.size() < opts.minReps)
    if (llvm::Error e = measure(c, opts.minReps - c.samples.size()))
      return e;
  Decision d = decideInterleaved(c.incSamples, c.samples);
  if (d.verdict == Verdict::Inconclusive) {
    if (llvm::Error e = measure(c, opts.minReps))
      return e;
    d = decideInterleaved(c.incSamples, c.samples);
  }
  c.rec.ratio = d.ratio;
  c.rec.speedup = incumbentSpeedup / d.ratio;
  c.rec.reason = d.reason;
  c.rec.verdict = verdictName(d.verdict);
  if (d.verdict == Verdict::Keep)
    withheldBelowFloor(c);
  if (llvm::Error e = write(c))
    return e;
  if (c.rec.verdict != "keep") {
    c.release();
    return llvm::Error::success();
  }
  promote(c);
  return llvm::Error::success();
}

/// `c` (kept) becomes the incumbent; the previous one's program is
/// freed unless it is the baseline, which the final check needs.
void Tuner::promote(Candidate &c) {
  if (incumbent && incumbent != baseline)
    incumbent->release();
  incumbent = &c;
  if (c.rec.speedup > 0)
    incumbentSpeedup = c.rec.speedup;
}

llvm::Error Tuner::search() {
  // Round 0: the warm start (best pipelines of the nearest past models).
  std::vector<std::pair<Config, bool>> warm;
  if (prior && !prior->empty())
    for (const KnobMap &m : prior->warmStart(features))
      if (auto c = fromKnobs(m))
        warm.push_back({*c, true});
  if (!warm.empty() && !outOfBudget()) {
    info(llvm::formatv("warm start: {0} pipeline(s) of the nearest past "
                       "models",
                       warm.size()));
    if (llvm::Error e = round(rank(warm, warm.size())))
      return e;
  }
  // Then neighbourhoods of the incumbent until a round keeps nothing
  // and every neighbour has been tried, or the budget ends.
  while (!outOfBudget()) {
    auto batch = rank(neighbours(incumbent->cfg), opts.roundSize);
    if (batch.empty())
      break;
    if (llvm::Error e = round(std::move(batch)))
      return e;
  }
  return llvm::Error::success();
}
