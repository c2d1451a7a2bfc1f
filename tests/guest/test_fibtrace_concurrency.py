#!/usr/bin/python3
"""Concurrent readers: 16 processes reading F(n) for n in 3000..20000 (the
default algorithm, Karatsuba under fast doubling) at once, traced in command
mode (every process counts). With fentry every read is counted; with kprobes
every read is counted or accounted for by name.

Why the accounting is exact. fib_read's own books (functions[].roots,
checked as <name>.roots by gtest.reads_accounted) hold every read whose
entry a BPF program saw: counted, dropped at the task's next read (its exit
missed), or open (its exit missed in the task's last read). A read is
unseen only when the kernel did not run fib_read's entry program:
functions[fib_read].kprobe_missed (its kprobe handler busy on that CPU;
Linux 6.7+) or recursion_misses (another BPF program running there; none
runs here). So issued = roots.entered + those, exactly, with task_storage
and stack_overflow (entries BPF dropped) asserted 0.

The kernel's own count of returns it did not probe,
functions[fib_read].kretprobe_missed (kprobe_profile), names why: a
kretprobe takes an instance from its function's pool at entry, and with
none free counts a miss. It is a lower bound: both kernels increment it
without a lock or an atomic (pre_handler_kretprobe's "addl $1,0x94(%rbx)",
no lock prefix, in the guests' vmlinux), so two CPUs missing at once can
lose a count. Runs of --maxactive 2 showed the kernel's count 1 or 2 below
fibtrace's dropped + open in 4 of about 40 (issued 320; docs/measurement.md),
equal in the others. The checks: the kernel's count is at most fibtrace's and, so that a
count read from the wrong event or not at all still fails, at least 98% of
it (2, for small counts); with the default maxactive both are 0. lost.no_return /
lost.unwound count the frames BPF dropped for missed returns of every
function, so they are not in the equation.

Runs as root with fibdrv loaded; tracefs as the guest mounts it.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gtest import check, skip  # noqa: E402
import gtest  # noqa: E402

FIBTRACE = os.path.abspath("build/fibtrace")
STRESS = os.path.abspath("build/tests/fibstress")
PROCS, READS, LO, HI = 16, 20, 3000, 20000
OUT = f"build/vm/concurrency-stress-{os.uname().release}.txt"  # build/vm is shared
TRACEFS = next((d for d in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")
                if os.path.exists(f"{d}/kprobe_events")), None)


def traced_readers(name, args, batches=1):
    """fibtrace ARGS -- fibstress procs (@batches times, one after another):
    (JSON document, reads issued) or (None, 0)."""
    cmd = f"for i in $(seq {batches}); do {STRESS} procs {PROCS} {READS} {LO} {HI}; done > {OUT}"
    t0 = time.monotonic()
    p = subprocess.run([FIBTRACE, "--json"] + args + ["--", "sh", "-c", cmd],
                       capture_output=True, text=True, timeout=600)
    if not check(f"{name}.exit", p.returncode == 0,
                 f"exit {p.returncode}: {p.stderr.strip()[-300:]}"):
        return None, 0
    with open(OUT) as f:
        got = re.findall(r"fibstress: (\d+) reads, 0 mismatches, 0 errors", f.read())
    if not check(f"{name}.readers", len(got) == batches, "fibstress did not report clean reads"):
        return None, 0
    doc = json.loads(p.stdout)
    fr = {f["name"]: f for f in doc["functions"]}["fib_read"]
    issued = sum(int(g) for g in got)
    print(f"# {name}: {time.monotonic() - t0:.0f} s, maxactive {doc['meta']['maxactive']}, "
          f"reads issued {issued}, counted {fr['count']}, fib_read kretprobe_missed "
          f"{fr['kretprobe_missed']}, lost {({k: v for k, v in doc['lost'].items() if v})}")
    return doc, issued


def fib_read(doc):
    return {f["name"]: f for f in doc["functions"]}["fib_read"]


def check_accounted(name, doc, issued):
    """Every read in fib_read's own books; the kernel's miss count a lower bound of them (docstring)."""
    fr, lost = fib_read(doc), doc["lost"]
    own = fr["roots"]["dropped"] + fr["roots"]["open"]
    kernel = fr["kretprobe_missed"]
    if kernel != own:
        print(f"# {name}: the kernel counted {kernel} returns missed, fibtrace {own} "
              f"(roots.dropped + roots.open): {own - kernel} of the kernel's increments lost")
    ok, detail = gtest.reads_accounted(issued, fr["count"], fr)
    check(f"{name}.roots", ok, detail)
    check(f"{name}.accounted",
          own - max(2, own // 50) <= kernel <= own and lost["task_storage"] == 0 and
          lost["stack_overflow"] == 0 and lost["kretprobe_missed"] >= kernel,
          f"fib_read kretprobe_missed {kernel} (the kernel's count) not within 2% below "
          f"fibtrace's dropped + open {own}, or lost {lost}")


def test_fentry():
    """fentry/fexit have no instance pool: every read of every process counted."""
    doc, issued = traced_readers("concurrency.fentry", ["--attach", "fentry"])
    if not doc:
        return
    fr = fib_read(doc)
    check("concurrency.fentry.every_read", fr["count"] == issued == PROCS * READS,
          f"counted {fr['count']} of {issued} (want {PROCS * READS})")
    check("concurrency.fentry.nothing_lost", not any(doc["lost"].values()), str(doc["lost"]))
    check("concurrency.fentry.roots", fr["roots"] == {"entered": issued, "returned": issued,
                                                      "dropped": 0, "open": 0}, str(fr["roots"]))


def test_kprobe():
    """kprobes with the default maxactive for a command (1024): >= 95% counted, the rest named."""
    doc, issued = traced_readers("concurrency.kprobe", ["--kprobe"])
    if not doc:
        return
    fr = fib_read(doc)
    check("concurrency.kprobe.maxactive", doc["meta"]["maxactive"] == 1024,
          f"meta.maxactive {doc['meta']['maxactive']}")
    check("concurrency.kprobe.at_least_95pct", fr["count"] >= 0.95 * issued,
          f"counted {fr['count']} of {issued}")
    check_accounted("concurrency.kprobe", doc, issued)


def test_kprobe_starved():
    """--maxactive 2 on the read path: reads are missed, and every one is named."""
    doc, issued = traced_readers("concurrency.starved",
                                 ["--kprobe", "--no-discover", "--maxactive", "2"])
    if not doc:
        return
    fr = fib_read(doc)
    if fr["kretprobe_missed"] == 0:
        skip("concurrency.starved.accounted",
             "no fib_read return was missed with 2 instances (the reads did not overlap)")
        return
    check_accounted("concurrency.starved", doc, issued)


def test_stack_pool():
    """Issue 50: a task's call stack comes from a pool (64 stacks in this guest)
    and goes back when its outermost call returns, or, when that return was
    missed, when the task ends (ft_task_exit). --maxactive 2 and 16 batches of
    16 processes, one batch after another: every process whose last read's
    return was missed (fib_read roots.open) ends holding its stack; once more
    of them have ended than the pool holds, a stack not given back would
    leave later readers untraced (lost.task_storage)."""
    doc, issued = traced_readers("concurrency.pool",
                                 ["--kprobe", "--no-discover", "--maxactive", "2"], batches=16)
    if not doc:
        return
    fr = fib_read(doc)
    held = fr["roots"]["open"]
    print(f"# concurrency.pool: {PROCS * 16} processes, {held} ended holding a stack")
    # Every read accounted for, and lost.task_storage 0 (check_accounted).
    check_accounted("concurrency.pool", doc, issued)
    if held <= 64:
        skip("concurrency.pool.exercised", f"only {held} tasks ended holding a stack: "
             "the pool (64) was not outrun")
    else:
        check("concurrency.pool.exercised", True)


def test_unprivileged_reader():
    """Issue 50: what a reader fibtrace did not start costs it, while it
    watches every process: an unprivileged fibclient's reads are traced,
    and the maps say so: 136 bytes of task storage per task (tasks), the
    stacks in an array allocated at load (stacks), one per 4 CPUs' worth."""
    out = f"build/vm/maps-{os.uname().release}.json"
    reader = (f"setpriv --reuid=65534 --regid=65534 --clear-groups build/fibclient "
              f"--sweep 1000:1009 --quiet && bpftool -j map show > {out}")
    p = subprocess.run([FIBTRACE, "--json", "--no-discover", "--", "sh", "-c", reader],
                       capture_output=True, text=True, timeout=600)
    if not check("unpriv_reader.exit", p.returncode == 0,
                 f"exit {p.returncode}: {p.stderr.strip()[-300:]}"):
        return
    doc = json.loads(p.stdout)
    with open(out) as f:
        maps = {m.get("name"): m for m in json.load(f)}
    tasks, stacks = maps.get("tasks", {}), maps.get("stacks", {})
    print(f"# unpriv_reader: tasks {tasks.get('type')} value {tasks.get('bytes_value')} B; "
          f"stacks {stacks.get('type')} {stacks.get('max_entries')} x "
          f"{stacks.get('bytes_value')} B")
    check("unpriv_reader.traced", fib_read(doc)["count"] == 10 and
          not any(doc["lost"].values()), f"fib_read {fib_read(doc)['count']}, lost {doc['lost']}")
    check("unpriv_reader.task_storage", tasks.get("type") == "task_storage" and
          0 < tasks.get("bytes_value", 0) <= 256, str(tasks))
    check("unpriv_reader.stack_pool", stacks.get("type") == "array" and
          stacks.get("max_entries", 0) >= 64 and stacks.get("bytes_value", 0) > 64 * 80,
          str(stacks))


