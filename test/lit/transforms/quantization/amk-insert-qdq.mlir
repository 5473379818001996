// amk-insert-qdq quantizes from the ranges amk-calibrate stored in the IR.
// Every scale and zero point below is computed by hand from the
// calibration set's min/max (uint8 asymmetric: scale = (max - min) / 255
// with the range widened to contain 0, zero point = round(-min / scale);
// int8 symmetric weights: scale = max|w| / 127 per output channel), and
// they change when the calibration set does.
// The calibrated runs read model.mlir, amk-insert-qdq alone reads
// invalid.mlir (the modules it refuses): split-file writes the two parts
// (`//--- NAME` below) next to the calibration sets.
// RUN: rm -rf %t && split-file %s %t && %python %inputs/make_calibration.py %t

// Set A: x in [0, 3], h in [-1, 4.5], r = relu(h) in [0, 4.5].
// RUN: amk-opt %t/model.mlir --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A},amk-insert-qdq{report=%t/qa.json})' | FileCheck %s --check-prefix=QA --implicit-check-not=amk.range
// x: 3 / 255, zero point 0.
// QA-LABEL: func.func @main_graph(
// QA: %[[XS:.*]] = "onnx.Constant"() <{value = dense<0.0117647061> : tensor<f32>}>
// QA-NEXT: %[[XZ:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<ui8>}>
// QA-NEXT: %[[XQ:.*]] = "onnx.QuantizeLinear"(%arg0, %[[XS]], %[[XZ]]) : (tensor<1x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4xui8>
// QA-NEXT: %[[XD:.*]] = "onnx.DequantizeLinear"(%[[XQ]], %[[XS]], %[[XZ]])
// w: per output channel (axis 1), both columns have max |w| = 1.
// QA-NEXT: %[[W:.*]] = "onnx.Constant"() <{value = dense<{{\[\[}}127, 0], [0, 127], [127, 127], [-127, 64]]> : tensor<4x2xi8>}>
// QA-NEXT: %[[WS:.*]] = "onnx.Constant"() <{value = dense<0.00787401571> : tensor<2xf32>}>
// QA-NEXT: %[[WZ:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<2xi8>}>
// QA-NEXT: %[[WD:.*]] = "onnx.DequantizeLinear"(%[[W]], %[[WS]], %[[WZ]]) <{axis = 1 : i64}>
// QA-NEXT: %[[H:.*]] = "onnx.MatMul"(%[[XD]], %[[WD]])
// h: 5.5 / 255, zero point round(1 / (5.5 / 255)) = 46.
// QA-NEXT: "onnx.Constant"() <{value = dense<0.021568628> : tensor<f32>}>
// QA-NEXT: "onnx.Constant"() <{value = dense<46> : tensor<ui8>}>
// QA-NEXT: "onnx.QuantizeLinear"(%[[H]],
// QA-NEXT: %[[HD:.*]] = "onnx.DequantizeLinear"
// QA-NEXT: %[[R:.*]] = "onnx.Relu"(%[[HD]])
// r: 4.5 / 255.
// QA-NEXT: "onnx.Constant"() <{value = dense<0.0176470596> : tensor<f32>}>
// QA-NEXT: "onnx.Constant"() <{value = dense<0> : tensor<ui8>}>
// w2: one channel, max |w| = 2.
// QA: "onnx.Constant"() <{value = dense<0.0157480314> : tensor<1xf32>}>
// The graph output keeps its float value (no reader for a pair).
// QA: %[[Y:.*]] = "onnx.MatMul"
// QA-NEXT: return %[[Y]]
// QA-NOT: amk.range
// RUN: FileCheck %s --check-prefix=AJSON < %t/qa.json
// AJSON: "name": "x",
// AJSON-NEXT: "range": [
// AJSON: "scale": 0.0117647061124444{{[0-9]*}},
// AJSON-NEXT: "zero_point": 0,
// AJSON-NEXT: "rule": "calibrated"

// Set B: x in [-1, 6]: 7 / 255, zero point round(1 / (7 / 255)) = 36;
// h in [-5, 5.5]: 10.5 / 255, zero point round(5 / (10.5 / 255)) = 121.
// RUN: amk-opt %t/model.mlir --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/B},amk-insert-qdq)' | FileCheck %s --check-prefix=QB
// QB-LABEL: func.func @main_graph(
// QB: "onnx.Constant"() <{value = dense<0.0274509806> : tensor<f32>}>
// QB-NEXT: "onnx.Constant"() <{value = dense<36> : tensor<ui8>}>
// QB: "onnx.Constant"() <{value = dense<0.0411764719> : tensor<f32>}>
// QB-NEXT: "onnx.Constant"() <{value = dense<121> : tensor<ui8>}>

