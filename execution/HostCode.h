//===- HostCode.h - LLVM-dialect host code to machine code ------*- C++ -*-===//
//
// Part of AMK. The two ways the module that amk-lower-to-llvm produces
// becomes machine code: an ORC JIT (amk-run --jit) and an object file
// (amk-translate --amk-emit-object, build systems). Both optimize the LLVM
// IR at O3 for the host CPU (its name and features), so the generated
// elementwise loops are vectorized the same way.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LOWERING_HOSTCODE_H
#define AMK_LOWERING_HOSTCODE_H

#include "runtime/include/amk/runtime.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace amk {

/// A task program compiled in process. Entry points are those of
/// amk-lower-task-to-llvm for `prefix`.
class JitProgram {
public:
  ~JitProgram();
  const amk_rt_program *program() const { return desc; }
  int sessionCreate(const amk_rt_options *options,
                    amk_rt_session **session) const {
    return createFn(options, session);
  }
  /// args: the input pointers, then the output pointers.
  int run(amk_rt_session *session, void **args) const {
    return runPackedFn(session, args);
  }

private:
  friend llvm::Expected<std::unique_ptr<JitProgram>>
  jitCompile(mlir::ModuleOp, llvm::StringRef, const void *, unsigned);
  std::unique_ptr<mlir::ExecutionEngine> engine;
  const amk_rt_program *desc = nullptr;
  int (*createFn)(const amk_rt_options *, amk_rt_session **) = nullptr;
  int (*runPackedFn)(amk_rt_session *, void **) = nullptr;
};

/// JIT-compiles a module in the llvm dialect (after amk-lower-to-llvm).
/// `constants` binds @<prefix>_constants when the lowering declared it
/// external (embed-constants=false); the runtime's entry points are bound
/// to this process's runtime.
llvm::Expected<std::unique_ptr<JitProgram>>
jitCompile(mlir::ModuleOp module, llvm::StringRef prefix,
           const void *constants, unsigned optLevel = 3);

/// Fails, naming the first offending op, unless every op in the module is
/// in the llvm dialect (what amk-lower-to-llvm produces).
mlir::LogicalResult checkLoweredToLLVM(mlir::ModuleOp module);

/// Translates, optimizes and writes a relocatable (PIC) object file for the
/// host. The module must be lowered (checkLoweredToLLVM).
mlir::LogicalResult emitObjectFile(mlir::ModuleOp module,
                                   llvm::raw_pwrite_stream &os,
                                   unsigned optLevel = 3);

} // namespace amk

#endif // AMK_LOWERING_HOSTCODE_H
