#!/usr/bin/python3
"""Prints the structure of a binary ONNX model for FileCheck: inputs,
outputs, initializers (with their data location) and nodes."""
import sys

import onnx

m = onnx.load(sys.argv[1], load_external_data=False)
g = m.graph
print('opsets:', ' '.join(f'{o.domain or "ai.onnx"}={o.version}'
                          for o in m.opset_import))
print('inputs:', ' '.join(i.name for i in g.input))
print('outputs:', ' '.join(o.name for o in g.output))
print('initializers:', ' '.join(t.name for t in g.initializer))
for t in g.initializer:
    if t.data_location == onnx.TensorProto.EXTERNAL:
        kv = {e.key: e.value for e in t.external_data}
        print(f'external: {t.name} {kv.get("location")} '
              f'offset={kv.get("offset")} length={kv.get("length")}')
for n in g.node:
    print(f'node: {n.name!r} {n.domain + "." if n.domain else ""}{n.op_type}'
          f'({", ".join(n.input)}) -> ({", ".join(n.output)})')
