// Graphs using op features the runtime has no kernel for: each must stop
// amk-schedule-megakernel with an error naming the node and the feature.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @main_graph(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
    %y:2 = "onnx.MaxPool"(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
    return %y#0, %y#1 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
  }
}

// -----

module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @main_graph(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>) {
    %s = "onnx.Constant"() <{value = dense<1.0> : tensor<8xf32>}> : () -> tensor<8xf32>
    %y:3 = "onnx.LayerNormalization"(%x, %s, %s) : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    return %y#0, %y#1 : tensor<2x8xf32>, tensor<2x1xf32>
  }
}

// -----

module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @main_graph(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<2x1x5xf32>) -> tensor<2x3x5xf32> {
    %y = "amk.gemm"(%a, %b, %c) : (tensor<2x3x4xf32>, tensor<4x5xf32>, tensor<2x1x5xf32>) -> tensor<2x3x5xf32>
    return %y : tensor<2x3x5xf32>
  }
}
