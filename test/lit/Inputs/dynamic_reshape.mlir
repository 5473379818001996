// A graph with dynamic batch and width and the shape arithmetic exporters
// emit for a flatten (tools/amk-run.test).
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%x: tensor<?x3x?xf32> {onnx.dim_params = ["batch", "", "n"], onnx.name = "x"}) -> (tensor<?x?xf32> {onnx.dim_params = ["batch", ""], onnx.name = "y"}) {
    %s = "onnx.Shape"(%x) : (tensor<?x3x?xf32>) -> tensor<3xi64>
    %i = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %b = "onnx.Gather"(%s, %i) <{axis = 0 : i64}> : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
    %m = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %t = "onnx.Concat"(%b, %m) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %r = "onnx.Reshape"(%x, %t) : (tensor<?x3x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
    %y = "onnx.Relu"(%r) : (tensor<?x?xf32>) -> tensor<?x?xf32>
    return %y : tensor<?x?xf32>
  }
}
