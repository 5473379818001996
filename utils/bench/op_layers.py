#!/usr/bin/env python3
"""Single-op models of the ops that are hot in real models (issue 21's
speed item), at sizes those models give them: bilinear and nearest 2x
Resize of a 64-channel 128x128 map (detection and segmentation necks),
a stride-2 ConvTranspose 64->32 (U-Net and CenterNet upsampling), LSTM and
GRU over 64 steps of 256 hidden units (CRNN, speech), ReduceMean over the
spatial axes of a 256x56x56 map, ReduceSum over a last axis of 512, Where
and Expand on 2-8 M elements (masks in transformers and detection
post-processing), and Gather from a 32000 x 512 embedding table. Seeded
random weights, opset 17.

Usage: op_layers.py OUT_DIR
Writes OUT_DIR/<name>.onnx for every name in LAYERS.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def const(rng, name, shape, scale=0.1):
    return numpy_helper.from_array(
        (rng.standard_normal(shape) * scale).astype(np.float32), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def save(path, nodes, inputs, outputs, inits):
    g = helper.make_graph(nodes, "g", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, path)


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def resize(out, rng, mode):
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "s")
    node = helper.make_node("Resize", ["x", "", "s"], ["y"], mode=mode,
                            coordinate_transformation_mode="half_pixel"
                            if mode == "linear" else "asymmetric",
                            nearest_mode="floor")
    save(out, [node], [vi("x", [1, 64, 128, 128])],
         [vi("y", [1, 64, 256, 256])], [scales])


def conv_transpose(out, rng):
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"],
                            kernel_shape=[4, 4], strides=[2, 2],
                            pads=[1, 1, 1, 1])
    save(out, [node], [vi("x", [1, 64, 64, 64])],
         [vi("y", [1, 32, 128, 128])],
         [const(rng, "w", [64, 32, 4, 4]), const(rng, "b", [32])])


def recurrent(out, rng, op):
    gates = {"LSTM": 4, "GRU": 3}[op]
    h, i, t = 256, 128, 64
    node = helper.make_node(op, ["x", "w", "r", "b"], ["", "y_h"],
                            hidden_size=h)
    save(out, [node], [vi("x", [t, 1, i])], [vi("y_h", [1, 1, h])],
         [const(rng, "w", [1, gates * h, i]),
          const(rng, "r", [1, gates * h, h]),
          const(rng, "b", [1, 2 * gates * h])])


def reduce_mean(out, rng):
    node = helper.make_node("ReduceMean", ["x"], ["y"], axes=[2, 3],
                            keepdims=1)
    save(out, [node], [vi("x", [1, 256, 56, 56])], [vi("y", [1, 256, 1, 1])],
         [])


def reduce_sum(out, rng):
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)
    save(out, [node], [vi("x", [16, 512, 512])], [vi("y", [16, 512])],
         [ints("axes", [-1])])


def where(out, rng):
    nodes = [helper.make_node("Greater", ["x", "y"], ["c"]),
             helper.make_node("Where", ["c", "x", "y"], ["z"])]
    shape = [1, 32, 256, 256]
    save(out, nodes, [vi("x", shape), vi("y", shape)], [vi("z", shape)], [])


def expand(out, rng):
    node = helper.make_node("Expand", ["x", "shape"], ["y"])
    save(out, [node], [vi("x", [1, 1, 256, 256])],
         [vi("y", [1, 32, 256, 256])], [ints("shape", [1, 32, 256, 256])])


def gather(out, rng):
    node = helper.make_node("Gather", ["table", "ids"], ["y"], axis=0)
    save(out, [node], [vi("ids", [1, 256], TensorProto.INT64)],
         [vi("y", [1, 256, 512])], [const(rng, "table", [32000, 512])])


LAYERS = {
    "resize_linear": lambda o, r: resize(o, r, "linear"),
    "resize_nearest": lambda o, r: resize(o, r, "nearest"),
    "conv_transpose": conv_transpose,
    "lstm": lambda o, r: recurrent(o, r, "LSTM"),
    "gru": lambda o, r: recurrent(o, r, "GRU"),
    "reduce_mean": reduce_mean,
    "reduce_sum": reduce_sum,
    "where": where,
    "expand": expand,
    "gather": gather,
}


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name, make in LAYERS.items():
        make(os.path.join(out_dir, name + ".onnx"), np.random.default_rng(0))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
