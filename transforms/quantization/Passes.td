//===- Passes.td - AMK quantization passes -----------------*- tablegen -*-===//
//
// Part of AMK. Calibration, Q/DQ insertion and the float emulation of Q/DQ pairs; docs/passes.md is the
// reference, with an example per pass.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_QUANTIZATION_PASSES_TD
#define AMK_TRANSFORMS_QUANTIZATION_PASSES_TD

include "mlir/Pass/PassBase.td"

// What amk-calibrate and amk-insert-qdq share. An option overrides the
// config file's value only when given (in the pipeline text, or set from
// C++ to other than its default), so each default here is QuantConfig's.
defvar QuantConfigOptions = [
  Option<"config", "config", "std::string", /*default=*/"\"\"",
         "JSON file with quantization options (docs/quantization.md); "
         "options given here override it">,
  Option<"activationType", "activation-type", "::amk::quant::IntType",
         /*default=*/"::amk::quant::IntType::UInt8",
         "Integer type of the activations (default: the config's)",
         [{::llvm::cl::values(
           clEnumValN(::amk::quant::IntType::UInt8, "uint8", "unsigned 8-bit"),
           clEnumValN(::amk::quant::IntType::Int8, "int8", "signed 8-bit"),
           clEnumValN(::amk::quant::IntType::Int16, "int16", "signed 16-bit"))}]>,
  Option<"weightType", "weight-type", "::amk::quant::IntType",
         /*default=*/"::amk::quant::IntType::Int8",
         "Integer type of the weights (default: the config's)",
         [{::llvm::cl::values(
           clEnumValN(::amk::quant::IntType::Int8, "int8", "signed 8-bit"),
           clEnumValN(::amk::quant::IntType::UInt8, "uint8", "unsigned 8-bit"))}]>,
  Option<"perChannel", "per-channel", "bool", /*default=*/"true",
         "Per-channel weight scales (default: the config's)">,
  Option<"symmetricActivations", "symmetric-activations", "bool",
         /*default=*/"false",
         "Symmetric activation ranges (default: the config's)">,
  ListOption<"quantizedOps", "quantized-ops", "std::string",
             "Ops to quantize, e.g. Conv,Gemm,MatMul (empty: the config's list)">,
  ListOption<"keepFloat", "keep-float", "std::string",
             "Ops (by op or node name) kept in float">,
  Option<"report", "report", "std::string", /*default=*/"\"\"",
         "Write a JSON report to this path">
];

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
  let options = !listconcat(QuantConfigOptions, [
    Option<"method", "method", "::amk::quant::CalibrationMethod",
           /*default=*/"::amk::quant::CalibrationMethod::MinMax",
           "Range estimator (default: the config's)",
           [{::llvm::cl::values(
             clEnumValN(::amk::quant::CalibrationMethod::MinMax, "minmax",
                        "the observed extremes"),
             clEnumValN(::amk::quant::CalibrationMethod::Percentile,
                        "percentile", "a percentile of |x|"),
             clEnumValN(::amk::quant::CalibrationMethod::Entropy, "entropy",
                        "the KL-divergence threshold search"),
             clEnumValN(::amk::quant::CalibrationMethod::MSE, "mse",
                        "the threshold of least squared error"))}]>,
    Option<"percentile", "percentile", "double", /*default=*/"99.999",
           "Percentile of |x| kept by the percentile method">,
    Option<"bins", "bins", "int64_t", /*default=*/"2048",
           "Histogram bins">,
    Option<"dataDir", "data-dir", "std::string", /*default=*/"\"\"",
           "Directory of calibration samples">,
    Option<"synthetic", "synthetic", "int64_t", /*default=*/"0",
           "Number of seeded synthetic samples (explicitly instead of data-dir)">,
    Option<"seed", "seed", "uint64_t", /*default=*/"1",
           "Seed of the synthetic samples">,
    Option<"maxSamples", "max-samples", "int64_t", /*default=*/"0",
           "Use at most this many samples of data-dir (0: all)">
  ]);
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
  let options = !listconcat(QuantConfigOptions, [
    Option<"sensitivityTarget", "sensitivity-target", "double",
           /*default=*/"0",
           "SQNR (dB) of the graph outputs to reach by keeping the most "
           "sensitive nodes in float (0: off)">,
    Option<"sensitivitySamples", "sensitivity-samples", "int64_t",
           /*default=*/"4",
           "Calibration samples the sensitivity search measures on">
  ]);
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
    - a DequantizeLinear of an 8-bit activation that is no pair's (the
      result of an integer kernel) with per-tensor scale and zero point,
      read only by elementwise ops, becomes Cast -> Sub(z) -> Mul(s), the
      same float32 arithmetic, so the consumers' group loads the 8-bit
      tensor itself (no task writing a float copy first).
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
    Statistic<"numLone", "lone", "DequantizeLinear ops read by elementwise ops rewritten to float arithmetic">,
    Statistic<"numLeft", "left", "Q/DQ ops left in place">,
  ];
}

