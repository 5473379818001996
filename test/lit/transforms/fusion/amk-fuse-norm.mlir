// RUN: amk-opt %inputs/fusion-patterns.mlir --pass-pipeline='builtin.module(amk-fuse-norm)' | FileCheck %s
// RUN: amk-run %inputs/fusion-patterns.mlir --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-norm)' | FileCheck %s --check-prefix=SAME
// SAME-COUNT-20: ok vs before-pipeline

// Decomposed LayerNorm with scale and bias, RMSNorm with a scale, and the
// LayerNormalization op.
// CHECK: "amk.layer_norm"(%arg0, %[[G:.*]], %[[B:[^)]*]]) <{axis = -1 : i64, epsilon = 9.99999974E-6 : f32}>
// CHECK: "amk.layer_norm"(%arg3, %[[G]], %{{.*}}) <{axis = -1 : i64, epsilon = 9.99999974E-6 : f32, rms = true}> : (tensor<4x8xf32>, tensor<8xf32>, none)
// CHECK: "amk.layer_norm"(%arg3, %[[G]], %[[B]]) <{axis = -1 : i64, epsilon = 9.99999974E-6 : f32}>
// Negative: the centered value is an output, so the LayerNorm stays.
// CHECK: %[[D:.*]] = "onnx.Sub"(%arg3
// CHECK: "onnx.Div"(%[[D]]
// CHECK-NOT: amk.layer_norm
