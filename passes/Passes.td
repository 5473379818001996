//===- Passes.td - AMK graph passes ------------------------*- tablegen -*-===//
//
// Part of AMK. Every pass of AMK is declared here; docs/passes.md is the
// reference, with an example per pass.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PASSES_TD
#define AMK_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrintSummary : Pass<"amk-print-summary", "mlir::ModuleOp"> {
  let summary = "Print a summary of an ONNX model: opsets, I/O, op counts";
  let description = [{
    Prints what a user first wants to know about a model: the opsets it
    imports, its graph inputs and outputs with their shapes and element
    types, how many ops of each type it has (generic ops by domain and op
    type), and its parameter count and bytes. The IR is left untouched, so
    the pass can sit anywhere in a pipeline to show the effect of the
    passes before it.

    Example:

    ```
    amk-opt model.onnx --pass-pipeline='builtin.module(amk-print-summary)' \
        -o /dev/null
    ```
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the summary to ('-': standard output)">,
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Output format: 'text' or 'json'">,
  ];
  let statistics = [
    Statistic<"numOps", "ops", "ONNX ops in the module">,
    Statistic<"numGenericOps", "generic-ops",
              "ops kept as onnx.Generic (no typed op)">,
    Statistic<"numParameters", "parameters",
              "elements in constant tensors">,
  ];
}

#endif // AMK_PASSES_TD
