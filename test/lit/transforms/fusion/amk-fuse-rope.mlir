// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-fuse-rope)' | FileCheck %s
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-fuse-rope)' --remarks-filter=amk-fuse-rope --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// The fused graphs compute what the originals did, on the reference
// interpreter and on the runtime's ROPE kernel (1 and 2 workers, JIT).
// RUN: rm -rf %t && split-file %s %t
// DEFINE: %{same} = --reference --seed 3 --check-pipeline --pipeline='builtin.module(amk-fuse-rope)' | FileCheck %s --check-prefix=SAME
// DEFINE: %{exec} = --seed 3 --check-reference --pipeline='builtin.module(amk-fuse-rope,amk-schedule-megakernel{workers=2 min-task-ns=0})' | FileCheck %s --check-prefix=EXEC
// SAME: ok vs before-pipeline
// SAME-NOT: MISMATCH
// EXEC-NOT: MISMATCH
// EXEC: ok vs reference
// EXEC-NOT: MISMATCH

//--- rotate_half.mlir
// torch's export of Llama's rotate_half: the tables gathered at the
// positions, broadcast over the heads; the halves by Slice (ends INT64_MAX).
// RUN: amk-run %t/rotate_half.mlir %{same}
// RUN: amk-run %t/rotate_half.mlir --threads 2 %{exec}
// RUN: amk-run %t/rotate_half.mlir --threads 1 --jit %{exec}
// CHECK-LABEL: func.func @rotate_half(
// CHECK-NEXT: %[[Y:.*]] = "amk.rope"(%arg0, %arg1, %arg2) : (tensor<1x4x3x8xf32>, tensor<1x1x3x8xf32>, tensor<1x1x3x8xf32>) -> tensor<1x4x3x8xf32>
// CHECK-NEXT: return %[[Y]]
// REMARK: remark: [Passed] Fused | Category:amk-fuse-rope | Function=rotate_half | Remark="fused onnx.Slice + onnx.Slice + onnx.Neg + onnx.Concat + onnx.Mul + onnx.Mul + onnx.Add into amk.rope"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @rotate_half(%x: tensor<1x4x3x8xf32>, %cos: tensor<1x1x3x8xf32>, %sin: tensor<1x1x3x8xf32>) -> tensor<1x4x3x8xf32> {
    %half = "onnx.Constant"() <{value = dense<4> : tensor<1xi64>}> : () -> tensor<1xi64>
    %zero = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %big = "onnx.Constant"() <{value = dense<9223372036854775807> : tensor<1xi64>}> : () -> tensor<1xi64>
    %axis = "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
    %one = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %direct = "onnx.Mul"(%x, %cos) : (tensor<1x4x3x8xf32>, tensor<1x1x3x8xf32>) -> tensor<1x4x3x8xf32>
    %x2 = "onnx.Slice"(%x, %half, %big, %axis, %one) : (tensor<1x4x3x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4x3x4xf32>
    %n = "onnx.Neg"(%x2) : (tensor<1x4x3x4xf32>) -> tensor<1x4x3x4xf32>
    %x1 = "onnx.Slice"(%x, %zero, %half, %axis, %one) : (tensor<1x4x3x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4x3x4xf32>
    %rot = "onnx.Concat"(%n, %x1) <{axis = -1 : i64}> : (tensor<1x4x3x4xf32>, tensor<1x4x3x4xf32>) -> tensor<1x4x3x8xf32>
    %rs = "onnx.Mul"(%rot, %sin) : (tensor<1x4x3x8xf32>, tensor<1x1x3x8xf32>) -> tensor<1x4x3x8xf32>
    %y = "onnx.Add"(%direct, %rs) : (tensor<1x4x3x8xf32>, tensor<1x4x3x8xf32>) -> tensor<1x4x3x8xf32>
    return %y : tensor<1x4x3x8xf32>
  }
}

// -----

