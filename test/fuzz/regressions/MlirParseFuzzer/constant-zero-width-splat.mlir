module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @main_gsaph(%x: tensor<8xf32>) -> tensor<6xf32> {
    %s = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<0> : tensor<i0>}> : () -> tensor<i8>
    %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<8xi8>
    %d = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<8xi8>, tensor<f32>, tensor<i8>) -> tensor<8xf32>
    return %d : tensor<8xf32>
  }
}
