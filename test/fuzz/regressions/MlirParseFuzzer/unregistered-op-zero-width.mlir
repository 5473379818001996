module attributes {onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @constant_i0() -> tensor<i8> {
    %z = "onnx.Constant000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"() <{value = dense<0> : tensor<i0>}> : () -> tensor<i8>
    return %z : tensor<i8>
  }
}
