// RUN: amk-opt %s -split-input-file -verify-diagnostics

// Version rules come from the module's opset.
module attributes {onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @cast_saturate_needs_19(%x: tensor<2xf32>) -> tensor<2xf16> {
    // expected-error @+1 {{attribute 'saturate' does not exist in Cast-13 (opset 13)}}
    %0 = "onnx.Cast"(%x) <{to = 10 : i64, saturate = 0 : i64}> : (tensor<2xf32>) -> tensor<2xf16>
    return %0 : tensor<2xf16>
  }
}

// -----

module attributes {onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @gelu_before_20(%x: tensor<2xf32>) -> tensor<2xf32> {
    // expected-error @+1 {{does not exist at opset 13 (introduced in opset 20)}}
    %0 = "onnx.Gelu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}

// -----

module attributes {onnx.opset_import = {ai.onnx = 10 : i64}} {
  func.func @resize10_has_no_roi(%x: tensor<1x1x2x2xf32>, %roi: tensor<8xf32>, %s: tensor<4xf32>) -> tensor<1x1x4x4xf32> {
    %none = onnx.NoValue
    // expected-error @+1 {{input 'roi' does not exist in Resize-10 (opset 10)}}
    %0 = "onnx.Resize"(%x, %roi, %s, %none) : (tensor<1x1x2x2xf32>, tensor<8xf32>, tensor<4xf32>, none) -> tensor<1x1x4x4xf32>
    return %0 : tensor<1x1x4x4xf32>
  }
}

// -----

module attributes {onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @reduce18_axes_attribute(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
    %none = onnx.NoValue
    // expected-error @+1 {{attribute 'axes' does not exist in ReduceMean-18 (opset 18)}}
    %0 = "onnx.ReduceMean"(%x, %none) <{axes = array<i64: 1>}> : (tensor<2x3xf32>, none) -> tensor<2x1xf32>
    return %0 : tensor<2x1xf32>
  }
}

// -----

// Type constraints, per version.
module attributes {onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @relu_int8(%x: tensor<2xi8>) -> tensor<2xi8> {
    // expected-error @+1 {{input 'X' has type tensor(int8), which type constraint T of Relu-13 does not allow}}
    %0 = "onnx.Relu"(%x) : (tensor<2xi8>) -> tensor<2xi8>
    return %0 : tensor<2xi8>
  }
}

// -----

module attributes {onnx.opset_import = {ai.onnx = 14 : i64}} {
  func.func @relu_int8_ok_at_14(%x: tensor<2xi8>) -> tensor<2xi8> {
    %0 = "onnx.Relu"(%x) : (tensor<2xi8>) -> tensor<2xi8>
    return %0 : tensor<2xi8>
  }
}

// -----

func.func @add_mixed_types(%a: tensor<2xf32>, %b: tensor<2xf16>) -> tensor<2xf32> {
  // expected-error @+1 {{input 'B' has type tensor(float16) but input 'A' has type tensor(float); both are T in Add-14}}
  %0 = "onnx.Add"(%a, %b) : (tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @required_input(%x: tensor<2x3x8x8xf32>) -> tensor<2x4x6x6xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{operand #1 must be ONNX value, but got 'none'}}
  %0 = "onnx.Conv"(%x, %none, %none) : (tensor<2x3x8x8xf32>, none, none) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

// Shapes that must agree where they are static.
func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{X has 3 input channels but W dimension 1 (2) * group (1) is 2}}
  %0 = "onnx.Conv"(%x, %w, %none) : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_kernel_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{kernel_shape [5,5] disagrees with W of shape [4,3,3,3]}}
  %0 = "onnx.Conv"(%x, %w, %none) <{kernel_shape = array<i64: 5, 5>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_pads(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{pads has 2 values but the input has 2 spatial dimensions (expected 4)}}
  %0 = "onnx.Conv"(%x, %w, %none) <{pads = array<i64: 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_auto_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{auto_pad 'SAME' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID}}
  %0 = "onnx.Conv"(%x, %w, %none) <{auto_pad = "SAME"}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @gemm_k(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %none = onnx.NoValue
  // expected-error @+1 {{inner dimensions disagree: A is [2,3], B is [4,5]}}
  %0 = "onnx.Gemm"(%a, %b, %none) : (tensor<2x3xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @gemm_transposed_ok(%a: tensor<3x2xf32>, %b: tensor<5x3xf32>, %c: tensor<5xf32>) -> tensor<2x5xf32> {
  %0 = "onnx.Gemm"(%a, %b, %c) <{transA = 1 : i64, transB = 1 : i64}> : (tensor<3x2xf32>, tensor<5x3xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @gemm_bias(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>, %c: tensor<4xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{C of shape [4] cannot broadcast to the result of shape [2,5]}}
  %0 = "onnx.Gemm"(%a, %b, %c) : (tensor<2x3xf32>, tensor<3x5xf32>, tensor<4xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @matmul_batch(%a: tensor<3x2x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<3x2x6xf32> {
  // expected-error @+1 {{batch dimensions are not broadcastable: A is [3,2,4], B is [5,4,6]}}
  %0 = "onnx.MatMul"(%a, %b) : (tensor<3x2x4xf32>, tensor<5x4x6xf32>) -> tensor<3x2x6xf32>
  return %0 : tensor<3x2x6xf32>
}

// -----

func.func @broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operands are not broadcastable: dimension 0 of an operand of shape [4] is 4 where another operand has 3}}
  %0 = "onnx.Mul"(%a, %b) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{result dimension 1 is 4 but broadcasting the operands gives 3}}
  %0 = "onnx.Sub"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @transpose_perm(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  // expected-error @+1 {{perm [2,2,0] is not a permutation}}
  %0 = "onnx.Transpose"(%x) <{perm = array<i64: 2, 2, 0>}> : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

// The result's rank must match perm too (found by OnnxBinaryFuzzer: the
// verifier read past the result's dimensions).
func.func @transpose_result_rank(%x: tensor<2x3x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{perm has 3 entries but the result has rank 2}}
  %0 = "onnx.Transpose"(%x) <{perm = array<i64: 2, 1, 0>}> : (tensor<2x3x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @transpose_result(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  // expected-error @+1 {{result shape [4,2,3] is not the input shape [2,3,4] permuted by [2,1,0]}}
  %0 = "onnx.Transpose"(%x) <{perm = array<i64: 2, 1, 0>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<6x3xf32> {
  // expected-error @+1 {{inputs [2,3] and [4,5] differ outside the concatenation axis 0}}
  %0 = "onnx.Concat"(%a, %b) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<6x3xf32>
  return %0 : tensor<6x3xf32>
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{axis 2 is out of range [-2, 1] for rank 2}}
  %0 = "onnx.Concat"(%a) <{axis = 2 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{axis -3 is out of range [-2, 1] for rank 2}}
  %0 = "onnx.Softmax"(%x) <{axis = -3 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @cast_to(%x: tensor<2xf32>) -> tensor<2xf16> {
  // expected-error @+1 {{result element type 'f16' differs from 'to' ('i64')}}
  %0 = "onnx.Cast"(%x) <{to = 7 : i64}> : (tensor<2xf32>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

func.func @cast_to_invalid(%x: tensor<2xf32>) -> tensor<2xf16> {
  // expected-error @+1 {{'to' = 99 is not an ONNX data type}}
  %0 = "onnx.Cast"(%x) <{to = 99 : i64}> : (tensor<2xf32>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

func.func @constant_two_values() -> tensor<f32> {
  // expected-error @+1 {{requires exactly one value attribute, got 2}}
  %0 = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>, value_float = 2.0 : f32}> : () -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @constant_type() -> tensor<2xf32> {
  // expected-error @+1 {{result type 'tensor<2xf32>' differs from the value's type 'tensor<3xf32>'}}
  %0 = "onnx.Constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @constant_value_ints() -> tensor<2xf32> {
  // expected-error @+1 {{result type 'tensor<2xf32>' differs from the type 'tensor<2xi64>' of value_ints}}
  %0 = "onnx.Constant"() <{value_ints = array<i64: 1, 2>}> : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @split_input_type(%x: tensor<6xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // expected-error @+1 {{input 'split' must be tensor(int64) in Split-18, got tensor(float)}}
  %0:2 = "onnx.Split"(%x, %x) : (tensor<6xf32>, tensor<6xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

module attributes {onnx.opset_import = {ai.onnx = 11 : i64}} {
  func.func @split_sizes11(%x: tensor<6xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %none = onnx.NoValue
    // expected-error @+1 {{split sizes sum to 4 but the dimension is 6}}
    %0:2 = "onnx.Split"(%x, %none) <{split = array<i64: 2, 2>}> : (tensor<6xf32>, none) -> (tensor<2xf32>, tensor<2xf32>)
    return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
  }
}

// -----

func.func @batchnorm(%x: tensor<1x3x4x4xf32>, %s: tensor<4xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{scale has 4 values but X has 3 channels}}
  %0:5 = "onnx.BatchNormalization"(%x, %s, %s, %s, %s) : (tensor<1x3x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x3x4x4xf32>, none, none, none, none)
  return %0#0 : tensor<1x3x4x4xf32>
}

// -----

func.func @if_branch_count(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{else_branch yields 2 values but the op has 1 results}}
  %0 = "onnx.If"(%c) ({
    onnx.Yield %x : tensor<2xf32>
  }, {
    onnx.Yield %x, %x : tensor<2xf32>, tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @if_branch_type(%c: tensor<i1>, %x: tensor<2xf32>, %y: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+1 {{then_branch output 0 is tensor(int64) but result 0 is tensor(float)}}
  %0 = "onnx.If"(%c) ({
    onnx.Yield %y : tensor<2xi64>
  }, {
    onnx.Yield %x : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @loop_body(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{body takes 2 inputs; expected 2 + 1 loop-carried values}}
  %0 = "onnx.Loop"(%n, %c, %x) ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>):
    onnx.Yield %ci, %x : tensor<i1>, tensor<2xf32>
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @depth_to_space(%x: tensor<1x8x2x2xf32>) -> tensor<1x1x6x6xf32> {
  // expected-error @+1 {{channel count 8 is not divisible by blocksize^2 (blocksize 3)}}
  %0 = "onnx.DepthToSpace"(%x) <{blocksize = 3 : i64}> : (tensor<1x8x2x2xf32>) -> tensor<1x1x6x6xf32>
  return %0 : tensor<1x1x6x6xf32>
}

// -----

func.func @einsum(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{equation 'ij,jk->ik' names 2 inputs but the op has 1}}
  %0 = "onnx.Einsum"(%a) <{equation = "ij,jk->ik"}> : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @generic_regions(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{has 0 regions but 1 region names}}
  %0 = "onnx.Generic"(%x) <{domain = "x", onnx_attrs = {}, op_type = "Foo", region_names = ["body"]}> : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @generic_attr(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{attribute 'a' has no ONNX encoding: 1 : i32}}
  %0 = "onnx.Generic"(%x) <{domain = "x", onnx_attrs = {a = 1 : i32}, op_type = "Foo", region_names = []}> : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Found in review of the verifiers (each one read out of range, divided
// by zero or asserted before):
// weights of rank < 3 when X is unranked,
func.func @conv_weight_rank(%x: tensor<*xf32>, %w: tensor<4xf32>, %b: none) -> tensor<*xf32> {
  // expected-error @+1 {{weights W must have rank >= 3, got 1}}
  %0 = "onnx.Conv"(%x, %w, %b) : (tensor<*xf32>, tensor<4xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// a blocksize whose square wraps to 0,
func.func @depth_to_space_huge_blocksize(%x: tensor<1x8x2x2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{channel count 8 is not divisible by blocksize^2 (blocksize 4294967296)}}
  %0 = "onnx.DepthToSpace"(%x) {blocksize = 4294967296 : i64} : (tensor<1x8x2x2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// an If branch with an empty block,
func.func @if_empty_branch(%c: tensor<i1>) {
  // expected-error @+1 {{then_branch must end with onnx.Yield}}
  "onnx.If"(%c) ({
  ^bb0:
  }, {
  ^bb0:
  }) : (tensor<i1>) -> ()
  return
}

// -----

// a Cast 'to' beyond int32.
func.func @cast_to_overflow(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'to' = 4294967297 is not an ONNX data type}}
  %0 = "onnx.Cast"(%x) {to = 4294967297 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A zero point whose shape is not the scale's (the kernels would read it
// past its end); one value each is per tensor and accepted.
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @zero_point_shape(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<2xui8>) -> tensor<2x3xui8> {
    // expected-error @+1 {{zero point of shape [2] where the scale has shape [3]; they must match}}
    %0 = "onnx.QuantizeLinear"(%x, %s, %z) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xui8>) -> tensor<2x3xui8>
    return %0 : tensor<2x3xui8>
  }
  func.func @dequantize_zero_point_shape(%x: tensor<2x3xui8>, %s: tensor<3xf32>, %z: tensor<1xui8>) -> tensor<2x3xf32> {
    // expected-error @+1 {{zero point of shape [1] where the scale has shape [3]; they must match}}
    %0 = "onnx.DequantizeLinear"(%x, %s, %z) {axis = 1 : i64} : (tensor<2x3xui8>, tensor<3xf32>, tensor<1xui8>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
  func.func @scalar_against_one(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<1xui8>) -> tensor<2x3xui8> {
    %0 = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<2x3xf32>, tensor<f32>, tensor<1xui8>) -> tensor<2x3xui8>
    return %0 : tensor<2x3xui8>
  }
}
