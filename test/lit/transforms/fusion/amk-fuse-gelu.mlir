// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-fuse-gelu)' | FileCheck %s
// RUN: amk-run %inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-gelu)' | FileCheck %s --check-prefix=SAME
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fuse-gelu)' | FileCheck %s --check-prefix=OP
// SAME-COUNT-20: ok vs before-pipeline

// The erf, quick and tanh forms (the tanh one applies to MatMul + bias).
// CHECK: "amk.gelu"(%arg0) <{approximate = "none"}>
// CHECK: "amk.gelu"(%arg3) <{approximate = "quick"}>
// CHECK: %[[Y:.*]] = "onnx.Add"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8xf32>)
// CHECK-NEXT: "amk.gelu"(%[[Y]]) <{approximate = "tanh"}>
// CHECK-NOT: "onnx.Erf"
// CHECK-NOT: "onnx.Tanh"

// The Gelu op of opset 20; negative: a decomposed Gelu whose Erf is also
// an output.
// OP-LABEL: func.func @main_graph
// OP: "amk.gelu"(%arg0) <{approximate = "tanh"}>
// OP: "onnx.Erf"
// OP-NOT: amk.gelu
module attributes {onnx.ir_version = 9 : i64, onnx.opset_import = {ai.onnx = 20 : i64}} {
  func.func @main_graph(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %g = "onnx.Gelu"(%x) <{approximate = "tanh"}> : (tensor<4xf32>) -> tensor<4xf32>
    %rt2 = "onnx.Constant"() <{value = dense<1.4142135> : tensor<f32>}> : () -> tensor<f32>
    %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %xd = "onnx.Div"(%x, %rt2) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %er = "onnx.Erf"(%xd) : (tensor<4xf32>) -> tensor<4xf32>
    %e1 = "onnx.Add"(%er, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %xe = "onnx.Mul"(%x, %e1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %gelu = "onnx.Mul"(%xe, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %g, %gelu, %er : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
