// A small CNN-plus-MLP graph for amk-schedule-megakernel: a 3x3 conv with
// bias and ReLU, max pooling, a pointwise conv with a residual, a
// flatten (a view), a Gemm with a transposed constant weight, a softmax.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @main_graph(%x: tensor<1x3x16x16xf32> {onnx.name = "x"}) -> (tensor<1x10xf32> {onnx.name = "probs"}) {
    %none = "onnx.NoValue"() : () -> none
    %w1 = "onnx.Constant"() <{value = dense<0.05> : tensor<8x3x3x3xf32>}> : () -> tensor<8x3x3x3xf32>
    %b1 = "onnx.Constant"() <{value = dense<[0.1, -0.2, 0.3, 0.0, 0.5, -0.5, 0.2, 0.1]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %w2 = "onnx.Constant"() <{value = dense<0.02> : tensor<8x8x1x1xf32>}> : () -> tensor<8x8x1x1xf32>
    %wf = "onnx.Constant"() <{value = dense<0.01> : tensor<10x512xf32>}> : () -> tensor<10x512xf32>
    %bf = "onnx.Constant"() <{value = dense<0.5> : tensor<10xf32>}> : () -> tensor<10xf32>
    %c = "amk.conv"(%x, %w1, %b1, %none) <{pads = array<i64: 1, 1, 1, 1>, activation = "relu"}> : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>, none) -> tensor<1x8x16x16xf32>
    %p:2 = "onnx.MaxPool"(%c) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x8x16x16xf32>) -> (tensor<1x8x8x8xf32>, none)
    %r = "amk.conv"(%p#0, %w2, %none, %p#0) : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>, none, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    %f = "onnx.Flatten"(%r) <{axis = 1 : i64}> : (tensor<1x8x8x8xf32>) -> tensor<1x512xf32>
    %g = "onnx.Gemm"(%f, %wf, %bf) <{transB = 1 : i64}> : (tensor<1x512xf32>, tensor<10x512xf32>, tensor<10xf32>) -> tensor<1x10xf32>
    %s = "onnx.Softmax"(%g) <{axis = -1 : i64}> : (tensor<1x10xf32>) -> tensor<1x10xf32>
    return %s : tensor<1x10xf32>
  }
}
