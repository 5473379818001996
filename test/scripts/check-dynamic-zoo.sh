#!/usr/bin/env bash
# The zoo exported with dynamic axes (<model>_dyn_op17.onnx) runs on the
# compiled runtime at three shapes each, batch 1 to 16: amk-run binds the
# dynamic dimensions to the inputs' shapes (amk-bind-shapes), compiles, and
# compares every output with ONNX Runtime on the same dynamic model (1e-4
# of each output's scale), with 1 worker, 2 workers and 2 workers through
# the JIT.
# Usage: check-dynamic-zoo.sh <tools-dir> <zoo-dir>
set -uo pipefail
tools=$1; zoo=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=test/scripts/lib-compare-ort.sh disable=SC2034
. "$here/lib-compare-ort.sh"
run() { run_modes "$zoo/$1" "${@:2}"; }
for cnn in resnet18 mobilenetv2; do
  run ${cnn}_dyn_op17.onnx --dim batch=1 --dim height=224 --dim width=224
  run ${cnn}_dyn_op17.onnx --dim batch=4 --dim height=160 --dim width=128
  run ${cnn}_dyn_op17.onnx --dim batch=16 --dim height=64 --dim width=96
done
run vit_small_dyn_op17.onnx --dim batch=1
run vit_small_dyn_op17.onnx --dim batch=4
run vit_small_dyn_op17.onnx --dim batch=16
# BERT-like on realistic inputs (token ids below the vocabulary size, an
# all-ones attention mask): amk-run's random integers make masks of
# -10^4 multiples, where float32 softmax is ill-conditioned for every
# engine, the reference interpreter included.
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for shape in 1x128 4x64 16x32; do
  /usr/bin/python3 -c "import numpy as np, sys; b, s = map(int, sys.argv[2].split('x')); r = np.random.default_rng(7); np.save(sys.argv[1] + '/input_ids.npy', r.integers(0, 8192, (b, s), dtype=np.int64)); np.save(sys.argv[1] + '/attention_mask.npy', np.ones((b, s), dtype=np.int64))" "$work" "$shape" &&
    mkdir -p "$work/$shape" && mv "$work"/*.npy "$work/$shape/"
  run bert_like_dyn_op17.onnx --input-dir "$work/$shape"
done
echo "dynamic zoo: $pass passed, $fail failed"
[ $fail -eq 0 ]
