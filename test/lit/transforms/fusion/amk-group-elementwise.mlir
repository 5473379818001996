// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-group-elementwise)' | FileCheck %s
// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-group-elementwise{min-size=4})' | FileCheck %s --check-prefix=BIG
// RUN: amk-run %inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-group-elementwise)' | FileCheck %s --check-prefix=SAME
// RUN: amk-run %inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-attention,amk-fuse-norm,amk-fuse-gemm,amk-fuse-gelu,amk-fuse-bias-softmax,amk-group-elementwise)' | FileCheck %s --check-prefix=SAME
// SAME-COUNT-20: ok vs before-pipeline

// The last chain: Exp, Mul by a constant (cloned into the body), Sub.
// CHECK: "amk.fused_elementwise"(%arg3, %arg0) ({
// CHECK-NEXT: ^bb0(%[[M:.*]]: tensor<4x8xf32>, %[[X:.*]]: tensor<4x8xf32>):
// CHECK-NEXT:   %[[E:.*]] = "onnx.Exp"(%[[M]])
// CHECK-NEXT:   %[[H:.*]] = "onnx.Constant"() <{value = dense<5.000000e-01> : tensor<f32>}>
// CHECK-NEXT:   %[[N:.*]] = "onnx.Mul"(%[[E]], %[[H]])
// CHECK-NEXT:   %[[S:.*]] = "onnx.Sub"(%[[N]], %[[X]])
// CHECK-NEXT:   amk.yield %[[S]] : tensor<4x8xf32>
// CHECK-NEXT: }) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// A value with two uses ends a group: the negative attention's Softmax
// input is a lone MatMul, and Add(m, m) feeding a Softmax and an output
// is not grouped.
// CHECK: return

// With min-size=4, only groups of four or more ops: the tails of the
// LayerNorm (Add eps, Sqrt, Div, Mul scale, Add bias) and of the RMSNorm,
// and the erf and tanh Gelus.
// BIG-COUNT-4: "amk.fused_elementwise"
// BIG-NOT: "amk.fused_elementwise"
