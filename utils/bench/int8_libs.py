#!/usr/bin/python3
"""AMK's int8 kernels against libxsmm's and oneDNN's on the zoo's layers,
one thread each (docs/quantization.md, "Library choice").

AMK's side: a one-layer model per layer whose input and output are uint8
(DequantizeLinear -> Conv/MatMul -> [Relu] -> QuantizeLinear: u8
activations with a zero point, s8 weights per channel, bias, requantized
u8 output), so the compiled program is the integer kernel alone. Its time
is `amk-run --threads 1 --bench`'s median latency: the whole run, the task
scheduler's dispatch included, as a library's `execute` includes its own.
Its output is first checked against the exact integer products
requantized in float64 (numpy): at most one step apart, on at most 0.1%
of the elements (AMK requantizes in float32, so a value within float32's
rounding of a half step may round the other way).

The libraries' side: utils/bench/int8_libs.cpp (built here into /tmp),
which checks each library's int32 products against a plain loop before
timing it, and times oneDNN twice: products with per-channel scales only,
and with the work AMK's layer does (zero points of input and output,
bias). Rounds alternate AMK and the libraries; each figure is the median
over ROUNDS of each side's median.

AMK's achieved rate is set against the measured int8 peak of one core
(`amk-runtime-bench peak --threads 1`: the AMX tile loop where the CPU
has AMX, else the vpdpbusd loop), and each table row is followed by how
many of its outputs differ from the exact ones.

Usage: int8_libs.py BIN_DIR [ROUNDS]
       int8_libs.py --models OUT_DIR   (writes each layer's u8 model,
                                        layer<i>.onnx, and its input x<i>.npy)
"""
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

ROOT = pathlib.Path(__file__).resolve().parents[2]

# (name, kind, shape): conv (C, OC, H, W, K, stride) at batch 2; gemm
# (M, K, N).
LAYERS = [
    ("ResNet-18 3x3 56x56x64", "conv", (64, 64, 56, 56, 3, 1)),
    ("ResNet-18 3x3 28x28x128", "conv", (128, 128, 28, 28, 3, 1)),
    ("ResNet-18 3x3 14x14x256", "conv", (256, 256, 14, 14, 3, 1)),
    ("ResNet-18 3x3 7x7x512", "conv", (512, 512, 7, 7, 3, 1)),
    ("MobileNetV2 1x1 56x56 24->144", "conv", (24, 144, 56, 56, 1, 1)),
    ("BERT-like 128x256 x 256x256", "gemm", (128, 256, 256)),
    ("BERT-like 128x256 x 256x1024", "gemm", (128, 256, 1024)),
    ("BERT-like 128x1024 x 1024x256", "gemm", (128, 1024, 256)),
]

# The zero points int8_libs.cpp gives oneDNN's same-work primitives.
GEMM_ZP = (130, 100)
CONV_ZP = (120, 10)
LATENCY = re.compile(r"latency over \d+ runs: min [\d.]+ ms, median ([\d.]+)")


