"""bench/results/*.json: one definition of how a benchmark run writes its rows.

A run measures some kernels under some clocks (scripts/guest-bench.sh,
BENCH_CLOCKS); it replaces the rows of those and keeps every other row of
the file, so a run of one kernel or one clock does not drop the rest.
"""
import json


def _key(r):  # a noise row (bench/compensation.py) keeps its kernel inside
    return r.get("kernel", r.get("noise", {}).get("kernel")), r.get("clock", "real")


def write_rows(path, new):
    """Write @new to @path in place of the rows of the same kernels and clocks."""
    done = {_key(r) for r in new}
    try:
        old = [r for r in json.load(open(path)) if _key(r) not in done]
    except (OSError, ValueError):
        old = []
    with open(path, "w") as f:
        json.dump(old + new, f, indent=1)
        f.write("\n")
