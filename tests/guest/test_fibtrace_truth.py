#!/usr/bin/python3
"""Measurement truth in the guest: every frame kept at depth (no stack
overflow where the Karatsuba/Toom recursion is deepest for a read the suite
can afford), the pid filter inside a pid namespace, one compute per read
under a client that asks the result size first, compensation applied with
the error bound docs/measurement.md defines (its accuracy against the
untraced truth is measured by make bench-trace), and a read already running
when tracing starts reported as lost rather than as a call. Runs as root
with fibdrv loaded.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gtest import check, skip  # noqa: E402
import gtest  # noqa: E402
import test_fibtrace_views as views  # noqa: E402

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
    # The clock the harness booted the guest with (scripts/vmtest.sh: fibtrace.clock=,
    # fibtrace.vm= on the kernel command line), as every report must name it.
    with open("/proc/cmdline") as f:
        words = dict(w.split("=", 1) for w in f.read().split() if w.startswith("fibtrace."))
    want = (words.get("fibtrace.clock", "real"), words.get("fibtrace.vm"))
    got = (meta["clock"], meta["vm"])
    check("truth.clock", got[0] == want[0] and (want[1] is None or got[1] == want[1]) and
          (got[0] == "real") == (got[1] != "tcg-icount"), f"meta {got}, kernel command line {want}")
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
    """Compensation is applied and consistent at three n, every function traced and read path alone.

    One run per set sweeps the three n in interleaved rounds (COMP_SWEEP):
    one full-set attach and detach, 10-30 s under emulation, not three.

    How close the compensated medians come to the untraced truth is a
    measurement, not a test: `make bench-trace` measures it on a quiet host
    (bench/results/compensation.json, target +-10% or 1 us). Here, under
    QEMU's software emulation on a shared host, the guest's speed moves by
    2x within seconds (seen: the untraced truth of F(90) at 3.7 and 7.7 us
    thirty seconds apart; in CI, traced calls costing 5x what the start-up
    calibration measured), so a check that truth and trace, separate runs,
    agree fails for reasons that are not fibtrace's. What must hold in
    every run: compensation is on, it never adds time, and each figure's
    error bound is the one docs/measurement.md defines. The distance to the
    truth is printed for the log. (A check of it at the read path, n = 10^4,
    where tracing adds ~10 us to a read of ~1 ms, failed too: with no other
    guest running, the traced run's raw median read 45% above the truth
    measured just before and after it.) Under the instruction clock
    (meta.clock "instructions": make test's) none of that holds: the truth
    repeats to the instruction, and since every BPF program times itself
    (docs/measurement.md) the compensated median must be within issue 46's
    target of it, 2% or 200 instructions, every function traced or not
    (measured 2026-12-02: within 0.7% at n <= 10^4 on every plan).
    """
    for name, args in (("all", []), ("read_path", ["--no-discover"])):
        compensation_run(name, args)


# n = 90, 5045 and 10^4 (make bench-trace's 1000 is no term of one sweep with
# the other two), COMP_ROUNDS reads of each.
COMP_N, COMP_ROUNDS = tuple(range(90, 10000 + 1, 4955)), 20
COMP_SWEEP = f"{COMP_N[0]}:{COMP_N[-1]}:{COMP_N[1] - COMP_N[0]}"


def compensation_run(name, args):
    """One traced run of the three n between two truth measurements of each."""
    before = {n: untraced_truth(n, COMP_ROUNDS) for n in COMP_N}
    doc = fibtrace_json(f"truth.comp.{name}",
                        args + ["--sweep", COMP_SWEEP, "--repeat", str(COMP_ROUNDS),
                                "--cpu", "0"])
    after = {n: untraced_truth(n, COMP_ROUNDS) for n in COMP_N}
    if not doc:
        return
    over = doc["meta"]["overhead"]
    rows = {r["n"]: r for r in doc["per_n"]}
    if not check(f"truth.comp.{name}.present",
                 over["compensated"] and sorted(rows) == list(COMP_N) and
                 all(r.get("compensated") for r in rows.values()), str(over)[:300]):
        return
    # The bound (docs/measurement.md): per traced call inside fib_read, the
    # whole warm-to-cold spread of its cost (half for where a real call lies
    # between them, half for drift), summed over the calls of the read.
    spread = max((over[m]["full_error_ns"] + over[m]["in_error_ns"]
                  for m in ("fentry", "kprobe", "kprobe.multi")
                  if isinstance(over.get(m), dict) and over[m].get("functions")), default=0)
    recal = any(isinstance(over.get(m), dict) and over[m].get("recalibrations")
                for m in ("fentry", "kprobe", "kprobe.multi"))
    exact = doc["meta"].get("clock") == "instructions"
    for n in COMP_N:
        row, truth = rows[n], (before[n] + after[n]) / 2
        comp, tag = row["compensated"], f"truth.comp.{n}.{name}"
        print(f"# n={n} {name}: truth {truth:.0f} ns (untraced, before and after), raw "
              f"{row['median_ns']}, compensated {comp['median_ns']} +- {comp['error_ns']}")
        if exact:
            off = comp["median_ns"] - truth
            check(f"{tag}.within_target", abs(off) <= max(0.02 * truth, 200),
                  f"compensated {comp['median_ns']} against the untraced {truth:.0f} "
                  f"instructions ({off / truth * 100:+.2f}%; target 2% or 200)")
        check(f"{tag}.not_above_raw",
              comp["median_ns"] <= row["median_ns"] and comp["p90_ns"] <= row["p90_ns"],
              f"compensated {comp['median_ns']}/{comp['p90_ns']} vs raw {row['median_ns']}/"
              f"{row['p90_ns']} (median/p90)")
        calls = row["traced_calls"]  # per read, the row's mean
        check(f"{tag}.bound",
              (comp["error_ns"] > 0 or spread < 1) and
              (recal or comp["error_ns"] <= calls * spread * 1.5 + 1000),
              f"error {comp['error_ns']} ns for {calls:.1f} traced calls per read, spread "
              f"{spread:.0f} ns per call")


def check_exact(name, doc, reads, func):
    """fib_read and @func counted once per read of the run, nothing lost."""
    fs = funcs(doc)
    check(name, fs["fib_read"]["count"] == reads and fs[func]["count"] == reads and
          not lost_except(doc),
          f"fib_read {fs['fib_read']['count']}, {func} {fs[func]['count']} of {reads}; "
          f"lost {lost_except(doc)}")


def test_recalibration():
    """A sweep of several seconds recalibrates about every 2 s, and loses nothing to it."""
    # Long enough for a tick at 2 s and the check's 3 s below: 2000 reads took
    # 2.8-7.1 s in three CI runs (2026-11-27; the 2.8 s run failed the check).
    reads = 3000
    doc = fibtrace_json("truth.recal", ["--no-discover", "--sweep", "30000:30000", "--repeat",
                                        str(reads), "--cpu", "0"])
    if not doc:
        return
    over, secs = doc["meta"]["overhead"], doc["meta"]["seconds"]
    cost = next((over[m] for m in ("fentry", "kprobe", "kprobe.multi")
                 if isinstance(over.get(m), dict) and over[m]["functions"]), None)
    if not check("truth.recal.compensated", over["compensated"] and cost is not None,
                 str(over)[:300]):
        return
    k = cost["recalibrations"]
    print(f"# {secs:.1f} s, {k} recalibrations: subtracted {cost['run_full_min_ns']:.0f} to "
          f"{cost['run_full_max_ns']:.0f} ns per call, the last {cost['full_ns']:.0f} "
          f"+- {cost['full_error_ns']:.0f}")
    # Each takes a fraction of a second under emulation (3 x 2000 warm calls,
    # 100 cold ones after F(1000) each).
    # At least 3 s: a tick at 2 s must have come (1500 reads once ran 3.9 s and
    # a bound of 4 s failed a correct run).
    if doc["meta"]["clock"] == "instructions":
        # A count of instructions cannot drift with the host: calibrated once (calibrate.c).
        check("truth.recal.count", k == 0 and cost["run_full_min_ns"] == cost["run_full_max_ns"],
              f"{k} recalibrations in {secs:.1f} s under the instruction clock (want none)")
    else:
        check("truth.recal.count", secs >= 3 and 1 <= k and secs / 4 - 1 <= k <= secs / 2 + 1,
              f"{k} recalibrations in {secs:.1f} s (want one per 2 s and a little)")
    check("truth.recal.range",
          cost["run_full_min_ns"] <= cost["full_ns"] <= cost["run_full_max_ns"], str(cost)[:300])
    check_exact("truth.recal.exact", doc, reads, "fibdrv_compute")


def test_context():
    """The calibration in context: measured, applied as documented, and cleared before the run.

    The run also writes the flame graph and is the views test's compensated
    tree (test_fibtrace_views.comp_tree): one full-set attach and detach
    fewer, 10-30 s under emulation."""
    rounds = 7  # of n = 2500, 3000, 3500: the sweep's middle n is 3000
    reads = 3 * rounds
    os.makedirs(os.path.dirname(views.FLAMEGRAPH), exist_ok=True)
    if os.path.exists(views.FLAMEGRAPH):
        os.unlink(views.FLAMEGRAPH)
    doc = fibtrace_json("truth.context", ["--sweep", "2500:3500:500", "--repeat", str(rounds),
                                          "--cpu", "0", "--flamegraph", views.FLAMEGRAPH])
    if not doc:
        return
    views.comp_tree(doc, reads)
    over = doc["meta"]["overhead"]
    ctx = over.get("context", {})
    if not check("truth.context.measured", ctx.get("measured") is True and
                 isinstance(over.get(ctx.get("mode")), dict), str(ctx)[:300]):
        return
    cost = over[ctx["mode"]]
    print(f"# context: F({ctx['n']}), {ctx['calls_per_compute']} traced calls each, untraced "
          f"{ctx['untraced_compute_ns']:.0f} ns; a {ctx['mode']} call {ctx['full_ns']:.0f} ns "
          f"({ctx['full_min_ns']:.0f}..{ctx['full_max_ns']:.0f}), x{cost['context_ratio']:.2f} "
          f"the calibration function's midpoint")
    # The context computes the sweep's middle n, and every computation of
    # it makes the same calls: the count per computation is whole.
    check("truth.context.calls",
          ctx["n"] == 3000 and ctx["calls_per_compute"] >= 20 and
          abs(ctx["calls_per_compute"] - round(ctx["calls_per_compute"])) < 1e-6,
          f"F({ctx['n']}): {ctx['calls_per_compute']} calls per computation")
    mid = (cost["warm"]["full_ns"] + cost["cold"]["full_ns"]) / 2
    check("truth.context.applied",
          ctx["full_min_ns"] <= ctx["full_ns"] <= ctx["full_max_ns"] and
          abs(cost["context_ratio"] * mid - ctx["full_ns"]) <= 0.01 * ctx["full_ns"] + 1 and
          (cost["recalibrations"] or abs(cost["full_ns"] - ctx["full_ns"]) <= 1),
          f"context {ctx['full_ns']}, ratio {cost['context_ratio']} x midpoint {mid:.1f}, "
          f"subtracted {cost['full_ns']}")
    # Its computations were recorded, then cleared: the run counts its own reads only.
    check_exact("truth.context.cleared", doc, reads, "fib_compute")


READER = r"""
import os, sys, time
n, reads = int(sys.argv[1]), int(sys.argv[2])
fd = os.open("/dev/fibonacci", os.O_RDONLY)
def waited():  # ns this task spent runnable but not running (kernel schedstat)
    with open("/proc/self/schedstat") as f:
        return int(f.read().split()[1])
def off():  # ns this task spent off its CPU: waiting or asleep (wall minus its CPU time)
    return time.monotonic_ns() - time.thread_time_ns()
buf = bytearray(1 << 17)  # one buffer: no allocation, mmap or page fault between the reads
w0, o0 = waited(), off()
for _ in range(reads):
    os.preadv(fd, [buf], n)
o1, w1 = off(), waited()
print(w1 - w0, o1 - o0)
"""


def test_off_cpu():
    """Off-CPU time of reads sharing their CPU with a busy loop, against the kernel's schedstat."""
    path = "/tmp/offcpu_reader.py"
    with open(path, "w") as f:
        f.write(READER)
    n, reads = 100000, 10
    hog = subprocess.Popen(["taskset", "-c", "0", "sh", "-c", "while :; do :; done"],
                           start_new_session=True)
    try:
        p = subprocess.run([FIBTRACE, "--json", "--no-discover", "--off-cpu", "--", "taskset", "-c", "0",
                            "python3", path, str(n), str(reads)],
                           capture_output=True, text=True, timeout=600)
    finally:
        os.killpg(hog.pid, 9)
        hog.wait()
    if not check("truth.offcpu.exit", p.returncode == 0,
                 f"exit {p.returncode}: {p.stderr.strip()[-300:]}"):
        return
    # The reader's line (it shares fibtrace's stdout and ends first), then the JSON.
    lines = p.stdout.splitlines()
    mine = [ln for ln in lines if re.fullmatch(r"\d+ \d+", ln.strip())]
    doc = json.loads("\n".join(ln for ln in lines if ln not in mine))
    if not check("truth.offcpu.reader", len(mine) == 1, p.stdout[:200]):
        return
    waited, away = map(int, mine[0].split())
    fr = funcs(doc)["fib_read"]
    row = doc["per_n"][0]
    off, total = fr.get("off_cpu_ns", 0), fr["total_ns"]
    print(f"# {reads} reads of F({n}) beside a busy loop on CPU 0: fib_read {total / 1e6:.1f} ms, "
          f"off-CPU {off / 1e6:.1f} ms; the reader waited {waited / 1e6:.1f} ms (schedstat) "
          f"and was off its CPU {away / 1e6:.1f} ms (wall minus CPU time)")
    check("truth.offcpu.meta", doc["meta"]["off_cpu"] is True, str(doc["meta"].get("off_cpu")))
    check("truth.offcpu.counted", fr["count"] == reads and row["off_cpu"]["reads_switched"] > 0,
          f"fib_read {fr['count']} of {reads}, reads switched out {row['off_cpu']}")
    # Two busy tasks on one CPU: each waits about half the time.
    check("truth.offcpu.share", 0.2 * total <= off <= 0.8 * total,
          f"off-CPU {off} ns of {total} ns")
    # fibtrace counts every switch-out inside fib_read, waiting on the run
    # queue or asleep (in one 6.12 run the reader's time off its CPU
    # exceeded its wait by 14 ms, over 6 voluntary switches; CI's failure
    # at 5a73589 had fibtrace 8% above the wait). So it is at most the reader's whole
    # time off its CPU (wall minus thread CPU time, which also holds the
    # switches outside fib_read) and most of its run-queue wait. Most: the
    # loop does little outside fib_read since it reads into one buffer (with
    # a new 128 KiB bytes object per read, mmap'd, faulted in and unmapped,
    # a 6.1 run waited 108 ms in the loop and 47 ms of it inside fib_read).
    check("truth.offcpu.schedstat", 0.6 * waited <= off <= 1.05 * away + 1e6,
          f"fibtrace {off} ns, schedstat wait {waited} ns, off its CPU {away} ns")
    check("truth.offcpu.oncpu", row["off_cpu"]["on_cpu_median_ns"] < row["median_ns"],
          f"on-CPU median {row['off_cpu']['on_cpu_median_ns']}, median {row['median_ns']}")
    # The compare metric.
    p = subprocess.run([FIBTRACE, "--compare", "algos", "--algo", "bn-fdouble,bn-iter",
                        "--sweep", "1000:1000", "--repeat", "5", "--metric", "oncpu",
                        "--format", "json"], capture_output=True, text=True, timeout=600)
    ok = p.returncode in (0, 8) and json.loads(p.stdout)["settings"]["metric"] == "oncpu"
    check("truth.offcpu.compare", ok, f"exit {p.returncode}: {p.stderr.strip()[-300:]}")


WINDOW_READER = """
import os, sys
sys.path.insert(0, sys.argv[1])
import gtest
fd = gtest.open_algo(sys.argv[2])
print("reading", flush=True)
while True:
    os.pread(fd, 1 << 20, int(sys.argv[3]))
"""


def test_attach_window():
    """A read running when tracing starts is reported as lost, not as a (short) read.

    One process reads back to back (microseconds between reads, each read
    about a second), so whenever tracing starts a read is running; the
    trace lasts long enough for that read to end inside it."""
    algo = "bn-iter"
    limits = dict(gtest.algorithms())
    if algo not in limits:
        skip("truth.window", f"no {algo}")
        return
    n = limits[algo] // 3  # bn-iter is quadratic: a ninth of a read at its cap
    fd = gtest.open_algo(algo)
    t0 = time.monotonic()
    os.pread(fd, 1 << 20, n)
    alone = time.monotonic() - t0
    os.close(fd)
    print(f"# {algo} F({n}) alone: {alone:.1f} s; read back to back while fibtrace starts")
    reader = subprocess.Popen([sys.executable, "-c", WINDOW_READER,
                               os.path.dirname(os.path.abspath(__file__)), algo, str(n)],
                              stdout=subprocess.PIPE, text=True)
    try:
        reader.stdout.readline()  # its first read has begun: from now on one always runs
        doc = fibtrace_json("truth.window", ["--no-discover", "-d", str(alone * 1.5 + 3)])
    finally:
        reader.kill()
        reader.wait()
    if not doc:
        return
    # Detach waits for RCU Tasks grace periods (kprobe.multi, fentry), which a
    # task computing in the kernel held for 41-81 s on 6.12 until fibdrv's
    # loops reported quiescent states (bn_resched): printed, not a threshold.
    print(f"# detached in {doc['meta']['startup']['detach_s']:.2f} s while the reads ran "
          f"({doc['meta']['startup']['plan']})")
    reads, lost = funcs(doc)["fib_read"]["count"], doc["lost"]["outside_read"]
    whole = all(r["breakdown"]["compute_ns"] > 0 and r["parts_over_total"] == 0
                for r in doc["per_n"])
    check("truth.window.lost_not_call", lost >= 1 and whole,
          f"lost.outside_read {lost}, fib_read {reads}, every recorded read whole: {whole}")


def test_tail_calls():
    """A tail call (bn_sqr_n jumps to bn_sqr_basecase at F(1000)'s sizes) on each plan.

    kprobes and kprobe.multi return from both calls in one pass of the
    kernel's return trampoline: BPF tells the pair by the callee entering
    with its caller's stack pointer and counts it on the caller
    (compensated.tail_calls), exactly once per call; fentry's trampolines
    call the function, so nothing is shared and nothing counted. Under the
    instruction clock, fib_read's compensated median is within issue 46's
    target of the untraced truth, and bn_sqr_n's compensated total is what
    it is traced alone (its callee untraced) within 40 instructions or 10%
    (measured 2026-12-02: 118.7 alone, 119.7 and 121.7 with the pair)."""
    reads = 10
    base = ["--sweep", "1000:1000", "--repeat", str(reads), "--cpu", "0", "--algo",
            "bn-fdouble-karatsuba", "--no-discover"]
    truth = untraced_truth(1000, reads)
    for plan in ("auto", "fentry"):
        doc = fibtrace_json(f"truth.tail.{plan}", base + ["--attach", plan, "-f",
                                                          "bn_sqr_n,bn_sqr_basecase"])
        alone = fibtrace_json(f"truth.tail.{plan}.alone",
                              base + ["--attach", plan, "-f", "bn_sqr_n"])
        if not doc or not alone:
            continue
        fs, mode = funcs(doc), funcs(doc)["bn_sqr_n"]["attach"]
        sq, base_fn = fs["bn_sqr_n"], fs["bn_sqr_basecase"]
        shared = mode in ("kprobe", "kprobe.multi")
        want = sq["count"] if shared else 0
        check(f"truth.tail.{plan}.counted",
              sq["count"] == base_fn["count"] > 0 and
              sq["compensated"]["tail_calls"] == want and
              base_fn["compensated"]["tail_calls"] == 0,
              f"{mode}: bn_sqr_n {sq['count']} calls, {sq['compensated']['tail_calls']} tail "
              f"calls (want {want}); bn_sqr_basecase {base_fn['count']}, "
              f"{base_fn['compensated']['tail_calls']}")
        tail = doc["meta"]["overhead"][mode]["tail"]
        check(f"truth.tail.{plan}.calibrated", tail["calibrated"] == shared,
              f"{mode}: {tail}")
        if doc["meta"].get("clock") != "instructions":
            continue
        comp = doc["per_n"][0]["compensated"]["median_ns"]
        check(f"truth.tail.{plan}.read", abs(comp - truth) <= max(0.02 * truth, 200),
              f"{mode}: fib_read compensated {comp} against the untraced {truth:.0f} "
              f"instructions ({(comp - truth) / truth * 100:+.2f}%)")
        solo = funcs(alone)["bn_sqr_n"]
        one = solo["compensated"]["total_ns"] / solo["count"]
        two = sq["compensated"]["total_ns"] / sq["count"]
        check(f"truth.tail.{plan}.caller", abs(two - one) <= max(40, 0.1 * one),
              f"{mode}: bn_sqr_n {two:.1f} a call with its tail callee traced, {one:.1f} "
              f"alone")


def main():
    test_depth()
    test_pid_namespace()
    test_one_compute()
    test_compensation()
    test_tail_calls()
    test_recalibration()
    test_context()
    test_off_cpu()
    test_attach_window()


if __name__ == "__main__":
    gtest.run(main)
