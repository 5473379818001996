#!/usr/bin/python3
"""Prepares the weight-only part of scripts/bench-runtime.sh.

Writes into WORK a decoder-MLP stack run at one token (the batch-1 GEMV
that weight-only quantization is for): LAYERS x (x + Relu(x W1) W2) with
W1 768x3072 and W2 3072x768, seeded Gaussian weights (16 layers: 75M
parameters, 302 MB in float32, 75 MB in int8, 47 MB in int4: each past a
32 MB last-level cache, so every token streams the weights from memory):
  float.onnx  the float32 model;
  w8.onnx     amk-quantize-weights (int8 per column), in standard ONNX
              (DequantizeLinear -> MatMul), which ONNX Runtime also runs;
  w4.onnx     amk-quantize-weights{bits=4} (int4 in blocks of 32);
  weights.json  the bytes of weights (and scales) each file holds.

Usage: weight-only-bench-prep.py BIN_DIR WORK [--layers N]
"""
import argparse
import json
import os
import pathlib
import subprocess

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("work")
    ap.add_argument("--layers", type=int, default=16)
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    r = np.random.default_rng(2026)
    nodes, inits, cur = [], [], "x"
    for i in range(a.layers):
        for name, shape in ((f"w1_{i}", (768, 3072)), (f"w2_{i}", (3072, 768))):
            inits.append(nh.from_array(
                (r.standard_normal(shape) * 0.03).astype(np.float32), name))
        nodes += [h.make_node("MatMul", [cur, f"w1_{i}"], [f"h{i}"]),
                  h.make_node("Relu", [f"h{i}"], [f"r{i}"]),
                  h.make_node("MatMul", [f"r{i}", f"w2_{i}"], [f"o{i}"]),
                  h.make_node("Add", [f"o{i}", cur], [f"y{i}"])]
        cur = f"y{i}"
    nodes[-1].output[0] = "y"
    g = h.make_graph(nodes, "mlp_stack",
                     [h.make_tensor_value_info("x", T.FLOAT, [1, 768])],
                     [h.make_tensor_value_info("y", T.FLOAT, [1, 768])],
                     inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 21)])
    m.ir_version = 10
    onnx.save(m, str(work / "float.onnx"))
    opt = os.path.join(a.bin, "amk-opt")
    for name, options in (("w8", ""), ("w4", "{bits=4}")):
        subprocess.run([opt, str(work / "float.onnx"),
                        "--pass-pipeline=builtin.module(amk-quantize-weights"
                        f"{options})", "-o", str(work / f"{name}.onnx")],
                       check=True)
    sizes = {}
    for name in ("float", "w8", "w4"):
        mm = onnx.load(str(work / f"{name}.onnx"))
        sizes[name] = sum(len(t.raw_data) or
                          4 * int(np.prod(t.dims)) for t in mm.graph.initializer)
    json.dump(sizes, open(work / "weights.json", "w"))


if __name__ == "__main__":
    main()
