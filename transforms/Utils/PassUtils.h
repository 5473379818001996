//===- PassUtils.h - Helpers shared by AMK passes ---------------*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PASSES_PASSUTILS_H
#define AMK_PASSES_PASSUTILS_H

#include "dialect/ONNX/ONNXDialect.h"
#include "reference/Tensor.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace amk {

/// The value of `v` when it is produced by an onnx.Constant (any value
/// form), as an interpreter tensor; nullopt otherwise.
std::optional<ref::Tensor> getConstantTensor(mlir::Value v);
/// Whether getConstantTensor(v) would find a value, without copying it
/// (a weight's copy only to learn that it is constant costs its size).
bool isReadableConstant(mlir::Value v);
/// Whether `v` is the `none` of an omitted optional operand.
bool isNone(mlir::Value v);

/// An onnx.Constant holding `t`; tensors above `resourceThreshold` bytes
/// become dense_resource blobs, like imported weights.
mlir::Value createConstant(mlir::OpBuilder &b, mlir::Location loc,
                           const ref::Tensor &t,
                           size_t resourceThreshold = 1024);

/// The MLIR type of an interpreter value (ranked tensor or !onnx.seq).
mlir::Type typeOfValue(const ref::RValue &v, mlir::MLIRContext *ctx);

/// The ONNX None value of the block `b` inserts into (created once).
mlir::Value getNoneValue(mlir::OpBuilder &b, mlir::Location loc);

/// Why foldOp did not fold.
enum class FoldResult { Folded, NotConstant, TooLarge, NotFoldable, Failed };

/// Evaluates `op` by its reference kernel when every operand is a constant
/// (or, for Shape and Size, statically shaped) and replaces its results by
/// constants. Inputs and results above `limit` elements are not folded;
/// random ops, ops with regions and generic ops never are. Results whose
/// computed type conflicts with the declared one are not folded either.
FoldResult foldOp(mlir::Operation *op, int64_t limit);

/// Makes each function's result types those of the values it returns, and
/// erases onnx.Constant ops without users.
void updateSignaturesAndErase(mlir::ModuleOp module);

/// The location of an op that replaces `ops`: all their locations, named
/// as the ONNX node `named` and producing the tensor `result` was (so
/// diagnostics name the node and observers see the replaced tensor).
mlir::Location fusedNodeLoc(llvm::ArrayRef<mlir::Operation *> ops,
                            mlir::Operation *named, mlir::Value result);

/// The resource `key` as an elements attribute of `type`, when the context
/// holds that blob with data of the type's size; null otherwise.
mlir::DenseResourceElementsAttr
lookupResourceElements(mlir::RankedTensorType type, llvm::StringRef key);

/// A resource attribute of `type` over `blob`, named `key` (an entry of
/// that name whose data was released is reused; a live one keeps its data
/// and the new blob gets a fresh name).
mlir::DenseResourceElementsAttr setResourceElements(mlir::RankedTensorType type,
                                                    llvm::StringRef key,
                                                    mlir::AsmResourceBlob blob);

/// Frees the data of the resource `attr` names, whoever references it.
void releaseResource(mlir::DenseResourceElementsAttr attr);

/// Frees the data of every dense resource blob (the weights an import or
/// a fold made) that no attribute under `live` references: MLIR keeps a
/// blob for the context's life even when no IR uses it, so a tool whose
/// passes replaced the weights (packed, folded) would hold both sets.
/// A released blob is empty; no IR may read it afterwards, so every module
/// the caller keeps must be in `live`. Returns the bytes freed.
uint64_t releaseUnreferencedBlobs(mlir::MLIRContext *ctx,
                                  llvm::ArrayRef<mlir::Operation *> live);

/// Erases the ops of a replaced match: repeatedly, every op of `ops` that
/// has no use left (in any order); an op still used outside stays.
void eraseOps(llvm::ArrayRef<mlir::Operation *> ops);

/// Emits an optimization remark of `pass` (category: its argument) at
/// `op`; shown with `amk-opt --remarks-filter=<pass> --remark-format=...`.
enum class RemarkKind { Passed, Missed, Analysis };
void emitPassRemark(mlir::Pass *pass, mlir::Operation *op, RemarkKind kind,
                    llvm::StringRef name, const llvm::Twine &message);

/// Counters AMK passes report. Debian's MLIR is built without
/// LLVM_ENABLE_STATS, so mlir::Pass::Statistic keeps nothing there; AMK
/// passes record their counters here too, and `amk-opt
/// --amk-pass-statistics` prints them.
class PassCounters {
public:
  /// Adds `delta` to counter `name` of `pass` (thread-safe).
  static void add(mlir::Pass *pass, llvm::StringRef name, int64_t delta,
                  llvm::StringRef description = "");
  /// Takes the counters recorded for `pass`.
  static std::map<std::string, std::pair<int64_t, std::string>>
  take(mlir::Pass *pass);
};

/// Collects AMK pass counters while a pipeline runs and prints them, in
/// the layout of MLIR's `--mlir-pass-statistics` list report, when the
/// pass manager is destroyed. `amk-opt --mlir-pass-statistics` uses it.
class PassCountersInstrumentation : public mlir::PassInstrumentation {
public:
  explicit PassCountersInstrumentation(llvm::raw_ostream &os) : os(os) {}
  ~PassCountersInstrumentation() override;
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override;
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override {
    runAfterPass(pass, op);
  }

private:
  llvm::raw_ostream &os;
  /// Per pass name, in first-run order: counter -> (value, description).
  std::vector<std::pair<
      std::string, std::map<std::string, std::pair<int64_t, std::string>>>>
      report;
};

/// The value of pass option `o` if the user gave it: parsed from the
/// pipeline text, or set from C++ to something other than its default.
/// Options that only override another source (a config file) use it.
template <typename T, typename P>
std::optional<T>
givenOption(const mlir::detail::PassOptions::Option<T, P> &o) {
  if (o.hasValue() || !o.getDefault().compare(o.getValue()))
    return o.getValue();
  return std::nullopt;
}

} // namespace amk

#endif // AMK_PASSES_PASSUTILS_H
