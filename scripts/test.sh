#!/usr/bin/env bash
# README command 2: set up, build, and run the whole test suite: lit (IR
# tests), GoogleTest units, and the round trips over the ONNX node tests
# and the model zoo. Prints the runners' summary lines.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMK_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" zoo zoo-large
cd "$build"
status=0
ctest --output-on-failure -j "$(nproc)" 2>&1 | tee ctest.log || status=$?
echo
echo "== summary"
# The per-suite lines (lit, round trips; ctest keeps every test's output in
# LastTest.log) followed by ctest's own.
grep -hE "^(Total Discovered Tests|  (Passed|Failed|Unsupported): |roundtrip:|ort-roundtrip:|round trip over|conformance:|baseline:|ort-diff:|check-passes:|check-passes-node-tests:|check-opset-normalization:|runtime zoo:|runtime node tests:|tsan:)" \
  Testing/Temporary/LastTest.log 2>/dev/null || true
grep -E "tests passed|tests failed" ctest.log | tail -1
exit $status
