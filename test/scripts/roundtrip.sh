#!/usr/bin/env bash
# Round-trip check of every model.onnx under the given directories (or the
# given .onnx files): IR identity with amk-roundtrip, then bit-identical
# ONNX Runtime outputs with scripts/ort/roundtrip.js.
# Usage: roundtrip.sh <tools-dir> <work-dir> <dir-or-model>...
set -euo pipefail
tools=$1; work=$2; shift 2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$work"
list="$work/models.txt"
: > "$list"
for p in "$@"; do
  if [ -d "$p" ]; then
    find "$p" -name model.onnx | sort >> "$list"
  else
    echo "$p" >> "$list"
  fi
done
echo "round trip over $(wc -l < "$list") models"
"$tools/amk-roundtrip" --list "$list" --out-dir "$work/out" \
  --manifest "$work/manifest.json"
node "$root/scripts/ort/roundtrip.js" "$work/manifest.json" "$work/ort-report.json"
