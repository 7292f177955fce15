#!/usr/bin/python3
"""Writes a safetensors file with only `struct` and `json`, independently of TrainDeck's writer,
for safetensors_file_test.cpp to read: python3 write_reference_safetensors.py OUT.safetensors

It differs from our writer on purpose: header keys in its own order, data laid out in another
order than the header, json.dumps' default spacing and \\u escapes, metadata last.
"""
import json
import struct
import sys


def bf16(values):
    # The top half of each float32; the values below are exact in bfloat16.
    return b"".join(struct.pack("<f", v)[2:] for v in values)


TENSORS = {
    # name: (dtype, shape, little-endian bytes)
    "a.weight": ("F32", [2, 3], struct.pack("<6f", *[0.5 * i - 1.0 for i in range(6)])),
    "b.bias": ("BF16", [3], bf16([1.0, -2.5, 0.15625])),
    "emb": ("F16", [2, 2], struct.pack("<4e", 1.0, -0.0009765625, 65504.0, 2.0 ** -24)),
    "ids": ("I64", [4], struct.pack("<4q", 0, -1, 2 ** 62, -2 ** 63)),
    "counts": ("I32", [2, 1], struct.pack("<2i", 7, -2 ** 31)),
    "mask": ("U8", [5], bytes([0, 1, 2, 254, 255])),
    "scalar": ("F32", [], struct.pack("<f", 3.25)),
    "empty": ("F32", [0, 4], b""),
    "caf\u00e9": ("U8", [1], b"\x2a"),
}
METADATA = {"format": "pt", "note": "written by struct and json, na\u00efve"}


def main():
    header = {}
    data = b""
    for name in sorted(TENSORS, reverse=True):  # data in reverse name order
        dtype, shape, raw = TENSORS[name]
        header[name] = {"shape": shape, "data_offsets": [len(data), len(data) + len(raw)], "dtype": dtype}
        data += raw
    header["__metadata__"] = METADATA
    text = json.dumps(header).encode("utf-8")  # ensure_ascii: non-ASCII as \u escapes
    text += b" " * (-len(text) % 8)
    with open(sys.argv[1], "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        out.write(data)


if __name__ == "__main__":
    main()
