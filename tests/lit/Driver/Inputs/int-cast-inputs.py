"""Writes the inputs of int-cast.mlir's @intcast for mix-run (the f64
interpreter): integers it holds exactly (|x| <= 2^53, or a power of two) as
a safetensors file with I64, I32 and I8 tensors input0, input1, input2."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
import safetensors_file  # noqa: E402

tensors = [
    ("input0", "I64", "<q",
     [16777217, 2**53 - 1, -2**63, 2**62 + 2**38 + 2**10, -3, 16842753]),
    ("input1", "I32", "<i", [65504, 65519, 65520, -70000]),
    ("input2", "I8", "<b", [-1, 127, -128, 0]),
]
safetensors_file.write(
    sys.argv[1],
    [(name, dtype, [len(values)], b"".join(struct.pack(fmt, v) for v in values))
     for name, dtype, fmt, values in tensors])
