// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-print-summary)' -o /dev/null | FileCheck %s
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-print-summary{format=json})' -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-print-summary{output=%t.json format=json})' -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-print-summary{format=xml})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// The IR is unchanged by the pass.
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-print-summary{output=/dev/null})' | FileCheck %s --check-prefix=IR

module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64, com.microsoft = 1 : i64}, onnx.producer_name = "lit"} {
  func.func @main_graph(%x: tensor<?x4xf32> {onnx.name = "input"}) -> (tensor<?x2xf32> {onnx.name = "logits"}) {
    %w = "onnx.Constant"() <{value = dense<1.0> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
    %b = "onnx.Constant"() <{value = dense<0.5> : tensor<2xf32>}> : () -> tensor<2xf32>
    %0 = "onnx.MatMul"(%x, %w) : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    %1 = "onnx.Add"(%0, %b) : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
    %2 = "onnx.Generic"(%1) <{domain = "com.microsoft", onnx_attrs = {}, op_type = "FastGelu", region_names = []}> : (tensor<?x2xf32>) -> tensor<?x2xf32>
    return %2 : tensor<?x2xf32>
  }
}

// CHECK: Model from lit  (IR version 8)
// CHECK-NEXT: Opsets: ai.onnx 17 com.microsoft 1
// CHECK-NEXT: Inputs:
// CHECK-NEXT:   input: tensor<?x4xf32>
// CHECK-NEXT: Outputs:
// CHECK-NEXT:   logits: tensor<?x2xf32>
// CHECK-NEXT: Ops: 5 in 4 types
// CHECK-NEXT:   Constant 2
// CHECK-DAG:    Add 1
// CHECK-DAG:    MatMul 1
// CHECK-DAG:    com.microsoft.FastGelu (generic) 1
// CHECK: Parameters: 10 (40.0 B) in 2 constants
// CHECK-NEXT: Values: 2 with static shapes, 3 with dynamic dimensions, 0 unranked

// JSON: "opsets": {
// JSON-NEXT: "ai.onnx": 17,
// JSON: "op_count": 5,
// JSON: "generic_ops": 1,
// JSON: "parameters": 10,
// JSON: "parameter_bytes": 40,


// BAD: for the --format option: Cannot find option named 'xml'!

// IR-LABEL: func.func @main_graph(
// IR: "onnx.MatMul"
