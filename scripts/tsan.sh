#!/usr/bin/env bash
# ThreadSanitizer over the runtime: builds the runtime library and its unit
# tests (test/runtime: dispatch chains across workers, GEMM tiles on two
# workers, the watchdog, kernel faults, traces) with -fsanitize=thread and
# runs them several times. The runtime has no MLIR/LLVM dependency, so it
# is compiled here directly rather than through a second full build.
# Usage: tsan.sh [OUT_DIR] [REPEATS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-${AMK_BUILD_DIR:-$root/build}/tsan}"
repeats="${2:-5}"
mkdir -p "$out"
cxx=$(command -v clang++-22 || command -v clang++)
"$cxx" -std=c++17 -fsanitize=thread -O1 -g -march=native -fno-omit-frame-pointer \
  -I"$root" -I"$root/runtime/include" -I"$root/runtime/support" -I"$root/runtime/lib" \
  $(find "$root/runtime/lib" -name '*.cpp' | sort) \
  $(find "$root/test/runtime" -name '*.cpp' | sort) \
  -lgtest -lgtest_main /usr/lib/libxsmm.a /usr/lib/libxsmmnoblas.a \
  -lpthread -ldl -lm -o "$out/amk-runtime-tests-tsan"
# halt_on_error: the first report fails the run.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
"$out/amk-runtime-tests-tsan" --gtest_repeat="$repeats" --gtest_brief=1
echo "tsan: runtime tests clean over $repeats repetitions"
