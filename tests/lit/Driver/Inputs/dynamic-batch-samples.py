# Writes the inputs of dynamic-batch-app.c as mix-run sample files:
#   dynamic-batch-samples.py DIR
# DIR/exact.safetensors: input0 [5, 4] (5 samples stacked along the batch),
# input1 [5, 3] (the shared bias, once per sample);
# DIR/q.safetensors: input0 [5, 2, 4].
# The values are the app's, rounded to f32 the same way (a quotient of small
# integers rounded once from f64 is the f32 quotient: double rounding is
# innocuous for division when 53 >= 2 * 24 + 2).
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
import safetensors_file  # noqa: E402

out = sys.argv[1]
x = [[1, 2, 3, 4], [-1, 0.5, -2, 1], [0.25, -0.75, 2, -3], [8, 0, -4, 0.5],
     [-2, -2, 1.5, 6]]
bias = [0.5, -1, 0.25]
qx = [[[(s + 1) * (i * 4 + j - 3) / (s * s + 1) for j in range(4)]
       for i in range(2)] for s in range(5)]


def write(path, tensors):
    safetensors_file.write(
        path, [(name, "F32", shape, safetensors_file.floats(values))
               for name, shape, values in tensors])


flat = lambda rows: [v for row in rows for v in row]
write(out + "/exact.safetensors",
      [("input0", [5, 4], flat(x)), ("input1", [5, 3], bias * 5)])
write(out + "/q.safetensors",
      [("input0", [5, 2, 4], flat(flat(qx)))])
