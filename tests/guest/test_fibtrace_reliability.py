#!/usr/bin/python3
"""fibtrace under faults: signals, SIGKILL cleanup, rmmod while attached (fentry
and kprobe), a ring buffer too small for the reads, bad options.

Runs as root with fibdrv loaded (tests/guest/run.sh) and leaves it loaded.
The exit statuses 2 (bad flags, unknown algorithm), 3 (as nobody), 4 (fibdrv
not loaded) and 5 (unknown function, fentry) are checked by
test_fibtrace_modes.py; this file adds what happens while tracing.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtest  # noqa: E402
from gtest import check, skip  # noqa: E402

FIBTRACE = os.path.abspath("build/fibtrace")
KO = f"build/{os.uname().release}/fibdrv.ko"
# fentry/fexit per slot; the kprobe plans' shared pairs (bpf/fibtrace.bpf.c)
PROG_NAME = re.compile(r"^((fe|fx)_\d+|ft_kp_entry|ft_kp_exit|ft_multi_entry|ft_multi_exit)$")
MAP_NAMES = {"stats", "lost", "reads", "tasks", "cnt_events", "cstats"}
READ_PATH = {"fib_read", "fibdrv_compute", "fibdrv_format", "fibdrv_copy"}


def client_reads(count):
    """Issue exactly count reads of F(0..count-1) from this process."""
    fd = os.open("/dev/fibonacci", os.O_RDONLY)
    for n in range(count):
        os.pread(fd, 64, n)
    os.close(fd)


def start(args):
    """Start fibtrace in wait mode (text output) and return it once it says
    it is tracing (probes attached)."""
    proc = subprocess.Popen([FIBTRACE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    err = []
    for line in proc.stderr:
        err.append(line)
        if "Hit Ctrl-C" in line:
            return proc, err
    proc.wait(timeout=30)
    raise RuntimeError(f"fibtrace exited {proc.returncode} before tracing: {''.join(err)}")


def finish(proc, err, timeout=60):
    """Wait for fibtrace; a hang is a failure (TimeoutExpired), not a stall."""
    out, rest = proc.communicate(timeout=timeout)
    return proc.returncode, out, "".join(err) + rest


def text_count(out, name="fib_read"):
    """count of one function in the text report's table."""
    return gtest.text_count(out, name)


def text_records(out):
    """(per-read records kept, lost.ringbuf) from the text report."""
    kept = re.search(r"from (\d+) read records", out)
    line = re.search(r"^lost:.*$", out, re.M)
    lost = re.search(r" ringbuf (\d+)", line.group(0)) if line else None
    if line and not lost:
        # The default report lists only the counters that are not 0.
        return (int(kept.group(1)) if kept else 0), 0
    return (int(kept.group(1)) if kept else 0), (int(lost.group(1)) if lost else None)


def bpftool_json(*args):
    p = subprocess.run(["bpftool", "-j", *args], capture_output=True, text=True, timeout=60)
    return json.loads(p.stdout or "[]") if p.returncode == 0 else None


def leftovers(pid):
    """What fibtrace (pid) may have left attached: its programs by name, its
    maps by name, perf events (kprobes) of its pid, kprobes on the read path."""
    found = []
    progs = bpftool_json("prog", "show") or []
    found += [f"prog {p['name']}" for p in progs if PROG_NAME.match(p.get("name", ""))]
    maps = bpftool_json("map", "show") or []
    found += [f"map {m['name']}" for m in maps
              if m.get("name") in MAP_NAMES or m.get("name", "").startswith("fibtrac")]
    perf = bpftool_json("perf") or []
    found += [f"perf {e.get('func')}" for e in perf if e.get("pid") == pid]
    for path in ("/sys/kernel/debug/kprobes/list", "/sys/kernel/tracing/kprobe_events"):
        if os.path.exists(path):
            with open(path) as f:
                found += [f"{os.path.basename(path)}: {line.strip()}" for line in f
                          if any(fn in line for fn in READ_PATH)]
    return found


def wait_clean(pid, seconds=5.0):
    """The kernel releases links, programs and maps after the last fd closes,
    partly deferred (RCU, workqueues): poll a few seconds."""
    deadline = time.monotonic() + seconds
    while True:
        left = leftovers(pid)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.25)


