#!/usr/bin/python3
"""The float direct convolution's register tiles on geometries the zoo does
not have, against the reference interpreter (amk-run --check-reference:
within 1e-4 of each output's scale), at 1 and 2 workers.

The cases aim at the 1x1 stride-1 convolutions over 512 pixels or more,
which run on channel x pixel tiles (runtime/lib/kernels/DirectConv.cpp,
pointwiseTile): pixel counts that leave a partial last vector, two
images, a fused residual and Clip, an activation the epilogue applies
through applyActivation, many input channels. Seeded random weights.

Usage: check-conv-kernels.py BIN_DIR WORK_DIR
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

RNG = np.random.default_rng(11)


def conv(nodes, inits, x, name, C, OC, act=None, residual=None):
    inits += [nh.from_array((RNG.standard_normal((OC, C, 1, 1)) /
                             np.sqrt(C)).astype(np.float32), name + "_w"),
              nh.from_array(RNG.standard_normal(OC).astype(np.float32),
                            name + "_b")]
    nodes.append(h.make_node("Conv", [x, name + "_w", name + "_b"],
                             [name + "_c"], kernel_shape=[1, 1]))
    out = name + "_c"
    if residual:
        nodes.append(h.make_node("Add", [out, residual], [name + "_r"]))
        out = name + "_r"
    if act == "clip":
        inits += [nh.from_array(np.array(0, np.float32), name + "_lo"),
                  nh.from_array(np.array(6, np.float32), name + "_hi")]
        nodes.append(h.make_node("Clip", [out, name + "_lo", name + "_hi"],
                                 [name + "_a"]))
        out = name + "_a"
    elif act:
        nodes.append(h.make_node(act, [out], [name + "_a"]))
        out = name + "_a"
    return out


def model(path, shape, layers):
    """layers: (OC, act, residual?) applied in turn from x."""
    nodes, inits = [], []
    x, C = "x", shape[1]
    for i, (OC, act, res) in enumerate(layers):
        x = conv(nodes, inits, x, f"l{i}", C, OC, act, "x" if res else None)
        C = OC
    out_shape = [shape[0], C] + list(shape[2:])
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", T.FLOAT,
                                                           list(shape))],
                     [h.make_tensor_value_info(x, T.FLOAT, out_shape)], inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)


CASES = [
    # 667 pixels: 13 chunks of 48 and one of 43 (a last vector of 11).
    ("tail_relu", (1, 40, 23, 29), [(64, "Relu", False)]),
    # Two images; an expansion with Clip, then a projection that adds the
    # block's input (the residual the epilogue reads).
    ("residual_clip", (2, 32, 28, 28), [(96, "clip", False),
                                        (32, None, True)]),
    # An activation the tile applies through applyActivation.
    ("sigmoid", (1, 24, 32, 20), [(32, "Sigmoid", False)]),
    # 200 input channels (a 48-pixel chunk larger than L1) and 520 pixels:
    # 10 chunks of 48 and one of 40.
    ("many_channels", (1, 200, 20, 26), [(64, None, False)]),
]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    amk = os.path.join(sys.argv[1], "amk-run")
    work = sys.argv[2]
    os.makedirs(work, exist_ok=True)
    passed = failed = 0
    for name, shape, layers in CASES:
        path = os.path.join(work, name + ".onnx")
        model(path, shape, layers)
        for mode, args in [("threads=1", ["--threads", "1"]),
                           ("threads=2", ["--threads", "2"])]:
            r = subprocess.run([amk, path, "--seed", "5",
                                "--check-reference"] + args,
                               capture_output=True, text=True)
            if r.returncode == 0:
                passed += 1
                print(f"conv-kernels {name} {mode}: ok")
            else:
                failed += 1
                print(f"conv-kernels {name} {mode}: FAIL "
                      f"(exit {r.returncode})\n{r.stdout}{r.stderr}")
    print(f"conv-kernels: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
