"""Safetensors files for the lit tests' input scripts (standard library
only): an 8-byte little-endian header size, a JSON header padded with
spaces to a multiple of 8 bytes, then the tensors' raw little-endian data.

A script in tests/lit/DIR/Inputs imports it with

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
    import safetensors_file
"""
import json
import struct


def encode(tensors):
    """(header, data) of `tensors`, an iterable of (name, dtype, shape, raw
    bytes): the padded JSON header and the concatenated data."""
    header, data = {}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    return text + b" " * (-len(text) % 8), data


def blob(header, data):
    """The bytes of a file with this header text and data."""
    return struct.pack("<Q", len(header)) + header + data


def write(path, tensors):
    """Writes `tensors` (see encode) to `path`."""
    with open(path, "wb") as f:
        f.write(blob(*encode(tensors)))


def floats(values):
    """The raw bytes of f32 `values`."""
    return struct.pack("<%df" % len(values), *values)


def read(path):
    """{name: (dtype, shape, raw bytes)} of the file at `path`."""
    with open(path, "rb") as f:
        data = f.read()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + size])
    header.pop("__metadata__", None)
    body = data[8 + size:]
    return {name: (info["dtype"], info["shape"],
                   body[info["data_offsets"][0]:info["data_offsets"][1]])
            for name, info in header.items()}
