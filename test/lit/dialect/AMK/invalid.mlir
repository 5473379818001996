// RUN: amk-opt %s -split-input-file -verify-diagnostics -o /dev/null

func.func @bad_activation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{unknown activation 'swish'}}
  %c = "amk.conv"(%x, %w, %none, %none) <{activation = "swish"}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none, none) -> tensor<1x4x6x6xf32>
  return %c : tensor<1x4x6x6xf32>
}

// -----

func.func @residual_too_big(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %z: tensor<2x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{Z 'tensor<2x4x6x6xf32>' broadcasts the result to a larger shape}}
  %c = "amk.conv"(%x, %w, %none, %z) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none, tensor<2x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %c : tensor<1x4x6x6xf32>
}

// -----

func.func @bad_perm(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{perm_a is not a permutation of the 2 axes of its operand}}
  %g = "amk.gemm"(%a, %b, %none) <{perm_a = array<i64: 0, 0>}> : (tensor<4x8xf32>, tensor<8x8xf32>, none) -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

func.func @inner_mismatch(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{inner dimensions disagree: 8 vs 4}}
  %g = "amk.gemm"(%a, %b, %none) : (tensor<4x8xf32>, tensor<4x8xf32>, none) -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

func.func @bad_gelu(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{approximate must be none, tanh or quick, got 'fast'}}
  %g = "amk.gelu"(%a) <{approximate = "fast"}> : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @bad_axis(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{axis 2 out of range for rank 2}}
  %n = "amk.layer_norm"(%a, %none, %none) <{axis = 2 : i64}> : (tensor<4x8xf32>, none, none) -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

func.func @head_dim(%q: tensor<2x4x8xf32>, %k: tensor<2x4x6xf32>) -> tensor<2x4x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{Q and K disagree on the head dimension}}
  %t = "amk.attention"(%q, %k, %q, %none) <{key_transposed = false}> : (tensor<2x4x8xf32>, tensor<2x4x6xf32>, tensor<2x4x8xf32>, none) -> tensor<2x4x8xf32>
  return %t : tensor<2x4x8xf32>
}

// -----

func.func @not_elementwise(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %f = "amk.fused_elementwise"(%a) ({
  ^bb0(%arg: tensor<4x8xf32>):
    // expected-error @+1 {{cannot be in an amk.fused_elementwise body}}
    %r = "func.call"() {callee = @not_elementwise} : () -> tensor<4x8xf32>
    amk.yield %r : tensor<4x8xf32>
  }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}

// -----

func.func @wgemm_weight_bits(%a: tensor<3x4xf32>, %b: tensor<4x2xi16>, %s: tensor<2xf32>) -> tensor<3x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{B must be an 8- or 4-bit integer}}
  %y = "amk.wgemm"(%a, %b, %s, %none, %none) : (tensor<3x4xf32>, tensor<4x2xi16>, tensor<2xf32>, none, none) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @wgemm_block_scale(%a: tensor<3x64xf32>, %b: tensor<64x2xi4>, %s: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{B_scale has shape [3, 2] but B [64, 2] with axis 0 and block_size 32 needs [2, 2]}}
  %y = "amk.wgemm"(%a, %b, %s, %none, %none) <{axis = 0 : i64, block_size = 32 : i64}> : (tensor<3x64xf32>, tensor<64x2xi4>, tensor<3x2xf32>, none, none) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @wgemm_zero_point_type(%a: tensor<3x4xf32>, %b: tensor<4x2xi8>, %s: tensor<2xf32>, %z: tensor<2xui8>) -> tensor<3x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{B_zero_point must have B's type and B_scale's shape}}
  %y = "amk.wgemm"(%a, %b, %s, %z, %none) : (tensor<3x4xf32>, tensor<4x2xi8>, tensor<2xf32>, tensor<2xui8>, none) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @wgemm_activation_bits_int8(%a: tensor<3x4xf32>, %b: tensor<4x2xi8>, %s: tensor<2xf32>) -> tensor<3x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{activation_bits must be 0, 8 with 4-bit weights in blocks of a multiple of 8, or 16 with 8-bit weights without blocks, not 8}}
  %y = "amk.wgemm"(%a, %b, %s, %none, %none) <{activation_bits = 8 : i64}> : (tensor<3x4xf32>, tensor<4x2xi8>, tensor<2xf32>, none, none) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @wgemm_activation_bits_bf16_int4(%a: tensor<8x64xf32>, %b: tensor<64x2xi4>, %s: tensor<2xf32>) -> tensor<8x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{activation_bits must be 0, 8 with 4-bit weights in blocks of a multiple of 8, or 16 with 8-bit weights without blocks, not 16}}
  %y = "amk.wgemm"(%a, %b, %s, %none, %none) <{activation_bits = 16 : i64}> : (tensor<8x64xf32>, tensor<64x2xi4>, tensor<2xf32>, none, none) -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

func.func @wgemm_activation_bits_bf16_blocks(%a: tensor<8x64xf32>, %b: tensor<64x2xi8>, %s: tensor<2x2xf32>) -> tensor<8x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{activation_bits must be 0, 8 with 4-bit weights in blocks of a multiple of 8, or 16 with 8-bit weights without blocks, not 16}}
  %y = "amk.wgemm"(%a, %b, %s, %none, %none) <{axis = 0 : i64, block_size = 32 : i64, activation_bits = 16 : i64}> : (tensor<8x64xf32>, tensor<64x2xi8>, tensor<2x2xf32>, none, none) -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

