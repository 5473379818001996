// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-normalize-opset{target-opset=21})' | FileCheck %s
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-normalize-opset{recompose=false})' | FileCheck %s --check-prefix=NORECOMP
// RUN: not amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-normalize-opset{target-opset=9})' 2>&1 | FileCheck %s --check-prefix=REFUSE
// RUN: not amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-normalize-opset{target-opset=5})' 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: amk-normalize-opset: target-opset must be in [7, 21], got 5

// The downgrade to opset 13 runs on downgradable.mlir, every case after
// the first: split-file writes it from the `//--- downgradable.mlir` line
// on. The first case is refused by any target below opset 16.
// RUN: rm -rf %t && split-file %s %t
// RUN: amk-opt %t/downgradable.mlir -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-normalize-opset{target-opset=13})' 2>&1 | FileCheck %s --check-prefix=DOWN

// ScatterElements with a reduction (opset 16) keeps it at opset 21.
// Downgrading it to Scatter (opset < 11), which has none, is refused.
// CHECK-LABEL: func.func @scatter_reduction(
// CHECK: "onnx.ScatterElements"(%arg0, %arg1, %arg2) <{reduction = "add"}>
// REFUSE: error: op 'onnx.ScatterElements' (opset 16) cannot be normalized to opset 9: attribute 'reduction' does not exist at the target opset and is not its default value
module attributes {onnx.opset_import = {ai.onnx = 16 : i64}} {
  func.func @scatter_reduction(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
    %s = "onnx.ScatterElements"(%x, %i, %u) <{reduction = "add"}> : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
    return %s : tensor<4xf32>
  }
}

// -----

//--- downgradable.mlir
// Opset 11 -> 21: Squeeze axes become an input, Clip's bounds are already
// inputs, Softmax over an inner axis keeps its 2-D coercion semantics via
// Flatten/Softmax/Reshape, the opset and IR version follow.
// CHECK: module attributes
// CHECK-SAME: onnx.ir_version = 10
// CHECK-SAME: ai.onnx = 21
// CHECK-LABEL: func.func @squeeze_softmax_opset11(
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}>
// CHECK: "onnx.Squeeze"(%arg0, %[[AX]])
// CHECK: %[[F:.*]] = "onnx.Flatten"(%{{.*}}) : (tensor<3x4x5xf32>) -> tensor<3x20xf32>
// CHECK: %[[S:.*]] = "onnx.Softmax"(%[[F]]) <{axis = -1 : i64}>
// CHECK: "onnx.Reshape"(%[[S]], %{{.*}}) : (tensor<3x20xf32>, tensor<3xi64>) -> tensor<3x4x5xf32>
// CHECK: "onnx.Softmax"(%{{.*}}) <{axis = -1 : i64}> : (tensor<3x4x5xf32>)
// DOWN: module attributes
// DOWN-SAME: ai.onnx = 13
// DOWN-LABEL: func.func @squeeze_softmax_opset11(
module attributes {onnx.ir_version = 6 : i64, onnx.opset_import = {ai.onnx = 11 : i64}} {
  func.func @squeeze_softmax_opset11(%x: tensor<1x3x4x5xf32>) -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>) {
    %none = "onnx.NoValue"() : () -> none
    %s = "onnx.Squeeze"(%x, %none) <{axes = array<i64: 0>}> : (tensor<1x3x4x5xf32>, none) -> tensor<3x4x5xf32>
    %a = "onnx.Softmax"(%s) <{axis = 1 : i64}> : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
    %b = "onnx.Softmax"(%s) <{axis = 2 : i64}> : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
    return %a, %b : tensor<3x4x5xf32>, tensor<3x4x5xf32>
  }
}

// -----

// Opset 9 -> 21: Upsample becomes Resize with Resize-10's coordinates.
// CHECK-LABEL: func.func @upsample_opset9(
// CHECK: "onnx.Resize"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) <{coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"}>
module attributes {onnx.opset_import = {ai.onnx = 9 : i64}} {
  func.func @upsample_opset9(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
    %sc = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %u = "onnx.Upsample"(%x, %sc) : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
    return %u : tensor<1x1x4x4xf32>
  }
}

// -----

// Gelu (opset 20) is decomposed below opset 20 into its erf form; with
// recompose=false it stays Gelu at opset 21.
// CHECK-LABEL: func.func @gelu_opset20(
// CHECK: "onnx.Gelu"
// DOWN-LABEL: func.func @gelu_opset20(
// DOWN: "onnx.Erf"
// DOWN-NOT: "onnx.Gelu"
// NORECOMP-LABEL: func.func @gelu_opset20(
// NORECOMP: "onnx.Gelu"(%arg0)
module attributes {onnx.opset_import = {ai.onnx = 20 : i64}} {
  func.func @gelu_opset20(%x: tensor<8xf32>) -> tensor<8xf32> {
    %g = "onnx.Gelu"(%x) : (tensor<8xf32>) -> tensor<8xf32>
    return %g : tensor<8xf32>
  }
}

// -----

// The erf form of Gelu is recomposed where the target has Gelu.
// CHECK-LABEL: func.func @gelu_erf_form_opset13(
// CHECK: %[[G:.*]] = "onnx.Gelu"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: return %[[G]]
// With recompose=false the erf form stays.
// NORECOMP-LABEL: func.func @gelu_erf_form_opset13(
// NORECOMP-NOT: "onnx.Gelu"
// NORECOMP: "onnx.Erf"
// NORECOMP-NOT: "onnx.Gelu"
module attributes {onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @gelu_erf_form_opset13(%x: tensor<8xf32>) -> tensor<8xf32> {
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
// CHECK-LABEL: func.func @range_opset17(
// REFUSE: error: op 'onnx.Range' (opset 17) cannot be normalized to opset 9: ONNX has no 'Range' at opset 9
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @range_opset17(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<*xf32> {
    %r = "onnx.Range"(%a, %b, %c) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<*xf32>
    return %r : tensor<*xf32>
  }
}

// -----

// An opset-9 Softmax on a value of unknown rank (exporters such as
// paddle2onnx leave intermediates untyped): its 2-D coercion needs no rank,
// so it becomes Flatten, a last-axis Softmax and a Reshape back to the
// input's run-time shape, instead of being refused.
// CHECK-LABEL: func.func @softmax_unranked
// CHECK: %[[F:.*]] = "onnx.Flatten"(%{{.*}}) : (tensor<*xf32>) -> tensor<?x?xf32>
// CHECK: %[[S:.*]] = "onnx.Softmax"(%[[F]]) <{axis = -1 : i64}> : (tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: %[[SH:.*]] = "onnx.Shape"(%{{.*}}) : (tensor<*xf32>) -> tensor<?xi64>
// CHECK: "onnx.Reshape"(%[[S]], %[[SH]]) : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<*xf32>
// DOWN-LABEL: func.func @softmax_unranked
// DOWN: "onnx.Flatten"
module attributes {onnx.opset_import = {ai.onnx = 9 : i64}} {
  func.func @softmax_unranked(%x: tensor<2x3x4xf32>) -> tensor<*xf32> {
    %r = "onnx.Relu"(%x) : (tensor<2x3x4xf32>) -> tensor<*xf32>
    %s = "onnx.Softmax"(%r) : (tensor<*xf32>) -> tensor<*xf32>
    return %s : tensor<*xf32>
  }
}
