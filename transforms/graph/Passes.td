//===- Passes.td - AMK graph passes ------------------------*- tablegen -*-===//
//
// Part of AMK. Passes that analyse and rewrite the `onnx` graph: shape inference, folding,
// opset normalization, fusion-candidate analysis; docs/passes.md is the
// reference, with an example per pass.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_GRAPH_PASSES_TD
#define AMK_TRANSFORMS_GRAPH_PASSES_TD

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
    Option<"format", "format", "::amk::SummaryFormat",
           /*default=*/"::amk::SummaryFormat::Text", "Output format",
           [{::llvm::cl::values(
             clEnumValN(::amk::SummaryFormat::Text, "text", "for people"),
             clEnumValN(::amk::SummaryFormat::JSON, "json", "for tools"))}]>,
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
    2. Symbolic rules, one per op family (elementwise and broadcasting,
       Cast, MatMul/Gemm, Transpose, Flatten, Reshape, Conv and pooling,
       Concat, Slice, Split, Squeeze/Unsqueeze, Gather, Expand, Tile, Pad,
       Resize, reductions, ArgMax, TopK, Range, ConstantOfShape,
       DepthToSpace, and the fused `amk` ops), keep dynamic dimensions as
       integer polynomials over the model's dimension names (ONNX
       `dim_param`s on the graph inputs; unnamed dynamic dimensions get
       anonymous symbols). Small integer tensors (shape arithmetic: Shape,
       Gather, Concat, Cast, Add/Sub/Mul/Div, the Equal/Where guard before
       Expand) are tracked element by element, so a Reshape whose target
       is computed from `Shape` keeps its named dimensions and solves its
       -1 exactly, and an element that is a constant (a static dimension
       read through Shape) becomes a constant. The graph outputs get
       `onnx.dim_params` named after the inputs' dimensions (`seq`, or an
       expression such as `batch*seq`; names the model gave are kept).
    3. Any other op whose data inputs are statically shaped and whose
       shape-determining operands (Reshape's shape, Slice's starts, ...) are
       constants is evaluated on placeholder inputs by its reference kernel:
       the kernels define op semantics, result shapes included, in one place.

    A Reshape whose target is known must fit its input's element count
    (it is refused naming the node, not truncated).
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

