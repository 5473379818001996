// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-detect-fusion-candidates)' -o /dev/null | FileCheck %s
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-detect-fusion-candidates{report=%t.json})' | FileCheck %s --check-prefix=IR
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-detect-fusion-candidates{report=/dev/null})' --remarks-filter=amk-detect-fusion-candidates --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: not amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-detect-fusion-candidates{report=/nonexistent/dir/r.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADPATH

// BADPATH: error: amk-detect-fusion-candidates: cannot write the report

// The report (printed, or written with report=) does not name the
// function, so its checks start at its "patterns" key; the remarks name
// it. The analysis leaves the IR alone (IR).

// Conv chains. Positive: HardSwish, Sigmoid, LeakyRelu, Clip (constant
// bounds) after a Conv; Conv + BatchNorm (inference, constant parameters)
// + residual Add + Relu. Negative: a Conv whose output has a second use
// (nothing fuses past it), a BatchNorm with a non-constant mean, a Clip
// with a non-constant bound.

// IR-LABEL: func.func @conv_chains(
// IR: "onnx.HardSwish"
// REMARK: Function=conv_chains | Remark="conv_bn: c5 + bn5"
// REMARK: Function=conv_chains | Remark="conv_activation: c1 + hs1"
// REMARK: Function=conv_chains | Remark="conv_activation: c5 + bn5 + add5 + relu5"

// CHECK-LABEL: "patterns":
// CHECK:      "conv_bn": {
// CHECK-NEXT:   "count": 1,
// CHECK-NEXT:   "instances": [
// CHECK-NEXT:     [
// CHECK-NEXT:       "c5",
// CHECK-NEXT:       "bn5"
// CHECK:      "conv_add": {
// CHECK-NEXT:   "count": 1,
// CHECK:          "c5",
// CHECK-NEXT:     "bn5",
// CHECK-NEXT:     "add5"
// CHECK:      "conv_activation": {
// CHECK-NEXT:   "count": 5,
// CHECK:          "c1",
// CHECK-NEXT:     "hs1"
// CHECK:          "c2",
// CHECK-NEXT:     "sig2"
// CHECK:          "c3",
// CHECK-NEXT:     "lrelu3"
// CHECK:          "c4",
// CHECK-NEXT:     "clip4"
// CHECK:          "c5",
// CHECK-NEXT:     "bn5",
// CHECK-NEXT:     "add5",
// CHECK-NEXT:     "relu5"
// CHECK:      "matmul_add": {
// CHECK-NEXT:   "count": 0,
// CHECK:      "profile": {
// CHECK-NEXT:   "ops": 18,
// CHECK:        "conv": {
// CHECK-NEXT:     "count": 8,
// Each Conv: 2 * (1*4*8*8 outputs) * (3*3*3 taps) = 13824 FLOPs, plus
// 256 for the bias of c1..c5 and c8: 8 * 13824 + 6 * 256.
// CHECK-NEXT:     "flops": 112128,
// CHECK:      "conv_density": {
// CHECK-NEXT:   "count": 8,

