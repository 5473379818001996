// Each binding runs on the cases it is about: split-file writes each case
// (`//--- NAME.mlir`) to its own file.
// RUN: rm -rf %t && split-file %s %t
// RUN: amk-opt %t/named.mlir --pass-pipeline='builtin.module(amk-bind-shapes{dims=batch=8,seq=128})' | FileCheck %s --check-prefix=DIMS
// RUN: amk-opt %t/shape_chain.mlir --pass-pipeline='builtin.module(amk-bind-shapes{dims=batch=8,seq=128})' 2>%t/chain.err | FileCheck %s --check-prefix=CHAIN
// RUN: FileCheck %s --check-prefix=CHAINWARN < %t/chain.err
// RUN: amk-opt %t/named.mlir --pass-pipeline='builtin.module(amk-bind-shapes{dims=batch=8 infer=false})' | FileCheck %s --check-prefix=NOINFER
// RUN: amk-opt %t/fused.mlir --pass-pipeline='builtin.module(amk-bind-shapes{dims=batch=4})' | FileCheck %s --check-prefix=FUSED
// RUN: amk-opt %t/by_shape.mlir --pass-pipeline='builtin.module(amk-bind-shapes{shapes=x=2x3x5})' | FileCheck %s --check-prefix=SHAPE

//--- named.mlir
// Named dimensions bind wherever the model uses them, the sizes flow
// through the graph, and the result's type follows.
// DIMS-LABEL: func.func @named
// DIMS-SAME: %{{.*}}: tensor<8x128xf32> {{.*}}%{{.*}}: tensor<8x128xf32>
// DIMS-SAME: -> (tensor<8x128xf32>
// DIMS: "onnx.Add"{{.*}} -> tensor<8x128xf32>
// NOINFER-LABEL: func.func @named
// NOINFER-SAME: tensor<8x?xf32>
// NOINFER: "onnx.Add"{{.*}} -> tensor<?x?xf32>
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @named(%a: tensor<?x?xf32> {onnx.dim_params = ["batch", "seq"], onnx.name = "a"}, %b: tensor<?x?xf32> {onnx.dim_params = ["batch", "seq"], onnx.name = "b"}) -> (tensor<?x?xf32> {onnx.name = "y"}) {
    %0 = "onnx.Add"(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    return %0 : tensor<?x?xf32>
  }
}

// -----

//--- empty_past.mlir
// A size may be 0: a decoder's first step has no past keys, and the
// Concat of the empty past with the new keys is the new keys. The runtime
// runs the bound program (the empty input takes no memory).
// RUN: amk-opt %t/empty_past.mlir --pass-pipeline='builtin.module(amk-bind-shapes{dims=past=0})' | FileCheck %s --check-prefix=ZERO
// RUN: amk-run %t/empty_past.mlir --dim past=0 --seed 2 --threads 2 --check-reference | FileCheck %s --check-prefix=ZEROEXEC
// ZERO-LABEL: func.func @main_graph
// ZERO-SAME: tensor<1x0x4xf32>
// ZERO: "onnx.Concat"{{.*}} -> tensor<1x2x4xf32>
// ZEROEXEC: ok vs reference
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%past: tensor<1x?x4xf32> {onnx.dim_params = ["", "past", ""], onnx.name = "past"}, %new: tensor<1x2x4xf32> {onnx.name = "new"}) -> (tensor<1x?x4xf32> {onnx.name = "present"}) {
    %0 = "onnx.Concat"(%past, %new) <{axis = 1 : i64}> : (tensor<1x?x4xf32>, tensor<1x2x4xf32>) -> tensor<1x?x4xf32>
    return %0 : tensor<1x?x4xf32>
  }
}

// -----

//--- by_shape.mlir
// A shape binds one input by name; the dimension names it fixes bind the
// same names on the other inputs. Static dimensions stay as they are.
// SHAPE-LABEL: func.func @by_shape
// SHAPE-SAME: %{{.*}}: tensor<2x3x5xf32> {{.*}}%{{.*}}: tensor<2x5xf32>
// SHAPE: "onnx.Mul"{{.*}} -> tensor<2x3x5xf32>
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @by_shape(%x: tensor<?x3x?xf32> {onnx.dim_params = ["n", "", "w"], onnx.name = "x"}, %s: tensor<?x?xf32> {onnx.dim_params = ["n", "w"], onnx.name = "s"}) -> (tensor<?x3x?xf32> {onnx.name = "y"}) {
    %axes = "onnx.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
    %u = "onnx.Unsqueeze"(%s, %axes) : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?x1x?xf32>
    %0 = "onnx.Mul"(%x, %u) : (tensor<?x3x?xf32>, tensor<?x1x?xf32>) -> tensor<?x3x?xf32>
    return %0 : tensor<?x3x?xf32>
  }
}

// -----

