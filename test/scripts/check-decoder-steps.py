#!/usr/bin/python3
"""Decoder-only models exported as other toolchains write them (issue 24).

Exports the Llama-style and Qwen-like test decoders
(utils/zoo/export_decoder.py, Optimum's past_key_values interface,
dynamic batch/sequence/past) with seeded inputs for a decode step (one
token after a past of 16) and a prefill (8 tokens, empty past:
scripts/decoder-bench-prep.py), and runs each on AMK's runtime against
ONNX Runtime on the same inputs: float32 at 1e-4 of each output's scale,
and weight-only w8 at cosine 0.999 against ORT's float run. Then greedy
generation (amk-run --generate) of both at 1 and 2 workers and through
the JIT: identical tokens and logits within 1e-3 of scale at every step.

Usage: check-decoder-steps.py BIN_DIR WORK_DIR
"""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent


def main():
    bin_dir, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    subprocess.run([sys.executable, str(ROOT / "scripts/decoder-bench-prep.py"),
                    str(work), "--past", "16", "--prompt", "8"], check=True)
    failed = total = 0
    for model in ("llama_15m", "qwen_like"):
        for step in ("decode", "prefill"):
            for precision, extra in (("fp32", []),
                                     ("w8", ["--min-cosine", "0.999"])):
                total += 1
                r = subprocess.run(
                    [str(bin_dir / "amk-run"), str(work / f"{model}.onnx"),
                     "--input-dir", str(work / f"{model}_{step}"),
                     "--threads", "2", "--precision", precision,
                     "--compare-ort"] + extra,
                    capture_output=True, text=True)
                ok = (r.returncode == 0 and "MISMATCH" not in r.stdout and
                      " ok vs onnxruntime" in r.stdout)
                failed += not ok
                tail = (r.stdout + r.stderr).strip().splitlines()[-1:]
                print(f"decoder {model} {step} {precision}: "
                      + ("ok" if ok else "FAIL " + " ".join(tail)), flush=True)
    # Generation (amk-run --generate): the prefill program, then one decode
    # program with the KV cache written in place, every step's greedy
    # token and logits against ONNX Runtime's own loop fed the same tokens.
    for model, threads, extra in (("llama_15m", "1", []),
                                  ("llama_15m", "2", []),
                                  ("llama_15m", "2", ["--jit"]),
                                  ("qwen_like", "2", [])):
        total += 1
        r = subprocess.run(
            [str(bin_dir / "amk-run"), str(work / f"{model}.onnx"),
             "--generate", "12", "--prompt-len", "5", "--max-context", "40",
             "--threads", threads, "--compare-ort", "--json"] + extra,
            capture_output=True, text=True)
        ok = r.returncode == 0
        what = (r.stdout + r.stderr).strip().splitlines()[-1:]
        if ok:
            c = json.loads(r.stdout)["check"]
            ok = c["ok"] and c["identical_tokens"] == c["steps"] == 12
            what = [f"{c['identical_tokens']}/{c['steps']} tokens, logits "
                    f"within {c['max_logit_error_of_scale']:.1e} of scale"]
        failed += not ok
        print(f"decoder {model} generate threads={threads} {' '.join(extra)}: "
              + ("ok " if ok else "FAIL ") + " ".join(what), flush=True)
    print(f"decoder steps: {total - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
