# Writes a small safetensors file for the weights of external.mlir:
#   make-safetensors.py KIND OUT
# KIND: good (the weights of tiny.mlir plus an unused tensor), shape (fc.weight
# transposed), dtype (fc.weight as F16), missing (no fc.bias), truncated (the
# data cut short), corrupt (the JSON header is not JSON).
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
import safetensors_file  # noqa: E402

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

text, data = safetensors_file.encode(tensors)
if kind == "corrupt":
    text = b"{not json" + b" " * (len(text) - 9)
blob = safetensors_file.blob(text, data)
if kind == "truncated":
    blob = blob[:-10]
with open(out, "wb") as f:
    f.write(blob)
