//===- Passes.td - AMK fusion passes -----------------------*- tablegen -*-===//
//
// Part of AMK. Passes that replace matched `onnx` subgraphs by fused `amk` ops; docs/passes.md is the
// reference, with an example per pass.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_FUSION_PASSES_TD
#define AMK_TRANSFORMS_FUSION_PASSES_TD

include "mlir/Pass/PassBase.td"

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

    Grouped-query attention: when K or V is the key/value heads repeated
    to the query heads (`Reshape(Expand|Tile(Unsqueeze(kv, 2)))` from
    `[B, Hkv, T, D]` to `[B, Hkv * G, T, D]`, as exporters write
    `repeat_kv`), and K possibly transposed after, the attention reads
    `kv` itself with its fewer heads (query head h reads head h / G): no
    copy of the keys and values per step. Only static shapes are matched.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "amk.attention ops created">,
    Statistic<"numGrouped", "grouped", "key/value head repeats folded into "
              "amk.attention (grouped-query attention)">,
  ];
  let dependentDialects = ["amk::fused::AMKDialect"];
}

def FuseRope : Pass<"amk-fuse-rope", "mlir::ModuleOp"> {
  let summary = "Replace rotary position embeddings with amk.rope";
  let description = [{
    The two forms exporters write, with static shapes, become one
    `amk.rope` when their inner values have no other use:

    - rotate_half (Llama, the Hugging Face exports):
      `x * cos + Concat(-x[..., D/2:], x[..., :D/2]) * sin`, the halves
      taken by Slice or by a Split in two, the negation as Neg or a Mul by
      -1, each Mul and the Add in either operand order;
    - interleaved pairs (GPT-J and others): the Reshape that flattens
      `Concat(Unsqueeze(x0 * c - x1 * s), Unsqueeze(x0 * s + x1 * c))` on
      a new last axis, with `x0, x1 = x[..., 0::2], x[..., 1::2]`.

    The tables (`cos`, `sin`) stay as the model computes them: gathered
    at the positions, or cos/sin of an angle computed at run time. In a
    decoder step this turns each layer's five to seven query and key
    tasks (slices, negation, concatenation, multiply-add) into one.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "amk.rope ops created">,
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

#endif // AMK_TRANSFORMS_FUSION_PASSES_TD
