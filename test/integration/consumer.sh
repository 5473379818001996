#!/usr/bin/env bash
# Build-system integration, end to end (docs/integration.md): installs AMK
# into a temporary prefix, then, from that prefix only,
#   1. configures, builds and runs examples/consumer (find_package(AMK),
#      amk_add_model), and checks its outputs against amk-run's for the same
#      pipeline, bit for bit (--jit: the same generated code);
#   2. checks that the model is recompiled when, and only when, the model,
#      the pipeline or amk-compile changes;
#   3. PRECISION int8 with CALIBRATION_DATA: the calibrated QDQ library
#      equals amk-run with its pipeline, bit for bit, and new samples
#      recompile it;
#   4. RECORDS: the library is built with the pipeline the installed
#      amk-tune chose (and equals amk-run's with it); new records recompile
#      it; without RECORDS the build ignores the user's records, which the
#      amk-compile command line does read;
#   5. builds the same program against a shared library and a static one
#      with pkg-config instead of CMake;
#   6. checks the errors: a missing model and a pipeline that does not parse
#      at configure time, a header from another build of the model at run
#      time, a worker count the schedule was not made for.
# Usage: consumer.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
prefix="$work/prefix"
model="$src/examples/tiny_cnn.onnx"
cc=(-DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22)
# The tools' default records store (amk-tune writes it, amk-compile reads
# it) is this test's own, never the user's.
export XDG_CACHE_HOME="$work/cache"
step() { echo "== $*"; }
fail() { echo "integration: FAILED: $*"; exit 1; }
expect_fail() { # expect_fail LOG PATTERN -- command...
  local log=$1 pattern=$2
  shift 3
  if "$@" >"$log" 2>&1; then fail "'$*' succeeded"; fi
  grep -qF -- "$pattern" "$log" || { cat "$log"; fail "no '$pattern' in the output of '$*'"; }
  echo "refused as expected: $(grep -F -m1 -- "$pattern" "$log" | sed 's/^ *//')"
}

step "install into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in bin/amk-compile bin/amk-opt bin/amk-run bin/amk-tune bin/amk-report \
         share/amk/knowledge/rules/cpu.json lib/libamk_runtime.a \
         include/amk/model.h lib/cmake/AMK/AMKConfig.cmake lib/pkgconfig/amk.pc; do
  [ -e "$prefix/$f" ] || fail "$f was not installed"
done

step "configure and build examples/consumer from the installed package"
cmake -G Ninja -S "$src/examples/consumer" -B "$work/consumer" "${cc[@]}" \
  -DCMAKE_PREFIX_PATH="$prefix" -DWORKERS=2 >"$work/configure.log"
ninja -C "$work/consumer" >"$work/build1.log" || { cat "$work/build1.log"; fail "build"; }
grep -q "Compiling model" "$work/build1.log" || fail "the model was not compiled"
mkdir -p "$work/npy/in" "$work/npy/out"
"$work/consumer/classify" --npy "$work/npy" | tee "$work/run.log"
pipeline=$(sed -n 's/^pipeline //p' "$work/run.log")
[ -n "$pipeline" ] || fail "the library does not report its pipeline"

step "outputs equal amk-run's for the same pipeline"
"$prefix/bin/amk-run" "$model" --pipeline "$pipeline" --jit --rtol 0 --atol 0 \
  --input-dir "$work/npy/in" --compare "$work/npy/out" | tee "$work/compare.log"
grep -q "ok vs" "$work/compare.log" || fail "outputs differ from amk-run"
"$work/consumer/classify" --threads 1 --npy "$work/npy" >/dev/null
"$prefix/bin/amk-run" "$model" --pipeline "$pipeline" --jit --rtol 0 --atol 0 \
  --input-dir "$work/npy/in" --compare "$work/npy/out" | grep -q "ok vs" ||
  fail "single-thread outputs differ from amk-run"
echo "single-thread session: identical"