def LowerQDQ : Pass<"amk-lower-qdq", "mlir::ModuleOp"> {
  let summary = "Rewrite the QDQ pattern around convolutions and matrix "
                "products into integer ops";
  let description = [{
    Turns the QDQ form of a quantized convolution into `amk.qconv`, which
    the runtime runs on integer kernels (u8 x s8 summed in int32, VNNI where
    the CPU has it):
    - a Conv or `amk.conv` whose input is a DequantizeLinear of an 8-bit
      tensor (per-tensor constant scale and zero point) and whose weight is
      a DequantizeLinear of an 8-bit constant (per tensor or per output
      channel), with a float or DequantizeLinear-of-constant bias and, for
      `amk.conv`, a residual that is a DequantizeLinear of an 8-bit tensor;
      if its result's only reader is a per-tensor 8-bit QuantizeLinear, that
      quantization is absorbed and the result stays 8-bit, else the result
      is the float value;
    - ONNX QLinearConv (its int32 bias becomes the float bias
      `B * x_scale * w_scale`);
    - MatMul, Gemm (transA 0) and `amk.gemm` (no `perm_a`; `perm_b` absent
      or a transpose) whose input is a per-tensor DequantizeLinear of an
      8-bit tensor and whose weight is a DequantizeLinear of a 2-D 8-bit
      constant, per tensor or per output column, with a bias that is none
      or one float (or DequantizeLinear'd int32) per column: `amk.qgemm`,
      absorbing the QuantizeLinear of its result likewise;
    - ONNX QLinearMatMul with a constant 2-D B;
    - with `weight-only`, MatMul, Gemm and `amk.gemm` whose input is float
      and whose weight is a DequantizeLinear of 2-D 8- or 4-bit constants
      (per tensor, per output column, or DequantizeLinear-21 blocks along
      the reduction axis, as ONNX Runtime's 4-bit weight quantizer writes
      in its QDQ format and `amk-quantize-weights` writes): `amk.wgemm`,
      whose kernel dequantizes the weights in its inner loop (no rounding
      of the activations: the values are the QDQ graph's up to summation
      order);
    - DequantizeLinear(A) + or * DequantizeLinear(B) [-> Relu] [->
      QuantizeLinear], per tensor, A and B of one 8-bit type broadcasting
      to the result: `amk.qadd` / `amk.qmul` on the bytes;
    - DequantizeLinear -> Concat -> QuantizeLinear, per tensor: Concat of
      the bytes, each input whose scale, zero point or type differs from
      the output's requantized by an `amk.qtable`;
    - DequantizeLinear -> a shape op (Reshape, Transpose, Flatten,
      Squeeze, Unsqueeze, Slice, Gather, Expand, Tile, Identity,
      DepthToSpace, SpaceToDepth) or a nearest Resize -> QuantizeLinear:
      the op on the bytes, with an `amk.qtable` where the two sides'
      quantizations differ;
    - DequantizeLinear -> AveragePool or GlobalAveragePool (1-D or 2-D)
      -> QuantizeLinear, per tensor: `amk.qaverage_pool`;
    - DequantizeLinear -> linear or cubic Resize (opset 11 and later, not
      tf_crop_and_resize) -> QuantizeLinear, per tensor: `amk.qresize`;
    - QuantizeLinear of float elementwise ops (constant scalar operands)
      of one per-tensor DequantizeLinear of an 8-bit activation, or of the
      DequantizeLinear itself: an `amk.qtable` of 256 entries tabulated by
      the reference interpreter (a Sigmoid, Swish, HardSwish written out,
      a requantization); a bare pair with one quantization on both sides
      is the bytes themselves;
    - DequantizeLinear -> MaxPool -> QuantizeLinear with the same
      per-tensor scale and zero point on both sides: MaxPool on the 8-bit
      tensor (exact: dequantization is increasing and quantizing a
      dequantized value gives it back).
    The values are those of the QDQ graph up to the summation order of the
    convolution and the rounding of ties in the requantization (one
    quantization step at most, docs/quantization.md). What does not match
    is left as it is; the DequantizeLinear and QuantizeLinear ops that stay
    run on the runtime's QUANTIZE kernel or, after `amk-emulate-qdq`, in
    float.
  }];
  let dependentDialects = ["amk::fused::AMKDialect"];
  let options = [
    Option<"weightOnly", "weight-only", "bool", /*default=*/"true",
           "Rewrite float-input products of quantized constant weights "
           "into amk.wgemm">,
    Option<"activationBits", "activation-bits", "int64_t", /*default=*/"0",
           "amk.wgemm's activation_bits for weights read through a "
           "DequantizeLinear: 8 quantizes a token's activations to int8 "
           "per block of int4 weights (integer products), 16 rounds the "
           "activations of products of 6 rows or more to bfloat16 for int8 "
           "weights scaled per column (bf16 units), 0 keeps them float. "
           "MatMulNBits follows its own accuracy_level (4: 8)">,
  ];
  let statistics = [
    Statistic<"numAdds", "adds",
              "DequantizeLinear -> Add -> [Relu ->] QuantizeLinear rewritten "
              "to amk.qadd">,
    Statistic<"numConvs", "convs", "convolutions rewritten to amk.qconv">,
    Statistic<"numGemms", "gemms", "matrix products rewritten to amk.qgemm">,
    Statistic<"numWeightOnly", "weight-only",
              "matrix products rewritten to amk.wgemm">,
    Statistic<"numQOut", "quantized-outputs",
              "of them with the QuantizeLinear of their result absorbed">,
    Statistic<"numMaxPools", "max-pools",
              "DequantizeLinear -> MaxPool -> QuantizeLinear run on the 8-bit values">,
    Statistic<"numMuls", "muls",
              "DequantizeLinear -> Mul -> [Relu ->] QuantizeLinear rewritten "
              "to amk.qmul">,
    Statistic<"numConcats", "concats",
              "DequantizeLinear -> Concat -> QuantizeLinear run on the 8-bit "
              "values">,
    Statistic<"numMoves", "data-movement",
              "shape ops and nearest Resize between DequantizeLinear and "
              "QuantizeLinear run on the 8-bit values">,
    Statistic<"numAveragePools", "average-pools",
              "DequantizeLinear -> AveragePool or GlobalAveragePool -> "
              "QuantizeLinear rewritten to amk.qaverage_pool">,
    Statistic<"numResizes", "resizes",
              "DequantizeLinear -> linear or cubic Resize -> QuantizeLinear "
              "rewritten to amk.qresize">,
    Statistic<"numTables", "tables",
              "QuantizeLinear of elementwise ops of a DequantizeLinear "
              "rewritten to amk.qtable">,
  ];
}

def QuantizeDynamic : Pass<"amk-quantize-dynamic", "mlir::ModuleOp"> {
  let summary = "Quantize matrix products dynamically: int8 weights now, activations at run time";
  let description = [{
    Dynamic quantization, no calibration data: each MatMul, Gemm (transA
    0) and `amk.gemm` (no `perm_a`) with a 2-D float constant weight gets
    its weight quantized now, int8, symmetric, per output column, and its
    input quantized at run time by a DynamicQuantizeLinear (one per input
    value, shared by its readers), and becomes an `amk.qgemm` reading the
    DynamicQuantizeLinear's run-time scale and zero point, with the
    product's bias, alpha, beta and activation, and a float result. This
    is ONNX Runtime's `quantize_dynamic` (which `amk-lower-qdq` also
    takes from a file), applied by AMK itself. The values are the
    quantized model's, not the float model's: the error is measured by
    the tools' cosine checks (`amk-run --precision dynamic
    --check-reference --min-cosine`). Run it after `amk-graph-opt`, so
    the products have their bias and activation fused.
  }];
  let dependentDialects = ["amk::fused::AMKDialect"];
  let statistics = [
    Statistic<"numProducts", "products", "matrix products quantized dynamically">,
  ];
}

def QuantizeWeights : Pass<"amk-quantize-weights", "mlir::ModuleOp"> {
  let summary = "Weight-only quantization: int8 per column or int4 in "
                "blocks, activations stay float";
  let description = [{
    No calibration data: each MatMul, Gemm (transA 0) and `amk.gemm` (no
    `perm_a`; `perm_b` absent or a transpose) with a float input of rank
    >= 2 and a 2-D float constant weight of at least `min-elements`
    elements gets that weight replaced by a DequantizeLinear of quantized
    constants, in standard ONNX, so the result exports and ONNX Runtime
    runs it:
    - `bits=8`: per output column (DequantizeLinear-13 `axis`) or, with
      `block-size`, per block of that many k along the reduction axis;
    - `bits=4`: int4 in blocks of `block-size` (32 by default) along the
      reduction axis (DequantizeLinear-21 `block_size`), the layout ONNX
      Runtime's 4-bit weight quantizer writes in its QDQ format.
    `symmetric` (the default) stores int8/int4 with no zero point, scale
    max|w| / 127 (or / 7); otherwise uint8/uint4 with a zero point over
    [min(w, 0), max(w, 0)]. `amk-lower-qdq` then turns each product into
    `amk.wgemm`, which the runtime runs with the weights dequantized in
    the kernel's inner loop. The module must be at opset 13 (per-column
    int8) or 21 (blocks, int4); anything lower is an error naming the
    `amk-normalize-opset` to run.
  }];
  let dependentDialects = ["amk::fused::AMKDialect"];
  let options = [
    Option<"bits", "bits", "int64_t", /*default=*/"8",
           "Weight bits: 8 or 4">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"-1",
           "Elements of the reduction axis per scale: 0 for one scale per "
           "column, a power of two >= 16 for blocks; -1: 0 for 8 bits, 32 "
           "for 4 bits">,
    Option<"symmetric", "symmetric", "bool", /*default=*/"true",
           "Signed weights with no zero point (false: unsigned with a zero "
           "point)">,
    Option<"clipSearch", "clip-search", "bool", /*default=*/"true",
           "Unsigned weights: per block, shrink the range [min, max] from "
           "below, above or both, 2% at a time down to 80%, and keep the "
           "scale and zero point with the least squared error (false: the "
           "full range)">,
    Option<"minElements", "min-elements", "int64_t", /*default=*/"0",
           "Leave weights with fewer elements in float">,
  ];
  let statistics = [
    Statistic<"numProducts", "products",
              "matrix products with weights quantized">,
  ];
}

#endif // AMK_TRANSFORMS_QUANTIZATION_PASSES_TD
