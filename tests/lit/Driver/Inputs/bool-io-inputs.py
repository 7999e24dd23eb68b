# Writes the inputs of bool-io-app.c as a safetensors file for mix-run
# (Driver/bool-io.test): input0 F32 [2, 3], input1 BOOL [2, 3]; with "bad",
# a BOOL byte of 2.
import json
import struct
import sys

out = sys.argv[1]
bad = len(sys.argv) > 2 and sys.argv[2] == "bad"
a = struct.pack("<6f", -1.0, 2.0, -0.0, 0.5, -3.0, float("nan"))
m = bytes([1, 1, 0, 0, 1, 2 if bad else 0])
header = {
    "input0": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
    "input1": {"dtype": "BOOL", "shape": [2, 3], "data_offsets": [24, 30]},
}
h = json.dumps(header).encode()
h += b" " * (-len(h) % 8)
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + a + m)
