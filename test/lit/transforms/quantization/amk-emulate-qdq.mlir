// amk-emulate-qdq: a QDQ graph runs on the float kernels with the QDQ
// graph's exact values.
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-emulate-qdq)' | FileCheck %s
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-emulate-qdq)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// The activation pair becomes Div -> Round -> Add(zp) -> Max/Min(uint8
// range) -> Sub(zp) -> Mul; the int8 weights and their per-channel
// DequantizeLinear fold into float weights (127 * s, 64 * s, ...).
// CHECK-LABEL: func.func @uint8_pair_int8_weights(
// CHECK-NOT: QuantizeLinear
// CHECK: %[[S:.*]] = "onnx.Constant"() <{value = dense<0.021568628> : tensor<f32>}>
// CHECK-NEXT: %[[D:.*]] = "onnx.Div"(%arg0, %[[S]])
// CHECK-NEXT: %[[R:.*]] = "onnx.Round"(%[[D]])
// CHECK-NEXT: %[[Z:.*]] = "onnx.Constant"() <{value = dense<4.600000e+01> : tensor<f32>}>
// CHECK-NEXT: %[[A:.*]] = "onnx.Add"(%[[R]], %[[Z]])
// CHECK-NEXT: %[[LO:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<f32>}>
// CHECK-NEXT: %[[MX:.*]] = "onnx.Max"(%[[A]], %[[LO]])
// CHECK-NEXT: %[[HI:.*]] = "onnx.Constant"() <{value = dense<2.550000e+02> : tensor<f32>}>
// CHECK-NEXT: %[[MN:.*]] = "onnx.Min"(%[[MX]], %[[HI]])
// CHECK-NEXT: %[[Z2:.*]] = "onnx.Constant"() <{value = dense<4.600000e+01> : tensor<f32>}>
// CHECK-NEXT: %[[SB:.*]] = "onnx.Sub"(%[[MN]], %[[Z2]])
// CHECK-NEXT: %[[S2:.*]] = "onnx.Constant"() <{value = dense<0.021568628> : tensor<f32>}>
// CHECK-NEXT: %[[M:.*]] = "onnx.Mul"(%[[SB]], %[[S2]])
// CHECK-NEXT: %[[W:.*]] = "onnx.Constant"() <{value = dense<{{\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 5.000000e-01], [1.000000e+00, 5.000000e-01], [-1.000000e+00, 0.251968503]]> : tensor<4x2xf32>}>
// CHECK-NEXT: "onnx.MatMul"(%[[M]], %[[W]])
// CHECK-NOT: DequantizeLinear
// STATS: EmulateQDQ
// STATS-NEXT: (S) 1 folded
// STATS-NEXT: (S) 0 left
// STATS-NEXT: (S) 0 lone
// STATS-NEXT: (S) 1 pairs
// STATS: EmulateQDQ
// STATS-NEXT: (S) 0 folded
// STATS-NEXT: (S) 0 left
// STATS-NEXT: (S) 0 lone
// STATS-NEXT: (S) 1 pairs
// The third split keeps its Quantize (a graph output) and the per-axis
// Dequantize.
// STATS: EmulateQDQ
// STATS-NEXT: (S) 0 folded
// STATS-NEXT: (S) 2 left
// STATS-NEXT: (S) 0 lone
// STATS-NEXT: (S) 0 pairs
// STATS: EmulateQDQ
// STATS-NEXT: (S) 0 folded
// STATS-NEXT: (S) 1 left
// STATS-NEXT: (S) 1 lone
// STATS-NEXT: (S) 0 pairs
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @uint8_pair_int8_weights(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
    %s = "onnx.Constant"() <{value = dense<0.0215686276> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<46> : tensor<ui8>}> : () -> tensor<ui8>
    %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<1x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4xui8>
    %d = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<1x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4xf32>
    %w = "onnx.Constant"() <{value = dense<[[127, 0], [0, 127], [127, 127], [-127, 64]]> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
    %ws = "onnx.Constant"() <{value = dense<[0.00787401571, 0.00393700786]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %wz = "onnx.Constant"() <{value = dense<0> : tensor<2xi8>}> : () -> tensor<2xi8>
    %wd = "onnx.DequantizeLinear"(%w, %ws, %wz) <{axis = 1 : i64}> : (tensor<4x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<4x2xf32>
    %y = "onnx.MatMul"(%d, %wd) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    return %y : tensor<1x2xf32>
  }
}

// -----

// int8 without a zero point: no Add/Sub, the int8 range.
// CHECK-LABEL: func.func @int8_without_zero_point(
// CHECK-NOT: onnx.Add
// CHECK: "onnx.Div"
// CHECK-NEXT: "onnx.Round"
// CHECK-NEXT: dense<-1.280000e+02>
// CHECK-NEXT: "onnx.Max"
// CHECK-NEXT: dense<1.270000e+02>
// CHECK-NEXT: "onnx.Min"
// CHECK-NEXT: "onnx.Constant"
// CHECK-NEXT: "onnx.Mul"
// CHECK-NEXT: return
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @int8_without_zero_point(%x: tensor<8xf32>) -> tensor<8xf32> {
    %s = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
    %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<8xi8>
    %d = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<8xi8>, tensor<f32>, tensor<i8>) -> tensor<8xf32>
    return %d : tensor<8xf32>
  }
}

