#!/usr/bin/env bash
# README command 1: set up, build, and run the main job on the built-in
# example model (examples/tiny_cnn.onnx): import it, run the default
# pipeline in amk-opt, print the model summary, and write the optimized
# model back to ONNX.
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