step "rebuilds: none when nothing changed, the model when the pipeline changes"
ninja -C "$work/consumer" >"$work/build2.log"
grep -q "no work to do" "$work/build2.log" || { cat "$work/build2.log"; fail "an unchanged build did work"; }
echo "unchanged: no work to do"
cmake "$work/consumer" \
  -DPIPELINE="builtin.module(amk-graph-opt,amk-schedule-megakernel{workers=2 tile-cols=32})" \
  >/dev/null
ninja -C "$work/consumer" >"$work/build3.log"
grep -q "Compiling model" "$work/build3.log" || fail "a new pipeline did not recompile the model"
"$work/consumer/classify" | grep -q "tile-cols=32" || fail "the new pipeline is not in the library"
echo "new pipeline: recompiled"
touch "$prefix/bin/amk-compile"
ninja -C "$work/consumer" >"$work/build4.log"
grep -q "Compiling model" "$work/build4.log" || fail "a new amk-compile did not recompile the model"
echo "new compiler: recompiled"

step "amk_add_model(... SHARED): the same program on libtiny_cnn.so"
cmake -G Ninja -S "$src/examples/consumer" -B "$work/consumer-so" "${cc[@]}" \
  -DCMAKE_PREFIX_PATH="$prefix" -DWORKERS=2 -DSHARED_MODEL=ON >/dev/null
ninja -C "$work/consumer-so" >"$work/build-so.log" || { cat "$work/build-so.log"; fail "shared build"; }
[ -f "$work/consumer-so/amk_models/tiny_cnn/libtiny_cnn.so" ] || fail "no shared library was built"
"$work/consumer-so/classify" | tail -1 >"$work/cmake-so.log"
"$work/consumer/classify" | tail -1 >"$work/cmake-a.log"
cmp -s "$work/cmake-so.log" "$work/cmake-a.log" || fail "SHARED and static models disagree"
echo "shared: $(cat "$work/cmake-so.log")"

step "PRECISION int8: the calibrated QDQ library equals amk-run with its pipeline"
/usr/bin/python3 - "$work/calib" <<'PY'
import pathlib, sys
import numpy as np
rng = np.random.default_rng(7)
for k in range(4):
    d = pathlib.Path(sys.argv[1]) / f"sample_{k}"
    d.mkdir(parents=True)
    np.save(d / "input.npy", rng.standard_normal((1, 1, 28, 28)).astype(np.float32))
PY
cmake -G Ninja -S "$src/examples/consumer" -B "$work/consumer-int8" "${cc[@]}" \
  -DCMAKE_PREFIX_PATH="$prefix" -DWORKERS=2 -DPRECISION=int8 \
  -DCALIBRATION_DATA="$work/calib" >/dev/null
ninja -C "$work/consumer-int8" >"$work/build-int8.log" || { cat "$work/build-int8.log"; fail "int8 build"; }
mkdir -p "$work/npy8/in" "$work/npy8/out"
"$work/consumer-int8/classify" --npy "$work/npy8" >"$work/run8.log"
pipeline8=$(sed -n 's/^pipeline //p' "$work/run8.log")
case "$pipeline8" in
  *amk-quantize{precision=int8*) ;;
  *) fail "the int8 library's pipeline is not calibrated QDQ: $pipeline8" ;;
esac
"$prefix/bin/amk-run" "$model" --pipeline "$pipeline8" --jit --rtol 0 --atol 0 \
  --input-dir "$work/npy8/in" --compare "$work/npy8/out" | tee "$work/compare8.log"
grep -q "ok vs" "$work/compare8.log" || fail "int8 outputs differ from amk-run"
# The calibration data is an input of the build: new samples recompile.
touch "$work/calib/sample_0/input.npy"
ninja -C "$work/consumer-int8" >"$work/build-int8b.log"
grep -q "Compiling model" "$work/build-int8b.log" || fail "new calibration samples did not recompile the model"
echo "int8: identical to amk-run; new samples recompiled"
expect_fail "$work/err7.log" "amk_add_model(tiny_cnn): amk-compile: error: --precision int8 needs" -- \
  cmake -G Ninja -S "$src/examples/consumer" -B "$work/bad-int8" "${cc[@]}" \
    -DCMAKE_PREFIX_PATH="$prefix" -DPRECISION=int8

