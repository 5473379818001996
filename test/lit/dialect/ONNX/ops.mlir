// RUN: amk-opt %s | amk-opt | FileCheck %s
// RUN: amk-opt %s --mlir-print-op-generic | amk-opt | FileCheck %s

// Valid ops print and parse back; defaults are not materialized.

module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  // CHECK-LABEL: func.func @conv_bn_relu
  func.func @conv_bn_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
    // CHECK: "onnx.Conv"(%{{.*}}, %{{.*}}, %{{.*}}) <{pads = array<i64: 1, 1, 1, 1>}>
    %0 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    // CHECK: "onnx.BatchNormalization"({{.*}}) <{epsilon = 1.000000e-03 : f32}>
    // Optional outputs are `none` results: BatchNormalization has five
    // result slots (the union of its versions).
    %1:5 = "onnx.BatchNormalization"(%0, %b, %b, %b, %b) <{epsilon = 1.0e-3 : f32}> : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x8x8xf32>, none, none, none, none)
    // CHECK: "onnx.Relu"
    %2 = "onnx.Relu"(%1#0) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    return %2 : tensor<1x4x8x8xf32>
  }

  // CHECK-LABEL: func.func @dynamic_shapes
  func.func @dynamic_shapes(%a: tensor<?x4xf32>, %b: tensor<4x?xf32>, %c: tensor<*xf32>) -> tensor<*xf32> {
    // CHECK: "onnx.MatMul"
    %0 = "onnx.MatMul"(%a, %b) : (tensor<?x4xf32>, tensor<4x?xf32>) -> tensor<?x?xf32>
    // CHECK: "onnx.Add"
    %1 = "onnx.Add"(%0, %c) : (tensor<?x?xf32>, tensor<*xf32>) -> tensor<*xf32>
    return %1 : tensor<*xf32>
  }

  // CHECK-LABEL: func.func @layer_norm_and_topk
  func.func @layer_norm_and_topk(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %k: tensor<1xi64>) -> (tensor<2x8xf32>, tensor<2x3xi64>) {
    %none = onnx.NoValue
    // CHECK: "onnx.LayerNormalization"(%{{.*}}, %{{.*}}, %{{.*}}) <{axis = -1 : i64}> : (tensor<2x8xf32>, tensor<8xf32>, none) -> (tensor<2x8xf32>, none, none)
    %0:3 = "onnx.LayerNormalization"(%x, %g, %none) <{axis = -1 : i64}> : (tensor<2x8xf32>, tensor<8xf32>, none) -> (tensor<2x8xf32>, none, none)
    // CHECK: "onnx.TopK"
    %1:2 = "onnx.TopK"(%x, %k) : (tensor<2x8xf32>, tensor<1xi64>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
    return %0#0, %1#1 : tensor<2x8xf32>, tensor<2x3xi64>
  }

  // CHECK-LABEL: func.func @quantized
  func.func @quantized(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xf32> {
    // CHECK: "onnx.QuantizeLinear"{{.*}} -> tensor<4xui8>
    %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
    // CHECK: "onnx.DequantizeLinear"
    %d = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
    return %d : tensor<4xf32>
  }

  // An empty input's other dims are not checked: it adds nothing, and
  // ONNX Runtime ignores it (torchvision concatenates [N, 4] with [0, 0]).
  // CHECK-LABEL: func.func @concat_empty
  func.func @concat_empty(%a: tensor<3x4xf32>, %e: tensor<0x0xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
    // CHECK: "onnx.Concat"(%{{.*}}, %{{.*}})
    // CHECK: "onnx.Concat"(%{{.*}}, %{{.*}})
    %0 = "onnx.Concat"(%a, %e) <{axis = 0 : i64}> : (tensor<3x4xf32>, tensor<0x0xf32>) -> tensor<3x4xf32>
    %1 = "onnx.Concat"(%e, %a) <{axis = 0 : i64}> : (tensor<0x0xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    return %0, %1 : tensor<3x4xf32>, tensor<3x4xf32>
  }

  // CHECK-LABEL: func.func @generic
  func.func @generic(%x: tensor<4xf32>) -> tensor<4xf32> {
    // CHECK: "onnx.Generic"(%{{.*}}) <{domain = "com.microsoft", onnx_attrs = {epsilon = 9.99999974E-6 : f32}, op_type = "SkipLayerNormalization", region_names = []}>
    %0 = "onnx.Generic"(%x) <{domain = "com.microsoft", onnx_attrs = {epsilon = 1.0e-5 : f32}, op_type = "SkipLayerNormalization", region_names = []}> : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