//--- shape_chain.mlir
// What exporters emit for a dynamic flatten (Shape -> Gather -> Concat ->
// Reshape): once the batch is bound the shape computation folds away and
// the Reshape's target is a constant.
// The seq binding names no dimension of this model: a warning.
// CHAINWARN: warning: amk-bind-shapes: no input has a dimension named 'seq'; it binds nothing
// CHAIN-LABEL: func.func @shape_chain
// CHAIN-NOT: onnx.Shape
// CHAIN-NOT: onnx.Gather
// CHAIN-NOT: onnx.Concat
// CHAIN: %[[T:.*]] = "onnx.Constant"() <{value = dense<[8, -1]> : tensor<2xi64>}>
// CHAIN: "onnx.Reshape"(%{{.*}}, %[[T]]){{.*}} -> tensor<8x12xf32>
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @shape_chain(%x: tensor<?x3x4xf32> {onnx.dim_params = ["batch", "", ""], onnx.name = "x"}) -> (tensor<?x?xf32> {onnx.name = "y"}) {
    %s = "onnx.Shape"(%x) : (tensor<?x3x4xf32>) -> tensor<3xi64>
    %i = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %b = "onnx.Gather"(%s, %i) <{axis = 0 : i64}> : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
    %m = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %t = "onnx.Concat"(%b, %m) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %y = "onnx.Reshape"(%x, %t) : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
    return %y : tensor<?x?xf32>
  }
}

// -----

//--- bad.mlir
// Bad bindings: a clear error naming the input and the dimension, and the
// module left unchanged.
// RUN: not amk-opt %t/bad.mlir --pass-pipeline='builtin.module(amk-bind-shapes{shapes=x=2x4x5})' 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: error: amk-bind-shapes: input 'x' dimension 1 is 3 in the model, not 4
// RUN: not amk-opt %t/bad.mlir --pass-pipeline='builtin.module(amk-bind-shapes{shapes=x=2x3})' 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: error: amk-bind-shapes: input 'x' has rank 3, its shape has 2 dimensions
// RUN: not amk-opt %t/bad.mlir --pass-pipeline='builtin.module(amk-bind-shapes{dims=n=2,n=3})' 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: amk-bind-shapes: dimension 'n' is bound to 2 and to 3
// RUN: not amk-opt %t/bad.mlir --pass-pipeline='builtin.module(amk-bind-shapes{shapes=x=2x3x5 dims=n=4})' 2>&1 | FileCheck %s --check-prefix=CONFLICT
// CONFLICT: error: amk-bind-shapes: input 'x' dimension 0 ('n') is 2 by its shape but 4 by dims
// RUN: not amk-opt %t/bad.mlir --pass-pipeline='builtin.module(amk-bind-shapes{shapes=x=2x3x5,s=3x5})' 2>&1 | FileCheck %s --check-prefix=ACROSS
// ACROSS: error: amk-bind-shapes: dimension 'n' is 2 (shapes=x) and 3 (shapes=s, input 's')
// RUN: not amk-opt %t/bad.mlir --pass-pipeline='builtin.module(amk-bind-shapes{dims=n=-2})' 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: amk-bind-shapes: dimension 'n': '-2' is not a size
// RUN: not amk-opt %t/bad.mlir --pass-pipeline='builtin.module(amk-bind-shapes{dims=n=99999999999999999999})' 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: error: amk-bind-shapes: dimension 'n': '99999999999999999999' is not a size
// RUN: not amk-opt %t/bad.mlir --pass-pipeline='builtin.module(amk-bind-shapes{dims=n=2000000000000})' 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: amk-bind-shapes: dimension 'n': the size 2000000000000 is too large (at most 2^40)
// RUN: not amk-opt %t/bad.mlir --pass-pipeline='builtin.module(amk-bind-shapes{shapes=z=1})' 2>&1 | FileCheck %s --check-prefix=NOINPUT
// NOINPUT: error: amk-bind-shapes: the model has no input named 'z'
// RUN: amk-opt %t/bad.mlir --pass-pipeline='builtin.module(amk-bind-shapes{dims=seq=4})' 2>&1 | FileCheck %s --check-prefix=NODIM
// NODIM: warning: amk-bind-shapes: no input has a dimension named 'seq'; it binds nothing
// RUN: not amk-opt %t/bad.mlir --pass-pipeline='builtin.module(amk-bind-shapes{shapes=x=2x3x5,x=2x3x5})' 2>&1 | FileCheck %s --check-prefix=DUP
// DUP: error: amk-bind-shapes: input 'x' is given two shapes
// The module is unchanged after an error found late (at the second input).
// RUN: not amk-opt %t/bad.mlir --mlir-print-ir-after-failure --pass-pipeline='builtin.module(amk-bind-shapes{shapes=x=2x3x5,s=3x5})' 2>&1 | FileCheck %s --check-prefix=UNCHANGED
// UNCHANGED: IR Dump After BindShapes Failed
// UNCHANGED: func.func @bad(%{{.*}}: tensor<?x3x?xf32>
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @bad(%x: tensor<?x3x?xf32> {onnx.dim_params = ["n", "", "w"], onnx.name = "x"}, %s: tensor<?x?xf32> {onnx.dim_params = ["n", "w"], onnx.name = "s"}) -> (tensor<?x3x?xf32> {onnx.name = "y"}) {
    %axes = "onnx.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
    %u = "onnx.Unsqueeze"(%s, %axes) : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?x1x?xf32>
    %0 = "onnx.Mul"(%x, %u) : (tensor<?x3x?xf32>, tensor<?x1x?xf32>) -> tensor<?x3x?xf32>
    return %0 : tensor<?x3x?xf32>
  }
}

