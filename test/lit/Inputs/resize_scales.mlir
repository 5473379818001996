// A Resize whose scales are a graph input (as ONNX's node tests and some
// exporters write it); amk-run.test runs it.
module attributes {onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @main_graph(%x: tensor<1x1x4x4xf32> {onnx.name = "x"}, %scales: tensor<4xf32> {onnx.name = "scales"}) -> (tensor<1x1x8x8xf32> {onnx.name = "y"}) {
    %none = "onnx.NoValue"() : () -> none
    %y = "onnx.Resize"(%x, %none, %scales, %none) <{mode = "linear"}> : (tensor<1x1x4x4xf32>, none, tensor<4xf32>, none) -> tensor<1x1x8x8xf32>
    return %y : tensor<1x1x8x8xf32>
  }
}
