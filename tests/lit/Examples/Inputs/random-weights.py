"""Writes a safetensors file with every external f32 weight of a mix model
(`mix.weight external "NAME" : tensor<AxBxf32>`): values uniform in
+-0.1 from a fixed seed; batch-norm scales and variances (names ending in
gamma, scale or var) are 1.

    random-weights.py MODEL.mlir OUT.safetensors
"""
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
import safetensors_file  # noqa: E402


def main(model, out):
    source = open(model).read()
    rng = random.Random(1)
    tensors, seen = [], set()
    pattern = r'mix\.weight external "([^"]+)" : tensor<([0-9x]+)xf32>'
    for name, shape in re.findall(pattern, source):
        if name in seen:
            continue
        seen.add(name)
        dims = [int(d) for d in shape.split("x")]
        count = 1
        for d in dims:
            count *= d
        ones = name.endswith(("gamma", "scale", "var"))
        values = [1.0 if ones else rng.uniform(-0.1, 0.1)
                  for _ in range(count)]
        tensors.append((name, "F32", dims, safetensors_file.floats(values)))
    safetensors_file.write(out, tensors)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
