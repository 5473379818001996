#!/usr/bin/python3
"""The integer kernels over a matrix of geometries (docs/quantization.md).

Writes small QDQ models (QuantizeLinear -> DequantizeLinear around Conv,
MatMul and Gemm, as ONNX Runtime's quantizer and amk-insert-qdq write
them): strides 1 and 2, dilation, asymmetric pads, 1x1/3x3/5x5/7x7
kernels, channels that are not multiples of 4, groups and depthwise,
int8 and uint8 activations, per-tensor and per-channel weights, a
residual, float and quantized results; matrix products with K not a
multiple of 4, N not a multiple of 16, batch dimensions, transB, alpha
and beta. Each runs on AMK's runtime (the default pipeline, whose
amk-lower-qdq makes amk.qconv/amk.qgemm) on each of the kernels' paths
(PATHS: VNNI where the CPU has it, the AVX2 emulation with
AMK_NO_VNNI=1, the portable loops with AMK_NO_AVX2=1 as well), and on the
reference interpreter.
The rest of a QDQ network on the bytes: Mul and broadcasting Add
(amk.qmul/amk.qadd), Concat with inputs requantized by tables, shape ops
and nearest Resize, linear and cubic Resize (amk.qresize), average and
global average pooling (amk.qaverage_pool), elementwise chains as
256-entry tables (amk.qtable: Sigmoid, Swish, HardSwish written out,
LeakyRelu, a requantization into the other 8-bit type).
ONNX Runtime's dynamic quantization (DynamicQuantizeLinear ->
MatMulInteger or ConvInteger -> Cast -> Mul) too, and weight-only
products (a float input times a DequantizeLinear of int8 or int4
constants, per column or in blocks along K, written by
amk-quantize-weights; amk.wgemm), whose portable run also sets
AMK_NO_AVX512=1, and ONNX Runtime's com.microsoft.MatMulNBits (checked
against ONNX Runtime only: the interpreter has no contrib ops), and int4
weights on int8 activations (amk.wgemm activation_bits 8) and int8
weights on bf16 ones (activation_bits 16), MLIR models checked against the
interpreter only. Pass: the
program uses the integer kernel; float results match to 1e-5
of the output's scale; a requantized result differs by at most one
quantization step on at most 1% of its elements (a float sum landing on a
rounding tie). ONNX Runtime runs every model too and must agree to cosine
0.9999.

Usage: check-qdq-kernels.py BIN_DIR WORK_DIR
"""
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

RNG = np.random.default_rng(11)


def qdq(nodes, inits, src, name, scale, zp, signed):
    inits += [nh.from_array(np.array(scale, np.float32), name + "_s"),
              nh.from_array(np.array(zp, np.int8 if signed else np.uint8),
                            name + "_z")]
    nodes += [h.make_node("QuantizeLinear", [src, name + "_s", name + "_z"],
                          [name + "_q"]),
              h.make_node("DequantizeLinear", [name + "_q", name + "_s",
                                               name + "_z"], [name + "_d"])]
    return name + "_d"


def weight(nodes, inits, shape, axis, per_channel, u8_zp=None):
    if u8_zp is None:
        w = RNG.integers(-127, 128, size=shape).astype(np.int8)
    else:  # uint8 weights with an asymmetric zero point (ORT's U8U8)
        w = RNG.integers(0, 256, size=shape).astype(np.uint8)
    n = shape[axis]
    s = ((RNG.random(n) * 0.01 + 0.002) if per_channel
         else np.array(0.006)).astype(np.float32)
    z = (np.zeros(s.shape, np.int8) if u8_zp is None
         else np.full(s.shape, u8_zp, np.uint8))
    inits += [nh.from_array(w, "w"), nh.from_array(s, "ws"),
              nh.from_array(z, "wz")]
    nodes.append(h.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"],
                             axis=axis))
    return "wd"


def conv_model(path, C, OC, H, W, k, stride=1, dil=1, pads=None, group=1,
               signed=False, per_channel=True, residual=False,
               quant_out=True, relu=True, u8_zp=None):
    nodes, inits = [], []
    x = qdq(nodes, inits, "x", "xa", 0.02, 5 if signed else 120, signed)
    wd = weight(nodes, inits, (OC, C // group, k, k), 0, per_channel, u8_zp)
    inits.append(nh.from_array(RNG.normal(size=OC).astype(np.float32), "b"))
    pads = pads or [k // 2 * dil] * 4
    nodes.append(h.make_node("Conv", [x, wd, "b"], ["c"], kernel_shape=[k, k],
                             strides=[stride] * 2, dilations=[dil] * 2,
                             pads=pads, group=group))
    OH = (H + pads[0] + pads[2] - dil * (k - 1) - 1) // stride + 1
    OW = (W + pads[1] + pads[3] - dil * (k - 1) - 1) // stride + 1
    ins = [h.make_tensor_value_info("x", T.FLOAT, [2, C, H, W])]
    cur = "c"
    if residual:
        r = qdq(nodes, inits, "r", "ra", 0.05, 128, False)
        nodes.append(h.make_node("Add", [cur, r], ["a"]))
        cur = "a"
        ins.append(h.make_tensor_value_info("r", T.FLOAT, [2, OC, OH, OW]))
    if relu:
        nodes.append(h.make_node("Relu", [cur], ["rl"]))
        cur = "rl"
    out = qdq(nodes, inits, cur, "y", 0.07, 10, False) if quant_out else cur
    g = h.make_graph(nodes, "g", ins,
                     [h.make_tensor_value_info(out, T.FLOAT,
                                               [2, OC, OH, OW])], inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)


def blocked_qdq_model(path):
    """Opset 21's blocked QuantizeLinear and DequantizeLinear as standalone
    ops (QUANTIZE's block size): uint8 over axis 0 of [7, 3, 5] in blocks
    of 3 (a tail block of 1) as an output of its own, and int8 over the
    last axis in blocks of 2 (a tail of 1) dequantized again."""
    x = h.make_tensor_value_info("x", T.FLOAT, [7, 3, 5])
    s0 = nh.from_array(RNG.uniform(0.01, 0.05, (3, 3, 5)).astype(np.float32),
                       "s0")
    z0 = nh.from_array(RNG.integers(100, 156, (3, 3, 5)).astype(np.uint8),
                       "z0")
    s1 = nh.from_array(RNG.uniform(0.01, 0.05, (7, 3, 3)).astype(np.float32),
                       "s1")
    z1 = nh.from_array(RNG.integers(-20, 20, (7, 3, 3)).astype(np.int8), "z1")
    nodes = [
        h.make_node("QuantizeLinear", ["x", "s0", "z0"], ["q0"], axis=0,
                    block_size=3),
        h.make_node("QuantizeLinear", ["x", "s1", "z1"], ["q1"], axis=-1,
                    block_size=2),
        h.make_node("DequantizeLinear", ["q1", "s1", "z1"], ["d1"], axis=-1,
                    block_size=2),
    ]
    g = h.make_graph(nodes, "g", [x], [
        h.make_tensor_value_info("q0", T.UINT8, [7, 3, 5]),
        h.make_tensor_value_info("d1", T.FLOAT, [7, 3, 5])], [s0, z0, s1, z1])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 21)])
    m.ir_version = 10
    onnx.save(m, path)


