//===- Generate.cpp - Greedy decoding with one program per phase ----------===//
//
// Part of AMK. amk-run --generate: a prefill program for the prompt, one
// decode program for every step with the KV cache updated in place, and
// the same generation in ONNX Runtime to check and time against.
//
//===----------------------------------------------------------------------===//

#include "execution/Generate.h"

#include "execution/Check.h"
#include "execution/Inputs.h"
#include "pipelines/Pipelines.h"
#include "reference/Interpreter.h"

#include "amk/runtime.h"

#include "dialect/ONNX/ONNXNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstring>
#include <random>

using namespace mlir;
using amk::ref::DataType;
using amk::ref::RValue;
using amk::ref::Tensor;

namespace amk {
namespace {

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The decoder's interface: which input is which, which output holds the
/// logits, and the past input each present output extends.
struct DecoderInterface {
  func::FuncOp func;
  int ids = -1, mask = -1, positions = -1;
  unsigned logits = 0;
  int64_t vocab = 0;
  struct Pair {
    unsigned input, output;
    int64_t heads, headDim;
  };
  std::vector<Pair> pairs;
};

/// `option` names the tool option that asked (its errors say which).
llvm::Expected<DecoderInterface>
readInterface(ModuleOp model, llvm::StringRef option = "--generate") {
  DecoderInterface d;
  d.func = ref::Interpreter(model).getFunction();
  if (!d.func)
    return error("the module has no function @main_graph");
  func::FuncOp f = d.func;
  Operation *ret = f.getBody().front().getTerminator();
  // present_j = Concat(past_i, new, axis 2), returned: the pairs amk-kv-cache
  // rewrites.
  std::vector<bool> isPast(f.getNumArguments());
  for (auto [j, v] : llvm::enumerate(ret->getOperands())) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getName().getStringRef() != "onnx.Concat" ||
        def->getNumOperands() != 2)
      continue;
    auto arg = dyn_cast<BlockArgument>(def->getOperand(0));
    auto t = arg ? dyn_cast<RankedTensorType>(arg.getType()) : nullptr;
    if (!t || t.getRank() != 4 || t.isDynamicDim(1) || t.isDynamicDim(3))
      continue;
    isPast[arg.getArgNumber()] = true;
    d.pairs.push_back(
        {arg.getArgNumber(), (unsigned)j, t.getDimSize(1), t.getDimSize(3)});
  }
  if (d.pairs.empty())
    return error(option +
                 " needs a decoder with past_key_values inputs: no "
                 "output of this model is a Concat of a 4-D input and new "
                 "keys or values (Hugging Face Optimum's interface)");
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    std::string name = inputName(f, i);
    if (isPast[i])
      continue;
    if (name == "input_ids")
      d.ids = i;
    else if (name == "attention_mask")
      d.mask = i;
    else if (name == "position_ids")
      d.positions = i;
    else
      return error(option + " does not know what to feed input '" + name +
                   "' (it feeds input_ids, attention_mask, position_ids and "
                   "past_key_values)");
  }
  if (d.ids < 0)
    return error(option + " needs an input named input_ids");
  for (unsigned j = 0; j < f.getNumResults(); ++j)
    if (outputName(f, j) == "logits")
      d.logits = j;
  auto lt = dyn_cast<RankedTensorType>(f.getResultTypes()[d.logits]);
  if (!lt || lt.getRank() != 3 || lt.isDynamicDim(2))
    return error(option + " needs logits of shape [batch, sequence, vocab] "
                          "with a static vocabulary");
  d.vocab = lt.getDimSize(2);
  return d;
}

Tensor int64Tensor(llvm::ArrayRef<int64_t> shape, int64_t fill = 0) {
  Tensor t(DataType::INT64, shape);
  std::fill_n(reinterpret_cast<int64_t *>(t.raw()), t.numel(), fill);
  return t;
}

Tensor zeros(llvm::ArrayRef<int64_t> shape) {
  Tensor t(DataType::FLOAT, shape);
  std::memset(t.raw(), 0, t.byteSize());
  return t;
}