// -----

// A model fused before its sizes were known (amk-graph-opt on a dynamic
// model) becomes static when they are bound: the fused ops and a fused
// group's body are refined like the ONNX ops they replace.

// FUSED-LABEL: func.func @fused_then_bound(
// FUSED-SAME: -> tensor<4x16xf32>
// FUSED: "amk.gemm"{{.*}} -> tensor<4x16xf32>
// FUSED: ^bb0(%{{.*}}: tensor<4x16xf32>):
// FUSED: onnx.Relu{{.*}} -> tensor<4x16xf32>
// FUSED: amk.yield {{.*}} : tensor<4x16xf32>
// FUSED: -> tensor<4x16xf32>
// FUSED: "amk.gelu"{{.*}} -> tensor<4x16xf32>
//--- fused.mlir
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @fused_then_bound(%x: tensor<?x8xf32> {onnx.dim_params = ["batch", ""], onnx.name = "x"}) -> tensor<?x16xf32> {
    %w = "onnx.Constant"() <{value = dense<0.5> : tensor<8x16xf32>}> : () -> tensor<8x16xf32>
    %none = "onnx.NoValue"() : () -> none
    %g = "amk.gemm"(%x, %w, %none) : (tensor<?x8xf32>, tensor<8x16xf32>, none) -> tensor<?x16xf32>
    %e = "amk.fused_elementwise"(%g) ({
    ^bb0(%a: tensor<?x16xf32>):
      %r = "onnx.Relu"(%a) : (tensor<?x16xf32>) -> tensor<?x16xf32>
      "amk.yield"(%r) : (tensor<?x16xf32>) -> ()
    }) : (tensor<?x16xf32>) -> tensor<?x16xf32>
    %y = "amk.gelu"(%e) : (tensor<?x16xf32>) -> tensor<?x16xf32>
    return %y : tensor<?x16xf32>
  }
}

// -----

// Values: a Resize whose scales come in as an input folds to a static
// result once the program is specialized on them; the input stays in the
// signature, unused.
// RUN: amk-opt %t/values.mlir --pass-pipeline='builtin.module(amk-bind-shapes{values=scales=1:1:2:1.5})' | FileCheck %s --check-prefix=VALUES
// VALUES-LABEL: func.func @values(
// VALUES-SAME: %arg1: tensor<4xf32>
// VALUES: %[[C:.*]] = "onnx.Constant"() <{value = dense<[1.000000e+00, 1.000000e+00, 2.000000e+00, 1.500000e+00]> : tensor<4xf32>}>
// VALUES: "onnx.Resize"(%arg0, %{{.*}}, %[[C]], %{{.*}}) {{.*}} -> tensor<1x3x16x12xf32>
// Bad values: a clear error, nothing changed.
// RUN: not amk-opt %t/values.mlir --pass-pipeline='builtin.module(amk-bind-shapes{values=scales=1:2})' 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: amk-bind-shapes: input 'scales' has 4 elements, its values 2
// RUN: not amk-opt %t/values.mlir --pass-pipeline='builtin.module(amk-bind-shapes{values=x=1})' 2>&1 | FileCheck %s --check-prefix=BIGIN
// BIGIN: error: amk-bind-shapes: input 'x' is not a small numeric tensor of static shape (at most 64 elements), so it cannot be given values
// RUN: not amk-opt %t/values.mlir --pass-pipeline='builtin.module(amk-bind-shapes{values=k=300})' 2>&1 | FileCheck %s --check-prefix=FIT
// FIT: error: amk-bind-shapes: value 300 of input 'k' does not fit its type
// RUN: not amk-opt %t/values.mlir --pass-pipeline='builtin.module(amk-bind-shapes{values=scales=1:1:two:1})' 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: error: amk-bind-shapes: value 'two' of input 'scales' is not a number
//--- values.mlir
module attributes {onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @values(%x: tensor<1x3x8x8xf32> {onnx.name = "x"}, %scales: tensor<4xf32> {onnx.name = "scales"}, %k: tensor<1xi8> {onnx.name = "k"}) -> (tensor<?x?x?x?xf32> {onnx.name = "y"}) {
    %none = "onnx.NoValue"() : () -> none
    %y = "onnx.Resize"(%x, %none, %scales, %none) <{mode = "nearest"}> : (tensor<1x3x8x8xf32>, none, tensor<4xf32>, none) -> tensor<?x?x?x?xf32>
    return %y : tensor<?x?x?x?xf32>
  }
}
