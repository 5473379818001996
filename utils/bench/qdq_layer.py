#!/usr/bin/python3
"""Writes one QDQ convolution layer (batch 2, ONNX Runtime's quantizer
layout, Relu) with test/scripts/check-qdq-kernels.py's `conv_model`, for
timing single integer layers (docs/runtime.md, twentieth session).

Usage: qdq_layer.py OUT.onnx C OC H W K [STRIDE] [GROUP]
e.g.   qdq_layer.py /tmp/dw56.onnx 144 144 56 56 3 1 144
"""
import importlib.util
import pathlib
import sys

script = (pathlib.Path(__file__).resolve().parents[2] / "test" / "scripts" /
          "check-qdq-kernels.py")
spec = importlib.util.spec_from_file_location("check_qdq_kernels", script)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)

out, c, oc, h, w, k = sys.argv[1], *map(int, sys.argv[2:7])
stride = int(sys.argv[7]) if len(sys.argv) > 7 else 1
group = int(sys.argv[8]) if len(sys.argv) > 8 else 1
module.conv_model(out, c, oc, h, w, k, stride=stride, group=group)
