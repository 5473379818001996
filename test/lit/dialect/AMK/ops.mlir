// RUN: amk-opt %s | amk-opt | FileCheck %s


// Every amk op parses, verifies and prints back.
// CHECK-LABEL: func.func @ops
// CHECK: "amk.conv"
// CHECK: "amk.gemm"
// CHECK: "amk.gelu"
// CHECK: "amk.layer_norm"
// CHECK: "amk.attention"
// CHECK: "amk.bias_softmax"
// CHECK: "amk.fused_elementwise"
// CHECK: amk.yield
func.func @ops(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %a: tensor<2x4x8xf32>, %b: tensor<8x8xf32>, %z: tensor<1x4x6x6xf32>) -> (tensor<1x4x6x6xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %c = "amk.conv"(%x, %w, %none, %z) <{activation = "relu"}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %g = "amk.gemm"(%a, %b, %none) <{perm_b = array<i64: 1, 0>, activation = "gelu"}> : (tensor<2x4x8xf32>, tensor<8x8xf32>, none) -> tensor<2x4x8xf32>
  %e = "amk.gelu"(%a) <{approximate = "quick"}> : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %n = "amk.layer_norm"(%a, %none, %none) <{rms = true}> : (tensor<2x4x8xf32>, none, none) -> tensor<2x4x8xf32>
  %t = "amk.attention"(%a, %a, %a, %none) <{key_transposed = false, scale = 0.5 : f32}> : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, none) -> tensor<2x4x8xf32>
  %s = "amk.bias_softmax"(%a, %a) <{axis = -1 : i64}> : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %f = "amk.fused_elementwise"(%a) ({
  ^bb0(%arg: tensor<2x4x8xf32>):
    %r = "onnx.Relu"(%arg) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    amk.yield %r : tensor<2x4x8xf32>
  }) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %c, %g, %e, %n, %t, %s, %f : tensor<1x4x6x6xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// amk.wgemm: int4 weights in blocks of 32 along K with zero points and a
// residual, and int8 per column through perm_b.
// CHECK-LABEL: func.func @wgemm
// CHECK: "amk.wgemm"{{.*}}block_size = 32
// CHECK: "amk.wgemm"{{.*}}perm_b = array<i64: 1, 0>
func.func @wgemm(%a: tensor<3x64xf32>, %b4: tensor<64x2xui4>, %s4: tensor<2x2xf32>, %z4: tensor<2x2xui4>, %r: tensor<3x2xf32>, %b8: tensor<2x64xi8>, %s8: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %y = "amk.wgemm"(%a, %b4, %s4, %z4, %r) <{axis = 0 : i64, block_size = 32 : i64, activation = "relu"}> : (tensor<3x64xf32>, tensor<64x2xui4>, tensor<2x2xf32>, tensor<2x2xui4>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %w = "amk.wgemm"(%a, %b8, %s8, %none, %none) <{axis = 0 : i64, perm_b = array<i64: 1, 0>}> : (tensor<3x64xf32>, tensor<2x64xi8>, tensor<2xf32>, none, none) -> tensor<3x2xf32>
  return %y, %w : tensor<3x2xf32>, tensor<3x2xf32>
}

// Both RoPE forms: tables as wide as X's last axis (rotate_half) or half
// of it (interleaved), broadcasting over the heads.
// CHECK-LABEL: func.func @rope
// CHECK: "amk.rope"(%{{.*}}) : (tensor<1x4x3x8xf32>, tensor<1x1x3x8xf32>, tensor<1x1x3x8xf32>)
// CHECK: "amk.rope"(%{{.*}}) <{interleaved = true}> : (tensor<1x4x3x8xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
func.func @rope(%x: tensor<1x4x3x8xf32>, %c: tensor<1x1x3x8xf32>, %s: tensor<1x1x3x8xf32>, %ci: tensor<3x4xf32>, %si: tensor<3x4xf32>) -> (tensor<1x4x3x8xf32>, tensor<1x4x3x8xf32>) {
  %a = "amk.rope"(%x, %c, %s) : (tensor<1x4x3x8xf32>, tensor<1x1x3x8xf32>, tensor<1x1x3x8xf32>) -> tensor<1x4x3x8xf32>
  %b = "amk.rope"(%x, %ci, %si) <{interleaved = true}> : (tensor<1x4x3x8xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<1x4x3x8xf32>
  return %a, %b : tensor<1x4x3x8xf32>, tensor<1x4x3x8xf32>
}
