// RUN: rm -rf %t && split-file %s %t
// RUN: amk-opt %t/dft.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=DFT
// RUN: amk-opt %t/dft.mlir --pass-pipeline='builtin.module(amk-decompose-ops{max-dft-elements=100})' | FileCheck %s --check-prefix=SMALL
// RUN: amk-opt %t/stft.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=STFT
// RUN: amk-opt %t/mvn.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=MVN
// RUN: amk-opt %t/mvn.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: (S) 3 decomposed
// Without the pass the runtime has no kernel for these ops; with it (in
// amk-graph-opt) the compiled programs give the interpreter's outputs.
// RUN: not amk-run %t/stft.mlir --pipeline='builtin.module(amk-fold-constants,amk-schedule-megakernel{workers=1})' --seed 1 2>&1 | FileCheck %s --check-prefix=REFUSED
// REFUSED: the runtime has no kernel for op 'onnx.STFT'
// RUN: amk-run %t/dft.mlir --seed 1 --threads 2 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/stft.mlir --seed 2 --threads 1 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/mvn.mlir --seed 3 --threads 2 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-opt %t/pool.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=POOL
// ConvTranspose with constant weights as phase convolutions: the program
// structure, then configurations that exercise each rule against the
// interpreter (k4 s2 p1, output_padding, groups, SAME_UPPER, k2 s2, a
// kernel smaller than the stride, output_shape, asymmetric pads).
// RUN: amk-opt %t/conv_transpose.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=CT
// RUN: %python %t/ct.py %t
// RUN: for i in 0 1 2 3 4 5 6 7; do amk-run %t/ct$i.onnx --seed $i --threads 2 --check-reference || exit 1; done | FileCheck %s --check-prefix=CTEXEC
// CTEXEC-COUNT-8: y: float[{{.*}}]  ok vs reference
// MaxPool with Indices (padding, strides, dilations, ceil_mode, column
// major storage) and MaxUnpool (with and without an output_shape larger
// than the default), a SegNet-style pool/unpool pair, on the interpreter.
// RUN: amk-opt %t/unpool.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=UNPOOL
// RUN: amk-run %t/unpool.mlir --seed 8 --threads 2 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/unpool.mlir --seed 9 --threads 1 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-opt %t/norms.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=NORMS
// RUN: amk-run %t/norms.mlir --seed 6 --threads 2 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/norms.mlir --seed 7 --threads 1 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/pool.mlir --seed 4 --threads 2 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/pool.mlir --seed 5 --threads 1 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-opt %t/fill.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=FILL
// RUN: amk-opt %t/video.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=VIDEO
// RUN: amk-opt %t/einsum.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=EINSUM
// RUN: amk-run %t/einsum.mlir --seed 4 --threads 2 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/video.mlir --seed 4 --threads 2 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/video.mlir --seed 5 --threads 1 --jit --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: %python -c "import numpy as np; np.save('%t/fill_s.npy', np.array([3, 4], np.int64))"
// RUN: amk-run %t/fill.mlir --input s=%t/fill_s.npy --seed 4 --threads 2 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-opt %t/integer.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=INT
// RUN: amk-run %t/integer.mlir --seed 3 --threads 2 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/integer.mlir --seed 4 --threads 1 --jit --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-opt %t/bn_training.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=BNT
// RUN: amk-run %t/bn_training.mlir --seed 2 --threads 2 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/bn_training.mlir --seed 5 --threads 1 --jit --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-opt %t/dropout_training.mlir --pass-pipeline='builtin.module(amk-decompose-ops)' | FileCheck %s --check-prefix=DROP
// RUN: amk-run %t/dropout_training.mlir --seed 2 --threads 2 --repeat 2 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/dropout_training.mlir --seed 5 --threads 1 --jit --check-reference | FileCheck %s --check-prefix=EXEC
// EXEC: ok vs reference

