#!/usr/bin/env bash
# Proof of correctness of AMK's passes: for every pipeline listed in
# <pipelines-file> (one per line, '#' comments) and every model, the
# reference interpreter gives the same outputs before and after the
# pipeline on seeded random inputs (amk-run --check-pipeline: float within
# 1e-5 of each output's scale, integers exact). A zoo model's example
# inputs (<model>_inputs/ next to <model>_opN.onnx) are used when present:
# random token ids and masks make a BERT numerically meaningless.
# Usage: check-passes.sh <tools-dir> <pipelines-file> <model.onnx>...
set -uo pipefail
tools=$1; pipelines=$2; shift 2
pass=0; fail=0
while IFS= read -r p; do
  p=${p%%#*}; p=$(echo "$p" | xargs)
  [ -z "$p" ] && continue
  for m in "$@"; do
    inputs=()
    d="${m%_op*.onnx}_inputs"
    [ -d "$d" ] && inputs=(--input-dir "$d")
    out=$("$tools/amk-run" "$m" --reference --seed 7 "${inputs[@]}" \
          --check-pipeline --pipeline="builtin.module($p)" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
      pass=$((pass + 1)); echo "PASS $p $(basename "$m")"
    else
      fail=$((fail + 1)); echo "FAIL $p $(basename "$m") (exit $rc)"
      echo "$out" | sed 's/^/    /'
    fi
  done
done < "$pipelines"
echo "check-passes: $pass passed, $fail failed"
[ $fail -eq 0 ]