int64_t *ints(RValue &v) {
  return reinterpret_cast<int64_t *>(v.getTensor().raw());
}

/// The inputs of a step of `s` new tokens after `past` tokens, in the
/// model's order (pasts of `pastSlots` rows, zero).
std::vector<RValue> stepInputs(const DecoderInterface &d, int64_t s,
                               int64_t past, int64_t pastSlots) {
  std::vector<RValue> in(func::FuncOp(d.func).getNumArguments());
  in[d.ids] = RValue(int64Tensor({1, s}));
  if (d.mask >= 0)
    in[d.mask] = RValue(int64Tensor({1, past + s}, 1));
  if (d.positions >= 0) {
    Tensor p = int64Tensor({1, s});
    for (int64_t i = 0; i < s; ++i)
      reinterpret_cast<int64_t *>(p.raw())[i] = past + i;
    in[d.positions] = RValue(p);
  }
  for (const auto &p : d.pairs)
    in[p.input] = RValue(zeros({1, p.heads, pastSlots, p.headDim}));
  return in;
}

int64_t argmax(const float *x, int64_t n) { return amk_rt_argmax_f32(x, n); }

} // namespace

llvm::Expected<GenerateResult> generate(ModuleOp model,
                                        const GenerateOptions &options) {
  auto iface = readInterface(model);
  if (!iface)
    return iface.takeError();
  const DecoderInterface &d = *iface;
  GenerateResult r;
  r.vocab = d.vocab;
  r.prompt = options.prompt;
  if (r.prompt.empty()) {
    std::mt19937_64 rng(options.seed);
    for (unsigned i = 0; i < std::max(1u, options.promptLength); ++i)
      r.prompt.push_back(rng() % d.vocab);
  }
  for (int64_t id : r.prompt)
    if (id < 0 || id >= d.vocab)
      return error(llvm::formatv("prompt token {0} is outside the "
                                 "vocabulary [0, {1})",
                                 id, d.vocab));
  int64_t P = r.prompt.size();
  if (options.steps < 1)
    return error("--generate needs at least one token");
  unsigned T =
      options.maxContext ? options.maxContext : (unsigned)(P + options.steps);
  // The last step writes slot P + steps - 2; the decode program is bound
  // with a past of T - 1 slots, so T >= 2.
  if (T < P + options.steps - 1 || T < 2)
    return error(llvm::formatv("--max-context {0} cannot hold a prompt of "
                               "{1} and {2} generated tokens",
                               T, P, options.steps));
  r.maxContext = T;

  // The prefill: the model as it stands, bound to the prompt.
  // Only the last position's logits are used: amk-last-token-logits
  // slices the LM head's input when the head is a plain product (else the
  // model is compiled as it stands, every row computed).
  ProgramCache::Entry prefill;
  std::vector<RValue> pin = stepInputs(d, P, 0, 0);
  std::string prefillSchedule, decodeSchedule;
  {
    OwningOpRef<ModuleOp> m = model.clone();
    llvm::Expected<std::string> schedule = std::string();
    {
      ScopedDiagnosticHandler quiet(model.getContext(),
                                    [](Diagnostic &) { return success(); });
      schedule =
          prepareForInputs(*m, d.func, pin, options.run,
                           "builtin.module(amk-last-token-logits{output=" +
                               outputName(d.func, d.logits) + "})",
                           prefill.compileSeconds);
    }
    if (!schedule) {
      llvm::consumeError(schedule.takeError());
      prefill = ProgramCache::Entry();
      m = model.clone();
      schedule = prepareForInputs(*m, d.func, pin, options.run, "",
                                  prefill.compileSeconds);
      if (!schedule)
        return schedule.takeError();
    }
    prefillSchedule = *schedule;
    prefill.module = std::move(m);
  }
  std::copy(r.prompt.begin(), r.prompt.end(), ints(pin[d.ids]));

  // The decode step: one token after T - 1 slots, rewritten to write the
  // cache in place at a run-time position.
  ProgramCache::Entry decode;
  {
    std::vector<RValue> shapes = stepInputs(d, 1, T - 1, T - 1);
    OwningOpRef<ModuleOp> m = model.clone();
    auto schedule =
        prepareForInputs(*m, d.func, shapes, options.run,
                         "builtin.module(amk-kv-cache)", decode.compileSeconds);
    if (!schedule)
      return schedule.takeError();
    decodeSchedule = *schedule;
    decode.module = std::move(m);
  }
  // Both programs over one blob of weights, which is then the weights'
  // only copy (docs/decoder.md, "Memory").
  if (llvm::Error e = finishSharingWeights(
          {*prefill.module, *decode.module}, {prefillSchedule, decodeSchedule},
          options.run, {&prefill, &decode}, {model},
          options.releaseModelWeights))
    return std::move(e);
  r.prefillCompileSeconds = prefill.compileSeconds;
  r.decodeCompileSeconds = decode.compileSeconds;
  std::vector<RValue> din = stepInputs(d, 1, T - 1, T);
  Tensor position = int64Tensor({1});
  din.push_back(RValue(position));
  Session &ps = *prefill.session, &ds = *decode.session;
  auto pset = ps.bindInputs(pin);
  if (!pset)
    return pset.takeError();
  auto dset = ds.bindInputs(din);
  if (!dset)
    return dset.takeError();
  for (const auto &p : d.pairs) {
    if (llvm::Error e = ds.aliasOutputToInput(p.output, *dset, p.input))
      return std::move(e);
    r.cacheBytes += din[p.input].getTensor().byteSize();
  }
  r.decodeProgram = statsOf(decode.compiled.program, ds.program());

  for (unsigned run = 0; run < std::max(1u, options.runs); ++run) {
    GenerationTiming timing;
    std::vector<int64_t> tokens;
    std::vector<std::vector<float>> logits;
    auto t = ps.run(*pset);
    if (!t)
      return t.takeError();
    timing.prefillSeconds = *t;
    const Tensor &pl = ps.outputs()[d.logits].getTensor();
    const float *row = reinterpret_cast<const float *>(pl.raw()) +
                       (pl.numel() / d.vocab - 1) * d.vocab;
    logits.emplace_back(row, row + d.vocab);
    tokens.push_back(argmax(row, d.vocab));
    // The prompt's keys and values into slots [0, P), the other slots
    // cleared (a slot the mask hides still enters the softmax sums times
    // 0, which must not be NaN); the mask opens them.
    for (const auto &p : d.pairs) {
      const float *src = reinterpret_cast<const float *>(
          ps.outputs()[p.output].getTensor().raw());
      float *dst = reinterpret_cast<float *>(din[p.input].getTensor().raw());
      std::memset(dst, 0, din[p.input].getTensor().byteSize());
      for (int64_t h = 0; h < p.heads; ++h)
        std::memcpy(dst + h * T * p.headDim, src + h * P * p.headDim,
                    P * p.headDim * sizeof(float));
    }
    if (d.mask >= 0) {
      int64_t *mask = ints(din[d.mask]);
      std::fill_n(mask, T, 0);
      std::fill_n(mask, P, 1);
    }
    for (unsigned step = 1; step < options.steps; ++step) {
      int64_t pos = P + step - 1;
      ints(din[d.ids])[0] = tokens.back();
      if (d.positions >= 0)
        ints(din[d.positions])[0] = pos;
      if (d.mask >= 0)
        ints(din[d.mask])[pos] = 1;
      reinterpret_cast<int64_t *>(position.raw())[0] = pos;
      auto st = ds.run(*dset);
      if (!st)
        return st.takeError();
      timing.stepSeconds.push_back(*st);
      const float *l = reinterpret_cast<const float *>(
          ds.outputs()[d.logits].getTensor().raw());
      logits.emplace_back(l, l + d.vocab);
      tokens.push_back(argmax(l, d.vocab));
    }
    if (run && tokens != r.tokens)
      return error(llvm::formatv("generation {0} gave other tokens than "
                                 "generation 0",
                                 run));
    r.tokens = std::move(tokens);
    r.logits = std::move(logits);
    r.runs.push_back(std::move(timing));
  }
  if (!options.run.tracePath.empty())
    if (llvm::Error e = ds.writeTrace(options.run.tracePath))
      return std::move(e);
  return r;
}

