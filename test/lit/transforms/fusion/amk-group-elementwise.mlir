// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-group-elementwise)' | FileCheck %s
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-group-elementwise{min-size=4})' | FileCheck %s --check-prefix=BIG

// The grouped graphs compute what the originals did (reference
// interpreter), alone and after every fusion.
// amk-run takes one module: split-file writes each case (`//--- NAME.mlir`
// below) to its own file, and each case runs amk-run on it.
// RUN: rm -rf %t && split-file %s %t
// DEFINE: %{same} = --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-group-elementwise)' | FileCheck %s --check-prefix=SAME
// DEFINE: %{same-fused} = --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-attention,amk-fuse-norm,amk-fuse-gemm,amk-fuse-gelu,amk-fuse-bias-softmax,amk-group-elementwise)' | FileCheck %s --check-prefix=SAME
// SAME: ok vs before-pipeline
// SAME-NOT: MISMATCH

// The transformer patterns of the fusion tests. A value with two uses
// ends a group. With min-size=4 (the BIG run), only groups of four or more ops:
// the tails of the LayerNorm (Add eps, Sqrt, Div, Mul scale, Add bias) and
// of the RMSNorm, and the erf and tanh Gelus.

//--- attention.mlir
// Attention: softmax(Q K^T / sqrt(8) + mask) V.
// RUN: amk-run %t/attention.mlir %{same}
// RUN: amk-run %t/attention.mlir %{same-fused}
// CHECK-LABEL: func.func @attention(
// BIG-LABEL: func.func @attention(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @attention(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>, %mask: tensor<1x1x4xf32>) -> tensor<2x4x8xf32> {
    %kt = "onnx.Transpose"(%k) <{perm = array<i64: 0, 2, 1>}> : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
    %s = "onnx.MatMul"(%q, %kt) : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
    %rt8 = "onnx.Constant"() <{value = dense<2.828427> : tensor<f32>}> : () -> tensor<f32>
    %ss = "onnx.Div"(%s, %rt8) : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
    %sm = "onnx.Add"(%ss, %mask) : (tensor<2x4x4xf32>, tensor<1x1x4xf32>) -> tensor<2x4x4xf32>
    %p = "onnx.Softmax"(%sm) <{axis = -1 : i64}> : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %att = "onnx.MatMul"(%p, %v) : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    return %att : tensor<2x4x8xf32>
  }
}

// -----

//--- attention_probs_output.mlir
// Negative attention: the probabilities are also an output.
// RUN: amk-run %t/attention_probs_output.mlir %{same}
// RUN: amk-run %t/attention_probs_output.mlir %{same-fused}
// The Softmax input is a lone MatMul.
// CHECK-LABEL: func.func @attention_probs_output(
// CHECK-NOT: amk.fused_elementwise
// BIG-LABEL: func.func @attention_probs_output(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @attention_probs_output(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x4xf32>) {
    %kt = "onnx.Transpose"(%k) <{perm = array<i64: 0, 2, 1>}> : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
    %s = "onnx.MatMul"(%q, %kt) : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
    %p = "onnx.Softmax"(%s) <{axis = -1 : i64}> : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %att = "onnx.MatMul"(%p, %v) : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    return %att, %p : tensor<2x4x8xf32>, tensor<2x4x4xf32>
  }
}

// -----

