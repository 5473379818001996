// ScatterElements with a reduction (opset 16): amk-normalize-opset.mlir.
module attributes {onnx.opset_import = {ai.onnx = 16 : i64}} {
  func.func @main_graph(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
    %s = "onnx.ScatterElements"(%x, %i, %u) <{reduction = "add"}> : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
    return %s : tensor<4xf32>
  }
}
