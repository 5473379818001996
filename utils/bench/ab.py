#!/usr/bin/env python3
"""Interleaved A/B timing of amk-run commands, for changes smaller than the
run-to-run spread of a shared VM (docs/runtime.md, "how the figures were
measured"): each command runs once per round, in turn, for N rounds, so a
slow phase of the machine hits every command alike. Each command must print
amk-run's benchmark line ("latency over R runs: min X ms, median Y ms");
the script reports, per command, the least and the median of the rounds'
medians.

Usage: ab.py N 'CMD_A' 'CMD_B' [...]
Example (the previous commit's binary built in build-base/):
  ab.py 8 'build-base/bin/amk-run M.onnx --threads 1 --bench --iters 20' \\
          'build/bin/amk-run M.onnx --threads 1 --bench --iters 20'
"""
import re
import statistics
import subprocess
import sys

LINE = re.compile(r"latency over \d+ runs: min ([\d.]+) ms, median ([\d.]+)")


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    rounds, commands = int(sys.argv[1]), sys.argv[2:]
    medians = {c: [] for c in commands}
    for _ in range(rounds):
        for c in commands:
            run = subprocess.run(c, shell=True, capture_output=True, text=True)
            m = LINE.search(run.stdout)
            if run.returncode or not m:
                sys.exit(f"ab.py: no benchmark line from: {c}\n"
                         f"{(run.stdout + run.stderr)[-800:]}")
            medians[c].append(float(m.group(2)))
    for c in commands:
        v = medians[c]
        print(f"min {min(v):.3f} ms  median {statistics.median(v):.3f} ms  "
              f"({rounds} rounds)  {c}")


if __name__ == "__main__":
    main()
