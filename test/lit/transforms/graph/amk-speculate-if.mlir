// RUN: rm -rf %t && split-file %s %t
// RUN: amk-opt %t/speculate.mlir --pass-pipeline='builtin.module(amk-speculate-if)' | FileCheck %s
// RUN: amk-opt %t/speculate.mlir --pass-pipeline='builtin.module(amk-speculate-if{max-branch-ops=1})' | FileCheck %s --check-prefix=SMALL
// The compiled program (amk-graph-opt runs the pass) gives the reference
// interpreter's outputs for both values of the condition.
// RUN: %python -c "import numpy as np, sys; np.save(sys.argv[1], np.ones((2, 3), np.float32)); np.save(sys.argv[2], -np.ones((2, 3), np.float32))" %t/pos.npy %t/neg.npy
// RUN: amk-run %t/speculate.mlir --input input_0=%t/pos.npy --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/speculate.mlir --input input_0=%t/neg.npy --check-reference | FileCheck %s --check-prefix=EXEC
// EXEC-COUNT-2: ok vs reference

//--- speculate.mlir
// Both branches are inlined and each result becomes a Where on the
// condition; a nested If is speculated too. With max-branch-ops=1 the
// outer If (two ops in its then branch) stays.
// CHECK-LABEL: func.func @speculate(
// CHECK-NOT: onnx.If
// CHECK: %[[C:.*]] = "onnx.Greater"
// CHECK-DAG: %[[T:.*]] = "onnx.Add"
// CHECK-DAG: %[[E:.*]] = "onnx.Mul"
// CHECK-DAG: %[[N:.*]] = "onnx.Neg"
// CHECK-DAG: %[[IN:.*]] = "onnx.Where"(%[[C]], %[[T]], %[[N]])
// CHECK-DAG: %[[OUT:.*]] = "onnx.Where"(%[[C]], %[[IN]], %[[E]])
// The If with a dynamic result is left alone.
// CHECK: "onnx.If"
// CHECK: return %[[OUT]], %{{.*}} : tensor<2x3xf32>, tensor<2x3xi64>
// SMALL-LABEL: func.func @speculate(
// SMALL: "onnx.If"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 16 : i64}} {
  func.func @speculate(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
    %zero = "onnx.Constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %none = "onnx.NoValue"() : () -> none
    %s = "onnx.ReduceSum"(%x, %none) <{keepdims = 0 : i64}> : (tensor<2x3xf32>, none) -> tensor<f32>
    %c = "onnx.Greater"(%s, %zero) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %y = "onnx.If"(%c) ({
      %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
      %a = "onnx.Add"(%x, %one) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
      %inner = "onnx.If"(%c) ({
        "onnx.Yield"(%a) : (tensor<2x3xf32>) -> ()
      }, {
        %n = "onnx.Neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
        "onnx.Yield"(%n) : (tensor<2x3xf32>) -> ()
      }) : (tensor<i1>) -> tensor<2x3xf32>
      "onnx.Yield"(%inner) : (tensor<2x3xf32>) -> ()
    }, {
      %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
      %m = "onnx.Mul"(%x, %two) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
      "onnx.Yield"(%m) : (tensor<2x3xf32>) -> ()
    }) : (tensor<i1>) -> tensor<2x3xf32>
    %d = "onnx.If"(%c) ({
      %s1 = "onnx.Shape"(%x) : (tensor<2x3xf32>) -> tensor<2xi64>
      "onnx.Yield"(%s1) : (tensor<2xi64>) -> ()
    }, {
      %s2 = "onnx.Shape"(%y) : (tensor<2x3xf32>) -> tensor<2xi64>
      "onnx.Yield"(%s2) : (tensor<2xi64>) -> ()
    }) : (tensor<i1>) -> tensor<?xi64>
    %e = "onnx.Expand"(%s, %d) : (tensor<f32>, tensor<?xi64>) -> tensor<?x?xf32>
    %k = "onnx.Cast"(%x) <{to = 7 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xi64>
    return %y, %k : tensor<2x3xf32>, tensor<2x3xi64>
  }
}
