//===- Passes.td - amk_task passes -------------------------*- tablegen -*-===//
//
// Part of AMK. Passes on `amk_task` programs; docs/passes.md is the
// reference, with an example per pass.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMKTASK_TRANSFORMS_PASSES_TD
#define AMK_DIALECT_AMKTASK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ValidateTaskProgram : Pass<"amk-validate-task-program", "mlir::ModuleOp"> {
  let summary = "Reject task programs that can deadlock, race or overrun a buffer";
  let description = [{
    Checks every `amk_task.program`: buffers lie inside the arena (or their
    constant), every access lies inside its buffer, each counter is
    signalled by one worker only, every wait can be satisfied (its
    threshold is at most the counter's signals per run) and none waits on
    its own worker's future, the wait graph with program order has no
    cycle, program order is a valid sequential order, and no two tasks
    that touch a common byte (one of them writing) are left unordered
    (vector clocks over program order and waits). Each rejection names the
    tasks, their kernels' nodes and the bytes involved.
  }];
}

#endif // AMK_DIALECT_AMKTASK_TRANSFORMS_PASSES_TD
