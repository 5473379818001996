#!/usr/bin/env bash
# README command 1: set up, build, and run the main job on the built-in
# example model (examples/tiny_cnn.onnx): import it, run the default
# pipeline in amk-opt, print the model summary, write the optimized model
# back to ONNX, then compile it for the runtime and run it (checked against
# the reference interpreter).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build="${AMK_BUILD_DIR:-$root/build}"
model="${1:-$root/examples/tiny_cnn.onnx}"
mkdir -p "$build/example"
echo "== amk-opt $model --pass-pipeline='builtin.module(amk-default)'"
"$build/bin/amk-opt" "$model" --pass-pipeline='builtin.module(amk-default)' \
  -o "$build/example/optimized.onnx"
echo "== wrote $build/example/optimized.onnx"
# Compile the example to a task program and run it on the runtime, checked
# against the reference interpreter, with a short latency measurement.
echo "== amk-run $model --threads 2 --check-reference --bench"
"$build/bin/amk-run" "$model" --threads 2 --check-reference --bench --iters 20 --warmup 3