def test_signal_wait(sig, mode, reads):
    """SIGINT / SIGTERM in wait mode: the report of exactly the reads issued,
    exit 0, everything detached."""
    name = f"signal.wait.{mode}.{signal.Signals(sig).name}"
    args = ["--no-discover", "--no-hist"] + ["--attach", mode]
    proc, err = start(args)
    client_reads(reads)
    sent = time.monotonic()
    proc.send_signal(sig)
    rc, out, err = finish(proc, err)
    print(f"# {name}: report printed and detached {time.monotonic() - sent:.2f} s after the signal")
    check(f"{name}.exit0", rc == 0, f"exit {rc}: {err.strip()[-300:]}")
    got = text_count(out)
    check(f"{name}.count", got == reads, f"fib_read count {got} != {reads} reads issued")
    kept, lost = text_records(out)
    check(f"{name}.records", lost is not None and kept + lost == reads,
          f"records {kept} + lost.ringbuf {lost} != {reads}")
    left = wait_clean(proc.pid)
    check(f"{name}.detached", not left, "; ".join(left[:5]))


def test_signal_sweep(sig, mode):
    """A signal during --sweep stops the sweep after the current read; the
    report covers exactly the reads issued so far."""
    name = f"signal.sweep.{mode}.{signal.Signals(sig).name}"
    # --no-compensate: the sweep then begins right after the device opens (no calibration).
    cmd = [FIBTRACE, "--json", "--no-discover", "--no-compensate", "--sweep", "0:100000:50"]
    cmd += ["--attach", mode]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The sweep has begun when fibtrace holds the device open for a while
    # (it also opens it for a moment before attaching, to read the default
    # algorithm's cap): four polls in a row.
    deadline, seen = time.monotonic() + 120, 0
    while proc.poll() is None and time.monotonic() < deadline and seen < 4:
        try:
            fds = os.listdir(f"/proc/{proc.pid}/fd")
            held = any(os.readlink(f"/proc/{proc.pid}/fd/{fd}") == "/dev/fibonacci" for fd in fds)
        except OSError:
            held = False
        seen = seen + 1 if held else 0
        time.sleep(0.05)
    time.sleep(0.5)
    if proc.poll() is not None:
        check(f"{name}.running", False, f"fibtrace ended before the signal: {proc.returncode}")
        return
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    check(f"{name}.exit0", proc.returncode == 0, f"exit {proc.returncode}: {err.strip()[-300:]}")
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(f"{name}.json", False, str(e))
        return
    issued = doc["meta"]["sweep"]["reads_issued"]
    fr = {f["name"]: f for f in doc["functions"]}["fib_read"]["count"]
    kept = sum(r["count"] for r in doc["per_n"])
    check(f"{name}.partial", 0 < issued < 2001, f"reads_issued {issued} of 2001")
    check(f"{name}.count", fr == issued, f"fib_read count {fr} != reads issued {issued}")
    check(f"{name}.records", kept + doc["lost"]["ringbuf"] == issued,
          f"records {kept} + lost.ringbuf {doc['lost']['ringbuf']} != {issued}")
    left = wait_clean(proc.pid)
    check(f"{name}.detached", not left, "; ".join(left[:5]))


def test_sigkill(mode):
    """After SIGKILL nothing of fibtrace stays attached, and reads after the
    kill run no program of it (none exists). kprobe events stay, disabled,
    until the next fibtrace removes them."""
    name = f"sigkill.{mode}"
    args = ["--no-discover"] + ["--attach", mode]
    proc, err = start(args)
    attached = leftovers(proc.pid)
    check(f"{name}.attached-before", any(x.startswith("prog ") for x in attached),
          "no fe_N/ft_kp_* program seen while tracing: the check below would prove nothing")
    client_reads(5)
    proc.kill()
    proc.communicate(timeout=30)
    left = wait_clean(proc.pid)
    client_reads(5)
    left += [x for x in leftovers(proc.pid) if x not in left]
    if mode == "kprobe":
        # Its kretprobes are tracefs kprobe events (sized maxactive, kretprobe.c):
        # no file descriptor holds them, so they outlive a SIGKILL, disabled and
        # without a program. The next fibtrace removes them.
        events = [x for x in left if f":fibtrace_{proc.pid}/" in x or "[DISABLED]" in x]
        left = [x for x in left if x not in events]
        run = subprocess.run([FIBTRACE, "--json", "--kprobe", "--no-discover", "--sweep", "0:3"],
                             capture_output=True, text=True, timeout=300)
        rest = wait_clean(proc.pid)
        check(f"{name}.events-removed-by-next", run.returncode == 0 and not rest,
              f"exit {run.returncode}; before {events[:2]}; after {rest[:3]}")
    check(f"{name}.nothing-attached", not left, "; ".join(left[:5]))


