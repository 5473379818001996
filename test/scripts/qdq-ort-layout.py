#!/usr/bin/python3
"""Rewrite a QDQ model into ONNX Runtime's quantizer layout.

ONNX Runtime's static quantizer (QDQ format) drops a Relu that follows a
quantized node and quantizes the node's output with the Relu's range
instead: with zero point 0, QuantizeLinear's saturation at 0 is the Relu.
amk-insert-qdq keeps the Relu and a Q/DQ pair on each side of it. This
script applies ORT's rule so AMK and ORT can be measured on the same file
in the layout ORT users bring (docs/quantization.md):

  Conv -> Q1 -> DQ1 -> Relu -> Q2 -> DQ2   (Q2's zero point 0)
      becomes Conv -> Q2 -> DQ2;
  Conv -> Q1 -> DQ1 -> Relu (read by something else)
      becomes Conv -> Q1' -> DQ1' with Q1's range cut at 0: zero point 0,
      scale (qmax - z1) * s1 / qmax;
  Conv -> Q1 -> DQ1 -> Clip(0, hi) -> Q2 -> DQ2   (Q2's zero point 0 and
      255 * s2 <= hi, so Q2's saturation is the Clip) becomes
      Conv -> Q2 -> DQ2 (ReLU6 in MobileNets).

Usage: qdq-ort-layout.py IN.onnx OUT.onnx   (prints what it rewrote)
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    src, dst = sys.argv[1], sys.argv[2]
    m = onnx.load(src)
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    users = {}
    for n in g.node:
        for i in n.input:
            users.setdefault(i, []).append(n)
    producer = {o: n for n in g.node for o in n.output}
    outputs = {o.name for o in g.output}
    drop = set()
    rename = {}  # value name -> replacement
    merged = cut = 0

    def only_user(name, op):
        u = users.get(name, [])
        if len(u) == 1 and u[0].op_type == op and name not in outputs:
            return u[0]
        return None

    def scalar(name):
        return numpy_helper.to_array(inits[name])

    for conv in g.node:
        if conv.op_type not in ("Conv", "Gemm", "MatMul"):
            continue
        q1 = only_user(conv.output[0], "QuantizeLinear")
        if not q1:
            continue
        dq1 = only_user(q1.output[0], "DequantizeLinear")
        if not dq1:
            continue
        relu = only_user(dq1.output[0], "Relu")
        clip = only_user(dq1.output[0], "Clip")
        if clip and len(clip.input) >= 3 and clip.input[1] in inits and \
                clip.input[2] in inits:
            lo_c = float(numpy_helper.to_array(inits[clip.input[1]]))
            hi_c = float(numpy_helper.to_array(inits[clip.input[2]]))
            q2 = only_user(clip.output[0], "QuantizeLinear")
            if (q2 and len(q2.input) > 2 and lo_c == 0 and
                    scalar(q2.input[2]) == 0 and
                    scalar(q2.input[2]).dtype == np.uint8 and
                    255 * float(scalar(q2.input[1])) <= hi_c * (1 + 1e-6)):
                q2.input[0] = conv.output[0]
                drop.update({id(q1), id(dq1), id(clip)})
                merged += 1
            continue
        if not relu:
            continue
        z1 = scalar(q1.input[2])
        if z1.dtype != np.uint8:
            continue
        q2 = only_user(relu.output[0], "QuantizeLinear")
        if q2 and len(q2.input) > 2 and scalar(q2.input[2]) == 0:
            # Conv -> Q2: Q2 saturating at its zero point 0 is the Relu.
            q2.input[0] = conv.output[0]
            drop.update({id(q1), id(dq1), id(relu)})
            merged += 1
            continue
        # Cut Q1's range at 0 and drop the Relu.
        s1 = float(scalar(q1.input[1]))
        s = np.array((255.0 - float(z1)) * s1 / 255.0, dtype=np.float32)
        sname, zname = q1.output[0] + "_relu_scale", q1.output[0] + "_relu_zp"
        g.initializer.extend([numpy_helper.from_array(s, sname),
                              numpy_helper.from_array(np.array(0, np.uint8),
                                                      zname)])
        inits[sname] = g.initializer[-2]
        inits[zname] = g.initializer[-1]
        q1.input[1], q1.input[2] = sname, zname
        dq1.input[1], dq1.input[2] = sname, zname
        rename[relu.output[0]] = dq1.output[0]
        drop.add(id(relu))
        cut += 1
    kept = [n for n in g.node if id(n) not in drop]
    for n in kept:
        for i, name in enumerate(n.input):
            if name in rename:
                n.input[i] = rename[name]
    del g.node[:]
    g.node.extend(kept)
    onnx.save(m, dst)
    print(f"qdq-ort-layout: {merged} Relu/Clip pairs merged into the producer's "
          f"QuantizeLinear, {cut} Relu ranges cut at 0")


if __name__ == "__main__":
    main()
