//===- AMKOps.td - AMK's fused ops --------------------------*- tablegen -*-===//
//
// Part of AMK. The `amk` dialect holds the ops AMK's fusion passes create:
// each is one unit of work the runtime executes as a single task, and each
// has a kernel in the reference interpreter (reference/kernels/Fused.cpp)
// so every fusion is checked against the graph it replaced. Attribute names
// follow the ONNX ops they absorb (Conv's, Gemm's, LayerNormalization's).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMK_OPS_TD
#define AMK_DIALECT_AMK_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def AMK_Dialect : Dialect {
  let name = "amk";
  let cppNamespace = "::amk::fused";
  let summary = "AMK's fused ops: what the graph passes hand to the runtime";
  let description = [{
    Ops produced by AMK's fusion passes (`amk-fuse-conv`, `amk-fuse-gemm`,
    `amk-fuse-gelu`, `amk-fuse-norm`, `amk-fuse-attention`,
    `amk-fuse-bias-softmax`, `amk-group-elementwise`). Optional operands
    are the `none` value of `onnx.NoValue`, as in the onnx dialect. The
    epilogue activation of `amk.conv` and `amk.gemm` is one of `none`,
    `relu`, `clip` (bounds in `activation_alpha`/`activation_beta`),
    `leaky_relu` (slope in `activation_alpha`), `sigmoid`, `hard_swish`,
    `tanh`, `gelu`, `gelu_tanh`, `quick_gelu` (x * sigmoid(alpha x)).
  }];
}

class AMK_Op<string mnemonic, list<Trait> traits = []>
    : Op<AMK_Dialect, mnemonic, traits>;

def AMK_OptTensor : AnyTypeOf<[AnyRankedTensor, NoneType]>;