//--- split_commuted.mlir
// Another exporter's spelling: the halves by Split, the negation a Mul by
// -1, every Mul and the Add with their operands the other way round, and
// 2-D tables (positions x D) broadcast over batch and heads.
// RUN: amk-run %t/split_commuted.mlir %{same}
// RUN: amk-run %t/split_commuted.mlir --threads 2 %{exec}
// CHECK-LABEL: func.func @split_commuted(
// CHECK: %[[Y:.*]] = "amk.rope"(%arg0, %arg1, %arg2) : (tensor<2x3x5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<2x3x5x16xf32>
// CHECK-NEXT: return %[[Y]]
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @split_commuted(%x: tensor<2x3x5x16xf32>, %cos: tensor<5x16xf32>, %sin: tensor<5x16xf32>) -> tensor<2x3x5x16xf32> {
    %m1 = "onnx.Constant"() <{value = dense<-1.0> : tensor<f32>}> : () -> tensor<f32>
    %none = onnx.NoValue
    %h:2 = "onnx.Split"(%x, %none) <{axis = 3 : i64, num_outputs = 2 : i64}> : (tensor<2x3x5x16xf32>, none) -> (tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32>)
    %n = "onnx.Mul"(%m1, %h#1) : (tensor<f32>, tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32>
    %rot = "onnx.Concat"(%n, %h#0) <{axis = 3 : i64}> : (tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32>) -> tensor<2x3x5x16xf32>
    %rs = "onnx.Mul"(%sin, %rot) : (tensor<5x16xf32>, tensor<2x3x5x16xf32>) -> tensor<2x3x5x16xf32>
    %direct = "onnx.Mul"(%cos, %x) : (tensor<5x16xf32>, tensor<2x3x5x16xf32>) -> tensor<2x3x5x16xf32>
    %y = "onnx.Add"(%rs, %direct) : (tensor<2x3x5x16xf32>, tensor<2x3x5x16xf32>) -> tensor<2x3x5x16xf32>
    return %y : tensor<2x3x5x16xf32>
  }
}

// -----

//--- interleaved.mlir
// Interleaved pairs, as qwen_like's export writes them: x[..., 0::2] and
// x[..., 1::2], rotated, stacked on a new last axis and flattened; the
// tables are cos and sin of angles computed at run time, D/2 wide.
// RUN: amk-run %t/interleaved.mlir %{same}
// RUN: amk-run %t/interleaved.mlir --threads 2 %{exec}
// RUN: amk-run %t/interleaved.mlir --threads 1 --jit %{exec}
// CHECK-LABEL: func.func @interleaved(
// CHECK: %[[C:.*]] = "onnx.Cos"
// CHECK: %[[S:.*]] = "onnx.Sin"
// CHECK-NEXT: %[[Y:.*]] = "amk.rope"(%arg0, %[[C]], %[[S]]) <{interleaved = true}> : (tensor<1x6x2x8xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x6x2x8xf32>
// CHECK-NEXT: return %[[Y]]
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @interleaved(%x: tensor<1x6x2x8xf32>, %ang: tensor<1x1x2x4xf32>) -> tensor<1x6x2x8xf32> {
    %zero = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %one = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %two = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
    %big = "onnx.Constant"() <{value = dense<9223372036854775807> : tensor<1xi64>}> : () -> tensor<1xi64>
    %last = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %shape = "onnx.Constant"() <{value = dense<[1, 6, 2, 8]> : tensor<4xi64>}> : () -> tensor<4xi64>
    %c = "onnx.Cos"(%ang) : (tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
    %s = "onnx.Sin"(%ang) : (tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
    %x0 = "onnx.Slice"(%x, %zero, %big, %last, %two) : (tensor<1x6x2x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x6x2x4xf32>
    %x1 = "onnx.Slice"(%x, %one, %big, %last, %two) : (tensor<1x6x2x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x6x2x4xf32>
    %a = "onnx.Mul"(%x0, %c) : (tensor<1x6x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x6x2x4xf32>
    %b = "onnx.Mul"(%x1, %s) : (tensor<1x6x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x6x2x4xf32>
    %e = "onnx.Sub"(%a, %b) : (tensor<1x6x2x4xf32>, tensor<1x6x2x4xf32>) -> tensor<1x6x2x4xf32>
    %p = "onnx.Mul"(%x0, %s) : (tensor<1x6x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x6x2x4xf32>
    %q = "onnx.Mul"(%x1, %c) : (tensor<1x6x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x6x2x4xf32>
    %o = "onnx.Add"(%p, %q) : (tensor<1x6x2x4xf32>, tensor<1x6x2x4xf32>) -> tensor<1x6x2x4xf32>
    %eu = "onnx.Unsqueeze"(%e, %last) : (tensor<1x6x2x4xf32>, tensor<1xi64>) -> tensor<1x6x2x4x1xf32>
    %ou = "onnx.Unsqueeze"(%o, %last) : (tensor<1x6x2x4xf32>, tensor<1xi64>) -> tensor<1x6x2x4x1xf32>
    %st = "onnx.Concat"(%eu, %ou) <{axis = -1 : i64}> : (tensor<1x6x2x4x1xf32>, tensor<1x6x2x4x1xf32>) -> tensor<1x6x2x4x2xf32>
    %y = "onnx.Reshape"(%st, %shape) : (tensor<1x6x2x4x2xf32>, tensor<4xi64>) -> tensor<1x6x2x8xf32>
    return %y : tensor<1x6x2x8xf32>
  }
}

// -----

//--- tf_slices.mlir
// tf2onnx slices every axis (the others whole) and writes the Mul by the
// table first.
// RUN: amk-run %t/tf_slices.mlir %{same}
// CHECK-LABEL: func.func @tf_slices(
// CHECK: "amk.rope"(%arg0, %arg1, %arg2)
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @tf_slices(%x: tensor<3x8xf32>, %cos: tensor<3x8xf32>, %sin: tensor<3x8xf32>) -> tensor<3x8xf32> {
    %s0 = "onnx.Constant"() <{value = dense<[0, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %e0 = "onnx.Constant"() <{value = dense<[3, 8]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %s1 = "onnx.Constant"() <{value = dense<[0, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %e1 = "onnx.Constant"() <{value = dense<[3, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %none = onnx.NoValue
    %x2 = "onnx.Slice"(%x, %s0, %e0, %none, %none) : (tensor<3x8xf32>, tensor<2xi64>, tensor<2xi64>, none, none) -> tensor<3x4xf32>
    %x1 = "onnx.Slice"(%x, %s1, %e1, %none, %none) : (tensor<3x8xf32>, tensor<2xi64>, tensor<2xi64>, none, none) -> tensor<3x4xf32>
    %n = "onnx.Neg"(%x2) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %rot = "onnx.Concat"(%n, %x1) <{axis = 1 : i64}> : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
    %direct = "onnx.Mul"(%cos, %x) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %rs = "onnx.Mul"(%rot, %sin) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    %y = "onnx.Add"(%direct, %rs) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
    return %y : tensor<3x8xf32>
  }
}

// -----

//--- wrong_halves.mlir
// Negative: Concat(-x1, x2) with the halves the other way round is the
// inverse rotation, not rotate_half: left alone.
// RUN: amk-run %t/wrong_halves.mlir %{same}
// CHECK-LABEL: func.func @wrong_halves(
// CHECK-NOT: amk.rope
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @wrong_halves(%x: tensor<2x8xf32>, %cos: tensor<2x8xf32>, %sin: tensor<2x8xf32>) -> tensor<2x8xf32> {
    %none = onnx.NoValue
    %h:2 = "onnx.Split"(%x, %none) <{axis = -1 : i64, num_outputs = 2 : i64}> : (tensor<2x8xf32>, none) -> (tensor<2x4xf32>, tensor<2x4xf32>)
    %n = "onnx.Neg"(%h#0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %rot = "onnx.Concat"(%n, %h#1) <{axis = -1 : i64}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
    %direct = "onnx.Mul"(%x, %cos) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %rs = "onnx.Mul"(%rot, %sin) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %y = "onnx.Add"(%direct, %rs) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    return %y : tensor<2x8xf32>
  }
}

// -----

//--- rotated_also_returned.mlir
// Negative: the rotated half is also an output, so the match is not
// self-contained: left alone.
// RUN: amk-run %t/rotated_also_returned.mlir %{same}
// CHECK-LABEL: func.func @rotated_also_returned(
// CHECK-NOT: amk.rope
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @rotated_also_returned(%x: tensor<2x8xf32>, %cos: tensor<2x8xf32>, %sin: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
    %none = onnx.NoValue
    %h:2 = "onnx.Split"(%x, %none) <{axis = -1 : i64, num_outputs = 2 : i64}> : (tensor<2x8xf32>, none) -> (tensor<2x4xf32>, tensor<2x4xf32>)
    %n = "onnx.Neg"(%h#1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %rot = "onnx.Concat"(%n, %h#0) <{axis = -1 : i64}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
    %direct = "onnx.Mul"(%x, %cos) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %rs = "onnx.Mul"(%rot, %sin) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %y = "onnx.Add"(%direct, %rs) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    return %y, %rot : tensor<2x8xf32>, tensor<2x8xf32>
  }
}

// -----

//--- half_width_table.mlir
// Negative: a rotate_half whose tables are D/2 wide broadcasts them along
// the last axis, which amk.rope does not read that way: left alone.
// RUN: amk-run %t/half_width_table.mlir %{same}
// CHECK-LABEL: func.func @half_width_table(
// CHECK-NOT: amk.rope
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @half_width_table(%x: tensor<2x8xf32>, %cos: tensor<2x1xf32>, %sin: tensor<2x8xf32>) -> tensor<2x8xf32> {
    %none = onnx.NoValue
    %h:2 = "onnx.Split"(%x, %none) <{axis = -1 : i64, num_outputs = 2 : i64}> : (tensor<2x8xf32>, none) -> (tensor<2x4xf32>, tensor<2x4xf32>)
    %n = "onnx.Neg"(%h#1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %rot = "onnx.Concat"(%n, %h#0) <{axis = -1 : i64}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
    %direct = "onnx.Mul"(%x, %cos) : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
    %rs = "onnx.Mul"(%rot, %sin) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %y = "onnx.Add"(%direct, %rs) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    return %y : tensor<2x8xf32>
  }
}

// -----

//--- float64.mlir
// Negative: float64 keeps its elementwise ops (the ROPE kernel computes
// float32).
// RUN: amk-run %t/float64.mlir %{same}
// CHECK-LABEL: func.func @float64(
// CHECK-NOT: amk.rope
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @float64(%x: tensor<2x8xf64>, %cos: tensor<2x8xf64>, %sin: tensor<2x8xf64>) -> tensor<2x8xf64> {
    %none = onnx.NoValue
    %h:2 = "onnx.Split"(%x, %none) <{axis = -1 : i64, num_outputs = 2 : i64}> : (tensor<2x8xf64>, none) -> (tensor<2x4xf64>, tensor<2x4xf64>)
    %n = "onnx.Neg"(%h#1) : (tensor<2x4xf64>) -> tensor<2x4xf64>
    %rot = "onnx.Concat"(%n, %h#0) <{axis = -1 : i64}> : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x8xf64>
    %direct = "onnx.Mul"(%x, %cos) : (tensor<2x8xf64>, tensor<2x8xf64>) -> tensor<2x8xf64>
    %rs = "onnx.Mul"(%rot, %sin) : (tensor<2x8xf64>, tensor<2x8xf64>) -> tensor<2x8xf64>
    %y = "onnx.Add"(%direct, %rs) : (tensor<2x8xf64>, tensor<2x8xf64>) -> tensor<2x8xf64>
    return %y : tensor<2x8xf64>
  }
}

// -----

//--- same_cos_sin.mlir
// Negative: interleaved pairs whose cos and sin are one value, after CSE
// merged x0 * c with x0 * s: a product matched twice is not a rotation.
// RUN: amk-run %t/same_cos_sin.mlir %{same}
// CHECK-LABEL: func.func @same_cos_sin(
// CHECK-NOT: amk.rope
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @same_cos_sin(%x: tensor<1x2x8xf32>, %t: tensor<1x1x4xf32>) -> tensor<1x2x8xf32> {
    %zero = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %one = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %two = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
    %big = "onnx.Constant"() <{value = dense<9223372036854775807> : tensor<1xi64>}> : () -> tensor<1xi64>
    %last = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %shape = "onnx.Constant"() <{value = dense<[1, 2, 8]> : tensor<3xi64>}> : () -> tensor<3xi64>
    %x0 = "onnx.Slice"(%x, %zero, %big, %last, %two) : (tensor<1x2x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2x4xf32>
    %x1 = "onnx.Slice"(%x, %one, %big, %last, %two) : (tensor<1x2x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2x4xf32>
    %a = "onnx.Mul"(%x0, %t) : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
    %b = "onnx.Mul"(%x1, %t) : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
    %e = "onnx.Sub"(%a, %b) : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
    %o = "onnx.Add"(%a, %b) : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
    %eu = "onnx.Unsqueeze"(%e, %last) : (tensor<1x2x4xf32>, tensor<1xi64>) -> tensor<1x2x4x1xf32>
    %ou = "onnx.Unsqueeze"(%o, %last) : (tensor<1x2x4xf32>, tensor<1xi64>) -> tensor<1x2x4x1xf32>
    %st = "onnx.Concat"(%eu, %ou) <{axis = -1 : i64}> : (tensor<1x2x4x1xf32>, tensor<1x2x4x1xf32>) -> tensor<1x2x4x2xf32>
    %y = "onnx.Reshape"(%st, %shape) : (tensor<1x2x4x2xf32>, tensor<3xi64>) -> tensor<1x2x8xf32>
    return %y : tensor<1x2x8xf32>
  }
}
