// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-fuse-gemm)' | FileCheck %s
// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-fuse-gemm{fold-transpose=false fuse-activation=false})' | FileCheck %s --check-prefix=PLAIN
// RUN: amk-run %inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-gemm)' | FileCheck %s --check-prefix=SAME
// RUN: amk-run %inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-gemm{fold-transpose=false fuse-activation=false})' | FileCheck %s --check-prefix=SAME
// SAME-COUNT-20: ok vs before-pipeline

// Gemm(transB, alpha) + Relu; MatMul of a Transpose; MatMul + bias + tanh
// Gelu. Negative: an addend that enlarges the product stays an Add.
// CHECK: "amk.gemm"(%arg0, %arg2, %[[B:.*]]) <{activation = "relu", alpha = 5.000000e-01 : f32, perm_b = array<i64: 1, 0>}>
// CHECK: "amk.gemm"(%arg1, %arg2, %{{.*}}) <{perm_a = array<i64: 1, 0>}> : (tensor<8x4xf32>, tensor<8x8xf32>, none)
// CHECK: "amk.gemm"(%arg0, %arg2, %[[B]]) <{activation = "gelu_tanh"}>
// CHECK: %[[MB:.*]] = "onnx.MatMul"(%arg0, %arg2)
// CHECK-NEXT: "onnx.Add"(%[[MB]], %arg4)
// The attention's Q K^T gets the Transpose folded too (run
// amk-fuse-attention first to keep the attention whole).
// CHECK-NOT: "onnx.Tanh"

// Without transpose folding and activations: a Gemm has nothing left to
// fuse and stays; the MatMul's bias still fuses.
// PLAIN: %[[G:.*]] = "onnx.Gemm"(%arg0, %arg2
// PLAIN-NEXT: "onnx.Relu"(%[[G]])
// PLAIN: "onnx.Transpose"(%arg1)
// PLAIN: %[[Y:.*]] = "amk.gemm"(%arg0, %arg2, %{{.*}}) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>)
// PLAIN: "onnx.Tanh"
