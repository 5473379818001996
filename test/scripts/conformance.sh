#!/usr/bin/env bash
# Runs the ONNX backend node tests on the reference interpreter and
# regenerates docs/conformance.md, docs/conformance.json and the CI
# baseline test/conformance/passing.txt.
# Usage: conformance.sh [build-dir]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-${AMK_BUILD_DIR:-$root/build}}"
"$build/bin/amk-conformance" \
  --json "$root/docs/conformance.json" \
  --markdown "$root/docs/conformance.md" \
  --baseline "$root/test/conformance/passing.txt" --update-baseline
