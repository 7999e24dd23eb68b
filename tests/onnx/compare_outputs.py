#!/usr/bin/env python3
"""Compares the outputs of an imported ONNX model with the numpy reference
of tests/onnx/make_models.py.

    compare_outputs.py EXPECTED.txt GOT.txt [--rtol R] [--atol A]

EXPECTED has lines `output I [shape]: values` (float64 numpy from the
model's float32 weights and inputs). GOT is either mix-run's output (`sample
S output I [shape]: values`, the samples of one output concatenated in
order) or the same `output I ...` lines printed by a compiled model.

Tolerance: |got - expected| <= atol + rtol * |expected| for every finite
expected value; an infinite one must be got exactly (same sign).
mix-run's f64 interpreter agrees with numpy to ~1e-15 relative; the
compiled f32 code rounds every operation to f32 (24 bits), whose error on
these small models (sums of at most 72 products) stays far below the
default rtol = 1e-4, atol = 1e-5.
"""
import argparse
import math
import re
import sys

LINE = re.compile(r"^(?:sample (\d+) )?output (\d+) \[[^\]]*\]:(.*)$")


def read(path):
    outputs = {}
    for line in open(path):
        m = LINE.match(line.strip())
        if not m:
            continue
        outputs.setdefault(int(m.group(2)), []).extend(
            float(v) for v in m.group(3).split())
    return outputs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("expected")
    parser.add_argument("got")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-5)
    args = parser.parse_args()
    want, got = read(args.expected), read(args.got)
    if sorted(want) != sorted(got):
        sys.exit(f"outputs {sorted(got)}, expected {sorted(want)}")
    worst = 0.0
    for i in sorted(want):
        if len(want[i]) != len(got[i]):
            sys.exit(f"output {i}: {len(got[i])} values, expected {len(want[i])}")
        for j, (w, g) in enumerate(zip(want[i], got[i])):
            if math.isinf(w):
                if g != w:
                    sys.exit(f"output {i}[{j}]: {g!r}, expected {w!r}")
                continue
            err = abs(g - w)
            worst = max(worst, err)
            if not err <= args.atol + args.rtol * abs(w):
                sys.exit(f"output {i}[{j}]: {g!r}, expected {w!r} "
                         f"(rtol {args.rtol}, atol {args.atol})")
    print(f"match: {sum(len(v) for v in want.values())} values, "
          f"max |got - expected| = {worst:.3g}")


if __name__ == "__main__":
    main()
