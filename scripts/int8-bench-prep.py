#!/usr/bin/python3
"""Prepares a model for the integer part of scripts/bench-runtime.sh.

Writes into WORK:
  calib/sample_NNN/<input>.npy  seeded calibration samples (image inputs
      standard normal; token ids below the zoo's vocabulary, all-ones
      masks), for amk-run --precision int8 --calibration-data;
  qdq.onnx  the model quantized as ONNX Runtime's static quantizer lays it
      out: BatchNormalization folded into the convolutions
      (amk-fuse-conv{fuse-epilogue=false}), calibrated and Q/DQ-inserted by
      amk-calibrate/amk-insert-qdq, then each Relu after a quantized node
      absorbed by its QuantizeLinear (test/scripts/qdq-ort-layout.py). AMK
      and ONNX Runtime both run this one file;
  dynamic.onnx  (models with MatMuls of constant weights) the model as
      ONNX Runtime's quantize_dynamic writes it
      (test/scripts/dynamic-quantize.py): DynamicQuantizeLinear ->
      MatMulInteger -> Cast -> Mul.

Usage: int8-bench-prep.py BIN_DIR MODEL.onnx WORK [--samples N]
"""
import argparse
import os
import pathlib
import subprocess
import sys

import numpy as np
import onnx

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("model")
    ap.add_argument("work")
    ap.add_argument("--samples", type=int, default=8)
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    m = onnx.load(a.model, load_external_data=False)
    init = {t.name for t in m.graph.initializer}
    ints = {onnx.TensorProto.INT64: np.int64, onnx.TensorProto.INT32: np.int32}
    r = np.random.default_rng(2024)
    for k in range(a.samples):
        d = work / "calib" / f"sample_{k:03d}"
        d.mkdir(parents=True, exist_ok=True)
        for i in m.graph.input:
            if i.name in init:
                continue
            tt = i.type.tensor_type
            shape = [x.dim_value for x in tt.shape.dim]
            if tt.elem_type in ints:
                v = (np.ones(shape, ints[tt.elem_type]) if "mask" in i.name
                     else r.integers(0, 8192, shape, dtype=ints[tt.elem_type]))
            else:
                v = r.standard_normal(shape).astype(np.float32)
            np.save(d / f"{i.name}.npy", v)
    raw = work / "qdq_raw.onnx"
    pipeline = ("builtin.module(amk-normalize-opset,amk-infer-shapes,"
                "canonicalize,amk-fold-constants,"
                "amk-fuse-conv{fold-bn=true fuse-epilogue=false},canonicalize,"
                f"amk-calibrate{{data-dir={work / 'calib'}}},amk-insert-qdq)")
    subprocess.run([os.path.join(a.bin, "amk-opt"), a.model,
                    f"--pass-pipeline={pipeline}", "-o", str(raw)], check=True)
    subprocess.run([sys.executable, str(ROOT / "test/scripts/qdq-ort-layout.py"),
                    str(raw), str(work / "qdq.onnx")], check=True)
    has_matmul = any(n.op_type == "MatMul" and len(n.input) > 1 and
                     n.input[1] in init for n in m.graph.node)
    if has_matmul:
        folded = work / "folded.onnx"
        subprocess.run([os.path.join(a.bin, "amk-opt"), a.model,
                        "--pass-pipeline=builtin.module(amk-normalize-opset,"
                        "amk-infer-shapes,canonicalize,amk-fold-constants)",
                        "-o", str(folded)], check=True)
        subprocess.run([sys.executable,
                        str(ROOT / "test/scripts/dynamic-quantize.py"),
                        str(folded), str(work / "dynamic.onnx")], check=True)


if __name__ == "__main__":
    main()
