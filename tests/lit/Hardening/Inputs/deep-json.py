# Writes JSON nested DEPTH levels deep: policy/calibration text, or (with
# "safetensors") a safetensors file whose header is that JSON.
import struct
import sys

kind, depth, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = ("[" * depth + "]" * depth).encode()
if kind == "safetensors":
    text = struct.pack("<Q", len(text)) + text
with open(path, "wb") as f:
    f.write(text)
