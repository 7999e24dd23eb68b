"""Writes the initial weights of spiral.mlir to a safetensors file:
uniform in +-sqrt(6 / fan_in) for the matrices, zeros for the biases, from a
fixed seed (so every run trains the same way).

    python3 make_weights.py OUT.safetensors
"""
import json
import random
import struct
import sys

SHAPES = [("fc1.weight", [2, 24]), ("fc1.bias", [24]),
          ("fc2.weight", [24, 24]), ("fc2.bias", [24]),
          ("out.weight", [24, 2]), ("out.bias", [2])]


def main(out):
    rng = random.Random(5)
    header, data = {}, b""
    for name, shape in SHAPES:
        count = 1
        for d in shape:
            count *= d
        bound = (6.0 / shape[0]) ** 0.5 if len(shape) == 2 else 0.0
        values = [rng.uniform(-bound, bound) for _ in range(count)]
        raw = struct.pack("<%df" % count, *values)
        header[name] = {"dtype": "F32", "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


if __name__ == "__main__":
    main(sys.argv[1])
