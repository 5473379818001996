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
// With fold-limit=2 the 3-element Shape result is not evaluated, but the
// 2-element target it feeds is known element by element (symbolic values)
// and becomes a constant (the Shape left dead is canonicalize's to erase).
// LIMIT-LABEL: func.func @shape_computation_folds(
// LIMIT: onnx.Constant{{.*}}dense<[2, -1]>
// LIMIT: onnx.Reshape
// NOFOLD-LABEL: func.func @shape_computation_folds(
// Without folding the shape chain stays, but its values are tracked
// symbolically, so the Reshape's type is still resolved.
// NOFOLD: onnx.Shape
// NOFOLD: onnx.Reshape{{.*}} -> tensor<2x12xf32>
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

// fold-limit bounds the constants folding creates: a 3-element shape stays
// computed under a limit of 2, and the Reshape's type is still known.

// CHECK-LABEL: func.func @fold_limit_keeps_large_shapes(
// CHECK: onnx.Constant{{.*}}dense<[4, 3, 2]>
// CHECK-NOT: onnx.Shape
// LIMIT-LABEL: func.func @fold_limit_keeps_large_shapes(
// LIMIT: onnx.Shape
// LIMIT: onnx.Reshape{{.*}} -> tensor<4x3x2xf32>
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @fold_limit_keeps_large_shapes(%x: tensor<2x3x4xf32>, %y: tensor<4x3x2xf32>) -> tensor<*xf32> {
    %s = "onnx.Shape"(%y) : (tensor<4x3x2xf32>) -> tensor<*xi64>
    %r = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<*xi64>) -> tensor<*xf32>
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

// -----

// Named dimensions (ONNX dim_params) propagate: elementwise and
// broadcasting, MatMul, Transpose. The outputs are named after the inputs'
// dimensions, which the exporter writes back as dim_params.

// CHECK-LABEL: func.func @named_dims_elementwise_matmul(
// CHECK-SAME: -> (tensor<?x?x32xf32> {onnx.dim_params = ["seq", "batch", ""]}, tensor<?x?x32xf32> {onnx.dim_params = ["batch", "seq", ""]})
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @named_dims_elementwise_matmul(%x: tensor<?x?x64xf32> {onnx.dim_params = ["batch", "seq", ""]}) -> (tensor<*xf32>, tensor<*xf32>) {
    %w = "onnx.Constant"() <{value = dense<0.5> : tensor<64x32xf32>}> : () -> tensor<64x32xf32>
    %b = "onnx.Constant"() <{value = dense<1.0> : tensor<32xf32>}> : () -> tensor<32xf32>
    %m = "onnx.MatMul"(%x, %w) : (tensor<?x?x64xf32>, tensor<64x32xf32>) -> tensor<*xf32>
    %a = "onnx.Add"(%m, %b) : (tensor<*xf32>, tensor<32xf32>) -> tensor<*xf32>
    %r = "onnx.Relu"(%a) : (tensor<*xf32>) -> tensor<*xf32>
    %t = "onnx.Transpose"(%r) <{perm = array<i64: 1, 0, 2>}> : (tensor<*xf32>) -> tensor<*xf32>
    return %t, %r : tensor<*xf32>, tensor<*xf32>
  }
}

// -----

// Reshape, Flatten, Slice, Split and reductions on named dimensions: a
// Reshape's 0 copies a dimension, its -1 is solved exactly, products and
// differences get their expression as the name.