//--- dft.mlir
// A complex DFT along axis 1 of [2, 6, 3, 2], padded to length 8: the
// signal axis moves next to the real/imaginary axis, is zero-padded, and
// one MatMul with a [16, 16] DFT matrix computes it; the result moves back.
// A matrix over max-dft-elements leaves the op alone.
// DFT-LABEL: func.func @main_graph(
// DFT-NOT: onnx.DFT
// DFT: "onnx.Transpose"(%arg0) <{perm = array<i64: 0, 2, 1, 3>}> : (tensor<2x6x3x2xf32>) -> tensor<2x3x6x2xf32>
// DFT: "onnx.Pad"
// DFT-SAME: -> tensor<2x3x8x2xf32>
// DFT: "onnx.MatMul"({{.*}}) : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
// DFT: "onnx.Transpose"({{.*}}) <{perm = array<i64: 0, 2, 1, 3>}> : (tensor<2x3x8x2xf32>) -> tensor<2x8x3x2xf32>
// SMALL-LABEL: func.func @main_graph(
// SMALL: onnx.DFT
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%x: tensor<2x6x3x2xf32> {onnx.name = "x"}) -> (tensor<2x8x3x2xf32> {onnx.name = "y"}) {
    %len = "onnx.Constant"() <{value = dense<8> : tensor<i64>}> : () -> tensor<i64>
    %none = "onnx.NoValue"() : () -> none
    %y = "onnx.DFT"(%x, %len, %none) <{axis = 1 : i64}> : (tensor<2x6x3x2xf32>, tensor<i64>, none) -> tensor<2x8x3x2xf32>
    return %y : tensor<2x8x3x2xf32>
  }
}

//--- stft.mlir
// Frames gathered by constant indices, windowed, one product.
// STFT-LABEL: func.func @main_graph(
// STFT-NOT: onnx.STFT
// STFT: "onnx.Gather"(%arg0, %{{.*}}) <{axis = 1 : i64}> : (tensor<1x64x1xf32>, tensor<7x16xi64>) -> tensor<1x7x16x1xf32>
// STFT: "onnx.Mul"
// STFT: "onnx.MatMul"({{.*}}) : (tensor<7x16xf32>, tensor<16x18xf32>) -> tensor<7x18xf32>
// STFT: return {{.*}} : tensor<1x7x9x2xf32>
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%x: tensor<1x64x1xf32> {onnx.name = "x"}) -> (tensor<1x7x9x2xf32> {onnx.name = "y"}) {
    %step = "onnx.Constant"() <{value = dense<8> : tensor<i64>}> : () -> tensor<i64>
    %n = "onnx.Constant"() <{value = dense<16> : tensor<i64>}> : () -> tensor<i64>
    %w = "onnx.HannWindow"(%n) : (tensor<i64>) -> tensor<16xf32>
    %none = "onnx.NoValue"() : () -> none
    %y = "onnx.STFT"(%x, %step, %w, %none) : (tensor<1x64x1xf32>, tensor<i64>, tensor<16xf32>, none) -> tensor<1x7x9x2xf32>
    return %y : tensor<1x7x9x2xf32>
  }
}

//--- mvn.mlir
// MeanVarianceNormalization over its default axes (0, 2, 3: not adjacent)
// as ONNX's function body; each ReduceMean over [0, 2, 3] then becomes a
// Transpose to [C, N, H, W] and a ReduceMean over the trailing three axes.
// MVN-LABEL: func.func @main_graph(
// MVN-NOT: onnx.MeanVarianceNormalization
// MVN: "onnx.Transpose"(%arg0) <{perm = array<i64: 1, 0, 2, 3>}>
// MVN: "onnx.ReduceMean"({{.*}}) <{keepdims = 0 : i64}> : (tensor<3x2x4x5xf32>, tensor<3xi64>) -> tensor<3xf32>
// MVN: "onnx.Reshape"({{.*}}) : (tensor<3xf32>, tensor<4xi64>) -> tensor<1x3x1x1xf32>
// MVN: "onnx.Sub"
// MVN: "onnx.Sqrt"
// MVN: "onnx.Div"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @main_graph(%x: tensor<2x3x4x5xf32> {onnx.name = "x"}) -> (tensor<2x3x4x5xf32> {onnx.name = "y"}) {
    %y = "onnx.MeanVarianceNormalization"(%x) : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
    return %y : tensor<2x3x4x5xf32>
  }
}

