#!/usr/bin/env python3
"""Compiles the runtime's sources for CPUs other than this one.

The runtime is built with -march=native and chooses its AVX-512, VNNI,
AMX and AVX2 paths at run time, so every use of an instruction set
beyond the -march baseline must sit in a function with its own target
attribute. A lambda inside such a function does not inherit it, and
the build then fails only on a machine without that instruction set,
never on the one the change was made on. This recompiles each runtime
source from compile_commands.json with -march=x86-64-v3 (AVX2 and FMA,
no AVX-512: AMD Zen 2/3, Intel before Skylake-SP), at -O0 since the
target checks happen in code generation, and writes nothing.

Usage: check-portable-build.py BUILD_DIR [MARCH]
"""

import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build = sys.argv[1]
    march = sys.argv[2] if len(sys.argv) > 2 else "x86-64-v3"
    try:
        with open(os.path.join(build, "compile_commands.json")) as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"check-portable-build: {e}")
    jobs = []
    for e in entries:
        args = shlex.split(e["command"]) if "command" in e else e["arguments"]
        if "/runtime/" not in e["file"] or not any(
                a.startswith("-march=") for a in args):
            continue
        out, skip = [], False
        for a in args:
            if skip:
                skip = False
                continue
            if a == "-o":
                out += ["-o", os.devnull]
                skip = True
            elif a.startswith("-march="):
                out.append("-march=" + march)
            elif re.fullmatch(r"-O[0-3s]", a):
                out.append("-O0")
            else:
                out.append(a)
        jobs.append((e["file"], e.get("directory", build),
                     out + ["-fno-color-diagnostics"]))
    if not jobs:
        sys.exit("check-portable-build: no runtime sources with -march in "
                 "compile_commands.json")

    def compile_one(job):
        src, cwd, cmd = job
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        return src, r.returncode, r.stderr

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for src, rc, err in pool.map(compile_one, jobs):
            if rc != 0:
                failed += 1
                first = [l for l in err.splitlines() if "error" in l][:3]
                print(f"FAIL {src}:\n  " + "\n  ".join(first))
    print(f"portable-build: {len(jobs) - failed} runtime sources compiled "
          f"for -march={march}, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
