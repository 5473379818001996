//===- Inputs.h - A graph's inputs and outputs as values and files -*- C++
//-*-===//
//
// Part of AMK. What amk-run, amk-tune and amk-compile's checks feed a
// model and read back: inputs from files (by name or position, or a
// directory in the ONNX test-data layout) or seeded random values, output
// files, and expected outputs.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_EXECUTION_INPUTS_H
#define AMK_EXECUTION_INPUTS_H

#include "reference/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace amk {

/// The graph's name of input `i`, else "input_<i>".
std::string inputName(mlir::func::FuncOp func, unsigned i);
/// The graph's name of output `i`, else "output_<i>".
std::string outputName(mlir::func::FuncOp func, unsigned i);

/// Where each input of a graph comes from: a file given by name or
/// position, a file of `dir`, else a seeded random value.
struct InputOptions {
  /// NAME=FILE, or FILE for the next input in order (.pb or .npy).
  std::vector<std::string> files;
  /// input_<i>.pb/.npy (the ONNX test-data layout) or <name>.pb/.npy.
  std::string dir;
  /// Whether `dir` must hold every input: a held-out set is all files or
  /// all random, never a mix.
  bool dirHoldsAll = false;
  /// Input `i`'s random value is seeded with seed + i.
  uint64_t seed = 0;
  /// NAME=N: the size of the symbolic dimension NAME (its dim_param) of
  /// random inputs; 1 when not given.
  std::vector<std::string> dims;
  /// Whether random inputs may have symbolic dimensions. Without it, an
  /// input without a static shape needs a file of `dir`.
  bool symbolicDims = true;
};

/// The inputs of `func` as `options` says, each checked to exist and to
/// parse as its argument's type.
llvm::Expected<std::vector<ref::RValue>>
prepareInputs(mlir::func::FuncOp func, const InputOptions &options);

/// Writes `value` (a tensor) to `dir`/<name>.<format> (npy or pb), with
/// the characters of `name` that do not belong in a file name replaced.
llvm::Error writeOutputFile(llvm::StringRef dir, llvm::StringRef name,
                            llvm::StringRef format, const ref::RValue &value,
                            mlir::MLIRContext *ctx);

/// The expected outputs of `func` in `dir`: output_<i>.pb/.npy by position
/// when output_0 is there, else <name>.pb/.npy.
llvm::Expected<std::vector<ref::RValue>>
readOutputFiles(mlir::func::FuncOp func, llvm::StringRef dir);

} // namespace amk

#endif // AMK_EXECUTION_INPUTS_H
