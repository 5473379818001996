#!/usr/bin/env bash
# README command 2: set up, build, and run the whole test suite: lit (IR
# tests), GoogleTest units, and the round trips over the ONNX node tests
# and the model zoo. Prints the runners' summary lines.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMK_BUILD_DIR:-$root/build}"
# Each phase's wall time goes into the summary (CI's budget is ~45 min).
t0=$SECONDS
"$root/scripts/setup.sh"
t_setup=$((SECONDS - t0))
t0=$SECONDS
"$root/scripts/build.sh" zoo zoo-large
t_build=$((SECONDS - t0))
cd "$build"
status=0
t0=$SECONDS
ctest --output-on-failure -j "$(nproc)" 2>&1 | tee ctest.log || status=$?
t_tests=$((SECONDS - t0))
t0=$SECONDS
# The sanitizer job (ASan+UBSan build, its test subset, then each fuzzer in
# its reproducible mode: seed 1, at most 30000 executions or 30 s;
# docs/security.md). AMK_SKIP_SANITIZERS=1 skips it for a quick local run.
if [ "${AMK_SKIP_SANITIZERS:-0}" != 1 ]; then
  export AMK_FUZZ_SEED="${AMK_FUZZ_SEED-1}" AMK_FUZZ_RUNS="${AMK_FUZZ_RUNS:-30000}"
  # pipefail: the pipeline fails when sanitize.sh does.
  "$root/scripts/sanitize.sh" "${AMK_FUZZ_SECONDS:-30}" 2>&1 | tee sanitize.log ||
    status=$?
else
  # No stale figures from an earlier run in the summary.
  echo "sanitizers (asan+ubsan): skipped (AMK_SKIP_SANITIZERS=1)" > sanitize.log
fi
t_san=$((SECONDS - t0))
echo
echo "== summary"
# The per-suite lines (lit, round trips; ctest keeps every test's output in
# LastTest.log) followed by ctest's own.
grep -hE "^(Total Discovered Tests|  (Passed|Failed|Unsupported): |roundtrip:|ort-roundtrip:|round trip over|conformance:|baseline:|ort-diff:|check-passes:|check-passes-node-tests:|check-opset-normalization:|qdq-zoo:|qdq-kernels:|conv-kernels:|int8-accuracy:|runtime zoo:|runtime node tests( \(jit\))?:|portable-build:|tsan:)" \
  Testing/Temporary/LastTest.log 2>/dev/null || true
grep -hE "^(sanitizers \(asan\+ubsan\)|fuzz): " sanitize.log 2>/dev/null || true
echo "phase times: setup ${t_setup} s, build ${t_build} s, tests ${t_tests} s, sanitizer job ${t_san} s$(grep -hE '^sanitizer job phases: ' sanitize.log 2>/dev/null | sed 's/^sanitizer job phases: / (/;s/$/)/')"
# CI shows the head and the tail of this output: each failure's reason
# goes next to the counts, not only in the middle of ctest's output.
if [ "$status" != 0 ]; then
  python3 "$root/scripts/failure-digest.py" ctest.log || true
fi
grep -E "tests passed|tests failed" ctest.log | tail -1
exit $status
