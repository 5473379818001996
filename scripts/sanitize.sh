#!/usr/bin/env bash
# The sanitizer job (docs/security.md): builds AMK with AddressSanitizer and
# UndefinedBehaviorSanitizer (and libFuzzer coverage) in build-san/, then
#   1. runs the test subset that fits CI's time (lit: every tool on every
#      IR, model and error test; the GoogleTest units; the runtime's units;
#      the ONNX node tests on the reference interpreter and on the runtime),
#   2. runs each fuzzer for FUZZ_SECONDS (default 30) on its seed corpus
#      (scripts/fuzz.sh), after replaying the crash regressions.
# Any sanitizer report fails the job. ThreadSanitizer is the runtime-tsan
# ctest of the main suite. Usage: sanitize.sh [FUZZ_SECONDS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMK_SAN_BUILD_DIR:-$root/build-san}"
fuzz_seconds="${1:-30}"
"$root/scripts/setup.sh" >/dev/null
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -gline-tables-only" \
    "-DCMAKE_C_FLAGS_RELEASE=-O1 -gline-tables-only" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    "-DAMK_SANITIZE=address;undefined" -DAMK_FUZZ=ON >/dev/null
fi
t0=$SECONDS
ninja -C "$build" -j "${AMK_JOBS:-$(nproc)}" all
t_build=$((SECONDS - t0))
# Leaks are checked too; the suppressions name only upstream libraries.
# allow_user_poisoning=0: LLVM's headers poison BumpPtrAllocator slabs
# from our instrumented code while Debian's uninstrumented libMLIR writes
# to them (false reports); the allocator's redzones are all it costs.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:allow_user_poisoning=0:strict_string_checks=1:detect_stack_use_after_return=1"
export LSAN_OPTIONS="suppressions=$root/scripts/sanitizer/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$build"
status=0
# Labels: "san" on the suites that fit, "unit" on every GoogleTest case
# (gtest_discover_tests takes a single label).
t0=$SECONDS
ctest --output-on-failure -j "$(nproc)" -L '^(san|unit)$' 2>&1 | tee ctest-san.log || status=$?
t_tests=$((SECONDS - t0))
grep -E "tests passed|tests failed" ctest-san.log | tail -1 | sed 's/^/sanitizers (asan+ubsan): /'
t0=$SECONDS
"$root/scripts/fuzz.sh" "$fuzz_seconds" || status=$?
echo "sanitizer job phases: build ${t_build} s, tests ${t_tests} s, fuzz $((SECONDS - t0)) s"
exit $status
