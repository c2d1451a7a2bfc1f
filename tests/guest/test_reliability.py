#!/usr/bin/python3
"""fibdrv under stress: concurrency, interruption, module lifetime, leaks.

Runs in the guest with fibdrv loaded (tests/guest/run.sh), after
test_fibdrv.py. Values are verified against GMP by build/tests/fibstress.
"""
import ctypes
import errno
import fcntl
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtest  # noqa: E402
from gtest import (ALGO_NAME_MAX, FORMAT_BIN, IOC_GET_ALGO, IOC_RESULT_SIZE,  # noqa: E402
                   IOC_SET_ALGO, IOC_SET_FORMAT, check)

STRESS = "build/tests/fibstress"
libc = ctypes.CDLL(None, use_errno=True)
libc.lseek.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int]
libc.lseek.restype = ctypes.c_int64
libc.write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
libc.write.restype = ctypes.c_ssize_t
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
libc.ioctl.restype = ctypes.c_int


def libc_lseek(fd, offset, whence):
    """lseek without Python's range checks on whence."""
    ctypes.set_errno(0)
    if libc.lseek(fd, offset, whence) < 0:
        raise OSError(ctypes.get_errno(), "lseek")


def raw_call(fn, *args):
    ctypes.set_errno(0)
    ret = fn(*args)
    return ret, ctypes.get_errno()


def run(args, timeout=300):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


def test_threads(algos):
    names = [f"{name}:{limit}" for name, limit in algos]
    out = run([STRESS, "threads", "10", "3000", *names])
    check("stress.16-threads-random-algo", out.returncode == 0,
          (out.stdout + out.stderr).strip()[-300:])
    print(f"# threads: {out.stdout.strip()}")


def test_shared_descriptor(algos):
    """Forked readers share one descriptor and switch its algorithm at random
    while the others read (every algorithm whose cap is at least 5000)."""
    names = [name for name, limit in algos if limit >= 5000]
    out = run([STRESS, "shared", "5", "5000", *names])
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


def test_fatal_signal_at_max_n(sig, max_n):
    """Reads of F(max_n), F(max_n - 1), ... with the default algorithm (each n
    computed afresh, so the reader is always inside a long read), killed one
    second in by a fatal signal (SIGTERM with its default action is fatal
    too): the process dies of that signal and the kernel logs no lockup or
    hung task. (One read alone could end just before the signal on a fast
    host: the check would then see exit status 0, not a kill.)"""
    name = f"signal.max_n.{signal.Signals(sig).name}"
    subprocess.run(["dmesg", "-c"], capture_output=True)
    code = ("import os; fd = os.open('/dev/fibonacci', os.O_RDONLY)\n"
            f"n = {max_n}\n"
            f"while True:\n    os.pread(fd, {max_n // 4 + 64}, n)\n"
            f"    n = n - 1 if n > {max_n // 2} else {max_n}\n")
    proc = subprocess.Popen(["/usr/bin/python3", "-c", code])
    time.sleep(1.0)
    if proc.poll() is not None:
        check(name, False, f"the reader ended before the signal: returncode {proc.returncode}")
        return
    sent = time.monotonic()
    proc.send_signal(sig)
    proc.wait(timeout=120)
    latency = time.monotonic() - sent
    print(f"# {name}: reads of F({max_n}) and below ended {latency * 1000:.0f} ms after the signal")
    log = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    bad = [line for line in log.splitlines()
           if re.search(r"soft lockup|blocked for more than|hung_task|BUG|WARNING", line)]
    check(name, proc.returncode == -sig and not bad,
          f"returncode {proc.returncode}; kernel log: {bad[:2]}")


def preempt_mode():
    """The kernel's preemption model now: "none", "voluntary" or "full" (debugfs)."""
    try:
        with open("/sys/kernel/debug/sched/preempt") as f:
            return re.search(r"\((\w+)\)", f.read()).group(1)
    except (OSError, AttributeError):
        return None


