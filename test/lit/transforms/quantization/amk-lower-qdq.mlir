// amk-lower-qdq: the QDQ pattern around a convolution or a matrix product
// becomes one integer op (amk.qconv, amk.qgemm) reading the quantized
// tensors; what does not match stays as it was.
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-lower-qdq)' | FileCheck %s
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-lower-qdq)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-lower-qdq{weight-only=false})' | FileCheck %s --check-prefix=NOWO
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-lower-qdq{activation-bits=8})' | FileCheck %s --check-prefix=A8
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-lower-qdq{activation-bits=16})' | FileCheck %s --check-prefix=B16
// RUN: not amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-lower-qdq{activation-bits=4})' 2>&1 | FileCheck %s --check-prefix=A4
// A4: amk-lower-qdq: activation-bits must be 0, 8 or 16, not 4
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-lower-qdq)' --remarks-filter=amk-lower-qdq --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// Each split's statistics, in order.
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 0 average-pools
// STATS-NEXT: (S) 0 concats
// STATS-NEXT: (S) 1 convs
// STATS-NEXT: (S) 0 data-movement
// STATS-NEXT: (S) 0 gemms
// STATS-NEXT: (S) 0 max-pools
// STATS-NEXT: (S) 0 muls
// STATS-NEXT: (S) 1 quantized-outputs
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 0 average-pools
// STATS-NEXT: (S) 0 concats
// STATS-NEXT: (S) 1 convs
// STATS-NEXT: (S) 0 data-movement
// STATS-NEXT: (S) 0 gemms
// STATS-NEXT: (S) 0 max-pools
// STATS-NEXT: (S) 0 muls
// STATS-NEXT: (S) 0 quantized-outputs
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 0 average-pools
// STATS-NEXT: (S) 0 concats
// STATS-NEXT: (S) 1 convs
// STATS-NEXT: (S) 0 data-movement
// STATS-NEXT: (S) 0 gemms
// STATS-NEXT: (S) 0 max-pools
// STATS-NEXT: (S) 0 muls
// STATS-NEXT: (S) 1 quantized-outputs
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 0 average-pools
// STATS-NEXT: (S) 0 concats
// STATS-NEXT: (S) 1 convs
// STATS-NEXT: (S) 0 data-movement
// STATS-NEXT: (S) 0 gemms
// STATS-NEXT: (S) 0 max-pools
// STATS-NEXT: (S) 0 muls
// STATS-NEXT: (S) 1 quantized-outputs
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 0 average-pools
// STATS-NEXT: (S) 0 concats
// STATS-NEXT: (S) 0 convs
// STATS-NEXT: (S) 0 data-movement
// STATS-NEXT: (S) 2 gemms
// STATS-NEXT: (S) 0 max-pools
// STATS-NEXT: (S) 0 muls
// STATS-NEXT: (S) 1 quantized-outputs
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 0 average-pools
// STATS-NEXT: (S) 0 concats
// STATS-NEXT: (S) 0 convs
// STATS-NEXT: (S) 0 data-movement
// STATS-NEXT: (S) 0 gemms
// STATS-NEXT: (S) 0 max-pools
// STATS-NEXT: (S) 0 muls
// STATS-NEXT: (S) 0 quantized-outputs
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 0 average-pools
// STATS-NEXT: (S) 0 concats
// STATS-NEXT: (S) 0 convs
// STATS-NEXT: (S) 0 data-movement
// STATS-NEXT: (S) 1 gemms
// STATS-NEXT: (S) 0 max-pools
// STATS-NEXT: (S) 0 muls
// STATS-NEXT: (S) 0 quantized-outputs

