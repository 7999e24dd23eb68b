#!/usr/bin/env python3
"""Checks that object files or archives refer to no symbol outside an allowlist.

usage: check_symbols.py --nm NM --allow SYM,SYM,... FILE...

Prints the undefined symbols of every FILE (`nm -u`, archive members
together, minus the symbols another member of the same FILE defines) and
exits 1 if one is not in the allowlist: the freestanding core of mixrt
(libmixrt_core.a) must not need libc, libstdc++, Abseil or a heap.
"""

import argparse
import subprocess
import sys


def nm_symbols(nm, flag, path):
    out = subprocess.run([nm, flag, path], capture_output=True, text=True,
                         check=True).stdout
    symbols = set()
    for line in out.splitlines():
        line = line.strip()
        # Archive member headers ("check.c.o:") and blank lines.
        if not line or line.endswith(":"):
            continue
        symbols.add(line.split()[-1])
    return symbols


def undefined_symbols(nm, path):
    # Members of one archive refer to each other (ukernel.c calls the
    # per-ISA kernels of ukernel_avx2.c): those are not external.
    return nm_symbols(nm, "-u", path) - nm_symbols(nm, "--defined-only", path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nm", required=True)
    parser.add_argument("--allow", default="")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    allowed = {s for s in args.allow.split(",") if s}
    failed = False
    for path in args.files:
        symbols = undefined_symbols(args.nm, path)
        extra = sorted(symbols - allowed)
        print(f"{path}: undefined: {' '.join(sorted(symbols)) or '(none)'}")
        if extra:
            print(f"{path}: not allowed: {' '.join(extra)}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
