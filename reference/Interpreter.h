//===- Interpreter.h - Reference interpreter of the onnx dialect -*- C++ -*-===//
//
// Part of AMK. Executes a module of the onnx dialect op by op on the CPU:
// the oracle every other part of AMK is checked against. Kernels follow the
// ONNX specification of the op's version (selected by the module's opset),
// resolve shapes from the actual inputs, and execute If/Loop/Scan regions.
// An observer sees every value an op produces, by its ONNX tensor name.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_REFERENCE_INTERPRETER_H
#define AMK_REFERENCE_INTERPRETER_H

#include "reference/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace amk::ref {

class Interpreter;

/// Why a run stopped.
struct RunFailure {
  enum class Kind {
    /// An op, element type or attribute value without a kernel.
    Unsupported,
    /// The inputs or the model are invalid at run time.
    Error,
  };
  Kind kind = Kind::Error;
  /// "node 'conv1' (Conv): ..." or a message about the inputs.
  std::string message;
};

/// What a kernel sees: the op, its input values in operand order (union
/// slot order for typed ops; `none` for omitted optional inputs), and the
/// outputs to fill in result order.
class KernelContext {
public:
  KernelContext(mlir::Operation *op, llvm::ArrayRef<RValue> inputs,
                Interpreter &interp);

  mlir::Operation *getOp() const { return op; }
  /// The op type ("Conv"; the op_type of onnx.Generic).
  llvm::StringRef opType() const { return type; }
  /// The operator version in force (0 for onnx.Generic).
  int64_t version() const { return since; }
  /// Runs the kernel as of operator version `v`: for fused ops, whose
  /// kernels run the kernels of the ONNX ops they absorb at their latest
  /// semantics.
  void setVersion(int64_t v) { since = v; }

  size_t numInputs() const { return inputs.size(); }
  bool has(unsigned i) const {
    return i < inputs.size() && !inputs[i].isNone();
  }
  const RValue &value(unsigned i) const { return inputs[i]; }
  /// Input `i` as a tensor; the caller checks has(i) for optional ones.
  const Tensor &in(unsigned i) const { return inputs[i].getTensor(); }
  size_t numOutputs() const { return outputs.size(); }
  /// Whether result `i` is used by the model (not a `none` result).
  bool wants(unsigned i) const;
  void set(unsigned i, RValue v) { outputs[i] = std::move(v); }
  llvm::MutableArrayRef<RValue> results() { return outputs; }

  /// Attributes, with the ONNX default when the model does not set them.
  mlir::Attribute attr(llvm::StringRef name) const;
  bool hasAttr(llvm::StringRef name) const { return (bool)attr(name); }
  int64_t getInt(llvm::StringRef name, int64_t dflt) const;
  float getFloat(llvm::StringRef name, float dflt) const;
  std::string getString(llvm::StringRef name, llvm::StringRef dflt) const;
  std::optional<std::vector<int64_t>> getInts(llvm::StringRef name) const;
  std::optional<std::vector<float>> getFloats(llvm::StringRef name) const;
  std::vector<std::string> getStrings(llvm::StringRef name) const;

  /// Stop with "unsupported" (no kernel for this case) or an error.
  mlir::LogicalResult unsupported(const llvm::Twine &why);
  mlir::LogicalResult error(const llvm::Twine &why);

  /// Runs region `r` of the op with `args` bound to its block arguments,
  /// returning the values its onnx.Yield produces.
  mlir::FailureOr<std::vector<RValue>> runRegion(mlir::Region &r,
                                                 llvm::ArrayRef<RValue> args);

  Interpreter &interpreter() { return interp; }

private:
  mlir::Operation *op;
  llvm::ArrayRef<RValue> inputs;
  std::vector<RValue> outputs;
  Interpreter &interp;
  std::string type;
  int64_t since = 0;
  mlir::DictionaryAttr genericAttrs;
  friend class Interpreter;
};

using Kernel = mlir::LogicalResult (*)(KernelContext &);

/// Runs the body of an If, Loop, Scan or SequenceMap for Interpreter::
/// evaluate: the caller's way to execute subgraphs (compiled, for the
/// runtime's segments). On failure `error` says why.
using RegionRunner = std::function<mlir::FailureOr<std::vector<RValue>>(
    mlir::Region &, llvm::ArrayRef<RValue>, std::string &error)>;