// CHECK-LABEL: func.func @named_dims_data_movement(
// CHECK-SAME: tensor<?x?x4x16xf32> {onnx.dim_params = ["batch", "seq", "", ""]}
// CHECK-SAME: tensor<?x64xf32> {onnx.dim_params = ["batch*seq", ""]}
// CHECK-SAME: tensor<?x?x64xf32> {onnx.dim_params = ["batch", "seq-1", ""]}
// CHECK-SAME: tensor<?x?x32xf32> {onnx.dim_params = ["batch", "seq", ""]}
// CHECK-SAME: tensor<?x64xf32> {onnx.dim_params = ["batch", ""]}
// CHECK-SAME: tensor<?x?xf32> {onnx.dim_params = ["batch", "64*seq"]}
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @named_dims_data_movement(%x: tensor<?x?x64xf32> {onnx.dim_params = ["batch", "seq", ""]}) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
    %s4 = "onnx.Constant"() <{value = dense<[0, 0, 4, 16]> : tensor<4xi64>}> : () -> tensor<4xi64>
    %r4 = "onnx.Reshape"(%x, %s4) : (tensor<?x?x64xf32>, tensor<4xi64>) -> tensor<*xf32>
    %f = "onnx.Flatten"(%x) <{axis = 2 : i64}> : (tensor<?x?x64xf32>) -> tensor<*xf32>
    %st = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %en = "onnx.Constant"() <{value = dense<9223372036854775807> : tensor<1xi64>}> : () -> tensor<1xi64>
    %ax = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %none = "onnx.NoValue"() : () -> none
    %sl = "onnx.Slice"(%x, %st, %en, %ax, %none) : (tensor<?x?x64xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<*xf32>
    %sz = "onnx.Constant"() <{value = dense<32> : tensor<2xi64>}> : () -> tensor<2xi64>
    %sp:2 = "onnx.Split"(%x, %sz) <{axis = 2 : i64}> : (tensor<?x?x64xf32>, tensor<2xi64>) -> (tensor<*xf32>, tensor<*xf32>)
    %rm = "onnx.ReduceMean"(%x, %none) <{axes = array<i64: 1>, keepdims = 0 : i64}> : (tensor<?x?x64xf32>, none) -> tensor<*xf32>
    %m1 = "onnx.Constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %r2 = "onnx.Reshape"(%x, %m1) : (tensor<?x?x64xf32>, tensor<2xi64>) -> tensor<*xf32>
    return %r4, %f, %sl, %sp#0, %rm, %r2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
  }
}

// -----

// Exporters' shape arithmetic on a dynamic input: Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape (paddle2onnx, torch), Cast through int32
// (tf2onnx), the Equal/Where guard torch puts before Expand, Range and
// ConstantOfShape over a symbolic length. The values are tracked
// element by element, so every result keeps its named dimensions and a
// static dimension read through Shape becomes a constant.

