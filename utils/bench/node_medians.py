#!/usr/bin/python3
"""Per-node medians of `amk-run --trace` spans over many invocations.

`amk-run --trace` records the last run only, so one trace is noise. This
runs each command R times, interleaved (A, B, A, B, ...), each with
`--trace`, takes every node's span (its first task's start to its last
task's end, both workers) and prints the median per node and command, and
the median trace length (END).

Usage: node_medians.py R 'amk-run MODEL --threads T --bench --iters 10
--warmup 3' ['other command' ...]
"""
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile


def spans(path):
    events = [e for e in json.load(open(path))["traceEvents"]
              if e.get("ph") == "X" and e["name"] != "wait"]
    per_kernel = {}
    for e in events:
        k = e["args"]["kernel"]
        start, end, name = per_kernel.get(k, (float("inf"), 0, e["name"]))
        per_kernel[k] = (min(start, e["ts"]), max(end, e["ts"] + e["dur"]),
                         e["name"])
    by_name = collections.defaultdict(float)
    for start, end, name in per_kernel.values():
        by_name[name] += (end - start) / 1000
    by_name["END"] = (max(e["ts"] + e["dur"] for e in events) -
                      min(e["ts"] for e in events)) / 1000
    return by_name


def main():
    runs, commands = int(sys.argv[1]), sys.argv[2:]
    results = [collections.defaultdict(list) for _ in commands]
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.json")
        for _ in range(runs):
            for i, command in enumerate(commands):
                subprocess.run(f"{command} --trace {trace}", shell=True,
                               capture_output=True, check=True)
                for name, ms in spans(trace).items():
                    results[i][name].append(ms)
    for name in results[0]:
        cells = " ".join(f"{statistics.median(r[name]):8.3f}" if r[name]
                         else "       -" for r in results)
        print(f"{cells}  {name}")


if __name__ == "__main__":
    main()