/// The kernel table, filled once by the kernels/*.cpp files.
class KernelRegistry {
public:
  static const KernelRegistry &get();
  /// Registers a kernel for a typed op ("Conv") or, with a domain, for a
  /// generic node ("ai.onnx.preview.training", "Adagrad").
  void add(llvm::StringRef opType, Kernel k, llvm::StringRef domain = "");
  Kernel lookup(llvm::StringRef domain, llvm::StringRef opType) const;
  /// Typed ops and generic node types with a kernel, sorted.
  std::vector<std::string> names() const;

private:
  llvm::StringMap<Kernel> kernels;
};

/// Called for every value an op produces: the op, the result index, the
/// result's ONNX tensor name ("" if it has none) and the value.
using Observer = std::function<void(mlir::Operation *, unsigned,
                                    llvm::StringRef, const RValue &)>;

class Interpreter {
public:
  /// Runs function `main_graph` of `module` (or its only function).
  explicit Interpreter(mlir::ModuleOp module);

  /// The graph's inputs and outputs.
  mlir::func::FuncOp getFunction() const { return func; }

  /// Ops without a kernel, as "node 'x' (Op): reason" lines; empty when
  /// everything can run.
  std::vector<std::string> findUnsupported() const;

  /// Runs the graph. On failure, getFailure() says why.
  mlir::FailureOr<std::vector<RValue>> run(llvm::ArrayRef<RValue> inputs);

  void setObserver(Observer obs) { observer = std::move(obs); }
  /// Whether produced values are checked against the IR's static types
  /// (on by default: a mismatch is a kernel bug or a wrong model).
  void setCheckTypes(bool check) { checkTypes = check; }
  const RunFailure &getFailure() const { return lastFailure; }

  /// Evaluates one op without regions on `inputs` (one per operand) and
  /// returns its results, without checking them against the IR's types:
  /// constant folding and shape inference use it so that op semantics live
  /// in one place. Fails when the op has no kernel or the kernel fails.
  static mlir::FailureOr<std::vector<RValue>>
  evaluate(mlir::Operation *op, llvm::ArrayRef<RValue> inputs,
           RunFailure *why = nullptr);
  /// evaluate() for ops with regions too: their bodies run through
  /// `regions`, which sees the enclosing graphs' values itself.
  static mlir::FailureOr<std::vector<RValue>>
  evaluate(mlir::Operation *op, llvm::ArrayRef<RValue> inputs,
           const RegionRunner &regions, RunFailure *why = nullptr);

  /// Executes `block` with `args`; returns its terminator's operands.
  mlir::FailureOr<std::vector<RValue>> runBlock(mlir::Block &block,
                                                llvm::ArrayRef<RValue> args);

private:
  friend class KernelContext;
  mlir::LogicalResult runOp(mlir::Operation *op);
  mlir::LogicalResult checkResult(mlir::Operation *op, unsigned i,
                                  const RValue &v);
  mlir::LogicalResult fail(RunFailure::Kind kind, std::string message);

  mlir::func::FuncOp func;
  llvm::DenseMap<mlir::Value, RValue> env;
  const RegionRunner *regionRunner = nullptr;
  Observer observer;
  bool checkTypes = true;
  RunFailure lastFailure;
};

/// Registration functions of the kernel files.
void registerElementwiseKernels(KernelRegistry &r);
void registerReductionKernels(KernelRegistry &r);
void registerTensorKernels(KernelRegistry &r);
void registerIndexingKernels(KernelRegistry &r);
void registerGeneratorKernels(KernelRegistry &r);
void registerNNKernels(KernelRegistry &r);
void registerConvPoolKernels(KernelRegistry &r);
void registerNormalizationKernels(KernelRegistry &r);
void registerLinalgKernels(KernelRegistry &r);
void registerQuantKernels(KernelRegistry &r);
void registerRecurrentKernels(KernelRegistry &r);
void registerControlKernels(KernelRegistry &r);
void registerMiscKernels(KernelRegistry &r);
void registerSignalKernels(KernelRegistry &r);
void registerStringKernels(KernelRegistry &r);
void registerImageKernels(KernelRegistry &r);
void registerFusedKernels(KernelRegistry &r);

} // namespace amk::ref

#endif // AMK_REFERENCE_INTERPRETER_H
