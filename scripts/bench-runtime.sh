#!/usr/bin/env bash
# The runtime benchmark (not part of the test suite): batch-1 latency of
# AMK's compiled runtime vs ONNX Runtime (onnxruntime-node, same thread
# count, intra-op threads, all graph optimizations), both measured in the
# same amk-run invocation on the same inputs, for the zoo models at 1 and 2
# threads. A figure is kept only when the run's outputs matched ORT's
# (amk-run --compare-ort: 1e-4 of each output's scale); a mismatch is
# reported as FAIL and counts as a failed benchmark.
# Then the microbenchmarks: machine peak (FMA loop, the runtime's GEMM,
# triad bandwidth) and per-task dispatch overhead (10,000 empty tasks
# alternating between 2 workers).
# Usage: bench-runtime.sh [--iters N] [--warmup N] [--out DIR] [model...]
# Writes DIR/bench.json and DIR/bench.md (default build/bench).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMK_BUILD_DIR:-$root/build}"
iters=30; warmup=5; out="$build/bench"; models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --iters) iters=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
if [ ${#models[@]} -eq 0 ]; then
  for m in resnet18 mobilenetv2 vit_small bert_like vit_b16; do
    models+=("$build/zoo/${m}_op17.onnx")
  done
fi
mkdir -p "$out"
results="$out/results.jsonl"; : > "$results"
failed=0
for m in "${models[@]}"; do
  [ -f "$m" ] || { echo "missing $m (run scripts/build.sh zoo zoo-large)"; exit 2; }
  inputs=()
  d="${m%_op*.onnx}_inputs"
  [ -d "$d" ] && inputs=(--input-dir "$d")
  for t in 1 2; do
    n=$iters; w=$warmup
    # ViT-B/16 takes ~0.3 s a run: fewer iterations.
    case "$m" in *vit_b16*) n=$(( iters < 10 ? iters : 10 )); w=2 ;; esac
    json=$("$build/bin/amk-run" "$m" "${inputs[@]}" --seed 7 --threads "$t" \
           --bench --iters "$n" --warmup "$w" --compare-ort --json 2>"$out/err.txt")
    rc=$?
    if [ $rc -ne 0 ] || [ -z "$json" ]; then
      failed=$((failed + 1))
      echo "FAIL $(basename "$m") threads=$t (exit $rc): $(head -c 600 "$out/err.txt")"
      echo "$json" | head -c 2000
      continue
    fi
    echo "$json" | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin); r["threads"] = int(sys.argv[1])
print(json.dumps(r))' "$t" >> "$results"
  done
done
"$build/bin/amk-runtime-bench" peak --threads 1 > "$out/peak1.json"
"$build/bin/amk-runtime-bench" peak --threads 2 > "$out/peak2.json"
"$build/bin/amk-runtime-bench" dispatch --tasks 10000 --workers 2 > "$out/dispatch.json"
/usr/bin/python3 - "$out" <<'PY'
import json, math, os, platform, subprocess, sys
out = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(out, "results.jsonl"))]
peak = {t: json.load(open(os.path.join(out, f"peak{t}.json"))) for t in (1, 2)}
disp = json.load(open(os.path.join(out, "dispatch.json")))
cpu = "unknown"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip(); break
lines = [f"Machine: {cpu}, {os.cpu_count()} CPUs; {platform.platform()}", "",
         "| model | threads | AMK median ms | ORT median ms | AMK/ORT | AMK GFLOP/s | % of FMA peak | outputs vs ORT |",
         "|---|---|---|---|---|---|---|---|"]
ratios = []
for r in rows:
    a = r["runtime"]["median_ms"]; o = r["onnxruntime_latency"]["median_ms"]
    ratio = a / o; ratios.append(ratio)
    gf = r["runtime"].get("gflops_per_s", 0.0)
    pk = peak[r["threads"]]["fma_gflops"]
    ok = "ok" if r["ok"] else "MISMATCH"
    name = os.path.basename(r["model"]).replace(".onnx", "")
    lines.append(f"| {name} | {r['threads']} | {a:.3f} | {o:.3f} | {ratio:.3f} | {gf:.1f} | {100*gf/pk:.1f} | {ok} |")
geo = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
lines += ["", f"Geometric mean AMK/ORT: {geo:.3f} over {len(ratios)} measurements; worst {max(ratios, default=float('nan')):.3f}", ""]
for t in (1, 2):
    p = peak[t]
    lines.append(f"Peak, {t} thread(s): FMA loop {p['fma_gflops']:.1f} GFLOP/s; runtime GEMM 512^3 {p['gemm512_gflops']:.1f} GFLOP/s ({100*p['gemm_fraction_of_peak']:.1f}% of FMA peak); triad {p['triad_gbps']:.1f} GB/s")
lines.append(f"Dispatch: {disp['tasks']} empty tasks alternating between {disp['workers']} workers: median {disp['ns_per_task_median']:.1f} ns per task (min {disp['ns_per_task_min']:.1f})")
text = "\n".join(lines) + "\n"
open(os.path.join(out, "bench.md"), "w").write(text)
json.dump({"runs": rows, "peak": peak, "dispatch": disp, "geomean_amk_over_ort": geo},
          open(os.path.join(out, "bench.json"), "w"), indent=1)
print(text)
PY
[ $failed -eq 0 ]
