// RUN: rm -rf %t && split-file %s %t
// RUN: amk-opt %t/cases.mlir -split-input-file --pass-pipeline='builtin.module(amk-last-token-logits)' | FileCheck %s
// RUN: not amk-opt %t/cases.mlir -split-input-file --pass-pipeline='builtin.module(amk-last-token-logits{output=missing})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: amk-opt %t/cases.mlir -split-input-file --pass-pipeline='builtin.module(amk-last-token-logits{output=scores})' | FileCheck %s --check-prefix=NAMED
// RUN: amk-opt %t/errors.mlir -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-last-token-logits)'

//--- cases.mlir
// MISSING: error: amk-last-token-logits: the model has no output named 'missing'
// The option names the output: here the hidden state's product.

// The LM head reads the last of the four positions; the logits output
// becomes [1, 1, 5]. The other output keeps every position.
// CHECK-LABEL: func.func @prefill(
// CHECK-SAME: -> (tensor<1x1x5xf32> {onnx.name = "logits"}, tensor<1x4x3xf32>
// CHECK-DAG: %[[START:.*]] = "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}>
// CHECK-DAG: %[[END:.*]] = "onnx.Constant"() <{value = dense<4> : tensor<1xi64>}>
// CHECK: %[[LAST:.*]] = "onnx.Slice"(%[[H:.*]], %[[START]], %[[END]], %{{.*}}, %{{.*}}) : (tensor<1x4x3xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x1x3xf32>
// CHECK: %[[Y:.*]] = "onnx.MatMul"(%[[LAST]], %{{.*}}) : (tensor<1x1x3xf32>, tensor<3x5xf32>) -> tensor<1x1x5xf32>
// CHECK: return %[[Y]], %[[H]], %{{.*}} : tensor<1x1x5xf32>, tensor<1x4x3xf32>, tensor<1x4x5xf32>
// NAMED-LABEL: func.func @prefill(
// NAMED-SAME: -> (tensor<1x4x5xf32> {onnx.name = "logits"}, tensor<1x4x3xf32> {onnx.name = "hidden"}, tensor<1x1x5xf32> {onnx.name = "scores"})
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @prefill(%x: tensor<1x4x3xf32>) -> (tensor<1x4x5xf32> {onnx.name = "logits"}, tensor<1x4x3xf32> {onnx.name = "hidden"}, tensor<1x4x5xf32> {onnx.name = "scores"}) {
    %w = "onnx.Constant"() <{value = dense<0.5> : tensor<3x5xf32>}> : () -> tensor<3x5xf32>
    %h = "onnx.Relu"(%x) : (tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
    %y = "onnx.MatMul"(%h, %w) : (tensor<1x4x3xf32>, tensor<3x5xf32>) -> tensor<1x4x5xf32>
    %z = "onnx.MatMul"(%h, %w) : (tensor<1x4x3xf32>, tensor<3x5xf32>) -> tensor<1x4x5xf32>
    return %y, %h, %z : tensor<1x4x5xf32>, tensor<1x4x3xf32>, tensor<1x4x5xf32>
  }
}

// -----

// One position already: nothing to do.
// CHECK-LABEL: func.func @decode(
// CHECK-NOT: onnx.Slice
// NAMED-LABEL: func.func @decode(
// NAMED-NOT: onnx.Slice
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @decode(%x: tensor<1x1x3xf32>) -> (tensor<1x1x5xf32> {onnx.name = "logits"}, tensor<1x1x5xf32> {onnx.name = "scores"}) {
    %w = "onnx.Constant"() <{value = dense<0.5> : tensor<3x5xf32>}> : () -> tensor<3x5xf32>
    %y = "onnx.MatMul"(%x, %w) : (tensor<1x1x3xf32>, tensor<3x5xf32>) -> tensor<1x1x5xf32>
    %z = "onnx.MatMul"(%x, %w) : (tensor<1x1x3xf32>, tensor<3x5xf32>) -> tensor<1x1x5xf32>
    return %y, %z : tensor<1x1x5xf32>, tensor<1x1x5xf32>
  }
}

//--- errors.mlir
// Errors of amk-last-token-logits: logits not from a MatMul, a MatMul
// whose result has other users, a head that is not a constant.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @not_matmul(%x: tensor<1x4x5xf32>) -> (tensor<1x4x5xf32> {onnx.name = "logits"}) {
    // expected-error @+1 {{output 'logits' is not computed by a MatMul}}
    %y = "onnx.Relu"(%x) : (tensor<1x4x5xf32>) -> tensor<1x4x5xf32>
    return %y : tensor<1x4x5xf32>
  }
}

// -----

module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @other_users(%x: tensor<1x4x3xf32>) -> (tensor<1x4x5xf32> {onnx.name = "logits"}, tensor<1x4x5xf32>) {
    %w = "onnx.Constant"() <{value = dense<0.5> : tensor<3x5xf32>}> : () -> tensor<3x5xf32>
    // expected-error @+1 {{output 'logits' has users besides the graph's output}}
    %y = "onnx.MatMul"(%x, %w) : (tensor<1x4x3xf32>, tensor<3x5xf32>) -> tensor<1x4x5xf32>
    %n = "onnx.Neg"(%y) : (tensor<1x4x5xf32>) -> tensor<1x4x5xf32>
    return %y, %n : tensor<1x4x5xf32>, tensor<1x4x5xf32>
  }
}

// -----

module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @head_input(%x: tensor<1x4x3xf32>, %w: tensor<3x5xf32>) -> (tensor<1x4x5xf32> {onnx.name = "logits"}) {
    // expected-error @+1 {{is not a product of static [B, S, D] activations and a constant [D, V] head}}
    %y = "onnx.MatMul"(%x, %w) : (tensor<1x4x3xf32>, tensor<3x5xf32>) -> tensor<1x4x5xf32>
    return %y : tensor<1x4x5xf32>
  }
}
