// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fold-constants)' | FileCheck %s
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fold-constants)' | FileCheck %s --check-prefix=FOLDED
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fold-constants{max-elements=4 keep-qdq=false})' | FileCheck %s --check-prefix=SMALL
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fold-constants{max-elements=4})' --remarks-filter=amk-fold-constants --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fold-constants)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// The transposed weight, its scaled version and the shape arithmetic fold;
// the DequantizeLinear of a quantized weight stays (keep-qdq) and so does
// RandomNormalLike.

// CHECK-LABEL: func.func @main_graph(
// CHECK-SAME: -> (tensor<3x2xf32>, tensor<2xf32>, tensor<2x3xf32>)
// CHECK-DAG: "onnx.Constant"() <{value = dense<{{\[}}[2.000000e+00, 8.000000e+00], [4.000000e+00, 1.000000e+01], [6.000000e+00, 1.200000e+01]]> : tensor<3x2xf32>}>
// CHECK-DAG: "onnx.DequantizeLinear"
// CHECK-DAG: "onnx.RandomNormalLike"
// The folded ops are gone from the whole function (a CHECK-NOT after the
// DAG group above would only see what follows its last match).
// FOLDED-LABEL: func.func @main_graph(
// FOLDED-NOT: onnx.Transpose
// FOLDED-NOT: onnx.Mul
// FOLDED: return
// SMALL-LABEL: func.func @main_graph(
// SMALL: onnx.Transpose
// SMALL: onnx.Mul
// SMALL-NOT: onnx.DequantizeLinear
// REMARK: :[[@LINE+8]]:10: remark: [Missed] TooLarge | Category:amk-fold-constants | Function=main_graph | Remark="op 'onnx.Transpose': constant inputs or result above max-elements=4"
// REMARK: remark: [Passed] Folded | Category:amk-fold-constants | Remark="folded 0 ops with constant inputs; 1 left alone (above max-elements)"
// STATS: FoldConstants
// STATS-NEXT: (S) 2 folded - ops folded to constants
// STATS-NEXT: (S) 0 too-large
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%x: tensor<2x3xf32>) -> (tensor<*xf32>, tensor<2xf32>, tensor<2x3xf32>) {
    %w = "onnx.Constant"() <{value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
    %t = "onnx.Transpose"(%w) : (tensor<2x3xf32>) -> tensor<*xf32>
    %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    %m = "onnx.Mul"(%t, %two) : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
    %q = "onnx.Constant"() <{value = dense<[3, 5]> : tensor<2xi8>}> : () -> tensor<2xi8>
    %s = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %none = "onnx.NoValue"() : () -> none
    %d = "onnx.DequantizeLinear"(%q, %s, %none) : (tensor<2xi8>, tensor<f32>, none) -> tensor<2xf32>
    %r = "onnx.RandomNormalLike"(%w) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    return %m, %d, %r : tensor<*xf32>, tensor<2xf32>, tensor<2x3xf32>
  }
}
