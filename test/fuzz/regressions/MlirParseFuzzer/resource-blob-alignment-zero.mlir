module attributes {onnx.ir_versjon = 8 : i64, onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @main_graph(%x: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xf32> {onnx.name = "y"}, tensor<2xf32> {onnx.name = "z"}) {
    %0 = "onnx.Constant"() <{value = dense_resource<value_3> : tensor<4xf32>}> : () -> tensor<4xf32>
    %1 = "onnx.Constant"() <{value = dense_resource<layer.weight> : tensor<4xf32>}> : () -> tensor<4xf32>
    %2 = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
    %3 = "onnx.Add"(%x, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %4 = "onnx.Mul"(%3, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %4, %2 : tensor<4xf32>, tensor<2xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      value_3: "0x040000000000803F000000400000404000008040",
      layer.weight: "0x0000000000400000004000000040000000C0"
 0"
    }
  }
#-}
