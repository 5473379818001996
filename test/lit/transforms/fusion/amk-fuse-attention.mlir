// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-fuse-attention)' | FileCheck %s
// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-fuse-attention)' --remarks-filter=amk-fuse-attention --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: amk-run %inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-attention)' | FileCheck %s --check-prefix=SAME
// SAME-COUNT-20: ok vs before-pipeline

// The masked, scaled attention (Div by sqrt 8 on the scores) becomes one
// op; K stays as multiplied (already transposed by the Transpose).
// CHECK: %[[KT:.*]] = "onnx.Transpose"(%arg6)
// CHECK: "amk.attention"(%arg5, %[[KT]], %arg7, %arg8) <{key_transposed = true, scale = 0.353553{{[0-9]*}} : f32}>
// Negative: the probabilities are also an output.
// CHECK: %[[S:.*]] = "onnx.MatMul"(%arg5, %[[KT]])
// CHECK-NEXT: %[[P:.*]] = "onnx.Softmax"(%[[S]])
// CHECK-NEXT: "onnx.MatMul"(%[[P]], %arg7)
// CHECK-NOT: amk.attention
// REMARK: remark: [Passed] Fused | Category:amk-fuse-attention | Function=main_graph | Remark="fused onnx.MatMul + onnx.Div + onnx.Add + onnx.Softmax + onnx.MatMul into amk.attention"