def test_resched_latency(n):
    """A long read yields its CPU: a task pinned beside it wakes within 0.25 s.
    bn-fdouble's schoolbook products at F(10^6) are ~1.2 * 10^8 limb products
    each; without a cond_resched() inside them a voluntary-preemption kernel
    runs each to its end first (measured under emulation: the sleeper 1.1-1.2 s
    late; with it, 26-45 ms)."""
    mode = preempt_mode()
    if mode not in ("none", "voluntary"):
        gtest.skip("resched.latency", f"preemption model {mode!r}: the kernel preempts anyway")
        return
    cpu = max(os.sched_getaffinity(0))
    saved = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    start = time.monotonic()
    proc = subprocess.Popen(["taskset", "-c", str(cpu), STRESS, "reads", "1", "bn-fdouble", str(n)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    worst, wakeups = 0.0, 0
    while proc.poll() is None:
        t = time.monotonic()
        time.sleep(0.002)
        worst = max(worst, time.monotonic() - t - 0.002)
        wakeups += 1
    took = time.monotonic() - start
    os.sched_setaffinity(0, saved)
    print(f"# resched: F({n}) bn-fdouble on CPU {cpu} ({mode} preemption) took {took:.1f} s; "
          f"a 2 ms sleeper beside it woke {wakeups} times, at worst {worst * 1000:.0f} ms late")
    check("resched.latency", proc.returncode == 0 and took > 0.5 and worst < 0.25,
          f"exit {proc.returncode} in {took:.2f} s, worst wake-up {worst * 1000:.0f} ms late")


def errno_of(fn):
    try:
        fn()
    except OSError as e:
        return e.errno
    return 0


def current_algo(fd):
    buf = bytearray(ALGO_NAME_MAX)
    fcntl.ioctl(fd, IOC_GET_ALGO, buf)
    return buf.split(b"\0")[0].decode()


def test_bad_input_changes_nothing(algos, max_n):
    """Every bad lseek, pread, write and ioctl fails with its documented errno
    and leaves the position, the algorithm and the format as they were
    (test_fibdrv.py checks the read sizes and user buffers)."""
    fd = os.open("/dev/fibonacci", os.O_RDWR)
    big, small = (1 << 63) - 1, -(1 << 63)
    lseeks = {
        "set-huge": (big, os.SEEK_SET), "set-min": (small, os.SEEK_SET),
        "set-max_n+1": (max_n + 1, os.SEEK_SET), "cur-huge": (big, os.SEEK_CUR),
        "cur-min": (small, os.SEEK_CUR), "cur-past-max_n": (max_n, os.SEEK_CUR),
        "cur-below-0": (-8, os.SEEK_CUR), "end-1": (1, os.SEEK_END),
        "end-huge": (big, os.SEEK_END), "end-min": (small, os.SEEK_END),
        "end-below-0": (-max_n - 1, os.SEEK_END), "whence-3": (0, 3), "whence-4": (0, 4),
        "whence-99": (0, 99),
    }
    for case, (offset, whence) in lseeks.items():
        os.lseek(fd, 7, os.SEEK_SET)
        got = errno_of(lambda: libc_lseek(fd, offset, whence))
        pos = os.lseek(fd, 0, os.SEEK_CUR)
        check(f"bad.lseek.{case}.EINVAL", got == errno.EINVAL and pos == 7,
              f"errno {got}, position {pos} (was 7)")
    got = errno_of(lambda: os.pread(fd, 64, max_n + 1))
    check("bad.pread-above-max_n.EINVAL", got == errno.EINVAL, f"errno {got}")
    got = errno_of(lambda: os.pread(fd, 64, -1))
    check("bad.pread-negative.EINVAL", got == errno.EINVAL, f"errno {got}")

    os.write(fd, b"bn-iter")
    fcntl.ioctl(fd, IOC_SET_FORMAT, FORMAT_BIN)
    longest = max(len(name) for name, _ in algos)
    writes = {
        "unknown": (b"no-such-algo", errno.EINVAL),
        "31-bytes": (b"x" * (ALGO_NAME_MAX - 1), errno.EINVAL),
        "32-bytes": (b"x" * ALGO_NAME_MAX, errno.ENAMETOOLONG),
        "name-plus-garbage": (b"bn-iter" + b"x" * (ALGO_NAME_MAX - 8), errno.EINVAL),
        "two-newlines": (b"iter64\n\n", errno.EINVAL),
        "empty": (b"", errno.EINVAL),
    }
    for case, (data, want) in writes.items():
        got = errno_of(lambda: os.write(fd, data))
        check(f"bad.write.{case}", got == want and current_algo(fd) == "bn-iter",
              f"errno {got} want {want}, algorithm now {current_algo(fd)}")
    ret, err = raw_call(libc.write, fd, None, 6)
    check("bad.write.null-buffer.EFAULT", (ret, err) == (-1, errno.EFAULT) and
          current_algo(fd) == "bn-iter", f"ret {ret} errno {err}")
    ret, err = raw_call(libc.ioctl, fd, IOC_SET_ALGO, None)
    check("bad.ioctl.set-algo-null.EFAULT", (ret, err) == (-1, errno.EFAULT) and
          current_algo(fd) == "bn-iter", f"ret {ret} errno {err}")
    unterminated = b"bn-iter" + b"y" * (ALGO_NAME_MAX - 7)
    got = errno_of(lambda: fcntl.ioctl(fd, IOC_SET_ALGO, unterminated))
    check("bad.ioctl.set-algo-unterminated.EINVAL", got == errno.EINVAL and
          current_algo(fd) == "bn-iter", f"errno {got}")
    for case, request in (("get-algo", IOC_GET_ALGO), ("result-size", IOC_RESULT_SIZE)):
        ret, err = raw_call(libc.ioctl, fd, request, 0x10)
        check(f"bad.ioctl.{case}-unmapped.EFAULT", (ret, err) == (-1, errno.EFAULT),
              f"ret {ret} errno {err}")
    for case, request in (("set-format-2", 2), ("set-format-huge", (1 << 64) - 1)):
        ret, err = raw_call(libc.ioctl, fd, IOC_SET_FORMAT, request)
        check(f"bad.ioctl.{case}.EINVAL", (ret, err) == (-1, errno.EINVAL), f"ret {ret} errno {err}")
    cap = dict(algos)["bn-iter"]
    if cap < max_n:
        os.lseek(fd, cap + 1, os.SEEK_SET)
        got = errno_of(lambda: fcntl.ioctl(fd, IOC_RESULT_SIZE, bytearray(8)))
        check("bad.ioctl.result-size-above-cap.E2BIG", got == errno.E2BIG, f"errno {got}")
    # After all of that: still bn-iter, binary, and reads are right.
    value = int.from_bytes(os.pread(fd, 64, 100), "little")
    check("bad.state-unchanged", current_algo(fd) == "bn-iter" and value == gtest.fib(100),
          f"algorithm {current_algo(fd)}, F(100) read as {value}")
    assert longest < ALGO_NAME_MAX
    os.close(fd)


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


CGROOT = "/sys/fs/cgroup"


def cg_write(path, value):
    with open(path, "w") as f:
        f.write(value)


def charged_read(cg, n, size, limit_kib=None):
    """A child reads F(n) from inside cgroup @cg, optionally under
    memory.max = what it holds + limit_kib. The child says when it is ready
    (buffer touched, device open, one small read done so that the pages the
    read path writes are its own) and only then is moved: pages it touched
    after the move would be charged to @cg, and with a small memory.max the
    OOM killer could end it before its read (seen on 6.12: the parent's
    "go" then hit a closed pipe). Returns (outcome, memory.peak -
    memory.current at the move, in KiB): outcome is the read's length, an
    errno name, "killed", or "died before the read"."""
    r, w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.close(go_w)
        buf = bytearray(size)
        for i in range(0, size, 4096):
            buf[i] = 1
        fd = os.open("/dev/fibonacci", os.O_RDONLY)
        os.preadv(fd, [buf], 1)
        os.write(w, b"r")
        os.read(go_r, 1)  # moved into the cgroup
        try:
            out = str(os.preadv(fd, [buf], n))
        except OSError as e:
            out = errno.errorcode.get(e.errno, str(e.errno))
        os.write(w, out.encode())
        os._exit(0)
    os.close(w)
    os.close(go_r)
    ready = os.read(r, 1) == b"r"
    cg_write(f"{cg}/cgroup.procs", str(pid))
    base = int(open(f"{cg}/memory.current").read())
    if limit_kib is not None:
        cg_write(f"{cg}/memory.max", str(base + limit_kib * 1024))
    try:
        os.write(go_w, b"g")
        went = ready
    except BrokenPipeError:
        went = False
    os.close(go_w)
    _, status = os.waitpid(pid, 0)
    out = os.read(r, 64).decode()
    os.close(r)
    peak = int(open(f"{cg}/memory.peak").read())
    if not went:
        out = "died before the read"
    elif not out:
        out = "killed" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
    return out, (peak - base) // 1024


def test_memory_charged(max_n):
    """A read's scratch is charged to the reader's memory cgroup
    (GFP_KERNEL_ACCOUNT): memory.peak of a cgroup whose one task reads
    F(10^6) rises by the scratch; with memory.max far below it the read
    fails with ENOMEM (or the cgroup's OOM killer ends the reader) and the
    rest of the system reads on."""
    ctl = f"{CGROOT}/cgroup.controllers"
    if not os.path.exists(ctl) or "memory" not in open(ctl).read().split():
        gtest.skip("memory.charged", "no cgroup v2 memory controller at " + CGROOT)
        return
    try:
        cg_write(f"{CGROOT}/cgroup.subtree_control", "+memory")
    except OSError as e:
        gtest.skip("memory.charged", f"cannot enable the memory controller: {e}")
        return
    n, size = min(max_n, 10**6), 256 * 1024
    for name, limit in (("free", None), ("limited", 64)):
        cg = f"{CGROOT}/fibtest-{name}"
        os.mkdir(cg)
        try:
            out, kib = charged_read(cg, n, size, limit)
            events = open(f"{cg}/memory.events").read()
        finally:
            os.rmdir(cg)
        print(f"# memory: a read of F({n}) in a cgroup ({name}): {out}, peak +{kib} KiB; "
              f"{' '.join(events.split())}")
        if limit is None:
            # Charged: at least what the same library allocates at once for this read in
            # user space (its own count, fibcalc --memory; 713 KiB at F(10^6) since the
            # conversion's chain, the kernel's pages and slabs round it up: 1004-1152 KiB
            # seen); uncharged, 256 KiB (a per-CPU charge batch) was seen.
            lib = int(subprocess.run(["build/fibcalc", "--memory", str(n)], capture_output=True,
                                     text=True, check=True).stdout) // 1024
            check("memory.charged.peak", out.isdigit() and kib >= lib,
                  f"read {out}, cgroup peak +{kib} KiB, the library's own peak {lib} KiB "
                  f"(uncharged: a few KiB)")
        else:
            check("memory.charged.limited", out == "ENOMEM",
                  f"read under memory.max +{limit} KiB: {out}")
    fd = os.open("/dev/fibonacci", os.O_RDONLY)
    try:
        got = len(os.pread(fd, size, n))
    finally:
        os.close(fd)
    check("memory.charged.others-unaffected", got > 200000, f"read {got} bytes outside")


def main():
    algos = gtest.algorithms()
    max_n = int(open("/sys/module/fibdrv/parameters/max_n").read())
    test_bad_input_changes_nothing(algos, max_n)
    test_threads(algos)
    test_shared_descriptor(algos)
    test_open_close_race()
    test_rmmod_while_open()
    test_fatal_signal(algos, max_n)
    test_resched_latency(min(max_n, 1000000))
    for sig in (signal.SIGKILL, signal.SIGTERM):
        test_fatal_signal_at_max_n(sig, max_n)
    test_no_leak(algos)
    test_memory_charged(max_n)


if __name__ == "__main__":
    gtest.run(main)
