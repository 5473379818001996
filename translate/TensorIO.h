//===- TensorIO.h - Tensor files: ONNX TensorProto and NumPy .npy -*- C++
//-*-===//
//
// Part of AMK. Reads and writes single tensors as ONNX TensorProto (`.pb`,
// the format of the ONNX backend test data) or NumPy `.npy` (version 1.0,
// C order, little endian), and makes seeded random inputs. Debian ships no
// C++ .npy library, and the format is a 10-line header, so it is written
// here (docs/dependencies.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSLATE_TENSORIO_H
#define AMK_TRANSLATE_TENSORIO_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace amk {

/// Reads a tensor from `path` (.pb or .npy, chosen by content). The name
/// stored in a .pb file is returned through `name` when given.
llvm::Expected<mlir::ElementsAttr> readTensorFile(llvm::StringRef path,
                                                  mlir::MLIRContext *ctx,
                                                  std::string *name = nullptr);

/// A value read from an ONNX test-data file: a tensor, a sequence of
/// values, or an empty optional.
struct ValueFile {
  enum class Kind { Tensor, Sequence, None };
  Kind kind = Kind::None;
  mlir::ElementsAttr tensor;
  std::vector<ValueFile> items;
};

/// Reads `path` as the ONNX proto that `expected` calls for: a
/// SequenceProto for !onnx.seq, an OptionalProto for !onnx.opt, a
/// TensorProto (or .npy) otherwise.
llvm::Expected<ValueFile> readValueFile(llvm::StringRef path,
                                        mlir::Type expected,
                                        mlir::MLIRContext *ctx);

/// Writes `value` to `path`: .npy when the path ends in ".npy", else a
/// TensorProto named `name`.
llvm::Error writeTensorFile(llvm::StringRef path, mlir::ElementsAttr value,
                            llvm::StringRef name = "");

/// Parses an in-memory .npy file.
llvm::Expected<mlir::ElementsAttr> parseNpy(llvm::StringRef bytes,
                                            mlir::MLIRContext *ctx);
/// Serializes a numeric tensor as .npy.
llvm::Expected<std::string> serializeNpy(mlir::ElementsAttr value);

/// A tensor of `type` (static shape) with values from a generator seeded
/// with `seed`: floats uniform in [-1, 1), integers in [0, 10), bools
/// fair coins. Deterministic across machines.
mlir::ElementsAttr makeRandomTensor(mlir::ShapedType type, uint64_t seed);

/// The file of tensor `i` named `name` in `dir`: `<prefix>_<i>.pb/.npy` when
/// the directory is in the ONNX test-data layout (`<prefix>_0` exists),
/// else `<name>.pb/.npy`, else `<prefix>_<i>`. Empty if there is none.
std::string findTensorFile(llvm::StringRef dir, llvm::StringRef name,
                           llvm::StringRef prefix, unsigned i);

} // namespace amk

#endif // AMK_TRANSLATE_TENSORIO_H
