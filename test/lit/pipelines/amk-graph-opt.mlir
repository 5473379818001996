// The named pipeline: every fusion in order, correct end to end.
// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-graph-opt)' | FileCheck %s
// RUN: amk-run %inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-graph-opt)' | FileCheck %s --check-prefix=SAME
// RUN: amk-run %inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-graph-opt{target=npu-like target-opset=17})' | FileCheck %s --check-prefix=SAME
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

// Each switch of amk-graph-opt leaves its fusion out (and nothing else),
// and the graph still computes the same outputs.
// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-graph-opt{fuse-attention=false})' | FileCheck %s --check-prefix=NOATT
// NOATT-NOT: "amk.attention"
// NOATT: "amk.layer_norm"
// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-graph-opt{fuse-norm=false})' | FileCheck %s --check-prefix=NONORM
// NONORM-NOT: "amk.layer_norm"
// NONORM: onnx.LayerNormalization
// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-graph-opt{fuse-gelu=false})' | FileCheck %s --check-prefix=NOGELU
// NOGELU-NOT: "amk.gelu"
// NOGELU: onnx.Gelu
// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-graph-opt{fuse-bias-softmax=false})' | FileCheck %s --check-prefix=NOBSM
// NOBSM-NOT: "amk.bias_softmax"
// NOBSM: "amk.attention"
// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-graph-opt{group-elementwise=false})' | FileCheck %s --check-prefix=NOEW
// NOEW-NOT: "amk.fused_elementwise"
// NOEW: "amk.attention"
// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-graph-opt{fuse-gemm=false})' | FileCheck %s --check-prefix=NOGEMM
// NOGEMM-COUNT-4: onnx.MatMul
// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-graph-opt)' | FileCheck %s --check-prefix=GEMM
// GEMM-COUNT-3: onnx.MatMul
// GEMM-NOT: onnx.MatMul
// RUN: amk-run %inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-graph-opt{fuse-attention=false fuse-norm=false fuse-gemm=false fuse-gelu=false fuse-bias-softmax=false group-elementwise=false})' | FileCheck %s --check-prefix=SAMEOFF
// SAMEOFF-COUNT-20: ok vs before-pipeline

// Conv fusion: on (default), off, and gated off by a density threshold
// below the graph's Conv density.
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt)' | FileCheck %s --check-prefix=CONV
// CONV-COUNT-2: "amk.conv"
// CONV-NOT: onnx.BatchNormalization
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt{fuse-conv=false})' | FileCheck %s --check-prefix=NOCONV
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt{conv-density-threshold=0.5})' | FileCheck %s --check-prefix=NOCONV
// NOCONV-NOT: "amk.conv"
// NOCONV: onnx.BatchNormalization
