#!/usr/bin/env bash
# The same network exported at several opsets must normalize to the same IR
# (modulo names and the order of constants): compares amk-opt's output of
# the normalization pipeline for each <model>_op<N>.onnx given, with
# constants, SSA names, ONNX names and the opset each model was written at
# (onnx.model_opset) masked.
# Usage: check-opset-normalization.sh <tools-dir> <group>... where a group
# is a comma-separated list of models that must agree.
set -uo pipefail
tools=$1; shift
P='builtin.module(amk-infer-shapes,amk-normalize-opset,amk-fold-constants,canonicalize,cse)'
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0; n=0
for group in "$@"; do
  IFS=, read -ra models <<< "$group"
  ref=""
  for m in "${models[@]}"; do
    out="$work/$(basename "$m").ir"
    "$tools/amk-opt" "$m" --pass-pipeline="$P" 2>&1 | sed '/^{-#/,$d' |
      grep -v '"onnx.Constant"' |
      sed -E 's/%[A-Za-z_0-9#]+/%v/g; s/\{onnx.name = "[^"]*"\}//g;
              s/onnx.graph_name = "[^"]*"//; s/onnx.model_opset = [0-9]+ : i64, //' > "$out"
    if [ -z "$ref" ]; then ref=$out; continue; fi
    n=$((n + 1))
    if diff -q "$ref" "$out" > /dev/null; then
      echo "SAME $(basename "$m") == $(basename "${models[0]}")"
    else
      fail=$((fail + 1))
      echo "DIFF $(basename "$m") != $(basename "${models[0]}")"
      diff "$ref" "$out" | head -10 | cut -c1-200 | sed 's/^/    /'
    fi
  done
done
echo "check-opset-normalization: $((n - fail)) same, $fail different"
[ $fail -eq 0 ]
