# Writes a small safetensors file for the weights of external.mlir:
#   make-safetensors.py KIND OUT
# KIND: good (the weights of tiny.mlir plus an unused tensor), shape (fc.weight
# transposed), dtype (fc.weight as F16), missing (no fc.bias), truncated (the
# data cut short), corrupt (the JSON header is not JSON).
import json
import struct
import sys

kind, out = sys.argv[1], sys.argv[2]

weight = [0.5, -1.0, 0.25, 1.0, 0.5, -0.5, -0.25, 1.0, 1.0, 0.125, -0.5, 2.0]
bias = [0.5, -1.0, 0.0]
tensors = [
    ("fc.weight", "F32", [4, 3], struct.pack("<12f", *weight)),
    ("fc.bias", "F32", [3], struct.pack("<3f", *bias)),
    ("unused.scale", "F32", [1], struct.pack("<f", 2.0)),
]
if kind == "shape":
    tensors[0] = ("fc.weight", "F32", [3, 4], tensors[0][3])
elif kind == "dtype":
    tensors[0] = ("fc.weight", "F16", [4, 3], struct.pack("<12e", *weight))
elif kind == "missing":
    del tensors[1]

header, data = {}, b""
for name, dtype, shape, raw in tensors:
    header[name] = {"dtype": dtype, "shape": shape,
                    "data_offsets": [len(data), len(data) + len(raw)]}
    data += raw
text = json.dumps(header).encode()
if kind == "corrupt":
    text = b"{not json" + b" " * (len(text) - 9)
text += b" " * (-len(text) % 8)
blob = struct.pack("<Q", len(text)) + text + data
if kind == "truncated":
    blob = blob[:-10]
with open(out, "wb") as f:
    f.write(blob)
