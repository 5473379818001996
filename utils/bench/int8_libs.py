#!/usr/bin/python3
"""AMK's int8 kernels against libxsmm's and oneDNN's on the zoo's layers,
one thread each (docs/quantization.md, "Library choice").

AMK's side: a one-layer QDQ model per layer (test/scripts/
check-qdq-kernels.py's conv_model / gemm_model: u8 activations, s8 weights
per channel, bias, requantized u8 output), run by `amk-run --threads 1`;
its time is the integer node's span in `--trace` (the median over ROUNDS
runs of the median of 20), so the Q/DQ of the model's float edges is not
counted. The libraries' side: utils/bench/int8_libs.cpp (built here into
/tmp), which checks each library's int32 products against a plain loop
before timing it. Rounds alternate AMK and the libraries.

Usage: int8_libs.py BIN_DIR [ROUNDS]
"""
import importlib.util
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]

# (name, kind, shape): conv (C, OC, H, W, K, stride), batch 2 as
# conv_model writes it; gemm (M, K, N).
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


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bin_dir = pathlib.Path(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    cq = load("cq", ROOT / "test/scripts/check-qdq-kernels.py")
    nm = load("nm", ROOT / "utils/bench/node_medians.py")
    tool = "/tmp/int8_libs"
    subprocess.run(["c++", "-O2", "-march=native", "-o", tool,
                    str(ROOT / "utils/bench/int8_libs.cpp"), "-lxsmm",
                    "-lxsmmnoblas", "-ldnnl", "-lpthread", "-lm", "-ldl"],
                   check=True)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    print("| layer | GMAC | AMK ms | libxsmm ms (int32 out) | oneDNN ms | "
          "oneDNN with AMK's work ms | oneDNN NCHW<->NHWC reorders ms | "
          "fastest | fastest in AMK's NCHW |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, kind, shape in LAYERS:
            model = os.path.join(tmp, "layer.onnx")
            if kind == "conv":
                C, OC, H, W, K, s = shape
                cq.conv_model(model, C, OC, H, W, K, stride=s)
                OH, OW = (H + 2 * (K // 2) - K) // s + 1, \
                    (W + 2 * (K // 2) - K) // s + 1
                macs = 2 * OH * OW * OC * C * K * K
                lib_args = ["conv", "2", str(C), str(H), str(W), str(OC),
                            str(K), str(s), "20"]
            else:
                M, K, N = shape
                cq.gemm_model(model, (M, K), N)
                macs = M * K * N
                lib_args = ["gemm", str(M), str(K), str(N), "20"]
            amk, libs = [], {}
            trace = os.path.join(tmp, "t.json")
            for _ in range(rounds):
                subprocess.run([str(bin_dir / "amk-run"), model, "--threads",
                                "1", "--bench", "--iters", "20", "--warmup",
                                "5", "--seed", "3", "--check-reference",
                                "--min-cosine", "0.999", "--trace", trace],
                               check=True, capture_output=True)
                spans = nm.spans(trace)
                # The model's float edges are the QuantizeLinear of x
                # ("xa_q") and the DequantizeLinear of y ("y_d"); the rest
                # is the integer node.
                amk.append(sum(v for k, v in spans.items()
                               if k not in ("xa_q", "y_d", "END")))
                out = subprocess.run([tool] + lib_args, env=env, check=True,
                                     capture_output=True, text=True).stdout
                for line in out.splitlines():
                    r = json.loads(line)
                    if r["check"] != "ok":
                        sys.exit(f"{r['lib']} {name}: wrong products")
                    libs.setdefault(r["lib"], []).append(r)
            a = statistics.median(amk)
            x = (statistics.median(r["ms"] for r in libs["libxsmm"])
                 if "libxsmm" in libs else None)
            d = statistics.median(r["ms"] for r in libs["onednn"])
            # The same work as AMK's layer (zero points, bias) where the
            # tool times it; the products-and-scales form otherwise.
            full = (statistics.median(r["ms"]
                                      for r in libs["onednn_same_work"])
                    if "onednn_same_work" in libs else None)
            ro = (statistics.median(r["reorder_ms"] for r in libs["onednn"])
                  if "reorder_ms" in libs["onednn"][0] else None)
            dw = full if full is not None else d
            best = min([("AMK", a), ("oneDNN", dw)] +
                       ([("libxsmm", x)] if x else []), key=lambda t: t[1])
            # With AMK's NCHW activations a oneDNN convolution also pays
            # its two reorders.
            nchw = min([("AMK", a), ("oneDNN", dw + (ro or 0))] +
                       ([("libxsmm", x)] if x else []), key=lambda t: t[1])
            print(f"| {name} | {macs / 1e9:.3f} | {a:.3f} | "
                  f"{'-' if x is None else f'{x:.3f}'} | {d:.3f} | "
                  f"{'-' if full is None else f'{full:.3f}'} | "
                  f"{'-' if ro is None else f'{ro:.3f}'} | {best[0]} | "
                  f"{nchw[0]} |", flush=True)


if __name__ == "__main__":
    main()
