#!/usr/bin/env bash
# Runs AMK's libFuzzer targets (test/fuzz) from the sanitizer build
# (scripts/sanitize.sh builds it). Each target first replays its crash
# regressions (test/fuzz/regressions/<target>/), then fuzzes for SECONDS on
# a corpus seeded from the test models: the 932 ONNX node-test models and
# the hostile models (binary importer), the lit tests' .onnxtxt files (text
# path), the lit tests' MLIR split at `// -----` (parser and verifiers);
# the task-program fuzzer builds its programs from raw bytes. New crashes
# are written to build-san/fuzz/crashes/<target>/ and fail the script.
#
# Two modes. Exploration (the default): a random seed, a fresh search each
# time; a long run of it is how new bugs are found. Reproducible (what CI
# runs, AMK_FUZZ_SEED=N): libFuzzer's seed is fixed, the corpus starts from
# the same files, and AMK_FUZZ_RUNS (default 20000) caps the executions, so
# the CI job explores nearly the same inputs on every machine (coverage
# feedback still differs between builds; docs/security.md); SECONDS only
# bounds the time on a slow machine.
# Usage: fuzz.sh [SECONDS] [TARGET...]     (a longer run: fuzz.sh 3600)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMK_SAN_BUILD_DIR:-$root/build-san}"
seconds="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(OnnxBinaryFuzzer OnnxTextFuzzer MlirParseFuzzer TaskProgramFuzzer)
work="$build/fuzz"
mkdir -p "$work"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:allow_user_poisoning=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/scripts/sanitizer/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

seed() {
  local t=$1 dir=$2
  [ -n "$(ls -A "$dir" 2>/dev/null)" ] && return 0
  mkdir -p "$dir"
  case $t in
    OnnxBinaryFuzzer)
      i=0
      for m in /usr/share/libonnx-testdata/data/node/*/model.onnx "$root"/examples/*.onnx; do
        cp "$m" "$dir/seed$((i++))"
      done
      for k in cycle self-loop dangling duplicate-output unknown-op wrong-attr-type \
               inconsistent-shapes dim-overflow raw-size-mismatch huge-claim \
               constant-raw-mismatch opset-too-new deep-nesting; do
        /usr/bin/python3 "$root/test/lit/Inputs/make_models.py" "$k" "$dir/hostile-$k" >/dev/null
      done ;;
    OnnxTextFuzzer)
      find "$root/test/lit" -name '*.onnxtxt' -exec cp -t "$dir" {} + ;;
    MlirParseFuzzer)
      /usr/bin/python3 - "$root/test/lit" "$dir" <<'PY'
import pathlib, sys
src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
n = 0
for f in sorted(src.rglob("*.mlir")):
    for part in f.read_text().split("// -----"):
        lines = [l for l in part.splitlines() if not l.lstrip().startswith("//")]
        text = "\n".join(lines).strip()
        if text:
            (out / f"seed{n}.mlir").write_text(text + "\n")
            n += 1
PY
      ;;
    TaskProgramFuzzer)
      # Deterministic bytes (the reproducible mode needs the same corpus).
      /usr/bin/python3 - "$dir" <<'PY'
import random, sys
rng = random.Random(20261123)
for i in range(16):
    with open(f"{sys.argv[1]}/seed{i}", "wb") as f:
        f.write(bytes(rng.randrange(256) for _ in range(64)))
PY
      ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  bin="$build/bin/fuzz/$t"
  [ -x "$bin" ] || { echo "fuzz: $bin not built (run scripts/sanitize.sh)"; exit 2; }
  reg="$root/test/fuzz/regressions/$t"
  if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
    "$bin" -runs=0 "$reg"/* >"$work/$t.regressions.log" 2>&1 ||
      { echo "fuzz: $t: a regression input fails again ($work/$t.regressions.log)"; status=1; }
  fi
  corpus="$work/corpus/$t"
  mode=()
  if [ -n "${AMK_FUZZ_SEED:-}" ]; then
    # A fresh corpus from the seed files: the reproducible run must not
    # depend on what earlier runs left behind.
    corpus="$work/corpus-seed${AMK_FUZZ_SEED}/$t"
    rm -rf "$corpus"
    mode=(-seed="$AMK_FUZZ_SEED" -runs="${AMK_FUZZ_RUNS:-20000}")
  fi
  seed "$t" "$corpus"
  mkdir -p "$work/crashes/$t"
  dict=()
  [ -f "$root/test/fuzz/$t.dict" ] && dict=(-dict="$root/test/fuzz/$t.dict")
  set +e
  "$bin" "$corpus" "${dict[@]}" "${mode[@]}" -max_total_time="$seconds" -timeout=20 \
    -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$work/crashes/$t/" >"$work/$t.log" 2>&1
  rc=$?
  set -e
  execs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$work/$t.log" | grep -oE "[0-9]+$" || echo 0)
  cov=$(grep -oE "cov: [0-9]+" "$work/$t.log" | tail -1 | grep -oE "[0-9]+" || echo 0)
  if [ $rc -ne 0 ]; then
    echo "fuzz: $t: FAILED after $execs executions, see $work/$t.log and $work/crashes/$t/"
    # What went wrong, in the job's own output (CI keeps only that).
    grep -m1 -E "^==[0-9]+==ERROR|runtime error:|ALARM|out-of-memory|deadly signal" "$work/$t.log" |
      sed "s/^/fuzz: $t:   /" || true
    grep -m1 -E "^SUMMARY:" "$work/$t.log" | sed "s/^/fuzz: $t:   /" || true
    grep -m1 -E "Test unit written to" "$work/$t.log" | sed "s/^/fuzz: $t:   /" || true
    grep -m1 -E "^Base64: " "$work/$t.log" | cut -c1-2000 | sed "s/^/fuzz: $t:   /" || true
    status=1
  else
    desc="random seed"
    [ -n "${AMK_FUZZ_SEED:-}" ] && desc="seed $AMK_FUZZ_SEED"
    echo "fuzz: $t: $execs executions ($desc, at most ${seconds} s), coverage $cov edges, no crash"
  fi
done
exit $status