def refcnt():
    with open("/sys/module/fibdrv/refcnt") as f:
        return int(f.read())


def test_rmmod_fentry():
    """fentry/fexit trampolines on fibdrv's functions hold a module reference:
    rmmod fails with "in use" and tracing goes on."""
    before = refcnt()
    proc, err = start(["--attach", "fentry", "--no-discover", "--no-hist"])
    held = refcnt()
    out = subprocess.run(["rmmod", "fibdrv"], capture_output=True, text=True, timeout=60)
    print(f"# rmmod while fentry-attached: refcnt {before} -> {held}, rmmod exit "
          f"{out.returncode}: {out.stderr.strip()}")
    check("rmmod.fentry.refused", out.returncode != 0 and "in use" in out.stderr and
          os.path.exists("/sys/module/fibdrv"), f"rmmod exit {out.returncode}: {out.stderr}")
    client_reads(9)
    proc.send_signal(signal.SIGINT)
    rc, out, err = finish(proc, err)
    check("rmmod.fentry.tracing-goes-on", rc == 0 and text_count(out) == 9,
          f"exit {rc}, fib_read count {text_count(out)} != 9")
    deadline = time.monotonic() + 5
    while refcnt() != before and time.monotonic() < deadline:
        time.sleep(0.25)
    check("rmmod.fentry.reference-dropped", refcnt() == before,
          f"refcnt {refcnt()} after exit, {before} before")


def test_rmmod_kprobe():
    """kprobes do not pin fibdrv: rmmod succeeds, fibtrace notices within its
    poll interval, reports what it gathered and exits 4."""
    proc, err = start(["--no-discover", "--no-hist", "--kprobe"])
    client_reads(11)
    try:
        out = subprocess.run(["rmmod", "fibdrv"], capture_output=True, text=True, timeout=60)
        removed = time.monotonic()
        unloaded = out.returncode == 0
        check("rmmod.kprobe.allowed", unloaded, f"rmmod exit {out.returncode}: {out.stderr}")
        if not unloaded:
            proc.send_signal(signal.SIGINT)
        rc, out, err = finish(proc, err, timeout=30)
        print(f"# rmmod while kprobe-attached: fibtrace exited {rc} "
              f"{time.monotonic() - removed:.2f} s after rmmod returned")
    finally:
        if not os.path.exists("/sys/module/fibdrv"):
            subprocess.run(["insmod", KO], timeout=60)
    if not unloaded:
        return
    check("rmmod.kprobe.exit4", rc == 4, f"exit {rc}: {err.strip()[-300:]}")
    check("rmmod.kprobe.message", "fibdrv was unloaded while tracing" in err, err.strip()[-300:])
    check("rmmod.kprobe.report", text_count(out) == 11,
          f"fib_read count {text_count(out)} != 11 reads before rmmod")
    left = wait_clean(proc.pid)
    check("rmmod.kprobe.detached", not left, "; ".join(left[:5]))
    fd = os.open("/dev/fibonacci", os.O_RDONLY)
    value = os.pread(fd, 64, 10)
    os.close(fd)
    check("rmmod.kprobe.reloaded", value == b"55", f"F(10) read {value!r} after insmod")


def test_rmmod_insmod_between_polls():
    """A reload between two polls is a different fibdrv: the probes died with
    the old one, so fibtrace stops the same way."""
    proc, err = start(["--no-discover", "--no-hist", "--kprobe"])
    client_reads(3)
    try:
        subprocess.run(["sh", "-c", f"rmmod fibdrv && insmod {KO}"], timeout=60)
        rc, out, err = finish(proc, err, timeout=30)
    finally:
        if not os.path.exists("/sys/module/fibdrv"):
            subprocess.run(["insmod", KO], timeout=60)
    check("rmmod.kprobe.reload.exit4", rc == 4 and text_count(out) == 3,
          f"exit {rc}, fib_read count {text_count(out)}: {err.strip()[-200:]}")


def run_json(name, args, timeout=300):
    p = subprocess.run([FIBTRACE, "--json"] + args, capture_output=True, text=True,
                       timeout=timeout)
    if not check(f"{name}.exit0", p.returncode == 0, f"exit {p.returncode}: {p.stderr[-300:]}"):
        return None
    return json.loads(p.stdout)