//--- pool.mlir
// 3-D pooling as two 2-D pools (H x W per depth slice, then a kd x 1
// window over depth): an average with padding that is not counted,
// strides and ceil_mode, and a max with SAME_UPPER and dilations. A
// uint8 MaxPool goes through float32 (exact).
// POOL-LABEL: func.func @main_graph(
// POOL: "onnx.Reshape"(%arg0, %{{.*}}) : (tensor<1x2x7x9x8xf32>, tensor<4xi64>) -> tensor<1x14x9x8xf32>
// POOL: "onnx.AveragePool"({{.*}}) <{ceil_mode = 1 : i64, count_include_pad = 0 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 2>}> : (tensor<1x14x9x8xf32>) -> tensor<1x14x5x4xf32>
// POOL: "onnx.AveragePool"({{.*}}kernel_shape = array<i64: 2, 1>, pads = array<i64: 1, 0, 0, 0>, strides = array<i64: 2, 1>}> : (tensor<1x2x7x20xf32>) -> tensor<1x2x4x20xf32>
// POOL: "onnx.MaxPool"{{.*}}dilations = array<i64: 1, 2>{{.*}} : (tensor<1x14x9x8xf32>) -> (tensor<1x14x9x8xf32>, none)
// POOL: "onnx.Cast"(%arg1) <{to = 1 : i64}> : (tensor<1x3x6x6xui8>) -> tensor<1x3x6x6xf32>
// POOL: "onnx.MaxPool"
// POOL: "onnx.Cast"({{.*}}) <{to = 2 : i64}> : (tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xui8>
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @main_graph(%x: tensor<1x2x7x9x8xf32> {onnx.name = "x"}, %u: tensor<1x3x6x6xui8> {onnx.name = "u"}) -> (tensor<1x2x4x5x4xf32> {onnx.name = "a"}, tensor<1x2x7x9x8xf32> {onnx.name = "m"}, tensor<1x3x3x3xui8> {onnx.name = "p"}) {
    %a = "onnx.AveragePool"(%x) <{ceil_mode = 1 : i64, count_include_pad = 0 : i64, kernel_shape = array<i64: 2, 3, 3>, pads = array<i64: 1, 1, 0, 0, 1, 0>, strides = array<i64: 2, 2, 2>}> : (tensor<1x2x7x9x8xf32>) -> tensor<1x2x4x5x4xf32>
    %m, %mi = "onnx.MaxPool"(%x) <{auto_pad = "SAME_UPPER", dilations = array<i64: 2, 1, 2>, kernel_shape = array<i64: 2, 3, 2>}> : (tensor<1x2x7x9x8xf32>) -> (tensor<1x2x7x9x8xf32>, none)
    %p, %pi = "onnx.MaxPool"(%u) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x3x6x6xui8>) -> (tensor<1x3x3x3xui8>, none)
    return %a, %m, %p : tensor<1x2x4x5x4xf32>, tensor<1x2x7x9x8xf32>, tensor<1x3x3x3xui8>
  }
}

