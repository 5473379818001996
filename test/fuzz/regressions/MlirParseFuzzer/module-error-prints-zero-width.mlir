module attributes {onnx.opset_imp,rt = {ai.onnx = 21 : i64}} {
  func.func @constant_i0() -> tensor<i8> {
    %z = "onnx.Constant"() <{value = dense<0> : tensor<i0>}> : () -> tensor<i8>
    return %z : tensor<i8>
  }
}