def test_ringbuf_full():
    """A 4 KiB ring buffer holds ~42 records: the sweep drains it every 64
    reads, so records are dropped, and every one is counted in lost.ringbuf."""
    reads = 2001
    doc = run_json("ringbuf.sweep", ["--no-discover", "--ringbuf-size", "4096",
                                     "--sweep", f"0:{reads - 1}"])
    if doc:
        fr = {f["name"]: f for f in doc["functions"]}["fib_read"]["count"]
        kept, lost = sum(r["count"] for r in doc["per_n"]), doc["lost"]["ringbuf"]
        print(f"# ringbuf 4096 sweep: {reads} reads, {kept} records kept, {lost} lost")
        check("ringbuf.sweep.count", fr == reads == doc["meta"]["sweep"]["reads_issued"],
              f"fib_read {fr}, issued {doc['meta']['sweep']['reads_issued']}, want {reads}")
        check("ringbuf.sweep.loss-counted", lost > 0 and kept + lost == reads,
              f"kept {kept} + lost {lost} != {reads}")
    doc = run_json("ringbuf.command", ["--no-discover", "--ringbuf-size", "4096", "--",
                                       "build/fibclient", "--sweep", f"0:{reads - 1}", "--quiet"])
    if doc:
        fr = {f["name"]: f for f in doc["functions"]}["fib_read"]["count"]
        kept, lost = sum(r["count"] for r in doc["per_n"]), doc["lost"]["ringbuf"]
        print(f"# ringbuf 4096 command: {reads} reads, {kept} records kept, {lost} lost")
        check("ringbuf.command.count", fr == reads, f"fib_read {fr} != {reads}")
        check("ringbuf.command.records", kept + lost == reads,
              f"kept {kept} + lost {lost} != {reads}")
    for bad in ("1000", "2048", "0", "4k", str(1 << 31)):
        p = subprocess.run([FIBTRACE, "--ringbuf-size", bad, "-d", "1"], capture_output=True,
                           text=True, timeout=60)
        check(f"ringbuf.bad-size.{bad}", p.returncode == 2 and "--ringbuf-size" in p.stderr,
              f"exit {p.returncode}: {p.stderr.strip()[-200:]}")


def test_max_records():
    """--max-records bounds fibtrace's memory: a command making more reads keeps
    that many records, counts the rest in lost.records_dropped, and its
    function histograms still hold every read; a sweep needing more is refused."""
    reads, cap = 500, 120
    doc = run_json("records.command", ["--no-discover", "--max-records", str(cap), "--",
                                       "build/fibclient", "--sweep", f"0:{reads - 1}", "--quiet"])
    if doc:
        fr = {f["name"]: f for f in doc["functions"]}["fib_read"]["count"]
        kept, dropped = sum(r["count"] for r in doc["per_n"]), doc["lost"]["records_dropped"]
        print(f"# --max-records {cap}: {reads} reads, {kept} records kept, {dropped} dropped")
        check("records.command.counts", fr == reads and kept == cap and dropped == reads - cap,
              f"fib_read {fr}, kept {kept}, dropped {dropped}")
        check("records.command.warned", any("--max-records" in w for w in doc["meta"]["warnings"]),
              str(doc["meta"]["warnings"]))
    def ft(args):
        return subprocess.run([FIBTRACE] + args, capture_output=True, text=True, timeout=120)

    p = ft(["--no-discover", "--max-records", "100", "--sweep", "0:50", "--repeat", "2"])
    check("records.sweep-refused", p.returncode == 2 and "--max-records" in p.stderr,
          f"exit {p.returncode}: {p.stderr.strip()[-200:]}")
    for bad in ("0", str((1 << 26) + 1), "-1", "1e3"):
        p = ft(["--no-discover", "--max-records", bad, "-d", "1"])
        check(f"records.bad.{bad}", p.returncode == 2 and "--max-records" in p.stderr,
              f"exit {p.returncode}: {p.stderr.strip()[-200:]}")


def test_bad_situations():
    """Messages of the bad cases test_fibtrace_modes.py checks by status only,
    and the kprobe path of an unknown function."""
    p = subprocess.run([FIBTRACE, "--kprobe", "--no-discover", "-f", "no_such_function"],
                       capture_output=True, text=True, timeout=120)
    check("bad.unknown-function.kprobe", p.returncode == 5 and "no_such_function" in p.stderr,
          f"exit {p.returncode}: {p.stderr.strip()[-200:]}")
    p = subprocess.run([FIBTRACE, "--no-such-flag"], capture_output=True, text=True, timeout=60)
    check("bad.flag.usage-message", p.returncode == 2 and "--help" in p.stderr and
          "no-such-flag" in p.stderr, f"exit {p.returncode}: {p.stderr.strip()[-200:]}")
    p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        "--inh-caps=-all", FIBTRACE, "--no-discover", "-d", "1"],
                       capture_output=True, text=True, timeout=60)
    check("bad.not-root.message", p.returncode == 3 and "root" in p.stderr,
          f"exit {p.returncode}: {p.stderr.strip()[-200:]}")


