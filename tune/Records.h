//===- Records.h - amk-tune's trial records ---------------------*- C++ -*-===//
//
// Part of AMK. One JSON object per line, one line per trial event (a trial
// is written when it starts and again when it ends, so a crash inside a
// candidate is visible as a start without an end). The store is append
// only; readers skip lines that do not parse and say how many.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TUNE_RECORDS_H
#define AMK_TUNE_RECORDS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace amk::tune {

struct Record {
  std::string run; ///< The tuning run (model, machine, compiler, space).
  unsigned trial = 0;
  /// started | rejected | failed | duplicate | eliminated | keep | revert |
  /// inconclusive | withheld | crashed | baseline; and `chosen`, written
  /// once at the end of a run for the pipeline it printed (not a trial:
  /// latestPerTrial leaves it out).
  std::string verdict;
  std::string reason;
  std::string modelHash; ///< Structural hash of the model (no weights).
  std::string modelName;
  std::string shapes;           ///< The input types.
  std::vector<double> features; ///< Model features (Prior.h).
  std::string pipeline;
  std::map<std::string, std::string> config; ///< Non-default knob values.
  std::string compiler;                      ///< AMK version.
  std::string machine;                       ///< Machine fingerprint.
  std::string calibrationHash;
  unsigned workers = 0;
  std::vector<double> samplesMs;          ///< This candidate's repetitions.
  std::vector<double> incumbentSamplesMs; ///< The incumbent's, interleaved.
  double ratio = 0;        ///< median(candidate) / median(incumbent).
  double speedup = 0;      ///< default median / this median (estimated).
  double maxRelError = -1; ///< Against the float reference.
  double cosine = -1;
  double top1 = -1;
  unsigned rung = 0;
  std::string time; ///< When it was written (UTC, ISO 8601).
};

std::string toJSONLine(const Record &r);
/// Parses one line; fails on malformed JSON or fields of the wrong type.
llvm::Expected<Record> fromJSONLine(llvm::StringRef line);

struct LoadedRecords {
  std::vector<Record> records;
  unsigned badLines = 0;
};

/// Reads a store; a missing file is an empty store.
LoadedRecords loadRecords(llvm::StringRef path);
/// Appends one record (creating the file and its directory) and flushes.
llvm::Error appendRecord(llvm::StringRef path, const Record &r);

/// The last event of each (run, trial): a trial's outcome. `chosen`
/// records are not trial events and are left out.
std::vector<Record> latestPerTrial(const std::vector<Record> &records);

/// A 64-bit hash as records spell it: 16 lowercase hex digits.
std::string hexHash(uint64_t hash);

/// The key records are kept under: a hash of the model's IR as imported,
/// with weight values elided (the same graph with other weights tunes the
/// same).
std::string modelStructuralHash(mlir::ModuleOp module);

/// What a tuned pipeline must match to replace the default pipeline of
/// `amk-compile` (docs/integration.md).
struct ChoiceKey {
  std::string modelHash;
  std::string machine;  ///< amk::rt::machineFingerprint().
  std::string compiler; ///< AMK version.
  std::string precision = "fp32";
  std::string calibrationHash; ///< int8 and mixed only.
  unsigned workers = 0;        ///< 0: any.
};

struct ChoiceLookup {
  std::optional<Record> chosen; ///< The newest matching `chosen` record.
  /// When nothing matched but the store holds runs for this model: why
  /// they do not apply (another machine, compiler, precision...).
  std::string note;
};

ChoiceLookup findChoice(const std::vector<Record> &records,
                        const ChoiceKey &key);

/// The precision a pipeline compiles to: amk-quantize's `precision`
/// option, fp32 when the pipeline has none.
std::string pipelinePrecision(llvm::StringRef pipeline);

/// $XDG_CACHE_HOME/amk/records.jsonl, else ~/.cache/amk/records.jsonl.
std::string defaultRecordsPath();

} // namespace amk::tune

#endif // AMK_TUNE_RECORDS_H