// -----

// A Quantize whose integers are a graph output stays (remark), and so does
// the DequantizeLinear of a per-axis activation scale.
// CHECK-LABEL: func.func @graph_output_per_axis(
// CHECK: onnx.QuantizeLinear
// CHECK: onnx.DequantizeLinear
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @graph_output_per_axis(%x: tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<2x3xf32>) {
    %s = "onnx.Constant"() <{value = dense<[0.5, 0.25, 1.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %z = "onnx.Constant"() <{value = dense<0> : tensor<3xui8>}> : () -> tensor<3xui8>
    %q = "onnx.QuantizeLinear"(%x, %s, %z) <{axis = 1 : i64}> : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xui8>
    %d = "onnx.DequantizeLinear"(%q, %s, %z) <{axis = 1 : i64}> : (tensor<2x3xui8>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xf32>
    return %q, %d : tensor<2x3xui8>, tensor<2x3xf32>
  }
}

// -----

// An integer kernel's 8-bit result (no Quantize before it) read only by
// elementwise ops: its DequantizeLinear becomes Cast -> Sub -> Mul, which
// amk-group-elementwise fuses with the Add; one read by a MatMul stays.
// CHECK-LABEL: func.func @lone_dequantize(
// CHECK: %[[C:.*]] = "onnx.Cast"(%arg0) <{to = 1 : i64}> : (tensor<2x3xui8>) -> tensor<2x3xf32>
// CHECK: %[[S:.*]] = "onnx.Sub"(%[[C]], %{{.*}})
// CHECK: %[[M:.*]] = "onnx.Mul"(%[[S]], %{{.*}})
// CHECK: %[[A:.*]] = "onnx.Add"(%[[M]], %arg1)
// CHECK: "onnx.Relu"(%[[A]])
// CHECK: "onnx.DequantizeLinear"(%arg2,
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @lone_dequantize(%x: tensor<2x3xui8>, %r: tensor<2x3xf32>, %y: tensor<2x3xi8>, %w: tensor<3x2xf32>) -> (tensor<2x3xf32>, tensor<2x2xf32>) {
    %s = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
    %zi = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
    %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
    %a = "onnx.Add"(%d, %r) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %rl = "onnx.Relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %e = "onnx.DequantizeLinear"(%y, %s, %zi) : (tensor<2x3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3xf32>
    %m = "onnx.MatMul"(%e, %w) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    return %rl, %m : tensor<2x3xf32>, tensor<2x2xf32>
  }
}
