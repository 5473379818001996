#!/usr/bin/env python3
"""Prints the last lines of each failed test's output from a ctest log.

CI shows only the head and the tail of what scripts/test.sh printed, and
a failed lit test's reason (the failing RUN line and FileCheck's message)
sits in the middle; this puts a short excerpt of it next to the summary.
Usage: failure-digest.py CTEST_LOG [LINES_PER_FAILURE]
"""

import re
import sys


def blocks(lines):
    """Yields (name, body lines) for each lit failure, then each ctest one."""
    i = 0
    while i < len(lines):
        m = re.match(r"\*{20} TEST '(.*)' FAILED \*{20}", lines[i])
        if not m:
            i += 1
            continue
        body = []
        i += 1
        while i < len(lines) and not lines[i].startswith("*" * 20):
            body.append(lines[i])
            i += 1
        yield m.group(1), body


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: failure-digest.py CTEST_LOG [LINES_PER_FAILURE]")
    keep = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    try:
        with open(sys.argv[1], errors="replace") as f:
            lines = [l.rstrip("\n") for l in f]
    except OSError as e:
        sys.exit(f"failure-digest.py: {e}")
    found = False
    for name, body in blocks(lines):
        # The RUN line that failed (lit echoes each one before running it)
        # and the first error after it carry the reason; the input dumps
        # and lit's separators do not.
        body = [l for l in body if l.strip() not in ("", "--")]
        runs = [i for i, l in enumerate(body) if "# RUN: at line" in l]
        start = runs[-1] if runs else 0
        tail = body[start:]
        errs = [i for i, l in enumerate(tail) if "error" in l.lower()]
        picked = tail[:1] + (tail[errs[0]:errs[0] + keep - 1] if errs else
                             tail[-(keep - 1):])
        print(f"failed: {name}")
        for l in picked:
            print("  " + (l if len(l) <= 240 else l[:237] + "..."))
        found = True
    if not found:
        for l in lines:
            if re.search(r"\*\*\*(Failed|Exception|Timeout)", l):
                print("failed: " + re.sub(r"\s*\.{3,}\s*", " ", l.strip()))


if __name__ == "__main__":
    main()
