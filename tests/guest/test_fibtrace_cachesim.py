#!/usr/bin/python3
"""fibtrace --cachesim=join in the guest: the kernel's trace of a sweep and
callgrind's simulation of the same reads on the user-space build of the same
sources, joined per function.

The truth is that the same code ran: every library function the kernel
traced is called exactly as often in the simulation (JSON and CSV) (the BPF programs count
the kernel's calls, callgrind the user-space build's), fib_compute once per
read in both; the document validates against docs/fibtrace.schema.json with
the simulated fields; the text says which figures are simulated. One run
gives all three (text on stdout, --save-json, --save-csv).

Runs as root in the test VM with fibdrv loaded (tests/guest/run.sh).
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gtest  # noqa: E402
from gtest import check, skip  # noqa: E402
from test_fibtrace import validate  # noqa: E402

FIBTRACE = "build/fibtrace"
SCHEMA = "docs/fibtrace.schema.json"
ALGOS = "bn-fdouble-karatsuba,bn-iter"
SWEEP, REPEAT = "1000:5000:2000", 2
READS = 2 * 3 * REPEAT


def run(args, timeout=600):
    p = subprocess.run([FIBTRACE] + args, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def main():
    if not shutil.which("valgrind"):
        check("cachesim.valgrind", False, "valgrind not installed in the guest (make deps)")
        return
    base = ["--cachesim=join", "--sweep", SWEEP, "--repeat", str(REPEAT), "--algo", ALGOS]
    # One run, three outputs: text on stdout, the JSON and the CSV saved beside it.
    with tempfile.TemporaryDirectory() as tmp:
        saved_json, saved_csv = os.path.join(tmp, "r.json"), os.path.join(tmp, "r.csv")
        rc, text, err = run(base + ["--save-json", saved_json, "--save-csv", saved_csv])
        if not check("cachesim.join.exit", rc == 0, f"exit {rc}: {err.strip()[-300:]}"):
            return
        with open(saved_json) as f:
            doc = json.load(f)
        with open(saved_csv) as f:
            csv_text = f.read()
    with open(SCHEMA) as f:
        errs = validate(doc, json.load(f))
    check("cachesim.join.schema", not errs, "; ".join(errs[:3]))
    sim = doc["meta"].get("cachesim", {})
    check("cachesim.join.meta", sim.get("simulated") is True and sim.get("reads") == READS,
          f"meta.cachesim reads {sim.get('reads')} (want {READS})")
    joined = [f for f in doc["functions"] if "cachesim" in f]
    differ = [f"{f['name']} kernel {f['count']} sim {f['cachesim']['calls']:.0f}"
              for f in joined if f["count"] != f["cachesim"]["calls"]]
    check("cachesim.join.calls", len(joined) >= 10 and not differ,
          f"{len(joined)} functions joined; differ: {', '.join(differ[:4])}")
    if not differ:
        print(f"# {len(joined)} library functions: the kernel's traced calls equal "
              f"callgrind's, function by function", flush=True)
    fc = {f["name"]: f for f in joined}.get("fib_compute")
    check("cachesim.join.fib_compute", fc is not None and fc["count"] == READS and
          fc["cachesim"]["calls"] == READS,
          f"fib_compute kernel {fc and fc['count']}, sim {fc and fc['cachesim']['calls']}, "
          f"reads {READS}")
    pern = [r for r in doc["per_n"] if "cachesim" in r]
    check("cachesim.join.per_n", len(pern) == 6 and all(r["cachesim"]["Ir"] > 0 for r in pern),
          f"{len(pern)} per-n rows with simulated events")
    rows = list(csv.DictReader(io.StringIO(csv_text.split("\n\n")[0])))
    by_name = {f["name"]: f for f in doc["functions"]}
    joined = [r for r in rows if r.get("sim_calls")]
    check("cachesim.join.csv", len(joined) >= 10 and
          all(r["sim_calls"] == r["count"] for r in joined) and all(r["sim_Ir"] for r in joined)
          and all(int(r["count"]) == by_name[r["function"]]["count"] for r in joined),
          f"{len(joined)} functions with sim_ columns")
    check("cachesim.join.text", "SIMULATED" in text and "ns per Ir" in text and
          "called exactly as often" in text, text[-400:])

if __name__ == "__main__":
    gtest.run(main)
