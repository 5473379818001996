// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-fuse-bias-softmax)' | FileCheck %s
// RUN: amk-run %inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-bias-softmax)' | FileCheck %s --check-prefix=SAME
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fuse-bias-softmax)' | FileCheck %s --check-prefix=OLD
// SAME-COUNT-20: ok vs before-pipeline

// The attention's scores + mask, x + bias on the last axis, m + x on axis
// 0; negative: the sum is also an output.
// CHECK: "amk.bias_softmax"(%{{.*}}, %arg8) <{axis = 2 : i64}> : (tensor<2x4x4xf32>, tensor<1x1x4xf32>)
// CHECK: "amk.bias_softmax"(%arg0, %{{.*}}) <{axis = 1 : i64}>
// CHECK: "amk.bias_softmax"(%arg3, %arg0) <{axis = 0 : i64}>
// CHECK: %[[S:.*]] = "onnx.Add"(%arg3, %arg3)
// CHECK-NEXT: "onnx.Softmax"(%[[S]])

// Before opset 13 Softmax coerces to 2-D at its axis: only the last axis
// means the same.
// OLD: "amk.bias_softmax"(%arg0, %arg1) <{axis = 2 : i64}>
// OLD: %[[A:.*]] = "onnx.Add"(%arg0, %arg1)
// OLD-NEXT: "onnx.Softmax"(%[[A]]) <{axis = 1 : i64}>
module attributes {onnx.ir_version = 6 : i64, onnx.opset_import = {ai.onnx = 11 : i64}} {
  func.func @main_graph(%x: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
    %a = "onnx.Add"(%x, %b) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %s = "onnx.Softmax"(%a) <{axis = 2 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %a2 = "onnx.Add"(%x, %b) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %s2 = "onnx.Softmax"(%a2) <{axis = 1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    return %s, %s2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  }
}