def maxpool_model(path, C, H, W, k, stride, pads, signed=False,
                  same_scale=True, dil=1):
    """A 1x1 QDQ convolution, then DequantizeLinear -> MaxPool ->
    QuantizeLinear as ONNX Runtime's quantizer writes it (the same scale
    and zero point on both sides) or with a new scale after the pool."""
    nodes, inits = [], []
    x = qdq(nodes, inits, "x", "xa", 0.02, 5 if signed else 120, signed)
    wd = weight(nodes, inits, (C, C, 1, 1), 0, True)
    nodes.append(h.make_node("Conv", [x, wd], ["c"], kernel_shape=[1, 1]))
    zp = -3 if signed else 110
    c = qdq(nodes, inits, "c", "ca", 0.06, zp, signed)
    nodes.append(h.make_node("MaxPool", [c], ["m"], kernel_shape=[k, k],
                             strides=[stride] * 2, pads=pads,
                             dilations=[dil] * 2))
    out = qdq(nodes, inits, "m", "y", 0.06 if same_scale else 0.045,
              zp if same_scale else zp + 7, signed)
    OH = (H + pads[0] + pads[2] - dil * (k - 1) - 1) // stride + 1
    OW = (W + pads[1] + pads[3] - dil * (k - 1) - 1) // stride + 1
    g = h.make_graph(nodes, "g",
                     [h.make_tensor_value_info("x", T.FLOAT, [2, C, H, W])],
                     [h.make_tensor_value_info(out, T.FLOAT,
                                               [2, C, OH, OW])], inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)


def add_model(path, shape, relu, signed=False, b_scale=0.07, y_scale=0.09,
              quant_out=True):
    """A residual Add in ONNX Runtime's QDQ layout: two quantized tensors
    (a 1x1 QDQ convolution's result and the block input) dequantized,
    added, optionally through Relu, and quantized again (or, quant_out
    False, left float, as before a LayerNorm in AMK's own QDQ graphs)."""
    nodes, inits = [], []
    C = shape[1]
    x = qdq(nodes, inits, "x", "xa", 0.03, 7 if signed else 131, signed)
    wd = weight(nodes, inits, (C, C, 1, 1), 0, True)
    nodes.append(h.make_node("Conv", [x, wd], ["c"], kernel_shape=[1, 1]))
    c = qdq(nodes, inits, "c", "ca", b_scale, -9 if signed else 118, signed)
    nodes.append(h.make_node("Add", [c, x], ["s"]))
    src = "s"
    if relu:
        nodes.append(h.make_node("Relu", ["s"], ["r"]))
        src = "r"
    out = (qdq(nodes, inits, src, "y", y_scale, 3 if signed else 17, signed)
           if quant_out else src)
    g = h.make_graph(nodes, "g",
                     [h.make_tensor_value_info("x", T.FLOAT, list(shape))],
                     [h.make_tensor_value_info(out, T.FLOAT, list(shape))],
                     inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)


def save_model(path, nodes, inits, ins, outs, opset=17):
    g = h.make_graph(nodes, "g",
                     [h.make_tensor_value_info(n, T.FLOAT, list(sh))
                      for n, sh in ins],
                     [h.make_tensor_value_info(n, T.FLOAT, list(sh))
                      for n, sh in outs], inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", opset)]),
              path)


def concat_model(path, signed=False, same=False):
    """DequantizeLinear -> Concat -> QuantizeLinear (ONNX Runtime's QDQ
    layout): two 1x1 QDQ convolutions and the block input along channels,
    each with its own scale and zero point (requantized by tables) or all
    with the output's (the bytes copied)."""
    nodes, inits = [], []
    C, H, W = 3, 9, 13
    zp = (lambda z: z - 128) if signed else (lambda z: z)
    x = qdq(nodes, inits, "x", "xa", 0.03 if not same else 0.05, zp(120),
            signed)
    outs = [x]
    for i, (oc, s, z) in enumerate([(5, 0.05, 118), (4, 0.021, 140)]):
        wd = weight(nodes, inits, (oc, C, 1, 1), 0, True)
        wd_name = f"wd{i}"
        nodes[-1].output[0] = wd_name
        for init in inits[-3:]:
            init.name = init.name + str(i)
        nodes[-1].input[:] = [n + str(i) for n in nodes[-1].input]
        nodes.append(h.make_node("Conv", [x, wd_name], [f"c{i}"],
                                 kernel_shape=[1, 1]))
        outs.append(qdq(nodes, inits, f"c{i}", f"ca{i}",
                        0.05 if same else s, zp(120 if same else z),
                        signed))
    nodes.append(h.make_node("Concat", outs, ["cat"], axis=1))
    out = qdq(nodes, inits, "cat", "y", 0.05, zp(120), signed)
    save_model(path, nodes, inits, [("x", (2, C, H, W))],
               [(out, (2, C + 9, H, W))])


def mul_model(path, a_shape, b_shape, signed=False, relu=False,
              y_scale=0.004):
    """DequantizeLinear(A) * DequantizeLinear(B) [-> Relu] ->
    QuantizeLinear, B broadcasting (a squeeze-and-excitation scale
    [N, C, 1, 1], a spatial gate [N, 1, H, W]) or of A's shape."""
    nodes, inits = [], []
    zp = (lambda z: z - 128) if signed else (lambda z: z)
    a = qdq(nodes, inits, "a", "aq", 0.03, zp(120), signed)
    b = qdq(nodes, inits, "b", "bq", 0.01, zp(100), signed)
    nodes.append(h.make_node("Mul", [a, b], ["m"]))
    src = "m"
    if relu:
        nodes.append(h.make_node("Relu", ["m"], ["r"]))
        src = "r"
    out = qdq(nodes, inits, src, "y", y_scale, zp(60), signed)
    shape = np.broadcast_shapes(a_shape, b_shape)
    save_model(path, nodes, inits, [("a", a_shape), ("b", b_shape)],
               [(out, shape)])


def resize_model(path, shape, scales=None, sizes=None, signed=False,
                 same=True, nearest_mode="round_prefer_floor",
                 coord="asymmetric", mode="nearest"):
    """DequantizeLinear -> Resize -> QuantizeLinear (an FPN or YOLO
    upsampling in ONNX Runtime's QDQ layout): nearest with the same
    quantization on both sides, or a new one (a table before an
    upsampling, after a downsampling); linear and cubic on amk.qresize."""
    nodes, inits = [], []
    zp = (lambda z: z - 128) if signed else (lambda z: z)
    x = qdq(nodes, inits, "x", "xa", 0.03, zp(120), signed)
    ins = [x, "", "", ""]
    if scales is not None:
        inits.append(nh.from_array(np.array(scales, np.float32), "scales"))
        ins[2] = "scales"
        out_shape = [int(np.floor(d * s)) for d, s in zip(shape, scales)]
    else:
        inits.append(nh.from_array(np.array(sizes, np.int64), "sizes"))
        ins[3] = "sizes"
        out_shape = list(sizes)
    nodes.append(h.make_node("Resize", ins, ["r"], mode=mode,
                             nearest_mode=nearest_mode,
                             coordinate_transformation_mode=coord))
    out = qdq(nodes, inits, "r", "y", 0.03 if same else 0.041,
              zp(120 if same else 101), signed)
    save_model(path, nodes, inits, [("x", shape)], [(out, out_shape)], 19)


def shape_ops_model(path, signed=False):
    """Shape ops between DequantizeLinear and QuantizeLinear as ONNX
    Runtime's quantizer writes them (the same quantization on both sides):
    Transpose, Reshape, Flatten; and a Transpose into a new scale."""
    nodes, inits = [], []
    zp = (lambda z: z - 128) if signed else (lambda z: z)
    x = qdq(nodes, inits, "x", "xa", 0.03, zp(120), signed)
    nodes.append(h.make_node("Transpose", [x], ["t"], perm=[0, 2, 3, 1]))
    t = qdq(nodes, inits, "t", "ta", 0.03, zp(120), signed)
    inits.append(nh.from_array(np.array([2, -1, 6], np.int64), "shape"))
    nodes.append(h.make_node("Reshape", [t, "shape"], ["r"]))
    r = qdq(nodes, inits, "r", "ra", 0.03, zp(120), signed)
    nodes.append(h.make_node("Flatten", [r], ["f"], axis=1))
    f = qdq(nodes, inits, "f", "fa", 0.03, zp(120), signed)
    nodes.append(h.make_node("Transpose", [x], ["t2"], perm=[0, 1, 3, 2]))
    t2 = qdq(nodes, inits, "t2", "t2a", 0.05, zp(90), signed)
    save_model(path, nodes, inits, [("x", (2, 6, 5, 7))],
               [(f, (2, 210)), (t2, (2, 6, 7, 5))])


