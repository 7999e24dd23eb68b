"""Writes the inputs of int-cast.mlir's @intcast for mix-run (the f64
interpreter): integers it holds exactly (|x| <= 2^53, or a power of two) as
a safetensors file with I64, I32 and I8 tensors input0, input1, input2."""
import json
import struct
import sys

tensors = [
    ("input0", "I64", "<q",
     [16777217, 2**53 - 1, -2**63, 2**62 + 2**38 + 2**10, -3, 16842753]),
    ("input1", "I32", "<i", [65504, 65519, 65520, -70000]),
    ("input2", "I8", "<b", [-1, 127, -128, 0]),
]
header, data = {}, b""
for name, dtype, fmt, values in tensors:
    raw = b"".join(struct.pack(fmt, v) for v in values)
    header[name] = {"dtype": dtype, "shape": [len(values)],
                    "data_offsets": [len(data), len(data) + len(raw)]}
    data += raw
text = json.dumps(header).encode()
text += b" " * ((8 - len(text) % 8) % 8)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + data)
