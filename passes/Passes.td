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

def FuseConv : Pass<"amk-fuse-conv", "mlir::ModuleOp"> {
  let summary = "Fold BatchNorm into Conv and fuse Add/activation, where the target says it pays";
  let description = [{
    Reads the graph's Conv density (Conv FLOP share and Conv share of all
    ops, from `passes/CostModel.h`) and compares it with the thresholds of
    the target profile (`knowledge/targets/<target>.json`,
    `conv_fusion.max_conv_flop_share` and `max_conv_count_share`). When
    the density is within them, every chain Conv [-> BatchNormalization]
    [-> Add] [-> Relu/Clip/HardSwish/Sigmoid/LeakyRelu] whose links are
    single-use becomes:

    - with `fold-bn`, a Conv whose weights and bias absorb the
      BatchNormalization (W' = W * s, B' = (B - mean) * s + beta with
      s = gamma / sqrt(var + eps), per output channel);
    - with `fuse-epilogue`, an `amk.conv` carrying the residual/bias Add
      as its `Z` operand and the activation as its epilogue.

    When the density exceeds a threshold the graph is left alone. A
    remark states the density, the threshold, the target and the
    decision (`--remarks-filter=amk-fuse-conv`). `density-threshold`
    overrides the profile's FLOP-share threshold (a value in [0, 1];
    negative: use the profile). Profiles are searched in `targets-dir`,
    $AMK_TARGETS_DIR, the source tree's and the installed
    `knowledge/targets`; `target` may also be a path to a .json file.

    Example: `amk-opt m.onnx --pass-pipeline='builtin.module(amk-infer-shapes,
    amk-fuse-conv{target=npu-like})'`
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "Target profile: a name in knowledge/targets or a .json path">,
    Option<"densityThreshold", "density-threshold", "double",
           /*default=*/"-1.0",
           "Fuse only when the Conv FLOP share is at most this (negative: "
           "the profile's threshold)">,
    Option<"targetsDir", "targets-dir", "std::string", /*default=*/"\"\"",
           "Directory searched first for target profiles">,
    Option<"foldBN", "fold-bn", "bool", /*default=*/"true",
           "Fold BatchNormalization into the Conv's weights and bias">,
    Option<"fuseEpilogue", "fuse-epilogue", "bool", /*default=*/"true",
           "Fuse the Add and the activation into an amk.conv">,
  ];
  let statistics = [
    Statistic<"numFoldedBN", "folded-bn", "BatchNormalizations folded">,
    Statistic<"numFused", "fused", "amk.conv ops created">,
  ];
  let dependentDialects = ["amk::fused::AMKDialect"];
}

