#!/usr/bin/env python3
"""Writes the data of the embed-app example into a directory:

  weights.safetensors   deterministic weights for examples/edge_int8.mlir
                        (uniform, scaled by 1/sqrt(fan-in); batch-norm
                        variances positive), all F32
  samples.safetensors   input0 [16, 1, 28, 28]: calibration images (a bright
                        blob at varying places, plus noise)
  input.safetensors     input0 [1, 1, 28, 28]: the image main.c classifies
                        (the same formula, so mix-run can compute the
                        reference)

Only the standard library: safetensors is an 8-byte little-endian header
length, a JSON header, then the raw little-endian data.
"""
import json
import math
import os
import struct
import sys

# (name, shape) of every external weight of examples/edge_int8.mlir.
WEIGHTS = [
    ("features.conv1.weight", [16, 1, 3, 3]), ("features.conv1.bias", [16]),
    ("features.bn1.scale", [16]), ("features.bn1.bias", [16]),
    ("features.bn1.mean", [16]), ("features.bn1.var", [16]),
    ("features.conv2.weight", [32, 16, 3, 3]), ("features.conv2.bias", [32]),
    ("features.bn2.scale", [32]), ("features.bn2.bias", [32]),
    ("features.bn2.mean", [32]), ("features.bn2.var", [32]),
    ("classifier.fc1.weight", [1568, 64]), ("classifier.fc1.bias", [64]),
    ("classifier.fc2.weight", [64, 10]), ("classifier.fc2.bias", [10]),
]


class Lcg:
    """A 64-bit linear congruential generator: the same numbers everywhere."""

    def __init__(self, seed):
        self.state = seed

    def uniform(self):  # in [-0.5, 0.5)
        self.state = (self.state * 6364136223846793005 +
                      1442695040888963407) % (1 << 64)
        return ((self.state >> 11) & 0xFFFFF) / float(0x100000) - 0.5


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, shape, values in tensors:
        data = struct.pack("<%df" % len(values), *values)
        header[name] = {"dtype": "F32", "shape": shape,
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    os.replace(path + ".tmp", path)


def image_pixel(x, y):
    """The image main.c builds: exact in f32 (multiples of 1/16)."""
    return ((x * 7 + y * 13) % 17) / 16.0


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = Lcg(0x2545F4914F6CDD1D)
    tensors = []
    for name, shape in WEIGHTS:
        count = math.prod(shape)
        fan_in = count // shape[0] if len(shape) > 1 else 1
        if len(shape) == 2:  # dense weights are [in, out]
            fan_in = shape[0]
        values = []
        for _ in range(count):
            v = rng.uniform() * 2.0 / math.sqrt(fan_in)
            values.append(f32(0.5 + abs(v) if name.endswith(".var") else v))
        tensors.append((name, shape, values))
    write_safetensors(os.path.join(out, "weights.safetensors"), tensors)

    noise = Lcg(17)
    samples = []
    for s in range(16):
        cx, cy = 6 + 3 * (s % 6), 8 + 2 * (s % 7)
        for y in range(28):
            for x in range(28):
                d2 = (x - cx) ** 2 + (y - cy) ** 2
                v = math.exp(-d2 / 30.0) + 0.1 * (noise.uniform() + 0.5)
                samples.append(f32(min(v, 1.0)))
    write_safetensors(os.path.join(out, "samples.safetensors"),
                      [("input0", [16, 1, 28, 28], samples)])
    image = [image_pixel(x, y) for y in range(28) for x in range(28)]
    write_safetensors(os.path.join(out, "input.safetensors"),
                      [("input0", [1, 1, 28, 28], image)])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_data.py OUTPUT_DIR")
    main(sys.argv[1])