step "RECORDS: the pipeline amk-tune chose, from the installed tools"
# --workers 2: the consumer's schedule; the pinned tasks-per-worker makes
# the tuned pipeline unlike the default one whatever the search keeps.
"$prefix/bin/amk-tune" "$model" --workers 2 --budget 3 --iters 2 \
  --fix amk-schedule-megakernel.tasks-per-worker=4 --records "$work/rec.jsonl" \
  --no-prior --compare-ort=false --report "$work/tune-report" \
  >"$work/tuned.txt" 2>"$work/tune.log" || { cat "$work/tune.log"; fail "amk-tune"; }
grep -q "Knowledge rules applied" "$work/tune-report/report.md" || fail "no report"
grep -q -- "- \`cpu-" "$work/tune-report/report.md" ||
  fail "the installed amk-tune applied no knowledge rule (rules not found?)"
tuned=$(cat "$work/tuned.txt")
cmake -G Ninja -S "$src/examples/consumer" -B "$work/consumer-tuned" "${cc[@]}" \
  -DCMAKE_PREFIX_PATH="$prefix" -DWORKERS=2 -DRECORDS="$work/rec.jsonl" >/dev/null
ninja -C "$work/consumer-tuned" >"$work/build-tuned.log" || { cat "$work/build-tuned.log"; fail "tuned build"; }
mkdir -p "$work/npyt/in" "$work/npyt/out"
"$work/consumer-tuned/classify" --npy "$work/npyt" >"$work/runt.log"
[ "$(sed -n 's/^pipeline //p' "$work/runt.log")" = "$tuned" ] ||
  fail "the library's pipeline is not the tuned one: $(grep '^pipeline' "$work/runt.log")"
"$prefix/bin/amk-run" "$model" --pipeline "$tuned" --jit --rtol 0 --atol 0 \
  --input-dir "$work/npyt/in" --compare "$work/npyt/out" | grep -q "ok vs" ||
  fail "the tuned library's outputs differ from amk-run's"
touch "$work/rec.jsonl"
ninja -C "$work/consumer-tuned" >"$work/build-tuned2.log"
grep -q "Compiling model" "$work/build-tuned2.log" || fail "new records did not recompile the model"
# The same records in the user's default store: the command line takes
# them, the build without RECORDS does not.
mkdir -p "$XDG_CACHE_HOME/amk" && cp "$work/rec.jsonl" "$XDG_CACHE_HOME/amk/records.jsonl"
[ "$("$prefix/bin/amk-compile" "$model" --workers 2 --print-pipeline 2>/dev/null)" = "$tuned" ] ||
  fail "amk-compile did not take the tuned pipeline from the default records"
[ "$("$prefix/bin/amk-compile" "$model" --workers 2 --no-records --print-pipeline)" != "$tuned" ] ||
  fail "--no-records still took the tuned pipeline"
rm -rf "$work/consumer-norec"
cmake -G Ninja -S "$src/examples/consumer" -B "$work/consumer-norec" "${cc[@]}" \
  -DCMAKE_PREFIX_PATH="$prefix" -DWORKERS=2 >/dev/null
ninja -C "$work/consumer-norec" >/dev/null
"$work/consumer-norec/classify" | grep -qxF "pipeline $pipeline" ||
  fail "a build without RECORDS read the user's records"
rm -rf "$XDG_CACHE_HOME/amk" "$work/consumer-norec"
echo "records: tuned pipeline built, identical to amk-run; default store ignored by the build"

step "pkg-config: a shared and a static library without CMake"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
mkdir -p "$work/so" "$work/a"
"$prefix/bin/amk-compile" "$model" --workers 2 --name tiny_cnn --quiet \
  -o "$work/so/libtiny_cnn.so" --header "$work/so/tiny_cnn.h"
