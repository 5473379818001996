// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-infer-shapes)' | FileCheck %s
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-infer-shapes{fold-shape-computations=false})' | FileCheck %s --check-prefix=NOFOLD
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-infer-shapes{fold-limit=2})' | FileCheck %s --check-prefix=LIMIT
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-infer-shapes)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// A Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain on a static
// input folds away: the Reshape keeps a constant shape and a static type,
// and the function signature follows.

// CHECK-LABEL: func.func @shape_computation_folds(
// CHECK-SAME: -> tensor<2x12xf32>
// CHECK-NOT: onnx.Shape
// CHECK-NOT: onnx.Gather
// CHECK-NOT: onnx.Concat
// CHECK: %[[SHAPE:.*]] = "onnx.Constant"() <{value = dense<[2, -1]> : tensor<2xi64>}>
// CHECK: "onnx.Reshape"(%arg0, %[[SHAPE]]) {{.*}} -> tensor<2x12xf32>
// The first split's counters: four ops folded, the Reshape refined.
// STATS: Pass statistics report
// STATS: InferShapes
// STATS-NEXT: (S) 4 folded - shape computations folded to constants
// STATS-NEXT: (S) 1 refined - result types refined
// STATS-NEXT: (S) 0 unresolved - results left without a static shape
// With fold-limit=2 the 3-element Shape result is not folded; the scalar
// index constant still is, so the Reshape keeps its computed shape input.
// LIMIT-LABEL: func.func @shape_computation_folds(
// LIMIT: onnx.Shape
// LIMIT: onnx.Reshape
// NOFOLD-LABEL: func.func @shape_computation_folds(
// NOFOLD: onnx.Shape
// NOFOLD: onnx.Reshape{{.*}} -> tensor<?x?xf32>
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @shape_computation_folds(%x: tensor<2x3x4xf32>) -> tensor<*xf32> {
    %s = "onnx.Shape"(%x) : (tensor<2x3x4xf32>) -> tensor<*xi64>
    %i0 = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    %d0 = "onnx.Gather"(%s, %i0) : (tensor<*xi64>, tensor<i64>) -> tensor<*xi64>
    %ax = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %u0 = "onnx.Unsqueeze"(%d0, %ax) : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
    %m1 = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %shape = "onnx.Concat"(%u0, %m1) <{axis = 0 : i64}> : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
    %r = "onnx.Reshape"(%x, %shape) : (tensor<2x3x4xf32>, tensor<*xi64>) -> tensor<*xf32>
    return %r : tensor<*xf32>
  }
}

// -----

// Symbolic rules keep a dynamic batch: broadcasting, MatMul, Conv, pooling.

// CHECK-LABEL: func.func @symbolic_batch(
// CHECK-SAME: -> (tensor<?x8x4x4xf32>, tensor<?x5x3xf32>)
// CHECK: onnx.Conv{{.*}} -> tensor<?x8x8x8xf32>
// CHECK: onnx.Relu{{.*}} -> tensor<?x8x8x8xf32>
// CHECK: onnx.MaxPool{{.*}} -> (tensor<?x8x4x4xf32>, none)
// CHECK: onnx.MatMul{{.*}} -> tensor<?x5x3xf32>
// CHECK: onnx.Add{{.*}} -> tensor<?x5x3xf32>
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @symbolic_batch(%x: tensor<?x3x16x16xf32>, %a: tensor<?x5x4xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
    %w = "onnx.Constant"() <{value = dense<0.5> : tensor<8x3x3x3xf32>}> : () -> tensor<8x3x3x3xf32>
    %none = "onnx.NoValue"() : () -> none
    %c = "onnx.Conv"(%x, %w, %none) <{pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<?x3x16x16xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
    %r = "onnx.Relu"(%c) : (tensor<*xf32>) -> tensor<*xf32>
    %p:2 = "onnx.MaxPool"(%r) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<*xf32>) -> (tensor<*xf32>, none)
    %b = "onnx.Constant"() <{value = dense<1.0> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
    %m = "onnx.MatMul"(%a, %b) : (tensor<?x5x4xf32>, tensor<4x3xf32>) -> tensor<*xf32>
    %bias = "onnx.Constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<3xf32>
    %s = "onnx.Add"(%m, %bias) : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
    return %p#0, %s : tensor<*xf32>, tensor<*xf32>
  }
}

// -----

// MaxUnpool takes its spatial sizes from the attributes, (in - 1) * stride
// + kernel - pads, without the index input's shape (libonnx's rule crashes
// on an index input of unknown rank; the importer then leaves the result
// untyped), or from a constant output_shape.

// CHECK-LABEL: func.func @max_unpool(
// CHECK: onnx.MaxUnpool{{.*}} -> tensor<?x3x8x9xf32>
// CHECK: onnx.MaxUnpool{{.*}} -> tensor<1x3x5x6xf32>
module attributes {onnx.opset_import = {ai.onnx = 11 : i64}} {
  func.func @max_unpool(%x: tensor<?x3x4x5xf32>, %i: tensor<*xi64>, %y: tensor<1x3x2x3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
    %none = "onnx.NoValue"() : () -> none
    %u = "onnx.MaxUnpool"(%x, %i, %none) <{kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 0, 1>}> : (tensor<?x3x4x5xf32>, tensor<*xi64>, none) -> tensor<*xf32>
    %shape = "onnx.Constant"() <{value = dense<[1, 3, 5, 6]> : tensor<4xi64>}> : () -> tensor<4xi64>
    %v = "onnx.MaxUnpool"(%y, %i, %shape) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x3x2x3xf32>, tensor<*xi64>, tensor<4xi64>) -> tensor<*xf32>
    return %u, %v : tensor<*xf32>, tensor<*xf32>
  }
}

// -----

// Ops without a symbolic rule are evaluated by their reference kernel on
// placeholders when their inputs are static and their shape operands
// constant.

// CHECK-LABEL: func.func @reference_kernel_shapes(
// CHECK: onnx.Slice{{.*}} -> tensor<2x2xf32>
// CHECK: onnx.TopK{{.*}} -> (tensor<2x1xf32>, tensor<2x1xi64>)
// CHECK: onnx.NonZero{{.*}} -> tensor<*xi64>
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @reference_kernel_shapes(%x: tensor<4x6xf32>) -> (tensor<*xf32>, tensor<*xi64>, tensor<*xi64>) {
    %st = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %en = "onnx.Constant"() <{value = dense<[3, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %ax = "onnx.Constant"() <{value = dense<[0, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %stp = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %s = "onnx.Slice"(%x, %st, %en, %ax, %stp) : (tensor<4x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
    %k = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %v, %i = "onnx.TopK"(%s, %k) : (tensor<*xf32>, tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>)
    %nz = "onnx.NonZero"(%x) : (tensor<4x6xf32>) -> tensor<*xi64>
    return %v, %i, %nz : tensor<*xf32>, tensor<*xi64>, tensor<*xi64>
  }
}

// -----

// A declared type that contradicts the op's semantics is an error at the
// op (amk-opt adds a note naming the ONNX node on imported models; see
// errors/pass-errors.test).

module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @declared_type_conflict(%x: tensor<2x4xf32>, %w: tensor<4x5xf32>) -> tensor<2x6xf32> {
    // expected-error@below {{'onnx.MatMul' op inferred type 'tensor<2x5xf32>' conflicts with the declared 'tensor<2x6xf32>'}}
    %m = "onnx.MatMul"(%x, %w) : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x6xf32>
    return %m : tensor<2x6xf32>
  }
}
