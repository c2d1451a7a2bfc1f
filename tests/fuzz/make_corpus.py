#!/usr/bin/env python3
"""Write the seed corpora of the fuzzers (tests/fuzz/corpus/NAME/): for
fuzz_bn every operation at the sizes where the multiplication and
conversion algorithms change (see bn.h thresholds), with each limb pattern;
for fuzz_cli command lines from docs/fibtrace.md and docs/compare.md and
their edges; for fuzz_report names with quotes, commas, control bytes and
invalid UTF-8. Run once; the files are checked in."""
import os
import struct

OPS = 9  # enum op in fuzz_bn.c
SIZES = [(1, 1), (2, 1), (5, 3), (24, 24), (40, 40), (60, 33), (120, 120),
         (140, 140), (300, 170), (599, 599)]
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "bn")
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

# fuzz_cli: argv words, NUL-separated.
CLI = [
    "--sweep 0:92 --repeat 5", "--sweep 0:10000:100 -a bn-fdouble,bn-iter --cpu 1 --json",
    "-d 1.5 -i 0.5 -f vfs_read,fibdrv:bn_mul* --kprobe", "--attach multi -p 1 -d 2",
    "--compare algos --sweep 4900:5100:50 --repeat 20 --algo bn-iter,bn-fdouble "
    "--fail-on-regression 5 --outliers trim --metric compute --rows 0",
    "--compare builds a.ko b.ko --labels a,b --sweep 100:100100:20000 --repeat 60 --cpu 0 "
    "--save-json r.json --save-benchfmt r.bench --attribute",
    "--compare formats --sweep 1:10 --format benchfmt --baseline dec",
    "-e cycles,instructions,branch-misses --require-counters --sweep 1:5",
    "--hist-bits 3 --linear 100:2000:100 --csv --sweep 1:2 --save-json r.json --save-csv r.csv",
    "--tree --tree-n 90 --folded f.txt --flamegraph f.svg --sweep 90:90 --off-cpu",
    "--trace-out t.json --trace-reads 10 --sweep 1:3 --maxactive 64 --ringbuf-size 65536",
    "--sweep 18446744073709551615:18446744073709551615",
    "-d nan", "-i inf", "-d 1e-300", "--linear 0:18446744073709551615:1",
    "-f ,", "-f mod:", "-f :f", "--no-hist --raw --all -H --no-tree --no-compensate",
    "-- build/fibclient 10",
    "--cachesim --cache-geometry I1=32768,1152921504606846976,16 --sweep 1:2",
    "--cachesim --sweep 0:18446744073709551615", "--sweep 0:18446744073709551615:1 --repeat 2",
    "--linear 1:18446744073709551615:2", "--sweep 1:18446744073709551615 --repeat 1000000 -a a,b",
]
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "cli")
os.makedirs(out, exist_ok=True)
for i, line in enumerate(CLI):
    with open(os.path.join(out, f"cli-{i:02d}"), "wb") as f:
        f.write(b"\0".join(w.encode() for w in line.split(" ")))
print(f"{len(CLI)} corpus files in {out}")

# fuzz_report: kernel, clocksource, plan, reason, then (name, module) x 4,
# algorithm names x 3, warnings x 3.
NASTY = [b"fib_read", b"a\"b", b"back\\slash", b"com,ma", b"new\nline", b"cr\rlf",
         b"\x01\x1f\x7f", b"\xff\xfe", b"\xc3\xa9t\xc3\xa9", b"\xed\xa0\x80",
         b"\xf4\x90\x80\x80", b"\xe2\x82", b"\"\"\"", b"tab\there", b""]
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "report")
os.makedirs(out, exist_ok=True)
for i in range(len(NASTY)):
    fields = [NASTY[(i + k) % len(NASTY)] for k in range(18)]
    with open(os.path.join(out, f"report-{i:02d}"), "wb") as f:
        f.write(b"\0".join(fields))
print(f"{len(NASTY)} corpus files in {out}")
