#!/usr/bin/python3
"""Measurement truth in the guest: every frame kept at depth (no stack
overflow where the Karatsuba/Toom recursion is deepest for a read the suite
can afford), the pid filter inside a pid namespace, one compute per read
under a client that asks the result size first, compensated medians against
the untraced truth, and a read already running
when tracing starts reported as lost rather than as a call. Runs as root
with fibdrv loaded.
"""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gtest import check, skip  # noqa: E402
import gtest  # noqa: E402

FIBTRACE = os.path.abspath("build/fibtrace")
CLIENT = os.path.abspath("build/fibclient")
WORKLOAD = os.path.abspath("build/bench/trace_workload")


def fibtrace_json(name, args, pre=(), timeout=600):
    p = subprocess.run(list(pre) + [FIBTRACE, "--json"] + args, capture_output=True,
                       text=True, timeout=timeout)
    if not check(f"{name}.exit", p.returncode == 0,
                 f"exit {p.returncode}: {p.stderr.strip()[-300:]}"):
        return None
    return json.loads(p.stdout)


def funcs(doc):
    return {f["name"]: f for f in doc["functions"]}


def lost_except(doc, *names):
    return {k: v for k, v in doc["lost"].items() if v and k not in names}


def test_depth():
    """n = 65537, default algorithm, every function traced: deeper than the old 16 frames."""
    doc = fibtrace_json("truth.depth", ["--sweep", "65537:65537"])
    if not doc:
        return
    fr = funcs(doc)["fib_read"]
    meta = doc["meta"]
    check("truth.depth.one_read", fr["count"] == 1, str(fr["count"]))
    check("truth.depth.nothing_lost", not lost_except(doc), str(doc["lost"]))
    with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
        clock = f.read().strip()
    check("truth.clocksource", meta["clocksource"] == clock, f"{meta['clocksource']} != {clock}")
    check("truth.depth.deeper_than_16", 16 < meta["max_depth"] < meta["stack_depth"],
          f"max_depth {meta['max_depth']} of {meta['stack_depth']}")


def test_pid_namespace():
    """--sweep counts its own reads by pid, here in a new pid namespace (pid 1)."""
    unshare = shutil.which("unshare")
    if not unshare:
        skip("truth.pidns", "no unshare(1) in the guest")
        return
    doc = fibtrace_json("truth.pidns", ["--no-discover", "--sweep", "0:20"],
                        pre=[unshare, "--pid", "--fork", "--mount-proc"])
    if not doc:
        return
    fr = funcs(doc)["fib_read"]
    check("truth.pidns.filter_pid", doc["meta"]["filter_pid"] == 1,
          f"filter_pid {doc['meta']['filter_pid']} (fibtrace is pid 1 in its namespace)")
    check("truth.pidns.counts_own_reads", fr["count"] == 21 and len(doc["per_n"]) == 21,
          f"fib_read {fr['count']}, per_n rows {len(doc['per_n'])} (want 21)")


def test_one_compute():
    """fibclient asks FIBDRV_IOC_RESULT_SIZE before every read: no second compute."""
    doc = fibtrace_json("truth.one_compute", ["--no-discover", "--", CLIENT, "-q", "--sweep",
                                              "100:120"])
    if not doc:
        return
    fs = funcs(doc)
    check("truth.one_compute.per_read",
          fs["fib_read"]["count"] == 21 and fs["fibdrv_compute"]["count"] == 21,
          f"fib_read {fs['fib_read']['count']}, fibdrv_compute {fs['fibdrv_compute']['count']}")


def untraced_truth(n, reads):
    """Time inside fib_read, untraced: reads minus refused reads (trace_workload --truth)."""
    out = subprocess.run([WORKLOAD, "--truth", "--rounds", "11", "--cpu", "0", f"{n}:{reads}"],
                         check=True, capture_output=True, text=True, timeout=600).stdout
    return float(out.split()[3])  # the median round


