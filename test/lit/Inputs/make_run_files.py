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
