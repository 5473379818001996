// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fuse-conv)' | FileCheck %s
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fuse-conv{target=npu-like})' --remarks-filter=amk-fuse-conv --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=NPU
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fuse-conv{target=npu-like density-threshold=1.0})' --remarks-filter=amk-fuse-conv --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=FORCED
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fuse-conv{fuse-epilogue=false})' | FileCheck %s --check-prefix=BNONLY
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fuse-conv{target=%inputs/dense-target.json})' --remarks-filter=amk-fuse-conv --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fuse-conv{target=dense-target targets-dir=%inputs})' --remarks-filter=amk-fuse-conv --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: env AMK_TARGETS_DIR=%inputs amk-opt %s --pass-pipeline='builtin.module(amk-fuse-conv{target=dense-target})' --remarks-filter=amk-fuse-conv --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-fuse-conv{fold-bn=false})' | FileCheck %s --check-prefix=NOFOLD
// RUN: amk-run %s --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-conv{fold-bn=false})' | FileCheck %s --check-prefix=SAME
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-fuse-conv{target=tpu})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-fuse-conv{density-threshold=2})' 2>&1 | FileCheck %s --check-prefix=RANGE
// The fused graph computes what the original did (reference interpreter):
// RUN: amk-run %s --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-conv)' | FileCheck %s --check-prefix=SAME
// RUN: amk-run %s --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-conv{fuse-epilogue=false})' | FileCheck %s --check-prefix=SAME
// SAME-COUNT-10: ok vs before-pipeline

// On the CPU profile every chain fuses; the chains that cannot (a Conv
// output with two uses, a BatchNorm with a non-constant mean, a Clip with
// a non-constant bound) stay as they are.
// CHECK-LABEL: func.func @conv_chains(
// CHECK-DAG: %[[NONE:.*]] = onnx.NoValue
// CHECK: "amk.conv"(%arg0, %{{.*}}, %{{.*}}, %[[NONE]]) <{activation = "hard_swish", pads = array<i64: 1, 1, 1, 1>}>
// CHECK: "amk.conv"(%arg0, %{{.*}}, %{{.*}}, %[[NONE]]) <{activation = "sigmoid"
// CHECK: "amk.conv"(%arg0, %{{.*}}, %{{.*}}, %[[NONE]]) <{activation = "leaky_relu", activation_alpha = 2.000000e-01 : f32
// CHECK: "amk.conv"(%arg0, %{{.*}}, %{{.*}}, %[[NONE]]) <{activation = "clip", activation_alpha = 0.000000e+00 : f32, activation_beta = 6.000000e+00 : f32
// CHECK: "amk.conv"(%arg0, %{{.*}}, %{{.*}}, %[[NONE]]) <{activation = "quick_gelu", activation_alpha = 1.000000e+00 : f32
// BatchNorm folded (W * 2 / sqrt(2 + eps) = 0.1414), the residual is Z:
// CHECK: %[[W5:.*]] = "onnx.Constant"() <{value = dense<1.41421{{[0-9]*}}e-01> : tensor<4x3x3x3xf32>}>
// CHECK: "amk.conv"(%arg0, %[[W5]], %{{.*}}, %arg1) <{activation = "relu"
// CHECK: %[[Y6:.*]] = "onnx.Conv"
// CHECK-NEXT: "onnx.Relu"(%[[Y6]])
// CHECK: %[[Y7:.*]] = "onnx.Conv"
// CHECK-NEXT: "onnx.BatchNormalization"(%[[Y7]]
// CHECK: %[[Y8:.*]] = "onnx.Conv"
// CHECK-NEXT: "onnx.Clip"(%[[Y8]]
// CHECK-NOT: amk.conv

// The NPU-like profile: Conv is 97% of this graph's FLOPs, above its 0.6.
// NPU: remark: [Missed] NotProfitable | Category:amk-fuse-conv | Remark="Conv density 0.972 of FLOPs (9 of 21 ops, 0.429) exceeds the threshold 0.600 of FLOPs, 0.500 of ops (target 'npu-like', {{.*}}knowledge/targets/npu-like.json): Conv fusion does not pay on this target; graph left unchanged"
// NPU-LABEL: func.func @conv_chains(
// NPU-NOT: amk.conv
// NPU: "onnx.HardSwish"
// FORCED: remark: [Passed] Profitable | Category:amk-fuse-conv | Remark="Conv density 0.972 of FLOPs (9 of 21 ops, 0.429) is within the threshold 1.000 of FLOPs (density-threshold): fused 6 Conv chains, folded 1 BatchNormalizations"
// FORCED-LABEL: func.func @conv_chains(
// FORCED: "amk.conv"
// FILE: Remark="Conv density 0.972 of FLOPs (9 of 21 ops, 0.429) exceeds the threshold 0.900 of FLOPs, 1.000 of ops (target 'dense-test'

