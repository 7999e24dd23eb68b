#!/usr/bin/env python3
"""Data, weights and the fitted quantile head of examples/tft_int8.mlir.

  make_data.py data DIR   writes into DIR:
    train.safetensors        input0 [512, 1, 24, 4], target0 [512, 1]
    calibration.safetensors  input0 [64, 1, 24, 4]
    validation.safetensors   input0 [256, 1, 24, 4], target0 [256, 1]
    weights.safetensors      every weight of the model; the head is 0
    tft_features.mlir        the model without its head: it returns the
                             GRN's context [1, 16] (the head's input)
  make_data.py fit DIR FEATURES
    FEATURES is mix-run's output of tft_features.mlir on train.safetensors;
    fits the head (least squares for the median, the 0.1 and 0.9 quantiles
    as the median plus those quantiles of the training residuals) and
    rewrites DIR/weights.safetensors with it.

The series: a seasonal signal (period 12) plus a slower one with a random
phase plus AR(1) noise. The 4 variables of each of the 24 steps are the
series itself, sin and cos of the season (known covariates) and an
irrelevant noise variable; the target is the next value of the series.
The weights of the variable selection, the LSTM, the attention and the GRN
are random (uniform, scaled by 1/sqrt(fan-in); LSTM forget-gate bias 1):
a reservoir whose context the fitted linear head reads, as an echo-state
network does. Only the standard library; deterministic (seeded).
"""
import json
import math
import os
import random
import re
import struct
import sys

STEPS, VARS, WIDTH = 24, 4, 16
MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                     "tft_int8.mlir")
QUANTILES = (0.1, 0.5, 0.9)

