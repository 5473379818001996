#!/usr/bin/env bash
# Differential test: runs each model on AMK's reference interpreter and in
# ONNX Runtime on the same seeded random inputs and compares the outputs
# (amk-run --compare-ort: within 1e-4 relative to each output's scale).
# Usage: ort-diff.sh <tools-dir> <model.onnx>...
set -uo pipefail
tools=$1; shift
pass=0; fail=0
for m in "$@"; do
  out=$("$tools/amk-run" "$m" --reference --seed 1 --compare-ort 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then
    pass=$((pass + 1))
    echo "PASS $(basename "$m")"
  else
    fail=$((fail + 1))
    echo "FAIL $(basename "$m") (exit $rc)"
  fi
  echo "$out" | sed 's/^/    /'
done
echo "ort-diff: $pass matched, $fail mismatched"
[ $fail -eq 0 ]
