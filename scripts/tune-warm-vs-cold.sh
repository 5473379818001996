#!/usr/bin/env bash
# Warm vs cold tuning on the zoo (docs/tuning.md, "Warm start on the zoo"):
# does the learned prior, fed with the records of *other* models, reach a
# cold run's best result in fewer trials?
#
# For each model family F (resnet18, mobilenetv2, bert_like, vit_small;
# the opset-17 export):
#   cold:  amk-tune F --no-prior on an empty records store;
#   warm:  amk-tune F with the prior on a store holding only the cold
#          records of the three other families (leave one family out:
#          F's own records, and F at other opsets, are never seen).
# Both runs have the same budget, seed, space and rules. The result is,
# per model, the first trial whose best-so-far speedup reaches the cold
# run's final best (within TOL, default 2%), both curves (best-so-far
# speedup after each trial) as a table and an SVG, in OUT/summary.md.
#
# Usage: tune-warm-vs-cold.sh [BUDGET=24] [WORKERS=2] [OUT=build/warm-vs-cold]
# Needs the zoo (ninja -C build zoo). Long: about BUDGET x 8 trials.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMK_BUILD_DIR:-$root/build}"
budget="${1:-24}"
workers="${2:-2}"
out="${3:-$build/warm-vs-cold}"
tol="${AMK_WARM_TOL:-0.02}"
families=(resnet18 mobilenetv2 bert_like vit_small)
tune="$build/bin/amk-tune"
[ -x "$tune" ] || { echo "warm-vs-cold: $tune not built"; exit 2; }
for f in "${families[@]}"; do
  [ -f "$build/zoo/${f}_op17.onnx" ] ||
    { echo "warm-vs-cold: $build/zoo/${f}_op17.onnx missing (ninja -C $build zoo)"; exit 2; }
done
rm -rf "$out" && mkdir -p "$out"
common=(--budget "$budget" --workers "$workers" --seed 1 --fresh
        --compare-ort=false --progress=false --quiet)

for f in "${families[@]}"; do
  echo "warm-vs-cold: cold $f"
  "$tune" "$build/zoo/${f}_op17.onnx" "${common[@]}" --no-prior \
    --records "$out/cold-$f.jsonl" --report "$out/cold-$f" >/dev/null
done
for f in "${families[@]}"; do
  echo "warm-vs-cold: warm $f (prior from the other families' cold records)"
  : >"$out/warm-$f.jsonl"
  for g in "${families[@]}"; do
    [ "$g" = "$f" ] || cat "$out/cold-$g.jsonl" >>"$out/warm-$f.jsonl"
  done
  "$tune" "$build/zoo/${f}_op17.onnx" "${common[@]}" \
    --records "$out/warm-$f.jsonl" --report "$out/warm-$f" >/dev/null
done

/usr/bin/python3 - "$out" "$tol" "$budget" "$workers" "${families[@]}" <<'PY'
import json, pathlib, sys
out, tol, budget, workers = pathlib.Path(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
families = sys.argv[5:]

def first_reaching(curve, target):
    for i, v in enumerate(curve):
        if v >= target * (1 - tol):
            return i + 1  # trials, counting the baseline as trial 1
    return None

rows, curves = [], {}
for f in families:
    cold = json.load(open(out / f"cold-{f}" / "result.json"))
    warm = json.load(open(out / f"warm-{f}" / "result.json"))
    cc, wc = cold["best_so_far"], warm["best_so_far"]
    target = max(cc)
    warm_trials = [t for t in warm["trial_list"] if t.get("warm_start")]
    rows.append((f, target, first_reaching(cc, target), first_reaching(wc, target),
                 max(wc), len(warm_trials), cold["changes"], warm["changes"],
                 cold["seconds"], warm["seconds"]))
    curves[f] = (cc, wc)

def fmt(x):
    return "not reached" if x is None else str(x)

md = [f"# Warm vs cold tuning on the zoo\n",
      f"Budget {budget} trials per run, {workers} worker(s), seed 1; the warm run's "
      f"prior sees only the other families' cold records. \"Trials to reach\" is "
      f"the first trial (the default pipeline is trial 1) whose best-so-far "
      f"speedup is within {tol:.0%} of the cold run's final best.\n",
      "| model | cold best speedup | cold: trials to reach | warm: trials to reach | warm best speedup | warm-start trials | cold choice | warm choice | cold s | warm s |",
      "|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    md.append(f"| {r[0]} | {r[1]:.3f} | {fmt(r[2])} | {fmt(r[3])} | {r[4]:.3f} | {r[5]} | "
              f"{r[6]} | {r[7]} | {r[8]:.0f} | {r[9]:.0f} |")
md.append("\n## Best-so-far speedup after each trial\n")
for f, (cc, wc) in curves.items():
    md.append(f"- {f} cold: " + " ".join(f"{v:.3f}" for v in cc))
    md.append(f"- {f} warm: " + " ".join(f"{v:.3f}" for v in wc))
md.append("\n![best-so-far curves](curves.svg)\n")
(out / "summary.md").write_text("\n".join(md) + "\n")

# One panel per model: cold (grey) and warm (blue) best-so-far curves.
W, H, pad = 320, 200, 36
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W * len(curves)}" height="{H}" font-family="sans-serif" font-size="11">']
for k, (f, (cc, wc)) in enumerate(curves.items()):
    x0 = k * W
    n = max(len(cc), len(wc), 2)
    lo = min(min(cc + wc), 1.0) * 0.98
    hi = max(max(cc + wc), 1.0) * 1.02
    def pt(i, v):
        return (x0 + pad + (W - 2 * pad) * i / (n - 1),
                H - pad - (H - 2 * pad) * (v - lo) / (hi - lo))
    svg.append(f'<text x="{x0 + W / 2}" y="16" text-anchor="middle">{f}</text>')
    svg.append(f'<rect x="{x0 + pad}" y="{pad}" width="{W - 2 * pad}" height="{H - 2 * pad}" fill="none" stroke="#999"/>')
    svg.append(f'<text x="{x0 + pad}" y="{H - 8}">trial 1</text><text x="{x0 + W - pad}" y="{H - 8}" text-anchor="end">{n}</text>')
    svg.append(f'<text x="{x0 + 2}" y="{pad + 4}">{hi:.2f}x</text><text x="{x0 + 2}" y="{H - pad}">{lo:.2f}x</text>')
    for curve, colour in ((cc, "#888"), (wc, "#1f77b4")):
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in (pt(i, v) for i, v in enumerate(curve)))
        svg.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"/>')
    svg.append(f'<text x="{x0 + W - pad}" y="{pad + 14}" text-anchor="end" fill="#888">cold</text>')
    svg.append(f'<text x="{x0 + W - pad}" y="{pad + 28}" text-anchor="end" fill="#1f77b4">warm</text>')
svg.append("</svg>")
(out / "curves.svg").write_text("\n".join(svg) + "\n")
print((out / "summary.md").read_text())
PY