# (name, shape, fan-in or None for a constant initializer).
WEIGHTS = [
    ("vsn.select.weight", [4, 4], 4), ("vsn.select.bias", [4], 4),
    ("vsn.embed.weight", [4, 16], 4), ("vsn.embed.bias", [16], 4),
    ("encoder.lstm.w", [1, 64, 16], 16), ("encoder.lstm.r", [1, 64, 16], 16),
    ("encoder.lstm.b", [1, 128], None),
    ("attention.wq", [16, 16], 16), ("attention.wk", [16, 16], 16),
    ("attention.wv", [16, 16], 16), ("attention.wo", [16, 16], 16),
    ("attention.norm.gamma", [16], None), ("attention.norm.beta", [16], None),
    ("grn.fc1.weight", [16, 16], 16), ("grn.fc1.bias", [16], 16),
    ("grn.fc2.weight", [16, 32], 16), ("grn.fc2.bias", [32], 16),
    ("grn.norm.gamma", [16], None), ("grn.norm.beta", [16], None),
    ("head.weight", [16, 3], None), ("head.bias", [3], None),
]


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def write_safetensors(path, tensors):
    header, data = {}, b""
    for name, shape, values in tensors:
        raw = struct.pack("<%df" % len(values), *values)
        header[name] = {"dtype": "F32", "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    (length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + length])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw = blob[8 + length + begin:8 + length + end]
        out[name] = (info["shape"], list(struct.unpack("<%df" % (len(raw) // 4),
                                                       raw)))
    return out


def series(rng, length):
    """One series of `length` values and its season index."""
    start = rng.randrange(0, 12)
    phase = rng.uniform(0, 2 * math.pi)
    noise, values = 0.0, []
    for t in range(length):
        noise = 0.6 * noise + rng.gauss(0, 0.15)
        season = 2 * math.pi * (start + t) / 12
        values.append(math.sin(season) + 0.5 * math.sin(0.37 * t + phase) +
                      noise)
    return start, values


def samples(rng, n):
    inputs, targets = [], []
    for _ in range(n):
        start, values = series(rng, STEPS + 1)
        for t in range(STEPS):
            season = 2 * math.pi * (start + t) / 12
            inputs += [values[t], math.sin(season), math.cos(season),
                       rng.gauss(0, 1)]
        targets.append(values[STEPS])
    return inputs, targets


def weights(rng):
    out = []
    for name, shape, fan_in in WEIGHTS:
        n = count(shape)
        if name == "encoder.lstm.b":
            # Gates i, o, f, c: the forget gate's input bias is 1.
            values = [1.0 if 32 <= i < 48 else 0.0 for i in range(n)]
        elif name.endswith(".gamma"):
            values = [1.0] * n
        elif fan_in is None:
            values = [0.0] * n
        else:
            bound = 1 / math.sqrt(fan_in)
            values = [rng.uniform(-bound, bound) for _ in range(n)]
        out.append((name, shape, values))
    return out


def features_model():
    """examples/tft_int8.mlir without its head, returning the context."""
    text = open(MODEL).read()
    head = text.index("  // head:")
    body = text[:head] + "  mix.return %context : tensor<1x16xf32>\n}\n"
    return re.sub(r"-> tensor<1x3xf32> \{", "-> tensor<1x16xf32> {", body,
                  count=1)


def make(out):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20261204)
    write_safetensors(os.path.join(out, "weights.safetensors"), weights(rng))
    for name, n, with_targets in (("train", 512, True),
                                  ("calibration", 64, False),
                                  ("validation", 256, True)):
        inputs, targets = samples(rng, n)
        tensors = [("input0", [n, 1, STEPS, VARS], inputs)]
        if with_targets:
            tensors.append(("target0", [n, 1], targets))
        write_safetensors(os.path.join(out, name + ".safetensors"), tensors)
    with open(os.path.join(out, "tft_features.mlir"), "w") as f:
        f.write(features_model())


def solve(a, b):
    """Solves a x = b (a square, well conditioned) by Gaussian elimination
    with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[r][col] != 0:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def quantile(values, q):
    """The nearest-rank quantile."""
    s = sorted(values)
    return s[max(0, min(len(s) - 1, math.ceil(q * len(s)) - 1))]


def fit(out, features_path):
    rows = []
    for line in open(features_path):
        match = re.match(r"sample (\d+) output 0 \[1, 16\]: (.*)", line)
        if match:
            rows.append([float(v) for v in match.group(2).split()])
    targets = read_safetensors(os.path.join(out, "train.safetensors"))
    y = targets["target0"][1]
    if len(rows) != len(y):
        sys.exit("make_data.py: %d feature rows for %d targets" %
                 (len(rows), len(y)))
    # Ridge regression with an intercept: (X^T X + l I) w = X^T y.
    x = [r + [1.0] for r in rows]
    k, ridge = len(x[0]), 0.1
    xtx = [[sum(r[i] * r[j] for r in x) + (ridge if i == j else 0)
            for j in range(k)] for i in range(k)]
    xty = [sum(r[i] * t for r, t in zip(x, y)) for i in range(k)]
    w = solve(xtx, xty)
    residuals = [t - sum(a * b for a, b in zip(r, w)) for r, t in zip(x, y)]
    shifts = [quantile(residuals, q) for q in QUANTILES]
    head_w = [w[i] for i in range(WIDTH) for _ in QUANTILES]
    head_b = [w[WIDTH] + s for s in shifts]
    path = os.path.join(out, "weights.safetensors")
    tensors = read_safetensors(path)
    tensors["head.weight"] = ([WIDTH, 3], head_w)
    tensors["head.bias"] = ([3], head_b)
    write_safetensors(path, [(name, shape, values)
                             for name, (shape, values) in tensors.items()])
    print("make_data.py: head fitted on %d series (training pinball loss "
          "%.4f)" % (len(y), pinball(residuals, shifts)))


def pinball(residuals, shifts):
    total = 0.0
    for r in residuals:
        for q, s in zip(QUANTILES, shifts):
            e = r - s
            total += q * e if e >= 0 else (q - 1) * e
    return total / (len(residuals) * len(QUANTILES))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "data":
        make(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "fit":
        fit(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
