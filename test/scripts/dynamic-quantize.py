#!/usr/bin/python3
"""Quantizes a float model the way ONNX Runtime's quantize_dynamic does.

Every MatMul whose second input is a 2-D float initializer becomes
  x -> DynamicQuantizeLinear -> (x_q, x_scale, x_zero_point)
  MatMulInteger(x_q, W_q, x_zero_point, W_zero_point) -> int32
  Cast(float) -> Mul(x_scale * W_scale)
with W quantized symmetrically to int8 per tensor (ORT's default for
dynamic quantization), so AMK and ONNX Runtime can be measured on the
same dynamically quantized file (scripts/bench-runtime.sh). One
DynamicQuantizeLinear per activation, shared by the MatMuls that read it.

Usage: dynamic-quantize.py IN.onnx OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def main():
    m = onnx.load(sys.argv[1])
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    quantized = {}  # activation -> (q, scale, zero point)
    out_nodes, count = [], 0
    for n in g.node:
        w = inits.get(n.input[1]) if n.op_type == "MatMul" else None
        if w is None or len(w.dims) != 2 or w.data_type != T.FLOAT:
            out_nodes.append(n)
            continue
        wf = nh.to_array(w)
        scale = max(float(np.abs(wf).max()), 1e-12) / 127.0
        wq = np.clip(np.round(wf / scale), -127, 127).astype(np.int8)
        base = n.name.replace("/", "_").strip("_") or f"mm{count}"
        g.initializer.extend([
            nh.from_array(wq, base + "_Wq"),
            nh.from_array(np.array(scale, np.float32), base + "_Ws"),
            nh.from_array(np.array(0, np.int8), base + "_Wz")])
        x = n.input[0]
        if x not in quantized:
            q = (x + "_dq_q", x + "_dq_scale", x + "_dq_zp")
            out_nodes.append(h.make_node("DynamicQuantizeLinear", [x],
                                         list(q), name=base + "_dql"))
            quantized[x] = q
        q = quantized[x]
        out_nodes += [
            h.make_node("MatMulInteger", [q[0], base + "_Wq", q[2],
                                          base + "_Wz"], [base + "_acc"],
                        name=base + "_mmi"),
            h.make_node("Cast", [base + "_acc"], [base + "_accf"], to=T.FLOAT,
                        name=base + "_cast"),
            h.make_node("Mul", [q[1], base + "_Ws"], [base + "_s"],
                        name=base + "_scale"),
            h.make_node("Mul", [base + "_accf", base + "_s"], [n.output[0]],
                        name=base + "_out")]
        count += 1
    del g.node[:]
    g.node.extend(out_nodes)
    used = {i for n in g.node for i in n.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    onnx.save(m, sys.argv[2])
    print(f"dynamic-quantize: {count} MatMuls quantized dynamically")


if __name__ == "__main__":
    main()
