// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(canonicalize)' | FileCheck %s

// The ONNX dialect's canonicalization patterns (dialect/ONNX/ONNXCanonicalize.cpp).

// CHECK-LABEL: func.func @identity_dropout
// CHECK-NEXT: return %arg0
func.func @identity_dropout(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Identity"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1, %mask = "onnx.Dropout"(%0, %none, %none) : (tensor<2x3xf32>, none, none) -> (tensor<2x3xf32>, none)
  %f = "onnx.Constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
  %r = "onnx.Constant"() <{value = dense<0.2> : tensor<f32>}> : () -> tensor<f32>
  %2, %mask2 = "onnx.Dropout"(%1, %r, %f) : (tensor<2x3xf32>, tensor<f32>, tensor<i1>) -> (tensor<2x3xf32>, none)
  return %2 : tensor<2x3xf32>
}

// -----

// Negative: a training-mode Dropout, or one whose mask is used, stays.
// CHECK-LABEL: func.func @dropout_kept
// CHECK: onnx.Dropout
// CHECK: onnx.Dropout
func.func @dropout_kept(%x: tensor<2x3xf32>, %t: tensor<i1>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %none = "onnx.NoValue"() : () -> none
  %0, %m0 = "onnx.Dropout"(%x, %none, %t) : (tensor<2x3xf32>, none, tensor<i1>) -> (tensor<2x3xf32>, none)
  %1, %m1 = "onnx.Dropout"(%0, %none, %none) : (tensor<2x3xf32>, none, none) -> (tensor<2x3xf32>, tensor<2x3xi1>)
  return %1, %m1 : tensor<2x3xf32>, tensor<2x3xi1>
}

// -----

// Transpose pairs compose; inverse pairs vanish.
// CHECK-LABEL: func.func @transposes
// CHECK-NEXT: %[[T:.*]] = "onnx.Transpose"(%arg0) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %arg0, %[[T]]
func.func @transposes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>) {
  %0 = "onnx.Transpose"(%x) <{perm = array<i64: 0, 2, 1>}> : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %1 = "onnx.Transpose"(%0) <{perm = array<i64: 0, 2, 1>}> : (tensor<2x4x3xf32>) -> tensor<2x3x4xf32>
  %2 = "onnx.Transpose"(%0) <{perm = array<i64: 1, 0, 2>}> : (tensor<2x4x3xf32>) -> tensor<4x2x3xf32>
  %3 = "onnx.Transpose"(%2) <{perm = array<i64: 0, 1, 2>}> : (tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  return %1, %3 : tensor<2x3x4xf32>, tensor<4x2x3xf32>
}

// -----

// Reshape chains collapse; a shape with 0 (copy a dimension of the middle
// tensor) does not compose; a reshape to the same static shape vanishes.
// CHECK-LABEL: func.func @reshapes
// CHECK-DAG: %[[S6:.*]] = "onnx.Constant"() <{value = dense<[6, 4]>
// CHECK-DAG: %[[S0:.*]] = "onnx.Constant"() <{value = dense<[0, 3, -1]>
// CHECK: %[[M:.*]] = "onnx.Reshape"(%arg0, %{{.*}})
// CHECK: %[[A:.*]] = "onnx.Reshape"(%arg0, %[[S6]])
// CHECK: %[[B:.*]] = "onnx.Reshape"(%[[M]], %[[S0]])
// CHECK: return %[[A]], %[[B]], %arg0
func.func @reshapes(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<4x3x2xf32>, tensor<2x3x4xf32>) {
  %s1 = "onnx.Constant"() <{value = dense<[4, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s2 = "onnx.Constant"() <{value = dense<[6, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s3 = "onnx.Constant"() <{value = dense<[0, 3, -1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %s4 = "onnx.Constant"() <{value = dense<[2, 3, 4]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %0 = "onnx.Reshape"(%x, %s1) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  %1 = "onnx.Reshape"(%0, %s2) : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %2 = "onnx.Reshape"(%0, %s3) : (tensor<4x6xf32>, tensor<3xi64>) -> tensor<4x3x2xf32>
  %3 = "onnx.Reshape"(%x, %s4) : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  return %1, %2, %3 : tensor<6x4xf32>, tensor<4x3x2xf32>, tensor<2x3x4xf32>
}

// -----

// Cast chains fold when the first cast is exact; f32 -> f16 -> f32 rounds
// and stays; a cast to the same type vanishes.
// CHECK-LABEL: func.func @casts
// CHECK-NEXT: %[[A:.*]] = "onnx.Cast"(%arg0) <{to = 11 : i64}> : (tensor<4xi32>) -> tensor<4xf64>
// CHECK-NEXT: %[[H:.*]] = "onnx.Cast"(%arg1) <{to = 10 : i64}>
// CHECK-NEXT: %[[B:.*]] = "onnx.Cast"(%[[H]]) <{to = 1 : i64}>
// CHECK-NEXT: return %[[A]], %[[B]], %arg1
func.func @casts(%i: tensor<4xi32>, %f: tensor<4xf32>) -> (tensor<4xf64>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "onnx.Cast"(%i) <{to = 7 : i64}> : (tensor<4xi32>) -> tensor<4xi64>
  %1 = "onnx.Cast"(%0) <{to = 11 : i64}> : (tensor<4xi64>) -> tensor<4xf64>
  %2 = "onnx.Cast"(%f) <{to = 10 : i64}> : (tensor<4xf32>) -> tensor<4xf16>
  %3 = "onnx.Cast"(%2) <{to = 1 : i64}> : (tensor<4xf16>) -> tensor<4xf32>
  %4 = "onnx.Cast"(%f) <{to = 1 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %3, %4 : tensor<4xf64>, tensor<4xf32>, tensor<4xf32>
}

// -----

// No-op arithmetic vanishes unless the constant broadcasts the result to a
// larger shape; x - 0 stays x but 0 - x does not.
// CHECK-LABEL: func.func @arith
// CHECK: %[[S:.*]] = "onnx.Sub"(%{{.*}}, %arg0)
// CHECK: %[[B:.*]] = "onnx.Add"(%arg0, %{{.*}}) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: return %arg0, %[[S]], %[[B]]
func.func @arith(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %z = "onnx.Constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %o = "onnx.Constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zz = "onnx.Constant"() <{value = dense<0.0> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %0 = "onnx.Add"(%z, %x) : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "onnx.Mul"(%0, %o) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "onnx.Div"(%1, %o) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %3 = "onnx.Pow"(%2, %o) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %4 = "onnx.Sub"(%3, %z) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %5 = "onnx.Sub"(%z, %x) : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %6 = "onnx.Add"(%x, %zz) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %4, %5, %6 : tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @data_movement
// CHECK-NEXT: return %arg0, %arg0
func.func @data_movement(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = "onnx.Constant"() <{value = dense<[1, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Expand"(%x, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %1 = "onnx.Concat"(%x) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}