llvm::Expected<DecodeStep> prepareDecodeStep(ModuleOp model, unsigned context,
                                             unsigned sets, uint64_t seed) {
  auto iface = readInterface(model, "--decode-context");
  if (!iface)
    return iface.takeError();
  const DecoderInterface &d = *iface;
  int64_t T = context;
  if (T < 2)
    return error("--decode-context must be at least 2 (one cache slot "
                 "before the token)");
  if (llvm::Error e =
          bindInputShapes(model, d.func, stepInputs(d, 1, T - 1, T - 1)))
    return std::move(e);
  // The step's own inputs, then the one amk-kv-cache appends.
  unsigned modelInputs = func::FuncOp(d.func).getNumArguments();
  std::string err;
  if (failed(runPipeline(model, "builtin.module(amk-kv-cache)", err)))
    return error("the decode step could not be made (amk-kv-cache): " + err);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  DecodeStep out;
  for (const auto &p : d.pairs)
    out.inPlace.push_back({p.output, p.input});
  for (unsigned s = 0; s < std::max(1u, sets); ++s) {
    int64_t pos = 1 + (int64_t)(rng() % (uint64_t)(T - 1));
    std::vector<RValue> in = stepInputs(d, 1, T - 1, T);
    in.resize(modelInputs);
    ints(in[d.ids])[0] = (int64_t)(rng() % (uint64_t)d.vocab);
    if (d.mask >= 0) {
      int64_t *mask = ints(in[d.mask]);
      std::fill_n(mask, T, 0);
      std::fill_n(mask, pos + 1, 1);
    }
    if (d.positions >= 0)
      ints(in[d.positions])[0] = pos;
    for (const auto &p : d.pairs) {
      float *c = reinterpret_cast<float *>(in[p.input].getTensor().raw());
      for (int64_t h = 0; h < p.heads; ++h)
        for (int64_t e = 0; e < pos * p.headDim; ++e)
          c[h * T * p.headDim + e] = normal(rng);
    }
    Tensor position = int64Tensor({1}, pos);
    in.push_back(RValue(position));
    out.inputSets.push_back(std::move(in));
  }
  return out;
}

