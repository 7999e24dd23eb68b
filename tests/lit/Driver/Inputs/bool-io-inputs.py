# Writes the inputs of bool-io-app.c as a safetensors file for mix-run
# (Driver/bool-io.test): input0 F32 [2, 3], input1 BOOL [2, 3]; with "bad",
# a BOOL byte of 2.
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
import safetensors_file  # noqa: E402

out = sys.argv[1]
bad = len(sys.argv) > 2 and sys.argv[2] == "bad"
a = struct.pack("<6f", -1.0, 2.0, -0.0, 0.5, -3.0, float("nan"))
m = bytes([1, 1, 0, 0, 1, 2 if bad else 0])
safetensors_file.write(out, [("input0", "F32", [2, 3], a),
                             ("input1", "BOOL", [2, 3], m)])
