#!/usr/bin/env python3
"""GFLOP/s of each convolution and GEMM shape in an `amk-run --trace` run,
for the per-layer figures of docs/runtime.md (thirtieth session): node spans
from the trace, FLOPs from the ONNX model's inferred shapes, summed over
the nodes of one weight shape and output plane.

Usage: layer_gflops.py MODEL.onnx TRACE.json
MODEL must have static shapes (the batch the trace ran), e.g. a torchvision
export with its batch dimension set to 1.
"""
import collections
import json
import sys

import numpy as np
import onnx
from onnx import shape_inference


def main():
    model = shape_inference.infer_shapes(onnx.load(sys.argv[1]))
    g = model.graph
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in list(g.value_info) + list(g.output) + list(g.input)}
    shapes.update({i.name: list(i.dims) for i in g.initializer})
    flops = {}
    for n in g.node:
        if n.op_type not in ("Conv", "Gemm", "MatMul"):
            continue
        w, y = shapes[n.input[1]], shapes.get(n.output[0])
        if n.op_type == "Conv":
            flops[n.name] = (2 * np.prod(y) * np.prod(w[1:]),
                             "x".join(map(str, w)), "x".join(map(str, y[2:])))
        else:
            flops[n.name] = (2 * np.prod(y) * w[0], "x".join(map(str, w)), "")
    spans = collections.Counter()
    for e in json.load(open(sys.argv[2]))["traceEvents"]:
        if e.get("ph") == "X" and e["name"] != "wait":
            spans[e["name"]] += e["dur"]
    by = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for name, us in spans.items():
        if name in flops:
            f, w, o = flops[name]
            s = by[(w, o)]
            s[0] += f
            s[1] += us
            s[2] += 1
    print("total us %.0f" % sum(spans.values()))
    for (w, o), (f, us, c) in sorted(by.items(), key=lambda kv: -kv[1][1]):
        print("%-18s %-8s n=%2d %8.0f us %6.1f GFLOP/s" % (w, o, c, us, f / us / 1e3))


if __name__ == "__main__":
    main()
