"""Writes a safetensors file with every external f32 weight of a mix model
(`mix.weight external "NAME" : tensor<AxBxf32>`): values uniform in
+-0.1 from a fixed seed; batch-norm scales and variances (names ending in
gamma, scale or var) are 1.

    random-weights.py MODEL.mlir OUT.safetensors
"""
import json
import random
import re
import struct
import sys


def main(model, out):
    source = open(model).read()
    rng = random.Random(1)
    header, data = {}, b""
    pattern = r'mix\.weight external "([^"]+)" : tensor<([0-9x]+)xf32>'
    for name, shape in re.findall(pattern, source):
        if name in header:
            continue
        dims = [int(d) for d in shape.split("x")]
        count = 1
        for d in dims:
            count *= d
        ones = name.endswith(("gamma", "scale", "var"))
        values = [1.0 if ones else rng.uniform(-0.1, 0.1)
                  for _ in range(count)]
        raw = struct.pack("<%df" % count, *values)
        header[name] = {"dtype": "F32", "shape": dims,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