// The input's DequantizeLinear, the weight's (per channel) and the bias's
// (int32) are read through: amk.qconv takes the uint8 input, the int8
// weights with their scales, the bias folded to float, and the
// QuantizeLinear of the result, whose uint8 tensor it produces.
// CHECK-LABEL: func.func @conv_quantized_output(
// CHECK-NOT: DequantizeLinear
// CHECK: %[[Q:.*]] = "onnx.QuantizeLinear"(%arg0,
// CHECK: %[[B:.*]] = "onnx.Constant"() <{value = dense<[5.000000e-01, -2.500000e-01]> : tensor<2xf32>}>
// CHECK: %[[C:.*]] = "amk.qconv"(%[[Q]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[B]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{activation = "relu", axis = 0 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<2x1x3x3xi8>, tensor<2xf32>, tensor<2xi8>, tensor<2xf32>, none, none, none, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
// CHECK-NOT: QuantizeLinear
// CHECK: %[[D:.*]] = "onnx.DequantizeLinear"(%[[C]],
// CHECK: return %[[D]]
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @conv_quantized_output(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
    %none = onnx.NoValue
    %s = "onnx.Constant"() <{value = dense<0.02> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
    %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<1x1x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4x4xui8>
    %d = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<1x1x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4x4xf32>
    %w = "onnx.Constant"() <{value = dense<[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[-1, -2, -3], [-4, -5, -6], [-7, -8, -9]]]]> : tensor<2x1x3x3xi8>}> : () -> tensor<2x1x3x3xi8>
    %ws = "onnx.Constant"() <{value = dense<[0.01, 0.02]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %wz = "onnx.Constant"() <{value = dense<0> : tensor<2xi8>}> : () -> tensor<2xi8>
    %wd = "onnx.DequantizeLinear"(%w, %ws, %wz) <{axis = 0 : i64}> : (tensor<2x1x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x1x3x3xf32>
    %b = "onnx.Constant"() <{value = dense<[2500, -625]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %bs = "onnx.Constant"() <{value = dense<[2.0e-04, 4.0e-04]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %bd = "onnx.DequantizeLinear"(%b, %bs, %none) <{axis = 0 : i64}> : (tensor<2xi32>, tensor<2xf32>, none) -> tensor<2xf32>
    %c = "amk.conv"(%d, %wd, %bd, %none) <{activation = "relu", kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>, none) -> tensor<1x2x4x4xf32>
    %ys = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
    %yz = "onnx.Constant"() <{value = dense<0> : tensor<ui8>}> : () -> tensor<ui8>
    %yq = "onnx.QuantizeLinear"(%c, %ys, %yz) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
    %y = "onnx.DequantizeLinear"(%yq, %ys, %yz) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
    return %y : tensor<1x2x4x4xf32>
  }
}

// -----

// A result read by something else than a QuantizeLinear stays float: the
// op has no Y_scale and produces float32; int8 input and weights, no bias.
// CHECK-LABEL: func.func @conv_float_output(
// CHECK: %[[C:.*]] = "amk.qconv"(%arg0, {{.*}} : (tensor<1x2x3x3xi8>, tensor<f32>, tensor<i8>, tensor<3x2x1x1xi8>, tensor<f32>, none, none, none, none, none, none, none) -> tensor<1x3x3x3xf32>
// CHECK: "onnx.Sigmoid"(%[[C]])
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @conv_float_output(%xq: tensor<1x2x3x3xi8>) -> tensor<1x3x3x3xf32> {
    %none = onnx.NoValue
    %s = "onnx.Constant"() <{value = dense<0.1> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<-3> : tensor<i8>}> : () -> tensor<i8>
    %d = "onnx.DequantizeLinear"(%xq, %s, %z) : (tensor<1x2x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x3x3xf32>
    %w = "onnx.Constant"() <{value = dense<[[[[1]], [[2]]], [[[3]], [[4]]], [[[5]], [[6]]]]> : tensor<3x2x1x1xi8>}> : () -> tensor<3x2x1x1xi8>
    %ws = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %wd = "onnx.DequantizeLinear"(%w, %ws, %none) : (tensor<3x2x1x1xi8>, tensor<f32>, none) -> tensor<3x2x1x1xf32>
    %c = "onnx.Conv"(%d, %wd, %none) : (tensor<1x2x3x3xf32>, tensor<3x2x1x1xf32>, none) -> tensor<1x3x3x3xf32>
    %y = "onnx.Sigmoid"(%c) : (tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
    return %y : tensor<1x3x3x3xf32>
  }
}

// -----

// amk.conv's residual, a DequantizeLinear of uint8, is read quantized (Z
// with its scale and zero point).
// CHECK-LABEL: func.func @conv_residual(
// CHECK: "amk.qconv"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %arg1, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-SAME: -> tensor<1x1x2x2xui8>
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @conv_residual(%xq: tensor<1x1x2x2xui8>, %rq: tensor<1x1x2x2xui8>) -> tensor<1x1x2x2xui8> {
    %none = onnx.NoValue
    %s = "onnx.Constant"() <{value = dense<0.1> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<10> : tensor<ui8>}> : () -> tensor<ui8>
    %d = "onnx.DequantizeLinear"(%xq, %s, %z) : (tensor<1x1x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xf32>
    %r = "onnx.DequantizeLinear"(%rq, %s, %z) : (tensor<1x1x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xf32>
    %w = "onnx.Constant"() <{value = dense<3> : tensor<1x1x1x1xi8>}> : () -> tensor<1x1x1x1xi8>
    %ws = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %wd = "onnx.DequantizeLinear"(%w, %ws, %none) : (tensor<1x1x1x1xi8>, tensor<f32>, none) -> tensor<1x1x1x1xf32>
    %c = "amk.conv"(%d, %wd, %none, %r) <{activation = "relu"}> : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>, none, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
    %yq = "onnx.QuantizeLinear"(%c, %s, %z) : (tensor<1x1x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xui8>
    return %yq : tensor<1x1x2x2xui8>
  }
}

// -----

// ONNX QLinearConv: the int32 bias becomes B * x_scale * w_scale (here
// 100 * 0.1 * 0.5 = 5).
// CHECK-LABEL: func.func @qlinear_conv(
// CHECK: %[[B:.*]] = "onnx.Constant"() <{value = dense<5.000000e+00> : tensor<1xf32>}>
// CHECK: "amk.qconv"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[B]],
// CHECK-NOT: QLinearConv
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @qlinear_conv(%xq: tensor<1x1x2x2xui8>) -> tensor<1x1x2x2xui8> {
    %s = "onnx.Constant"() <{value = dense<0.1> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<10> : tensor<ui8>}> : () -> tensor<ui8>
    %w = "onnx.Constant"() <{value = dense<3> : tensor<1x1x1x1xi8>}> : () -> tensor<1x1x1x1xi8>
    %ws = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %wz = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
    %b = "onnx.Constant"() <{value = dense<100> : tensor<1xi32>}> : () -> tensor<1xi32>
    %y = "onnx.QLinearConv"(%xq, %s, %z, %w, %ws, %wz, %s, %z, %b) : (tensor<1x1x2x2xui8>, tensor<f32>, tensor<ui8>, tensor<1x1x1x1xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>, tensor<1xi32>) -> tensor<1x1x2x2xui8>
    return %y : tensor<1x1x2x2xui8>
  }
}

// -----

// MatMul with per-column weight scales becomes amk.qgemm absorbing its
// QuantizeLinear; Gemm with transB keeps the transpose as perm_b and its
// scale axis 0, alpha and beta, and its float result.
// CHECK-LABEL: func.func @gemms(
// CHECK: %[[G1:.*]] = "amk.qgemm"(%arg0, {{.*}} <{alpha = 1.000000e+00 : f32, axis = 1 : i64, beta = 1.000000e+00 : f32}> : (tensor<3x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x2xi8>, tensor<2xf32>, none, none, tensor<f32>, tensor<ui8>) -> tensor<3x2xui8>
// CHECK: "amk.qgemm"(%[[G1]], {{.*}} <{alpha = 5.000000e-01 : f32, axis = 0 : i64, beta = 2.000000e+00 : f32, perm_b = array<i64: 1, 0>}> : (tensor<3x2xui8>, tensor<f32>, tensor<ui8>, tensor<5x2xi8>, tensor<5xf32>, none, tensor<5xf32>, none, none) -> tensor<3x5xf32>
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @gemms(%aq: tensor<3x4xui8>) -> tensor<3x5xf32> {
    %none = onnx.NoValue
    %s = "onnx.Constant"() <{value = dense<0.1> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<10> : tensor<ui8>}> : () -> tensor<ui8>
    %a = "onnx.DequantizeLinear"(%aq, %s, %z) : (tensor<3x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x4xf32>
    %w = "onnx.Constant"() <{value = dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
    %ws = "onnx.Constant"() <{value = dense<[0.5, 0.25]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %wd = "onnx.DequantizeLinear"(%w, %ws, %none) <{axis = 1 : i64}> : (tensor<4x2xi8>, tensor<2xf32>, none) -> tensor<4x2xf32>
    %m = "onnx.MatMul"(%a, %wd) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    %mq = "onnx.QuantizeLinear"(%m, %s, %z) : (tensor<3x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<3x2xui8>
    %md = "onnx.DequantizeLinear"(%mq, %s, %z) : (tensor<3x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x2xf32>
    %w2 = "onnx.Constant"() <{value = dense<1> : tensor<5x2xi8>}> : () -> tensor<5x2xi8>
    %ws2 = "onnx.Constant"() <{value = dense<[0.1, 0.2, 0.3, 0.4, 0.5]> : tensor<5xf32>}> : () -> tensor<5xf32>
    %wd2 = "onnx.DequantizeLinear"(%w2, %ws2, %none) <{axis = 0 : i64}> : (tensor<5x2xi8>, tensor<5xf32>, none) -> tensor<5x2xf32>
    %b = "onnx.Constant"() <{value = dense<1.0> : tensor<5xf32>}> : () -> tensor<5xf32>
    %g = "onnx.Gemm"(%md, %wd2, %b) <{alpha = 0.5 : f32, beta = 2.0 : f32, transB = 1 : i64}> : (tensor<3x2xf32>, tensor<5x2xf32>, tensor<5xf32>) -> tensor<3x5xf32>
    return %g : tensor<3x5xf32>
  }
}

// -----

// No match: a float input, and a weight quantized per input channel (the
// integer kernels need per-tensor or per-output-channel scales). Both
// stay, with a remark each; the float model's own convolutions get none.
// CHECK-LABEL: func.func @no_match(
// CHECK-NOT: amk.q
// CHECK: "onnx.Conv"
// CHECK: "onnx.MatMul"
// CHECK: "onnx.Gemm"
// REMARK: remark: {{.*}}Float{{.*}}op 'onnx.Conv': its input is not a per-tensor DequantizeLinear of an 8-bit tensor
// REMARK: remark: {{.*}}Float{{.*}}op 'onnx.MatMul': its weight's scale is neither per tensor nor per output column
// A Gemm with transA: the integer kernels read A's rows as they are.
// REMARK: remark: {{.*}}Float{{.*}}op 'onnx.Gemm': transA is not implemented on the integer kernels
// REMARK-NOT: remark
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @no_match(%x: tensor<1x1x2x2xf32>, %aq: tensor<3x4xui8>, %atq: tensor<4x3xui8>) -> (tensor<1x1x2x2xf32>, tensor<3x2xf32>, tensor<1x1x2x2xf32>, tensor<3x2xf32>) {
    %none = onnx.NoValue
    %w = "onnx.Constant"() <{value = dense<3> : tensor<1x1x1x1xi8>}> : () -> tensor<1x1x1x1xi8>
    %ws = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %wd = "onnx.DequantizeLinear"(%w, %ws, %none) : (tensor<1x1x1x1xi8>, tensor<f32>, none) -> tensor<1x1x1x1xf32>
    %c = "onnx.Conv"(%x, %wd, %none) : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>, none) -> tensor<1x1x2x2xf32>
    %s = "onnx.Constant"() <{value = dense<0.1> : tensor<f32>}> : () -> tensor<f32>
    %a = "onnx.DequantizeLinear"(%aq, %s, %none) : (tensor<3x4xui8>, tensor<f32>, none) -> tensor<3x4xf32>
    %w2 = "onnx.Constant"() <{value = dense<1> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
    %ws2 = "onnx.Constant"() <{value = dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %wd2 = "onnx.DequantizeLinear"(%w2, %ws2, %none) <{axis = 0 : i64}> : (tensor<4x2xi8>, tensor<4xf32>, none) -> tensor<4x2xf32>
    %m = "onnx.MatMul"(%a, %wd2) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    %wf = "onnx.Constant"() <{value = dense<2.0> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
    %f = "onnx.Conv"(%x, %wf, %none) : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>, none) -> tensor<1x1x2x2xf32>
    %at = "onnx.DequantizeLinear"(%atq, %s, %none) : (tensor<4x3xui8>, tensor<f32>, none) -> tensor<4x3xf32>
    %w3 = "onnx.Constant"() <{value = dense<1> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
    %wd3 = "onnx.DequantizeLinear"(%w3, %ws, %none) : (tensor<4x2xi8>, tensor<f32>, none) -> tensor<4x2xf32>
    %g = "onnx.Gemm"(%at, %wd3, %none) <{transA = 1 : i64}> : (tensor<4x3xf32>, tensor<4x2xf32>, none) -> tensor<3x2xf32>
    return %c, %m, %f, %g : tensor<1x1x2x2xf32>, tensor<3x2xf32>, tensor<1x1x2x2xf32>, tensor<3x2xf32>
  }
}

// -----

// ONNX Runtime's dynamic quantization: DynamicQuantizeLinear ->
// MatMulInteger -> Cast -> Mul(x_scale * W_scale) -> Add(bias) -> Relu is
// one amk.qgemm reading the run-time scale and zero point, with the bias
// as C and the Relu as its activation; the int32 product is gone.
// CHECK-LABEL: func.func @dynamic(
// CHECK: %[[Q:.*]], %[[S:.*]], %[[Z:.*]] = "onnx.DynamicQuantizeLinear"(%arg0)
// CHECK: %[[G:.*]] = "amk.qgemm"(%[[Q]], %[[S]], %[[Z]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{activation = "relu", axis = 1 : i64}> : (tensor<3x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x2xi8>, tensor<f32>, tensor<i8>, tensor<2xf32>, none, none) -> tensor<3x2xf32>
// CHECK-NOT: MatMulInteger
// CHECK-NOT: onnx.Cast
// CHECK: return %[[G]]
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @dynamic(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
    %q, %s, %z = "onnx.DynamicQuantizeLinear"(%x) : (tensor<3x4xf32>) -> (tensor<3x4xui8>, tensor<f32>, tensor<ui8>)
    %w = "onnx.Constant"() <{value = dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
    %wz = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
    %acc = "onnx.MatMulInteger"(%q, %w, %z, %wz) : (tensor<3x4xui8>, tensor<4x2xi8>, tensor<ui8>, tensor<i8>) -> tensor<3x2xi32>
    %f = "onnx.Cast"(%acc) <{to = 1 : i64}> : (tensor<3x2xi32>) -> tensor<3x2xf32>
    %ws = "onnx.Constant"() <{value = dense<0.01> : tensor<f32>}> : () -> tensor<f32>
    %sc = "onnx.Mul"(%s, %ws) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %m = "onnx.Mul"(%f, %sc) : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
    %b = "onnx.Constant"() <{value = dense<[0.5, -0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %a = "onnx.Add"(%m, %b) : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
    %r = "onnx.Relu"(%a) : (tensor<3x2xf32>) -> tensor<3x2xf32>
    return %r : tensor<3x2xf32>
  }
}


// -----

// Weight-only: a float input times a DequantizeLinear of int4 constants in
// blocks along the reduction axis (ONNX Runtime's 4-bit QDQ layout) is
// amk.wgemm, the blocks and the zero point kept; a Gemm with transB over
// uint8 per-column weights keeps perm_b, alpha, beta and its bias. With
// weight-only=false both stay float products.
// CHECK-LABEL: func.func @weight_only(
// CHECK: %[[A:.*]] = "amk.wgemm"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{alpha = 1.000000e+00 : f32, axis = 0 : i64, beta = 1.000000e+00 : f32, block_size = 32 : i64}> : (tensor<3x64xf32>, tensor<64x2xui4>, tensor<2x2xf32>, tensor<2x2xui4>, none) -> tensor<3x2xf32>
// CHECK: "amk.wgemm"(%[[A]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{alpha = 5.000000e-01 : f32, axis = 0 : i64, beta = 2.000000e+00 : f32, perm_b = array<i64: 1, 0>}> : (tensor<3x2xf32>, tensor<5x2xui8>, tensor<5xf32>, tensor<5xui8>, tensor<5xf32>) -> tensor<3x5xf32>
// CHECK-NOT: DequantizeLinear
// With activation-bits=8 the int4 product takes int8 activations; the
// int8 one keeps float activations (u8 x s8 pairs would saturate).
// A8-LABEL: func.func @weight_only(
// A8: "amk.wgemm"({{.*}}) <{activation_bits = 8 : i64, alpha = 1.000000e+00 : f32, axis = 0 : i64, beta = 1.000000e+00 : f32, block_size = 32 : i64}> : (tensor<3x64xf32>, tensor<64x2xui4>
// A8-NOT: activation_bits
// A8: "amk.wgemm"({{.*}}) <{alpha = 5.000000e-01 : f32
// With activation-bits=16 it is the other way round: the per-column int8
// product takes bf16 activations, the int4 blocks keep float ones.
// B16-LABEL: func.func @weight_only(
// B16: "amk.wgemm"({{.*}}) <{alpha = 1.000000e+00 : f32, axis = 0 : i64, beta = 1.000000e+00 : f32, block_size = 32 : i64}> : (tensor<3x64xf32>, tensor<64x2xui4>
// B16: "amk.wgemm"({{.*}}) <{activation_bits = 16 : i64, alpha = 5.000000e-01 : f32, axis = 0 : i64, beta = 2.000000e+00 : f32, perm_b = array<i64: 1, 0>}> : (tensor<3x2xf32>, tensor<5x2xui8>
// NOWO-LABEL: func.func @weight_only(
// NOWO-NOT: amk.wgemm
// NOWO: "onnx.MatMul"
// NOWO: "onnx.Gemm"
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 0 average-pools
// STATS-NEXT: (S) 0 concats
// STATS-NEXT: (S) 0 convs
// STATS-NEXT: (S) 0 data-movement
// STATS-NEXT: (S) 0 gemms
// STATS-NEXT: (S) 0 max-pools
// STATS-NEXT: (S) 0 muls
// STATS-NEXT: (S) 0 quantized-outputs
// STATS-NEXT: (S) 0 resizes
// STATS-NEXT: (S) 0 tables
// STATS-NEXT: (S) 2 weight-only
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @weight_only(%x: tensor<3x64xf32>) -> tensor<3x5xf32> {
    %w = "onnx.Constant"() <{value = dense<3> : tensor<64x2xui4>}> : () -> tensor<64x2xui4>
    %ws = "onnx.Constant"() <{value = dense<[[0.5, 0.25], [0.1, 0.2]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
    %wz = "onnx.Constant"() <{value = dense<8> : tensor<2x2xui4>}> : () -> tensor<2x2xui4>
    %wd = "onnx.DequantizeLinear"(%w, %ws, %wz) <{axis = 0 : i64, block_size = 32 : i64}> : (tensor<64x2xui4>, tensor<2x2xf32>, tensor<2x2xui4>) -> tensor<64x2xf32>
    %m = "onnx.MatMul"(%x, %wd) : (tensor<3x64xf32>, tensor<64x2xf32>) -> tensor<3x2xf32>
    %w2 = "onnx.Constant"() <{value = dense<130> : tensor<5x2xui8>}> : () -> tensor<5x2xui8>
    %ws2 = "onnx.Constant"() <{value = dense<[0.1, 0.2, 0.3, 0.4, 0.5]> : tensor<5xf32>}> : () -> tensor<5xf32>
    %wz2 = "onnx.Constant"() <{value = dense<128> : tensor<5xui8>}> : () -> tensor<5xui8>
    %wd2 = "onnx.DequantizeLinear"(%w2, %ws2, %wz2) <{axis = 0 : i64}> : (tensor<5x2xui8>, tensor<5xf32>, tensor<5xui8>) -> tensor<5x2xf32>
    %b = "onnx.Constant"() <{value = dense<1.0> : tensor<5xf32>}> : () -> tensor<5xf32>
    %g = "onnx.Gemm"(%m, %wd2, %b) <{alpha = 0.5 : f32, beta = 2.0 : f32, transB = 1 : i64}> : (tensor<3x2xf32>, tensor<5x2xf32>, tensor<5xf32>) -> tensor<3x5xf32>
    return %g : tensor<3x5xf32>
  }
}

// -----

// amk.gemm's run-time addend (a residual of the result's shape) stays C of
// the amk.wgemm, which the kernel adds before the activation.
// CHECK-LABEL: func.func @weight_only_residual(
// CHECK: "amk.wgemm"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %arg0) <{activation = "relu", {{.*}}}> : (tensor<2x4xf32>, tensor<4x4xi8>, tensor<4xf32>, none, tensor<2x4xf32>) -> tensor<2x4xf32>
// STATS: LowerQDQ
// STATS: (S) 1 weight-only
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @weight_only_residual(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %none = onnx.NoValue
    %w = "onnx.Constant"() <{value = dense<5> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
    %ws = "onnx.Constant"() <{value = dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %wd = "onnx.DequantizeLinear"(%w, %ws, %none) <{axis = 1 : i64}> : (tensor<4x4xi8>, tensor<4xf32>, none) -> tensor<4x4xf32>
    %g = "amk.gemm"(%x, %wd, %x) <{activation = "relu"}> : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    return %g : tensor<2x4xf32>
  }
}

// -----

// ONNX Runtime's MatMulNBits (a com.microsoft node, kept as onnx.Generic):
// the packed nibbles, low first, unpack into uint4 [N, K] read through
// perm_b (column 0: 1 2 3 4, column 1: 5 6 7 8, the block's padding
// dropped), the scales and the packed zero points (3 and 10) per (column,
// block), blocks along axis 1. With weight-only=false it stays as it is.
// CHECK-LABEL: func.func @matmul_nbits(
// CHECK-DAG: dense<{{\[\[}}1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xui4>
// CHECK-DAG: dense<{{\[\[}}5.000000e-01], [2.500000e-01]]> : tensor<2x1xf32>
// CHECK-DAG: dense<{{\[\[}}3], [10]]> : tensor<2x1xui4>
// CHECK: "amk.wgemm"(%arg0, {{.*}}) <{activation_bits = 8 : i64, alpha = 1.000000e+00 : f32, axis = 1 : i64, beta = 1.000000e+00 : f32, block_size = 16 : i64, perm_b = array<i64: 1, 0>}>
// CHECK: "amk.wgemm"(%arg0, {{.*}}) <{alpha = 1.000000e+00 : f32, axis = 1 : i64, beta = 1.000000e+00 : f32, block_size = 16 : i64, perm_b = array<i64: 1, 0>}> : (tensor<3x4xf32>, tensor<2x4xui4>, tensor<2x1xf32>, tensor<2x1xui4>, none) -> tensor<3x2xf32>
// CHECK-NOT: onnx.Generic
// NOWO-LABEL: func.func @matmul_nbits(
// NOWO: "onnx.Generic"
// accuracy_level 4 (ONNX Runtime's int8 activations) sets activation_bits
// 8 whatever the pass option; the node without it keeps float.
// A8-LABEL: func.func @matmul_nbits(
// A8: "amk.wgemm"(%arg0, {{.*}}) <{activation_bits = 8 : i64, alpha
// A8: "amk.wgemm"(%arg0, {{.*}}) <{alpha
// STATS: LowerQDQ
// STATS: (S) 2 weight-only
module attributes {onnx.opset_import = {ai.onnx = 21 : i64, com.microsoft = 1 : i64}} {
  func.func @matmul_nbits(%a: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
    %b = "onnx.Constant"() <{value = dense<[[[33, 67, 0, 0, 0, 0, 0, 0]], [[101, 135, 0, 0, 0, 0, 0, 0]]]> : tensor<2x1x8xui8>}> : () -> tensor<2x1x8xui8>
    %s = "onnx.Constant"() <{value = dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %z = "onnx.Constant"() <{value = dense<[3, 10]> : tensor<2xui8>}> : () -> tensor<2xui8>
    %x = "onnx.Generic"(%a, %b, %s, %z) <{domain = "com.microsoft", onnx_attrs = {K = 4 : i64, N = 2 : i64, accuracy_level = 4 : i64, bits = 4 : i64, block_size = 16 : i64}, op_type = "MatMulNBits", region_names = []}> : (tensor<3x4xf32>, tensor<2x1x8xui8>, tensor<2xf32>, tensor<2xui8>) -> tensor<3x2xf32>
    %y = "onnx.Generic"(%a, %b, %s, %z) <{domain = "com.microsoft", onnx_attrs = {K = 4 : i64, N = 2 : i64, bits = 4 : i64, block_size = 16 : i64}, op_type = "MatMulNBits", region_names = []}> : (tensor<3x4xf32>, tensor<2x1x8xui8>, tensor<2xf32>, tensor<2xui8>) -> tensor<3x2xf32>
    return %x, %y : tensor<3x2xf32>, tensor<3x2xf32>
  }
}

// -----

// DequantizeLinear -> MaxPool -> QuantizeLinear: the pool runs on the
// 8-bit tensor. With the same scale and zero point on both sides the pair
// goes; with a new scale the pair after the pool is a requantizing table.
// CHECK-LABEL: func.func @max_pools(
// CHECK: %[[P:.*]], %{{.*}} = "onnx.MaxPool"(%arg0) <{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x2x8x8xui8>) -> (tensor<1x2x4x4xui8>, none)
// CHECK: %[[P2:.*]], %{{.*}} = "onnx.MaxPool"(%arg0) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x2x8x8xui8>) -> (tensor<1x2x4x4xui8>, none)
// CHECK: %[[T:.*]] = "amk.qtable"(%[[P2]], %{{.*}}) : (tensor<1x2x4x4xui8>, tensor<256xui8>) -> tensor<1x2x4x4xui8>
// CHECK: return %[[P]], %[[T]]
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 0 average-pools
// STATS-NEXT: (S) 0 concats
// STATS-NEXT: (S) 0 convs
// STATS-NEXT: (S) 0 data-movement
// STATS-NEXT: (S) 0 gemms
// STATS-NEXT: (S) 2 max-pools
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @max_pools(%x: tensor<1x2x8x8xui8>) -> (tensor<1x2x4x4xui8>, tensor<1x2x4x4xui8>) {
    %s = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %s2 = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
    %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x2x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x8xf32>
    %m, %i = "onnx.MaxPool"(%d) <{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, none)
    %q = "onnx.QuantizeLinear"(%m, %s, %z) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
    %d2 = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x2x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x8xf32>
    %m2, %i2 = "onnx.MaxPool"(%d2) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, none)
    %q2 = "onnx.QuantizeLinear"(%m2, %s2, %z) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
    return %q, %q2 : tensor<1x2x4x4xui8>, tensor<1x2x4x4xui8>
  }
}

// -----

// A residual Add in ONNX Runtime's QDQ layout, per tensor and of one
// shape, through Relu, is amk.qadd on the bytes; so is one whose sum stays
// float (before a LayerNorm in AMK's own graphs) when its 8-bit inputs
// exist anyway (here also the sum with a second reader, whose
// QuantizeLinear then reads the float result), and one that broadcasts.
// A float one whose input would be quantized for it alone stays.
// CHECK-LABEL: func.func @residual_add(
// CHECK: "amk.qadd"(%arg0, %{{.*}}, %{{.*}}, %arg1, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{activation = "relu"}> : (tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xui8>
// CHECK: %[[S2:.*]] = "amk.qadd"(%arg0, %{{.*}}, %{{.*}}, %arg1, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : ({{.*}}, none, none) -> tensor<1x4x3x3xf32>
// CHECK: "onnx.QuantizeLinear"(%[[S2]]
// CHECK: "amk.qadd"(%arg0, %{{.*}}, %{{.*}}, %arg2, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<1x4x1x1xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xui8>
// CHECK: "amk.qadd"(%arg0, %{{.*}}, %{{.*}}, %arg1, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>, none, none) -> tensor<1x4x3x3xf32>
// CHECK: "onnx.Add"
// STATS: LowerQDQ
// STATS-NEXT: (S) 4 adds
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @residual_add(%a: tensor<1x4x3x3xui8>, %b: tensor<1x4x3x3xui8>, %c: tensor<1x4x1x1xui8>, %x: tensor<1x4x3x3xf32>) -> (tensor<1x4x3x3xui8>, tensor<1x4x3x3xui8>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xui8>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) {
    %sa = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
    %za = "onnx.Constant"() <{value = dense<120> : tensor<ui8>}> : () -> tensor<ui8>
    %sb = "onnx.Constant"() <{value = dense<0.07> : tensor<f32>}> : () -> tensor<f32>
    %zb = "onnx.Constant"() <{value = dense<110> : tensor<ui8>}> : () -> tensor<ui8>
    %sy = "onnx.Constant"() <{value = dense<0.09> : tensor<f32>}> : () -> tensor<f32>
    %zy = "onnx.Constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
    %da = "onnx.DequantizeLinear"(%a, %sa, %za) : (tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xf32>
    %db = "onnx.DequantizeLinear"(%b, %sb, %zb) : (tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xf32>
    %dc = "onnx.DequantizeLinear"(%c, %sb, %zb) : (tensor<1x4x1x1xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x1x1xf32>
    %s = "onnx.Add"(%da, %db) : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
    %r = "onnx.Relu"(%s) : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
    %y = "onnx.QuantizeLinear"(%r, %sy, %zy) : (tensor<1x4x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xui8>
    %s2 = "onnx.Add"(%da, %db) : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
    %y2 = "onnx.QuantizeLinear"(%s2, %sy, %zy) : (tensor<1x4x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xui8>
    %s3 = "onnx.Add"(%da, %dc) : (tensor<1x4x3x3xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x3xf32>
    %y3 = "onnx.QuantizeLinear"(%s3, %sy, %zy) : (tensor<1x4x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xui8>
    %s4 = "onnx.Add"(%da, %db) : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
    %qx = "onnx.QuantizeLinear"(%x, %sb, %zb) : (tensor<1x4x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xui8>
    %dx = "onnx.DequantizeLinear"(%qx, %sb, %zb) : (tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xf32>
    %s5 = "onnx.Add"(%da, %dx) : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
    return %y, %y2, %s2, %y3, %s4, %s5 : tensor<1x4x3x3xui8>, tensor<1x4x3x3xui8>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xui8>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>
  }
}

// -----

// Mul of two per-tensor quantized tensors, broadcasting (a
// squeeze-and-excitation scale) and through Relu: amk.qmul. One of mixed
// 8-bit types stays float.
// CHECK-LABEL: func.func @muls(
// CHECK: "amk.qmul"(%arg0, %{{.*}}, %{{.*}}, %arg1, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{activation = "relu"}> : (tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<1x4x1x1xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xui8>
// CHECK: "onnx.Mul"
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 0 average-pools
// STATS-NEXT: (S) 0 concats
// STATS-NEXT: (S) 0 convs
// STATS-NEXT: (S) 0 data-movement
// STATS-NEXT: (S) 0 gemms
// STATS-NEXT: (S) 0 max-pools
// STATS-NEXT: (S) 1 muls
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @muls(%a: tensor<1x4x3x3xui8>, %g: tensor<1x4x1x1xui8>, %c: tensor<1x4x3x3xi8>) -> (tensor<1x4x3x3xui8>, tensor<1x4x3x3xui8>) {
    %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<120> : tensor<ui8>}> : () -> tensor<ui8>
    %zi = "onnx.Constant"() <{value = dense<3> : tensor<i8>}> : () -> tensor<i8>
    %da = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xf32>
    %dg = "onnx.DequantizeLinear"(%g, %s, %z) : (tensor<1x4x1x1xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x1x1xf32>
    %dc = "onnx.DequantizeLinear"(%c, %s, %zi) : (tensor<1x4x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x3x3xf32>
    %m = "onnx.Mul"(%da, %dg) : (tensor<1x4x3x3xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x3xf32>
    %r = "onnx.Relu"(%m) : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
    %y = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<1x4x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xui8>
    %m2 = "onnx.Mul"(%da, %dc) : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
    %y2 = "onnx.QuantizeLinear"(%m2, %s, %z) : (tensor<1x4x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xui8>
    return %y, %y2 : tensor<1x4x3x3xui8>, tensor<1x4x3x3xui8>
  }
}

// -----

// Concat in ONNX Runtime's QDQ layout: the input quantized as the output
// is read as it is, the other through a requantizing table; a Concat
// whose result stays float is left.
// CHECK-LABEL: func.func @concats(
// CHECK: %[[T:.*]] = "amk.qtable"(%arg1, %{{.*}}) : (tensor<1x3x2x2xui8>, tensor<256xui8>) -> tensor<1x3x2x2xui8>
// CHECK: %[[C:.*]] = "onnx.Concat"(%arg0, %[[T]]) <{axis = 1 : i64}> : (tensor<1x2x2x2xui8>, tensor<1x3x2x2xui8>) -> tensor<1x5x2x2xui8>
// CHECK: "onnx.Concat"(%{{.*}}, %{{.*}}) <{axis = 1 : i64}> : (tensor<1x2x2x2xf32>, tensor<1x3x2x2xf32>) -> tensor<1x5x2x2xf32>
// CHECK: return %[[C]],
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 0 average-pools
// STATS-NEXT: (S) 1 concats
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @concats(%a: tensor<1x2x2x2xui8>, %b: tensor<1x3x2x2xui8>) -> (tensor<1x5x2x2xui8>, tensor<1x5x2x2xf32>) {
    %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
    %s2 = "onnx.Constant"() <{value = dense<0.02> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<120> : tensor<ui8>}> : () -> tensor<ui8>
    %da = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<1x2x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xf32>
    %db = "onnx.DequantizeLinear"(%b, %s2, %z) : (tensor<1x3x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3x2x2xf32>
    %c = "onnx.Concat"(%da, %db) <{axis = 1 : i64}> : (tensor<1x2x2x2xf32>, tensor<1x3x2x2xf32>) -> tensor<1x5x2x2xf32>
    %y = "onnx.QuantizeLinear"(%c, %s, %z) : (tensor<1x5x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x5x2x2xui8>
    %c2 = "onnx.Concat"(%da, %db) <{axis = 1 : i64}> : (tensor<1x2x2x2xf32>, tensor<1x3x2x2xf32>) -> tensor<1x5x2x2xf32>
    return %y, %c2 : tensor<1x5x2x2xui8>, tensor<1x5x2x2xf32>
  }
}

// -----

// Shape ops and a nearest Resize between a DequantizeLinear and a
// QuantizeLinear run on the bytes; a new quantization (here also a new
// type) is a table before an op that does not shrink the tensor. A linear
// Resize is amk.qresize, with the Resize's operands and attributes.
// CHECK-LABEL: func.func @data_movement(
// CHECK: %[[R:.*]] = "onnx.Reshape"(%arg0, %{{.*}}) : (tensor<1x2x2x3xui8>, tensor<2xi64>) -> tensor<2x6xui8>
// CHECK: %[[T:.*]] = "amk.qtable"(%arg0, %{{.*}}) : (tensor<1x2x2x3xui8>, tensor<256xui8>) -> tensor<1x2x2x3xui8>
// CHECK: %[[U:.*]] = "onnx.Resize"(%[[T]], %{{.*}}, %{{.*}}, %{{.*}}) <{mode = "nearest"}> : (tensor<1x2x2x3xui8>, none, tensor<4xf32>, none) -> tensor<1x2x4x6xui8>
// CHECK: %[[PT0:.*]] = "amk.qtable"(%arg0, %{{.*}}) : (tensor<1x2x2x3xui8>, tensor<256xi8>) -> tensor<1x2x2x3xi8>
// CHECK: %[[PT:.*]] = "onnx.Transpose"(%[[PT0]]) <{perm = array<i64: 0, 1, 3, 2>}> : (tensor<1x2x2x3xi8>) -> tensor<1x2x3x2xi8>
// CHECK: %[[L:.*]] = "amk.qresize"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{mode = "linear"}> : (tensor<1x2x2x3xui8>, none, tensor<4xf32>, none, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x6xui8>
// CHECK: return %[[R]], %[[U]], %[[PT]], %[[L]]
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 0 average-pools
// STATS-NEXT: (S) 0 concats
// STATS-NEXT: (S) 0 convs
// STATS-NEXT: (S) 3 data-movement
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @data_movement(%x: tensor<1x2x2x3xui8>) -> (tensor<2x6xui8>, tensor<1x2x4x6xui8>, tensor<1x2x3x2xi8>, tensor<1x2x4x6xui8>) {
    %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
    %s2 = "onnx.Constant"() <{value = dense<0.02> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<120> : tensor<ui8>}> : () -> tensor<ui8>
    %zi = "onnx.Constant"() <{value = dense<-5> : tensor<i8>}> : () -> tensor<i8>
    %shape = "onnx.Constant"() <{value = dense<[2, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %scales = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %none = onnx.NoValue
    %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x2x2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x3xf32>
    %r = "onnx.Reshape"(%d, %shape) : (tensor<1x2x2x3xf32>, tensor<2xi64>) -> tensor<2x6xf32>
    %y1 = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<2x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x6xui8>
    %u = "onnx.Resize"(%d, %none, %scales, %none) <{mode = "nearest"}> : (tensor<1x2x2x3xf32>, none, tensor<4xf32>, none) -> tensor<1x2x4x6xf32>
    %y2 = "onnx.QuantizeLinear"(%u, %s2, %z) : (tensor<1x2x4x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x6xui8>
    %p = "onnx.Transpose"(%d) <{perm = array<i64: 0, 1, 3, 2>}> : (tensor<1x2x2x3xf32>) -> tensor<1x2x3x2xf32>
    %y3 = "onnx.QuantizeLinear"(%p, %s, %zi) : (tensor<1x2x3x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x3x2xi8>
    %l = "onnx.Resize"(%d, %none, %scales, %none) <{mode = "linear"}> : (tensor<1x2x2x3xf32>, none, tensor<4xf32>, none) -> tensor<1x2x4x6xf32>
    %y4 = "onnx.QuantizeLinear"(%l, %s, %z) : (tensor<1x2x4x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x6xui8>
    return %y1, %y2, %y3, %y4 : tensor<2x6xui8>, tensor<1x2x4x6xui8>, tensor<1x2x3x2xi8>, tensor<1x2x4x6xui8>
  }
}

// -----

// Elementwise chains from one DequantizeLinear to a QuantizeLinear are
// 256-entry tables: Swish (x * sigmoid(x)) and x * 2 + 1 with scalar
// constants; a bare pair with the same quantization is the bytes. A chain
// with a second reader, and one reading a non-scalar constant, stay.
// CHECK-LABEL: func.func @tables(
// CHECK: %[[SW:.*]] = "amk.qtable"(%arg0, %[[TS:.*]]) : (tensor<1x8xui8>, tensor<256xui8>) -> tensor<1x8xui8>
// CHECK: %[[LIN:.*]] = "amk.qtable"(%arg0, %{{.*}}) : (tensor<1x8xui8>, tensor<256xui8>) -> tensor<1x8xui8>
// CHECK: "onnx.Sigmoid"
// CHECK: "onnx.Mul"(%{{.*}}, %{{.*}}) : (tensor<1x8xf32>, tensor<8xf32>)
// CHECK: return %[[SW]], %[[LIN]], %arg0,
// STATS: LowerQDQ
// STATS: (S) 3 tables
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @tables(%x: tensor<1x8xui8>) -> (tensor<1x8xui8>, tensor<1x8xui8>, tensor<1x8xui8>, tensor<1x8xui8>, tensor<1x8xf32>, tensor<1x8xui8>) {
    %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<120> : tensor<ui8>}> : () -> tensor<ui8>
    %two = "onnx.Constant"() <{value = dense<2.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %vec = "onnx.Constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xf32>
    %sg = "onnx.Sigmoid"(%d) : (tensor<1x8xf32>) -> tensor<1x8xf32>
    %sw = "onnx.Mul"(%d, %sg) : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
    %y1 = "onnx.QuantizeLinear"(%sw, %s, %z) : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
    %m = "onnx.Mul"(%d, %two) : (tensor<1x8xf32>, tensor<1xf32>) -> tensor<1x8xf32>
    %a = "onnx.Add"(%m, %one) : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
    %y2 = "onnx.QuantizeLinear"(%a, %s, %z) : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
    %y3 = "onnx.QuantizeLinear"(%d, %s, %z) : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
    %sg2 = "onnx.Sigmoid"(%d) : (tensor<1x8xf32>) -> tensor<1x8xf32>
    %y4 = "onnx.QuantizeLinear"(%sg2, %s, %z) : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
    %v = "onnx.Mul"(%d, %vec) : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
    %y5 = "onnx.QuantizeLinear"(%v, %s, %z) : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
    return %y1, %y2, %y3, %y4, %sg2, %y5 : tensor<1x8xui8>, tensor<1x8xui8>, tensor<1x8xui8>, tensor<1x8xui8>, tensor<1x8xf32>, tensor<1x8xui8>
  }
}

// -----

// Resize-10 reads scales as its second operand and maps coordinates
// asymmetrically, unlike the later versions' defaults amk.qresize takes:
// it stays float.
// CHECK-LABEL: func.func @resize_v10(
// CHECK: "onnx.Resize"(%{{.*}}) <{mode = "linear"}> : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xf32>
// STATS: LowerQDQ
// STATS: (S) 0 resizes
module attributes {onnx.opset_import = {ai.onnx = 10 : i64}} {
  func.func @resize_v10(%x: tensor<1x1x2x2xui8>) -> tensor<1x1x4x4xui8> {
    %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<120> : tensor<ui8>}> : () -> tensor<ui8>
    %scales = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x1x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xf32>
    %none = onnx.NoValue
    %r = "onnx.Resize"(%d, %none, %scales, %none) <{mode = "linear"}> : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xf32>
    %y = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<1x1x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4x4xui8>
    return %y : tensor<1x1x4x4xui8>
  }
}

// -----

// AveragePool and GlobalAveragePool between a DequantizeLinear and a
// QuantizeLinear are amk.qaverage_pool with the pool's attributes (none
// for the global one); a pool whose result stays float is left.
// CHECK-LABEL: func.func @average_pools(
// CHECK: %[[A:.*]] = "amk.qaverage_pool"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{count_include_pad = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x2x8x8xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
// CHECK: %[[G:.*]] = "amk.qaverage_pool"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x2x8x8xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x1x1xui8>
// CHECK: "onnx.GlobalAveragePool"
// CHECK: return %[[A]], %[[G]],
// STATS: LowerQDQ
// STATS-NEXT: (S) 0 adds
// STATS-NEXT: (S) 2 average-pools
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @average_pools(%x: tensor<1x2x8x8xui8>) -> (tensor<1x2x4x4xui8>, tensor<1x2x1x1xui8>, tensor<1x2x1x1xf32>) {
    %s = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %s2 = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
    %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x2x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x8xf32>
    %a = "onnx.AveragePool"(%d) <{count_include_pad = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
    %y = "onnx.QuantizeLinear"(%a, %s, %z) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
    %g = "onnx.GlobalAveragePool"(%d) : (tensor<1x2x8x8xf32>) -> tensor<1x2x1x1xf32>
    %y2 = "onnx.QuantizeLinear"(%g, %s2, %z) : (tensor<1x2x1x1xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x1x1xui8>
    %g3 = "onnx.GlobalAveragePool"(%d) : (tensor<1x2x8x8xf32>) -> tensor<1x2x1x1xf32>
    return %y, %y2, %g3 : tensor<1x2x4x4xui8>, tensor<1x2x1x1xui8>, tensor<1x2x1x1xf32>
  }
}
