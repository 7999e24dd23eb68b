#!/usr/bin/env python3
"""Checks the code section of a mixc JSON report against its object file.

  check-code-report.py REPORT.json OBJECT.o [--at-most OTHER.json]

- the report's text_bytes are the bytes of the object's executable sections
  (read from the ELF section headers here, independently of mixc);
- the groups and the alignment add up to text_bytes, and the functions to
  the groups;
- each layer's code bytes are the sum of its functions, each of which lists
  the layer;
- with --at-most, text_bytes are at most those of OTHER.json.
Prints "text_bytes N" and exits non-zero on the first violation.
"""

import json
import struct
import sys


def elf_text_bytes(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{path}: not a little-endian ELF64 object")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    total = 0
    for i in range(shnum):
        _, _, flags, _, _, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        if flags & 0x4:  # SHF_EXECINSTR
            total += size
    return total


def fail(message):
    sys.exit("check-code-report: " + message)


def main():
    args = sys.argv[1:]
    at_most = None
    if "--at-most" in args:
        i = args.index("--at-most")
        at_most = json.load(open(args[i + 1]))["code"]["text_bytes"]
        del args[i:i + 2]
    report_path, object_path = args
    report = json.load(open(report_path))
    code = report["code"]
    text = elf_text_bytes(object_path)
    if code["text_bytes"] != text:
        fail(f"text_bytes {code['text_bytes']} != the object's {text}")
    groups = sum(g["bytes"] for g in code["by_group"].values())
    if groups + code["alignment_bytes"] != text:
        fail(f"groups {groups} + alignment {code['alignment_bytes']} != {text}")
    functions = {f["name"]: f for f in code["functions"]}
    if sum(f["bytes"] for f in functions.values()) != groups:
        fail("the functions do not add up to the groups")
    for group, entry in code["by_group"].items():
        members = [f for f in functions.values() if f["group"] == group]
        if sum(f["bytes"] for f in members) != entry["bytes"] or len(members) != entry["functions"]:
            fail(f"group {group} does not match its functions")
    for layer in report["layers"]:
        names = layer["code"]["functions"]
        if sum(functions[n]["bytes"] for n in names) != layer["code"]["bytes"]:
            fail(f"{layer['layer']}: code bytes are not the sum of its functions")
        for n in names:
            if layer["layer"] not in functions[n]["layers"]:
                fail(f"{n} does not list {layer['layer']}")
    if at_most is not None and text > at_most:
        fail(f"text_bytes {text} > {at_most}")
    print("text_bytes", text)


if __name__ == "__main__":
    main()
