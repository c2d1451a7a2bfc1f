#!/usr/bin/python3
"""fibtrace next to another BPF tool on the same functions (bpftrace here).

- A full trampoline: bpftrace holds 37 fentry programs on fib_read, so of
  fibtrace's fentry/fexit pair one attaches (the kernel's limit is 38 links
  per trampoline on x86-64, BPF_MAX_TRAMP_LINKS) and the other fails with
  E2BIG. fibtrace must move fib_read alone to kprobes, say so in one
  warning, keep the other functions on fentry, and count every read once.
- A trampoline rebuilt under a running call: every attach or detach of an
  fentry program on fib_read rebuilds its trampoline, and a call in flight
  then returns past every fexit program (kernel/bpf/trampoline.c,
  bpf_tramp_image_put(); docs/reliability.md). fibtrace cannot see those
  returns; it must still account for every read: counted, dropped at the
  task's next read (lost.no_return) or open at the end (functions[].roots).

Runs as root with fibdrv loaded; needs bpftrace (make deps installs it).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtest  # noqa: E402
from gtest import check, skip  # noqa: E402

FIBTRACE = os.path.abspath("build/fibtrace")
READY_S = 600  # bpftrace loads its programs slowly under emulation
FILL = 37  # bpftrace's programs on fib_read: one link short of the 38 the kernel allows
SWEEP = 40
LONG_N = 100000  # a read of milliseconds: nearly always one in flight


class Bpftrace:
    """bpftrace with @probes on fibdrv's fib_read, started and known attached:
    its first probe, a kprobe on getppid filtered to this process, prints a
    line once bpftrace has attached everything (it attaches in reverse order)."""

    def __init__(self, name, probes, tmp):
        path = os.path.join(tmp, f"{name}.bt")
        with open(path, "w") as f:
            f.write(f"kprobe:__x64_sys_getppid /pid == {os.getpid()}/ "
                    "{ printf(\"attached\\n\"); }\n")
            f.write("\n".join(probes) + "\n")
        self.err = open(os.path.join(tmp, f"{name}.err"), "w+")
        self.p = subprocess.Popen(["bpftrace", path], stdout=subprocess.PIPE,
                                  stderr=self.err, text=True)
        self.ready = threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()
        deadline = time.monotonic() + READY_S
        while not self.ready.is_set() and self.p.poll() is None and time.monotonic() < deadline:
            os.getppid()
            self.ready.wait(0.2)

    def _watch(self):
        for line in self.p.stdout:
            if line.startswith("attached"):
                self.ready.set()

    def why(self):
        with open(self.err.name) as f:
            return f"bpftrace exit {self.p.poll()}: {f.read().strip()[-300:]}"

    def stop(self):
        """SIGINT, then SIGKILL; False when bpftrace did not exit (a detach stuck in the kernel).

        Sets self.how: what ended it and when."""
        t0, sent = time.monotonic(), 0
        while self.p.poll() is None and sent < 6:
            self.p.send_signal(2)
            sent += 1
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self.how = f"exit {self.p.poll()} {time.monotonic() - t0:.1f} s after the first SIGINT " \
                   f"({sent} sent)"
        if self.p.poll() is None:
            self.p.kill()
            try:
                self.p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                return False
            self.how = f"killed {time.monotonic() - t0:.1f} s after the first SIGINT"
        self.err.close()
        return True


def has_bpftrace(name):
    if shutil.which("bpftrace"):
        return True
    skip(name, "bpftrace is not installed (make deps installs it)")
    return False


def test_full_trampoline(tmp):
    """37 bpftrace programs on fib_read: fibtrace traces fib_read with a kprobe, the rest with fentry."""
    if not has_bpftrace("attach.full"):
        return
    t0 = time.monotonic()
    bt = Bpftrace("full", [f"kfunc:fibdrv:fib_read {{ @c{i} = count(); }}" for i in range(FILL)],
                  tmp)
    t1 = t2 = time.monotonic()
    try:
        if not check("attach.full.bpftrace", bt.ready.is_set(), bt.why()):
            return
        p = subprocess.run([FIBTRACE, "--attach", "fentry", "--no-discover", "--json",
                            "--sweep", f"0:{SWEEP - 1}"],
                           capture_output=True, text=True, timeout=900)
        t2 = time.monotonic()
    finally:
        bt.stop()
        # Where the time went (once 172 s on 6.1 where 30-50 s is usual).
        print(f"# attach.full: bpftrace ready in {t1 - t0:.0f} s, fibtrace {t2 - t1:.0f} s, "
              f"bpftrace stopped in {time.monotonic() - t2:.0f} s", flush=True)
    if not check("attach.full.exit", p.returncode == 0,
                 f"exit {p.returncode}: {p.stderr.strip()[-400:]}"):
        return
    doc = json.loads(p.stdout)
    funcs = {f["name"]: f for f in doc["functions"]}
    others = {n: f["attach"] for n, f in funcs.items() if n != "fib_read" and f["attach"] != "none"}
    print(f"# attach.full: fib_read {funcs['fib_read']['attach']}, others {others}, "
          f"warnings {doc['meta']['warnings']}")
    check("attach.full.fib_read_kprobe", funcs["fib_read"]["attach"] == "kprobe",
          funcs["fib_read"]["attach"])
    check("attach.full.others_fentry", others and all(a == "fentry" for a in others.values()),
          str(others))
    named = [w for w in doc["meta"]["warnings"] if "fib_read" in w]
    check("attach.full.one_warning",
          len(named) == 1 and "fentry cannot attach to 1 function: fib_read (" in named[0] and
          "Argument list too long" in named[0], str(doc["meta"]["warnings"]))
    check("attach.full.stderr_quiet", "attaching fentry" not in p.stderr, p.stderr.strip()[-300:])
    # Once each: neither a read counted by both fibtrace's pair halves nor one lost.
    check("attach.full.count", funcs["fib_read"]["count"] == SWEEP and
          funcs["fib_read"]["roots"]["open"] == 0 and not any(doc["lost"].values()),
          f"fib_read {funcs['fib_read']['count']} of {SWEEP}, roots {funcs['fib_read']['roots']}, "
          f"lost {doc['lost']}")


READER = """
import os, sys
fd, reads = os.open('/dev/fibonacci', os.O_RDONLY), 0
open(sys.argv[3] + '.started', 'w').close()
while not os.path.exists(sys.argv[1]):
    os.pread(fd, 1 << 16, int(sys.argv[2]))
    reads += 1
