#!/usr/bin/python3
"""Quantization accuracy over the zoo (docs/quantization.md).

For each model: a calibration set of seeded inputs written as .npy files
(a real data directory, not amk-calibrate's synthetic mode), then
  amk-opt MODEL --pass-pipeline=builtin.module(amk-calibrate{data-dir=...},
                                               amk-insert-qdq)
which writes the QDQ model as .onnx, and on held-out seeded inputs:
  - float model on the reference interpreter vs QDQ model on the reference
    interpreter: cosine of the outputs, top-1 agreement;
  - QDQ model on the reference interpreter vs the same QDQ .onnx in ONNX
    Runtime: cosine, top-1 agreement (ORT must load and run it);
  - QDQ model on the reference interpreter vs on AMK's runtime
    (amk-emulate-qdq, amk-graph-opt, 2 workers: the float kernels);
  - the same on the integer kernels (amk-graph-opt alone, whose
    amk-lower-qdq turns the quantized convolutions into amk.qconv).
Floors (the CNNs: int8 per-channel weights, uint8 activations): cosine
>= 0.99 and top-1 agreement >= 98% against float; the interpreter and ORT
agree to cosine >= 0.999, the runtime and the interpreter to >= 0.9999
(float and integer kernels; on the integer kernels a requantized value may
differ by one step where the float sum lands on a rounding tie). Writes a Markdown table and a JSON file.

Usage: check-qdq-zoo.py BIN_DIR OUT_DIR MODEL.onnx[:floors] ...
         [--calib N] [--eval N] [--pipeline-prefix P] [--markdown FILE]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import onnx

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
DTYPES = {1: np.float32, 7: np.int64, 6: np.int32, 9: np.bool_}


def inputs_of(model_path):
    m = onnx.load(model_path, load_external_data=False)
    init = {t.name for t in m.graph.initializer}
    out = []
    for i in m.graph.input:
        if i.name in init:
            continue
        tt = i.type.tensor_type
        dims = [d.dim_value for d in tt.shape.dim]
        out.append((i.name, tt.elem_type, dims))
    return out


def make_sample(inputs, seed, directory):
    rng = np.random.default_rng(seed)
    directory.mkdir(parents=True, exist_ok=True)
    for name, et, dims in inputs:
        if et == 1:
            x = rng.standard_normal(dims).astype(np.float32)
        else:
            x = rng.integers(0, 10, size=dims).astype(DTYPES[et])
        np.save(directory / f"{name}.npy", x)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))}\n{r.stdout}{r.stderr}")
    return r.stdout


def first_output(directory):
    files = sorted(pathlib.Path(directory).glob("*.npy"))
    return np.load(files[0]).astype(np.float64).ravel()


def ort_run(model, inputs, sample_dir, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    req = {"model": str(model), "outDir": str(out_dir), "threads": 1,
           "inputs": []}
    for name, et, dims in inputs:
        x = np.load(sample_dir / f"{name}.npy")
        raw = out_dir / f"in_{len(req['inputs'])}.bin"
        x.tofile(raw)
        req["inputs"].append({"name": name, "dtype": {1: "float", 7: "int64",
                              6: "int32", 9: "bool"}[et], "dims": dims,
                              "file": str(raw)})
    (out_dir / "request.json").write_text(json.dumps(req))
    run(["node", str(ROOT / "scripts/ort/run.js"), str(out_dir / "request.json")])
    res = json.loads((out_dir / "result.json").read_text())
    if "error" in res:
        raise RuntimeError("ONNX Runtime: " + res["error"])
    o = res["outputs"][0]
    return np.fromfile(o["file"], dtype=np.float32).astype(np.float64)


def cosine(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 1.0 if na == nb else 0.0
    return float(np.dot(a, b) / (na * nb))


RUNTIME_PIPELINE = "builtin.module(amk-emulate-qdq,amk-graph-opt)"
INTEGER_PIPELINE = "builtin.module(amk-graph-opt)"

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("out")
    ap.add_argument("models", nargs="+",
                    help="MODEL.onnx; MODEL.onnx:floors enforces every floor, "
                         "MODEL.onnx:cosine all but top-1")
    ap.add_argument("--calib", type=int, default=16)
    ap.add_argument("--eval", type=int, default=50)
    ap.add_argument("--options", default="",
                    help="extra amk-calibrate options, e.g. method=entropy")
    ap.add_argument("--prefix", default="",
                    help="passes before amk-calibrate, e.g. amk-normalize-opset{target-opset=21},")
    ap.add_argument("--qdq-options", default="",
                    help="extra amk-insert-qdq options, e.g. activation-type=int8")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    amk_opt = os.path.join(args.bin, "amk-opt")
    amk_run = os.path.join(args.bin, "amk-run")
    rows, failed = [], []
    for spec in args.models:
        path, _, floors = spec.partition(":")
        name = pathlib.Path(path).stem
        work = out / name
        inputs = inputs_of(path)
        calib = work / "calib"
        for k in range(args.calib):
            make_sample(inputs, 100 + k, calib / f"sample_{k:03d}")
        qdq = work / f"{name}_qdq.onnx"
        opts = f"data-dir={calib} report={work / 'calibration.json'}"
        if args.options:
            opts += " " + args.options
        qopts = f"report={work / 'qdq.json'}"
        if args.qdq_options:
            qopts += " " + args.qdq_options
        pipeline = (f"builtin.module({args.prefix}amk-calibrate{{{opts}}},"
                    f"amk-insert-qdq{{{qopts}}})")
        t0 = time.time()
        run([amk_opt, path, f"--pass-pipeline={pipeline}", "-o", str(qdq)])
        quant_s = time.time() - t0
        qrep = json.loads((work / "qdq.json").read_text())
        cos_f, top_f, cos_o, top_o, cos_r, top_r = [], [], [], [], [], []
        cos_i, top_i = [], []
        for k in range(args.eval):
            s = work / "eval" / f"sample_{k:03d}"
            make_sample(inputs, 10000 + k, s)
            run([amk_run, path, "--reference", "--input-dir", str(s),
                 "--output-dir", str(s / "float")])
            run([amk_run, str(qdq), "--reference", "--input-dir", str(s),
                 "--output-dir", str(s / "qdq")])
            f = first_output(s / "float")
            q = first_output(s / "qdq")
            o = ort_run(qdq, inputs, s, s / "ort")
            # The QDQ model on AMK's runtime: amk-emulate-qdq, then the
            # graph passes and the schedule (2 workers).
            run([amk_run, str(qdq), "--threads", "2", "--input-dir", str(s),
                 "--pipeline", RUNTIME_PIPELINE, "--output-dir", str(s / "runtime")])
            r = first_output(s / "runtime")
            run([amk_run, str(qdq), "--threads", "2", "--input-dir", str(s),
                 "--pipeline", INTEGER_PIPELINE, "--output-dir", str(s / "integer")])
            i = first_output(s / "integer")
            cos_i.append(cosine(q, i))
            top_i.append(int(np.argmax(q) == np.argmax(i)))
            cos_r.append(cosine(q, r))
            top_r.append(int(np.argmax(q) == np.argmax(r)))
            cos_f.append(cosine(f, q))
            top_f.append(int(np.argmax(f) == np.argmax(q)))
            cos_o.append(cosine(q, o))
            top_o.append(int(np.argmax(q) == np.argmax(o)))
        row = {
            "model": name,
            "activation_pairs": len([a for a in qrep["activations"]]),
            "weights": len(qrep["weights"]),
            "calibration_samples": args.calib,
            "eval_samples": args.eval,
            "cosine_vs_float_mean": float(np.mean(cos_f)),
            "cosine_vs_float_min": float(np.min(cos_f)),
            "top1_vs_float": float(np.mean(top_f)),
            "cosine_interp_vs_ort_min": float(np.min(cos_o)),
            "top1_interp_vs_ort": float(np.mean(top_o)),
            "cosine_runtime_vs_interp_min": float(np.min(cos_r)),
            "top1_runtime_vs_interp": float(np.mean(top_r)),
            "cosine_integer_vs_interp_min": float(np.min(cos_i)),
            "top1_integer_vs_interp": float(np.mean(top_i)),
            "quantize_seconds": quant_s,
            "floors": bool(floors),
        }
        ok = True
        if floors:
            ok = (row["cosine_vs_float_min"] >= 0.99 and
                  row["cosine_interp_vs_ort_min"] >= 0.999 and
                  row["cosine_runtime_vs_interp_min"] >= 0.9999 and
                  row["cosine_integer_vs_interp_min"] >= 0.9999)
            if floors == "floors":
                ok = ok and row["top1_vs_float"] >= 0.98
            if not ok:
                failed.append(name)
        row["ok"] = ok
        row["enforced"] = floors or "none"
        rows.append(row)
        print(f"qdq {name}: cosine vs float mean {row['cosine_vs_float_mean']:.5f} "
              f"min {row['cosine_vs_float_min']:.5f}, top-1 {100*row['top1_vs_float']:.1f}%, "
              f"interp vs ORT cosine min {row['cosine_interp_vs_ort_min']:.6f}, "
              f"top-1 {100*row['top1_interp_vs_ort']:.1f}%, "
              f"runtime vs interp cosine min {row['cosine_runtime_vs_interp_min']:.7f}, "
              f"top-1 {100*row['top1_runtime_vs_interp']:.1f}%, "
              f"integer kernels vs interp cosine min {row['cosine_integer_vs_interp_min']:.7f}, "
              f"top-1 {100*row['top1_integer_vs_interp']:.1f}%"
              + ("" if not floors else (f" ({floors}) ok" if ok else f" ({floors}) BELOW FLOOR")), flush=True)
    (out / "qdq-zoo.json").write_text(json.dumps(rows, indent=2))
    if args.markdown:
        lines = ["| model | Q/DQ pairs | weights | cosine vs float (mean / min) "
                 "| top-1 vs float | interpreter vs ORT (cosine min / top-1) "
                 "| AMK runtime vs interpreter (cosine min / top-1) "
                 "| AMK integer kernels vs interpreter (cosine min / top-1) |",
                 "|---|---|---|---|---|---|---|---|"]
        for r in rows:
            lines.append(
                f"| {r['model']} | {r['activation_pairs']} | {r['weights']} | "
                f"{r['cosine_vs_float_mean']:.5f} / {r['cosine_vs_float_min']:.5f} | "
                f"{100*r['top1_vs_float']:.1f}% | "
                f"{r['cosine_interp_vs_ort_min']:.6f} / {100*r['top1_interp_vs_ort']:.1f}% | "
                f"{r['cosine_runtime_vs_interp_min']:.7f} / {100*r['top1_runtime_vs_interp']:.1f}% | "
                f"{r['cosine_integer_vs_interp_min']:.7f} / {100*r['top1_integer_vs_interp']:.1f}% |")
        pathlib.Path(args.markdown).write_text("\n".join(lines) + "\n")
    print(f"qdq-zoo: {len(rows) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
