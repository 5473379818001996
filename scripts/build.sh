#!/usr/bin/env bash
# Configures and builds AMK in build/ (Ninja, clang-22, lld). Idempotent.
# Usage: scripts/build.sh [extra ninja targets...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMK_BUILD_DIR:-$root/build}"
jobs="${AMK_JOBS:-$(nproc)}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld
fi
ninja -C "$build" -j "$jobs" all "$@"