def AMK_ConvOp : AMK_Op<"conv", [Pure]> {
  let summary = "Convolution with bias, residual add and activation";
  let description = [{
    `Y = act(Conv(X, W, B) + Z)`: ONNX Conv (same attributes) followed by
    an optional addend `Z` of Y's shape (or broadcasting to it) and an
    activation. BatchNormalization is folded into `W` and `B` before
    fusion (`amk-fuse-conv`).
  }];
  let arguments = (ins
    AnyRankedTensor:$X,
    AnyRankedTensor:$W,
    AMK_OptTensor:$B,
    AMK_OptTensor:$Z,
    DefaultValuedOptionalAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
    OptionalAttr<DenseI64ArrayAttr>:$dilations,
    DefaultValuedOptionalAttr<I64Attr, "1">:$group,
    OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
    OptionalAttr<DenseI64ArrayAttr>:$pads,
    OptionalAttr<DenseI64ArrayAttr>:$strides,
    DefaultValuedOptionalAttr<StrAttr, "\"none\"">:$activation,
    DefaultValuedOptionalAttr<F32Attr, "0.0f">:$activation_alpha,
    DefaultValuedOptionalAttr<F32Attr, "0.0f">:$activation_beta
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_QConvOp : AMK_Op<"qconv", [Pure]> {
  let summary = "Integer convolution: quantized input and weights, float "
                "epilogue, quantized or float output";
  let description = [{
    `Y = Q(act(Conv(DQ(X), DQ(W), B) + DQ(Z)))`, where each DQ is ONNX
    DequantizeLinear with the operand's scale and zero point (W's per
    channel along `axis`, the others per tensor) and Q is QuantizeLinear
    with `Y_scale`/`Y_zero_point`; without `Y_scale` the result is the
    float value itself. Conv attributes and the activation are
    `amk.conv`'s. `amk-lower-qdq` builds it from the QDQ pattern around a
    Conv or `amk.conv` and from ONNX QLinearConv; the runtime runs it on
    integer kernels (u8 x s8 summed in int32).
  }];
  let arguments = (ins
    AnyRankedTensor:$X,
    AnyRankedTensor:$X_scale,
    AMK_OptTensor:$X_zero_point,
    AnyRankedTensor:$W,
    AnyRankedTensor:$W_scale,
    AMK_OptTensor:$W_zero_point,
    AMK_OptTensor:$B,
    AMK_OptTensor:$Z,
    AMK_OptTensor:$Z_scale,
    AMK_OptTensor:$Z_zero_point,
    AMK_OptTensor:$Y_scale,
    AMK_OptTensor:$Y_zero_point,
    DefaultValuedOptionalAttr<I64Attr, "0">:$axis,
    DefaultValuedOptionalAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
    OptionalAttr<DenseI64ArrayAttr>:$dilations,
    DefaultValuedOptionalAttr<I64Attr, "1">:$group,
    OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
    OptionalAttr<DenseI64ArrayAttr>:$pads,
    OptionalAttr<DenseI64ArrayAttr>:$strides,
    DefaultValuedOptionalAttr<StrAttr, "\"none\"">:$activation,
    DefaultValuedOptionalAttr<F32Attr, "0.0f">:$activation_alpha,
    DefaultValuedOptionalAttr<F32Attr, "0.0f">:$activation_beta
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_GemmOp : AMK_Op<"gemm", [Pure]> {
  let summary = "Batched matrix product with transposed-operand reads, bias and activation";
  let description = [{
    `Y = act(alpha * (A' x B') + beta * C)` with numpy MatMul semantics
    (broadcast batch dimensions, rank >= 2), where `A'` is A with its axes
    permuted by `perm_a` (a folded Transpose; identity when absent) and
    likewise `B'`. `C` broadcasts to Y's shape. Replaces MatMul + Add,
    MatMul of a Transpose, and Gemm (transA/transB become 2-D perms), each
    optionally followed by an activation.
  }];
  let arguments = (ins
    AnyRankedTensor:$A,
    AnyRankedTensor:$B,
    AMK_OptTensor:$C,
    OptionalAttr<DenseI64ArrayAttr>:$perm_a,
    OptionalAttr<DenseI64ArrayAttr>:$perm_b,
    DefaultValuedOptionalAttr<F32Attr, "1.0f">:$alpha,
    DefaultValuedOptionalAttr<F32Attr, "1.0f">:$beta,
    DefaultValuedOptionalAttr<StrAttr, "\"none\"">:$activation,
    DefaultValuedOptionalAttr<F32Attr, "0.0f">:$activation_alpha,
    DefaultValuedOptionalAttr<F32Attr, "0.0f">:$activation_beta
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_QGemmOp : AMK_Op<"qgemm", [Pure]> {
  let summary = "Integer matrix product: quantized activations and weights, "
                "float epilogue, quantized or float output";
  let description = [{
    `Y = Q(act(alpha * (DQ(A) x DQ(B)') + beta * C))`: `amk.gemm` (same
    attributes) on DequantizeLinear'd operands, A's per tensor, B's per
    tensor or per slice along `axis` of B as stored (before `perm_b`),
    followed by QuantizeLinear with `Y_scale`/`Y_zero_point`; without
    `Y_scale` the result is the float value. `amk-lower-qdq` builds it
    from the QDQ pattern around MatMul, Gemm and `amk.gemm` with a
    constant weight; the runtime runs it on integer kernels.
  }];
  let arguments = (ins
    AnyRankedTensor:$A,
    AnyRankedTensor:$A_scale,
    AMK_OptTensor:$A_zero_point,
    AnyRankedTensor:$B,
    AnyRankedTensor:$B_scale,
    AMK_OptTensor:$B_zero_point,
    AMK_OptTensor:$C,
    AMK_OptTensor:$Y_scale,
    AMK_OptTensor:$Y_zero_point,
    DefaultValuedOptionalAttr<I64Attr, "1">:$axis,
    OptionalAttr<DenseI64ArrayAttr>:$perm_a,
    OptionalAttr<DenseI64ArrayAttr>:$perm_b,
    DefaultValuedOptionalAttr<F32Attr, "1.0f">:$alpha,
    DefaultValuedOptionalAttr<F32Attr, "1.0f">:$beta,
    DefaultValuedOptionalAttr<StrAttr, "\"none\"">:$activation,
    DefaultValuedOptionalAttr<F32Attr, "0.0f">:$activation_alpha,
    DefaultValuedOptionalAttr<F32Attr, "0.0f">:$activation_beta
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_WGemmOp : AMK_Op<"wgemm", [Pure]> {
  let summary = "Weight-only quantized matrix product: float activations, "
                "int8 or int4 weights";
  let description = [{
    `Y = act(alpha * (A x DQ(B)') + beta * C)`: `amk.gemm` (same
    attributes) whose B is the DequantizeLinear of an 8- or 4-bit
    constant. B's scale (and zero point) is per tensor, per slice along
    `axis` of B as stored (before `perm_b`; the output column), or, with
    `block_size` > 0, per block of `block_size` elements along `axis` (the
    reduction axis), as DequantizeLinear-21 and ONNX Runtime's
    MatMulNBits lay it out. A, C and Y are float32: only the weights are
    quantized, and the runtime dequantizes them in the kernel's inner
    loop. C is a constant per column (a bias) or a tensor of Y's shape
    (a residual). `amk-lower-qdq` builds it from a DequantizeLinear of constant
    weights feeding a product whose A is float; `amk-quantize-weights`
    writes that pattern from a float model.

    `activation_bits` 8 (int4 weights only; ONNX Runtime's MatMulNBits
    `accuracy_level` 4): a product of fewer than 6 rows (a decoder's
    token) first quantizes each row of A per block of B to int8
    (symmetric, scale max|A| / 127, rounding half to even), so that the
    runtime sums integer products; 0 keeps A in float.

    `activation_bits` 16 (8-bit weights with one scale per column or
    tensor; ONNX Runtime's MatMulNBits `accuracy_level` 3): a product of
    at least 6 rows (an encoder's tokens, a prompt) first rounds A to
    bfloat16 (to nearest even), so that the runtime multiplies on
    bfloat16 units (AMX) and sums in float; fewer rows keep A in float.
  }];
  let arguments = (ins
    AnyRankedTensor:$A,
    AnyRankedTensor:$B,
    AnyRankedTensor:$B_scale,
    AMK_OptTensor:$B_zero_point,
    AMK_OptTensor:$C,
    DefaultValuedOptionalAttr<I64Attr, "1">:$axis,
    DefaultValuedOptionalAttr<I64Attr, "0">:$block_size,
    OptionalAttr<DenseI64ArrayAttr>:$perm_b,
    DefaultValuedOptionalAttr<F32Attr, "1.0f">:$alpha,
    DefaultValuedOptionalAttr<F32Attr, "1.0f">:$beta,
    DefaultValuedOptionalAttr<StrAttr, "\"none\"">:$activation,
    DefaultValuedOptionalAttr<F32Attr, "0.0f">:$activation_alpha,
    DefaultValuedOptionalAttr<F32Attr, "0.0f">:$activation_beta,
    DefaultValuedOptionalAttr<I64Attr, "0">:$activation_bits
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_QAddOp : AMK_Op<"qadd", [Pure]> {
  let summary = "Quantized Add: QuantizeLinear(act(DequantizeLinear(A) + "
                "DequantizeLinear(B)))";
  let description = [{
    The residual Add of a QDQ network (ONNX Runtime's quantizer writes it
    as DequantizeLinear -> Add -> [Relu ->] QuantizeLinear; its QLinearAdd)
    on the 8-bit tensors themselves: each element is dequantized, the two
    are added in float, `activation` ("none" or "relu") applied, and the
    sum quantized (rounding half to even, saturating), the QDQ graph's
    values exactly. Without Y_scale the float sum is the result (a
    residual Add whose reader is float, such as a LayerNorm). A and B have
    shapes that broadcast (ONNX's multidirectional rule) to Y's; every
    scale and zero point is one value (per tensor). `amk-lower-qdq`
    builds it.
  }];
  let arguments = (ins
    AnyRankedTensor:$A,
    AnyRankedTensor:$A_scale,
    AMK_OptTensor:$A_zero_point,
    AnyRankedTensor:$B,
    AnyRankedTensor:$B_scale,
    AMK_OptTensor:$B_zero_point,
    AMK_OptTensor:$Y_scale,
    AMK_OptTensor:$Y_zero_point,
    DefaultValuedOptionalAttr<StrAttr, "\"none\"">:$activation
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_QMulOp : AMK_Op<"qmul", [Pure]> {
  let summary = "Quantized Mul: QuantizeLinear(act(DequantizeLinear(A) * "
                "DequantizeLinear(B)))";
  let description = [{
    Mul in a QDQ network (a squeeze-and-excitation scale, a gate, ONNX
    Runtime's QLinearMul) on the 8-bit tensors: each element is
    dequantized, the two multiplied in float, `activation` ("none" or
    "relu") applied, and the product quantized (rounding half to even,
    saturating), the QDQ graph's values exactly. Without Y_scale the float
    product is the result. A and B have one 8-bit type and shapes that
    broadcast to Y's; every scale and zero point is one value.
    `amk-lower-qdq` builds it.
  }];
  let arguments = (ins
    AnyRankedTensor:$A,
    AnyRankedTensor:$A_scale,
    AMK_OptTensor:$A_zero_point,
    AnyRankedTensor:$B,
    AnyRankedTensor:$B_scale,
    AMK_OptTensor:$B_zero_point,
    AMK_OptTensor:$Y_scale,
    AMK_OptTensor:$Y_zero_point,
    DefaultValuedOptionalAttr<StrAttr, "\"none\"">:$activation
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_QResizeOp : AMK_Op<"qresize", [Pure]> {
  let summary = "Quantized Resize: QuantizeLinear(Resize(DequantizeLinear(X)))";
  let description = [{
    A linear or cubic Resize in a QDQ network (an FPN's or a decoder's
    upsampling) on the 8-bit tensors: each tap is dequantized, the taps
    weighted and summed in float as the float Resize does, and the result
    quantized (rounding half to even, saturating). roi, scales, sizes and
    the attributes are Resize's, with its defaults (opset 11 and later);
    every scale and zero point is one value. `amk-lower-qdq` builds it; a nearest Resize runs on
    the bytes as an ONNX Resize instead.
  }];
  let arguments = (ins
    AnyRankedTensor:$X,
    AMK_OptTensor:$roi,
    AMK_OptTensor:$scales,
    AMK_OptTensor:$sizes,
    AnyRankedTensor:$X_scale,
    AMK_OptTensor:$X_zero_point,
    AnyRankedTensor:$Y_scale,
    AMK_OptTensor:$Y_zero_point,
    DefaultValuedOptionalAttr<I64Attr, "0">:$antialias,
    OptionalAttr<DenseI64ArrayAttr>:$axes,
    DefaultValuedOptionalAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
    DefaultValuedOptionalAttr<F32Attr, "-0.75f">:$cubic_coeff_a,
    DefaultValuedOptionalAttr<I64Attr, "0">:$exclude_outside,
    DefaultValuedOptionalAttr<F32Attr, "0.0f">:$extrapolation_value,
    DefaultValuedOptionalAttr<StrAttr, "\"stretch\"">:$keep_aspect_ratio_policy,
    DefaultValuedOptionalAttr<StrAttr, "\"nearest\"">:$mode,
    DefaultValuedOptionalAttr<StrAttr, "\"round_prefer_floor\"">:$nearest_mode
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_QAveragePoolOp : AMK_Op<"qaverage_pool", [Pure]> {
  let summary = "Quantized average pooling: QuantizeLinear(AveragePool or "
                "GlobalAveragePool(DequantizeLinear(X)))";
  let description = [{
    Average pooling in a QDQ network (ResNet's global pool before its
    classifier, a DenseNet transition; ONNX Runtime's
    QLinearAveragePool/QLinearGlobalAveragePool) on the 8-bit tensors:
    each element dequantized, the window's sum taken in double (exact for
    any window: the values share a scale) and divided by its count as the
    reference does, the mean quantized (rounding half to even,
    saturating). With kernel_shape the attributes are AveragePool's (1-D or
    2-D); without it the pool is global over a 3-D or 4-D X. Every scale
    and zero point is one value. `amk-lower-qdq` builds it.
  }];
  let arguments = (ins
    AnyRankedTensor:$X,
    AnyRankedTensor:$X_scale,
    AMK_OptTensor:$X_zero_point,
    AnyRankedTensor:$Y_scale,
    AMK_OptTensor:$Y_zero_point,
    DefaultValuedOptionalAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
    DefaultValuedOptionalAttr<I64Attr, "0">:$ceil_mode,
    DefaultValuedOptionalAttr<I64Attr, "0">:$count_include_pad,
    OptionalAttr<DenseI64ArrayAttr>:$dilations,
    OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
    OptionalAttr<DenseI64ArrayAttr>:$pads,
    OptionalAttr<DenseI64ArrayAttr>:$strides
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_QTableOp : AMK_Op<"qtable", [Pure]> {
  let summary = "An 8-bit tensor mapped through a 256-entry table";
  let description = [{
    Y[i] = table[X[i] - lowest(X)]: any function of one 8-bit value, such
    as DequantizeLinear -> (elementwise float ops with constant scalar
    operands) -> QuantizeLinear, tabulated at compile time by the
    reference interpreter (so exactly the QDQ graph's values), or a
    requantization from one scale and zero point to another. X is uint8 or
    int8; table is a constant of 256 values of Y's element type (uint8 or
    int8), indexed from X's lowest value; Y has X's shape. `amk-lower-qdq`
    builds it.
  }];
  let arguments = (ins
    AnyRankedTensor:$X,
    AnyRankedTensor:$table
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_GeluOp : AMK_Op<"gelu", [Pure]> {
  let summary = "Gelu in its erf, tanh or quick (sigmoid) form";
  let description = [{
    `approximate`: `none` (0.5 x (1 + erf(x / sqrt 2))), `tanh`
    (0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))) or `quick`
    (x * sigmoid(alpha x), alpha 1.702 by default).
  }];
  let arguments = (ins
    AnyRankedTensor:$X,
    DefaultValuedOptionalAttr<StrAttr, "\"none\"">:$approximate,
    DefaultValuedOptionalAttr<F32Attr, "1.702f">:$alpha
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_LayerNormOp : AMK_Op<"layer_norm", [Pure]> {
  let summary = "LayerNorm or RMSNorm over the trailing axes";
  let description = [{
    Normalizes over the axes from `axis` on: `(x - mean) / sqrt(var + eps)`
    or, with `rms`, `x / sqrt(mean(x^2) + eps)`; then multiplies by
    `Scale` and adds `B` (each optional, broadcasting to the normalized
    shape).
  }];
  let arguments = (ins
    AnyRankedTensor:$X,
    AMK_OptTensor:$Scale,
    AMK_OptTensor:$B,
    DefaultValuedOptionalAttr<I64Attr, "-1">:$axis,
    DefaultValuedOptionalAttr<F32Attr, "1e-5f">:$epsilon,
    DefaultValuedOptionalAttr<BoolAttr, "false">:$rms
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_AttentionOp : AMK_Op<"attention", [Pure]> {
  let summary = "Scaled-dot-product attention";
  let description = [{
    `Y = softmax(scale * Q x K' + Mask) x V` over the last axis, with
    batch dimensions broadcast as MatMul does. `K'` is K when
    `key_transposed` (K given as [..., D, S]), else K with its last two
    axes swapped. `Mask` is additive and optional.

    Grouped-query attention: K and V may have fewer heads (dimension -3)
    than Q, a divisor `Hkv` of its `H`; query head h then reads key/value
    head `h / (H / Hkv)`.
  }];
  let arguments = (ins
    AnyRankedTensor:$Q,
    AnyRankedTensor:$K,
    AnyRankedTensor:$V,
    AMK_OptTensor:$Mask,
    DefaultValuedOptionalAttr<F32Attr, "1.0f">:$scale,
    DefaultValuedOptionalAttr<BoolAttr, "true">:$key_transposed
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_RopeOp : AMK_Op<"rope", [Pure]> {
  let summary = "Rotary position embedding";
  let description = [{
    Rotates pairs of elements of X's last axis (size D, even) by the
    angles whose cosines and sines `Cos` and `Sin` hold:

    - `interleaved = false` (Llama and the Hugging Face exports,
      `rotate_half`): the pairs are (x[i], x[i + D/2]);
      `Y = X * Cos + concat(-X[..., D/2:], X[..., :D/2]) * Sin`, with Cos
      and Sin broadcasting to X's shape (last axis D).
    - `interleaved = true` (GPT-J and others, pairs (x[2i], x[2i+1])):
      `Y[2i] = X[2i] C[i] - X[2i+1] S[i]`,
      `Y[2i+1] = X[2i] S[i] + X[2i+1] C[i]`, with Cos and Sin
      broadcasting to X's shape whose last axis is D/2.

    Cos and Sin are values, not angles: each model computes them its own
    way (a table gathered at the positions, or cos/sin of positions times
    inverse frequencies), and that stays in the graph.
  }];
  let arguments = (ins
    AnyRankedTensor:$X,
    AnyRankedTensor:$Cos,
    AnyRankedTensor:$Sin,
    DefaultValuedOptionalAttr<BoolAttr, "false">:$interleaved
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_BiasSoftmaxOp : AMK_Op<"bias_softmax", [Pure]> {
  let summary = "Softmax of a sum";
  let description = [{
    `Y = softmax(X + Bias)` along `axis`; Bias broadcasts to X's shape.
  }];
  let arguments = (ins
    AnyRankedTensor:$X,
    AnyRankedTensor:$Bias,
    DefaultValuedOptionalAttr<I64Attr, "-1">:$axis
  );
  let results = (outs AnyRankedTensor:$Y);
  let hasVerifier = 1;
}

def AMK_FusedElementwiseOp
    : AMK_Op<"fused_elementwise", [IsolatedFromAbove, Pure]> {
  let summary = "A group of elementwise onnx ops executed as one task";
  let description = [{
    The body is a single block whose arguments are the group's inputs and
    whose ops are elementwise onnx ops on whole tensors, ending in
    `amk.yield` of the group's result. The runtime generates one loop
    nest for the body; the reference interpreter runs the body's ops.
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs);
  let results = (outs AnyRankedTensor:$Y);
  let regions = (region SizedRegion<1>:$body);
  let hasVerifier = 1;
}

def AMK_YieldOp : AMK_Op<"yield", [Pure, Terminator,
                                  HasParent<"FusedElementwiseOp">]> {
  let summary = "The result of a fused elementwise group";
  let arguments = (ins AnyRankedTensor:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

#endif // AMK_DIALECT_AMK_OPS_TD
