//===- Generate.h - Greedy decoding with one program per phase --*- C++ -*-===//
//
// Part of AMK. Token-by-token generation with a decoder exported in
// Hugging Face Optimum's interface (input_ids, attention_mask,
// position_ids, past_key_values.N.* in; logits, present.N.* out): the
// prompt runs as the model stands (a prefill program), then every decode
// step runs one program compiled once for a fixed context, whose KV cache
// is written in place (amk-kv-cache). docs/decoder.md has the design.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_EXECUTION_GENERATE_H
#define AMK_EXECUTION_GENERATE_H

#include "execution/Session.h"

#include <nlohmann/json.hpp>

namespace amk {

struct GenerateOptions {
  /// Tokens to generate: the prefill gives the first, each decode step one
  /// more.
  unsigned steps = 16;
  /// Prompt length when `prompt` is empty (seeded random ids).
  unsigned promptLength = 8;
  std::vector<int64_t> prompt;
  uint64_t seed = 0;
  /// Slots of the KV cache, the most tokens a generation may hold; 0:
  /// the prompt plus the steps.
  unsigned maxContext = 0;
  /// Whole generations run; every one must give the same tokens. Their
  /// times are reported separately (the run-to-run spread).
  unsigned runs = 1;
  /// Engine, pipeline (run after binding the shapes), workers...
  RunOptions run;
  /// Whether the model's weights may be freed as the programs pack them
  /// (finishSharingWeights): the caller then runs no weight of `model`
  /// afterwards (amk-run sets it unless --check-reference, which runs the
  /// model on the interpreter).
  bool releaseModelWeights = false;
};

struct GenerationTiming {
  double prefillSeconds = 0;
  std::vector<double> stepSeconds;
};

struct GenerateResult {
  std::vector<int64_t> prompt, tokens;
  unsigned maxContext = 0;
  int64_t vocab = 0;
  double prefillCompileSeconds = 0, decodeCompileSeconds = 0;
  std::vector<GenerationTiming> runs;
  /// The logits each generated token was chosen from (the last run's).
  std::vector<std::vector<float>> logits;
  ProgramStats decodeProgram;
  /// Bytes of the caches the decode program updates in place.
  uint64_t cacheBytes = 0;
};

/// Greedy generation with `model` (the graph as loaded; left unchanged).
llvm::Expected<GenerateResult> generate(mlir::ModuleOp model,
                                        const GenerateOptions &options);

/// The same generation in ONNX Runtime (scripts/ort/generate.js) fed
/// `result`'s tokens, so every step's logits compare: ORT's argmax per
/// step, its logits and its own timings, in `ortRuns` runs.
struct OrtGeneration {
  std::vector<int64_t> tokens;
  std::vector<std::vector<float>> logits;
  std::vector<GenerationTiming> runs;
};
llvm::Expected<OrtGeneration> generateOnnxRuntime(llvm::StringRef modelPath,
                                                  mlir::ModuleOp model,
                                                  const GenerateResult &result,
                                                  int threads, unsigned runs);

/// The same generation on the reference interpreter, the model as it
/// stands with the past growing step by step, fed `result`'s tokens (no
/// timings).
llvm::Expected<OrtGeneration> generateReference(mlir::ModuleOp model,
                                                const GenerateResult &result);

/// The decode step as `generate` compiles it, for a tool that compiles and
/// measures it itself (amk-tune --decode-context): `model` is rewritten in
/// place, bound to one token after `context` - 1 cache slots and turned by
/// amk-kv-cache into the in-place step (caches of `context` slots, the
/// run-time input cache_position). Returns `sets` seeded input sets of
/// that step, each as a generation feeds it: a token of the vocabulary at
/// a position p in [1, context), attention_mask 1 on slots [0, p],
/// position_ids p, random keys and values in the slots before p and zeros
/// after.
/// `inPlace`: the (output, input) pairs of each cache, which a session
/// binds together (Session::aliasOutputToInput) so that a step writes only
/// the new rows, as in a generation.
struct DecodeStep {
  std::vector<std::vector<ref::RValue>> inputSets;
  std::vector<std::pair<unsigned, unsigned>> inPlace;
};
llvm::Expected<DecodeStep> prepareDecodeStep(mlir::ModuleOp model,
                                             unsigned context, unsigned sets,
                                             uint64_t seed);

/// Latency figures of a set of generations: time to first token, per-token
/// latency (median, p90, min over every decode step), tokens per second of
/// the decode and of the prefill.
nlohmann::ordered_json generationJSON(llvm::ArrayRef<GenerationTiming> runs,
                                      size_t promptLength);

} // namespace amk

#endif // AMK_EXECUTION_GENERATE_H
