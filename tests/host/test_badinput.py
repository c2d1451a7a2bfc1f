#!/usr/bin/python3
"""Numeric options past 64 bits, on the host (no kernel, no root needed).

Each input below once wrapped or divided by zero: a cache geometry whose
ASSOC x LINE passes 2^64 (SIGFPE), a --sweep of 2^64 values (its count
wrapped to 0 and --cachesim's limit on distinct n was bypassed), a
--linear whose bucket count wrapped. Each must now be a usage error (exit
2; fibclient's argp_error: 64) with the exact first line below, before
anything runs. The same inputs
are in the CLI fuzzer's corpus (tests/fuzz/corpus/cli/). Prints PASS/FAIL
lines for tests/run.sh.
"""
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(TOP, "build")
sys.path.insert(0, os.path.join(TOP, "tests", "guest"))
import gtest  # noqa: E402

MAX = "18446744073709551615"
RANGE_2_64 = "(2^64 values, more than can be counted: a larger STEP or a narrower A:B)"
GEOM_SETS = ("the line must be a power of two >= 16 and SIZE / (ASSOC * LINE) sets a power "
             "of two")
CASES = [
    ("geometry_assoc_line_overflow", "fibtrace",
     ["--cachesim", "--cache-geometry", "I1=32768,1152921504606846976,16", "--sweep", "1:2"],
     "fibtrace: bad --cache-geometry 'I1=32768,1152921504606846976,16': I1: " + GEOM_SETS),
    ("geometry_field_overflow", "fibtrace",
     ["--cachesim", "--cache-geometry", f"D1=32768,8,{MAX}0", "--sweep", "1:2"],
     f"fibtrace: bad --cache-geometry 'D1=32768,8,{MAX}0': want host, or "
     "I1=SIZE,ASSOC,LINE[:D1=...][:LL=...]"),
    ("geometry_negative", "fibtrace",
     ["--cachesim", "--cache-geometry", "I1=-32768,8,64", "--sweep", "1:2"],
     "fibtrace: bad --cache-geometry 'I1=-32768,8,64': want host, or "
     "I1=SIZE,ASSOC,LINE[:D1=...][:LL=...]"),
    ("cachesim_sweep_2_64", "fibtrace", ["--cachesim", "--sweep", f"0:{MAX}"],
     f"fibtrace: bad --sweep '0:{MAX}' {RANGE_2_64}"),
    ("sweep_2_64", "fibtrace", ["--sweep", f"0:{MAX}:1", "--repeat", "2"],
     f"fibtrace: bad --sweep '0:{MAX}:1' {RANGE_2_64}"),
    ("fibclient_sweep_2_64", "fibclient", ["--sweep", f"0:{MAX}"],
     f"fibclient: bad --sweep '0:{MAX}' {RANGE_2_64}"),
    ("linear_buckets_2_64", "fibtrace", ["--linear", f"0:{MAX}:1"],
     f"fibtrace: --linear '0:{MAX}:1' needs {MAX} buckets; at most 510 (a larger STEP or a "
     "narrower MIN:MAX)"),
    ("linear_buckets_wrap", "fibtrace", ["--linear", f"1:{MAX}:2"],
     f"fibtrace: --linear '1:{MAX}:2' needs 9223372036854775807 buckets; at most 510 (a "
     "larger STEP or a narrower MIN:MAX)"),
]


def main():
    for name, tool, args, first in CASES:
        p = subprocess.run([os.path.join(BUILD, tool), *args], capture_output=True, text=True,
                           timeout=60)
        line = p.stderr.splitlines()[0] if p.stderr else ""
        want = 64 if tool == "fibclient" else 2
        gtest.check(f"host/badinput.{name}", p.returncode == want and line == first,
                    f"exit {p.returncode}, stderr {p.stderr[:300]!r}")


if __name__ == "__main__":
    gtest.run(main)