//--- norms.mlir
// GroupNormalization as a LayerNormalization over [N, G, C/G * H * W] and
// the per-channel scale and bias (version 18's per-group constants spread
// to channels); LpNormalization as a reduction and a guarded division; an
// integer Gemm (alpha = beta = 1) as a transpose, an integer MatMul and an
// Add.
// NORMS-LABEL: func.func @main_graph(
// NORMS-NOT: onnx.GroupNormalization
// NORMS-NOT: onnx.LpNormalization
// NORMS: "onnx.Reshape"(%arg0, %{{.*}}) : (tensor<2x6x3x3xf32>, tensor<3xi64>) -> tensor<2x3x18xf32>
// NORMS: "onnx.LayerNormalization"({{.*}}) <{axis = 2 : i64, epsilon = 1.000000e-03 : f32}> : (tensor<2x3x18xf32>, tensor<18xf32>, tensor<18xf32>) -> (tensor<2x3x18xf32>, none, none)
// NORMS: "onnx.Mul"
// NORMS: "onnx.Add"
// NORMS: "onnx.ReduceL2"(%arg0, %{{.*}}) <{keepdims = 1 : i64}> : (tensor<2x6x3x3xf32>, tensor<1xi64>) -> tensor<2x1x3x3xf32>
// NORMS: "onnx.Div"
// NORMS-NOT: onnx.Gemm
// NORMS: "onnx.Transpose"(%arg2) <{perm = array<i64: 1, 0>}> : (tensor<5x4xi32>) -> tensor<4x5xi32>
// NORMS: "onnx.MatMul"({{.*}}) : (tensor<3x4xi32>, tensor<4x5xi32>) -> tensor<3x5xi32>
// NORMS: "onnx.Add"({{.*}}) : (tensor<3x5xi32>, tensor<5xi32>) -> tensor<3x5xi32>
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @main_graph(%x: tensor<2x6x3x3xf32> {onnx.name = "x"}, %a: tensor<3x4xi32> {onnx.name = "a"}, %b: tensor<5x4xi32> {onnx.name = "b"}, %c: tensor<5xi32> {onnx.name = "c"}) -> (tensor<2x6x3x3xf32> {onnx.name = "g"}, tensor<2x6x3x3xf32> {onnx.name = "l"}, tensor<3x5xi32> {onnx.name = "y"}) {
    %s = "onnx.Constant"() <{value = dense<[1.0, 1.5, 0.5]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %bias = "onnx.Constant"() <{value = dense<[0.1, -0.2, 0.3]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %g = "onnx.GroupNormalization"(%x, %s, %bias) <{epsilon = 1.0e-3 : f32, num_groups = 3 : i64}> : (tensor<2x6x3x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x6x3x3xf32>
    %l = "onnx.LpNormalization"(%x) <{axis = 1 : i64, p = 2 : i64}> : (tensor<2x6x3x3xf32>) -> tensor<2x6x3x3xf32>
    %y = "onnx.Gemm"(%a, %b, %c) <{transB = 1 : i64}> : (tensor<3x4xi32>, tensor<5x4xi32>, tensor<5xi32>) -> tensor<3x5xi32>
    return %g, %l, %y : tensor<2x6x3x3xf32>, tensor<2x6x3x3xf32>, tensor<3x5xi32>
  }
}

//--- conv_transpose.mlir
// CT-LABEL: func.func @main_graph(
// CT-NOT: onnx.ConvTranspose
// CT-COUNT-4: "onnx.Conv"({{.*}}kernel_shape = array<i64: 2, 2>{{.*}} -> tensor<1x3x4x4xf32>
// CT: "onnx.Concat"({{.*}}) <{axis = 1 : i64}> : ({{.*}}) -> tensor<1x12x4x4xf32>
// CT: "onnx.DepthToSpace"({{.*}}) <{blocksize = 2 : i64, mode = "DCR"}> : (tensor<1x12x4x4xf32>) -> tensor<1x3x8x8xf32>
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%x: tensor<1x2x4x4xf32> {onnx.name = "x"}) -> (tensor<1x3x8x8xf32> {onnx.name = "y"}) {
    %w = "onnx.Constant"() <{value = dense<0.25> : tensor<2x3x4x4xf32>}> : () -> tensor<2x3x4x4xf32>
    %none = "onnx.NoValue"() : () -> none
    %y = "onnx.ConvTranspose"(%x, %w, %none) <{kernel_shape = array<i64: 4, 4>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x2x4x4xf32>, tensor<2x3x4x4xf32>, none) -> tensor<1x3x8x8xf32>
    return %y : tensor<1x3x8x8xf32>
  }
}

//--- ct.py
import sys
import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh
rng = np.random.default_rng(0)
configs = [  # C, OC/group, group, kernel, stride, H, W, attributes
    (2, 3, 1, [4, 4], 2, 5, 6, dict(pads=[1, 1, 1, 1])),
    (3, 2, 1, [3, 3], 2, 4, 5, dict(pads=[1, 0, 1, 1], output_padding=[1, 1])),
    (4, 2, 2, [3, 2], 2, 3, 4, dict(pads=[0, 1, 2, 0])),
    (2, 2, 1, [3, 3], 2, 4, 4, dict(auto_pad="SAME_UPPER")),
    (3, 4, 1, [2, 2], 2, 5, 3, {}),
    (2, 3, 1, [2, 1], 3, 3, 4, {}),
    (2, 2, 1, [5, 4], 3, 2, 3, dict(output_shape=[7, 8])),
    (4, 1, 4, [3, 3], 1, 5, 5, dict(pads=[2, 0, 1, 1])),
]
for i, (c, ocg, g, k, s, hh, ww, attrs) in enumerate(configs):
    w = nh.from_array(rng.standard_normal((c, ocg, *k)).astype(np.float32), "w")
    b = nh.from_array(rng.standard_normal(ocg * g).astype(np.float32), "b")
    node = h.make_node("ConvTranspose", ["x", "w", "b"], ["y"], kernel_shape=k,
                       strides=[s, s], group=g, **attrs)
    graph = h.make_graph([node], "g", [h.make_tensor_value_info("x", T.FLOAT, [1, c, hh, ww])],
                         [h.make_tensor_value_info("y", T.FLOAT, ["n", "c", "h", "w"])], [w, b])
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, f"{sys.argv[1]}/ct{i}.onnx")