llvm::Expected<OrtGeneration> generateOnnxRuntime(llvm::StringRef modelPath,
                                                  ModuleOp model,
                                                  const GenerateResult &result,
                                                  int threads, unsigned runs) {
  if (!modelPath.ends_with(".onnx"))
    return error("comparing a generation with ONNX Runtime needs an .onnx "
                 "model");
  auto iface = readInterface(model);
  if (!iface)
    return iface.takeError();
  nlohmann::json req;
  llvm::SmallString<256> abs(modelPath);
  llvm::sys::fs::make_absolute(abs);
  req["model"] = std::string(abs);
  req["threads"] = threads;
  req["runs"] = std::max(1u, runs);
  req["prompt"] = result.prompt;
  req["steps"] = result.tokens.size();
  req["feed"] = result.tokens;
  req["logits"] = outputName(iface->func, iface->logits);
  req["pasts"] = nlohmann::json::array();
  for (const auto &p : iface->pairs)
    req["pasts"].push_back({{"name", inputName(iface->func, p.input)},
                            {"present", outputName(iface->func, p.output)},
                            {"heads", p.heads},
                            {"headDim", p.headDim}});
  llvm::SmallString<256> work;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("amk-ort-generate", work))
    return error("cannot create a directory for ONNX Runtime: " + ec.message());
  auto res = ort::runScript("generate.js", req, work);
  llvm::scope_exit cleanup([&] { llvm::sys::fs::remove_directories(work); });
  if (!res)
    return res.takeError();
  OrtGeneration g;
  g.tokens = (*res)["tokens"].get<std::vector<int64_t>>();
  int64_t vocab = (*res)["vocab"].get<int64_t>();
  auto buf =
      llvm::MemoryBuffer::getFile((*res)["logitsFile"].get<std::string>());
  if (!buf || (*buf)->getBufferSize() != g.tokens.size() * vocab * 4)
    return error("ONNX Runtime's logits file is missing or truncated");
  const float *all = reinterpret_cast<const float *>((*buf)->getBufferStart());
  for (size_t i = 0; i < g.tokens.size(); ++i)
    g.logits.emplace_back(all + i * vocab, all + (i + 1) * vocab);
  for (const auto &run : (*res)["runs"]) {
    GenerationTiming t;
    t.prefillSeconds = run["prefill_s"].get<double>();
    t.stepSeconds = run["step_s"].get<std::vector<double>>();
    g.runs.push_back(std::move(t));
  }
  return g;
}

