#!/usr/bin/env python3
"""Compares the probabilities printed by examples/embed-app with mix-run's.

The reference (mix-run --lower-to=quantize) reproduces the quantization and
the int8 GEMMs bit for bit but computes the float layers (batch norm,
pooling, softmax) in f64 where the app computes f32: on the same quantized
values the outputs then differ by f32 rounding only, a few 1e-8 on
probabilities below 1 (measured 1.4e-8). An activation within f32 rounding
of a quantization boundary could land one int8 step apart and move the
probabilities by up to ~1e-3; the example's fixed input does not hit one,
so the check is tight: 1e-6 absolute, and the same predicted class.
"""
import math
import sys

TOLERANCE = 1e-6


def app_values(path):
    for line in open(path):
        if line.startswith("probabilities:"):
            return [float(v) for v in line.split()[1:]]
    sys.exit(f"{path}: no 'probabilities:' line")


def reference_values(path):
    for line in open(path):
        if line.startswith("sample 0 output 0"):
            return [float(v) for v in line.split(":", 1)[1].split()]
    sys.exit(f"{path}: no 'sample 0 output 0' line")


app, ref = app_values(sys.argv[1]), reference_values(sys.argv[2])
if not all(math.isfinite(v) for v in app + ref):
    sys.exit("embed-app: non-finite probabilities")
if len(app) != len(ref):
    sys.exit(f"the app printed {len(app)} values, the reference {len(ref)}")
worst = max(abs(a - r) for a, r in zip(app, ref))
same_class = app.index(max(app)) == ref.index(max(ref))
print(f"max |app - reference| = {worst:.3g} (tolerance {TOLERANCE}); "
      f"same class: {same_class}")
if worst > TOLERANCE or not same_class:
    sys.exit("embed-app: the app's output does not match the reference")
print("embed-app: the app matches the reference interpreter")