def fibtrace_events():
    with open(f"{TRACEFS}/kprobe_events") as f:
        return [line for line in f.read().splitlines() if ":fibtrace_" in line]


def test_events_removed():
    """No kprobe event outlives a fibtrace; a killed one's are removed by the next."""
    check("concurrency.events.removed", not fibtrace_events(), str(fibtrace_events()[:3]))
    # --no-compensate: the read path's four events only (no calibration function's).
    p = subprocess.Popen([FIBTRACE, "--kprobe", "--no-discover", "--no-compensate", "-d", "300"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(fibtrace_events()) < 4 and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.2)
    left = fibtrace_events()
    p.send_signal(signal.SIGKILL)
    p.wait()
    check("concurrency.events.killed_leaves", len(left) == 4 and
          all(f"fibtrace_{p.pid}/" in line and line.startswith("r1024:") for line in left),
          f"events of the killed fibtrace {p.pid}: {left}")
    q = subprocess.run([FIBTRACE, "--json", "--kprobe", "--no-discover", "--sweep", "0:3"],
                       capture_output=True, text=True, timeout=300)
    check("concurrency.events.leftovers_removed", q.returncode == 0 and not fibtrace_events(),
          f"exit {q.returncode}, events left {fibtrace_events()}")


def test_bad_maxactive():
    bad = [a for a in ("0", "4097", "x")
           if subprocess.run([FIBTRACE, "--maxactive", a, "--sweep", "0:1"],
                             capture_output=True).returncode != 2]
    check("concurrency.maxactive.usage", not bad, f"--maxactive {bad} not refused with exit 2")


def dmesg_lines():
    return subprocess.run(["dmesg"], capture_output=True, text=True).stdout.splitlines()


def main():
    before = len(dmesg_lines())
    test_bad_maxactive()
    test_unprivileged_reader()
    test_fentry()
    if TRACEFS:
        test_kprobe()
        test_kprobe_starved()
        test_stack_pool()
        test_events_removed()
    else:
        skip("concurrency.kprobe", "no tracefs (kprobe_events): maxactive cannot be set")
    bad = [line for line in dmesg_lines()[before:]
           if re.search(r"BUG|WARNING|Oops|general protection|soft lockup|blocked for more "
                        r"than|hung_task|KASAN|UBSAN", line)]
    check("concurrency.dmesg_clean", not bad, "; ".join(bad[:3]))


gtest.run(main)