def test_bad_inputs_refused():
    """fibtrace's own inputs and outputs: an empty -f entry, -p of a process
    that does not exist and a sweep beyond the default algorithm's cap are
    usage errors (exit 2); a report that cannot be written is exit 1; a
    --plot path with a quote is written as given, never run by gnuplot."""
    def ft(args, stdout=subprocess.PIPE, timeout=120, cwd=None):
        return subprocess.run([FIBTRACE] + args, stdout=stdout, stderr=subprocess.PIPE,
                              text=True, timeout=timeout, cwd=cwd)
    for bad in ("", "a,,b", "fib_read,", "fibdrv:", ":fib_read"):
        p = ft(["--no-discover", "-f", bad, "-d", "1"])
        check(f"bad.func-empty.{bad or 'empty'}", p.returncode == 2 and "--func" in p.stderr,
              f"exit {p.returncode}: {p.stderr.strip()[-200:]}")
    for i, bad in enumerate(("fibdrv:bn:mul", "fib read", "fib_read\n", "fibdrv:fib'read",
                             "fib_read;id", "vfs_*,a\"b")):
        p = ft(["--no-discover", "-f", bad, "-d", "1"])
        check(f"bad.func-malformed.{i}", p.returncode == 2 and "--func" in p.stderr,
              f"{bad!r}: exit {p.returncode}: {p.stderr.strip()[-200:]}")
    pid = 4000000  # above pid_max's default (4194304 is the limit): take a free one
    while os.path.exists(f"/proc/{pid}"):
        pid += 1
    p = ft(["--no-discover", "-p", str(pid), "-d", "1"])
    check("bad.pid-missing", p.returncode == 2 and "no such process" in p.stderr,
          f"exit {p.returncode}: {p.stderr.strip()[-200:]}")
    algos = dict(gtest.algorithms())
    # Above every algorithm's cap, so above the default's whichever it is.
    p = ft(["--no-discover", "--sweep", f"0:{max(algos.values()) + 1}"])
    check("bad.sweep-beyond-default-cap", p.returncode == 2 and "max_n" in p.stderr,
          f"exit {p.returncode}: {p.stderr.strip()[-200:]}")
    with open("/dev/full", "w") as full:
        p = ft(["--no-discover", "--json", "--sweep", "0:3"], stdout=full)
    check("bad.report-unwritable", p.returncode == 1 and "writing the report" in p.stderr,
          f"exit {p.returncode}: {p.stderr.strip()[-200:]}")
    if not shutil.which("gnuplot"):
        skip("bad.plot-quote", "gnuplot not installed")
        return
    # Run in the directory: an injected system('touch ran') would create d/ran.
    d = tempfile.mkdtemp(prefix="ft-plot-")
    marker = os.path.join(d, "ran")
    name = "a'; system('touch ran'); set output 'b.svg"
    path = os.path.join(d, name)
    p = ft(["--no-discover", "--sweep", "0:20", "--plot", name], cwd=d)
    check("bad.plot-quote", p.returncode == 0 and os.path.getsize(path) > 0 and
          not os.path.exists(marker) and sorted(os.listdir(d)) == [os.path.basename(path)],
          f"exit {p.returncode}: {p.stderr.strip()[-200:]}; in {d}: {os.listdir(d)}")
    shutil.rmtree(d)


def main():
    if not os.path.exists("/sys/module/fibdrv"):
        skip("fibtrace-reliability", "fibdrv not loaded")
        return
    test_signal_wait(signal.SIGINT, "fentry", 25)
    test_signal_wait(signal.SIGTERM, "kprobe", 17)
    test_signal_sweep(signal.SIGTERM, "fentry")
    test_signal_sweep(signal.SIGINT, "kprobe")
    test_sigkill("fentry")
    test_sigkill("kprobe")
    test_rmmod_fentry()
    test_rmmod_kprobe()
    test_rmmod_insmod_between_polls()
    test_ringbuf_full()
    test_max_records()
    test_bad_situations()
    test_bad_inputs_refused()


if __name__ == "__main__":
    gtest.run(main)
