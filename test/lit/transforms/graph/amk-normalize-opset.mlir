// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-normalize-opset{target-opset=21})' | FileCheck %s
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-normalize-opset{target-opset=13})' 2>&1 | FileCheck %s --check-prefix=DOWN
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-normalize-opset{recompose=false})' | FileCheck %s --check-prefix=NORECOMP
// RUN: not amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-normalize-opset{target-opset=9})' 2>&1 | FileCheck %s --check-prefix=REFUSE
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-normalize-opset{target-opset=5})' 2>&1 | FileCheck %s --check-prefix=RANGE

// Downgrading ScatterElements with a reduction to Scatter (opset < 11),
// which has none, is refused.
// RUN: not amk-opt %inputs/scatter_reduction.mlir --pass-pipeline='builtin.module(amk-normalize-opset{target-opset=9})' 2>&1 | FileCheck %s --check-prefix=SCATTER
// SCATTER: error: op 'onnx.ScatterElements' (opset 16) cannot be normalized to opset 9: attribute 'reduction' does not exist at the target opset and is not its default value
// REFUSE: error: op 'onnx.Range' (opset 17) cannot be normalized to opset 9: ONNX has no 'Range' at opset 9
// RANGE: error: amk-normalize-opset: target-opset must be in [7, 21], got 5

// Opset 11 -> 21: Squeeze axes become an input, Clip's bounds are already
// inputs, Softmax over an inner axis keeps its 2-D coercion semantics via
// Flatten/Softmax/Reshape, the opset and IR version follow.

// CHECK-LABEL: module attributes
// CHECK-SAME: onnx.ir_version = 10
// CHECK-SAME: ai.onnx = 21
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}>
// CHECK: "onnx.Squeeze"(%arg0, %[[AX]])
// CHECK: %[[F:.*]] = "onnx.Flatten"(%{{.*}}) : (tensor<3x4x5xf32>) -> tensor<3x20xf32>
// CHECK: %[[S:.*]] = "onnx.Softmax"(%[[F]]) <{axis = -1 : i64}>
// CHECK: "onnx.Reshape"(%[[S]], %{{.*}}) : (tensor<3x20xf32>, tensor<3xi64>) -> tensor<3x4x5xf32>
// CHECK: "onnx.Softmax"(%{{.*}}) <{axis = -1 : i64}> : (tensor<3x4x5xf32>)
// DOWN-LABEL: module attributes
// DOWN-SAME: ai.onnx = 13
module attributes {onnx.ir_version = 6 : i64, onnx.opset_import = {ai.onnx = 11 : i64}} {
  func.func @main_graph(%x: tensor<1x3x4x5xf32>) -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>) {
    %none = "onnx.NoValue"() : () -> none
    %s = "onnx.Squeeze"(%x, %none) <{axes = array<i64: 0>}> : (tensor<1x3x4x5xf32>, none) -> tensor<3x4x5xf32>
    %a = "onnx.Softmax"(%s) <{axis = 1 : i64}> : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
    %b = "onnx.Softmax"(%s) <{axis = 2 : i64}> : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
    return %a, %b : tensor<3x4x5xf32>, tensor<3x4x5xf32>
  }
}

// -----

// Opset 9 -> 21: Upsample becomes Resize with Resize-10's coordinates.
// CHECK-LABEL: module attributes
// CHECK: "onnx.Resize"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) <{coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"}>
module attributes {onnx.opset_import = {ai.onnx = 9 : i64}} {
  func.func @main_graph(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
    %sc = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %u = "onnx.Upsample"(%x, %sc) : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
    return %u : tensor<1x1x4x4xf32>
  }
}

// -----

// Gelu (opset 20) is decomposed below opset 20 into its erf form.
// CHECK-LABEL: module attributes
// CHECK: "onnx.Gelu"
// DOWN-LABEL: module attributes
// DOWN: "onnx.Erf"
// DOWN-NOT: "onnx.Gelu"
module attributes {onnx.opset_import = {ai.onnx = 20 : i64}} {
  func.func @main_graph(%x: tensor<8xf32>) -> tensor<8xf32> {
    %g = "onnx.Gelu"(%x) : (tensor<8xf32>) -> tensor<8xf32>
    return %g : tensor<8xf32>
  }
}

// -----

// The erf form of Gelu is recomposed where the target has Gelu.
// CHECK-LABEL: module attributes
// CHECK: %[[G:.*]] = "onnx.Gelu"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
// With recompose=false the erf form stays (the Gelu above is the opset-20
// one of the previous split).
// NORECOMP: "onnx.Gelu"(%arg0)
// NORECOMP: "onnx.Erf"
// NORECOMP-NOT: "onnx.Gelu"
// CHECK-NEXT: return %[[G]]
module attributes {onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @main_graph(%x: tensor<8xf32>) -> tensor<8xf32> {
    %c = "onnx.Constant"() <{value = dense<1.41421354> : tensor<f32>}> : () -> tensor<f32>
    %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %d = "onnx.Div"(%x, %c) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    %e = "onnx.Erf"(%d) : (tensor<8xf32>) -> tensor<8xf32>
    %a = "onnx.Add"(%e, %one) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    %m = "onnx.Mul"(%x, %a) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %r = "onnx.Mul"(%m, %half) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    return %r : tensor<8xf32>
  }
}

// -----

// Refusal: Range does not exist before opset 11; the module is untouched.
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<*xf32> {
    %r = "onnx.Range"(%a, %b, %c) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<*xf32>
    return %r : tensor<*xf32>
  }
}
