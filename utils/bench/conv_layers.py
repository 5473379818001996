#!/usr/bin/env python3
"""Single-layer and single-block models for the convolution measurements of
docs/runtime.md ("CNN speed", ninth session): the 3x3 stride-1 layers of
ResNet-18 (conv + bias + ReLU at 56x56x64, 28x28x128, 14x14x256 and
7x7x512) and three MobileNetV2 inverted-residual blocks (features.2,
features.3 and features.5: 1x1 expansion + Clip, 3x3 depthwise + Clip,
1x1 projection, the residual where the block has one). Seeded random
weights, opset 17.

Also ten-layer chains of the 14x14x256 and 7x7x512 layers (l3x10, l4x10),
whose 24 and 94 MB of 3x3 weights do not stay in cache between runs, as
inside ResNet-18: the weights then come from memory, which the
single-layer models hide (docs/runtime.md, eighteenth session).
Also ResNet-18's max pool after the stem (pool: 3x3 stride 2, pad 1,
over 64 x 112 x 112; twenty-fifth session).
Usage: conv_layers.py OUT_DIR
Writes OUT_DIR/{l1,l2,l3,l4,l3x10,l4x10,b2,b3,b5,pool}.onnx.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def tensor(rng, name, shape, scale):
    return numpy_helper.from_array(
        (rng.standard_normal(shape) * scale).astype(np.float32), name)


def save(nodes, inits, x_shape, y_name, y_shape, path):
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info(y_name, TensorProto.FLOAT, y_shape)], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def conv3x3(c, h, path, layers=1):
    rng = np.random.default_rng(0)
    inits, nodes, x = [], [], "x"
    for i in range(layers):
        # He-scaled weights keep a chain's activations in range.
        scale = 0.05 if layers == 1 else (2.0 / (9 * c)) ** 0.5
        sfx = "" if layers == 1 else str(i)
        y = "y" if i == layers - 1 else "r" + sfx
        inits += [tensor(rng, "w" + sfx, (c, c, 3, 3), scale),
                  tensor(rng, "b" + sfx, (c,), 1.0)]
        nodes += [helper.make_node("Conv", [x, "w" + sfx, "b" + sfx], ["c" + sfx],
                                   pads=[1, 1, 1, 1], name="conv" + sfx),
                  helper.make_node("Relu", ["c" + sfx], [y], name="relu" + sfx)]
        x = y
    save(nodes, inits, [1, c, h, h], "y", [1, c, h, h], path)


def block(c, ce, co, h, s, path):
    rng = np.random.default_rng(0)
    inits = [tensor(rng, "w1", (ce, c, 1, 1), 0.2), tensor(rng, "b1", (ce,), 0.1),
             tensor(rng, "wd", (ce, 1, 3, 3), 0.3), tensor(rng, "bd", (ce,), 0.1),
             tensor(rng, "w3", (co, ce, 1, 1), 0.1), tensor(rng, "b3", (co,), 0.1),
             numpy_helper.from_array(np.array(0, np.float32), "lo"),
             numpy_helper.from_array(np.array(6, np.float32), "hi")]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["e"], name="expand"),
             helper.make_node("Clip", ["e", "lo", "hi"], ["ec"]),
             helper.make_node("Conv", ["ec", "wd", "bd"], ["d"], group=ce, pads=[1, 1, 1, 1],
                              strides=[s, s], name="dw"),
             helper.make_node("Clip", ["d", "lo", "hi"], ["dc"]),
             helper.make_node("Conv", ["dc", "w3", "b3"], ["p"], name="project")]
    oh = (h - 1) // s + 1
    out = "p"
    if s == 1 and c == co:
        nodes.append(helper.make_node("Add", ["p", "x"], ["y"]))
        out = "y"
    save(nodes, inits, [1, c, h, h], out, [1, co, oh, oh], path)


def max_pool(path):
    nodes = [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3],
                              strides=[2, 2], pads=[1, 1, 1, 1])]
    save(nodes, [], [1, 64, 112, 112], "y", [1, 64, 56, 56], path)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, (c, h) in {"l1": (64, 56), "l2": (128, 28), "l3": (256, 14), "l4": (512, 7)}.items():
        conv3x3(c, h, os.path.join(out, name + ".onnx"))
    for name, (c, h) in {"l3x10": (256, 14), "l4x10": (512, 7)}.items():
        conv3x3(c, h, os.path.join(out, name + ".onnx"), layers=10)
    for name, args in {"b2": (16, 96, 24, 112, 2), "b3": (24, 144, 24, 56, 1),
                       "b5": (32, 192, 32, 28, 1)}.items():
        block(*args, os.path.join(out, name + ".onnx"))
    max_pool(os.path.join(out, "pool.onnx"))


if __name__ == "__main__":
    main()