#c1 = loc(fused<#onnx.node<"c1", ["y1"]>>["t.onnx":0:0])
#hs1 = loc(fused<#onnx.node<"hs1", ["z1"]>>["t.onnx":0:0])
#c2 = loc(fused<#onnx.node<"c2", ["y2"]>>["t.onnx":0:0])
#sig2 = loc(fused<#onnx.node<"sig2", ["z2"]>>["t.onnx":0:0])
#c3 = loc(fused<#onnx.node<"c3", ["y3"]>>["t.onnx":0:0])
#lrelu3 = loc(fused<#onnx.node<"lrelu3", ["z3"]>>["t.onnx":0:0])
#c4 = loc(fused<#onnx.node<"c4", ["y4"]>>["t.onnx":0:0])
#clip4 = loc(fused<#onnx.node<"clip4", ["z4"]>>["t.onnx":0:0])
#c5 = loc(fused<#onnx.node<"c5", ["y5"]>>["t.onnx":0:0])
#bn5 = loc(fused<#onnx.node<"bn5", ["b5"]>>["t.onnx":0:0])
#add5 = loc(fused<#onnx.node<"add5", ["a5"]>>["t.onnx":0:0])
#relu5 = loc(fused<#onnx.node<"relu5", ["z5"]>>["t.onnx":0:0])
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @conv_chains(%x: tensor<1x3x8x8xf32>, %r: tensor<1x4x8x8xf32>, %mean: tensor<4xf32>, %hi: tensor<f32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
    %none = "onnx.NoValue"() : () -> none
    %w = "onnx.Constant"() <{value = dense<0.1> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
    %b = "onnx.Constant"() <{value = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
    %s = "onnx.Constant"() <{value = dense<2.0> : tensor<4xf32>}> : () -> tensor<4xf32>
    %lo = "onnx.Constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %six = "onnx.Constant"() <{value = dense<6.0> : tensor<f32>}> : () -> tensor<f32>
    %y1 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc(#c1)
    %z1 = "onnx.HardSwish"(%y1) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc(#hs1)
    %y2 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc(#c2)
    %z2 = "onnx.Sigmoid"(%y2) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc(#sig2)
    %y3 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc(#c3)
    %z3 = "onnx.LeakyRelu"(%y3) <{alpha = 0.2 : f32}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc(#lrelu3)
    %y4 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc(#c4)
    %z4 = "onnx.Clip"(%y4, %lo, %six) : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4x8x8xf32> loc(#clip4)
    %y5 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc(#c5)
    %b5:5 = "onnx.BatchNormalization"(%y5, %s, %b, %b, %s) : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x8x8xf32>, none, none, none, none) loc(#bn5)
    %a5 = "onnx.Add"(%b5#0, %r) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc(#add5)
    %z5 = "onnx.Relu"(%a5) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc(#relu5)
    // Negative: y6 has two uses.
    %y6 = "onnx.Conv"(%x, %w, %none) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
    %z6 = "onnx.Relu"(%y6) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    // Negative: the BatchNorm's mean is not a constant.
    %y7 = "onnx.Conv"(%x, %w, %none) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
    %b7:5 = "onnx.BatchNormalization"(%y7, %s, %b, %mean, %s) : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x8x8xf32>, none, none, none, none)
    // Negative: Clip's upper bound is not a constant.
    %y8 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    %z8 = "onnx.Clip"(%y8, %lo, %hi) : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4x8x8xf32>
    return %z1, %z2, %z3, %z4, %z5, %y6, %z6, %b7#0, %z8 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
  }
}

// -----

// Transformer patterns: RMSNorm, tanh and quick Gelu, MatMul + Transpose,
// Gemm + Relu, MatMul + bias + tanh-Gelu, bias + Softmax, an elementwise
// chain. Negative: a MatMul + Add whose addend broadcasts the product to a
// larger shape; a Softmax of an Add that has another use.

// IR-LABEL: func.func @transformer_patterns(
// IR: "onnx.Softmax"
// REMARK: Function=transformer_patterns | Remark="rms_norm: onnx.Pow + onnx.ReduceMean + onnx.Add + onnx.Sqrt + onnx.Div + onnx.Mul"

// CHECK-LABEL: "patterns":
// CHECK:      "matmul_add": {
// CHECK-NEXT:   "count": 1,
// CHECK:      "matmul_transpose": {
// CHECK-NEXT:   "count": 1,
// CHECK:      "gemm_activation": {
// CHECK-NEXT:   "count": 2,
// CHECK:      "gelu_erf": {
// CHECK-NEXT:   "count": 0,
// CHECK:      "gelu_tanh": {
// CHECK-NEXT:   "count": 1,
// CHECK:      "gelu_quick": {
// CHECK-NEXT:   "count": 1,
// CHECK:      "layer_norm": {
// CHECK-NEXT:   "count": 0,
// CHECK:      "rms_norm": {
// CHECK-NEXT:   "count": 1,
// CHECK:      "attention": {
// CHECK-NEXT:   "count": 0,
// CHECK:      "bias_softmax": {
// CHECK-NEXT:   "count": 1,
// CHECK:      "reshape_transpose_chain": {
// CHECK-NEXT:   "count": 0,
// CHECK:      "elementwise_chain": {
// CHECK-NEXT:   "count": 1,
// CHECK-NEXT:   "instances": [
// CHECK-NEXT:     [
// CHECK-NEXT:       "onnx.Exp",
// CHECK-NEXT:       "onnx.Neg",
// CHECK-NEXT:       "onnx.Abs"
// CHECK-NEXT:     ]
// CHECK:        "matmul": {
// CHECK-NEXT:     "count": 4,
// Four 4x8x8 products (2*4*8*8 each) and the Gemm's bias (4*8).
// CHECK-NEXT:     "flops": 2080,
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @transformer_patterns(%x: tensor<4x8xf32>, %t: tensor<8x4xf32>, %w: tensor<8x8xf32>, %m: tensor<4x8xf32>, %big: tensor<2x4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
    %none = "onnx.NoValue"() : () -> none
    %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    %eps = "onnx.Constant"() <{value = dense<1.0e-6> : tensor<f32>}> : () -> tensor<f32>
    %g = "onnx.Constant"() <{value = dense<1.5> : tensor<8xf32>}> : () -> tensor<8xf32>
    %ax = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
    // RMSNorm: x / sqrt(mean(x^2) + eps) * g
    %sq = "onnx.Pow"(%x, %two) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %ms = "onnx.ReduceMean"(%sq, %ax) : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    %ae = "onnx.Add"(%ms, %eps) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
    %rt = "onnx.Sqrt"(%ae) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %nrm = "onnx.Div"(%x, %rt) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %rms = "onnx.Mul"(%nrm, %g) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    // Quick Gelu: x * sigmoid(1.702 x)
    %k = "onnx.Constant"() <{value = dense<1.702> : tensor<f32>}> : () -> tensor<f32>
    %kx = "onnx.Mul"(%x, %k) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %sg = "onnx.Sigmoid"(%kx) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %qg = "onnx.Mul"(%x, %sg) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    // MatMul of a transposed operand.
    %tt = "onnx.Transpose"(%t) <{perm = array<i64: 1, 0>}> : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %mt = "onnx.MatMul"(%tt, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    // Gemm + Relu
    %gm = "onnx.Gemm"(%x, %w, %g) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %gr = "onnx.Relu"(%gm) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    // MatMul + bias, then tanh Gelu:
    // 0.5 * y * (1 + tanh(sqrt(2/pi) * (y + 0.044715 * y^3)))
    %mm = "onnx.MatMul"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %y = "onnx.Add"(%mm, %g) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %three = "onnx.Constant"() <{value = dense<3.0> : tensor<f32>}> : () -> tensor<f32>
    %c0 = "onnx.Constant"() <{value = dense<0.044715> : tensor<f32>}> : () -> tensor<f32>
    %c1 = "onnx.Constant"() <{value = dense<0.7978845608> : tensor<f32>}> : () -> tensor<f32>
    %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %y3 = "onnx.Pow"(%y, %three) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %cy3 = "onnx.Mul"(%y3, %c0) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %in = "onnx.Add"(%y, %cy3) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %sc = "onnx.Mul"(%in, %c1) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %th = "onnx.Tanh"(%sc) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %op = "onnx.Add"(%th, %one) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %hy = "onnx.Mul"(%y, %half) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %tg = "onnx.Mul"(%hy, %op) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    // Negative: the addend makes the result larger than the product.
    %mb = "onnx.MatMul"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %ab = "onnx.Add"(%mb, %big) : (tensor<4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    // bias + Softmax, and a Softmax of an Add used twice (negative).
    %bs = "onnx.Add"(%x, %m) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %sm = "onnx.Softmax"(%bs) <{axis = -1 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %bs2 = "onnx.Add"(%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %sm2 = "onnx.Softmax"(%bs2) <{axis = -1 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    // An elementwise chain.
    %e1 = "onnx.Exp"(%m) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %e2 = "onnx.Neg"(%e1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %e3 = "onnx.Abs"(%e2) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %rms, %qg, %mt, %gr, %tg, %sm, %ab, %sm2, %bs2, %e3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  }
}
