// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-fuse-gemm)' | FileCheck %s
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-fuse-gemm{fold-transpose=false fuse-activation=false})' | FileCheck %s --check-prefix=PLAIN

// The fused graphs compute what the originals did (reference interpreter).
// amk-run takes one module: split-file writes each case (`//--- NAME.mlir`
// below) to its own file, and each case runs amk-run on it.
// RUN: rm -rf %t && split-file %s %t
// DEFINE: %{same} = --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-gemm)' | FileCheck %s --check-prefix=SAME
// DEFINE: %{same-plain} = --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-gemm{fold-transpose=false fuse-activation=false})' | FileCheck %s --check-prefix=SAME
// SAME: ok vs before-pipeline
// SAME-NOT: MISMATCH

// Gemm(transB, alpha) + Relu; MatMul of a Transpose; MatMul + bias + tanh
// Gelu. The PLAIN run has no transpose folding and no activations.

//--- attention.mlir
// Attention: softmax(Q K^T / sqrt(8) + mask) V.
// RUN: amk-run %t/attention.mlir %{same}
// RUN: amk-run %t/attention.mlir %{same-plain}
// The attention's Q K^T gets the Transpose folded too (run
// amk-fuse-attention first to keep the attention whole).
// CHECK-LABEL: func.func @attention(
// CHECK-NOT: "onnx.Transpose"
// CHECK: "amk.gemm"(%arg0, %arg1, %{{.*}}) <{perm_b = array<i64: 0, 2, 1>}> : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, none)
// CHECK-NOT: "onnx.Transpose"
// PLAIN-LABEL: func.func @attention(
// PLAIN: %[[T:.*]] = "onnx.Transpose"(%arg1)
// PLAIN-NEXT: "onnx.MatMul"(%arg0, %[[T]])
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @attention(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>, %mask: tensor<1x1x4xf32>) -> tensor<2x4x8xf32> {
    %kt = "onnx.Transpose"(%k) <{perm = array<i64: 0, 2, 1>}> : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
    %s = "onnx.MatMul"(%q, %kt) : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
    %rt8 = "onnx.Constant"() <{value = dense<2.828427> : tensor<f32>}> : () -> tensor<f32>
    %ss = "onnx.Div"(%s, %rt8) : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
    %sm = "onnx.Add"(%ss, %mask) : (tensor<2x4x4xf32>, tensor<1x1x4xf32>) -> tensor<2x4x4xf32>
    %p = "onnx.Softmax"(%sm) <{axis = -1 : i64}> : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %att = "onnx.MatMul"(%p, %v) : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    return %att : tensor<2x4x8xf32>
  }
}

// -----

//--- gemm_relu.mlir
// Gemm(transB, alpha) + Relu.
// RUN: amk-run %t/gemm_relu.mlir %{same}
// RUN: amk-run %t/gemm_relu.mlir %{same-plain}
// CHECK-LABEL: func.func @gemm_relu(
// CHECK: %[[B:.*]] = "onnx.Constant"() <{value = dense<[1.000000e-01, -2.000000e-01{{.*}}> : tensor<8xf32>}>
// CHECK: "amk.gemm"(%arg0, %arg1, %[[B]]) <{activation = "relu", alpha = 5.000000e-01 : f32, perm_b = array<i64: 1, 0>}>
// Without activations a Gemm has nothing left to fuse and stays.
// PLAIN-LABEL: func.func @gemm_relu(
// PLAIN: %[[G:.*]] = "onnx.Gemm"(%arg0, %arg1
// PLAIN-NEXT: "onnx.Relu"(%[[G]])
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @gemm_relu(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
    %bias = "onnx.Constant"() <{value = dense<[0.1, -0.2, 0.3, 0.0, 0.5, -0.5, 0.2, 0.1]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %gm = "onnx.Gemm"(%x, %w, %bias) <{transB = 1 : i64, alpha = 0.5 : f32}> : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %gr = "onnx.Relu"(%gm) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %gr : tensor<4x8xf32>
  }
}

// -----

//--- unit_axis_transpose.mlir
// A Transpose that only moves an axis of size 1 (batch-1 [1, S, D] to
// [S, 1, D], as torch's MultiheadAttention exports its input projection)
// stays a view in front of the product: no perm_a, so the quantizers and
// the integer kernels take the product. One that moves elements folds.
// RUN: amk-run %t/unit_axis_transpose.mlir %{same}
// CHECK-LABEL: func.func @unit_axis_transpose(
// CHECK: %[[T:.*]] = "onnx.Transpose"(%arg0)
// CHECK-NEXT: "onnx.MatMul"(%[[T]], %arg2) : (tensor<5x1x8xf32>, tensor<8x6xf32>)
// CHECK: "amk.gemm"(%arg1, %arg2, %{{.*}}) <{perm_a = array<i64: 1, 0, 2>}> : (tensor<2x5x8xf32>, tensor<8x6xf32>, none)
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @unit_axis_transpose(%x: tensor<1x5x8xf32>, %x2: tensor<2x5x8xf32>, %w: tensor<8x6xf32>) -> (tensor<5x1x6xf32>, tensor<5x2x6xf32>) {
    %t = "onnx.Transpose"(%x) <{perm = array<i64: 1, 0, 2>}> : (tensor<1x5x8xf32>) -> tensor<5x1x8xf32>
    %y = "onnx.MatMul"(%t, %w) : (tensor<5x1x8xf32>, tensor<8x6xf32>) -> tensor<5x1x6xf32>
    %t2 = "onnx.Transpose"(%x2) <{perm = array<i64: 1, 0, 2>}> : (tensor<2x5x8xf32>) -> tensor<5x2x8xf32>
    %y2 = "onnx.MatMul"(%t2, %w) : (tensor<5x2x8xf32>, tensor<8x6xf32>) -> tensor<5x2x6xf32>
    return %y, %y2 : tensor<5x1x6xf32>, tensor<5x2x6xf32>
  }
}