//--- unpool.mlir
// UNPOOL-LABEL: func.func @main_graph(
// UNPOOL-NOT: onnx.MaxUnpool
// UNPOOL: "onnx.Gather"
// UNPOOL: "onnx.ArgMax"
// UNPOOL: "onnx.GatherElements"
// UNPOOL: "onnx.MaxPool"{{.*}} -> (tensor<1x2x3x3xf32>, none)
// UNPOOL: "onnx.ScatterElements"
// UNPOOL: "onnx.Pad"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 12 : i64}} {
  func.func @main_graph(%x: tensor<1x2x6x6xf32> {onnx.name = "x"}) -> (tensor<1x2x6x6xf32> {onnx.name = "u"}, tensor<1x2x7x8xf32> {onnx.name = "w"}, tensor<1x2x3x3xi64> {onnx.name = "i2"}) {
    %y, %i = "onnx.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
    %none = "onnx.NoValue"() : () -> none
    %u = "onnx.MaxUnpool"(%y, %i, %none) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>, none) -> tensor<1x2x6x6xf32>
    %shape = "onnx.Constant"() <{value = dense<[1, 2, 7, 8]> : tensor<4xi64>}> : () -> tensor<4xi64>
    %w = "onnx.MaxUnpool"(%y, %i, %shape) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>, tensor<4xi64>) -> tensor<1x2x7x8xf32>
    %y2, %i2 = "onnx.MaxPool"(%x) <{ceil_mode = 1 : i64, dilations = array<i64: 1, 2>, kernel_shape = array<i64: 3, 2>, pads = array<i64: 1, 0, 0, 1>, storage_order = 1 : i64, strides = array<i64: 2, 2>}> : (tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
    return %u, %w, %i2 : tensor<1x2x6x6xf32>, tensor<1x2x7x8xf32>, tensor<1x2x3x3xi64>
  }
}

//--- fill.mlir
// ConstantOfShape has no kernel: with a static result it is Expand of its
// value, whether the shape is computed (a segment's) or a constant too
// large for constant folding (torchvision's 20 MB RoI canvases).
// FILL-LABEL: func.func @main_graph(
// FILL-NOT: onnx.ConstantOfShape
// FILL: %[[V:.*]] = "onnx.Constant"() <{value = dense<2.500000e+00> : tensor<f32>}>
// FILL: "onnx.Expand"(%[[V]], %arg1) : (tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
// FILL: %[[Z:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<i64>}>
// FILL: "onnx.Expand"(%[[Z]], %{{.*}}) : (tensor<i64>, tensor<2xi64>) -> tensor<3x4xi64>
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%x: tensor<3x4xf32> {onnx.name = "x"}, %s: tensor<2xi64> {onnx.name = "s"}) -> (tensor<3x4xf32> {onnx.name = "y"}, tensor<3x4xi64> {onnx.name = "z"}) {
    %f = "onnx.ConstantOfShape"(%s) <{value = dense<2.5> : tensor<1xf32>}> : (tensor<2xi64>) -> tensor<3x4xf32>
    %y = "onnx.Add"(%x, %f) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %c = "onnx.Constant"() <{value = dense<[3, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %z = "onnx.ConstantOfShape"(%c) <{value = dense<0> : tensor<1xi64>}> : (tensor<2xi64>) -> tensor<3x4xi64>
    return %y, %z : tensor<3x4xf32>, tensor<3x4xi64>
  }
}

//--- video.mlir
// 3-D convolutions (video models) as one 2-D convolution over the frames
// each output frame reads, gathered next to the channels: temporal
// padding, stride and dilation pick the frames, groups stay contiguous.
// Global pooling over three spatial dims is the 2-D op over them
// flattened. Weights are inputs, so the run checks them at random values.
// VIDEO-LABEL: func.func @main_graph(
// VIDEO: "onnx.Pad"
// VIDEO: "onnx.Gather"{{.*}} -> tensor<1x4x3x3x6x6xf32>
// VIDEO: "onnx.Conv"{{.*}}group = 2 : i64, kernel_shape = array<i64: 3, 3>{{.*}} -> tensor<3x6x3x3xf32>
// VIDEO: "onnx.Gather"{{.*}} -> tensor<1x6x1x2x3x3xf32>
// VIDEO: "onnx.Conv"{{.*}} -> tensor<1x5x3x3xf32>
// VIDEO: "onnx.GlobalAveragePool"{{.*}} : (tensor<1x5x9x1xf32>) -> tensor<1x5x1x1xf32>
// VIDEO-NOT: "onnx.Conv"{{.*}}tensor<1x4x5x6x6xf32>
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%x: tensor<1x4x5x6x6xf32> {onnx.name = "x"}, %w1: tensor<6x2x3x3x3xf32> {onnx.name = "w1"}, %b1: tensor<6xf32> {onnx.name = "b1"}, %w2: tensor<5x6x2x1x1xf32> {onnx.name = "w2"}) -> (tensor<1x5x1x1x1xf32> {onnx.name = "y"}) {
    %h = "onnx.Conv"(%x, %w1, %b1) <{group = 2 : i64, kernel_shape = array<i64: 3, 3, 3>, pads = array<i64: 2, 1, 1, 1, 0, 0>, strides = array<i64: 2, 2, 2>}> : (tensor<1x4x5x6x6xf32>, tensor<6x2x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x3x3x3xf32>
    %none = "onnx.NoValue"() : () -> none
    %c = "onnx.Conv"(%h, %w2, %none) <{dilations = array<i64: 2, 1, 1>, kernel_shape = array<i64: 2, 1, 1>}> : (tensor<1x6x3x3x3xf32>, tensor<5x6x2x1x1xf32>, none) -> tensor<1x5x1x3x3xf32>
    %y = "onnx.GlobalAveragePool"(%c) : (tensor<1x5x1x3x3xf32>) -> tensor<1x5x1x1x1xf32>
    return %y : tensor<1x5x1x1x1xf32>
  }
}

