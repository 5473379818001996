#!/usr/bin/python3
"""Prepares the decoder part of scripts/bench-runtime.sh (issue 24).

Exports the Llama-style test decoders (utils/zoo/export_decoder.py) into
WORK and writes, per model, seeded inputs for two steps in Optimum's
interface: decode (one new token after a past of PAST tokens) and prefill
(PROMPT tokens, empty past). Token ids are below the vocabulary, masks all
ones, positions consecutive. Also MODEL.weights.json: the weight bytes and
those of tables a token only gathers from (the embedding), for the
bandwidth floor of scripts/bench-runtime.sh.

Usage: decoder-bench-prep.py WORK [--past N] [--prompt N] [model ...]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import onnx

ROOT = pathlib.Path(__file__).resolve().parent.parent


def vocab_of(m):
    return m.graph.output[0].type.tensor_type.shape.dim[2].dim_value


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--past", type=int, default=128)
    ap.add_argument("--prompt", type=int, default=32)
    ap.add_argument("models", nargs="*", default=["llama_15m", "qwen_like"])
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(ROOT / "utils/zoo/export_decoder.py"),
                    str(work)] + a.models, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for name in a.models:
        m = onnx.load(str(work / f"{name}.onnx"), load_external_data=False)
        # Weight bytes, and those only gathered (a token reads one row of
        # an embedding table): the bandwidth floor counts the rest.
        sizes = {t.name: np.prod(t.dims, dtype=np.int64) *
                 np.dtype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t.data_type]).itemsize
                 for t in m.graph.initializer}
        gathered = {n.input[0] for n in m.graph.node if n.op_type == "Gather"}
        if vocab_of(m) == 256:
            # A byte-level model trained on the license texts: a fixed
            # prompt set of 32-byte windows of them, one line of ids each.
            text = b"".join(
                open(os.path.join("/usr/share/common-licenses", f), "rb").read()
                for f in ("GPL-3", "Apache-2.0", "MPL-2.0", "Artistic"))
            lines = []
            for i in range(8):
                at = (i * 7919 + 101) % (len(text) - 32)
                lines.append(",".join(str(b) for b in text[at:at + 32]))
            (work / f"{name}.prompts").write_text("\n".join(lines) + "\n")
        (work / f"{name}.weights.json").write_text(json.dumps({
            "total_bytes": int(sum(sizes.values())),
            "gathered_bytes": int(sum(v for k, v in sizes.items()
                                      if k in gathered))}))
        vocab = m.graph.output[0].type.tensor_type.shape.dim[2].dim_value
        r = np.random.default_rng(7)
        for step, (s, p) in {"decode": (1, a.past),
                             "prefill": (a.prompt, 0)}.items():
            d = work / f"{name}_{step}"
            d.mkdir(exist_ok=True)
            for i in m.graph.input:
                n = i.name
                if n == "input_ids":
                    v = r.integers(0, vocab, (1, s)).astype(np.int64)
                elif n == "attention_mask":
                    v = np.ones((1, p + s), np.int64)
                elif n == "position_ids":
                    v = np.arange(p, p + s, dtype=np.int64)[None]
                else:
                    dims = [x.dim_value for x in i.type.tensor_type.shape.dim]
                    v = r.standard_normal((1, dims[1], p, dims[3])).astype(
                        np.float32)
                np.save(d / f"{n}.npy", v)


if __name__ == "__main__":
    main()
