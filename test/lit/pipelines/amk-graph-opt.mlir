// The named pipeline: every fusion in order, correct end to end.
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-graph-opt)' | FileCheck %s
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-graph-opt)' | FileCheck %s --check-prefix=GEMM --implicit-check-not=onnx.MatMul

// Each switch of amk-graph-opt leaves its fusion out (and nothing else).
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-graph-opt{fuse-attention=false})' | FileCheck %s --check-prefix=NOATT --implicit-check-not='"amk.attention"'
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-graph-opt{fuse-norm=false})' | FileCheck %s --check-prefix=NONORM --implicit-check-not='"amk.layer_norm"'
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-graph-opt{fuse-gelu=false})' | FileCheck %s --check-prefix=NOGELU --implicit-check-not='"amk.gelu"'
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-graph-opt{fuse-bias-softmax=false})' | FileCheck %s --check-prefix=NOBSM --implicit-check-not='"amk.bias_softmax"'
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-graph-opt{fuse-rope=false})' | FileCheck %s --check-prefix=NOROPE --implicit-check-not='"amk.rope"'
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-graph-opt{group-elementwise=false})' | FileCheck %s --check-prefix=NOEW --implicit-check-not='"amk.fused_elementwise"'
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-graph-opt{fuse-gemm=false})' | FileCheck %s --check-prefix=NOGEMM
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-graph-opt{lower-qdq=false})' | FileCheck %s --check-prefix=NOQDQ

// And the graph still computes the same outputs (reference interpreter),
// with the defaults, for the npu-like target at opset 17, and with every
// fusion off.
// amk-run takes one module: split-file writes each case (`//--- NAME.mlir`
// below) to its own file, and each case runs amk-run on it.
// RUN: rm -rf %t && split-file %s %t
// DEFINE: %{same} = --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-graph-opt)' | FileCheck %s --check-prefix=SAME
// DEFINE: %{same-npu} = --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-graph-opt{target=npu-like target-opset=17})' | FileCheck %s --check-prefix=SAME
// DEFINE: %{same-off} = --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-graph-opt{fuse-attention=false fuse-norm=false fuse-gemm=false fuse-gelu=false fuse-rope=false fuse-bias-softmax=false group-elementwise=false})' | FileCheck %s --check-prefix=SAME
// SAME: ok vs before-pipeline
// SAME-NOT: MISMATCH

// Conv fusion: on (default), off, and gated off by a density threshold
// below the graph's Conv density.
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt)' | FileCheck %s --check-prefix=CONV
// CONV-LABEL: func.func @main_graph(
// CONV-COUNT-2: "amk.conv"
// CONV-NOT: onnx.BatchNormalization
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt{fuse-conv=false})' | FileCheck %s --check-prefix=NOCONV
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt{conv-density-threshold=0.5})' | FileCheck %s --check-prefix=NOCONV
// NOCONV-LABEL: func.func @main_graph(
// NOCONV-NOT: "amk.conv"
// NOCONV: onnx.BatchNormalization

// The transformer patterns of the fusion tests. Every module is normalized
// to opset 21 (checked before each function). With fuse-gemm on, the only
// MatMuls left (the GEMM run) are the negative attention's product with V
// and the MatMul whose addend enlarges it.