func.func @wgemm_activation_bits_value(%a: tensor<3x64xf32>, %b: tensor<64x2xi4>, %s: tensor<2x2xf32>) -> tensor<3x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{activation_bits must be 0, 8 with 4-bit weights in blocks of a multiple of 8, or 16 with 8-bit weights without blocks, not 4}}
  %y = "amk.wgemm"(%a, %b, %s, %none, %none) <{axis = 0 : i64, block_size = 32 : i64, activation_bits = 4 : i64}> : (tensor<3x64xf32>, tensor<64x2xi4>, tensor<2x2xf32>, none, none) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @wgemm_inner(%a: tensor<3x5xf32>, %b: tensor<4x2xi8>, %s: tensor<2xf32>) -> tensor<3x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{inner dimensions disagree: 5 vs 4}}
  %y = "amk.wgemm"(%a, %b, %s, %none, %none) : (tensor<3x5xf32>, tensor<4x2xi8>, tensor<2xf32>, none, none) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @rope_odd(%x: tensor<2x7xf32>, %c: tensor<2x7xf32>) -> tensor<2x7xf32> {
  // expected-error @+1 {{X's last axis must be static and even}}
  %y = "amk.rope"(%x, %c, %c) : (tensor<2x7xf32>, tensor<2x7xf32>, tensor<2x7xf32>) -> tensor<2x7xf32>
  return %y : tensor<2x7xf32>
}

// -----

func.func @rope_table_width(%x: tensor<2x8xf32>, %c: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{Cos's last axis must be 4 (D / 2, interleaved pairs)}}
  %y = "amk.rope"(%x, %c, %c) <{interleaved = true}> : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @rope_table_broadcast(%x: tensor<2x3x8xf32>, %c: tensor<2x3x8xf32>, %s: tensor<4x3x8xf32>) -> tensor<2x3x8xf32> {
  // expected-error @+1 {{Sin does not broadcast to the result}}
  %y = "amk.rope"(%x, %c, %s) : (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<4x3x8xf32>) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

func.func @rope_type(%x: tensor<2x8xf32>, %c: tensor<2x8xf16>) -> tensor<2x8xf32> {
  // expected-error @+1 {{Cos must have X's element type}}
  %y = "amk.rope"(%x, %c, %c) : (tensor<2x8xf32>, tensor<2x8xf16>, tensor<2x8xf16>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @qadd_shapes(%a: tensor<4xui8>, %b: tensor<2x2xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xui8> {
  // expected-error @+1 {{A and B must broadcast to Y's shape}}
  %y = "amk.qadd"(%a, %s, %z, %b, %s, %z, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<2x2xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %y : tensor<4xui8>
}

// -----

func.func @qadd_activation(%a: tensor<4xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xui8> {
  // expected-error @+1 {{activation must be none or relu, not 'gelu'}}
  %y = "amk.qadd"(%a, %s, %z, %a, %s, %z, %s, %z) <{activation = "gelu"}> : (tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %y : tensor<4xui8>
}

// -----

func.func @qadd_zero_point_type(%a: tensor<4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %zi: tensor<i8>) -> tensor<4xui8> {
  // expected-error @+1 {{each zero point must be one value of its tensor's type}}
  %y = "amk.qadd"(%a, %s, %zi, %a, %s, %z, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<i8>, tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %y : tensor<4xui8>
}

// -----

func.func @qmul_broadcast(%a: tensor<2x3xui8>, %b: tensor<3x1xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<2x3xui8> {
  // expected-error @+1 {{A and B must broadcast to Y's shape}}
  %y = "amk.qmul"(%a, %s, %z, %b, %s, %z, %s, %z) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x1xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %y : tensor<2x3xui8>
}

// -----

func.func @qmul_mixed_types(%a: tensor<4xui8>, %b: tensor<4xi8>, %s: tensor<f32>, %z: tensor<ui8>, %zi: tensor<i8>) -> tensor<4xui8> {
  // expected-error @+1 {{A and B must have one element type}}
  %y = "amk.qmul"(%a, %s, %z, %b, %s, %zi, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<4xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %y : tensor<4xui8>
}

// -----

func.func @qtable_size(%x: tensor<4xui8>, %t: tensor<128xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{table must hold 256 values of Y's element type}}
  %y = "amk.qtable"(%x, %t) : (tensor<4xui8>, tensor<128xui8>) -> tensor<4xui8>
  return %y : tensor<4xui8>
}

// -----

func.func @qtable_float(%x: tensor<4xf32>, %t: tensor<256xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{X and Y must be 8-bit integers}}
  %y = "amk.qtable"(%x, %t) : (tensor<4xf32>, tensor<256xui8>) -> tensor<4xui8>
  return %y : tensor<4xui8>
}

// -----

func.func @qaverage_pool_kernel(%x: tensor<1x2x4x4xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x2x2x2xui8> {
  // expected-error @+1 {{kernel_shape must have one entry per spatial axis}}
  %y = "amk.qaverage_pool"(%x, %s, %z, %s, %z) <{kernel_shape = array<i64: 2>}> : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xui8>
  return %y : tensor<1x2x2x2xui8>
}

// -----

func.func @qresize_float(%x: tensor<1x2x4x4xf32>, %s: tensor<f32>, %z: tensor<ui8>, %sc: tensor<4xf32>) -> tensor<1x2x8x8xui8> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{X and Y must be 8-bit integers}}
  %y = "amk.qresize"(%x, %none, %sc, %none, %s, %z, %s, %z) <{mode = "linear"}> : (tensor<1x2x4x4xf32>, none, tensor<4xf32>, none, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x8xui8>
  return %y : tensor<1x2x8x8xui8>
}
