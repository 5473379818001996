// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-fuse-bias-softmax)' | FileCheck %s

// The fused graphs compute what the originals did (reference interpreter).
// amk-run takes one module: split-file writes each case (`//--- NAME.mlir`
// below) to its own file, and each case runs amk-run on it.
// RUN: rm -rf %t && split-file %s %t
// DEFINE: %{same} = --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-bias-softmax)' | FileCheck %s --check-prefix=SAME
// SAME: ok vs before-pipeline
// SAME-NOT: MISMATCH

// The attention's scores + mask, x + bias on the last axis, m + x on axis
// 0; negative: the sum is also an output.

//--- attention.mlir
// Attention: softmax(Q K^T / sqrt(8) + mask) V.
// RUN: amk-run %t/attention.mlir %{same}
// The attention's scores + mask.
// CHECK-LABEL: func.func @attention(
// CHECK: "amk.bias_softmax"(%{{.*}}, %arg3) <{axis = 2 : i64}> : (tensor<2x4x4xf32>, tensor<1x1x4xf32>)
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

//--- bias_softmax.mlir
// Softmax of a sum, on the last axis.
// RUN: amk-run %t/bias_softmax.mlir %{same}
// CHECK-LABEL: func.func @bias_softmax(
// CHECK: "amk.bias_softmax"(%arg0, %{{.*}}) <{axis = 1 : i64}>
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
// CHECK-LABEL: func.func @bias_softmax_axis0(
// CHECK: "amk.bias_softmax"(%arg0, %arg1) <{axis = 0 : i64}>
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
// CHECK-LABEL: func.func @bias_softmax_sum_output(
// CHECK: %[[S:.*]] = "onnx.Add"(%arg0, %arg0)
// CHECK-NEXT: "onnx.Softmax"(%[[S]])
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @bias_softmax_sum_output(%m: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %bs = "onnx.Add"(%m, %m) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %sm = "onnx.Softmax"(%bs) <{axis = -1 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %sm, %bs : tensor<4x8xf32>, tensor<4x8xf32>
  }
}

// -----

//--- bias_softmax_opset11.mlir
// Before opset 13 Softmax coerces to 2-D at its axis: the last axis
// means the same.
// RUN: amk-run %t/bias_softmax_opset11.mlir %{same}
// CHECK-LABEL: func.func @bias_softmax_opset11(
// CHECK: "amk.bias_softmax"(%arg0, %arg1) <{axis = 2 : i64}>
module attributes {onnx.ir_version = 6 : i64, onnx.opset_import = {ai.onnx = 11 : i64}} {
  func.func @bias_softmax_opset11(%x: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
    %a = "onnx.Add"(%x, %b) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %s = "onnx.Softmax"(%a) <{axis = 2 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    return %s : tensor<2x3x4xf32>
  }
}

// -----

//--- bias_softmax_opset11_inner_axis.mlir
// Before opset 13, an inner axis does not.
// RUN: amk-run %t/bias_softmax_opset11_inner_axis.mlir %{same}
// CHECK-LABEL: func.func @bias_softmax_opset11_inner_axis(
// CHECK: %[[A:.*]] = "onnx.Add"(%arg0, %arg1)
// CHECK-NEXT: "onnx.Softmax"(%[[A]]) <{axis = 1 : i64}>
module attributes {onnx.ir_version = 6 : i64, onnx.opset_import = {ai.onnx = 11 : i64}} {
  func.func @bias_softmax_opset11_inner_axis(%x: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
    %a = "onnx.Add"(%x, %b) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %s = "onnx.Softmax"(%a) <{axis = 1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    return %s : tensor<2x3x4xf32>
  }
}