//--- einsum.mlir
// Float Einsums that are batched matrix products become Transposes, a
// MatMul and Reshapes (MaxViT's spaced, upper-case equations; a product
// whose free and contracted labels come in any order); a trace-like sum
// over one operand stays an Einsum.
// EINSUM-LABEL: func.func @main_graph(
// EINSUM: "onnx.Transpose"(%arg1) <{perm = array<i64: 0, 1, 3, 2>}>
// EINSUM: "onnx.MatMul"(%arg0, %{{.*}}) : (tensor<2x3x5x4xf32>, tensor<2x3x4x6xf32>) -> tensor<2x3x5x6xf32>
// EINSUM: "onnx.MatMul"{{.*}} : (tensor<3x10x4xf32>, tensor<3x4x7xf32>) -> tensor<3x10x7xf32>
// EINSUM: "onnx.Reshape"{{.*}} -> tensor<3x2x5x7xf32>
// EINSUM: "onnx.Transpose"{{.*}}perm = array<i64: 1, 2, 0, 3>{{.*}} -> tensor<2x5x3x7xf32>
// EINSUM: "onnx.Einsum"{{.*}}equation = "ij,jk->k"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%q: tensor<2x3x5x4xf32> {onnx.name = "q"}, %k: tensor<2x3x6x4xf32> {onnx.name = "k"}, %a: tensor<2x5x3x4xf32> {onnx.name = "a"}, %b: tensor<7x3x4xf32> {onnx.name = "b"}, %m: tensor<5x4xf32> {onnx.name = "m"}, %n: tensor<4x6xf32> {onnx.name = "n"}) -> (tensor<2x3x5x6xf32> {onnx.name = "s"}, tensor<2x5x3x7xf32> {onnx.name = "t"}, tensor<6xf32> {onnx.name = "u"}) {
    %s = "onnx.Einsum"(%q, %k) <{equation = "B H I D, B H J D -> B H I J"}> : (tensor<2x3x5x4xf32>, tensor<2x3x6x4xf32>) -> tensor<2x3x5x6xf32>
    %t = "onnx.Einsum"(%a, %b) <{equation = "nlhd,khd->nlhk"}> : (tensor<2x5x3x4xf32>, tensor<7x3x4xf32>) -> tensor<2x5x3x7xf32>
    %u = "onnx.Einsum"(%m, %n) <{equation = "ij,jk->k"}> : (tensor<5x4xf32>, tensor<4x6xf32>) -> tensor<6xf32>
    return %s, %t, %u : tensor<2x3x5x6xf32>, tensor<2x5x3x7xf32>, tensor<6xf32>
  }
}

