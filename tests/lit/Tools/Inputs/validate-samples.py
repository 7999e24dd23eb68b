# Writes a validation set for Inputs/validate.mlir:
#   validate-samples.py KIND OUT
# input0: 4 samples [1, 2]: (1, 2), (3, 1), (0, 4), (-1, -2).
# KIND labels: target0 = the class labels 1, 0, 2, 0 (the classifier @cls
# predicts 1, 0, 1 (a tie of 4 and 4: the first), 0: 3 of 4 right).
# KIND values: target0 = 3, 5, 4, -1 (the regressor @reg predicts x0 + x1 =
# 3, 4, 4, -3: errors 0, 1, 0, 2).
# KIND pairs: target0 = the same values, twice per sample ([4, 1, 2]: one
# per output of @reg: errors 0, 0, 1, 1, 0, 0, 2, 2, mean square 1.25).
# KIND none: no target0.
import json
import struct
import sys

kind, out = sys.argv[1], sys.argv[2]
inputs = [1, 2, 3, 1, 0, 4, -1, -2]
tensors = [("input0", [4, 1, 2], inputs)]
if kind == "labels":
    tensors.append(("target0", [4, 1], [1, 0, 2, 0]))
elif kind == "values":
    tensors.append(("target0", [4, 1], [3, 5, 4, -1]))
elif kind == "pairs":
    tensors.append(("target0", [4, 1, 2], [3, 3, 5, 5, 4, 4, -1, -1]))

header, data = {}, b""
for name, shape, values in tensors:
    raw = struct.pack("<%df" % len(values), *values)
    header[name] = {"dtype": "F32", "shape": shape,
                    "data_offsets": [len(data), len(data) + len(raw)]}
    data += raw
text = json.dumps(header).encode()
text += b" " * (-len(text) % 8)
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + data)
