#!/usr/bin/env bash
# Models written in other exporters' idioms with dynamic dimensions
# (test/models/exporter_idioms.py: paddle2onnx-style OCR CNN at opsets 9
# and 11, a tf2onnx-style audio model, a torch.onnx.export VAD with
# dynamic_axes) run on the compiled runtime at three shapes each: amk-run
# binds the dynamic dimensions (--dim, amk-bind-shapes), compiles, and
# compares every output with ONNX Runtime on the same dynamic model (1e-4
# of each output's scale), with 1 worker, 2 workers and 2 workers through
# the JIT.
# Usage: check-exporter-idioms.sh <tools-dir> <work-dir>
set -uo pipefail
tools=$1; work=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
/usr/bin/python3 "$here/../models/exporter_idioms.py" "$work" >/dev/null ||
  { echo "exporter idioms: generating the models failed"; exit 1; }
# shellcheck source=test/scripts/lib-compare-ort.sh disable=SC2034
. "$here/lib-compare-ort.sh"
run() { run_modes "$work/$1" "${@:2}"; }
# paddle2onnx-style OCR: odd sizes too (floor pooling, W/4 by integer Div).
for m in paddle_ocr_op9 paddle_ocr_op11; do
  run $m.onnx --dim N=1 --dim H=32 --dim W=100
  run $m.onnx --dim N=2 --dim H=48 --dim W=160
  run $m.onnx --dim N=3 --dim H=33 --dim W=57
done
# tf2onnx-style audio: [N, T, 40] filterbanks.
run tf_audio_op13.onnx --dim N=1 --dim T=98
run tf_audio_op13.onnx --dim N=4 --dim T=49
run tf_audio_op13.onnx --dim N=16 --dim T=7
# torch.onnx.export VAD, dynamic_axes batch and time.
run torch_vad_op17.onnx --dim batch=1 --dim time=100
run torch_vad_op17.onnx --dim batch=3 --dim time=37
run torch_vad_op17.onnx --dim batch=8 --dim time=250
echo "exporter idioms: $pass passed, $fail failed"
[ $fail -eq 0 ]