//--- integer.mlir
// ConvInteger, QLinearConv, MatMulInteger and QLinearMatMul whose weights,
// scales or zero points are graph inputs cannot take the QCONV/QGEMM
// kernels (they pack at compile time): int32 operands less their zero
// points, zero padding, one strided Slice per kernel position (im2col) and
// an integer MatMul over the groups; QLinearConv requantized in double,
// QLinearMatMul in float32, as their references compute. A ConvInteger
// with constant int8 weights stays for QCONV.
// INT-LABEL: func.func @main_graph(
// INT: "onnx.Sub"{{.*}} : (tensor<2x2x2x1xi32>, tensor<2x1x1x1xi32>) -> tensor<2x2x2x1xi32>
// INT: "onnx.Pad"{{.*}} -> tensor<1x4x5x3xi32>
// INT-COUNT-2: "onnx.Slice"{{.*}} -> tensor<1x4x2x3xi32>
// INT: "onnx.Concat"{{.*}}axis = 2{{.*}} -> tensor<1x4x2x2x3xi32>
// INT: "onnx.MatMul"{{.*}} : (tensor<2x1x4xi32>, tensor<1x2x4x6xi32>) -> tensor<1x2x1x6xi32>
// INT: "onnx.ConvInteger"(%arg0, %{{.*}}, %arg2, %{{.*}}) : (tensor<1x4x3x3xui8>, tensor<2x4x1x1xi8>, tensor<ui8>, none) -> tensor<1x2x3x3xi32>
// INT: "onnx.Mul"{{.*}} : (tensor<1x2x3x3xf64>, tensor<2x1x1xf64>) -> tensor<1x2x3x3xf64>
// INT: "onnx.Round"{{.*}} -> tensor<1x2x3x3xf64>
// INT: "onnx.Clip"{{.*}} -> tensor<1x2x3x3xf64>
// INT: "onnx.Cast"{{.*}}<{to = 2 : i64}> : (tensor<1x2x3x3xf64>) -> tensor<1x2x3x3xui8>
// INT: "onnx.MatMul"{{.*}} : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
// INT: "onnx.Round"{{.*}} -> tensor<2x2xf32>
// INT-NOT: onnx.QLinear
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @main_graph(%arg0: tensor<1x4x3x3xui8> {onnx.name = "x"}, %arg1: tensor<2x2x2x1xi8> {onnx.name = "w"}, %arg2: tensor<ui8> {onnx.name = "xz"}, %arg3: tensor<2xi8> {onnx.name = "wz"}, %arg4: tensor<2x4x1x1xi8> {onnx.name = "w2"}, %arg5: tensor<f32> {onnx.name = "xs"}, %arg6: tensor<2xf32> {onnx.name = "ws"}, %arg7: tensor<2xi8> {onnx.name = "wz2"}, %arg8: tensor<f32> {onnx.name = "ys"}, %arg9: tensor<ui8> {onnx.name = "yz"}, %arg10: tensor<2xi32> {onnx.name = "b"}, %arg11: tensor<2x3xui8> {onnx.name = "a"}, %arg12: tensor<f32> {onnx.name = "as"}, %arg13: tensor<ui8> {onnx.name = "az"}, %arg14: tensor<3x2xui8> {onnx.name = "bm"}, %arg15: tensor<f32> {onnx.name = "bs"}, %arg16: tensor<ui8> {onnx.name = "bz"}) -> (tensor<1x2x2x3xi32> {onnx.name = "y"}, tensor<1x2x3x3xi32> {onnx.name = "yc"}, tensor<1x2x3x3xui8> {onnx.name = "q"}, tensor<2x2xui8> {onnx.name = "m"}) attributes {onnx.graph_name = "g"} {
    %0 = onnx.NoValue
    %1 = "onnx.Constant"() <{value = dense<[[[[1]], [[-2]], [[3]], [[4]]], [[[5]], [[6]], [[-7]], [[8]]]]> : tensor<2x4x1x1xi8>}> : () -> tensor<2x4x1x1xi8>
    %2 = "onnx.ConvInteger"(%arg0, %arg1, %arg2, %arg3) <{group = 2 : i64, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 1>}> : (tensor<1x4x3x3xui8>, tensor<2x2x2x1xi8>, tensor<ui8>, tensor<2xi8>) -> tensor<1x2x2x3xi32>
    %3 = "onnx.ConvInteger"(%arg0, %1, %arg2, %0) : (tensor<1x4x3x3xui8>, tensor<2x4x1x1xi8>, tensor<ui8>, none) -> tensor<1x2x3x3xi32>
    %4 = "onnx.QLinearConv"(%arg0, %arg5, %arg2, %arg4, %arg6, %arg7, %arg8, %arg9, %arg10) : (tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<2x4x1x1xi8>, tensor<2xf32>, tensor<2xi8>, tensor<f32>, tensor<ui8>, tensor<2xi32>) -> tensor<1x2x3x3xui8>
    %5 = "onnx.QLinearMatMul"(%arg11, %arg12, %arg13, %arg14, %arg15, %arg16, %arg8, %arg9) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x2xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x2xui8>
    return %2, %3, %4, %5 : tensor<1x2x2x3xi32>, tensor<1x2x3x3xi32>, tensor<1x2x3x3xui8>, tensor<2x2xui8>
  }
}