def FuseGemm : Pass<"amk-fuse-gemm", "mlir::ModuleOp"> {
  let summary = "Fuse MatMul + bias, transposed operands and activations into amk.gemm";
  let description = [{
    Rewrites every MatMul (operands of rank >= 2) and Gemm into `amk.gemm`:

    - an Add that only adds a bias (broadcasting to the product's shape)
      becomes its `C` operand;
    - with `fold-transpose`, a Transpose operand read only by matrix
      products becomes the `perm_a`/`perm_b` of each (the runtime reads
      the operand with permuted strides); Gemm's transA/transB become
      2-D permutations, its alpha/beta/C are kept;
    - with `fuse-activation`, the activation that follows (Relu, Clip,
      LeakyRelu, Sigmoid, HardSwish, Tanh, Gelu, or a decomposed erf,
      tanh or quick Gelu) becomes its epilogue.

    A MatMul of an attention pattern is rewritten like any other: run
    `amk-fuse-attention` first to keep the attention whole. A Gemm or
    MatMul with nothing to fuse is left as it is. Remarks name each fused
    op.
  }];
  let options = [
    Option<"foldTranspose", "fold-transpose", "bool", /*default=*/"true",
           "Fold Transpose operands into the product">,
    Option<"fuseActivation", "fuse-activation", "bool", /*default=*/"true",
           "Fuse the following activation">,
  ];
  let statistics = [
    Statistic<"numFused", "fused", "amk.gemm ops created">,
  ];
  let dependentDialects = ["amk::fused::AMKDialect"];
}

def FuseGelu : Pass<"amk-fuse-gelu", "mlir::ModuleOp"> {
  let summary = "Replace Gelu (op or decomposed: erf, tanh, quick) with amk.gelu";
  let description = [{
    Every onnx.Gelu and every decomposed Gelu in the forms exporters write
    (0.5 x (1 + erf(x / sqrt 2)), the tanh approximation, and the quick
    form x * sigmoid(1.702 x)) whose inner values have no other use
    becomes one `amk.gelu`.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "amk.gelu ops created">,
  ];
  let dependentDialects = ["amk::fused::AMKDialect"];
}

def FuseNorm : Pass<"amk-fuse-norm", "mlir::ModuleOp"> {
  let summary = "Replace LayerNorm and RMSNorm (op or decomposed) with amk.layer_norm";
  let description = [{
    Every onnx.LayerNormalization whose Mean/InvStdDev outputs are unused,
    and every decomposed LayerNorm (ReduceMean, Sub, Pow or Mul,
    ReduceMean, Add eps, Sqrt, Div, optional scale and bias) or RMSNorm
    (the same without the mean) over trailing axes, becomes one
    `amk.layer_norm`.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "amk.layer_norm ops created">,
  ];
  let dependentDialects = ["amk::fused::AMKDialect"];
}

def FuseAttention : Pass<"amk-fuse-attention", "mlir::ModuleOp"> {
  let summary = "Replace scaled-dot-product attention subgraphs with amk.attention";
  let description = [{
    MatMul(Softmax(MatMul(Q, K') * s [+ mask]), V), with the scale as Mul
    or Div by a constant on the scores or on Q, becomes `amk.attention`
    when its inner values have no other use.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "amk.attention ops created">,
  ];
  let dependentDialects = ["amk::fused::AMKDialect"];
}

def FuseBiasSoftmax : Pass<"amk-fuse-bias-softmax", "mlir::ModuleOp"> {
  let summary = "Replace Softmax(X + Bias) with amk.bias_softmax";
  let description = [{
    A Softmax (opset 13 semantics, or the last axis at any opset) of an
    Add whose only use it is becomes `amk.bias_softmax`; the operand of
    the result's shape is X, the other the bias.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "amk.bias_softmax ops created">,
  ];
  let dependentDialects = ["amk::fused::AMKDialect"];
}

def GroupElementwise : Pass<"amk-group-elementwise", "mlir::ModuleOp"> {
  let summary = "Group chains of elementwise ops into amk.fused_elementwise";
  let description = [{
    Elementwise onnx ops (arithmetic, activations, comparisons, Cast,
    Where) joined by single-use edges, with statically shaped results,
    form groups with one result; each group of at least `min-size` ops
    becomes an `amk.fused_elementwise` whose body holds the ops (the
    runtime generates one loop nest per group). Constants the ops read
    are cloned into the body.
  }];
  let options = [
    Option<"minSize", "min-size", "int64_t", /*default=*/"2",
           "Smallest group, in ops, worth fusing">,
  ];
  let statistics = [
    Statistic<"numGroups", "groups", "amk.fused_elementwise ops created">,
    Statistic<"numGrouped", "grouped", "ops moved into groups">,
  ];
  let dependentDialects = ["amk::fused::AMKDialect"];
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

def Calibrate : Pass<"amk-calibrate", "mlir::ModuleOp"> {
  let summary = "Record a calibrated range for every tensor that will be quantized";
  let description = [{
    Runs the graph as it is (after whatever normalization and fusion came
    before, so it calibrates exactly the graph amk-insert-qdq will change)
    on a calibration set with the reference interpreter, streaming
    statistics (min/max, then a histogram of |x| for the histogram
    methods; no tensor is kept), and stores a range [min, max] on every
    tensor amk-insert-qdq will quantize: `amk.ranges` on ops, `amk.range` on
    graph inputs, plus the module attribute `amk.calibration` (method,
    sample count, SHA-like hash of the set, whether it was synthetic, the
    configuration used). The set is a directory of samples (one
    subdirectory per sample holding one .pb/.npy per input, by name or as
    input_<i>) or, only when asked, seeded synthetic inputs. Methods:
    minmax, percentile, entropy (KL, TensorRT-style threshold search on
    2048 bins), mse. A tensor the set never produces, an empty set, an
    input of the wrong shape or type, or a NaN range is an error.

    Example: `amk-calibrate{data-dir=calib method=entropy report=calib.json}`.
  }];
  let options = [
    Option<"config", "config", "std::string", /*default=*/"\"\"",
           "JSON file with quantization options (docs/quantization.md); options given here override it">,
    Option<"activationType", "activation-type", "std::string", /*default=*/"\"\"",
           "uint8 | int8 | int16 (empty: the config's value)">,
    Option<"weightType", "weight-type", "std::string", /*default=*/"\"\"",
           "int8 | uint8 (empty: the config's value)">,
    Option<"perChannel", "per-channel", "std::string", /*default=*/"\"\"",
           "true | false: per-channel weights (empty: the config's value)">,
    Option<"symmetricActivations", "symmetric-activations", "std::string", /*default=*/"\"\"",
           "true | false (empty: the config's value)">,
    ListOption<"quantizedOps", "quantized-ops", "std::string",
               "Ops to quantize, e.g. Conv,Gemm,MatMul (empty: the config's list)">,
    ListOption<"keepFloat", "keep-float", "std::string",
               "Ops (by op or node name) kept in float">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write a JSON report to this path">,
    Option<"method", "method", "std::string", /*default=*/"\"\"",
           "minmax | percentile | entropy | mse (empty: the config's value)">,
    Option<"percentile", "percentile", "std::string", /*default=*/"\"\"",
           "Percentile of |x| kept by the percentile method">,
    Option<"bins", "bins", "std::string", /*default=*/"\"\"",
           "Histogram bins">,
    Option<"dataDir", "data-dir", "std::string", /*default=*/"\"\"",
           "Directory of calibration samples">,
    Option<"synthetic", "synthetic", "std::string", /*default=*/"\"\"",
           "Number of seeded synthetic samples (explicitly instead of data-dir)">,
    Option<"seed", "seed", "std::string", /*default=*/"\"\"",
           "Seed of the synthetic samples">,
    Option<"maxSamples", "max-samples", "std::string", /*default=*/"\"\"",
           "Use at most this many samples of data-dir">
  ];
}

def InsertQDQ : Pass<"amk-insert-qdq", "mlir::ModuleOp"> {
  let summary = "Insert QuantizeLinear/DequantizeLinear pairs from the calibrated ranges";
  let description = [{
    Reads the ranges amk-calibrate stored in the IR (no other source) and
    the configuration it recorded, applies the options given here on top,
    and quantizes: a QuantizeLinear/DequantizeLinear pair on every selected
    activation (uses other than the graph's outputs read the dequantized
    value), weights quantized offline (per channel, symmetric for int8) and
    read through a DequantizeLinear, biases as int32 with scale = input
    scale x weight scale. Op-aware: shape-only ops (Reshape, Transpose,
    Flatten, Squeeze, MaxPool, ...) share their input's scale and zero
    point, a Softmax output gets [0, 1], a ReLU output stays asymmetric.
    A selected tensor without a range is an error (calibrate first with
    the same configuration); so is a type the module's opset cannot
    express (16-bit needs opset 21, per-channel needs 13).

    Sensitivity (`sensitivity-target=DB`): on the first samples of the
    calibration set, measures the graph outputs' SQNR with every node
    quantized, then with each node alone quantized; while the target is
    not met, keeps the most sensitive remaining node in float. The report
    lists each node's SQNR and what was kept, in order, with the SQNR after
    each step.

    Example: `amk-insert-qdq{activation-type=uint8 weight-type=int8}`.
  }];
  let options = [
    Option<"config", "config", "std::string", /*default=*/"\"\"",
           "JSON file with quantization options (docs/quantization.md); options given here override it">,
    Option<"activationType", "activation-type", "std::string", /*default=*/"\"\"",
           "uint8 | int8 | int16 (empty: the config's value)">,
    Option<"weightType", "weight-type", "std::string", /*default=*/"\"\"",
           "int8 | uint8 (empty: the config's value)">,
    Option<"perChannel", "per-channel", "std::string", /*default=*/"\"\"",
           "true | false: per-channel weights (empty: the config's value)">,
    Option<"symmetricActivations", "symmetric-activations", "std::string", /*default=*/"\"\"",
           "true | false (empty: the config's value)">,
    ListOption<"quantizedOps", "quantized-ops", "std::string",
               "Ops to quantize, e.g. Conv,Gemm,MatMul (empty: the config's list)">,
    ListOption<"keepFloat", "keep-float", "std::string",
               "Ops (by op or node name) kept in float">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write a JSON report to this path">,
    Option<"sensitivityTarget", "sensitivity-target", "std::string", /*default=*/"\"\"",
           "SQNR (dB) of the graph outputs to reach by keeping the most sensitive nodes in float (0: off)">,
    Option<"sensitivitySamples", "sensitivity-samples", "std::string", /*default=*/"\"\"",
           "Calibration samples the sensitivity search measures on">
  ];
}

def EmulateQDQ : Pass<"amk-emulate-qdq", "mlir::ModuleOp"> {
  let summary = "Run a QDQ graph on the float kernels, with the QDQ graph's exact values";
  let description = [{
    Makes a QDQ model (amk-insert-qdq's output, or an imported one)
    schedulable by the runtime's float32 kernels without changing a single
    value it computes:
    - a DequantizeLinear or QuantizeLinear whose inputs are all constants
      (the quantized weights and int32 biases) is folded by its reference
      kernel: the consumer reads exactly the dequantized float weights;
    - a QuantizeLinear -> DequantizeLinear pair on an activation, with
      per-tensor scale and zero point, becomes the same arithmetic in
      float32: Div(x, s_q) -> Round (half to even) -> Add(z_q) ->
      Max(q_min) -> Min(q_max) -> Sub(z_dq) -> Mul(s_dq). Every step is
      exact in float32 for 8- and 16-bit integers, so the values equal the
      reference interpreter's QuantizeLinear/DequantizeLinear bit for bit;
      amk-group-elementwise then fuses the chain into one elementwise task.
    What stays (a QuantizeLinear read by something else than a
    DequantizeLinear, per-axis activation scales, float8 types) is left in
    place with a remark, and the scheduler names it. The speed is the float
    model's: integer GEMM/convolution kernels (VNNI) would consume the
    pairs instead.

    Example: `amk-emulate-qdq` after `amk-insert-qdq`, before
    `amk-group-elementwise` and `amk-schedule-megakernel`.
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"1 << 26",
           "Largest constant Q/DQ, in elements, that may be folded">,
  ];
  let statistics = [
    Statistic<"numPairs", "pairs", "Q->DQ pairs rewritten to float arithmetic">,
    Statistic<"numFolded", "folded", "Q/DQ ops of constants folded">,
    Statistic<"numLeft", "left", "Q/DQ ops left in place">,
  ];
}

def ScheduleMegakernel : Pass<"amk-schedule-megakernel", "mlir::ModuleOp"> {
  let summary = "Tile the graph into tasks and schedule them on persistent workers";
  let description = [{
    Turns the graph (onnx and amk ops with static shapes) into one
    `amk_task.program`: every op becomes a runtime kernel cut into tiles;
    tensors get arena offsets from a liveness-based planner (reshapes are
    aliases); constant weights are packed into the kernels' layout
    (transposed Gemm operands become K x N); each tile's dependencies are
    the earlier tiles whose bytes it reads or overwrites, at byte-range
    precision (a consumer tile waits only for the producer tiles it reads);
    a list scheduler assigns tiles to workers by earliest finish time under
    a FLOP/byte cost model; and each cross-worker dependency becomes a
    counter wait, while same-worker ones need none (program order). Waits
    already implied by earlier ones (vector clocks) are dropped. An op the
    runtime has no kernel for is an error naming the node and op.

    Example: `amk-schedule-megakernel{workers=2 tasks-per-worker=2}`.
  }];
  let options = [
    Option<"workers", "workers", "int64_t", /*default=*/"2",
           "Number of workers the program is scheduled for [tune: 2|1]">,
    Option<"tasksPerWorker", "tasks-per-worker", "int64_t", /*default=*/"1",
           "Task granularity: tiles per op per worker, when the op is big "
           "enough [tune: 1|2|4|8]">,
    Option<"minTaskNs", "min-task-ns", "double", /*default=*/"5000",
           "Do not cut an op into tiles cheaper than this (cost model, ns) "
           "[tune: 5000|20000|80000]">,
    Option<"tileRows", "tile-rows", "int64_t", /*default=*/"0",
           "Rows per tile for every kernel (0: the cost model decides) "
           "[tune: 0|16|64|256]">,
    Option<"tileCols", "tile-cols", "int64_t", /*default=*/"0",
           "Columns per tile for GEMM/conv kernels (0: the cost model "
           "decides) [tune: 0|64|128|256]">,
    Option<"convKernel", "conv-kernel", "std::string", /*default=*/"\"auto\"",
           "Kernel for group-1 convolutions: direct (register tiles over "
           "weights packed at compile time), im2col (implicit GEMM on "
           "libxsmm, columns packed per block at run time), or auto (direct "
           "where it applies: float weights, column stride 1 or 2; 1x1 "
           "stride-1 convolutions stay GEMMs unless their output channels "
           "are a multiple of 32) [tune: auto|direct|im2col]">,
    Option<"policy", "policy", "std::string", /*default=*/"\"eft\"",
           "List-scheduling policy: eft (earliest finish time) or "
           "round-robin [tune: eft|round-robin]">,
    Option<"syncNs", "sync-ns", "double", /*default=*/"1000",
           "Modelled cost of a cross-worker counter hand-off (ns)">,
    Option<"peakGflops", "peak-gflops", "double", /*default=*/"200",
           "Modelled GEMM throughput of one worker (GFLOP/s)">,
    Option<"memGbps", "mem-gbps", "double", /*default=*/"20",
           "Modelled memory bandwidth of one worker (GB/s)">
  ];
  let statistics = [
    Statistic<"numTasks", "tasks", "Tasks created">,
    Statistic<"numWaits", "waits", "Counter waits emitted">
  ];
  let dependentDialects = ["amk::task::AMKTaskDialect"];
}

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

#endif // AMK_PASSES_TD