// Options: int8 symmetric activations (a ReLU output stays asymmetric),
// per-tensor weights, keep a node in float.
// RUN: amk-opt %t/model.mlir --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A},amk-insert-qdq{activation-type=int8 symmetric-activations=true per-channel=false report=%t/qs.json})' | FileCheck %s --check-prefix=SYM
// x: symmetric int8, 3 / 127.
// SYM-LABEL: func.func @main_graph(
// SYM: "onnx.Constant"() <{value = dense<0.0236220472> : tensor<f32>}>
// SYM-NEXT: "onnx.Constant"() <{value = dense<0> : tensor<i8>}>
// SYM: "onnx.Constant"() <{value = dense<0.00787401571> : tensor<f32>}>
// SYM: "onnx.DequantizeLinear"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x2xi8>, tensor<f32>, tensor<i8>)
// r: relu output, asymmetric int8 over [0, 4.5]: 4.5 / 255, zero point -128.
// SYM: "onnx.Constant"() <{value = dense<0.0176470596> : tensor<f32>}>
// SYM-NEXT: "onnx.Constant"() <{value = dense<-128> : tensor<i8>}>
// RUN: FileCheck %s --check-prefix=SYMJSON < %t/qs.json
// SYMJSON: "rule": "calibrated, relu output: asymmetric"
// uint8 weights are asymmetric per channel: w's first column spans
// [-1, 1]: scale 2 / 255, zero point round(1 / (2 / 255)) = 128.
// RUN: amk-opt %t/model.mlir --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A},amk-insert-qdq{weight-type=uint8})' | FileCheck %s --check-prefix=WU8
// WU8-LABEL: func.func @main_graph(
// WU8: "onnx.Constant"() <{value = dense<{{\[\[}}255, 0], [128, 255], [255, 255], [1, 127]]> : tensor<4x2xui8>}>
// WU8-NEXT: "onnx.Constant"() <{value = dense<[0.00784313772, 0.00392156886]> : tensor<2xf32>}>
// WU8-NEXT: "onnx.Constant"() <{value = dense<[128, 0]> : tensor<2xui8>}>
// RUN: amk-opt %t/model.mlir --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A keep-float=mm2},amk-insert-qdq)' | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func.func @main_graph(
// KEEP-COUNT-2: "onnx.QuantizeLinear"
// KEEP-NOT: "onnx.QuantizeLinear"

// Opset-aware: 16-bit needs opset 21; a clear error, nothing written.
// RUN: not amk-opt %t/model.mlir --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A},amk-insert-qdq{activation-type=int16})' -o %t/int16.mlir 2>&1 | FileCheck %s --check-prefix=INT16
// INT16: error: amk-insert-qdq: activation-type int16 needs QuantizeLinear-21 (opset 21); the module is at opset 13: normalize it with amk-normalize-opset{target-opset=21} or use uint8/int8
// RUN: not test -e %t/int16.mlir
// RUN: amk-opt %t/model.mlir --pass-pipeline='builtin.module(amk-normalize-opset{target-opset=21},amk-calibrate{data-dir=%t/A},amk-insert-qdq{activation-type=int16})' | FileCheck %s --check-prefix=INT16OK
// INT16OK-LABEL: func.func @main_graph(
// INT16OK: "onnx.QuantizeLinear"{{.*}} -> tensor<1x4xi16>
// Changing what is quantized after calibration leaves tensors without a
// range: an error, never a default.
// RUN: not amk-opt %t/model.mlir --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A keep-float=mm2},amk-insert-qdq{keep-float=none})' 2>&1 | FileCheck %s --check-prefix=NORANGE
// NORANGE: error: amk-insert-qdq: tensor '{{.*}}' must be quantized but has no calibrated range: run amk-calibrate with the same configuration first
// Sensitivity: all quantized, the output's SQNR is 49.6 dB; mm1 alone
// costs more (46.0 dB) than mm2 alone (67.7 dB), so a 55 dB target keeps
// mm1 in float and quantizes only around mm2; 80 dB would need every node
// in float: an error that says so.
// RUN: amk-opt %t/model.mlir --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A},amk-insert-qdq{sensitivity-target=55 report=%t/sens.json})' | FileCheck %s --check-prefix=SENS
// SENS-LABEL: func.func @main_graph(
// SENS-COUNT-1: "onnx.QuantizeLinear"
// SENS-NOT: "onnx.QuantizeLinear"
// RUN: FileCheck %s --check-prefix=SENSJSON < %t/sens.json
// SENSJSON: "all_quantized_db": 49.6
// SENSJSON: "node": "mm1",
// SENSJSON-NEXT: "sqnr_db_alone": 45.9
// SENSJSON: "node": "mm2",
// SENSJSON-NEXT: "sqnr_db_alone": 67.7
// SENSJSON: "kept_float": [
// SENSJSON-NEXT: {
// SENSJSON-NEXT: "node": "mm1",
// SENSJSON: "sqnr_db_after": 67.7
// SENSJSON: "target_met": true
// RUN: not amk-opt %t/model.mlir --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A},amk-insert-qdq{sensitivity-target=80})' 2>&1 | FileCheck %s --check-prefix=SENSMAX
// SENSMAX: error: amk-insert-qdq: sensitivity: the target 80.00 dB is not met unless every node stays in float (all quantized: 49.6 dB, all but 'mm2' in float: 67.7 dB); lower sensitivity-target
// RUN: amk-opt %t/invalid.mlir -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-insert-qdq)'