//--- layer_norm.mlir
// LayerNorm, decomposed: (x - mean) / sqrt(var + eps) * g + bias.
// RUN: amk-run %t/layer_norm.mlir %{same}
// RUN: amk-run %t/layer_norm.mlir %{same-fused}
// CHECK-LABEL: func.func @layer_norm(
// BIG-LABEL: func.func @layer_norm(
// BIG: "amk.fused_elementwise"
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @layer_norm(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %ax = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    %eps = "onnx.Constant"() <{value = dense<1.0e-5> : tensor<f32>}> : () -> tensor<f32>
    %g = "onnx.Constant"() <{value = dense<[1.0, 1.5, 0.5, 2.0, 1.0, 0.25, 1.0, 3.0]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %bias = "onnx.Constant"() <{value = dense<[0.1, -0.2, 0.3, 0.0, 0.5, -0.5, 0.2, 0.1]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %mu = "onnx.ReduceMean"(%x, %ax) : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    %d = "onnx.Sub"(%x, %mu) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %d2 = "onnx.Pow"(%d, %two) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %var = "onnx.ReduceMean"(%d2, %ax) : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    %ve = "onnx.Add"(%var, %eps) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
    %sd = "onnx.Sqrt"(%ve) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %n = "onnx.Div"(%d, %sd) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %ng = "onnx.Mul"(%n, %g) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %ln = "onnx.Add"(%ng, %bias) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    return %ln : tensor<4x8xf32>
  }
}

// -----

//--- rms_norm.mlir
// RMSNorm: x / sqrt(mean(x^2) + eps) * g.
// RUN: amk-run %t/rms_norm.mlir %{same}
// RUN: amk-run %t/rms_norm.mlir %{same-fused}
// CHECK-LABEL: func.func @rms_norm(
// BIG-LABEL: func.func @rms_norm(
// BIG: "amk.fused_elementwise"
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @rms_norm(%m: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %ax = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    %eps = "onnx.Constant"() <{value = dense<1.0e-5> : tensor<f32>}> : () -> tensor<f32>
    %g = "onnx.Constant"() <{value = dense<[1.0, 1.5, 0.5, 2.0, 1.0, 0.25, 1.0, 3.0]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %sq = "onnx.Pow"(%m, %two) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %ms = "onnx.ReduceMean"(%sq, %ax) : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    %ae = "onnx.Add"(%ms, %eps) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
    %rt = "onnx.Sqrt"(%ae) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %nrm = "onnx.Div"(%m, %rt) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %rms = "onnx.Mul"(%nrm, %g) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    return %rms : tensor<4x8xf32>
  }
}

// -----

//--- layer_norm_op.mlir
// The LayerNormalization op (Mean/InvStdDev unused).
// RUN: amk-run %t/layer_norm_op.mlir %{same}
// RUN: amk-run %t/layer_norm_op.mlir %{same-fused}
// CHECK-LABEL: func.func @layer_norm_op(
// BIG-LABEL: func.func @layer_norm_op(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @layer_norm_op(%m: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %g = "onnx.Constant"() <{value = dense<[1.0, 1.5, 0.5, 2.0, 1.0, 0.25, 1.0, 3.0]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %bias = "onnx.Constant"() <{value = dense<[0.1, -0.2, 0.3, 0.0, 0.5, -0.5, 0.2, 0.1]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %ln, %mean, %inv = "onnx.LayerNormalization"(%m, %g, %bias) <{axis = -1 : i64, epsilon = 1.0e-5 : f32}> : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, none, none)
    return %ln : tensor<4x8xf32>
  }
}

// -----

//--- layer_norm_centered_output.mlir
// Negative LayerNorm: the centered value (and the mean) are also outputs.
// RUN: amk-run %t/layer_norm_centered_output.mlir %{same}
// RUN: amk-run %t/layer_norm_centered_output.mlir %{same-fused}
// CHECK-LABEL: func.func @layer_norm_centered_output(
// BIG-LABEL: func.func @layer_norm_centered_output(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @layer_norm_centered_output(%m: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>) {
    %ax = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    %eps = "onnx.Constant"() <{value = dense<1.0e-5> : tensor<f32>}> : () -> tensor<f32>
    %mu = "onnx.ReduceMean"(%m, %ax) : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    %d = "onnx.Sub"(%m, %mu) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %d2 = "onnx.Pow"(%d, %two) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %var = "onnx.ReduceMean"(%d2, %ax) : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    %ve = "onnx.Add"(%var, %eps) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
    %sd = "onnx.Sqrt"(%ve) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %n = "onnx.Div"(%d, %sd) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    return %n, %d, %mu : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>
  }
}

// -----

