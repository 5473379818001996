#!/usr/bin/env bash
# Every pipeline of <pipelines-file> on every ONNX node test: each test of
# the conformance baseline must still pass after the pipeline and give the
# outputs it gave before it (amk-conformance --pipeline). A pipeline may
# refuse a model with an error (e.g. an opset it cannot downgrade); those
# are counted and listed, not failures.
# Usage: check-passes-node-tests.sh <tools-dir> <pipelines-file> <baseline>
set -uo pipefail
tools=$1; pipelines=$2; baseline=$3
fail=0; n=0
while IFS= read -r p; do
  p=${p%%#*}; p=$(echo "$p" | xargs)
  [ -z "$p" ] && continue
  n=$((n + 1))
  echo "== $p"
  if ! "$tools/amk-conformance" --pipeline="builtin.module($p)" \
       --baseline "$baseline"; then
    fail=$((fail + 1))
  fi
done < "$pipelines"
echo "check-passes-node-tests: $((n - fail)) pipelines passed, $fail failed"
[ $fail -eq 0 ]