# shellcheck disable=SC2046
clang++-22 -std=c++17 "$src/examples/consumer/main.cpp" -I"$work/so" \
  $(pkg-config --cflags amk) -L"$work/so" -ltiny_cnn -o "$work/so/classify"
LD_LIBRARY_PATH="$work/so" "$work/so/classify" | tail -1 | tee "$work/so.log"
"$prefix/bin/amk-compile" "$model" --workers 2 --name tiny_cnn --quiet \
  -o "$work/a/libtiny_cnn.a" --header "$work/a/tiny_cnn.h"
# shellcheck disable=SC2046
clang++-22 -std=c++17 "$src/examples/consumer/main.cpp" -I"$work/a" \
  "$work/a/libtiny_cnn.a" $(pkg-config --cflags --libs amk) -o "$work/a/classify"
"$work/a/classify" | tail -1 | tee "$work/a.log"
cmp -s "$work/so.log" "$work/a.log" || fail "shared and static libraries disagree"
grep -q "class" "$work/a.log" || fail "no prediction"

step "variants: amk_add_model(... DIMS) compiles two shape sets into one library, chosen by shape"
for kind in static shared; do
  opt=OFF; [ $kind = shared ] && opt=ON
  cmake -G Ninja -S "$src/examples/variants" -B "$work/variants-$kind" "${cc[@]}" \
    -DCMAKE_PREFIX_PATH="$prefix" -DSHARED_MODEL=$opt >/dev/null
  ninja -C "$work/variants-$kind" >"$work/variants-$kind.log" || { cat "$work/variants-$kind.log"; fail "variants $kind build"; }
  "$work/variants-$kind/variants" | tee "$work/variants-$kind.out" || fail "the $kind variants program failed"
done
grep -q "DYN_NUM_VARIANTS 2u" "$work/variants-static/amk_models/dyn/include/dyn.h" || fail "the header does not list two variants"
grep -q "compiled variants: x=\[1,3,5\]; x=\[4,3,7\]" "$work/variants-static.out" ||
  fail "a shape without a variant was not refused naming the variants"
cmp -s "$work/variants-static.out" "$work/variants-shared.out" || fail "static and shared variants disagree"
echo "variants: static and shared libraries select by shape"

step "errors at the step where they happen"
expect_fail "$work/err1.log" "amk_add_model(tiny_cnn): the model '/nonexistent/model.onnx' does not exist" -- \
  cmake -G Ninja -S "$src/examples/consumer" -B "$work/bad1" "${cc[@]}" \
    -DCMAKE_PREFIX_PATH="$prefix" -DMODEL=/nonexistent/model.onnx
expect_fail "$work/err2.log" "does not parse" -- \
  cmake -G Ninja -S "$src/examples/consumer" -B "$work/bad2" "${cc[@]}" \
    -DCMAKE_PREFIX_PATH="$prefix" "-DPIPELINE=builtin.module(amk-no-such-pass)"
# A header from another build of the model (scheduled for 1 worker)
# compiled against the 2-worker library.
mkdir -p "$work/a/other"
"$prefix/bin/amk-compile" "$model" --workers 1 --name tiny_cnn --quiet \
  -o "$work/a/other.a" --header "$work/a/other/tiny_cnn.h"
# shellcheck disable=SC2046
clang++-22 -std=c++17 "$src/examples/consumer/main.cpp" -I"$work/a/other" \
  "$work/a/libtiny_cnn.a" $(pkg-config --cflags --libs amk) -o "$work/a/stale"
expect_fail "$work/err3.log" "the header was generated for model hash" -- "$work/a/stale"
expect_fail "$work/err4.log" "was scheduled for 2 workers" -- "$work/a/classify" --threads 3
expect_fail "$work/err5.log" "is not a directory" -- \
  "$prefix/bin/amk-compile" "$model" --precision int8 --calibration-data "$work/nowhere" -o "$work/x.a"
expect_fail "$work/err6.log" "the name must end in .a, .so or .o" -- \
  "$prefix/bin/amk-compile" "$model" -o "$work/x.lib"
echo "integration: all checks passed"
