# Recomputes the figures mix-bench --validate reports for the TFT example
# (tests/lit/Examples/tft.test) from mix-run's outputs, independently of
# mix-bench:
#   tft-check.py REPORT.json VALIDATION.safetensors REFERENCE.txt QUANTIZED.txt
# REFERENCE.txt: mix-run on the model (the f64 interpreter, the reference);
# QUANTIZED.txt: mix-run --lower-to=quantize (the int8 arithmetic emulated
# exactly, the gates in f64 instead of the compiled f32).
# Checks:
# - the reference pinball loss of the report is the one computed here from
#   REFERENCE.txt (1e-9 relative: the same f64 values, summed in another
#   order);
# - the compiled loss of the report is within 1e-3 relative of the loss of
#   QUANTIZED.txt (the compiled gates and rescales are f32: each quantile
#   differs by a few f32 ulps, far below the quantization error);
# - the int8 loss is within 5% of the reference's (the goal), and
#   the model forecasts: its loss is below half that of the best constant
#   forecast (the quantiles of the validation targets themselves).
# Prints one line per held claim; exits 1 at the first one that fails.
import json
import os
import re
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
import safetensors_file  # noqa: E402

QUANTILES = (0.1, 0.5, 0.9)


def targets(path):
    raw = safetensors_file.read(path)["target0"][2]
    return struct.unpack("<%df" % (len(raw) // 4), raw)


def outputs(path):
    rows = []
    for line in open(path):
        m = re.match(r"sample \d+ output 0 \[1, 3\]: (.*)", line)
        if m:
            rows.append([float(v) for v in m.group(1).split()])
    return rows


def pinball(rows, ys):
    total = 0.0
    for row, y in zip(rows, ys):
        for q, v in zip(QUANTILES, row):
            e = y - v
            total += q * e if e >= 0 else (q - 1) * e
    return total / (len(ys) * len(QUANTILES))


def check(ok, message):
    if not ok:
        print("FAILED: " + message)
        sys.exit(1)
    print(message)


report = json.load(open(sys.argv[1]))["validation"]
ys = targets(sys.argv[2])
reference, quantized = outputs(sys.argv[3]), outputs(sys.argv[4])
check(len(reference) == len(ys) == len(quantized) == report["samples"],
      "%d samples" % len(ys))
loss = report["losses"][0]
check(loss["kind"] == "quantile", "a quantile loss")
mine = pinball(reference, ys)
check(abs(loss["reference"] - mine) <= 1e-9 * mine,
      "reference loss recomputed")
emulated = pinball(quantized, ys)
check(abs(loss["compiled"] - emulated) <= 1e-3 * emulated,
      "int8 loss recomputed from the emulated int8 model")
check(loss["compiled"] <= 1.05 * loss["reference"],
      "int8 loss within 5% of the reference")
s = sorted(ys)
constant = [s[max(0, int(q * len(s)) - 1)] for q in QUANTILES]
baseline = pinball([constant] * len(ys), ys)
check(loss["reference"] < 0.5 * baseline,
      "the model beats half the constant forecast's loss")
