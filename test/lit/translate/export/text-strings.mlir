// RUN: amk-translate --export-onnx-text %s --split-input-file --verify-diagnostics | FileCheck %s

// libonnx 1.12 reads string literals verbatim: backslashes are written as
// they are, and a double quote cannot be written at all.

// CHECK: y = RegexFullMatch <pattern: string = "a\.b\d+"> (x)
module attributes {onnx.opset_import = {ai.onnx = 20 : i64}} {
  func.func @main_graph(%x: tensor<2x!onnx.string> {onnx.name = "x"}) -> (tensor<2xi1> {onnx.name = "y"}) {
    %0 = "onnx.RegexFullMatch"(%x) <{pattern = "a\\.b\\d+"}> : (tensor<2x!onnx.string>) -> tensor<2xi1>
    return %0 : tensor<2xi1>
  }
}

// -----

// expected-error @+1 {{the string "say "hi"" contains a double quote, which the ONNX text syntax read by libonnx 1.12 cannot represent}}
module attributes {onnx.opset_import = {ai.onnx = 20 : i64}} {
  func.func @main_graph(%x: tensor<2x!onnx.string> {onnx.name = "x"}) -> (tensor<2xi1> {onnx.name = "y"}) {
    %0 = "onnx.RegexFullMatch"(%x) <{pattern = "say \"hi\""}> : (tensor<2x!onnx.string>) -> tensor<2xi1>
    return %0 : tensor<2xi1>
  }
}
