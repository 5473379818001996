#!/usr/bin/env bash
# Models AMK was not designed around (not part of the test suite: the
# exports take minutes and 1 GB): utils/zoo/export_torchvision.py writes
# 27 torchvision and torch exports (classifiers from SqueezeNet to MaxViT,
# Swin and ConvNeXt; DeepLabV3 and LR-ASPP; r3d/mc3 video models; RAFT;
# SSDlite, Faster/Mask R-CNN, RetinaNet and FCOS detectors; a
# TransformerEncoder; a bidirectional GRU). Each runs on the runtime at 2
# threads against ONNX Runtime on the same inputs (1e-4 of each output's
# scale), then is timed the same way (--bench): the table gives AMK/ORT.
# Detectors with random weights may order boxes whose scores differ by
# ~1e-6 differently from ONNX Runtime; such a run is reported as a
# mismatch, not hidden.
# Usage: check-torchvision-models.sh [--out DIR] [--iters N] [NAME...]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMK_BUILD_DIR:-$root/build}"
out=/tmp/amk-torchvision; iters=5; names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
/usr/bin/python3 "$root/utils/zoo/export_torchvision.py" "$out" "${names[@]}" ||
  echo "some exports failed (above); checking the others"
printf '| model | result | AMK ms | ORT ms | AMK/ORT |\n|---|---|---|---|---|\n' \
  > "$out/table.md"
pass=0; fail=0
while read -r name flags; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  log=$("$build/bin/amk-run" "$out/$name.onnx" $flags --seed 1 --threads 2 \
          --compare-ort --bench --iters "$iters" --warmup 1 2>&1)
  rc=$?
  amk=$(sed -n 's/.*latency over .* median \([0-9.]*\) ms.*/\1/p' <<< "$log" | head -1)
  ort=$(sed -n 's/.*onnxruntime (.*median \([0-9.]*\) ms.*/\1/p' <<< "$log" | head -1)
  ratio=$(sed -n 's/.*AMK\/ORT median \([0-9.]*\).*/\1/p' <<< "$log" | head -1)
  if [ $rc -eq 0 ]; then
    result=ok; pass=$((pass + 1))
  else
    result=$(grep -m1 -E "MISMATCH|error" <<< "$log" | cut -c1-120)
    result="FAIL: ${result:-exit $rc}"; fail=$((fail + 1))
  fi
  echo "| $name | $result | ${amk:--} | ${ort:--} | ${ratio:--} |" >> "$out/table.md"
  echo "torchvision $name: $result ${ratio:+(AMK/ORT $ratio)}"
done < "$out/models.txt"
cat "$out/table.md"
echo "torchvision models: $pass passed, $fail failed"
[ $fail -eq 0 ]
