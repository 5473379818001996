#!/usr/bin/env python3
"""Runs every ONNX backend node test through the compiled runtime.

A test either runs on the runtime and matches its expected outputs, or is
refused at compile time because the runtime lacks a kernel (counted, not a
failure). Anything else (a crash, a mismatch, a refused program the
scheduler accepted) fails. Usage: check-runtime-node-tests.py AMK_RUN DATA
[--threads N] [--jit] [--json OUT]

--jit runs each test through amk-run --jit (the LLVM lowering, generated
elementwise code and the ORC JIT).
"""
import argparse, concurrent.futures, json, os, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("amk_run")
ap.add_argument("data")
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--jit", action="store_true")
ap.add_argument("--json")
args = ap.parse_args()

tests = sorted(d for d in os.listdir(args.data)
               if os.path.exists(os.path.join(args.data, d, "model.onnx")))

def run(name):
    d = os.path.join(args.data, name)
    ds = os.path.join(d, "test_data_set_0")
    cmd = [args.amk_run, os.path.join(d, "model.onnx"), "--threads",
           str(args.threads), "--input-dir", ds, "--compare", ds,
           "--rtol", "1e-4", "--atol", "1e-5", "--repeat", "2"]
    if args.jit:
        cmd.append("--jit")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return name, "fail", "timeout"
    out = p.stdout + p.stderr
    if p.returncode == 0:
        return name, "pass", ""
    # amk-run refuses test data that contradicts the model's declared
    # static input shapes (test_castlike_*: 'like' is float[1], declared
    # 3x4), as ONNX Runtime does.
    if ("the runtime has no kernel for" in out
            or "pipeline" in out and "failed" in out
            or "amk-run: error: input '" in out and "' must be " in out):
        return name, "unsupported", out.strip().splitlines()[0][:200]
    return name, "fail", out.strip()[-400:]

results = {}
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
    for name, status, msg in ex.map(run, tests):
        results[name] = {"status": status, "message": msg}
counts = {s: sum(1 for r in results.values() if r["status"] == s)
          for s in ("pass", "unsupported", "fail")}
for name, r in results.items():
    if r["status"] == "fail":
        print(f"FAIL {name}: {r['message']}")
label = "runtime node tests (jit)" if args.jit else "runtime node tests"
print(f"{label}: {counts['pass']} passed, {counts['unsupported']} "
      f"refused at compile time (no kernel), {counts['fail']} failed, of "
      f"{len(tests)}")
if args.json:
    with open(args.json, "w") as f:
        json.dump({"counts": counts, "results": results}, f, indent=1)
sys.exit(1 if counts["fail"] else 0)
