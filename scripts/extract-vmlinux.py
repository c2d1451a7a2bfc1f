#!/usr/bin/env python3
"""Extract the ELF vmlinux from a compressed bzImage (xz or zstd).

Debian packages no vmlinux and no extract-vmlinux; pahole needs the ELF
image as the BTF base of a module. Usage: extract-vmlinux.py VMLINUZ OUT
"""
import lzma
import subprocess
import sys

MAGICS = (
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)


def decompress(blob, kind):
    if kind == "xz":
        try:
            return lzma.LZMADecompressor().decompress(blob)
        except lzma.LZMAError:
            return b""
    out = subprocess.run(["zstd", "-dcq"], input=blob, capture_output=True)
    return out.stdout  # trailing data after the frame makes zstd complain


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: extract-vmlinux.py VMLINUZ OUT")
    image = open(sys.argv[1], "rb").read()
    for magic, kind in MAGICS:
        start = image.find(magic)
        while start >= 0:
            elf = decompress(image[start:], kind)
            if elf[:4] == b"\x7fELF":
                with open(sys.argv[2], "wb") as f:
                    f.write(elf)
                return
            start = image.find(magic, start + 1)
    sys.exit(f"extract-vmlinux: no xz or zstd ELF payload in {sys.argv[1]}")


if __name__ == "__main__":
    main()