// CHECK-LABEL: func.func @exporter_shape_arithmetic(
// CHECK-SAME: tensor<?x?xf32> {onnx.dim_params = ["batch", "3*n"]}
// CHECK-SAME: tensor<?x1x3xf32> {onnx.dim_params = ["batch", "", ""]}
// CHECK-SAME: tensor<?xi64> {onnx.dim_params = ["n"]}
// CHECK-SAME: tensor<?x?xf32> {onnx.dim_params = ["batch", "n"]}
// CHECK-SAME: tensor<?x4xf32> {onnx.dim_params = ["batch", ""]}
// CHECK: onnx.Reshape{{.*}} -> tensor<?x?xf32>
// The model's 3 read through Shape is a constant now.
// CHECK: "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}>
// CHECK: onnx.Expand{{.*}} -> tensor<?x1x3xf32>
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @exporter_shape_arithmetic(%x: tensor<?x3x?xf32> {onnx.dim_params = ["batch", "", "n"]}) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xi64>, tensor<*xf32>, tensor<*xf32>) {
    %s = "onnx.Shape"(%x) : (tensor<?x3x?xf32>) -> tensor<*xi64>
    %i0 = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    %i1 = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %i2 = "onnx.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
    %ax = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %d0 = "onnx.Gather"(%s, %i0) : (tensor<*xi64>, tensor<i64>) -> tensor<*xi64>
    %u0 = "onnx.Unsqueeze"(%d0, %ax) : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
    %c32 = "onnx.Cast"(%u0) <{to = 6 : i64}> : (tensor<*xi64>) -> tensor<*xi32>
    %m1 = "onnx.Constant"() <{value = dense<-1> : tensor<1xi32>}> : () -> tensor<1xi32>
    %cat = "onnx.Concat"(%c32, %m1) <{axis = 0 : i64}> : (tensor<*xi32>, tensor<1xi32>) -> tensor<*xi32>
    %c64 = "onnx.Cast"(%cat) <{to = 7 : i64}> : (tensor<*xi32>) -> tensor<*xi64>
    %flat = "onnx.Reshape"(%x, %c64) : (tensor<?x3x?xf32>, tensor<*xi64>) -> tensor<*xf32>
    // Expand(cls, Where(Equal(target, -1), 1, target)) with target = [batch, 1, 3].
    %d1 = "onnx.Gather"(%s, %i1) : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
    %one = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %tgt = "onnx.Concat"(%u0, %one, %d1) <{axis = 0 : i64}> : (tensor<*xi64>, tensor<1xi64>, tensor<*xi64>) -> tensor<*xi64>
    %neg = "onnx.Constant"() <{value = dense<-1> : tensor<3xi64>}> : () -> tensor<3xi64>
    %ones = "onnx.Constant"() <{value = dense<1> : tensor<3xi64>}> : () -> tensor<3xi64>
    %eq = "onnx.Equal"(%tgt, %neg) : (tensor<*xi64>, tensor<3xi64>) -> tensor<*xi1>
    %wh = "onnx.Where"(%eq, %ones, %tgt) : (tensor<*xi1>, tensor<3xi64>, tensor<*xi64>) -> tensor<*xi64>
    %cls = "onnx.Constant"() <{value = dense<0.5> : tensor<1x1x3xf32>}> : () -> tensor<1x1x3xf32>
    %e = "onnx.Expand"(%cls, %wh) : (tensor<1x1x3xf32>, tensor<*xi64>) -> tensor<*xf32>
    // Range(0, n, 1) and ConstantOfShape([batch, n]).
    %dn = "onnx.Gather"(%s, %i2) : (tensor<*xi64>, tensor<i64>) -> tensor<*xi64>
    %z = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    %st = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
    %rg = "onnx.Range"(%z, %dn, %st) : (tensor<i64>, tensor<*xi64>, tensor<i64>) -> tensor<*xi64>
    %un = "onnx.Unsqueeze"(%dn, %ax) : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
    %bn = "onnx.Concat"(%u0, %un) <{axis = 0 : i64}> : (tensor<*xi64>, tensor<*xi64>) -> tensor<*xi64>
    %cs = "onnx.ConstantOfShape"(%bn) <{value = dense<0.0> : tensor<1xf32>}> : (tensor<*xi64>) -> tensor<*xf32>
    // Conv over a named batch and symbolic width keeps the batch's name.
    %w = "onnx.Constant"() <{value = dense<0.5> : tensor<4x3x3xf32>}> : () -> tensor<4x3x3xf32>
    %nv = "onnx.NoValue"() : () -> none
    %cv = "onnx.Conv"(%x, %w, %nv) <{pads = array<i64: 1, 1>}> : (tensor<?x3x?xf32>, tensor<4x3x3xf32>, none) -> tensor<*xf32>
    %gp = "onnx.ReduceMax"(%cv, %nv) <{axes = array<i64: 2>, keepdims = 0 : i64}> : (tensor<*xf32>, none) -> tensor<*xf32>
    return %flat, %e, %rg, %cs, %gp : tensor<*xf32>, tensor<*xf32>, tensor<*xi64>, tensor<*xf32>, tensor<*xf32>
  }
}

// -----

// Conv and pooling over symbolic image sizes: the output size is an exact
// expression where the stride divides it, else a floor that the same
// division elsewhere reproduces.

// CHECK-LABEL: func.func @symbolic_image_size(
// CHECK-SAME: tensor<?x8x?x?xf32> {onnx.dim_params = ["N", "", "H", "W"]}
// CHECK-SAME: tensor<?x8x?x?xf32> {onnx.dim_params = ["N", "", "floor((H-1)/(2))+1", "floor((W-1)/(2))+1"]}
// CHECK-SAME: tensor<?x8x1x1xf32> {onnx.dim_params = ["N", "", "", ""]}
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @symbolic_image_size(%x: tensor<?x3x?x?xf32> {onnx.dim_params = ["N", "", "H", "W"]}) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
    %w = "onnx.Constant"() <{value = dense<0.5> : tensor<8x3x3x3xf32>}> : () -> tensor<8x3x3x3xf32>
    %none = "onnx.NoValue"() : () -> none
    %same = "onnx.Conv"(%x, %w, %none) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
    %down = "onnx.Conv"(%x, %w, %none) <{pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
    %g = "onnx.GlobalAveragePool"(%down) : (tensor<*xf32>) -> tensor<*xf32>
    return %same, %down, %g : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
  }
}

