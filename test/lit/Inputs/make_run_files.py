#!/usr/bin/python3
"""Writes inputs and expected outputs for test/lit/tools/amk-run.test."""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

d = sys.argv[1]
x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
y = np.array([[0.5, 0.5, 0.5], [1, 1, 1]], np.float32)
z = np.maximum(x + y, 0)
np.save(os.path.join(d, 'in', 'x.npy'), x)
onnx.save_tensor(numpy_helper.from_array(y, 'y'), os.path.join(d, 'in', 'y.pb'))
onnx.save_tensor(numpy_helper.from_array(z, 'z'),
                 os.path.join(d, 'expected', 'output_0.pb'))
wrong = z.copy()
wrong[1, 1] = 7
np.save(os.path.join(d, 'wrong', 'z.npy'), wrong)
np.save(os.path.join(d, 'wrong', 'shape.npy'), x.T.copy())
np.save(os.path.join(d, 'wrong', 'int.npy'), x.astype(np.int64))
with open(os.path.join(d, 'wrong', 'garbage.pb'), 'wb') as f:
    f.write(b'\xff\xff\xff not a tensor')

# quantize_u8.onnxtxt: QuantizeLinear's 8-bit output may be one step from
# the reference's; the Cast's must match exactly.
os.makedirs(os.path.join(d, 'quant'), exist_ok=True)
qx = np.array([1, 2.2, 3, 40], np.float32)
np.save(os.path.join(d, 'quant', 'x.npy'), qx)
q = np.clip(np.rint(qx / 0.5) + 10, 0, 255).astype(np.uint8)
c = qx.astype(np.uint8)
dqv = ((q.astype(np.float32) - 10) * np.float32(0.5)).astype(np.float32)
for name, dq, dc, dd in [('step', 1, 0, 0), ('two', 2, 0, 0),
                         ('cast', 0, 1, 0), ('float', 0, 0, 0.5)]:
    os.makedirs(os.path.join(d, 'quant', name), exist_ok=True)
    qq, cc, ddv = q.copy(), c.copy(), dqv.copy()
    qq[1] += dq
    cc[3] += dc
    ddv[2] += dd
    np.save(os.path.join(d, 'quant', name, 'q.npy'), qq)
    np.save(os.path.join(d, 'quant', name, 'c.npy'), cc)
    np.save(os.path.join(d, 'quant', name, 'd.npy'), ddv)
