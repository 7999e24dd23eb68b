# Splits the samples of a safetensors file along dimension 0:
#   split-samples.py IN OUT:BEGIN:END[:nan] [OUT:BEGIN:END[:nan] ...]
# writes samples [BEGIN, END) of every tensor of IN to OUT (same dtype, the
# leading dimension END - BEGIN); with ":nan", the 4th value of each F32
# tensor becomes NaN. Only the standard library.
import json
import struct
import sys


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + size])
    header.pop("__metadata__", None)
    body = data[8 + size:]
    return {name: (info["dtype"], info["shape"],
                   body[info["data_offsets"][0]:info["data_offsets"][1]])
            for name, info in header.items()}


def write(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, (dtype, shape, raw) in sorted(tensors.items()):
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


tensors = read(sys.argv[1])
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