//--- attention.mlir
// Attention: softmax(Q K^T / sqrt(8) + mask) V.
// RUN: amk-run %t/attention.mlir %{same}
// RUN: amk-run %t/attention.mlir %{same-npu}
// RUN: amk-run %t/attention.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @attention(
// CHECK: "amk.attention"
// NOBSM-LABEL: func.func @attention(
// NOBSM: "amk.attention"
// NOEW-LABEL: func.func @attention(
// NOEW: "amk.attention"
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
// RUN: amk-run %t/attention_probs_output.mlir %{same-npu}
// RUN: amk-run %t/attention_probs_output.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @attention_probs_output(
// Its Q K^T folds the Transpose into an amk.gemm.
// CHECK: "amk.gemm"{{.*}}perm_b
// GEMM-LABEL: func.func @attention_probs_output(
// GEMM: "onnx.MatMul"
// NOGEMM-LABEL: func.func @attention_probs_output(
// NOGEMM-COUNT-2: onnx.MatMul
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
// RUN: amk-run %t/layer_norm.mlir %{same-npu}
// RUN: amk-run %t/layer_norm.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @layer_norm(
// CHECK: "amk.layer_norm"
// NOATT-LABEL: func.func @layer_norm(
// NOATT: "amk.layer_norm"
// Without fuse-norm, amk-normalize-opset's recomposed LayerNormalization.
// NONORM-LABEL: func.func @layer_norm(
// NONORM: onnx.LayerNormalization
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
// RUN: amk-run %t/rms_norm.mlir %{same-npu}
// RUN: amk-run %t/rms_norm.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @rms_norm(
// CHECK: "amk.layer_norm"
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
// RUN: amk-run %t/layer_norm_op.mlir %{same-npu}
// RUN: amk-run %t/layer_norm_op.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @layer_norm_op(
// CHECK: "amk.layer_norm"
// NONORM-LABEL: func.func @layer_norm_op(
// NONORM: onnx.LayerNormalization
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
// RUN: amk-run %t/layer_norm_centered_output.mlir %{same-npu}
// RUN: amk-run %t/layer_norm_centered_output.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @layer_norm_centered_output(
// The LayerNorm's tail is an elementwise group.
// CHECK: "amk.fused_elementwise"
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
// RUN: amk-run %t/gelu_erf.mlir %{same-npu}
// RUN: amk-run %t/gelu_erf.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @gelu_erf(
// CHECK: "amk.gelu"
// Without fuse-gelu, amk-normalize-opset's recomposed Gelu.
// NOGELU-LABEL: func.func @gelu_erf(
// NOGELU: onnx.Gelu
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
// RUN: amk-run %t/gelu_quick.mlir %{same-npu}
// RUN: amk-run %t/gelu_quick.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @gelu_quick(
// CHECK: "amk.gelu"
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
// RUN: amk-run %t/gemm_relu.mlir %{same-npu}
// RUN: amk-run %t/gemm_relu.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @gemm_relu(
// CHECK: "amk.gemm"{{.*}}activation = "relu"
// NOGEMM-LABEL: func.func @gemm_relu(
// NOGEMM: onnx.Gemm
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
// RUN: amk-run %t/matmul_transpose.mlir %{same-npu}
// RUN: amk-run %t/matmul_transpose.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @matmul_transpose(
// CHECK: "amk.gemm"{{.*}}perm_a
// NOGEMM-LABEL: func.func @matmul_transpose(
// NOGEMM: onnx.MatMul
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
// RUN: amk-run %t/matmul_bias_gelu_tanh.mlir %{same-npu}
// RUN: amk-run %t/matmul_bias_gelu_tanh.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @matmul_bias_gelu_tanh(
// CHECK: "amk.gemm"{{.*}}activation = "gelu_tanh"
// NOGEMM-LABEL: func.func @matmul_bias_gelu_tanh(
// NOGEMM: onnx.MatMul
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
// RUN: amk-run %t/matmul_add_broadcast.mlir %{same-npu}
// RUN: amk-run %t/matmul_add_broadcast.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @matmul_add_broadcast(
// GEMM-LABEL: func.func @matmul_add_broadcast(
// GEMM: "onnx.MatMul"
// NOGEMM-LABEL: func.func @matmul_add_broadcast(
// NOGEMM: onnx.MatMul
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
// RUN: amk-run %t/bias_softmax.mlir %{same-npu}
// RUN: amk-run %t/bias_softmax.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @bias_softmax(
// CHECK: "amk.bias_softmax"
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
// RUN: amk-run %t/bias_softmax_axis0.mlir %{same-npu}
// RUN: amk-run %t/bias_softmax_axis0.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @bias_softmax_axis0(
// CHECK: "amk.bias_softmax"
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
// RUN: amk-run %t/bias_softmax_sum_output.mlir %{same-npu}
// RUN: amk-run %t/bias_softmax_sum_output.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @bias_softmax_sum_output(
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
// RUN: amk-run %t/elementwise_chain.mlir %{same-npu}
// RUN: amk-run %t/elementwise_chain.mlir %{same-off}
// CHECK: ai.onnx = 21
// CHECK-LABEL: func.func @elementwise_chain(
// CHECK: "amk.fused_elementwise"
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

