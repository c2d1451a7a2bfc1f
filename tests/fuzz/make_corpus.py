#!/usr/bin/env python3
"""Write the seed corpus of fuzz_bn: every operation at the sizes where the
multiplication and conversion algorithms change (see bn.h thresholds), with
each limb pattern. Run once; the files are checked in."""
import os
import struct

OPS = 9  # enum op in fuzz_bn.c
SIZES = [(1, 1), (2, 1), (5, 3), (24, 24), (40, 40), (60, 33), (120, 120),
         (140, 140), (300, 170), (599, 599)]
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
os.makedirs(out, exist_ok=True)
count = 0
for op in range(OPS):
    for i, (an, bn) in enumerate(SIZES):
        for pattern in range(4):
            if op == 7 and pattern:  # binary round trip: one pattern is plenty
                continue
            blob = struct.pack("<BBHHQ", op, pattern | (pattern << 2), an, bn, 1000 * i + pattern)
            with open(os.path.join(out, f"op{op}-{an}x{bn}-p{pattern}"), "wb") as f:
                f.write(blob)
            count += 1
# Fibonacci: every algorithm near 93, at 0, and deep in the multi-limb range.
for algo in range(8):
    for n in (0, 1, 93, 94, 1000, 3999):
        with open(os.path.join(out, f"fib-a{algo}-n{n}"), "wb") as f:
            f.write(bytes([8, algo, n >> 8, n & 255]) + bytes(10))
        count += 1
print(f"{count} corpus files in {out}")