//--- gelu_erf.mlir
// Gelu, erf form: x * 0.5 * (1 + erf(x / sqrt 2)).
// RUN: amk-run %t/gelu_erf.mlir %{same}
// RUN: amk-run %t/gelu_erf.mlir %{same-fused}
// CHECK-LABEL: func.func @gelu_erf(
// BIG-LABEL: func.func @gelu_erf(
// BIG: "amk.fused_elementwise"
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @gelu_erf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %rt2 = "onnx.Constant"() <{value = dense<1.4142135> : tensor<f32>}> : () -> tensor<f32>
    %xd = "onnx.Div"(%x, %rt2) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %er = "onnx.Erf"(%xd) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %e1 = "onnx.Add"(%er, %one) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %xe = "onnx.Mul"(%x, %e1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %gelu = "onnx.Mul"(%xe, %half) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    return %gelu : tensor<4x8xf32>
  }
}

// -----

//--- gelu_quick.mlir
// Quick Gelu: x * sigmoid(1.702 x).
// RUN: amk-run %t/gelu_quick.mlir %{same}
// RUN: amk-run %t/gelu_quick.mlir %{same-fused}
// CHECK-LABEL: func.func @gelu_quick(
// BIG-LABEL: func.func @gelu_quick(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @gelu_quick(%m: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %kq = "onnx.Constant"() <{value = dense<1.702> : tensor<f32>}> : () -> tensor<f32>
    %kx = "onnx.Mul"(%m, %kq) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %sg = "onnx.Sigmoid"(%kx) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %qg = "onnx.Mul"(%m, %sg) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %qg : tensor<4x8xf32>
  }
}

// -----

//--- gemm_relu.mlir
// Gemm(transB, alpha) + Relu.
// RUN: amk-run %t/gemm_relu.mlir %{same}
// RUN: amk-run %t/gemm_relu.mlir %{same-fused}
// CHECK-LABEL: func.func @gemm_relu(
// BIG-LABEL: func.func @gemm_relu(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @gemm_relu(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
    %bias = "onnx.Constant"() <{value = dense<[0.1, -0.2, 0.3, 0.0, 0.5, -0.5, 0.2, 0.1]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %gm = "onnx.Gemm"(%x, %w, %bias) <{transB = 1 : i64, alpha = 0.5 : f32}> : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %gr = "onnx.Relu"(%gm) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %gr : tensor<4x8xf32>
  }
}

// -----

//--- matmul_transpose.mlir
// MatMul of a transposed operand.
// RUN: amk-run %t/matmul_transpose.mlir %{same}
// RUN: amk-run %t/matmul_transpose.mlir %{same-fused}
// CHECK-LABEL: func.func @matmul_transpose(
// BIG-LABEL: func.func @matmul_transpose(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @matmul_transpose(%t: tensor<8x4xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
    %tt = "onnx.Transpose"(%t) <{perm = array<i64: 1, 0>}> : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %mt = "onnx.MatMul"(%tt, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return %mt : tensor<4x8xf32>
  }
}

// -----

//--- matmul_bias_gelu_tanh.mlir
// MatMul + bias + tanh Gelu:
// 0.5 * y * (1 + tanh(sqrt(2/pi) * (y + 0.044715 * y^3))).
// RUN: amk-run %t/matmul_bias_gelu_tanh.mlir %{same}
// RUN: amk-run %t/matmul_bias_gelu_tanh.mlir %{same-fused}
// CHECK-LABEL: func.func @matmul_bias_gelu_tanh(
// BIG-LABEL: func.func @matmul_bias_gelu_tanh(
// BIG: "amk.fused_elementwise"
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @matmul_bias_gelu_tanh(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
    %bias = "onnx.Constant"() <{value = dense<[0.1, -0.2, 0.3, 0.0, 0.5, -0.5, 0.2, 0.1]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %three = "onnx.Constant"() <{value = dense<3.0> : tensor<f32>}> : () -> tensor<f32>
    %c0 = "onnx.Constant"() <{value = dense<0.044715> : tensor<f32>}> : () -> tensor<f32>
    %c1 = "onnx.Constant"() <{value = dense<0.7978845608> : tensor<f32>}> : () -> tensor<f32>
    %mm = "onnx.MatMul"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %y = "onnx.Add"(%mm, %bias) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %y3 = "onnx.Pow"(%y, %three) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %cy3 = "onnx.Mul"(%y3, %c0) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %in = "onnx.Add"(%y, %cy3) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %sc = "onnx.Mul"(%in, %c1) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %th = "onnx.Tanh"(%sc) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %op = "onnx.Add"(%th, %one) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %hy = "onnx.Mul"(%y, %half) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %tg = "onnx.Mul"(%hy, %op) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %tg : tensor<4x8xf32>
  }
}