// -----

// A Reshape whose known target does not fit its input (sizes bound to a
// model whose exporter assumed others) is refused, never truncated.

module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @reshape_does_not_fit(%x: tensor<1x3x5xf32>) -> tensor<*xf32> {
    %s = "onnx.Constant"() <{value = dense<[-1, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
    // expected-error @+1 {{'onnx.Reshape' op the target shape [-1, 4] does not fit the input's 15 elements ('tensor<1x3x5xf32>')}}
    %r = "onnx.Reshape"(%x, %s) : (tensor<1x3x5xf32>, tensor<2xi64>) -> tensor<*xf32>
    return %r : tensor<*xf32>
  }
}

// -----

// Edge cases of the symbolic rules: Flatten's negative axis counts from
// the rank; a Split or Squeeze whose sizes or axes are given but not known
// leaves those dimensions unknown instead of assuming equal parts or
// "every size-1 dimension".

// CHECK-LABEL: func.func @symbolic_edge_cases(
// CHECK-SAME: -> (tensor<?x5xf32> {onnx.dim_params = ["12*batch", ""]}, tensor<?x?xf32>, tensor<?x?xf32>, tensor<*xf32>)
// CHECK: onnx.Flatten{{.*}} -> tensor<?x5xf32>
// CHECK: onnx.Split{{.*}} -> (tensor<?x?xf32>, tensor<?x?xf32>)
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @symbolic_edge_cases(%x: tensor<?x3x4x5xf32> {onnx.dim_params = ["batch", "", "", ""]}, %y: tensor<?x12xf32>, %s: tensor<2xi64>, %z: tensor<1x3x1xf32>, %a: tensor<1xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
    %f = "onnx.Flatten"(%x) <{axis = -1 : i64}> : (tensor<?x3x4x5xf32>) -> tensor<*xf32>
    %p:2 = "onnx.Split"(%y, %s) <{axis = 1 : i64}> : (tensor<?x12xf32>, tensor<2xi64>) -> (tensor<*xf32>, tensor<*xf32>)
    %q = "onnx.Squeeze"(%z, %a) : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<*xf32>
    return %f, %p#0, %p#1, %q : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
  }
}

// -----

// ConvTranspose's shape by rule (a batch of 100 masks is too large to
// infer by evaluating the op): stride (in - 1) + output_padding + span -
// pads; output_shape; in * stride under SAME_UPPER; a dynamic batch stays
// dynamic.

// CHECK-LABEL: func.func @conv_transpose_shapes(
// CHECK: onnx.ConvTranspose{{.*}} -> tensor<100x256x28x28xf32>
// CHECK: onnx.ConvTranspose{{.*}} -> tensor<2x6x11x8xf32>
// CHECK: onnx.ConvTranspose{{.*}} -> tensor<2x6x12x20xf32>
// CHECK: onnx.ConvTranspose{{.*}} -> tensor<?x6x8x10xf32>
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @conv_transpose_shapes(%x: tensor<100x256x14x14xf32>, %w: tensor<256x256x2x2xf32>, %s: tensor<2x4x6x5xf32>, %ws: tensor<4x3x3x3xf32>, %d: tensor<?x4x4x5xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
    %none = "onnx.NoValue"() : () -> none
    %a = "onnx.ConvTranspose"(%x, %w, %none) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<100x256x14x14xf32>, tensor<256x256x2x2xf32>, none) -> tensor<*xf32>
    %b = "onnx.ConvTranspose"(%s, %ws, %none) <{group = 2 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 2, 2>, output_padding = array<i64: 1, 0>}> : (tensor<2x4x6x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
    %c = "onnx.ConvTranspose"(%s, %ws, %none) <{group = 2 : i64, strides = array<i64: 2, 4>, auto_pad = "SAME_UPPER"}> : (tensor<2x4x6x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
    %e = "onnx.ConvTranspose"(%d, %ws, %none) <{group = 2 : i64, strides = array<i64: 2, 2>, output_shape = array<i64: 8, 10>}> : (tensor<?x4x4x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
    return %a, %b, %c, %e : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
  }
}
