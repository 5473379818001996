// amk-quantize-dynamic: matrix products with constant weights get int8
// weights (per output column, max|w| / 127) and a DynamicQuantizeLinear of
// their input (one per input value), as one amk.qgemm with a float result.
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-quantize-dynamic)' | FileCheck %s
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-quantize-dynamic)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// The input is a graph input here and on both products: a run with it
// compiled through the integer kernels matches the quantized graph on the
// reference interpreter.
// RUN: amk-run %s --seed 3 --threads 2 --pipeline='builtin.module(amk-quantize-dynamic,amk-schedule-megakernel{workers=2})' --check-pipeline --min-cosine 0.999 | FileCheck %s --check-prefix=EXEC
// STATS: QuantizeDynamic
// STATS-NEXT: (S) 2 products
// EXEC: ok vs

// Column 0 of W has max |w| 2 (scale 2/127: 1 -> 64, 2 -> 127), column 1
// max 0.5 (0.5 -> 127, -0.25 -> -64). Both products read the same
// DynamicQuantizeLinear; amk.gemm's bias and activation stay.
// CHECK-LABEL: func.func @products(
// CHECK: %[[Q:.*]], %[[S:.*]], %[[Z:.*]] = "onnx.DynamicQuantizeLinear"(%arg0) : (tensor<3x2xf32>) -> (tensor<3x2xui8>, tensor<f32>, tensor<ui8>)
// CHECK-NOT: DynamicQuantizeLinear
// CHECK-DAG: "onnx.Constant"() <{value = dense<{{\[\[}}64, 127], [127, -64]]> : tensor<2x2xi8>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[0.0157480314, 0.00393700786]> : tensor<2xf32>}>
// CHECK: "amk.qgemm"(%[[Q]], %[[S]], %[[Z]], {{.*}} <{alpha = 1.000000e+00 : f32, axis = 1 : i64, beta = 1.000000e+00 : f32}> : (tensor<3x2xui8>, tensor<f32>, tensor<ui8>, tensor<2x2xi8>, tensor<2xf32>, none, none, none, none) -> tensor<3x2xf32>
// CHECK: "amk.qgemm"(%[[Q]], %[[S]], %[[Z]], {{.*}} <{activation = "relu", alpha = 1.000000e+00 : f32, axis = 1 : i64, beta = 1.000000e+00 : f32}> : (tensor<3x2xui8>, tensor<f32>, tensor<ui8>, tensor<2x2xi8>, tensor<2xf32>, none, tensor<2xf32>, none, none) -> tensor<3x2xf32>
// CHECK-NOT: onnx.MatMul
module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @products(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
    %none = onnx.NoValue
    %w = "onnx.Constant"() <{value = dense<[[1.0, 0.5], [2.0, -0.25]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
    %m = "onnx.MatMul"(%x, %w) : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
    %b = "onnx.Constant"() <{value = dense<[0.5, -0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %g = "amk.gemm"(%x, %w, %b) <{activation = "relu"}> : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
    return %m, %g : tensor<3x2xf32>, tensor<3x2xf32>
  }
}
