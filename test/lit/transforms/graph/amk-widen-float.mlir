// RUN: rm -rf %t && split-file %s %t
// RUN: amk-opt %t/widen.mlir --pass-pipeline='builtin.module(amk-widen-float)' | FileCheck %s
// RUN: amk-opt %t/widen.mlir --pass-pipeline='builtin.module(amk-widen-float,canonicalize)' | FileCheck %s --check-prefix=CANON
// RUN: amk-opt %t/widen.mlir --pass-pipeline='builtin.module(amk-widen-float)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: (S) 3 widened
// Without the pass the runtime refuses the float16 product; with it (in
// amk-graph-opt) the compiled program gives the interpreter's outputs, for
// float16 and bfloat16, at 1 and 2 workers.
// RUN: not amk-run %t/widen.mlir --pipeline='builtin.module(amk-schedule-megakernel{workers=1})' --seed 1 2>&1 | FileCheck %s --check-prefix=REFUSED
// REFUSED: the runtime has no kernel for op 'onnx.MatMul'
// RUN: amk-run %t/widen.mlir --seed 1 --threads 1 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/widen.mlir --seed 2 --threads 2 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/bf16.mlir --seed 3 --threads 2 --check-reference --rtol 1.6e-2 | FileCheck %s --check-prefix=EXEC
// EXEC: ok vs reference

//--- widen.mlir
// The product and the Relu compute in float32 between casts; the
// Transpose moves float16 as it is; the Cast is left alone.
// CHECK-LABEL: func.func @main_graph(
// CHECK: %[[T:.*]] = "onnx.Transpose"(%arg1) {{.*}} -> tensor<4x3xf16>
// CHECK-DAG: %[[A:.*]] = "onnx.Cast"(%arg0) <{to = 1 : i64}> : (tensor<2x4xf16>) -> tensor<2x4xf32>
// CHECK-DAG: %[[B:.*]] = "onnx.Cast"(%[[T]]) <{to = 1 : i64}> : (tensor<4x3xf16>) -> tensor<4x3xf32>
// CHECK: %[[M:.*]] = "onnx.MatMul"(%[[A]], %[[B]]) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[MH:.*]] = "onnx.Cast"(%[[M]]) <{to = 10 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf16>
// CHECK: %[[MF:.*]] = "onnx.Cast"(%[[MH]]) <{to = 1 : i64}>
// CHECK: %[[R:.*]] = "onnx.Relu"(%[[MF]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[RH:.*]] = "onnx.Cast"(%[[R]]) <{to = 10 : i64}>
// CHECK: "onnx.Cast"(%[[RH]]) <{to = 1 : i64}>
// CHECK: "onnx.ReduceSum"
// CHECK: return
// Canonicalize keeps the float32 -> float16 rounding (inexact) and drops
// the float16 -> float32 -> float16 round trips: one rounding per value.
// CANON-LABEL: func.func @main_graph(
// CANON: %[[M:.*]] = "onnx.MatMul"
// CANON: %[[MH:.*]] = "onnx.Cast"(%[[M]]) <{to = 10 : i64}>
// CANON: %[[MF:.*]] = "onnx.Cast"(%[[MH]]) <{to = 1 : i64}>
// CANON: "onnx.Relu"(%[[MF]])
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%a: tensor<2x4xf16> {onnx.name = "a"}, %b: tensor<3x4xf16> {onnx.name = "b"}) -> (tensor<2x3xf16> {onnx.name = "y"}, tensor<2xf16> {onnx.name = "s"}) {
    %t = "onnx.Transpose"(%b) <{perm = array<i64: 1, 0>}> : (tensor<3x4xf16>) -> tensor<4x3xf16>
    %m = "onnx.MatMul"(%a, %t) : (tensor<2x4xf16>, tensor<4x3xf16>) -> tensor<2x3xf16>
    %r = "onnx.Relu"(%m) : (tensor<2x3xf16>) -> tensor<2x3xf16>
    %ax = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %s = "onnx.ReduceSum"(%r, %ax) <{keepdims = 0 : i64}> : (tensor<2x3xf16>, tensor<1xi64>) -> tensor<2xf16>
    return %r, %s : tensor<2x3xf16>, tensor<2xf16>
  }
}

//--- bf16.mlir
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%x: tensor<2x8xbf16> {onnx.name = "x"}, %w: tensor<8x8xbf16> {onnx.name = "w"}) -> (tensor<2x8xbf16> {onnx.name = "y"}) {
    %m = "onnx.MatMul"(%x, %w) : (tensor<2x8xbf16>, tensor<8x8xbf16>) -> tensor<2x8xbf16>
    %y = "onnx.Softmax"(%m) <{axis = -1 : i64}> : (tensor<2x8xbf16>) -> tensor<2x8xbf16>
    return %y : tensor<2x8xbf16>
  }
}
