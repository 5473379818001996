#!/usr/bin/env bash
# Whole small networks from other toolchains (test/models/toolchain_models.py:
# torch.onnx.export CRNN with a BiLSTM, a detection head with ConvTranspose
# and Resize, a U-Net, a detector ending in torchvision's NMS; an STFT/mel
# audio front-end; tf2onnx and paddle2onnx idioms; a Loop greedy decoder;
# int64 shape and mask arithmetic) run on the compiled runtime at every
# shape set the generator lists, with 1 worker, 2 workers and 2 workers
# through the JIT, each compared with ONNX Runtime on the same model (1e-4
# of each output's scale). Models whose sizes depend on data run as
# segments (docs/runtime.md).
# Usage: check-toolchain-models.sh <tools-dir> <work-dir>
set -uo pipefail
tools=$1; work=$2
here=$(cd "$(dirname "$0")" && pwd)
gen="$here/../models/toolchain_models.py"
mkdir -p "$work"
/usr/bin/python3 "$gen" "$work" >/dev/null ||
  { echo "toolchain models: generating the models failed"; exit 1; }
# shellcheck source=test/scripts/lib-compare-ort.sh disable=SC2034
. "$here/lib-compare-ort.sh"
for shapes in "$work"/*.shapes; do
  m="${shapes%.shapes}.onnx"
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    # shellcheck disable=SC2046
    run_modes "$m" $(/usr/bin/python3 "$gen" --dim-flags "$m" "$line")
  done < "$shapes"
done
echo "toolchain models: $pass passed, $fail failed"
[ $fail -eq 0 ]