// Folding only: c5 becomes a Conv with the folded weights and bias; the
// Add and the Relu stay.
// BNONLY-LABEL: func.func @conv_chains(
// BNONLY-NOT: amk.conv
// BNONLY: %[[W:.*]] = "onnx.Constant"() <{value = dense<1.41421{{[0-9]*}}e-01> : tensor<4x3x3x3xf32>}>
// BNONLY: %[[C:.*]] = "onnx.Conv"(%arg0, %[[W]], %{{.*}})
// BNONLY-NEXT: %[[A:.*]] = "onnx.Add"(%[[C]], %arg1)
// BNONLY-NEXT: "onnx.Relu"(%[[A]])

// Without BatchNorm folding the chain through bn5 cannot fuse (the
// epilogue would have to run after an unfolded BatchNorm); the others do.
// NOFOLD-LABEL: func.func @conv_chains(
// NOFOLD-COUNT-5: "amk.conv"
// NOFOLD: %[[C:.*]] = "onnx.Conv"(%arg0
// NOFOLD-NEXT: %[[Y:[^,]*]], {{.*}} = "onnx.BatchNormalization"(%[[C]]
// NOFOLD-NEXT: %[[A:.*]] = "onnx.Add"(%[[Y]], %arg1)
// NOFOLD-NEXT: "onnx.Relu"(%[[A]])
// NOFOLD-NOT: "amk.conv"

// UNKNOWN: error: amk-fuse-conv: unknown target 'tpu' (known: cpu npu-like)
// RANGE: error: amk-fuse-conv: density-threshold must be at most 1 (a FLOP share), got 2

#c1 = loc(fused<#onnx.node<"c1", ["y1"]>>["t.onnx":0:0])
#hs1 = loc(fused<#onnx.node<"hs1", ["z1"]>>["t.onnx":0:0])
#c2 = loc(fused<#onnx.node<"c2", ["y2"]>>["t.onnx":0:0])
#sig2 = loc(fused<#onnx.node<"sig2", ["z2"]>>["t.onnx":0:0])
#c3 = loc(fused<#onnx.node<"c3", ["y3"]>>["t.onnx":0:0])
#lrelu3 = loc(fused<#onnx.node<"lrelu3", ["z3"]>>["t.onnx":0:0])
#c4 = loc(fused<#onnx.node<"c4", ["y4"]>>["t.onnx":0:0])
#clip4 = loc(fused<#onnx.node<"clip4", ["z4"]>>["t.onnx":0:0])
#c5 = loc(fused<#onnx.node<"c5", ["y5"]>>["t.onnx":0:0])
#bn5 = loc(fused<#onnx.node<"bn5", ["b5"]>>["t.onnx":0:0])
#add5 = loc(fused<#onnx.node<"add5", ["a5"]>>["t.onnx":0:0])
#relu5 = loc(fused<#onnx.node<"relu5", ["z5"]>>["t.onnx":0:0])
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @conv_chains(%x: tensor<1x3x8x8xf32>, %r: tensor<1x4x8x8xf32>, %mean: tensor<4xf32>, %hi: tensor<f32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
    %none = "onnx.NoValue"() : () -> none
    %w = "onnx.Constant"() <{value = dense<0.1> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
    %b = "onnx.Constant"() <{value = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
    %s = "onnx.Constant"() <{value = dense<2.0> : tensor<4xf32>}> : () -> tensor<4xf32>
    %lo = "onnx.Constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %six = "onnx.Constant"() <{value = dense<6.0> : tensor<f32>}> : () -> tensor<f32>
    %y1 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc(#c1)
    %z1 = "onnx.HardSwish"(%y1) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc(#hs1)
    %y2 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc(#c2)
    %z2 = "onnx.Sigmoid"(%y2) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc(#sig2)
    %y3 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc(#c3)
    %z3 = "onnx.LeakyRelu"(%y3) <{alpha = 0.2 : f32}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc(#lrelu3)
    %y4 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc(#c4)
    %z4 = "onnx.Clip"(%y4, %lo, %six) : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4x8x8xf32> loc(#clip4)
    // SiLU as exporters write it: Mul(y, Sigmoid(y)), quick_gelu with alpha 1.
    %y9 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    %s9 = "onnx.Sigmoid"(%y9) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %z9 = "onnx.Mul"(%s9, %y9) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %y5 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc(#c5)
    %b5:5 = "onnx.BatchNormalization"(%y5, %s, %b, %b, %s) : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x8x8xf32>, none, none, none, none) loc(#bn5)
    %a5 = "onnx.Add"(%b5#0, %r) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc(#add5)
    %z5 = "onnx.Relu"(%a5) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc(#relu5)
    // Negative: y6 has two uses.
    %y6 = "onnx.Conv"(%x, %w, %none) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
    %z6 = "onnx.Relu"(%y6) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    // Negative: the BatchNorm's mean is not a constant.
    %y7 = "onnx.Conv"(%x, %w, %none) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
    %b7:5 = "onnx.BatchNormalization"(%y7, %s, %b, %mean, %s) : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x8x8xf32>, none, none, none, none)
    // Negative: Clip's upper bound is not a constant.
    %y8 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    %z8 = "onnx.Clip"(%y8, %lo, %hi) : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4x8x8xf32>
    return %z1, %z2, %z3, %z4, %z5, %y6, %z6, %b7#0, %z8, %z9 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
  }
}