def test_compensation():
    """Compensated fib_read medians against the untraced truth at three n.

    The benchmark's target (make bench-trace) is +-10% or 1 us. Under QEMU's
    software emulation a traced call costs 1-5 us and its cost varies by
    tens of percent with what ran before it, so with every function traced
    (28 to 1700 calls per read) that target is out of reach; what must hold
    is what fibtrace claims: the truth lies within the error bound it prints
    (plus the truth's own noise: 10% or 1 us, plus how much two measurements
    of it, before and after the traced run, differ), and compensation
    removes most of the tracing cost. With the read path alone (3 traced
    calls beneath fib_read) the compensated median must be within 35% or
    3 us: looser than the benchmark's 10% because truth and trace are
    separate runs on a host that other guests share (seen on 6.12 with a
    second guest running: +2.2 us at n = 1000, truth 7.5 us).
    """
    for n, reads in ((90, 200), (1000, 100), (10000, 20)):
        for name, args in (("all", []), ("read_path", ["--no-discover"])):
            # A host shared with other guests can slow this guest for a
            # while (seen: one run at 2.5x the per-call cost it calibrated):
            # one more try before a failure counts.
            for attempt in (1, 2):
                res = compensation_run(n, reads, name, args, final=attempt == 2)
                if res:
                    break


def compensation_run(n, reads, name, args, final):
    """One traced run between two truth measurements: whether every check passed."""
    before = untraced_truth(n, reads)
    doc = fibtrace_json(f"truth.comp.{n}.{name}",
                        args + ["--sweep", f"{n}:{n}", "--repeat", str(reads), "--cpu", "0"])
    after = untraced_truth(n, reads)
    truth = (before + after) / 2
    # The truth's own noise: 10% or 1 us, plus how far it moved during the run.
    noise = max(0.10 * truth, 1000) + abs(before - after)
    if not doc:
        return True
    row = doc["per_n"][0]
    comp = row.get("compensated")
    if not check(f"truth.comp.{n}.{name}.present",
                 doc["meta"]["overhead"]["compensated"] and comp is not None,
                 str(doc["meta"]["overhead"])[:300]):
        return True
    raw_err, err = row["median_ns"] - truth, comp["median_ns"] - truth
    detail = (f"truth {truth:.0f} ns, raw {row['median_ns']}, compensated "
              f"{comp['median_ns']} +- {comp['error_ns']}")
    print(f"# n={n} {name}: {detail}")
    checks = [(f"truth.comp.{n}.{name}.within_bound", abs(err) <= comp["error_ns"] + noise)]
    if abs(raw_err) > noise:  # else raw is already within the truth's own noise
        checks.append((f"truth.comp.{n}.{name}.better_than_raw", abs(err) < 0.5 * abs(raw_err)))
    if name == "read_path":
        checks.append((f"truth.comp.{n}.read_path.close",
                       abs(err) <= max(0.35 * truth, 3000) + abs(before - after)))
    if not final and not all(ok for _, ok in checks):
        print(f"# n={n} {name}: retrying once")
        return False
    for check_name, ok in checks:
        check(check_name, ok, detail)
    return True


def test_attach_window():
    """A read running when tracing starts is reported as lost, not as a (short) read."""
    algo = "bn-iter"
    limits = dict(gtest.algorithms())
    if algo not in limits:
        skip("truth.window", f"no {algo}")
        return
    n = limits[algo]
    t0 = time.monotonic()
    subprocess.run([CLIENT, "-q", "--algo", algo, str(n)], check=True, timeout=600)
    alone = time.monotonic() - t0
    print(f"# {algo} F({n}) alone: {alone:.1f} s; read back to back while fibtrace starts")
    # Reads back to back until tracing ends: whenever it starts, one is running.
    reader = subprocess.Popen(["sh", "-c", f"while :; do {CLIENT} -q --algo {algo} {n}; done"],
                              start_new_session=True)
    try:
        doc = fibtrace_json("truth.window", ["--no-discover", "-d", str(alone * 1.5 + 5)])
    finally:
        os.killpg(reader.pid, 9)
        reader.wait()
    if not doc:
        return
    reads, lost = funcs(doc)["fib_read"]["count"], doc["lost"]["outside_read"]
    whole = all(r["breakdown"]["compute_ns"] > 0 and r["parts_over_total"] == 0
                for r in doc["per_n"])
    check("truth.window.lost_not_call", lost >= 1 and whole,
          f"lost.outside_read {lost}, fib_read {reads}, every recorded read whole: {whole}")


def main():
    test_depth()
    test_pid_namespace()
    test_one_compute()
    test_compensation()
    test_attach_window()


gtest.run(main)