def layer_model(path, kind, shape, rng):
    """The layer as a u8 -> u8 QDQ model; returns (input, expected)."""
    xs, ys = np.float32(0.02), np.float32(0.05)
    xz, yz = CONV_ZP if kind == "conv" else GEMM_ZP
    if kind == "conv":
        C, OC, H, W, K, s = shape
        x = rng.integers(0, 256, size=(2, C, H, W)).astype(np.uint8)
        w = rng.integers(-127, 128, size=(OC, C, K, K)).astype(np.int8)
        axis, nout = 0, OC
    else:
        M, K, N = shape
        x = rng.integers(0, 256, size=(M, K)).astype(np.uint8)
        w = rng.integers(-127, 128, size=(K, N)).astype(np.int8)
        axis, nout = 1, N
    # Scales that keep the outputs mostly inside the 8-bit range.
    fan_in = w.size // nout
    ws = (rng.random(nout) * 0.5 + 0.5).astype(np.float32) * np.float32(
        3.0 / (fan_in ** 0.5 * 64))
    b = rng.normal(size=nout).astype(np.float32)
    inits = [nh.from_array(np.array(xs), "xs"),
             nh.from_array(np.array(xz, np.uint8), "xz"),
             nh.from_array(w, "w"), nh.from_array(ws, "ws"),
             nh.from_array(np.zeros(nout, np.int8), "wz"),
             nh.from_array(b, "b"), nh.from_array(np.array(ys), "ys"),
             nh.from_array(np.array(yz, np.uint8), "yz")]
    nodes = [h.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xd"]),
             h.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"],
                         axis=axis)]
    xi = x.astype(np.int64) - xz
    if kind == "conv":
        nodes += [h.make_node("Conv", ["xd", "wd", "b"], ["c"],
                              kernel_shape=[K, K], strides=[s, s],
                              pads=[K // 2] * 4),
                  h.make_node("Relu", ["c"], ["r"])]
        p = K // 2
        xp = np.pad(xi, ((0, 0), (0, 0), (p, p), (p, p)))
        OH, OW = (H + 2 * p - K) // s + 1, (W + 2 * p - K) // s + 1
        acc = np.zeros((2, OC, OH, OW), np.int64)
        for ky in range(K):
            for kx in range(K):
                win = xp[:, :, ky:ky + s * OH:s, kx:kx + s * OW:s]
                acc += np.einsum("nchw,oc->nohw", win,
                                 w[:, :, ky, kx].astype(np.int64))
        v = acc * (np.float64(xs) * ws.astype(np.float64))[:, None, None] \
            + b.astype(np.float64)[:, None, None]
        v = np.maximum(v, 0)
        out_shape = [2, OC, OH, OW]
    else:
        nodes += [h.make_node("MatMul", ["xd", "wd"], ["m"]),
                  h.make_node("Add", ["m", "b"], ["r"])]
        acc = xi @ w.astype(np.int64)
        v = acc * (np.float64(xs) * ws.astype(np.float64)) + b
        out_shape = [M, N]
    nodes.append(h.make_node("QuantizeLinear", ["r", "ys", "yz"], ["y"]))
    g = h.make_graph(nodes, "layer",
                     [h.make_tensor_value_info("x", T.UINT8, list(x.shape))],
                     [h.make_tensor_value_info("y", T.UINT8, out_shape)],
                     inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
    expected = np.clip(np.rint(v / np.float64(ys)) + yz, 0, 255)
    return x, expected.astype(np.int64)


def check(amk, model, x_file, expected, tmp):
    out = os.path.join(tmp, "out")
    subprocess.run([amk, model, "--threads", "1", "--input",
                    f"x={x_file}", "--output-dir", out, "--output-format",
                    "npy"], check=True, capture_output=True)
    got = np.load(os.path.join(out, "y.npy")).astype(np.int64)
    diff = np.abs(got - expected)
    if diff.max() > 1 or np.count_nonzero(diff) > expected.size // 1000:
        sys.exit(f"{model}: AMK's output is off: max {diff.max()} steps, "
                 f"{np.count_nonzero(diff)} of {expected.size} differ")
    return np.count_nonzero(diff), expected.size


def write_models(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    for i, (name, kind, shape) in enumerate(LAYERS):
        x, _ = layer_model(os.path.join(out, f"layer{i}.onnx"), kind, shape,
                           rng)
        np.save(os.path.join(out, f"x{i}.npy"), x)
        print(f"layer{i}.onnx: {name}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--models":
        return write_models(sys.argv[2])
    amk = str(pathlib.Path(sys.argv[1]) / "amk-run")
    peak = json.loads(subprocess.run(
        [str(pathlib.Path(sys.argv[1]) / "amk-runtime-bench"), "peak",
         "--threads", "1"], check=True, capture_output=True,
        text=True).stdout)
    peak_name, peak_gmacs = (("AMX", peak["amx_int8_gmacs"])
                             if peak.get("amx_int8_gmacs", 0) > 0 else
                             (peak["int8_path"], peak["int8_gmacs"]))
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    tool = "/tmp/int8_libs"
    subprocess.run(["c++", "-O2", "-march=native", "-o", tool,
                    str(ROOT / "utils/bench/int8_libs.cpp"), "-lxsmm",
                    "-lxsmmnoblas", "-ldnnl", "-lpthread", "-lm", "-ldl"],
                   check=True)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    print(f"int8 peak of one core ({peak_name}): {peak_gmacs:.0f} GMAC/s")
    print("| layer | GMAC | AMK ms | AMK GMAC/s (% of peak) | libxsmm ms "
          "(int32 out) | oneDNN ms | oneDNN with AMK's work ms | oneDNN "
          "NCHW<->NHWC reorders ms | fastest | fastest in AMK's NCHW |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    exact = []
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        for name, kind, shape in LAYERS:
            model = os.path.join(tmp, "layer.onnx")
            x_file = os.path.join(tmp, "x.npy")
            x, expected = layer_model(model, kind, shape, rng)
            np.save(x_file, x)
            exact.append((name, *check(amk, model, x_file, expected, tmp)))
            if kind == "conv":
                C, OC, H, W, K, s = shape
                OH, OW = (H + 2 * (K // 2) - K) // s + 1, \
                    (W + 2 * (K // 2) - K) // s + 1
                macs = 2 * OH * OW * OC * C * K * K
                lib_args = ["conv", "2", str(C), str(H), str(W), str(OC),
                            str(K), str(s), "20"]
            else:
                M, K, N = shape
                macs = M * K * N
                lib_args = ["gemm", str(M), str(K), str(N), "20"]
            amk_ms, libs = [], {}
            for _ in range(rounds):
                out = subprocess.run([amk, model, "--threads", "1",
                                      "--input", f"x={x_file}", "--bench",
                                      "--iters", "50", "--warmup", "10"],
                                     check=True, capture_output=True,
                                     text=True).stdout
                amk_ms.append(float(LATENCY.search(out).group(1)))
                out = subprocess.run([tool] + lib_args, env=env, check=True,
                                     capture_output=True, text=True).stdout
                for line in out.splitlines():
                    r = json.loads(line)
                    if r["check"] != "ok":
                        sys.exit(f"{r['lib']} {name}: wrong products")
                    libs.setdefault(r["lib"], []).append(r)
            a = statistics.median(amk_ms)

            def med(lib, key="ms"):
                return (statistics.median(r[key] for r in libs[lib])
                        if lib in libs else None)
            x_ms, d, full = med("libxsmm"), med("onednn"), \
                med("onednn_same_work")
            ro = (med("onednn", "reorder_ms")
                  if "reorder_ms" in libs["onednn"][0] else None)
            dw = full if full is not None else d
            best = min([("AMK", a), ("oneDNN", dw)] +
                       ([("libxsmm", x_ms)] if x_ms else []),
                       key=lambda t: t[1])
            # With AMK's NCHW activations a oneDNN convolution also pays
            # its two reorders.
            nchw = min([("AMK", a), ("oneDNN", dw + (ro or 0))] +
                       ([("libxsmm", x_ms)] if x_ms else []),
                       key=lambda t: t[1])

            def f(v):
                return "-" if v is None else f"{v:.3f}"
            rate = macs / a / 1e6
            print(f"| {name} | {macs / 1e9:.3f} | {a:.3f} | {rate:.0f} "
                  f"({100 * rate / peak_gmacs:.0f}%) | {f(x_ms)} | {f(d)} | "
                  f"{f(full)} | {f(ro)} | {best[0]} | {nchw[0]} |",
                  flush=True)
    for name, off, n in exact:
        print(f"{name}: {off} of {n} outputs one step from the exact "
              "products requantized in float64")


if __name__ == "__main__":
    main()
