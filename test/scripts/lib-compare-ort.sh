# shellcheck shell=bash disable=SC2154
# Sourced by the dynamic-model checks: run_modes MODEL ARGS... runs amk-run
# on MODEL with 1 worker, 2 workers and 2 workers through the JIT, each
# compared with ONNX Runtime, counting PASS/FAIL in $pass and $fail.
# Needs $tools (the amk-run directory).
pass=0; fail=0
run_modes() {
  local m=$1; shift
  for mode in "--threads 1" "--threads 2" "--threads 2 --jit"; do
    # shellcheck disable=SC2086
    out=$("$tools/amk-run" "$m" $mode --seed 7 "$@" --compare-ort 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
      pass=$((pass + 1)); echo "PASS $(basename "$m") $* $mode"
    else
      fail=$((fail + 1)); echo "FAIL $(basename "$m") $* $mode (exit $rc)"
      echo "$out" | tail -20 | sed 's/^/    /'
    fi
  done
}