open(sys.argv[3], 'w').write(str(reads))
"""


def test_rebuilt_trampoline(tmp):
    """bpftrace attaches on fib_read during long reads: every read still accounted.

    The readers stop before bpftrace detaches: on 6.1 its detach did not
    return while reads kept coming (more than 5 minutes; not understood)."""
    if not has_bpftrace("attach.rebuilt"):
        return
    t0 = time.monotonic()
    stop = os.path.join(tmp, "stop")
    out = os.path.join(tmp, "reader.out")
    tracer = subprocess.Popen([FIBTRACE, "--attach", "fentry", "--no-discover", "--json", "--",
                               "/usr/bin/python3", "-c", READER, stop, str(LONG_N), out],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bt = None
    try:
        deadline = time.monotonic() + READY_S  # fibtrace starts the reader once attached
        while not os.path.exists(out + ".started") and tracer.poll() is None and \
                time.monotonic() < deadline:
            time.sleep(0.2)
        t1 = time.monotonic()
        time.sleep(1)
        bt = Bpftrace("rebuild", ["kfunc:fibdrv:fib_read { @n = count(); }"], tmp)
        t2 = time.monotonic()
        time.sleep(1)
    finally:
        open(stop, "w").close()
        rep, err = tracer.communicate(timeout=900)
        t3 = time.monotonic()
        stopped = bt.stop() if bt else False
    print(f"# attach.rebuilt: fibtrace started the reader in {t1 - t0:.0f} s, bpftrace ready "
          f"{t2 - t1:.0f} s later, fibtrace exited {t3 - t2:.0f} s later; bpftrace "
          f"{bt.how if stopped else 'did not stop'}", flush=True)
    if not check("attach.rebuilt.exit", tracer.returncode == 0,
                 f"exit {tracer.returncode}: {err.strip()[-400:]}"):
        return
    check("attach.rebuilt.bpftrace", bt.ready.is_set() and stopped, bt.why())
    with open(out) as f:
        issued = int(f.read())
    doc = json.loads(rep)
    fr = {f["name"]: f for f in doc["functions"]}["fib_read"]
    print(f"# attach.rebuilt: {issued} reads issued, fib_read counted {fr['count']}, "
          f"roots {fr['roots']}, lost.no_return {doc['lost']['no_return']}")
    ok, detail = gtest.reads_accounted(issued, fr["count"], fr)
    check("attach.rebuilt.accounted", ok, detail)
    if fr["roots"]["dropped"] + fr["roots"]["open"] == 0:
        skip("attach.rebuilt.dropped_counted",
             "no fib_read exit was lost (no read in flight at the trampoline rebuild)")
        return
    check("attach.rebuilt.dropped_counted", fr["roots"]["dropped"] <= doc["lost"]["no_return"] and
          fr["roots"]["open"] <= 1, f"roots {fr['roots']}, lost {doc['lost']}")


def main():
    if not os.path.exists("/sys/module/fibdrv"):
        skip("attach", "fibdrv not loaded")
        return
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        test_full_trampoline(tmp)
        print(f"# attach.full: {time.monotonic() - t0:.0f} s", flush=True)
        test_rebuilt_trampoline(tmp)


if __name__ == "__main__":
    gtest.run(main)
