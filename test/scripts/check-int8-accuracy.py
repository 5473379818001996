#!/usr/bin/python3
"""int8 accuracy on trained models against real labels (docs/quantization.md).

For each model test/models/train_digits.py wrote (trained on scikit-learn's
digits): the float model and its int8 compilation (`amk-run --precision
int8 --calibration-data calib/`, amk-calibrate with each method, the
integer kernels) both run on AMK's runtime over the 360 held-out images
in one batch; accuracy against the labels, and the cosine of the int8
logits with the float ones. Floors: int8 accuracy within 1.0 point of
float and cosine >= 0.99, for every model, with each method of
--enforce (default minmax, the default method, percentile and mse). The
others are measured and reported: entropy (TensorRT's KL search) clips
these models' inputs and ReLU outputs far inside their range (the digits'
strokes are the sparse tail of a background-dominated histogram) and
loses most of the accuracy, in the reference interpreter as on the
runtime (docs/quantization.md). Also the sensitivity search
(`--precision mixed --sensitivity-target 30`): its accuracy; and
weight-only int8 (`--precision w8`, bf16 activations in its products,
held to the same floors) beside w8 with float activations (reported).

Usage: check-int8-accuracy.py BIN_DIR DATA_DIR [--methods m1,m2] [--markdown F]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

import numpy as np

MODELS = ["digits_resnet", "digits_mobilenet", "digits_transformer"]


def judge(rows, name, method, kind, labels, f, q, enforced):
    """Appends the row of quantized logits `q` against the float ones `f`
    (the floors: accuracy within 1 point, cosine >= 0.99) and prints it;
    returns whether it is an enforced failure."""
    facc = float((f.argmax(1) == labels).mean())
    qacc = float((q.argmax(1) == labels).mean())
    cos = cosine(f, q)
    ok = qacc >= facc - 0.01 and cos >= 0.99
    rows.append({"model": name, "method": method, "float_accuracy": facc,
                 "int8_accuracy": qacc, "cosine": cos, "ok": ok,
                 "enforced": enforced})
    print(f"int8-accuracy {name} {method}: float {100 * facc:.2f}%, "
          f"{kind} {100 * qacc:.2f}%, cosine {cos:.6f} "
          + ("ok" if ok else "BELOW FLOOR")
          + ("" if enforced else " (reported, not enforced)"), flush=True)
    return enforced and not ok


def logits(amk_run, model, data, out, extra):
    out.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([amk_run, str(model), "--threads", "2", "--input",
                        f"input={data / 'eval_x.npy'}", "--output-dir",
                        str(out), "--output-format", "npy"] + extra,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(" ".join(extra) + ": " + r.stdout + r.stderr)
    return np.load(out / "logits.npy")


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("data")
    ap.add_argument("--methods", default="minmax,percentile,entropy,mse")
    ap.add_argument("--enforce", default="minmax,percentile,mse")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    amk_run = os.path.join(a.bin, "amk-run")
    data = pathlib.Path(a.data)
    labels = np.load(data / "eval_y.npy")
    calib = data / "calib"
    rows, failed = [], 0
    for name in MODELS:
        model = data / f"{name}.onnx"
        work = data / "runs" / name
        f = logits(amk_run, model, data, work / "float", [])
        facc = float((f.argmax(1) == labels).mean())
        for method in a.methods.split(","):
            # A per-method calibration config: amk-quantize reads the
            # method from the calibration's config (docs/quantization.md).
            cfg = work / f"{method}.json"
            cfg.parent.mkdir(parents=True, exist_ok=True)
            cfg.write_text(json.dumps({"method": method}))
            q = logits(amk_run, model, data, work / method,
                       ["--pipeline",
                        "builtin.module(amk-graph-opt,amk-calibrate{"
                        f"config={cfg} data-dir={calib}}},amk-insert-qdq,"
                        "amk-lower-qdq,amk-emulate-qdq,amk-group-elementwise,"
                        "canonicalize,amk-schedule-megakernel{workers=2})"])
            failed += judge(rows, name, method, "int8", labels, f, q,
                            method in a.enforce.split(","))
        # Weight-only int8 (no calibration): the default (bf16 activations
        # in products of 6 rows or more, every product here) is held to
        # the same floors; float activations are reported beside it.
        for label, sub, extra in (
                ("w8 (bf16 activations)", "w8", ["--precision", "w8"]),
                ("w8 (float activations)", "w8-float",
                 ["--pipeline", "builtin.module(amk-graph-opt,amk-quantize{"
                  "precision=w8 activation-bits=0},"
                  "amk-schedule-megakernel{workers=2})"])):
            w = logits(amk_run, model, data, work / sub, extra)
            failed += judge(rows, name, label, "w8", labels, f, w,
                            "bf16" in label)
        m = logits(amk_run, model, data, work / "mixed",
                   ["--precision", "mixed", "--calibration-data", str(calib),
                    "--sensitivity-target", "30"])
        macc = float((m.argmax(1) == labels).mean())
        rows.append({"model": name, "method": "mixed (sensitivity 30 dB)",
                     "float_accuracy": facc, "int8_accuracy": macc,
                     "cosine": cosine(f, m), "ok": True, "enforced": False})
        print(f"int8-accuracy {name} mixed 30 dB: {100 * macc:.2f}%, cosine "
              f"{cosine(f, m):.5f}", flush=True)
    (data / "int8-accuracy.json").write_text(json.dumps(rows, indent=2))
    if a.markdown:
        lines = ["| model | calibration | float accuracy | int8 accuracy | "
                 "cosine (logits) |", "|---|---|---|---|---|"]
        for r in rows:
            lines.append(f"| {r['model']} | {r['method']} | "
                         f"{100 * r['float_accuracy']:.2f}% | "
                         f"{100 * r['int8_accuracy']:.2f}% | "
                         f"{r['cosine']:.5f} |")
        pathlib.Path(a.markdown).write_text("\n".join(lines) + "\n")
    enforced = sum(r["enforced"] for r in rows)
    print(f"int8-accuracy: {enforced - failed} passed, {failed} failed "
          f"({len(rows) - enforced} reported only)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
