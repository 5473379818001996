//===- AMKTaskOps.td - The task program dialect -------------*- tablegen -*-===//
//
// Part of AMK. `amk_task` is what `amk-schedule-megakernel` produces and
// the runtime executes: buffers placed in an arena, kernels (one per
// scheduled op, with their parameters), tasks (one tile of a kernel on one
// worker, with the counter waits that order it) and counters. It mirrors
// the C structs of runtime/include/amk/runtime.h one to one; integer
// fields index the program's buffers, kernels and counters in order.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMKTASK_OPS_TD
#define AMK_DIALECT_AMKTASK_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/AttrTypeBase.td"
include "dialect/AMKTask/AMKTaskKernelKinds.td"

def AMKTask_Dialect : Dialect {
  let name = "amk_task";
  let cppNamespace = "::amk::task";
  let summary = "AMK's task program: tiles, buffers and counters";
  let description = [{
    A task program is one `amk_task.program` holding, in this order,
    `amk_task.buffer`, `amk_task.kernel` and `amk_task.task` ops. Buffers,
    kernels and tasks are numbered by their position; tasks are stored in
    a valid sequential order and each worker runs its own tasks in that
    order. A task may wait for counters to reach thresholds (counted per
    run) and may signal one counter when it finishes.
    `amk-validate-task-program` checks that a program cannot deadlock or
    race; docs/runtime.md gives the format and the protocol.
  }];
  let useDefaultAttributePrinterParser = 1;
}

/// The kind of an `amk_task.kernel`, spelled as a keyword
/// (`amk_task.kernel gemm {...}`); its values are the runtime's
/// amk_rt_kernel_kind.
def AMKTask_KernelKindAttr
    : EnumAttr<AMKTask_Dialect, AMKTask_KernelKind, "kernel_kind">;

class AMKTask_Op<string mnemonic, list<Trait> traits = []>
    : Op<AMKTask_Dialect, mnemonic, traits>;

def AMKTask_ProgramOp : AMKTask_Op<"program",
    [SingleBlock, NoTerminator, IsolatedFromAbove, Symbol]> {
  let summary = "A task program for `workers` workers";
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    I64Attr:$workers,
    I64Attr:$counters,
    I64Attr:$arena_bytes,
    DenseI64ArrayAttr:$counter_signals,
    OptionalAttr<I64Attr>:$tensor_bytes,
    OptionalAttr<DictionaryAttr>:$stats
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def AMKTask_BufferOp : AMKTask_Op<"buffer", [HasParent<"ProgramOp">]> {
  let summary = "A byte range in the arena, the constants, an input or an output";
  let description = [{
    `kind` is `arena` (at `offset` in the arena), `const` (its bytes are
    `value`), `input` or `output` (the caller's buffer number `index`).
    `type` is the tensor it holds (for inputs and outputs, the interface).
  }];
  let arguments = (ins
    StrAttr:$kind,
    I64Attr:$size,
    DefaultValuedAttr<I64Attr, "0">:$offset,
    DefaultValuedAttr<I64Attr, "0">:$index,
    TypeAttr:$type,
    DefaultValuedAttr<StrAttr, "\"\"">:$name,
    OptionalAttr<ElementsAttr>:$value
  );
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def AMKTask_KernelOp : AMKTask_Op<"kernel", [HasParent<"ProgramOp">]> {
  let summary = "One scheduled op: a kernel kind with its buffers and parameters";
  let description = [{
    `kind` is a runtime kernel kind from the registry
    runtime/include/amk/kernels.def (gemm, dwconv, conv, pool,
    elementwise, softmax, layernorm, attention, copy, gather, nop);
    `buffers` lists buffer numbers in the kernel's slot order (-1 for an
    absent optional operand); `iparams`/`fparams` follow
    runtime/include/amk/kernel_params.h. `name` is the ONNX node.
  }];
  let arguments = (ins
    AMKTask_KernelKindAttr:$kind,
    DefaultValuedAttr<I64Attr, "0">:$variant,
    DenseI64ArrayAttr:$buffers,
    DenseI64ArrayAttr:$iparams,
    DenseF32ArrayAttr:$fparams,
    DefaultValuedAttr<StrAttr, "\"\"">:$name,
    DefaultValuedAttr<StrAttr, "\"\"">:$op
  );
  let assemblyFormat = "custom<KernelKind>($kind) attr-dict";
}

def AMKTask_TaskOp : AMKTask_Op<"task", [HasParent<"ProgramOp">]> {
  let summary = "One tile of one kernel on one worker";
  let description = [{
    Runs rows [tile[0], tile[1]) and columns [tile[2], tile[3]) of kernel
    `kernel` on worker `worker`, after every (counter, threshold) pair in
    `waits` is reached, then adds one to counter `signal` (-1: none).
    `reads` and `writes` list the bytes it touches as
    (buffer, offset, row_bytes, stride, rows) quintuples; the validator
    checks them, the runtime ignores them. `cost` is the scheduler's
    estimate in nanoseconds.
  }];
  let arguments = (ins
    I64Attr:$kernel,
    I64Attr:$worker,
    DenseI64ArrayAttr:$tile,
    DenseI64ArrayAttr:$waits,
    DefaultValuedAttr<I64Attr, "-1">:$signal,
    DenseI64ArrayAttr:$reads,
    DenseI64ArrayAttr:$writes,
    OptionalAttr<F64Attr>:$cost
  );
  let assemblyFormat = "attr-dict";
}

#endif // AMK_DIALECT_AMKTASK_OPS_TD