def BindShapes : Pass<"amk-bind-shapes", "mlir::ModuleOp"> {
  let summary = "Bind a model's dynamic input dimensions to sizes";
  let description = [{
    Gives every dynamic dimension of the graph inputs a size, then (with
    `infer`) runs amk-infer-shapes so shape computations fold away and
    every value the sizes determine becomes static: the step that turns a
    model exported with dynamic axes into the static program the runtime
    runs.

    Sizes come from two options, which may be combined:
    - `shapes`: whole input shapes by input name, `x=1x3x640x640`; every
      dimension must agree with the ones the model fixes;
    - `dims`: sizes by the model's dimension names (ONNX `dim_param`s),
      `batch=8,seq=128`, applied to every input that names them.

    An input named twice, a dimension bound to two different sizes (by two
    entries, or by a shape and a name), a size that contradicts a static
    dimension, a size that is not positive or overflows, an unknown input
    name, or a shape of the wrong rank is an error naming the input and the
    dimension; nothing is changed then. A dimension name no input has is a
    warning (one set of sizes may serve several models). A dimension
    neither option binds stays dynamic.

    A third option specializes the program on input *values*:
    - `values`: `NAME=V0:V1:...` replaces every use of a small input (at
      most 64 elements, a static shape once bound) by a constant of those
      values, so parameter operands computed by the caller (Resize scales
      or sizes, Slice starts, Pad pads, reduction axes, TopK's k) fold to
      constants. The input stays in the signature and is ignored; the
      program is valid only for those values (amk-run recompiles, through
      its program cache, when they change). A count that does not match the
      input's element count, a value its type cannot hold, or an input that
      is not small is an error.

    Example: `amk-bind-shapes{shapes=x=1x3x224x224 dims=seq=128}`.
  }];
  let options = [
    ListOption<"shapes", "shapes", "std::string",
               "Input shapes by name, NAME=D0xD1x...">,
    ListOption<"dims", "dims", "std::string",
               "Dimension sizes by the model's dimension names, NAME=SIZE">,
    ListOption<"values", "values", "std::string",
               "Values of small inputs by name, NAME=V0:V1:... (the "
               "program is specialized on them)">,
    Option<"infer", "infer", "bool", /*default=*/"true",
           "Run amk-infer-shapes after binding">,
  ];
  let statistics = [
    Statistic<"numBound", "bound", "input dimensions bound to a size">,
  ];
}

def KVCache : Pass<"amk-kv-cache", "mlir::ModuleOp"> {
  let summary = "Turn a decoder's past/present Concat into a write into a "
                "cache at a run-time position";
  let description = [{
    A decoder exported in Hugging Face Optimum's interface takes the keys
    and values of the tokens seen so far as inputs (`past_key_values.N.*`,
    `[batch, heads, past, head_dim]`) and returns them with the new
    token's appended (`present.N.* = Concat(past, new, axis=2)`). Run as
    it stands, every decode step has a new past length, so a static
    program would be recompiled per token, and the Concat copies the whole
    cache each step.

    After amk-bind-shapes has fixed the shapes of a one-token step
    (sequence 1, past `T - 1`, attention mask `T`), this pass makes the
    program serve every step of a context of `T` tokens:
    - each past input that feeds only such a Concat becomes a cache of
      `T` slots (its type gets the Concat's result extent);
    - the Concat becomes `ScatterND(cache, indices, new)`, which writes the
      new rows at slot `cache_position` (a new `tensor<1xi64>` input named
      by `position-input`, appended to the signature) and leaves the other
      slots as they are: an ONNX graph, so the interpreter and ONNX Runtime
      run the result too.

    The caller keeps the cache: it passes slot contents for positions
    below `cache_position`, an attention mask with ones at
    `[0, cache_position]` and zeros elsewhere (the zero slots are masked
    out of the softmax exactly), and `position_ids = cache_position`. When
    the present output's buffer is the cache input's own (amk-run
    `--generate` binds them so), the runtime's ScatterND writes only the
    new rows: nothing else is copied per token.

    The rewrite is exact only for one new token: a causal model computes
    its mask as if the new tokens were the last `S` slots, so `S > 1`
    (a prefill) must run the model as given. A Concat whose appended
    extent is not 1, a past input with other users, shapes that are not
    static, or a graph with no such Concat is an error naming the input.
  }];
  let options = [
    Option<"positionInput", "position-input", "std::string",
           /*default=*/"\"cache_position\"",
           "Name of the added input holding the slot the new token's keys "
           "and values are written to">,
  ];
  let statistics = [
    Statistic<"numCaches", "caches", "past/present pairs turned into "
              "in-place cache writes">,
  ];
}

def LastTokenLogits : Pass<"amk-last-token-logits", "mlir::ModuleOp"> {
  let summary = "Compute a decoder's logits for the last position only";
  let description = [{
    Generation needs the logits of the prompt's last position only, but a
    decoder as exported computes them for every position: its LM head, the
    largest product of a prefill, runs S times for one row used. When the
    output named `output` is a MatMul of `[B, S, D]` activations and a
    constant `[D, V]` head (static shapes: after amk-bind-shapes), the pass
    slices the activations to their last position first, and the output
    becomes `[B, 1, V]` (the function's result type follows).
    `amk-run --generate` runs it on its prefill program. A missing output,
    or one computed otherwise, is an error naming it.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"logits\"",
           "Name of the logits output">,
  ];
}

def SpeculateIf : Pass<"amk-speculate-if", "mlir::ModuleOp"> {
  let summary = "Run both branches of an If and select the result";
  let description = [{
    An `If` whose condition is only known at run time cannot be part of a
    static task program as it stands. When its results are tensors of
    static shape and both branches yield values of exactly those types,
    the pass inlines both branches into the enclosing graph and replaces
    each result by `Where(cond, then_value, else_value)`: both branches
    are computed and the condition selects. ONNX ops have no side effects,
    so the result is the If's. An If with a constant condition is left to
    amk-fold-constants; one whose results are sequences, optionals or
    dynamic, or whose branches yield other types, is left as it is (the
    runtime then refuses it by name). The cost is the untaken branch's
    work, and a kernel that checks its inputs (a Gather index) fails the
    run even in the untaken branch.
  }];
  let options = [
    Option<"maxBranchOps", "max-branch-ops", "int64_t", /*default=*/"10000",
           "Leave an If alone when a branch has more ops than this (the "
           "untaken branch's work would dominate)">,
  ];
  let statistics = [
    Statistic<"numSpeculated", "speculated", "If ops replaced by both "
              "branches and a Where per result">,
  ];
}

def WidenFloat : Pass<"amk-widen-float", "mlir::ModuleOp"> {
  let summary = "Compute float16 and bfloat16 ops in float32";
  let description = [{
    The runtime's arithmetic kernels (products, convolutions,
    normalizations, pooling, Resize, recurrences, reductions, activations)
    compute in float32. An op that computes with float16 or bfloat16
    operands or results gets a `Cast` to float32 on each such operand and
    its result computed in float32, then cast back to its type: the op
    computes in float32 and every value the graph holds keeps its type
    (and its rounding), as ONNX defines float16 ops. Ops that only move or
    select data (Reshape, Transpose, Concat, Slice, Gather, Scatter, Where,
    Pad, Expand, Tile...) and Cast itself handle every type and are left
    alone. `canonicalize` then removes the float16 -> float32 -> float16
    pairs between consecutive widened ops (exact casts only), so a chain
    of float16 ops runs as float32 ops between one cast in and one out;
    each result is still rounded to its type where the graph stores it.

    Example: `amk-opt m.onnx --pass-pipeline='builtin.module(amk-widen-float)'`
  }];
  let statistics = [
    Statistic<"numWidened", "widened", "ops computed in float32">,
  ];
}

def DecomposeOps : Pass<"amk-decompose-ops", "mlir::ModuleOp"> {
  let summary = "Rewrite DFT, STFT, MeanVarianceNormalization and reductions "
                "over non-adjacent axes into ops the runtime runs";
  let description = [{
    Ops without a runtime kernel of their own, rewritten into ops that have
    one, on statically shaped operands and constant parameters:

    - `DFT` (any axis, real or complex input, `dft_length` shorter or
      longer than the signal, `inverse`, `onesided`): the signal axis moved
      next to the real/imaginary axis, cut or zero-padded to the length,
      and one `MatMul` with a constant DFT matrix of
      `[length * c, bins * 2]` (c = 1 real, 2 complex): a dense product
      the GEMM kernels run near the machine's peak, where an O(n log n)
      FFT would run scalar code. Matrices above `max-dft-elements` are
      left alone (the runtime then refuses the op by name).
    - `STFT`: the frames gathered with one `Gather` of constant indices,
      the window multiplied in, then the DFT above over the frame axis.
    - `MeanVarianceNormalization`: `(x - mean) / (sqrt(variance) + 1e-9)`
      with `ReduceMean`, as ONNX's function body.
    - A reduction (`ReduceSum`, `ReduceMean`, `ReduceMax`...) over axes
      that are not adjacent: a `Transpose` that moves the reduced axes
      last, the reduction over those, and a `Reshape` for `keepdims`.
    - 3-D `MaxPool`/`AveragePool`: a 2-D pool over H x W of each depth
      slice, then one over D with a `kd x 1` window (max, sums and the
      padding counts of averages separate by axis).
    - `MaxPool` on 8- or 16-bit integers: through float32 (exact).
    - 2-D `ConvTranspose` (one `Conv` per output phase), `GroupNormalization`,
      `LpNormalization`, integer `Gemm`, `MaxPool`'s `Indices`, `MaxUnpool`
      (docs/passes.md has each rewrite).
    - 3-D `Conv` (video models): the frames each output frame reads
      gathered next to the channels, `[N * OD, C * KD, H, W]`, and one 2-D
      `Conv` with the weights reshaped to `[OC, C/g * KD, KH, KW]`.
    - `GlobalAveragePool`/`GlobalMaxPool` over other than two spatial dims:
      the 2-D op over the spatial dims flattened.
    - A float two-operand `Einsum` that is a batched matrix product:
      Transposes and Reshapes around one `MatMul`.
    - `ConstantOfShape` with a static result: `Expand` of its value (a
      shape computed at run time, or a result too large to fold).
    - `ConvInteger`, `QLinearConv`, `MatMulInteger`, `QLinearMatMul` that
      the int8 kernels cannot take (weights, scales or zero points computed
      from graph inputs; weights outside int8 after their zero point; B not
      2-D; a per-row zero point for A): int32 operands less their zero
      points, and for convolutions zero padding, one strided `Slice` per
      kernel position (at most 256) and one integer `MatMul` over the
      groups; QLinearConv requantized in double and QLinearMatMul in
      float32, as their references compute (bit-exact).
    - Training-mode `BatchNormalization`: normalized by the batch's mean
      and population variance over all axes but the channel, the running
      mean and variance (when used) moved toward them by `momentum`.
    - Training-mode `Dropout` (a constant true training_mode): the
      interpreter's draws for its seed through `RandomUniformLike` in
      double, kept where a draw reaches the ratio, scaled by
      1 / (1 - ratio).

    Runs in `amk-graph-opt` after `amk-infer-shapes`.
  }];
  let options = [
    Option<"maxDftElements", "max-dft-elements", "int64_t",
           /*default=*/"16777216",
           "Largest constant DFT matrix, in elements, a DFT becomes">,
  ];
  let statistics = [
    Statistic<"numDecomposed", "decomposed", "ops rewritten">,
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

def NormalizeOpset : Pass<"amk-normalize-opset", "mlir::ModuleOp"> {
  let summary = "Rewrite a model of any opset (7-21) into one canonical form at the target opset";
  let description = [{
    Converts every default-domain op from the version in force at the
    model's opset to the form of the target opset, and sets the model's
    opset (and, if needed, its IR version):

    - attributes that became inputs and back: Squeeze/Unsqueeze/ReduceSum
      axes (13), the other Reduce ops' axes (18), Split's split (13) and
      num_outputs (18), Slice (10), TopK's k (10), Clip's min/max (11),
      Pad's pads/value (11) and axes (18), Dropout's ratio (12), Upsample's
      scales (9);
    - renamed ops: Upsample becomes Resize from opset 10, Scatter becomes
      ScatterElements from 11 (and back);
    - Resize 10 vs 11+ (asymmetric coordinates, roi), 18 and 19 attributes;
    - Softmax, LogSoftmax and Hardmax before 13 (2-D coercion) vs after
      (one axis): the last axis maps directly, any other axis becomes
      Flatten + Softmax + Reshape (or Transpose pairs when downgrading);
    - BatchNormalization's spatial (9) and training_mode (14), outputs the
      target does not have;
    - Gelu (20) and LayerNormalization (17): with `recompose`, their
      decomposed forms (erf and tanh Gelu; mean/variance LayerNorm) are
      recomposed when the target has the op; the ops are decomposed when
      it does not.

    Ops whose form does not change are kept. An op the target cannot
    express (no such op, a non-constant input that must become an
    attribute, an attribute value the older version lacks) is an error at
    the op, naming the ONNX node; then the module is left as it was. After
    conversion, every op is verified against the target opset's schema.

    Example: `amk-opt m.onnx --pass-pipeline='builtin.module(amk-normalize-opset{target-opset=17})'`
  }];
  let options = [
    Option<"targetOpset", "target-opset", "int64_t", /*default=*/"21",
           "Default-domain opset to convert to (7-21)">,
    Option<"recompose", "recompose", "bool", /*default=*/"true",
           "Recompose decomposed Gelu/LayerNormalization when the target "
           "has the op">,
  ];
  let statistics = [
    Statistic<"numConverted", "converted",
              "ops rewritten to their target-opset form">,
    Statistic<"numRecomposed", "recomposed",
              "Gelu/LayerNormalization recomposed">,
    Statistic<"numDecomposed", "decomposed",
              "Gelu/LayerNormalization decomposed">,
  ];
}

def DetectFusionCandidates
    : Pass<"amk-detect-fusion-candidates", "mlir::ModuleOp"> {
  let summary = "Find the subgraphs worth fusing and profile the graph (JSON report)";
  let description = [{
    An analysis: the IR is left untouched. It finds every instance of the
    patterns AMK's fusion passes rewrite and writes a JSON report with, per
    pattern, its count and the ONNX node names of each instance, and the
    graph's op-class profile (op count and FLOP share of conv, matmul,
    attention, elementwise, normalization, pooling, data movement; see
    `passes/CostModel.h` for the FLOP conventions) with the Conv density
    that `amk-fuse-conv` decides on.

    Patterns: `conv_bn`, `conv_add`, `conv_activation` (Relu, Clip,
    HardSwish, Sigmoid, LeakyRelu; the chain Conv [-> BN] [-> Add] [-> act]
    with single-use links), `matmul_add` (bias that keeps the shape),
    `matmul_transpose` (a MatMul operand produced by a Transpose read only
    by MatMuls), `gemm_activation` (Gemm, MatMul or MatMul+bias followed by
    an activation, decomposed Gelu included), `gelu_erf`, `gelu_tanh`,
    `gelu_quick`, `layer_norm`, `rms_norm` (decomposed forms),
    `attention` (MatMul(Softmax(MatMul(Q, K^T) * s [+ mask]), V)),
    `bias_softmax` (Softmax of an Add), `reshape_transpose_chain` (two or
    more Reshape/Transpose/Squeeze/Unsqueeze/Flatten in a single-use
    chain) and `elementwise_chain` (two or more elementwise ops joined by
    single-use edges, outside every other pattern). Patterns may overlap
    (a Softmax of an Add inside an attention is both); each count is the
    number of fusions of that kind the graph offers.

    Remarks (`--remarks-filter=amk-detect-fusion-candidates`) name each
    instance at its root op.

    Example:

    ```
    amk-opt m.onnx --pass-pipeline='builtin.module(amk-infer-shapes,
        amk-detect-fusion-candidates{report=fusion.json})' -o /dev/null
    ```
  }];
  let options = [
    Option<"report", "report", "std::string", /*default=*/"\"-\"",
           "File to write the JSON report to ('-': standard output)">,
  ];
  let statistics = [
    Statistic<"numCandidates", "candidates",
              "pattern instances found (all patterns)">,
  ];
}

def TestPerturbConstants : Pass<"amk-test-perturb-constants", "mlir::ModuleOp"> {
  let summary = "Testing only: change the first float constant (breaks the model)";
  let description = [{
    Adds `delta` to every element of the first floating-point constant of
    the module. It exists to show that the pass-correctness checks
    (`amk-run --check-pipeline`, `amk-conformance --pipeline`) detect a
    pass that changes a model's outputs; never use it otherwise.
  }];
  let options = [
    Option<"delta", "delta", "double", /*default=*/"0.01",
           "Value added to each element">,
  ];
}

#endif // AMK_TRANSFORMS_GRAPH_PASSES_TD
