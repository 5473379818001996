// The named pipeline: every fusion in order, correct end to end.
// RUN: amk-opt %S/../Inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-graph-opt)' | FileCheck %s
// RUN: amk-run %S/../Inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-graph-opt)' | FileCheck %s --check-prefix=SAME
// RUN: amk-run %S/../Inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-graph-opt{target=npu-like target-opset=17})' | FileCheck %s --check-prefix=SAME
// SAME-COUNT-20: ok vs before-pipeline
// CHECK: ai.onnx = 21
// CHECK: "amk.attention"
// CHECK-COUNT-3: "amk.layer_norm"
// CHECK: "amk.fused_elementwise"
// CHECK-COUNT-2: "amk.gelu"
// CHECK: "amk.gemm"{{.*}}activation = "relu"
// CHECK: "amk.gemm"{{.*}}perm_a
// CHECK: "amk.gemm"{{.*}}activation = "gelu_tanh"
// CHECK-COUNT-2: "amk.bias_softmax"
// CHECK: "amk.fused_elementwise"