//--- qdq.mlir
// A QDQ product (8-bit input and weights) becomes amk.qgemm and a float
// input times quantized weights amk.wgemm; lower-qdq=false leaves both to
// amk-emulate-qdq (float products on the dequantized values).
// RUN: amk-run %t/qdq.mlir %{same}
// CHECK-LABEL: func.func @qdq(
// CHECK: "amk.qgemm"
// CHECK: "amk.wgemm"
// NOQDQ-LABEL: func.func @qdq(
// NOQDQ-NOT: amk.qgemm
// NOQDQ-NOT: amk.wgemm
// NOQDQ: return
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @qdq(%aq: tensor<3x4xui8>, %x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
    %none = onnx.NoValue
    %s = "onnx.Constant"() <{value = dense<0.1> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<10> : tensor<ui8>}> : () -> tensor<ui8>
    %a = "onnx.DequantizeLinear"(%aq, %s, %z) : (tensor<3x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x4xf32>
    %w = "onnx.Constant"() <{value = dense<[[1, -2], [3, 4], [-5, 6], [7, 8]]> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
    %ws = "onnx.Constant"() <{value = dense<[0.5, 0.25]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %wd = "onnx.DequantizeLinear"(%w, %ws, %none) <{axis = 1 : i64}> : (tensor<4x2xi8>, tensor<2xf32>, none) -> tensor<4x2xf32>
    %m = "onnx.MatMul"(%a, %wd) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    %n = "onnx.MatMul"(%x, %wd) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    return %m, %n : tensor<3x2xf32>, tensor<3x2xf32>
  }
}

// -----

//--- rope.mlir
// A rotate_half RoPE becomes amk.rope; fuse-rope=false leaves its slices,
// negation and concatenation, and the multiply-add to the elementwise
// grouping.
// RUN: amk-run %t/rope.mlir %{same}
// RUN: amk-run %t/rope.mlir %{same-off}
// CHECK-LABEL: func.func @rope(
// CHECK: "amk.rope"
// NOROPE-LABEL: func.func @rope(
// NOROPE: onnx.Neg
// NOROPE: "amk.fused_elementwise"
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @rope(%x: tensor<1x2x3x8xf32>, %cos: tensor<1x1x3x8xf32>, %sin: tensor<1x1x3x8xf32>) -> tensor<1x2x3x8xf32> {
    %half = "onnx.Constant"() <{value = dense<4> : tensor<1xi64>}> : () -> tensor<1xi64>
    %zero = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %big = "onnx.Constant"() <{value = dense<9223372036854775807> : tensor<1xi64>}> : () -> tensor<1xi64>
    %axis = "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
    %one = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %direct = "onnx.Mul"(%x, %cos) : (tensor<1x2x3x8xf32>, tensor<1x1x3x8xf32>) -> tensor<1x2x3x8xf32>
    %x2 = "onnx.Slice"(%x, %half, %big, %axis, %one) : (tensor<1x2x3x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2x3x4xf32>
    %n = "onnx.Neg"(%x2) : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
    %x1 = "onnx.Slice"(%x, %zero, %half, %axis, %one) : (tensor<1x2x3x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2x3x4xf32>
    %rot = "onnx.Concat"(%n, %x1) <{axis = -1 : i64}> : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x8xf32>
    %rs = "onnx.Mul"(%rot, %sin) : (tensor<1x2x3x8xf32>, tensor<1x1x3x8xf32>) -> tensor<1x2x3x8xf32>
    %y = "onnx.Add"(%direct, %rs) : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
    return %y : tensor<1x2x3x8xf32>
  }
}
