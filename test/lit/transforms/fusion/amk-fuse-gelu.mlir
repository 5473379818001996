// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-fuse-gelu)' | FileCheck %s

// The fused graphs compute what the originals did (reference interpreter).
// amk-run takes one module: split-file writes each case (`//--- NAME.mlir`
// below) to its own file, and each case runs amk-run on it.
// RUN: rm -rf %t && split-file %s %t
// DEFINE: %{same} = --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-gelu)' | FileCheck %s --check-prefix=SAME
// SAME: ok vs before-pipeline
// SAME-NOT: MISMATCH

// The erf, quick and tanh forms, and the Gelu op of opset 20.

//--- gelu_erf.mlir
// Gelu, erf form: x * 0.5 * (1 + erf(x / sqrt 2)).
// RUN: amk-run %t/gelu_erf.mlir %{same}
// CHECK-LABEL: func.func @gelu_erf(
// CHECK-NOT: "onnx.Erf"
// CHECK: "amk.gelu"(%arg0) <{approximate = "none"}>
// CHECK-NOT: "onnx.Erf"
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
// CHECK-LABEL: func.func @gelu_quick(
// CHECK: "amk.gelu"(%arg0) <{approximate = "quick"}>
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

//--- matmul_bias_gelu_tanh.mlir
// MatMul + bias + tanh Gelu:
// 0.5 * y * (1 + tanh(sqrt(2/pi) * (y + 0.044715 * y^3))).
// RUN: amk-run %t/matmul_bias_gelu_tanh.mlir %{same}
// The tanh form applies to MatMul + bias.
// CHECK-LABEL: func.func @matmul_bias_gelu_tanh(
// CHECK-NOT: "onnx.Tanh"
// CHECK: %[[Y:.*]] = "onnx.Add"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8xf32>)
// CHECK-NEXT: "amk.gelu"(%[[Y]]) <{approximate = "tanh"}>
// CHECK-NOT: "onnx.Tanh"
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

//--- gelu_op.mlir
// The Gelu op of opset 20.
// RUN: amk-run %t/gelu_op.mlir %{same}
// CHECK-LABEL: func.func @gelu_op(
// CHECK: "amk.gelu"(%arg0) <{approximate = "tanh"}>
module attributes {onnx.ir_version = 9 : i64, onnx.opset_import = {ai.onnx = 20 : i64}} {
  func.func @gelu_op(%x: tensor<4xf32>) -> tensor<4xf32> {
    %g = "onnx.Gelu"(%x) <{approximate = "tanh"}> : (tensor<4xf32>) -> tensor<4xf32>
    return %g : tensor<4xf32>
  }
}

// -----

//--- gelu_erf_output.mlir
// Negative: a decomposed Gelu whose Erf is also an output.
// RUN: amk-run %t/gelu_erf_output.mlir %{same}
// CHECK-LABEL: func.func @gelu_erf_output(
// CHECK-NOT: amk.gelu
// CHECK: "onnx.Erf"
// CHECK-NOT: amk.gelu
module attributes {onnx.ir_version = 9 : i64, onnx.opset_import = {ai.onnx = 20 : i64}} {
  func.func @gelu_erf_output(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %rt2 = "onnx.Constant"() <{value = dense<1.4142135> : tensor<f32>}> : () -> tensor<f32>
    %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %xd = "onnx.Div"(%x, %rt2) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %er = "onnx.Erf"(%xd) : (tensor<4xf32>) -> tensor<4xf32>
    %e1 = "onnx.Add"(%er, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %xe = "onnx.Mul"(%x, %e1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %gelu = "onnx.Mul"(%xe, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %gelu, %er : tensor<4xf32>, tensor<4xf32>
  }
}