llvm::Expected<OrtGeneration> generateReference(ModuleOp model,
                                                const GenerateResult &result) {
  auto iface = readInterface(model);
  if (!iface)
    return iface.takeError();
  const DecoderInterface &d = *iface;
  ref::Interpreter interp(model);
  OrtGeneration g;
  int64_t P = result.prompt.size(), past = 0;
  std::vector<RValue> presents;
  for (size_t step = 0; step < result.tokens.size(); ++step) {
    int64_t S = step ? 1 : P;
    std::vector<RValue> in = stepInputs(d, S, past, past);
    if (step)
      ints(in[d.ids])[0] = result.tokens[step - 1];
    else
      std::copy(result.prompt.begin(), result.prompt.end(), ints(in[d.ids]));
    for (const auto &p : d.pairs)
      if (step)
        in[p.input] = presents[p.output];
    auto out = interp.run(in);
    if (failed(out))
      return error("the reference interpreter failed at step " +
                   llvm::Twine(step) + ": " + interp.getFailure().message);
    const Tensor &l = (*out)[d.logits].getTensor();
    if (l.dtype() != DataType::FLOAT || l.numel() != S * d.vocab)
      return error("the reference's logits are not float [1, S, vocab]");
    const float *row =
        reinterpret_cast<const float *>(l.raw()) + (S - 1) * d.vocab;
    g.logits.emplace_back(row, row + d.vocab);
    g.tokens.push_back(argmax(row, d.vocab));
    presents = std::move(*out);
    past += S;
  }
  return g;
}

nlohmann::ordered_json generationJSON(llvm::ArrayRef<GenerationTiming> runs,
                                      size_t promptLength) {
  std::vector<double> steps, prefill;
  nlohmann::ordered_json perRun = nlohmann::ordered_json::array();
  auto ms = [](double s) { return s * 1e3; };
  for (const GenerationTiming &t : runs) {
    steps.insert(steps.end(), t.stepSeconds.begin(), t.stepSeconds.end());
    prefill.push_back(t.prefillSeconds);
    std::vector<double> s = t.stepSeconds;
    std::sort(s.begin(), s.end());
    nlohmann::ordered_json r;
    r["ttft_ms"] = ms(t.prefillSeconds);
    if (!s.empty()) {
      r["per_token_median_ms"] = ms(s[s.size() / 2]);
      r["per_token_p90_ms"] = ms(s[std::min(s.size() - 1, s.size() * 9 / 10)]);
    }
    perRun.push_back(std::move(r));
  }
  std::sort(steps.begin(), steps.end());
  std::sort(prefill.begin(), prefill.end());
  nlohmann::ordered_json j;
  j["runs"] = runs.size();
  j["ttft_ms"] = ms(prefill[prefill.size() / 2]);
  j["prefill_tokens_per_s"] = promptLength / prefill[prefill.size() / 2];
  if (!steps.empty()) {
    double median = steps[steps.size() / 2];
    j["per_token_median_ms"] = ms(median);
    j["per_token_p90_ms"] =
        ms(steps[std::min(steps.size() - 1, steps.size() * 9 / 10)]);
    j["per_token_min_ms"] = ms(steps.front());
    j["tokens_per_s"] = 1.0 / median;
  }
  j["per_run"] = std::move(perRun);
  return j;
}

} // namespace amk
