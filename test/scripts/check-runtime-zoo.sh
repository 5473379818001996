#!/usr/bin/env bash
# Proof of correctness of the compiled runtime on whole models: every model
# runs through the default pipeline (amk-graph-opt, amk-schedule-megakernel,
# amk-validate-task-program) with 1 worker, 2 workers, the single-thread
# executor and 2 workers through the LLVM lowering and JIT (amk-run --jit:
# generated tables, entry points and elementwise code), three times in a
# row (the repeats must be bitwise identical),
# and each output must equal the reference interpreter's on the same input
# (amk-run --check-reference: float within 1e-4 of the output's scale,
# integers exact). A zoo model's example inputs (<model>_inputs/) are used
# when present.
# Usage: check-runtime-zoo.sh <tools-dir> <model.onnx>...
set -uo pipefail
tools=$1; shift
pass=0; fail=0
for m in "$@"; do
  inputs=()
  d="${m%_op*.onnx}_inputs"
  [ -d "$d" ] && inputs=(--input-dir "$d")
  for mode in "--threads 1" "--threads 2" "--threads 2 --single-thread" \
              "--threads 2 --jit"; do
    # shellcheck disable=SC2086
    out=$("$tools/amk-run" "$m" $mode --seed 7 "${inputs[@]}" --repeat 3 \
          --check-reference 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
      pass=$((pass + 1)); echo "PASS $(basename "$m") $mode"
    else
      fail=$((fail + 1)); echo "FAIL $(basename "$m") $mode (exit $rc)"
      echo "$out" | sed 's/^/    /'
    fi
  done
done
echo "runtime zoo: $pass passed, $fail failed"
[ $fail -eq 0 ]
