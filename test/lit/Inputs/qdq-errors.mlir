// Modules amk-insert-qdq refuses (test/lit/transforms/quantization/amk-insert-qdq.mlir).

// expected-error @+1 {{amk-insert-qdq: the module has no calibration (amk.calibration): run amk-calibrate first; ranges are read from the IR only}}
module attributes {onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @main_graph(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
    %w = "onnx.Constant"() <{value = dense<1.0> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
    %y = "onnx.MatMul"(%x, %w) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    return %y : tensor<1x2xf32>
  }
}

// -----

// A range with min > max.
// expected-error @+1 {{amk-insert-qdq: tensor 'input #0' has an invalid range [2, 1]}}
module attributes {amk.calibration = {config = "{}"}, onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @main_graph(%x: tensor<1x4xf32> {amk.range = array<f64: 2.0, 1.0>}) -> tensor<1x2xf32> {
    %w = "onnx.Constant"() <{value = dense<1.0> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
    %y = "onnx.MatMul"(%x, %w) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    %z = "onnx.Relu"(%y) : (tensor<1x2xf32>) -> tensor<1x2xf32>
    return %z : tensor<1x2xf32>
  }
}

// -----

// A tensor that should have a range and has none.
// expected-error @+1 {{amk-insert-qdq: tensor 'result #0 of onnx.MatMul' must be quantized but has no calibrated range}}
module attributes {amk.calibration = {config = "{}"}, onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @main_graph(%x: tensor<1x4xf32> {amk.range = array<f64: 0.0, 1.0>}) -> tensor<1x2xf32> {
    %w = "onnx.Constant"() <{value = dense<1.0> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
    %y = "onnx.MatMul"(%x, %w) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    %z = "onnx.Relu"(%y) : (tensor<1x2xf32>) -> tensor<1x2xf32>
    return %z : tensor<1x2xf32>
  }
}

// -----

// Per-channel weights need opset 13.
// expected-error @+1 {{amk-insert-qdq: per-channel weights need DequantizeLinear's axis (opset 13); the module is at opset 12: normalize it or set per-channel=false}}
module attributes {amk.calibration = {config = "{}"}, onnx.opset_import = {ai.onnx = 12 : i64}} {
  func.func @main_graph(%x: tensor<1x4xf32> {amk.range = array<f64: 0.0, 1.0>}) -> tensor<1x2xf32> {
    %w = "onnx.Constant"() <{value = dense<1.0> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
    %y = "onnx.MatMul"(%x, %w) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    return %y : tensor<1x2xf32>
  }
}

// -----

// A NaN in a range.
// expected-error @+1 {{amk-insert-qdq: tensor 'input #0' has an invalid range [nan, 1]}}
module attributes {amk.calibration = {config = "{}"}, onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @main_graph(%x: tensor<1x4xf32> {amk.range = array<f64: 0x7FF8000000000000, 1.0>}) -> tensor<1x2xf32> {
    %w = "onnx.Constant"() <{value = dense<1.0> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
    %y = "onnx.MatMul"(%x, %w) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    return %y : tensor<1x2xf32>
  }
}