def table_model(path, kind, signed=False):
    """QuantizeLinear of float elementwise ops of one DequantizeLinear
    (amk.qtable): Sigmoid, Swish x * sigmoid(x), HardSwish written out as
    tf2onnx does (x * Relu6(x + 3) / 6), LeakyRelu, and a bare pair that
    requantizes int8 to uint8."""
    nodes, inits = [], []
    zp = (lambda z: z - 128) if signed else (lambda z: z)
    x = qdq(nodes, inits, "x", "xa", 0.05, zp(128), signed)
    inits += [nh.from_array(np.array(v, np.float32), n) for n, v in
              [("three", 3.0), ("zero", 0.0), ("six", 6.0)]]
    if kind == "sigmoid":
        nodes.append(h.make_node("Sigmoid", [x], ["o"]))
    elif kind == "swish":
        nodes += [h.make_node("Sigmoid", [x], ["sg"]),
                  h.make_node("Mul", [x, "sg"], ["o"])]
    elif kind == "hardswish":
        nodes += [h.make_node("Add", [x, "three"], ["p3"]),
                  h.make_node("Clip", ["p3", "zero", "six"], ["c6"]),
                  h.make_node("Mul", [x, "c6"], ["xm"]),
                  h.make_node("Div", ["xm", "six"], ["o"])]
    elif kind == "leaky":
        nodes.append(h.make_node("LeakyRelu", [x], ["o"], alpha=0.1))
    else:  # a bare pair into the other 8-bit type: a requantization
        out = qdq(nodes, inits, x, "y", 0.031, 131 if signed else 3,
                  not signed)
        save_model(path, nodes, inits, [("x", (2, 4, 9, 11))],
                   [(out, (2, 4, 9, 11))])
        return
    out = qdq(nodes, inits, "o", "y", 0.021, zp(40), signed)
    save_model(path, nodes, inits, [("x", (2, 4, 9, 11))],
               [(out, (2, 4, 9, 11))])


def add_bcast_model(path):
    """A broadcasting Add of two quantized tensors (a per-channel shift
    that is itself an activation): amk.qadd with broadcast strides."""
    nodes, inits = [], []
    a = qdq(nodes, inits, "a", "aq", 0.03, 120, False)
    b = qdq(nodes, inits, "b", "bq", 0.02, 90, False)
    nodes.append(h.make_node("Add", [a, b], ["s"]))
    out = qdq(nodes, inits, "s", "y", 0.05, 100, False)
    save_model(path, nodes, inits, [("a", (2, 6, 5, 33)), ("b", (6, 1, 33))],
               [(out, (2, 6, 5, 33))])


def avgpool_model(path, shape, kernel=None, stride=1, pads=None,
                  count_include_pad=0, signed=False, same=True,
                  classifier=False):
    """DequantizeLinear -> AveragePool or GlobalAveragePool (kernel None)
    -> QuantizeLinear; with classifier, ResNet's tail in ONNX Runtime's
    QDQ layout: the global pool, Flatten (on the bytes) and a QDQ Gemm."""
    nodes, inits = [], []
    zp = (lambda z: z - 128) if signed else (lambda z: z)
    x = qdq(nodes, inits, "x", "xa", 0.03, zp(120), signed)
    if kernel is None:
        nodes.append(h.make_node("GlobalAveragePool", [x], ["p"]))
        out_shape = list(shape[:2]) + [1] * (len(shape) - 2)
    else:
        sp = len(shape) - 2
        pads = pads or [0] * (2 * sp)
        nodes.append(h.make_node("AveragePool", [x], ["p"],
                                 kernel_shape=kernel, strides=[stride] * sp,
                                 pads=pads,
                                 count_include_pad=count_include_pad))
        out_shape = list(shape[:2]) + [
            (shape[2 + d] + pads[d] + pads[d + sp] - kernel[d]) // stride + 1
            for d in range(sp)]
    out = qdq(nodes, inits, "p", "y", 0.03 if same else 0.011,
              zp(120 if same else 97), signed)
    if classifier:
        nodes.append(h.make_node("Flatten", [out], ["f"], axis=1))
        f = qdq(nodes, inits, "f", "fa", 0.03 if same else 0.011,
                zp(120 if same else 97), signed)
        wd = weight(nodes, inits, (10, shape[1]), 0, True)
        nodes.append(h.make_node("Gemm", [f, wd], ["g"], transB=1))
        out, out_shape = "g", [shape[0], 10]
    save_model(path, nodes, inits, [("x", shape)], [(out, out_shape)])