//--- bn_training.mlir
// Training-mode BatchNormalization normalizes by the batch's mean and
// population variance over every axis but the channel (4-D with the
// running statistics asked for, 3-D with Y alone), and moves the running
// statistics toward them by the momentum.
// BNT-LABEL: func.func @main_graph(
// BNT: "onnx.ReduceMean"{{.*}} -> tensor<3xf32>
// BNT: "onnx.Sub"(%arg0, %{{.*}}) : (tensor<2x3x4x5xf32>, tensor<1x3x1x1xf32>)
// BNT: "onnx.Sqrt"
// BNT: "onnx.Mul"(%arg4, %{{.*}}) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// BNT: "onnx.Sub"(%arg1, %{{.*}}) : (tensor<4x3x6xf32>, tensor<1x3x1xf32>)
// BNT-NOT: onnx.BatchNormalization
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @main_graph(%arg0: tensor<2x3x4x5xf32> {onnx.name = "x"}, %arg1: tensor<4x3x6xf32> {onnx.name = "z"}, %arg2: tensor<3xf32> {onnx.name = "s"}, %arg3: tensor<3xf32> {onnx.name = "b"}, %arg4: tensor<3xf32> {onnx.name = "m"}, %arg5: tensor<3xf32> {onnx.name = "v"}) -> (tensor<2x3x4x5xf32> {onnx.name = "y"}, tensor<3xf32> {onnx.name = "rm"}, tensor<3xf32> {onnx.name = "rv"}, tensor<4x3x6xf32> {onnx.name = "yz"}) attributes {onnx.graph_name = "g"} {
    %Y, %running_mean, %running_var, %saved_mean, %saved_var = "onnx.BatchNormalization"(%arg0, %arg2, %arg3, %arg4, %arg5) <{epsilon = 1.000000e-03 : f32, momentum = 8.000000e-01 : f32, training_mode = 1 : i64}> : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, none, none)
    %Y_0, %running_mean_1, %running_var_2, %saved_mean_3, %saved_var_4 = "onnx.BatchNormalization"(%arg1, %arg2, %arg3, %arg4, %arg5) <{training_mode = 1 : i64}> : (tensor<4x3x6xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x6xf32>, none, none, none, none)
    return %Y, %running_mean, %running_var, %Y_0 : tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3x6xf32>
  }
}

//--- dropout_training.mlir
// Training-mode Dropout: the interpreter's draws for the op's seed (a
// RandomUniformLike in double, the RANDOM kernel), kept where a draw
// reaches the ratio, kept values scaled by 1 / (1 - ratio); the mask is
// the kept set.
// DROP-LABEL: func.func @main_graph(
// DROP: "onnx.RandomUniformLike"(%arg0) <{dtype = 11 : i64, seed = 7.000000e+00 : f32}> : (tensor<4x5xf32>) -> tensor<4x5xf64>
// DROP: %[[LESS:.*]] = "onnx.Less"
// DROP: %[[KEEP:.*]] = "onnx.Not"(%[[LESS]])
// DROP: %[[Y:.*]] = "onnx.Div"
// DROP: return %[[Y]], %[[KEEP]]
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @main_graph(%arg0: tensor<4x5xf32> {onnx.name = "x"}) -> (tensor<4x5xf32> {onnx.name = "y"}, tensor<4x5xi1> {onnx.name = "m"}) attributes {onnx.graph_name = "g"} {
    %0 = "onnx.Constant"() <{value = dense<3.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %1 = "onnx.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %output, %mask = "onnx.Dropout"(%arg0, %0, %1) <{seed = 7 : i64}> : (tensor<4x5xf32>, tensor<f32>, tensor<i1>) -> (tensor<4x5xf32>, tensor<4x5xi1>)
    return %output, %mask : tensor<4x5xf32>, tensor<4x5xi1>
  }
}
