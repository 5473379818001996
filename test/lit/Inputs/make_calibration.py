"""Writes the small calibration sets of the quantization lit tests.
Usage: make_calibration.py DIR"""
import pathlib
import sys

import numpy as np

root = pathlib.Path(sys.argv[1])
sets = {
    # Set A: two samples; x spans [0, 3].
    "A/s0": np.array([[0, 1, 2, 3]], np.float32),
    "A/s1": np.array([[0.5, 0.5, 0.5, 0.5]], np.float32),
    # Set B: one sample; x spans [-1, 6].
    "B/s0": np.array([[-1, 0.5, 2, 6]], np.float32),
    # A sample of the wrong shape, one of the wrong type, one all NaN.
    "shape/s0": np.array([[1, 2, 3]], np.float32),
    "dtype/s0": np.array([[1, 2, 3, 4]], np.float64),
    "nan/s0": np.full((1, 4), np.nan, np.float32),
}
for name, x in sets.items():
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    np.save(d / "x.npy", x)
# An empty set and a set whose samples lack the input.
(root / "empty").mkdir(parents=True, exist_ok=True)
(root / "noinput/s0").mkdir(parents=True, exist_ok=True)
np.save(root / "noinput/s0/other.npy", np.zeros((1, 4), np.float32))
