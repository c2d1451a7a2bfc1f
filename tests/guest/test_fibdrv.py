#!/usr/bin/python3
"""fibdrv through /dev/fibonacci: values, formats, errnos, concurrency.

Every value is compared with Python's integers (gtest.fib), never with the
module's own code. Runs in the guest with fibdrv loaded.
"""
import ctypes
import errno
import fcntl
import os
import random
import signal
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtest  # noqa: E402
from gtest import (ALGO_NAME_MAX, CALIB_COMPUTE, FORMAT_BIN, FORMAT_DEC,  # noqa: E402
                   IOC_CALIBRATE, IOC_GET_ALGO, IOC_RESULT_SIZE, IOC_SET_ALGO, IOC_SET_FORMAT,
                   fibdrv_ioc, check, fib)

DEV = gtest.DEV

libc = ctypes.CDLL(None, use_errno=True)
libc.read.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
libc.read.restype = ctypes.c_ssize_t
libc.lseek.argtypes = [ctypes.c_int, ctypes.c_long, ctypes.c_int]
libc.lseek.restype = ctypes.c_long
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_long]
libc.mmap.restype = ctypes.c_void_p
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def open_dev(algo=None, fmt=FORMAT_DEC):
    fd = gtest.open_algo(algo) if algo else os.open(DEV, os.O_RDWR)
    if fmt != FORMAT_DEC:
        fcntl.ioctl(fd, IOC_SET_FORMAT, fmt)
    return fd


def read_value(fd, n, fmt=FORMAT_DEC, size=None):
    os.lseek(fd, n, os.SEEK_SET)
    if size is None:
        size = result_size(fd)
    data = os.read(fd, size)
    if fmt == FORMAT_BIN:
        return int.from_bytes(data, "little")
    return int(data.decode()) if len(data) < 4000 else data


def result_size(fd):
    buf = bytearray(8)
    fcntl.ioctl(fd, IOC_RESULT_SIZE, buf)
    return struct.unpack("<Q", buf)[0]


def errno_of(fn):
    try:
        fn()
    except OSError as e:
        return e.errno
    return 0


def raw_errno(fd, pointer, size):
    ctypes.set_errno(0)
    ret = libc.read(fd, pointer, size)
    return ret, ctypes.get_errno()


def test_small_values(algos):
    """Every n from 0 to 93 (or the cap) for every algorithm, in decimal."""
    for name, limit in algos:
        fd = open_dev(name)
        bad = [n for n in range(0, min(93, limit) + 1) if read_value(fd, n) != fib(n)]
        os.close(fd)
        check(f"values.0-93.{name}", not bad, f"wrong F(n) for n in {bad[:5]}")


def test_decimal_exact(algos):
    """Decimal output is exactly str(F(n)): no NUL, no newline, no padding."""
    fd = open_dev()
    ok = True
    for n in (0, 1, 2, 10, 92, 93, 94, 500, 1000):
        os.lseek(fd, n, os.SEEK_SET)
        data = os.read(fd, 100000)
        ok &= data == str(fib(n)).encode()
    os.close(fd)
    check("format.dec.exact-bytes", ok, "read bytes differ from str(F(n))")


def test_binary(algos):
    for name, limit in algos:
        fd = open_dev(name, FORMAT_BIN)
        ns = [n for n in (0, 1, 93, 94, 1000, 5000) if n <= limit]
        bad = [n for n in ns if read_value(fd, n, FORMAT_BIN) != fib(n)]
        os.close(fd)
        check(f"format.bin.{name}", not bad, f"wrong F(n) for n in {bad}")


def test_sweep_verify(algos):
    """fibclient --verify checks a sweep against GMP for every algorithm."""
    for name, limit in algos:
        last = min(limit, 2000)
        out = subprocess.run(
            ["build/fibclient", "--algo", name, "--sweep", f"0:{last}", "--verify", "--quiet"],
            capture_output=True, text=True)
        check(f"fibclient.verify.0-{last}.{name}", out.returncode == 0,
              out.stderr.strip()[-200:])


