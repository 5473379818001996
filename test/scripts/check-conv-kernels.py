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
import re
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


def depthwise(nodes, inits, x, name, C, stride, act):
    inits += [nh.from_array((RNG.standard_normal((C, 1, 3, 3)) /
                             3).astype(np.float32), name + "_w"),
              nh.from_array(RNG.standard_normal(C).astype(np.float32),
                            name + "_b")]
    nodes.append(h.make_node("Conv", [x, name + "_w", name + "_b"],
                             [name + "_c"], kernel_shape=[3, 3], group=C,
                             pads=[1, 1, 1, 1], strides=[stride, stride]))
    if not act:
        return name + "_c"
    if act == "clip":
        inits += [nh.from_array(np.array(0, np.float32), name + "_lo"),
                  nh.from_array(np.array(6, np.float32), name + "_hi")]
        nodes.append(h.make_node("Clip", [name + "_c", name + "_lo",
                                          name + "_hi"], [name + "_a"]))
    else:
        nodes.append(h.make_node(act, [name + "_c"], [name + "_a"]))
    return name + "_a"


def model(path, shape, layers):
    """layers, applied in turn from x: (OC, act, residual) for a 1x1
    convolution, residual False, True (x) or the index of the layer whose
    output it adds; ("dw", stride, act) for a padded 3x3 depthwise one."""
    nodes, inits = [], []
    x, C, H, W = "x", shape[1], shape[2], shape[3]
    outs = []
    for i, layer in enumerate(layers):
        if layer[0] == "dw":
            x = depthwise(nodes, inits, x, f"l{i}", C, layer[1], layer[2])
            H, W = (H - 1) // layer[1] + 1, (W - 1) // layer[1] + 1
        else:
            OC, act, res = layer
            res = ("x" if res is True else outs[res]) if res is not False \
                else None
            x = conv(nodes, inits, x, f"l{i}", C, OC, act, res)
            C = OC
        outs.append(x)
    out_shape = [shape[0], C, H, W]
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
    # Channel-blocked (NCHW16c) activations between the convolutions
    # (blocked-layout): an expansion from NCHW, depthwise layers of stride
    # 1 and 2 on odd planes, projections that add a blocked residual, an
    # activation outside the kernels' inline ones, and the last 1x1 back
    # to NCHW for the output. Two images, so tiles cross them.
    ("blocked_chain", (2, 32, 13, 11),
     [(64, "clip", False), ("dw", 1, "Relu"), (32, None, False),
      (96, "Sigmoid", False), ("dw", 1, None), (32, None, 2),
      ("dw", 2, "Relu"), (64, None, False)]),
    # 7x7 planes after a stride-2 depthwise layer, residual on the last
    # blocked projection, 160 channels (five 32-channel blocks).
    ("blocked_small", (1, 32, 14, 14),
     [(160, "Relu", False), ("dw", 2, "clip"), (32, None, False),
      (160, "Relu", False), ("dw", 1, None), (32, None, 2),
      (64, None, False)]),
    # MobileNetV2's early blocks, fused into INVERTED_RESIDUAL kernels
    # (expanded activations over fuse-blocks-min-bytes) whose strips are
    # channel-blocked (variant 1): a residual block at 56x56 with 144
    # channels (a last half-empty 32-channel block), and a stride-2 block
    # from 112x113 (odd width) on two images.
    ("ir_residual", (1, 24, 56, 56),
     [(144, "clip", False), ("dw", 1, "clip"), (24, None, True)]),
    ("ir_stride2", (2, 16, 112, 113),
     [(96, "clip", False), ("dw", 2, "clip"), (24, None, False)]),
]


def compiled(bin_dir, path):
    return subprocess.run(
        [os.path.join(bin_dir, "amk-opt"), path,
         "--pass-pipeline=builtin.module(amk-graph-opt{target=cpu},"
         "amk-schedule-megakernel{workers=1 vector-width=16})"],
        capture_output=True, text=True, check=True).stdout


def count_kernels(bin_dir, path, pattern):
    return sum(1 for line in compiled(bin_dir, path).splitlines()
               if re.search(pattern, line))


def blocked_kernels(bin_dir, path):
    """How many conv/dwconv kernels of the compiled model have both
    operands channel-blocked (AMK_CONV_LAYOUT 3)."""
    r = compiled(bin_dir, path)
    n = 0
    for line in r.splitlines():
        m = re.search(r"amk_task.kernel (conv|dwconv) .*iparams = "
                      r"array<i64: ([^>]*)>", line)
        if m and len(m.group(2).split(",")) == 19 and \
                m.group(2).split(",")[-1].strip() == "3":
            n += 1
    return n


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
        if name.startswith("ir_"):
            got = count_kernels(sys.argv[1], path,
                                r"amk_task.kernel inverted_residual .*"
                                r"variant = 1")
            if got == 1:
                passed += 1
                print(f"conv-kernels {name} fused: ok")
            else:
                failed += 1
                print(f"conv-kernels {name} fused: FAIL ({got} channel-"
                      "blocked inverted-residual kernels, expected 1)")
        if name.startswith("blocked"):
            # The blocked cases must run on blocked operands: every layer
            # but the first and the last takes and gives NCHW16c.
            want = len(layers) - 2
            got = blocked_kernels(sys.argv[1], path)
            if got == want:
                passed += 1
                print(f"conv-kernels {name} layouts: ok ({got} kernels with "
                      "both operands blocked)")
            else:
                failed += 1
                print(f"conv-kernels {name} layouts: FAIL ({got} kernels "
                      f"with both operands blocked, expected {want})")
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
