//===- ProgramLoader.h - amk_task IR to the runtime's structs ---*- C++ -*-===//
//
// Part of AMK. Builds the runtime's amk_rt_program (runtime/include/amk/
// runtime.h) from an `amk_task.program`, owning every table and the
// constant blob. This is how amk-run executes a program in process; the
// LLVM lowering emits the same tables as constant data.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LOWERING_PROGRAMLOADER_H
#define AMK_LOWERING_PROGRAMLOADER_H

#include "dialect/AMKTask/AMKTaskDialect.h"
#include "runtime/include/amk/runtime.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace amk {

struct LoadedProgram {
  amk_rt_program program{};
  std::vector<amk_rt_buffer> buffers;
  std::vector<uint32_t> kernelBuffers;
  std::vector<int64_t> iparams;
  std::vector<float> fparams;
  std::vector<amk_rt_kernel> kernels;
  std::vector<std::string> kernelNames;
  std::vector<amk_rt_task> tasks;
  std::vector<amk_rt_wait> waits;
  std::vector<uint32_t> counterSignals;
  std::vector<amk_rt_io> inputs, outputs;
  std::vector<std::vector<int64_t>> dims;
  std::vector<std::string> ioNames;
  std::vector<mlir::RankedTensorType> inputTypes, outputTypes;
  std::unique_ptr<uint8_t, void (*)(void *)> constants{nullptr, nullptr};
  /// Set when `constants` is a view of a blob shared with other programs
  /// (loadProgramsSharingConstants): keeps it alive.
  std::shared_ptr<uint8_t> sharedConstants;
  /// Loaded without its weights (program.constants null): the FNV-1a hash
  /// the weights' blob would have, streamed from the attributes.
  uint64_t constantsHash = 0;
};

/// A constant buffer's value at its offset in the program's blob.
struct PlacedConstant {
  uint64_t offset = 0, size = 0;
  mlir::ElementsAttr value;
};

/// The constant buffers of `program` that hold a value.
std::vector<PlacedConstant> placedConstants(task::ProgramOp program);

/// The bytes of a blob of `bytes` bytes, in order, to `sink`: each
/// constant at its offset (overlapping ones, equal constants the scheduler
/// aliased, once), zeros between and after; one tensor in memory at a
/// time. Fails when a value's size differs from its buffer's or it ends
/// past the blob.
llvm::Error
streamConstants(std::vector<PlacedConstant> constants, uint64_t bytes,
                llvm::function_ref<void(const char *, size_t)> sink);

/// Fails with a message when the program cannot be loaded. Without
/// `withConstants` the weights are not copied (program.constants is null,
/// and the program cannot run): for a library, whose weights are written
/// from the program's attributes, the copy would only be hashed.
/// Without `hashConstants` either, the weights are not read at all
/// (constantsHash stays 0): for a caller that sets the blob itself.
std::unique_ptr<LoadedProgram> loadProgram(task::ProgramOp program,
                                           std::string &error,
                                           bool withConstants = true,
                                           bool hashConstants = true);

/// One blob for the weights of several programs (a library's variants,
/// a decoder's prefill and decode step): the first program's constants at
/// their offsets; each constant only a later program holds appended,
/// 64-byte aligned. Equal attributes (uniqued: equal pointers) share an
/// offset.
struct SharedConstantLayout {
  llvm::DenseMap<mlir::Attribute, uint64_t> offsets;
  /// The later programs' buffers whose constant the first lacks, in order.
  llvm::SmallVector<task::BufferOp> appended;
  uint64_t bytes = 0;
};
SharedConstantLayout
sharedConstantLayout(llvm::ArrayRef<task::ProgramOp> programs);

/// Loads `programs` over one blob of weights (sharedConstantLayout; the
/// later programs' buffer offsets are rewritten in the IR, as amk-compile's
/// library variants share one blob; do this before the JIT binds the offsets).
/// The blob is filled one constant at a time; with `rehome`, each resource
/// constant then reads its bytes from the blob and its own copy is freed,
/// so that the weights exist once in memory (the blob lives as long as a
/// program or a resource views it).
llvm::Expected<std::vector<std::unique_ptr<LoadedProgram>>>
loadProgramsSharingConstants(llvm::ArrayRef<task::ProgramOp> programs,
                             bool rehome);

/// A 64-bit FNV-1a hash of everything the program computes with: the
/// weights, every table and the interface (names, dtypes, shapes). The
/// C API (amk/model.h) compares it between a generated header and its
/// library.
uint64_t hashProgram(const LoadedProgram &program);

} // namespace amk

#endif // AMK_LOWERING_PROGRAMLOADER_H
