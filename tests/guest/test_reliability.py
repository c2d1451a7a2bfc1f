#!/usr/bin/python3
"""fibdrv under stress: concurrency, interruption, module lifetime, leaks.

Runs in the guest with fibdrv loaded (tests/guest/run.sh), after
test_fibdrv.py. Values are verified against GMP by build/tests/fibstress.
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtest  # noqa: E402
from gtest import check  # noqa: E402

STRESS = "build/tests/fibstress"


def run(args, timeout=300):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


def test_threads(algos):
    names = [f"{name}:{limit}" for name, limit in algos]
    out = run([STRESS, "threads", "10", "3000", *names])
    check("stress.16-threads-random-algo", out.returncode == 0,
          (out.stdout + out.stderr).strip()[-300:])
    print(f"# threads: {out.stdout.strip()}")


def test_shared_descriptor():
    out = run([STRESS, "shared", "5", "5000", "bn-fdouble-karatsuba"])
    check("stress.forked-shared-fd", out.returncode == 0, (out.stdout + out.stderr).strip()[-300:])
    print(f"# shared: {out.stdout.strip()}")


def test_open_close_race():
    out = run([STRESS, "churn", "5"])
    check("stress.open-read-close-race", out.returncode == 0,
          (out.stdout + out.stderr).strip()[-300:])
    print(f"# churn: {out.stdout.strip()}")


def test_rmmod_while_open():
    """An open descriptor pins the module: rmmod fails, the fd keeps working."""
    fd = os.open("/dev/fibonacci", os.O_RDONLY)
    out = run(["rmmod", "fibdrv"])
    still = os.pread(fd, 64, 10) == b"55"
    os.close(fd)
    check("lifetime.rmmod-while-open-is-EBUSY",
          out.returncode != 0 and "in use" in out.stderr.lower() and still,
          f"rmmod exit {out.returncode}: {out.stderr.strip()}; fd still reads: {still}")
    check("lifetime.module-still-loaded", os.path.exists("/sys/module/fibdrv"), "module gone")


def slowest(algos, max_n):
    """The big-number algorithm whose read at its cap takes longest: the one
    with the smallest cap among those capped below max_n."""
    capped = [(limit, name) for name, limit in algos if 93 < limit < max_n]
    return min(capped)[::-1] if capped else ("bn-fdouble-karatsuba", max_n)


def test_fatal_signal(algos, max_n):
    """SIGKILL during a long read ends it promptly (the read polls
    fatal_signal_pending at every step)."""
    name, n = slowest(algos, max_n)
    start = time.monotonic()
    proc = subprocess.Popen(["build/fibclient", "--algo", name, str(n)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    if proc.poll() is not None:
        gtest.skip("signal.sigkill-during-read",
                   f"F({n}) with {name} finished in under 1 s, nothing to interrupt")
        return
    killed_at = time.monotonic()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    latency = time.monotonic() - killed_at
    print(f"# signal: {name} F({n}) killed after {killed_at - start:.2f}s, "
          f"exited {latency * 1000:.0f} ms after SIGKILL")
    check("signal.sigkill-during-read", proc.returncode == -signal.SIGKILL and latency < 5.0,
          f"returncode {proc.returncode}, exited {latency:.2f}s after SIGKILL")


def kernel_memory_kib():
    fields = {}
    for line in open("/proc/meminfo"):
        key, value = line.split(":")
        fields[key] = int(value.split()[0])
    return fields["Slab"] + fields["VmallocUsed"]


def test_no_leak(algos):
    """10^5 reads of every algorithm leave slab + vmalloc where they were.
    A leak of even 2 bytes per read would show as > 1.5 MiB of growth."""
    reads = 100000
    plan = [(name, min(limit, 100)) for name, limit in algos]
    for name, n in plan:  # warm the caches
        run([STRESS, "reads", "200", name, str(n)])
    subprocess.run(["sync"])
    before = kernel_memory_kib()
    bad = []
    for name, n in plan:
        out = run([STRESS, "reads", str(reads), name, str(n)], timeout=600)
        if out.returncode:
            bad.append(name)
    out = run([STRESS, "reads", "2000", "bn-fdouble-karatsuba", "100000"], timeout=600)
    if out.returncode:
        bad.append("bn-fdouble-karatsuba@100000")
    after = kernel_memory_kib()
    growth = after - before
    print(f"# memory: slab+vmalloc {before} KiB -> {after} KiB after {reads} reads x "
          f"{len(plan)} algorithms + 2000 reads of F(100000)")
    check("resources.reads-verified", not bad, f"failed: {bad}")
    check("resources.no-slab-vmalloc-growth", growth < 1536, f"grew {growth} KiB")


def main():
    algos = gtest.algorithms()
    max_n = int(open("/sys/module/fibdrv/parameters/max_n").read())
    test_threads(algos)
    test_shared_descriptor()
    test_open_close_race()
    test_rmmod_while_open()
    test_fatal_signal(algos, max_n)
    test_no_leak(algos)


if __name__ == "__main__":
    gtest.run(main)
