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

def InferShapes : Pass<"amk-infer-shapes", "mlir::ModuleOp"> {
  let summary = "Infer static shapes and element types; fold shape computations";
  let description = [{
    Refines the result type of every typed ONNX op, in program order, and
    updates function signatures to match:

    1. With `fold-shape-computations`, ops whose inputs are constants (and
       `Shape`/`Size` of a statically shaped tensor) are evaluated by their
       reference kernel and replaced by constants, so a
       `Shape -> Gather -> Concat -> Reshape` chain leaves a `Reshape` with a
       constant shape. Only results of at most `fold-limit` elements are
       folded: the pass folds shape computations, not weights.
    2. Symbolic rules for elementwise and broadcasting ops, Cast, MatMul,
       Gemm, Transpose, Flatten, Reshape, Conv and pooling keep dynamic
       dimensions (a symbolic batch size stays `?`).
    3. Any other op whose data inputs are statically shaped and whose
       shape-determining operands (Reshape's shape, Slice's starts, ...) are
       constants is evaluated on placeholder inputs by its reference kernel:
       the kernels define op semantics, result shapes included, in one place.

    A type the pass infers must agree with the type the IR already carries;
    a conflict is an error at the op, naming the ONNX node. Ops whose result
    shape depends on data (NonZero, Unique, loops) keep their types.

    Example: `amk-opt model.onnx --pass-pipeline='builtin.module(amk-infer-shapes)'`
  }];
  let options = [
    Option<"foldShapeComputations", "fold-shape-computations", "bool",
           /*default=*/"true",
           "Fold ops whose inputs are all constants (shape computations)">,
    Option<"foldLimit", "fold-limit", "int64_t", /*default=*/"65536",
           "Largest constant, in elements, that folding may read or create">,
  ];
  let statistics = [
    Statistic<"numRefined", "refined", "result types refined">,
    Statistic<"numFolded", "folded", "shape computations folded to constants">,
    Statistic<"numUnresolved", "unresolved",
              "results left without a static shape">,
  ];
}

def FoldConstants : Pass<"amk-fold-constants", "mlir::ModuleOp"> {
  let summary = "Evaluate ops whose inputs are all constants";
  let description = [{
    Replaces every typed ONNX op whose operands are all constants by the
    constants its reference kernel computes (the interpreter defines the
    semantics, so folding cannot disagree with execution). Folding repeats
    to a fixed point in one walk, since the ops are visited in program
    order. Constants left without users are erased and function signatures
    follow refined result types.

    Not folded: random ops, Dropout, ops with regions, generic ops, ops
    whose inputs or results exceed `max-elements`, and with `keep-qdq`
    QuantizeLinear/DequantizeLinear (a QDQ graph keeps its quantized
    weights). Remarks (`--remarks-filter=amk-fold-constants`) say what was
    folded and what was too large.

    Example: a Transpose of a constant weight becomes a transposed constant.
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"1 << 22",
           "Largest input or result, in elements, that may be folded">,
    Option<"keepQDQ", "keep-qdq", "bool", /*default=*/"true",
           "Never fold QuantizeLinear/DequantizeLinear">,
  ];
  let statistics = [
    Statistic<"numFolded", "folded", "ops folded to constants">,
    Statistic<"numTooLarge", "too-large",
              "constant ops left alone: above max-elements">,
  ];
}

#endif // AMK_PASSES_TD