// -----

//--- matmul_add_broadcast.mlir
// Negative MatMul + Add: an addend that enlarges the product.
// RUN: amk-run %t/matmul_add_broadcast.mlir %{same}
// RUN: amk-run %t/matmul_add_broadcast.mlir %{same-fused}
// CHECK-LABEL: func.func @matmul_add_broadcast(
// BIG-LABEL: func.func @matmul_add_broadcast(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @matmul_add_broadcast(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %big: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
    %mb = "onnx.MatMul"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %ab = "onnx.Add"(%mb, %big) : (tensor<4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    return %ab : tensor<2x4x8xf32>
  }
}

// -----

//--- bias_softmax.mlir
// Softmax of a sum, on the last axis.
// RUN: amk-run %t/bias_softmax.mlir %{same}
// RUN: amk-run %t/bias_softmax.mlir %{same-fused}
// CHECK-LABEL: func.func @bias_softmax(
// BIG-LABEL: func.func @bias_softmax(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @bias_softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %bias = "onnx.Constant"() <{value = dense<[0.1, -0.2, 0.3, 0.0, 0.5, -0.5, 0.2, 0.1]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %bs = "onnx.Add"(%x, %bias) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %smx = "onnx.Softmax"(%bs) <{axis = -1 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %smx : tensor<4x8xf32>
  }
}

// -----

//--- bias_softmax_axis0.mlir
// Softmax of a sum, on axis 0.
// RUN: amk-run %t/bias_softmax_axis0.mlir %{same}
// RUN: amk-run %t/bias_softmax_axis0.mlir %{same-fused}
// CHECK-LABEL: func.func @bias_softmax_axis0(
// BIG-LABEL: func.func @bias_softmax_axis0(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @bias_softmax_axis0(%m: tensor<4x8xf32>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %bs = "onnx.Add"(%m, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %sm = "onnx.Softmax"(%bs) <{axis = 0 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %sm : tensor<4x8xf32>
  }
}

// -----

//--- bias_softmax_sum_output.mlir
// Negative Softmax of a sum: the sum is also an output.
// RUN: amk-run %t/bias_softmax_sum_output.mlir %{same}
// RUN: amk-run %t/bias_softmax_sum_output.mlir %{same-fused}
// Add(m, m) feeds a Softmax and an output: not grouped.
// CHECK-LABEL: func.func @bias_softmax_sum_output(
// CHECK-NOT: amk.fused_elementwise
// BIG-LABEL: func.func @bias_softmax_sum_output(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @bias_softmax_sum_output(%m: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %bs = "onnx.Add"(%m, %m) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %sm = "onnx.Softmax"(%bs) <{axis = -1 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %sm, %bs : tensor<4x8xf32>, tensor<4x8xf32>
  }
}

// -----

