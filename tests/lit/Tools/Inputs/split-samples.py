# Splits the samples of a safetensors file along dimension 0:
#   split-samples.py IN OUT:BEGIN:END[:nan] [OUT:BEGIN:END[:nan] ...]
# writes samples [BEGIN, END) of every tensor of IN to OUT (same dtype, the
# leading dimension END - BEGIN); with ":nan", the 4th value of each F32
# tensor becomes NaN. Only the standard library.
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
import safetensors_file  # noqa: E402


def write(path, tensors):
    safetensors_file.write(path, [(name, dtype, shape, raw) for name, (
        dtype, shape, raw) in sorted(tensors.items())])


tensors = safetensors_file.read(sys.argv[1])
for spec in sys.argv[2:]:
    nan = spec.endswith(":nan")
    out, begin, end = spec[:-4 if nan else None].rsplit(":", 2)
    begin, end = int(begin), int(end)
    part = {}
    for name, (dtype, shape, raw) in tensors.items():
        row = len(raw) // shape[0]
        raw = raw[begin * row:end * row]
        if nan and dtype == "F32":
            raw = raw[:12] + struct.pack("<f", float("nan")) + raw[16:]
        part[name] = (dtype, [end - begin] + shape[1:], raw)
    write(out, part)