def tf_style_block(path):
    """A block in the idiom of converters that put Q/DQ around every op
    (tf2onnx from a quantization-aware TensorFlow model: int8
    activations, per-channel int8 weights): a 3x3 convolution, ReLU with
    its own Q/DQ (a table), a 1x1 branch and an average-pool branch
    concatenated, a nearest 2x Resize, and a squeeze-and-excitation gate
    (GlobalAveragePool, 1x1 convolution, Sigmoid) multiplying it. Every op
    between the products runs on the bytes."""
    nodes, inits = [], []
    C, H, W = 8, 10, 12

    def conv(src, name, cin, cout, k):
        wd = weight(nodes, inits, (cout, cin, k, k), 0, True)
        nodes[-1].output[0] = name + "_wd"
        for init in inits[-3:]:
            init.name = name + "_" + init.name
        nodes[-1].input[:] = [name + "_" + n for n in nodes[-1].input]
        inits.append(nh.from_array(
            RNG.normal(size=cout).astype(np.float32) * 0.1, name + "_b"))
        nodes.append(h.make_node("Conv", [src, name + "_wd", name + "_b"],
                                 [name], kernel_shape=[k, k],
                                 pads=[k // 2] * 4))
        return name

    x = qdq(nodes, inits, "x", "xq", 0.04, 3, True)
    c = qdq(nodes, inits, conv(x, "c1", 3, C, 3), "c1q", 0.05, -10, True)
    nodes.append(h.make_node("Relu", [c], ["r"]))
    r = qdq(nodes, inits, "r", "rq", 0.03, -128, True)
    a = qdq(nodes, inits, conv(r, "c2", C, C, 1), "c2q", 0.06, 4, True)
    nodes.append(h.make_node("AveragePool", [r], ["ap"], kernel_shape=[3, 3],
                             pads=[1, 1, 1, 1]))
    p = qdq(nodes, inits, "ap", "apq", 0.025, -120, True)
    nodes.append(h.make_node("Concat", [a, p], ["cat"], axis=1))
    cat = qdq(nodes, inits, "cat", "catq", 0.06, 4, True)
    inits.append(nh.from_array(np.array([1, 1, 2, 2], np.float32), "up"))
    nodes.append(h.make_node("Resize", [cat, "", "up"], ["u"],
                             mode="nearest"))
    u = qdq(nodes, inits, "u", "uq", 0.06, 4, True)
    nodes.append(h.make_node("GlobalAveragePool", [u], ["g"]))
    g = qdq(nodes, inits, "g", "gq", 0.02, 0, True)
    s = qdq(nodes, inits, conv(g, "c3", 2 * C, 2 * C, 1), "c3q", 0.05, 0,
            True)
    nodes.append(h.make_node("Sigmoid", [s], ["sg"]))
    sg = qdq(nodes, inits, "sg", "sgq", 1 / 255, -128, True)
    nodes.append(h.make_node("Mul", [u, sg], ["m"]))
    out = qdq(nodes, inits, "m", "y", 0.05, 2, True)
    save_model(path, nodes, inits, [("x", (1, 3, H, W))],
               [(out, (1, 2 * C, 2 * H, 2 * W))], 13)


def gemm_model(path, shape, N, op="MatMul", transB=0, signed=False,
               per_channel=True, bias=True, quant_out=True, alpha=1.0,
               beta=1.0):
    nodes, inits = [], []
    K = shape[-1]
    x = qdq(nodes, inits, "x", "xa", 0.03, -5 if signed else 130, signed)
    wd = weight(nodes, inits, (N, K) if transB else (K, N),
                0 if transB else 1, per_channel)
    if bias:
        inits.append(nh.from_array(RNG.normal(size=N).astype(np.float32),
                                   "b"))
    if op == "Gemm":
        nodes.append(h.make_node("Gemm", [x, wd] + (["b"] if bias else []),
                                 ["c"], transB=transB, alpha=alpha,
                                 beta=beta))
    else:
        nodes.append(h.make_node("MatMul", [x, wd], ["m"]))
        nodes.append(h.make_node("Add", ["m", "b"], ["c"]) if bias
                     else h.make_node("Identity", ["m"], ["c"]))
    out = qdq(nodes, inits, "c", "y", 0.05, 100, False) if quant_out else "c"
    g = h.make_graph(nodes, "g",
                     [h.make_tensor_value_info("x", T.FLOAT, list(shape))],
                     [h.make_tensor_value_info(out, T.FLOAT,
                                               list(shape[:-1]) + [N])],
                     inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)


def dynamic_model(path, shape, N, signed_w=True):
    """ONNX Runtime's dynamic quantization (quantize_dynamic): the
    activation quantized at run time by DynamicQuantizeLinear, an integer
    MatMul, the int32 result scaled back to float."""
    nodes, inits = [], []
    K = shape[-1]
    wdt = np.int8 if signed_w else np.uint8
    w = (RNG.integers(-127, 128, size=(K, N)) if signed_w
         else RNG.integers(0, 256, size=(K, N))).astype(wdt)
    ws = np.array(0.004, np.float32)
    inits += [nh.from_array(w, "w"), nh.from_array(ws, "ws"),
              nh.from_array(np.array(0 if signed_w else 128, wdt), "wz"),
              nh.from_array(RNG.normal(size=N).astype(np.float32), "b")]
    nodes += [
        h.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        h.make_node("MatMulInteger", ["xq", "w", "xz", "wz"], ["acc"]),
        h.make_node("Cast", ["acc"], ["accf"], to=T.FLOAT),
        h.make_node("Mul", ["xs", "ws"], ["s"]),
        h.make_node("Mul", ["accf", "s"], ["m"]),
        h.make_node("Add", ["m", "b"], ["y"])]
    g = h.make_graph(nodes, "g",
                     [h.make_tensor_value_info("x", T.FLOAT, list(shape))],
                     [h.make_tensor_value_info("y", T.FLOAT,
                                               list(shape[:-1]) + [N])],
                     inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)


def dynamic_conv_model(path, C, OC, H, W, k, pad, stride=1):
    """ONNX Runtime's dynamic quantization of a convolution: the input
    quantized at run time, ConvInteger (padding with the run-time zero
    point), the int32 result scaled back."""
    nodes, inits = [], []
    w = RNG.integers(-127, 128, size=(OC, C, k, k)).astype(np.int8)
    inits += [nh.from_array(w, "w"),
              nh.from_array(np.array(0.004, np.float32), "ws"),
              nh.from_array(np.array(0, np.int8), "wz")]
    nodes += [
        h.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        h.make_node("ConvInteger", ["xq", "w", "xz", "wz"], ["acc"],
                    kernel_shape=[k, k], pads=[pad] * 4,
                    strides=[stride] * 2),
        h.make_node("Cast", ["acc"], ["accf"], to=T.FLOAT),
        h.make_node("Mul", ["xs", "ws"], ["s"]),
        h.make_node("Mul", ["accf", "s"], ["y"])]
    OH = (H + 2 * pad - k) // stride + 1
    OW = (W + 2 * pad - k) // stride + 1
    g = h.make_graph(nodes, "g",
                     [h.make_tensor_value_info("x", T.FLOAT, [1, C, H, W])],
                     [h.make_tensor_value_info("y", T.FLOAT,
                                               [1, OC, OH, OW])], inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)


CASES = [
    ("conv3x3", "qconv", lambda p: conv_model(p, 16, 24, 10, 9, 3)),
    ("conv3x3_s2_i8_res", "qconv",
     lambda p: conv_model(p, 8, 20, 13, 11, 3, stride=2, signed=True,
                          residual=True)),
    ("conv1x1_float", "qconv",
     lambda p: conv_model(p, 32, 64, 14, 14, 1, quant_out=False)),
    # 32 input channels or more: AMX tiles on AMX machines. Quads past a
    # 16-quad chunk, output channels past a 16-channel block, stride 2,
    # int8 activations, a residual; two chunks of 1x1.
    ("conv3x3_amx_tails", "qconv",
     lambda p: conv_model(p, 40, 24, 11, 13, 3, stride=2, signed=True,
                          residual=True)),
    # 1x1 without stride or padding reads whole channel runs in place:
    # a channel count that leaves a partial quad (AMX from 8 quads, the
    # VNNI tiles below), tiles of 28 rows of 57 pixels (not a multiple of
    # 16) at two workers, int8 input.
    ("conv1x1_pointwise_c30_i8", "qconv",
     lambda p: conv_model(p, 30, 16, 56, 57, 1, signed=True, relu=False)),
    ("conv1x1_pointwise_c6", "qconv",
     lambda p: conv_model(p, 6, 24, 13, 9, 1)),
    # The epilogue in registers (vnniPointwiseRequant): 20 output channels
    # end inside an 8-channel block, 23x23 positions leave a one-position
    # register tile.
    ("conv1x1_pointwise_fused_oc20", "qconv",
     lambda p: conv_model(p, 12, 20, 23, 23, 1)),
    ("conv1x1_amx_wide", "qconv",
     lambda p: conv_model(p, 72, 40, 9, 9, 1)),
    # AMX with the activations as the A operand (every convolution but
    # the in-place 1x1 above): two chunks of quads, dilated taps reaching
    # past the run of 32 positions, uneven padding, 40 output channels
    # (a lone 16-channel block); a 5x5 over rows of 70 whose runs of
    # positions end past the plane.
    ("conv3x3_amx_dil2_chunks", "qconv",
     lambda p: conv_model(p, 80, 40, 13, 17, 3, dil=2, pads=[2, 1, 0, 2])),
    ("conv5x5_amx_wide_rows", "qconv",
     lambda p: conv_model(p, 36, 18, 9, 70, 5)),
    # The AMX block's own requantizing epilogue: int8 out without Relu
    # over rows of 11 (groups of 32 positions across three rows); rows of
    # 5 (wp < 6) take the sums and the separate epilogue.
    ("conv3x3_amx_requant_i8", "qconv",
     lambda p: conv_model(p, 64, 36, 10, 11, 3, signed=True, relu=False)),
    ("conv3x3_amx_narrow_rows", "qconv",
     lambda p: conv_model(p, 48, 20, 3, 3, 3)),
    # Stride 2 on AMX: the per-position rows take every other input byte
    # of each phase (odd widths, padding on one side only), and a 1x1
    # stride-2 projection as ResNet's downsampling writes it.
    ("conv3x3_amx_s2_odd_pads", "qconv",
     lambda p: conv_model(p, 48, 24, 17, 19, 3, stride=2, pads=[1, 0, 0, 1])),
    ("conv1x1_amx_s2_projection", "qconv",
     lambda p: conv_model(p, 64, 32, 15, 13, 1, stride=2, pads=[0, 0, 0, 0],
                          relu=False)),
    # Stride-2 rows wider than 64 outputs: the even-byte gather's whole
    # 64-byte steps and its masked tail.
    ("conv3x3_s2_c3_wide", "qconv",
     lambda p: conv_model(p, 3, 16, 7, 203, 3, stride=2)),
    ("conv7x7_s2_c3", "qconv",
     lambda p: conv_model(p, 3, 16, 23, 19, 7, stride=2)),
    ("conv5x5_dil2_pads", "qconv",
     lambda p: conv_model(p, 6, 9, 12, 15, 5, dil=2, pads=[1, 3, 4, 0],
                          per_channel=False)),
    ("conv_group4", "qconv",
     lambda p: conv_model(p, 16, 16, 10, 9, 3, group=4)),
    # 64 channels x 9 taps per group: past float's exact range, the
    # grouped variant sums in int32.
    ("conv_group2_wide", "qconv",
     lambda p: conv_model(p, 128, 32, 7, 6, 3, group=2)),
    # uint8 weights, zero point 128: w - 128 fits int8, integer kernels.
    ("conv_u8w_zp128", "qconv",
     lambda p: conv_model(p, 8, 16, 9, 9, 3, u8_zp=128)),
    # Zero point 100: w - 100 reaches 155, outside int8; the convolution
    # stays on the float kernels (the QDQ values, computed in float).
    ("conv_u8w_zp100_float", "conv",
     lambda p: conv_model(p, 8, 16, 9, 9, 3, u8_zp=100)),
    ("depthwise_s2", "qconv",
     lambda p: conv_model(p, 32, 32, 15, 17, 3, stride=2, group=32)),
    ("depthwise_dil2_pads", "qconv",
     lambda p: conv_model(p, 24, 24, 12, 15, 3, dil=2, pads=[2, 1, 0, 2],
                          group=24)),
    # Two 4-tap words per kernel row for the VBMI gather.
    ("depthwise5x5_s2", "qconv",
     lambda p: conv_model(p, 16, 16, 19, 23, 5, stride=2, group=16)),
    # Channels in the vector lanes (qconvDepthwiseLanes): groups of 16
    # channels with a tail of 8 and tiles that split them, rows wider than
    # 16 pixels with a tail, int8 input, a 7x7 kernel; stride 3 takes the
    # planes kernel below on VBMI machines.
    ("depthwise_lanes_i8", "qconv",
     lambda p: conv_model(p, 40, 40, 9, 37, 3, group=40, signed=True,
                          relu=False)),
    ("depthwise_lanes_s3", "qconv",
     lambda p: conv_model(p, 20, 20, 17, 19, 3, stride=3, group=20)),
    ("depthwise_lanes_7x7", "qconv",
     lambda p: conv_model(p, 33, 33, 12, 21, 7, pads=[3, 2, 3, 4],
                          group=33)),
    # Strided depthwise with the outputs in the lanes, read in place
    # (qconvDepthwisePlanes): 14x14 -> 7x7 puts two output rows in a vector,
    # 20 channels leave idle slots of eight, int8 input; rows of 38 outputs
    # (blocks of 16 with a tail) and asymmetric pads; dilation 2.
    ("depthwise_planes_two_rows_i8", "qconv",
     lambda p: conv_model(p, 20, 20, 14, 14, 3, stride=2, group=20,
                          signed=True)),
    ("depthwise_planes_wide_pads", "qconv",
     lambda p: conv_model(p, 12, 12, 9, 75, 3, stride=2, pads=[0, 1, 2, 0],
                          group=12)),
    ("depthwise_planes_dil2", "qconv",
     lambda p: conv_model(p, 9, 9, 13, 29, 3, stride=2, dil=2, group=9,
                          relu=False)),
    ("depthwise_x2_i8", "qconv",
     lambda p: conv_model(p, 8, 16, 9, 9, 3, group=8, signed=True,
                          relu=False)),
    # Blocked QuantizeLinear / DequantizeLinear on QUANTIZE, exact.
    ("blocked_qdq", "quantize", blocked_qdq_model),
    # DequantizeLinear -> MaxPool -> QuantizeLinear on the bytes ("pool8":
    # POOL variant 1 or 2): ResNet's 3x3 stride-2 stem pool, a row
    # narrower than a vector, int8 with a new scale after the pool, stride
    # 1 with dilation and asymmetric pads (the scalar rows).
    ("maxpool_u8_s2", "pool8",
     lambda p: maxpool_model(p, 8, 37, 70, 3, 2, [1, 1, 1, 1])),
    ("maxpool_i8_rescaled", "pool8",
     lambda p: maxpool_model(p, 5, 9, 11, 2, 2, [0, 0, 1, 1], signed=True,
                             same_scale=False)),
    ("maxpool_u8_s1_dil2", "pool8",
     lambda p: maxpool_model(p, 4, 13, 40, 3, 1, [2, 0, 1, 2], dil=2)),
    ("maxpool_u8_s3", "pool8",
     lambda p: maxpool_model(p, 3, 17, 19, 3, 3, [1, 1, 1, 1])),
    # DequantizeLinear -> Add [-> Relu] -> QuantizeLinear (the residual
    # Add of ONNX Runtime's QDQ ResNet and MobileNet) on the bytes ("qadd":
    # QUANTIZE variant 2): uint8 with Relu over 2 x 8 x 37 x 5 elements (a
    # 16-lane tail), int8 without, on a scale that saturates; a float sum.
    ("residual_add_u8_relu", "qadd",
     lambda p: add_model(p, (2, 8, 37, 5), relu=True)),
    ("residual_add_i8_saturating", "qadd",
     lambda p: add_model(p, (1, 6, 7, 9), relu=False, signed=True,
                         y_scale=0.02)),
    ("residual_add_u8_float_out", "qadd",
     lambda p: add_model(p, (2, 5, 11, 7), relu=False, quant_out=False)),
    # Concat, Mul, Resize, the shape ops and elementwise chains between a
    # DequantizeLinear and a QuantizeLinear, on the bytes. "bytes:Op": Op
    # runs on 8-bit tensors (no float copy); "qbin": QUANTIZE variant 3
    # (amk.qadd/amk.qmul with broadcasting); "qtable": variant 4.
    ("concat_u8_requant", "bytes:Concat",
     lambda p: concat_model(p)),
    ("concat_i8_same", "bytes:Concat",
     lambda p: concat_model(p, signed=True, same=True)),
    ("mul_se_u8", "qbin",
     lambda p: mul_model(p, (2, 24, 9, 13), (2, 24, 1, 1))),
    ("mul_gate_i8_relu", "qbin",
     lambda p: mul_model(p, (2, 1, 7, 19), (2, 5, 7, 19), signed=True,
                         relu=True, y_scale=0.002)),
    ("mul_same_u8_saturating", "qbin",
     lambda p: mul_model(p, (3, 37), (3, 37), y_scale=0.0005)),
    ("add_broadcast_u8", "qbin",
     lambda p: add_bcast_model(p)),
    ("resize_up2_u8", "bytes:Resize",
     lambda p: resize_model(p, (1, 3, 7, 9), scales=[1, 1, 2, 2])),
    ("resize_up_i8_rescaled", "bytes:Resize",
     lambda p: resize_model(p, (2, 2, 5, 6), sizes=[2, 2, 11, 13],
                            signed=True, same=False,
                            coord="half_pixel", nearest_mode="round_prefer_ceil")),
    ("resize_down_u8_rescaled", "bytes:Resize",
     lambda p: resize_model(p, (1, 4, 12, 10), scales=[1, 1, 0.5, 0.5],
                            same=False)),
    ("resize_linear_u8", "qresize",
     lambda p: resize_model(p, (1, 3, 7, 9), scales=[1, 1, 2, 2],
                            mode="linear", coord="half_pixel")),
    ("resize_linear_i8_rescaled_align", "qresize",
     lambda p: resize_model(p, (2, 2, 5, 6), sizes=[2, 2, 9, 17],
                            signed=True, same=False, mode="linear",
                            coord="align_corners")),
    ("resize_cubic_u8_down", "qresize",
     lambda p: resize_model(p, (1, 2, 12, 10), scales=[1, 1, 0.75, 0.5],
                            same=False, mode="cubic",
                            coord="pytorch_half_pixel")),
    ("gap_flatten_gemm_u8", "qavgpool",
     lambda p: avgpool_model(p, (2, 24, 7, 7), classifier=True)),
    ("gap_i8_rescaled", "qavgpool",
     lambda p: avgpool_model(p, (1, 5, 9, 13), signed=True, same=False)),
    ("avgpool_3x3_pad_exclude_u8", "qavgpool",
     lambda p: avgpool_model(p, (1, 4, 10, 11), [3, 3], 1, [1, 1, 1, 1])),
    ("avgpool_2x2_s2_include_i8", "qavgpool",
     lambda p: avgpool_model(p, (2, 3, 9, 8), [2, 2], 2, [1, 1, 1, 1],
                             count_include_pad=1, signed=True, same=False)),
    # A window of 4 with one quantization on both sides lands on exact
    # rounding ties (quarter steps), which the interpreter and AMK round
    # to even and ONNX Runtime's QLinearAveragePool does not (its float
    # path before this kernel differed from it too): a window of 3 never
    # ties.
    ("avgpool_1d_u8", "qavgpool",
     lambda p: avgpool_model(p, (2, 3, 17), [3], 2)),
    ("tf_style_block_i8", "qbin", tf_style_block),
    ("shape_ops_u8", "bytes:Transpose",
     lambda p: shape_ops_model(p)),
    ("shape_ops_i8", "bytes:Reshape",
     lambda p: shape_ops_model(p, signed=True)),
    ("table_sigmoid_u8", "qtable", lambda p: table_model(p, "sigmoid")),
    ("table_swish_i8", "qtable",
     lambda p: table_model(p, "swish", signed=True)),
    ("table_hardswish_u8", "qtable", lambda p: table_model(p, "hardswish")),
    ("table_leaky_i8", "qtable",
     lambda p: table_model(p, "leaky", signed=True)),
    ("table_requant_i8_to_u8", "qtable",
     lambda p: table_model(p, "requant", signed=True)),
    ("matmul_odd", "qgemm", lambda p: gemm_model(p, (2, 7, 37), 45)),
    ("matmul_i8_float", "qgemm",
     lambda p: gemm_model(p, (3, 11, 20), 33, signed=True, quant_out=False)),
    ("gemm_transb", "qgemm",
     lambda p: gemm_model(p, (13, 64), 70, op="Gemm", transB=1, alpha=0.5,
                          beta=2.0)),
    ("gemm_small", "qgemm",
     lambda p: gemm_model(p, (5, 3), 3, op="Gemm", quant_out=False)),
    ("dynamic_matmul", "qgemm",
     lambda p: dynamic_model(p, (1, 24, 40), 30)),
    ("dynamic_matmul_u8w", "qgemm",
     lambda p: dynamic_model(p, (16, 64), 20, signed_w=False)),
    ("dynamic_conv", "qconv",
     lambda p: dynamic_conv_model(p, 6, 10, 9, 11, 3, 1)),
    ("dynamic_conv_s2", "qconv",
     lambda p: dynamic_conv_model(p, 4, 8, 12, 12, 3, 1, stride=2)),
    # Rows enough for AMX tiles (16 and 32 at a time): K past a 64-byte
    # step, N past a 16- and a 32-column block, int8 activations.
    ("matmul_amx_tails", "qgemm",
     lambda p: gemm_model(p, (40, 37), 45, signed=True)),
    ("matmul_amx_float", "qgemm",
     lambda p: gemm_model(p, (2, 33, 200), 100, quant_out=False)),
    # uint8 rows whose K fills whole 64-byte steps, in blocks of 32 rows:
    # AMX reads them in place (a tail block of 16 rows is still copied).
    ("matmul_amx_in_place", "qgemm",
     lambda p: gemm_model(p, (80, 192), 48)),
    # An odd number of rows in a block (the 8-bit epilogue stores rows
    # in pairs).
    ("matmul_amx_odd_rows", "qgemm",
     lambda p: gemm_model(p, (3, 15, 64), 50)),
    ("matmul_per_tensor", "qgemm",
     lambda p: gemm_model(p, (1, 128, 256), 256, per_channel=False,
                          bias=False)),
    # Weight-only (amk.wgemm): few rows stream the weights, many
    # dequantize each panel first; N past a 64-column panel, K past a
    # block.
    ("w8_gemv", "wgemm",
     lambda p, b: weight_only_model(p, b, (1, 1, 300), 257, "bits=8")),
    ("w8_rows_batched", "wgemm",
     lambda p, b: weight_only_model(p, b, (2, 40, 96), 130, "bits=8",
                                    relu=True)),
    ("w8_blocks_asym", "wgemm",
     lambda p, b: weight_only_model(
         p, b, (5, 100), 64, "bits=8 block-size=32 symmetric=false")),
    ("w8_residual", "wgemm",
     lambda p, b: weight_only_model(p, b, (4, 96), 96, "bits=8",
                                    bias=False, residual=True)),
    ("w4_gemv_residual", "wgemm",
     lambda p, b: weight_only_model(p, b, (1, 128), 128, "bits=4",
                                    bias=False, residual=True, relu=True)),
    # K = 37: the last block holds 5 k, the last word of nibbles 5.
    ("w4_k37_tail", "wgemm",
     lambda p, b: weight_only_model(p, b, (2, 37), 65,
                                    "bits=4 block-size=16 symmetric=false")),
    # ONNX Runtime's MatMulNBits: no reference kernel (a contrib op), so
    # both runs are checked against ONNX Runtime at 1e-4 of scale.
    ("nbits4_gemv_zp", "wgemm-ort",
     lambda p: nbits_model(p, (1, 1, 96), 96, 70, 32)),
    ("nbits4_rows_nozp", "wgemm-ort",
     lambda p: nbits_model(p, (1, 9, 200), 200, 130, 32, zp=False)),
    ("nbits4_b16_odd_blocks", "wgemm-ort",
     lambda p: nbits_model(p, (3, 80), 80, 64, 16, bias=False)),
    ("nbits8_zp", "wgemm-ort",
     lambda p: nbits_model(p, (2, 64), 64, 33, 32, bits=8)),
    ("w4_gemv", "wgemm",
     lambda p, b: weight_only_model(p, b, (1, 512), 200, "bits=4")),
    ("w4_rows_asym", "wgemm",
     lambda p, b: weight_only_model(p, b, (24, 200), 70,
                                    "bits=4 symmetric=false", relu=True)),
    ("w4_gemm_transb_b64", "wgemm",
     lambda p, b: weight_only_model(
         p, b, (3, 256), 100, "bits=4 block-size=64 symmetric=false",
         op="Gemm", transB=1, alpha=0.5, beta=2.0)),
    # int4 weights on int8 activations (amk-lower-qdq{activation-bits=8},
    # MatMulNBits' accuracy_level 4): fewer than 6 rows sum integer
    # products; the interpreter quantizes A the same way. MLIR models
    # (amk.wgemm is AMK's op), so not run on ONNX Runtime.
    ("w4a8_gemv", "wgemm-a8",
     lambda p, b: weight_only_model(p, b, (1, 512), 200, "bits=4",
                                    activation_bits=8)),
    ("w4a8_rows_asym_relu", "wgemm-a8",
     lambda p, b: weight_only_model(p, b, (5, 96), 130,
                                    "bits=4 symmetric=false", relu=True,
                                    activation_bits=8)),
    ("w4a8_k37_tail_residual", "wgemm-a8",
     lambda p, b: weight_only_model(p, b, (2, 37), 37,
                                    "bits=4 block-size=16 symmetric=false",
                                    residual=True, activation_bits=8)),
    ("w4a8_gemm_transb_b64", "wgemm-a8",
     lambda p, b: weight_only_model(
         p, b, (3, 256), 100, "bits=4 block-size=64", op="Gemm", transB=1,
         alpha=0.5, beta=2.0, activation_bits=8)),
    # Eight rows: the product dequantizes to float panels, activations
    # stay float even with activation_bits 8.
    ("w4a8_rows8_float", "wgemm-a8f",
     lambda p, b: weight_only_model(p, b, (8, 64), 70, "bits=4",
                                    activation_bits=8)),
    # int8 weights per column on bf16 activations (activation-bits=16): AMX
    # tiles natively, the float paths on rounded rows elsewhere. 80 rows
    # (a 16-row tail of the 32-row blocks), K 97 (a tail of a 32-k step),
    # N 130 (a 2-column panel); a zero point with a residual and ReLU;
    # Gemm with transB, alpha and beta over 20 rows (tiles of at most 16).
    ("w8b16_rows_tails", "wgemm-b16",
     lambda p, b: weight_only_model(p, b, (2, 40, 97), 130, "bits=8",
                                    activation_bits=16)),
    ("w8b16_asym_residual_relu", "wgemm-b16",
     lambda p, b: weight_only_model(p, b, (37, 64), 64,
                                    "bits=8 symmetric=false", relu=True,
                                    residual=True, activation_bits=16)),
    ("w8b16_gemm_transb", "wgemm-b16",
     lambda p, b: weight_only_model(p, b, (20, 256), 100, "bits=8",
                                    op="Gemm", transB=1, alpha=0.5,
                                    beta=2.0, activation_bits=16)),
    # Five rows: float activations even with activation_bits 16 (a bf16
    # rounding would be ~1e-3 of the scale off).
    ("w8b16_rows5_float", "wgemm-b16",
     lambda p, b: weight_only_model(p, b, (5, 96), 70, "bits=8",
                                    activation_bits=16)),
]


def weight_only_model(path, bin_dir, shape, N, options, op="MatMul",
                      transB=0, alpha=1.0, beta=1.0, bias=True, relu=False,
                      residual=False, activation_bits=0):
    """A float MatMul/Gemm whose weights amk-quantize-weights{options}
    turns into a DequantizeLinear of int8/int4 constants (per column or in
    blocks along K: ONNX Runtime's 4-bit QDQ layout), exported to ONNX;
    with activation_bits, lowered to amk.wgemm with them and written as
    MLIR (the path returned)."""
    K = shape[-1]
    nodes, inits = [], []
    w = (RNG.standard_normal((N, K) if transB else (K, N)) * 0.1)
    inits.append(nh.from_array(w.astype(np.float32), "w"))
    out = "y" if not relu else "pre"
    if op == "Gemm":
        ins = ["x", "w"]
        if bias:
            inits.append(nh.from_array(
                RNG.standard_normal(N).astype(np.float32), "b"))
            ins.append("b")
        nodes.append(h.make_node("Gemm", ins, [out], transB=transB,
                                 alpha=alpha, beta=beta))
    else:
        nodes.append(h.make_node("MatMul", ["x", "w"],
                                 ["mm" if bias else out]))
        if bias:
            inits.append(nh.from_array(
                RNG.standard_normal(N).astype(np.float32), "b"))
            nodes.append(h.make_node("Add", ["mm", "b"], [out]))
    if residual:  # x + x W: amk.gemm's run-time addend.
        last = nodes[-1].output[0]
        nodes[-1].output[0] = last + "_r"
        nodes.append(h.make_node("Add", [last + "_r", "x"], [last]))
    if relu:
        nodes.append(h.make_node("Relu", ["pre"], ["y"]))
    g = h.make_graph(nodes, "weight_only",
                     [h.make_tensor_value_info("x", T.FLOAT, list(shape))],
                     [h.make_tensor_value_info("y", T.FLOAT,
                                               list(shape[:-1]) + [N])],
                     inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 21)])
    m.ir_version = 10
    fp = path + ".float.onnx"
    onnx.save(m, fp)
    if activation_bits:
        out = path.removesuffix(".onnx") + ".mlir"
        run([str(bin_dir / "amk-opt"), fp, "--pass-pipeline=builtin.module("
             f"amk-graph-opt,amk-quantize-weights{{{options}}},"
             f"amk-lower-qdq{{activation-bits={activation_bits}}})", "-o",
             out])
        return out
    run([str(bin_dir / "amk-opt"), fp, "--pass-pipeline=builtin.module("
         f"amk-quantize-weights{{{options}}})", "-o", path])


def nbits_model(path, shape, K, N, block, bits=4, zp=True, bias=True):
    """ONNX Runtime's weight-only contrib op com.microsoft.MatMulNBits:
    B as [N][blocks][block * bits / 8] bytes (low bits first), scales per
    (column, block), zero points packed the same way (2^(bits-1) when
    absent)."""
    nb, per = (K + block - 1) // block, 8 // bits
    q = RNG.integers(0, 1 << bits, (N, nb * block)).astype(np.uint8)
    packed = np.zeros((N, nb * block // per), np.uint8)
    for i in range(per):
        packed |= (q[:, i::per] << (bits * i)).astype(np.uint8)
    inits = [nh.from_array(packed.reshape(N, nb, block * bits // 8), "B"),
             nh.from_array((RNG.random(N * nb) * 0.02 + 0.005)
                           .astype(np.float32), "scales")]
    ins = ["A", "B", "scales", ""]
    if zp:
        z = RNG.integers(0, 1 << bits, (N, -(-nb // per) * per)).astype(
            np.uint8)
        zk = np.zeros((N, z.shape[1] // per), np.uint8)
        for i in range(per):
            zk |= (z[:, i::per] << (bits * i)).astype(np.uint8)
        inits.append(nh.from_array(zk.reshape(-1), "zp"))
        ins[3] = "zp"
    if bias:
        inits.append(nh.from_array(RNG.standard_normal(N).astype(np.float32),
                                   "bias"))
        ins += ["", "bias"]
    node = h.make_node("MatMulNBits", ins, ["Y"], domain="com.microsoft",
                       K=K, N=N, bits=bits, block_size=block)
    g = h.make_graph([node], "nbits",
                     [h.make_tensor_value_info("A", T.FLOAT, list(shape))],
                     [h.make_tensor_value_info("Y", T.FLOAT,
                                               list(shape[:-1]) + [N])],
                     inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 21),
                                       h.make_opsetid("com.microsoft", 1)])
    m.ir_version = 10
    onnx.save(m, path)


def run(cmd, env=None, mismatch_ok=False):
    """stdout of cmd; an error unless it exits 0 (or 1 on a mismatch it
    printed, when mismatch_ok)."""
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0 and not (mismatch_ok and r.returncode == 1
                                  and "MISMATCH" in r.stdout):
        raise RuntimeError(" ".join(cmd) + "\n" + r.stdout + r.stderr)
    return r.stdout


def outputs(directory):
    return [np.load(f) for f in sorted(pathlib.Path(directory).glob("*.npy"))]


def cpu_flag(name):
    try:
        with open("/proc/cpuinfo") as f:
            return name in f.read().split()
    except OSError:
        return False


def has_vnni():
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return True
    return "avx512_vnni" in flags or "avx_vnni" in flags


HAS_VNNI = has_vnni()


# The kernels' code paths: the machine's own (VNNI or AVX-512 where it has
# them), AVX2 (vpdpbusd emulated with vpmaddwd; the machine's own path on
# CPUs without VNNI) and the portable loops.
# On AMX machines the native path runs the tiles where a task has 16 rows
# or more, and with AVX512-VBMI the depthwise taps in int32; the VNNI path
# without either (AMK_NO_AMX=1 AMK_NO_VBMI=1) is checked on its own.
PATHS = (("native", None),) + (
    (("vnni", dict(os.environ, AMK_NO_AMX="1", AMK_NO_VBMI="1")),)
    if cpu_flag("amx_int8") or cpu_flag("avx512vbmi") else ()) + (
         ("avx2", dict(os.environ, AMK_NO_VNNI="1", AMK_NO_AVX512="1")),
         ("portable", dict(os.environ, AMK_NO_VNNI="1", AMK_NO_AVX512="1",
                           AMK_NO_AVX2="1")),)


# Case kinds that name a kernel variant: the program line it must have.
KERNEL_VARIANTS = {
    "pool8": (r"kernel pool \{[^\n]*variant = [12] ", "8-bit pool kernel"),
    "qadd": (r"kernel quantize \{[^\n]*variant = 2 ", "quantized add kernel"),
    "qbin": (r"kernel quantize \{[^\n]*variant = 3 ",
             "quantized add or mul kernel"),
    "qavgpool": (r"kernel pool \{[^\n]*variant = 3 ", "8-bit average pool"),
    "qresize": (r"kernel resize \{[^\n]*variant = 2 ",
                "8-bit weighted resize"),
    "qtable": (r"kernel quantize \{[^\n]*variant = 4 ", "table kernel"),
}


def main():
    bin_dir, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    amk_run, amk_opt = str(bin_dir / "amk-run"), str(bin_dir / "amk-opt")
    failed = 0
    for name, kernel, make in CASES:
        model = work / f"{name}.onnx"
        if make.__code__.co_argcount == 2:
            made = make(str(model), bin_dir)
        else:
            made = make(str(model))
        if made:
            model = pathlib.Path(made)
        problems = []
        ir = run([amk_opt, str(model), "--pass-pipeline=builtin.module("
                  "amk-graph-opt,amk-schedule-megakernel{workers=2})"])
        ort_only = kernel.endswith("-ort")
        # An MLIR model of AMK's ops: no ONNX Runtime comparison. "-a8":
        # int8 activations, every path bit for bit equal; "-a8f": rows
        # enough for the float path (summation orders differ).
        exact = kernel.endswith("-a8")
        int8_acts = exact or kernel.endswith("-a8f")
        bf16_acts = kernel.endswith("-b16")
        kernel = kernel.removesuffix("-ort").removesuffix("-a8f")
        kernel = kernel.removesuffix("-a8").removesuffix("-b16")
        if kernel in KERNEL_VARIANTS:
            pattern, what = KERNEL_VARIANTS[kernel]
            if not re.search(pattern, ir):
                problems.append(f"no {what} in the program")
        elif kernel.startswith("bytes:"):
            op = kernel.removeprefix("bytes:")
            lowered = run([amk_opt, str(model),
                           "--pass-pipeline=builtin.module(amk-graph-opt)"])
            if (not re.search(rf'"onnx\.{op}"[^\n]*-> tensor<[0-9x]*u?i8>',
                              lowered) or
                    re.search(rf'"onnx\.{op}"[^\n]*-> tensor<[0-9x]*f32>',
                              lowered)):
                problems.append(f"{op} does not run on the 8-bit tensors")
        elif f"kernel {kernel} " not in ir:
            problems.append(f"no {kernel} kernel in the program")
        if int8_acts and "activation_bits = 8" not in run(
                [amk_opt, str(model)]):
            problems.append("amk.wgemm without activation_bits = 8")
        if bf16_acts and "activation_bits = 16" not in run(
                [amk_opt, str(model)]):
            problems.append("amk.wgemm without activation_bits = 16")
        if ort_only:
            for label, env in PATHS:
                out = run([amk_run, str(model), "--seed", "3", "--threads",
                           "2", "--compare-ort"], env, mismatch_ok=True)
                if "MISMATCH" in out or " ok vs onnxruntime" not in out:
                    problems.append(f"{label} vs ONNX Runtime: " +
                                    out.strip().splitlines()[-1])
            status = "ok" if not problems else "FAIL " + "; ".join(problems)
            failed += bool(problems)
            print(f"qdq-kernels {name} ({kernel}): {status}", flush=True)
            continue
        ref = work / name / "ref"
        run([amk_run, str(model), "--reference", "--seed", "3",
             "--output-dir", str(ref), "--output-format", "npy"])
        want = outputs(ref)
        first = None
        for label, env in PATHS:
            d = work / name / label
            run([amk_run, str(model), "--seed", "3", "--threads", "2",
                 "--output-dir", str(d), "--output-format", "npy"], env)
            got = outputs(d)
            # int8 activations sum exactly in int32, then apply the same
            # fused float operations on every path: bit for bit equal.
            if exact and first is not None and not all(
                    np.array_equal(x, y, equal_nan=True)
                    for x, y in zip(first, got)):
                problems.append(f"{label} differs bit for bit from "
                                f"{PATHS[0][0]}")
            first = first if first is not None else got
            for a, b in zip(want, got):
                diff = np.abs(a.astype(np.float64) - b)
                scale = max(float(np.abs(a).max()), 1e-30)
                # The quantized results' step: the smallest nonzero gap.
                vals = np.unique(a)
                step = float(np.min(np.diff(vals))) if len(vals) > 1 else 0
                if diff.max() <= 1e-5 * scale:
                    continue
                ties = int((diff > 1e-5 * scale).sum())
                if (step > 0 and diff.max() <= step * 1.0001 and
                        ties <= 0.01 * a.size):
                    continue
                problems.append(f"{label}: max abs {diff.max():.3g} "
                                f"(scale {scale:.3g}, step {step:.3g}), "
                                f"{ties} of {a.size} differ")
        out = "" if int8_acts or bf16_acts else run(
            [amk_run, str(model), "--seed", "3", "--threads", "2",
             "--compare-ort", "--min-cosine", "0.9999"], mismatch_ok=True)
        note = ""
        if "MISMATCH" in out:
            # Without VNNI, ONNX Runtime's int8 products go through
            # vpmaddubsw, whose int16 pair sums saturate: its results then
            # leave the QDQ semantics the interpreter implements (and AMK
            # matched above). A note, not a failure, on such CPUs.
            if not problems and not HAS_VNNI:
                note = " (ONNX Runtime differs on this CPU without VNNI: " + \
                    out.strip().splitlines()[-1].strip() + ")"
            else:
                problems.append("ONNX Runtime: " + out.strip().splitlines()[-1])
        status = ("ok" + note) if not problems else "FAIL " + "; ".join(problems)
        failed += bool(problems)
        print(f"qdq-kernels {name} ({kernel}): {status}", flush=True)
    print(f"qdq-kernels: {len(CASES) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
