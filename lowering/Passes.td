//===- Passes.td - AMK lowering passes ---------------------*- tablegen -*-===//
//
// Part of AMK. Passes that take the task program to the llvm dialect;
// docs/passes.md is the reference, with an example per pass.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LOWERING_PASSES_TD
#define AMK_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerTaskToLLVM : Pass<"amk-lower-task-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower amk_task.program to LLVM-dialect tables, entry "
                "points and generated elementwise code";
  let description = [{
    Replaces every `amk_task.program @P` (after it passes the task-program
    validator) with what a C program or the JIT links against the runtime
    (`runtime/include/amk/runtime.h`, ABI version 2):

    - the task program as constant data: `@P_desc` (an `amk_rt_program`),
      the buffer, kernel, task, wait and counter tables, the I/O
      descriptors with their names and shapes, and `@P_constants`, the
      64-byte aligned weight blob (pre-packed by the scheduler);
    - entry points: `ptr @P_program()`, `i32 @P_session_create(ptr options,
      ptr session_out)`, `i32 @P_run(ptr session, ptr in0, ..., ptr out0,
      ...)` that binds the caller's buffers and enters `amk_rt_run`, and
      `i32 @P_run_packed(ptr session, ptr args)` (args: an array of the
      same pointers, for JITs);
    - one function per ELEMENTWISE kernel (the fused elementwise groups
      and epilogues), `void @P_ew<k>(ptr y, ptr inputs, i64 begin, i64
      end)`, compiled from the kernel's register program: loads with the
      kernel's broadcast strides and dtype conversions, the ops in
      `arith`/`math`, the transcendental ones rewritten to MLIR's
      polynomial approximations so that LLVM vectorizes the loop. The
      kernel table points at it; the runtime calls it instead of
      interpreting the program.

    The result still holds `scf`, `arith` and `math` ops inside the
    generated functions; the pipeline `amk-lower-to-llvm` runs this pass
    and MLIR's conversions to the llvm dialect, ready for
    `amk-translate --mlir-to-llvmir` or `--amk-emit-object`.

    Example:

    ```
    amk-opt model.onnx --pass-pipeline='builtin.module(amk-graph-opt,
        amk-schedule-megakernel{workers=2}, amk-lower-to-llvm)' -o m.mlirbc
    amk-translate --amk-emit-object m.mlirbc -o model.o
    ```
  }];
  let options = [
    Option<"prefix", "prefix", "std::string", /*default=*/"\"\"",
           "Prefix of every emitted symbol (default: the program's name)">,
    Option<"embedConstants", "embed-constants", "bool", /*default=*/"true",
           "Emit the weights as an initialized global; when false, "
           "@<prefix>_constants is an external declaration the loader "
           "binds (the JIT binds it to the weights it already holds)">,
    Option<"compileElementwise", "compile-elementwise", "bool",
           /*default=*/"true",
           "Generate code for ELEMENTWISE kernels (false: the runtime "
           "interprets their programs)">,
    Option<"approximateMath", "approximate-math", "bool", /*default=*/"true",
           "Rewrite exp/erf/tanh/log in generated code to MLIR's "
           "polynomial approximations (vectorizable) instead of libm calls">,
  ];
  let dependentDialects = [
    "mlir::LLVM::LLVMDialect", "mlir::arith::ArithDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect"
  ];
  let statistics = [
    Statistic<"numPrograms", "programs", "task programs lowered">,
    Statistic<"numElementwise", "elementwise-functions",
              "elementwise kernels compiled to code">,
    Statistic<"numTableBytes", "table-bytes",
              "bytes of task, buffer, wait and parameter tables">,
  ];
}

#endif // AMK_LOWERING_PASSES_TD
