// RUN: rm -rf %t && split-file %s %t
// RUN: amk-opt %t/decode.mlir --pass-pipeline='builtin.module(amk-kv-cache)' | FileCheck %s
// RUN: amk-opt %t/decode.mlir --pass-pipeline='builtin.module(amk-kv-cache{position-input=slot})' | FileCheck %s --check-prefix=NAMED
// RUN: amk-opt %t/errors.mlir -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-kv-cache)'

// The rewritten step runs on the runtime and matches the interpreter; the
// cache keeps its other slots (a cache of ones, the new rows at slot 2).
// RUN: amk-opt %t/decode.mlir --pass-pipeline='builtin.module(amk-kv-cache)' -mlir-print-debuginfo -o %t/cached.mlir
// RUN: %python -c "import numpy as np, sys; np.save(sys.argv[1], np.ones((1, 2, 4, 4), np.float32)); np.save(sys.argv[2], np.array([2], np.int64)); np.save(sys.argv[3], np.array([4], np.int64))" %t/cache.npy %t/pos.npy %t/bad.npy
// RUN: amk-run %t/cached.mlir --seed 5 --input past_key_values.0.key=%t/cache.npy --input cache_position=%t/pos.npy --threads 2 --check-reference | FileCheck %s --check-prefix=EXEC
// EXEC-COUNT-2: ok vs reference
// A position past the cache stops the run naming the node.
// RUN: not amk-run %t/cached.mlir --seed 5 --input past_key_values.0.key=%t/cache.npy --input cache_position=%t/bad.npy 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: {{.*}}append_k{{.*}}out of range

//--- decode.mlir
// A one-token step: the past (3 slots) becomes a cache of 4, the Concat a
// ScatterND at the new position input; other users of the present value
// read the cache.
// CHECK-LABEL: func.func @decode(
// CHECK-SAME: %[[NEW:[a-z0-9]+]]: tensor<1x2x1x4xf32>
// CHECK-SAME: %[[CACHE:[a-z0-9]+]]: tensor<1x2x4x4xf32> {onnx.dim_params = ["batch", "", "cache_slots", ""], onnx.name = "past_key_values.0.key"}
// CHECK-SAME: %[[POS:[a-z0-9]+]]: tensor<1xi64> {onnx.name = "cache_position"}
// CHECK: %[[OFF:.*]] = "onnx.Mul"(%[[POS]], %{{.*}}) : (tensor<1xi64>, tensor<3xi64>) -> tensor<3xi64>
// CHECK: %[[IDX:.*]] = "onnx.Add"(%{{.*}}, %[[OFF]]) : (tensor<1x2x1x3xi64>, tensor<3xi64>) -> tensor<1x2x1x3xi64>
// CHECK: %[[W:.*]] = "onnx.ScatterND"(%[[CACHE]], %[[IDX]], %[[NEW]])
// CHECK-NOT: onnx.Concat
// CHECK: %[[S:.*]] = "onnx.ReduceSum"(%[[W]]
// CHECK: return %[[W]], %[[S]]
// NAMED-LABEL: func.func @decode(
// NAMED: tensor<1xi64> {onnx.name = "slot"}
#append_k = loc(fused<#onnx.node<"append_k", ["present.0.key"]>>["t.onnx":0:0])
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @decode(%new: tensor<1x2x1x4xf32> {onnx.name = "new"}, %past: tensor<1x2x3x4xf32> {onnx.dim_params = ["batch", "", "past_sequence", ""], onnx.name = "past_key_values.0.key"}) -> (tensor<1x2x4x4xf32> {onnx.name = "present.0.key"}, tensor<1x2x4xf32> {onnx.name = "sums"}) {
    %c = "onnx.Concat"(%past, %new) <{axis = 2 : i64}> : (tensor<1x2x3x4xf32>, tensor<1x2x1x4xf32>) -> tensor<1x2x4x4xf32> loc(#append_k)
    %ax = "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
    %s = "onnx.ReduceSum"(%c, %ax) <{keepdims = 0 : i64}> : (tensor<1x2x4x4xf32>, tensor<1xi64>) -> tensor<1x2x4xf32>
    return %c, %s : tensor<1x2x4x4xf32>, tensor<1x2x4xf32>
  }
}

//--- errors.mlir
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @prefill(%new: tensor<1x2x2x4xf32>, %past: tensor<1x2x3x4xf32> {onnx.name = "past"}) -> tensor<1x2x5x4xf32> {
    // expected-error @+1 {{rewrites a decode step of one token, but 'past' is appended 2 rows}}
    %c = "onnx.Concat"(%past, %new) <{axis = 2 : i64}> : (tensor<1x2x3x4xf32>, tensor<1x2x2x4xf32>) -> tensor<1x2x5x4xf32>
    return %c : tensor<1x2x5x4xf32>
  }
}

// -----

module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @other_user(%new: tensor<1x2x1x4xf32>, %past: tensor<1x2x3x4xf32> {onnx.name = "past"}) -> (tensor<1x2x4x4xf32>, tensor<1x2x3x4xf32>) {
    // expected-error @+1 {{'past' has users besides the Concat}}
    %c = "onnx.Concat"(%past, %new) <{axis = 2 : i64}> : (tensor<1x2x3x4xf32>, tensor<1x2x1x4xf32>) -> tensor<1x2x4x4xf32>
    %n = "onnx.Neg"(%past) : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
    return %c, %n : tensor<1x2x4x4xf32>, tensor<1x2x3x4xf32>
  }
}

// -----

module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @dynamic(%new: tensor<1x2x1x4xf32>, %past: tensor<1x2x?x4xf32> {onnx.name = "past"}) -> tensor<1x2x?x4xf32> {
    // expected-error @+1 {{needs static shapes (run amk-bind-shapes first); 'past' is 'tensor<1x2x?x4xf32>'}}
    %c = "onnx.Concat"(%past, %new) <{axis = 2 : i64}> : (tensor<1x2x?x4xf32>, tensor<1x2x1x4xf32>) -> tensor<1x2x?x4xf32>
    return %c : tensor<1x2x?x4xf32>
  }
}

// -----

module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  // expected-error @+1 {{found no graph input that a Concat appends to and returns}}
  func.func @encoder(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
    %n = "onnx.Neg"(%x) : (tensor<1x4xf32>) -> tensor<1x4xf32>
    return %n : tensor<1x4xf32>
  }
}

// -----

module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  // expected-error @+1 {{already has an input named 'cache_position'}}
  func.func @clash(%new: tensor<1x2x1x4xf32>, %past: tensor<1x2x3x4xf32>, %p: tensor<1xi64> {onnx.name = "cache_position"}) -> tensor<1x2x4x4xf32> {
    %c = "onnx.Concat"(%past, %new) <{axis = 2 : i64}> : (tensor<1x2x3x4xf32>, tensor<1x2x1x4xf32>) -> tensor<1x2x4x4xf32>
    return %c : tensor<1x2x4x4xf32>
  }
}