def test_large(algos, max_n):
    """Spot checks up to max_n, compared in binary (Python's str() is slow)."""
    for name, limit in algos:
        top = min(limit, max_n)
        if top < 10000:
            continue
        ns = sorted({10000, top // 2 + 1, top} if name.endswith("karatsuba") or top < 200000
                    else {10000, top})
        fd = open_dev(name, FORMAT_BIN)
        bad = [n for n in ns if read_value(fd, n, FORMAT_BIN) != fib(n)]
        os.close(fd)
        check(f"values.large.{name}", not bad, f"wrong F(n) for n in {bad}")
    fd = open_dev()
    data = read_value(fd, 100000)
    os.close(fd)
    sys.set_int_max_str_digits(0)
    check("values.large.dec-100000", data == str(fib(100000)).encode(), "decimal F(100000) differs")


def test_caps(algos, max_n):
    """Past an algorithm's cap: the documented errno, nothing written."""
    for name, limit in algos:
        if limit >= max_n:
            continue
        fd = open_dev(name)
        os.lseek(fd, limit + 1, os.SEEK_SET)
        want = errno.EOVERFLOW if limit == 93 else errno.E2BIG
        got = errno_of(lambda: os.read(fd, 1 << 20))
        os.close(fd)
        check(f"cap.{name}.n={limit + 1}", got == want,
              f"errno {errno.errorcode.get(got, got)}, want {errno.errorcode[want]}")


def test_lseek(max_n):
    fd = open_dev()
    cases = {
        "set-negative": lambda: os.lseek(fd, -1, os.SEEK_SET),
        "set-beyond-max_n": lambda: os.lseek(fd, max_n + 1, os.SEEK_SET),
        "end-positive": lambda: os.lseek(fd, 1, os.SEEK_END),
        "cur-negative": lambda: (os.lseek(fd, 5, os.SEEK_SET), os.lseek(fd, -6, os.SEEK_CUR)),
        "whence-data": lambda: os.lseek(fd, 0, os.SEEK_DATA),
    }
    for case, fn in cases.items():
        got = errno_of(fn)
        check(f"lseek.{case}.EINVAL", got == errno.EINVAL, f"errno {got}")
    os.lseek(fd, 10, os.SEEK_SET)
    ok = os.lseek(fd, 5, os.SEEK_CUR) == 15 and os.lseek(fd, 0, os.SEEK_END) == max_n
    ok &= os.lseek(fd, -max_n, os.SEEK_END) == 0
    check("lseek.set-cur-end", ok, "positions differ")
    # A failed lseek leaves the position where it was.
    os.lseek(fd, 7, os.SEEK_SET)
    errno_of(lambda: os.lseek(fd, -100, os.SEEK_CUR))
    check("lseek.failed-keeps-position", os.lseek(fd, 0, os.SEEK_CUR) == 7, "position moved")
    os.close(fd)


def test_read_errors():
    fd = open_dev()
    os.lseek(fd, 100, os.SEEK_SET)  # F(100) has 21 digits
    need = result_size(fd)
    check("ioctl.result-size.dec", need == len(str(fib(100))), f"said {need}")
    buf = ctypes.create_string_buffer(b"\xaa" * 64, 64)
    sizes = {"size0": 0, "size1": 1, "one-short": need - 1}
    for case, size in sizes.items():
        ret, err = raw_errno(fd, ctypes.addressof(buf), size)
        untouched = buf.raw == b"\xaa" * 64
        check(f"read.{case}.EMSGSIZE", ret == -1 and err == errno.EMSGSIZE and untouched,
              f"ret {ret} errno {err} buffer touched {not untouched}")
    # A buffer too small for F(n) is refused before F(n) is computed (issue 50): a one-byte
    # read of F(10^6) costs a small fraction of the read that computes it.
    big = 10**6
    os.lseek(fd, big, os.SEEK_SET)
    t0 = time.perf_counter_ns()
    ret, err = raw_errno(fd, ctypes.addressof(buf), 1)
    refused = time.perf_counter_ns() - t0
    full = ctypes.create_string_buffer(result_size(fd) + 1)
    t0 = time.perf_counter_ns()
    got = raw_errno(fd, ctypes.addressof(full), len(full))[0]
    computed = time.perf_counter_ns() - t0
    check("read.too-small.before-compute", ret == -1 and err == errno.EMSGSIZE and got > 0 and
          refused * 20 < computed, f"errno {err}; refused in {refused} ns, the read that "
          f"computes F({big}) {computed} ns, {got} bytes")
    os.lseek(fd, 100, os.SEEK_SET)
    ret, _ = raw_errno(fd, ctypes.addressof(buf), need)
    check("read.exact-size", ret == need and buf.raw[:need] == str(fib(100)).encode(),
          f"ret {ret}")
    ret, err = raw_errno(fd, None, need)
    check("read.null-buffer.EFAULT", ret == -1 and err == errno.EFAULT, f"ret {ret} errno {err}")
    ret, err = raw_errno(fd, 0x10, need)
    check("read.unmapped-buffer.EFAULT", ret == -1 and err == errno.EFAULT, f"ret {ret} errno {err}")
    page = libc.mmap(None, 4096, 1, 0x22, -1, 0)  # PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS
    ret, err = raw_errno(fd, page, need)
    check("read.readonly-buffer.EFAULT", ret == -1 and err == errno.EFAULT, f"ret {ret} errno {err}")
    libc.munmap(page, 4096)
    os.close(fd)


def test_algo_selection(algos):
    fd = open_dev()
    buf = bytearray(ALGO_NAME_MAX)
    fcntl.ioctl(fd, IOC_GET_ALGO, buf)
    default = buf.split(b"\0")[0].decode()
    check("algo.default-is-karatsuba", default == "bn-fdouble-karatsuba", f"default {default}")
    for name, _ in algos:
        os.write(fd, name.encode() + b"\n")
        fcntl.ioctl(fd, IOC_GET_ALGO, buf)
        if buf.split(b"\0")[0].decode() != name:
            check(f"algo.write-select.{name}", False, "not selected")
            break
    else:
        check("algo.write-select.all", True)
    check("algo.write-unknown.EINVAL",
          errno_of(lambda: os.write(fd, b"no-such-algo")) == errno.EINVAL)
    check("algo.write-too-long.ENAMETOOLONG",
          errno_of(lambda: os.write(fd, b"x" * 4096)) == errno.ENAMETOOLONG)
    check("algo.ioctl-unknown.EINVAL",
          errno_of(lambda: fcntl.ioctl(fd, IOC_SET_ALGO, b"nope".ljust(ALGO_NAME_MAX, b"\0")))
          == errno.EINVAL)
    fcntl.ioctl(fd, IOC_GET_ALGO, buf)
    now = buf.split(b"\0")[0].decode()
    check("algo.failed-select-keeps-algo", now == algos[-1][0], f"now {now}")
    check("ioctl.unknown.ENOTTY", errno_of(lambda: fcntl.ioctl(fd, fibdrv_ioc(0, 99, 0), 0))
          == errno.ENOTTY)
    check("ioctl.bad-format.EINVAL", errno_of(lambda: fcntl.ioctl(fd, IOC_SET_FORMAT, 7))
          == errno.EINVAL)
    os.close(fd)
    # Selection is per open file: a second open still has the default.
    fd1, fd2 = open_dev("iter64"), open_dev()
    fcntl.ioctl(fd2, IOC_GET_ALGO, buf)
    check("algo.per-open", buf.split(b"\0")[0].decode() == default, "selection leaked")
    os.close(fd1)
    os.close(fd2)


def test_calibrate(algos, max_n):
    """FIBDRV_IOC_CALIBRATE (fibtrace's overhead calibration): bounds, errnos, a duration."""
    small = min((limit, name) for name, limit in algos if limit > 93)  # a big-number algorithm
    fd = open_dev(small[1])

    def calib(func, calls, work_n):
        return gtest.calibrate(fd, func, calls, work_n)

    ns = calib(0, 1000, 0)
    check("calibrate.warm", 0 < ns < 10**9, f"{ns} ns for 1000 calls")
    ns = calib(1, 10, 1000)
    check("calibrate.cold", 0 < ns < 10**9, f"{ns} ns for 10 calls")
    ns = calib(2, 1000, 0)
    check("calibrate.tail", 0 < ns < 10**9, f"{ns} ns for 1000 calls of fibdrv_calib2")
    ns = calib(CALIB_COMPUTE, 10, 1000)
    check("calibrate.compute", 0 < ns < 10**9, f"{ns} ns for 10 computations of F(1000)")
    for case, args, want in (("func", (3, 1, 0), errno.EINVAL),
                             ("func-above-compute", (CALIB_COMPUTE + 1, 1, 1000), errno.EINVAL),
                             ("compute-no-work", (CALIB_COMPUTE, 1, 0), errno.EINVAL),
                             ("compute-past-cap", (CALIB_COMPUTE, 1, small[0] + 1), errno.E2BIG),
                             ("zero-calls", (0, 0, 0), errno.EINVAL),
                             ("too-many-calls", (0, 1000001, 0), errno.EINVAL),
                             ("work-past-max_n", (0, 1, max_n + 1), errno.EINVAL),
                             ("work-past-cap", (0, 1, small[0] + 1), errno.E2BIG)):
        got = errno_of(lambda: calib(*args))
        check(f"calibrate.{case}.{errno.errorcode.get(want)}", got == want,
              f"errno {errno.errorcode.get(got, got)}")
    got = errno_of(lambda: fcntl.ioctl(fd, IOC_CALIBRATE, 0x10))
    check("calibrate.bad-pointer.EFAULT", got == errno.EFAULT, f"errno {got}")
    os.close(fd)
    # Any reader of the 0666 device, but calibration (a million calls of F(max_n) in one
    # syscall) only with CAP_PERFMON: a child that became nobody gets EPERM (issue 50).
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            cfd = open_dev(small[1])
            got = errno_of(lambda: gtest.calibrate(cfd, 0, 10, 0))
        except OSError as e:
            got = -e.errno
        os.write(w, str(got).encode())
        os._exit(0)
    os.close(w)
    got = int(os.read(r, 32) or b"0")
    os.close(r)
    os.waitpid(pid, 0)
    check("calibrate.unprivileged.EPERM", got == errno.EPERM,
          f"errno {errno.errorcode.get(got, got)}")
    calibrate_interrupted(small[1], min(small[0], 20000))


def calibrate_interrupted(algo, n):
    """Any signal ends a long calibration, not only a fatal one (issue 50): a child
    asks for 10^6 computations of F(n) (minutes) with a SIGALRM handler that
    raises in 0.3 s; the ioctl gives the handler its turn (ERESTARTSYS, EINTR
    without SA_RESTART) and the child is out within 10 s. Before, the handler
    waited for the last of the 10^6 calls (the child killed at 30 s)."""
    pid = os.fork()
    if pid == 0:
        def alarm(signum, frame):
            raise TimeoutError

        signal.signal(signal.SIGALRM, alarm)
        fd = open_dev(algo)
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        try:
            gtest.calibrate(fd, CALIB_COMPUTE, 10**6, n)
        except TimeoutError:
            os._exit(0)
        except OSError:
            os._exit(2)
        os._exit(1)  # all 10^6 ran: the signal waited
    t0 = time.monotonic()
    status = None
    while status is None and time.monotonic() - t0 < 30:
        done, st = os.waitpid(pid, os.WNOHANG)
        status = st if done else None
        time.sleep(0.05)
    secs = time.monotonic() - t0
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    check("calibrate.signal_ends_it", status is not None and os.WIFEXITED(status) and
          os.WEXITSTATUS(status) == 0 and secs < 10,
          f"status {status}, {secs:.1f} s (SIGALRM at 0.3 s)")


def test_concurrency(algos, seconds=8):
    """16 threads, random algorithms and n, every value verified."""
    errors = []
    reads = [0]
    stop = threading.Event()

    def worker(seed):
        rng = random.Random(seed)
        while not stop.is_set():
            name, limit = rng.choice(algos)
            fd = open_dev(name, FORMAT_BIN)
            for _ in range(5):
                n = rng.randrange(0, min(limit, 3000) + 1)
                got = read_value(fd, n, FORMAT_BIN)
                reads[0] += 1
                if got != fib(n):
                    errors.append((name, n))
            os.close(fd)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    stop.wait(seconds)
    stop.set()
    for t in threads:
        t.join()
    check("concurrency.16-threads", not errors and reads[0] > 0,
          f"{len(errors)} wrong of {reads[0]}: {errors[:3]}")


def test_ntt_reads():
    """F(n) read where the products go through the NTT (bn_ntt.c: from 5500
    limbs, n above about 10^6), with fibdrv reloaded at max_n = 10^7; fibclient
    --verify compares each read, decimal and binary, with GMP's mpz_fib_ui."""
    ko = f"build/{os.uname().release}/fibdrv.ko"
    if subprocess.run(["rmmod", "fibdrv"], capture_output=True).returncode != 0:
        gtest.skip("values.ntt", "fibdrv cannot be unloaded (in use)")
        return
    try:
        loaded = subprocess.run(["insmod", ko, "max_n=10000000"], capture_output=True, text=True)
        if not check("values.ntt.insmod", loaded.returncode == 0, loaded.stderr.strip()):
            return
        for n in (2000000, 10000000):
            for fmt in ("dec", "bin"):
                out = subprocess.run(["build/fibclient", "-a", "bn-fdouble-karatsuba", "-f", fmt,
                                      "--verify", "--quiet", str(n)],
                                     capture_output=True, text=True, timeout=900)
                check(f"values.ntt.{fmt}-{n}", out.returncode == 0,
                      f"exit {out.returncode}: {(out.stdout + out.stderr).strip()[-200:]}")
    finally:
        subprocess.run(["rmmod", "fibdrv"], capture_output=True)
        reloaded = subprocess.run(["insmod", ko], capture_output=True, text=True)
        check("values.ntt.reload-default", reloaded.returncode == 0, reloaded.stderr.strip())


def main():
    algos = gtest.algorithms()
    max_n = int(open("/sys/module/fibdrv/parameters/max_n").read())
    names = [name for name, _ in algos]
    expected = {"iter64", "fdouble64", "fdouble64-clz", "str-add", "bn-iter", "bn-fdouble",
                "bn-fdouble-sqr", "bn-fdouble-karatsuba"}
    check("sysfs.algorithms", expected <= set(names), f"listed {names}")
    check("param.max_n-default", max_n >= 10**6, f"max_n {max_n}")
    test_small_values(algos)
    test_decimal_exact(algos)
    test_binary(algos)
    test_sweep_verify(algos)
    test_caps(algos, max_n)
    test_lseek(max_n)
    test_read_errors()
    test_algo_selection(algos)
    test_calibrate(algos, max_n)
    test_concurrency(algos)
    test_large(algos, max_n)
    test_ntt_reads()


if __name__ == "__main__":
    gtest.run(main)