//--- elementwise_chain.mlir
// An elementwise chain with a constant operand.
// RUN: amk-run %t/elementwise_chain.mlir %{same}
// RUN: amk-run %t/elementwise_chain.mlir %{same-fused}
// Exp, Mul by a constant (cloned into the body), Sub.
// CHECK-LABEL: func.func @elementwise_chain(
// CHECK: "amk.fused_elementwise"(%arg0, %arg1) ({
// CHECK-NEXT: ^bb0(%[[M:.*]]: tensor<4x8xf32>, %[[X:.*]]: tensor<4x8xf32>):
// CHECK-NEXT:   %[[E:.*]] = "onnx.Exp"(%[[M]])
// CHECK-NEXT:   %[[H:.*]] = "onnx.Constant"() <{value = dense<5.000000e-01> : tensor<f32>}>
// CHECK-NEXT:   %[[N:.*]] = "onnx.Mul"(%[[E]], %[[H]])
// CHECK-NEXT:   %[[S:.*]] = "onnx.Sub"(%[[N]], %[[X]])
// CHECK-NEXT:   amk.yield %[[S]] : tensor<4x8xf32>
// CHECK-NEXT: }) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: return
// BIG-LABEL: func.func @elementwise_chain(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @elementwise_chain(%m: tensor<4x8xf32>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %ex = "onnx.Exp"(%m) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %mh = "onnx.Mul"(%ex, %half) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %ch = "onnx.Sub"(%mh, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %ch : tensor<4x8xf32>
  }
}

// -----

//--- typed_chain.mlir
// A group runs as one float32 register program, so ops with integer or
// bool results stay single ops (typed kernels): of Abs -> Mul (int32) ->
// Cast -> Neg -> Exp, the group starts at the Cast, which reads int32 as
// the program loads it.
// RUN: amk-run %t/typed_chain.mlir %{same}
// CHECK-LABEL: func.func @typed_chain(
// CHECK: "onnx.Abs"(%arg0) : (tensor<4x8xi32>) -> tensor<4x8xi32>
// CHECK: "onnx.Mul"({{.*}}) : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
// CHECK: "amk.fused_elementwise"
// CHECK-NEXT: ^bb0({{.*}}: tensor<4x8xi32>):
// CHECK-NEXT: "onnx.Cast"
// CHECK-NEXT: "onnx.Neg"
// CHECK-NEXT: "onnx.Exp"
// CHECK-NEXT: amk.yield
// BIG-LABEL: func.func @typed_chain(
// BIG-NOT: "amk.fused_elementwise"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @typed_chain(%i: tensor<4x8xi32>) -> tensor<4x8xf32> {
    %a = "onnx.Abs"(%i) : (tensor<4x8xi32>) -> tensor<4x8xi32>
    %m = "onnx.Mul"(%a, %i) : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
    %c = "onnx.Cast"(%m) <{to = 1 : i64}> : (tensor<4x8xi32>) -> tensor<4x8xf32>
    %n = "onnx.Neg"(%c) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %e = "onnx.Exp"(%n) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %e : tensor<4x8xf32>
  }
}

// -----

//--- squeeze_excitation.mlir
// Squeeze-excitation's scale: Sigmoid on [1, C, 1, 1], then a Mul that
// broadcasts it over [1, C, H, W]. The Sigmoid stays out of the group, so
// it runs once per channel rather than once per element (the group's
// output has 4096 elements, 256 times the Sigmoid's). On small tensors a
// second kernel costs more, and the small op joins (layer_norm above).
// RUN: amk-run %t/squeeze_excitation.mlir %{same}
// CHECK-LABEL: func.func @squeeze_excitation(
// CHECK: %[[S:.*]] = "onnx.Sigmoid"(%arg1) : (tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
// CHECK: "amk.fused_elementwise"(%arg0, %[[S]])
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: "onnx.Mul"
// CHECK-NEXT: "onnx.Relu"
// CHECK-NEXT: amk.yield
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @squeeze_excitation(%x: tensor<1x16x16x16xf32>, %s: tensor<1x16x1x1xf32>) -> tensor<1x16x16x16xf32> {
    %g = "onnx.Sigmoid"(%s) : (tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
    %m = "onnx.Mul"(%x, %g) : (tensor<1x16x16x16xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x16x16xf32>
    %r = "onnx.Relu"(%m) : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
    return %r : tensor<1x16x16x16xf32>
  }
}