// -----

//--- matmul_transpose.mlir
// MatMul of a transposed operand.
// RUN: amk-run %t/matmul_transpose.mlir %{same}
// RUN: amk-run %t/matmul_transpose.mlir %{same-plain}
// CHECK-LABEL: func.func @matmul_transpose(
// CHECK: "amk.gemm"(%arg0, %arg1, %{{.*}}) <{perm_a = array<i64: 1, 0>}> : (tensor<8x4xf32>, tensor<8x8xf32>, none)
// PLAIN-LABEL: func.func @matmul_transpose(
// PLAIN: %[[T:.*]] = "onnx.Transpose"(%arg0)
// PLAIN-NEXT: "onnx.MatMul"(%[[T]], %arg1)
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @matmul_transpose(%t: tensor<8x4xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
    %tt = "onnx.Transpose"(%t) <{perm = array<i64: 1, 0>}> : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %mt = "onnx.MatMul"(%tt, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return %mt : tensor<4x8xf32>
  }
}

// -----

//--- matmul_bias_gelu_tanh.mlir
// MatMul + bias + tanh Gelu:
// 0.5 * y * (1 + tanh(sqrt(2/pi) * (y + 0.044715 * y^3))).
// RUN: amk-run %t/matmul_bias_gelu_tanh.mlir %{same}
// RUN: amk-run %t/matmul_bias_gelu_tanh.mlir %{same-plain}
// CHECK-LABEL: func.func @matmul_bias_gelu_tanh(
// CHECK-NOT: "onnx.Tanh"
// CHECK: %[[B:.*]] = "onnx.Constant"() <{value = dense<[1.000000e-01, -2.000000e-01{{.*}}> : tensor<8xf32>}>
// CHECK: "amk.gemm"(%arg0, %arg1, %[[B]]) <{activation = "gelu_tanh"}>
// CHECK-NOT: "onnx.Tanh"
// Without activations the MatMul's bias still fuses.
// PLAIN-LABEL: func.func @matmul_bias_gelu_tanh(
// PLAIN: %[[Y:.*]] = "amk.gemm"(%arg0, %arg1, %{{.*}}) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>)
// PLAIN: "onnx.Tanh"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @matmul_bias_gelu_tanh(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
    %bias = "onnx.Constant"() <{value = dense<[0.1, -0.2, 0.3, 0.0, 0.5, -0.5, 0.2, 0.1]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %three = "onnx.Constant"() <{value = dense<3.0> : tensor<f32>}> : () -> tensor<f32>
    %c0 = "onnx.Constant"() <{value = dense<0.044715> : tensor<f32>}> : () -> tensor<f32>
    %c1 = "onnx.Constant"() <{value = dense<0.7978845608> : tensor<f32>}> : () -> tensor<f32>
    %mm = "onnx.MatMul"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %y = "onnx.Add"(%mm, %bias) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %y3 = "onnx.Pow"(%y, %three) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %cy3 = "onnx.Mul"(%y3, %c0) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %in = "onnx.Add"(%y, %cy3) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %sc = "onnx.Mul"(%in, %c1) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %th = "onnx.Tanh"(%sc) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %op = "onnx.Add"(%th, %one) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %hy = "onnx.Mul"(%y, %half) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %tg = "onnx.Mul"(%hy, %op) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %tg : tensor<4x8xf32>
  }
}

// -----

//--- matmul_add_broadcast.mlir
// Negative MatMul + Add: an addend that enlarges the product.
// RUN: amk-run %t/matmul_add_broadcast.mlir %{same}
// RUN: amk-run %t/matmul_add_broadcast.mlir %{same-plain}
// It stays an Add.
// CHECK-LABEL: func.func @matmul_add_broadcast(
// CHECK: %[[MB:.*]] = "onnx.MatMul"(%arg0, %arg1)
// CHECK-NEXT: "onnx.Add"(%[[MB]], %arg2)
// PLAIN-LABEL: func.func @matmul_add_broadcast(
// PLAIN: %[[MB:.*]] = "onnx.MatMul"(%arg0, %arg1)
// PLAIN-NEXT: "onnx.Add"(%[[MB]], %arg2)
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @matmul_add_broadcast(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %big: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
    %mb = "onnx.MatMul"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %ab = "onnx.Add"(%mb, %big) : (tensor<4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    return %ab : tensor<2x4x8xf32>
  }
}

// -----

//--- matmul_transpose_other_use.mlir
// Negative: a Transpose with another use stays, and so does its MatMul.
// RUN: amk-run %t/matmul_transpose_other_use.mlir %{same}
// RUN: amk-run %t/matmul_transpose_other_use.mlir %{same-plain}
// CHECK-LABEL: func.func @matmul_transpose_other_use(
// CHECK: %[[T:.*]] = "onnx.Transpose"(%arg0)
// CHECK-NEXT: "onnx.MatMul"(%[[T]], %arg1)
// CHECK-NOT: amk.gemm
// PLAIN-LABEL: func.func @matmul_transpose_other_use(
// PLAIN: %[[T:.*]] = "onnx.Transpose"(%arg0)
// PLAIN-NEXT: "onnx.MatMul"(%[[T]], %arg1)
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @matmul_transpose_other_use(%t: tensor<8x4xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %tt = "onnx.Transpose"(%t) <{perm = array<i64: 1, 0>}> : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %mt = "onnx.MatMul"(%tt, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return %mt, %tt : tensor<4x8xf32>, tensor<4x8xf32>
  }
}