//--- model.mlir
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @main_graph(%arg0: tensor<1x4xf32> {onnx.name = "x"}) -> (tensor<1x1xf32> {onnx.name = "y"}) {
    %w = "onnx.Constant"() <{value = dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]]> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
    %w2 = "onnx.Constant"() <{value = dense<[[1.0], [2.0]]> : tensor<2x1xf32>}> : () -> tensor<2x1xf32>
    %h = "onnx.MatMul"(%arg0, %w) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32> loc(fused<#onnx.node<"mm1", ["h"]>>["a"])
    %r = "onnx.Relu"(%h) : (tensor<1x2xf32>) -> tensor<1x2xf32> loc(fused<#onnx.node<"relu", ["r"]>>["a"])
    %y = "onnx.MatMul"(%r, %w2) : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32> loc(fused<#onnx.node<"mm2", ["y"]>>["a"])
    return %y : tensor<1x1xf32>
  }
}

// -----

//--- invalid.mlir
// The modules amk-insert-qdq refuses.

// No calibration at all.
// expected-error @+1 {{amk-insert-qdq: the module has no calibration (amk.calibration): run amk-calibrate first; ranges are read from the IR only}}
module attributes {onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @no_calibration(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
    %w = "onnx.Constant"() <{value = dense<1.0> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
    %y = "onnx.MatMul"(%x, %w) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    return %y : tensor<1x2xf32>
  }
}

// -----

// A range with min > max.
// expected-error @+1 {{amk-insert-qdq: tensor 'input #0' has an invalid range [2, 1]}}
module attributes {amk.calibration = {config = "{}"}, onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @inverted_range(%x: tensor<1x4xf32> {amk.range = array<f64: 2.0, 1.0>}) -> tensor<1x2xf32> {
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
  func.func @missing_range(%x: tensor<1x4xf32> {amk.range = array<f64: 0.0, 1.0>}) -> tensor<1x2xf32> {
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
  func.func @per_channel_opset12(%x: tensor<1x4xf32> {amk.range = array<f64: 0.0, 1.0>}) -> tensor<1x2xf32> {
    %w = "onnx.Constant"() <{value = dense<1.0> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
    %y = "onnx.MatMul"(%x, %w) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    return %y : tensor<1x2xf32>
  }
}

// -----

// A NaN in a range.
// expected-error @+1 {{amk-insert-qdq: tensor 'input #0' has an invalid range [nan, 1]}}
module attributes {amk.calibration = {config = "{}"}, onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @nan_range(%x: tensor<1x4xf32> {amk.range = array<f64: 0x7FF8000000000000, 1.0>}) -> tensor<1x2xf32> {
    %w = "onnx.Constant"() <{value = dense<1.0> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
    %y = "onnx.MatMul"(%x, %w) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    return %y : tensor<1x2xf32>
  }
}
