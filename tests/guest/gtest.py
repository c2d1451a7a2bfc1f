"""Tiny test reporter shared by the guest tests.

Each check prints one line: "PASS name", "FAIL name: detail" or
"SKIP name: why". tests/run.sh counts them; exit() returns 1 on any FAIL,
after a line of where the file's time went: the seconds before each check,
summed by the first two parts of its name ("truth.comp"), so a file that
takes several times its usual time in a CI log says which part did.
"""
import fcntl
import os
import re
import struct
import sys
import time

# fibdrv's user API (fibdrv/fibdrv_uapi.h), for the tests that call it directly.
ALGO_NAME_MAX = 32
FORMAT_DEC, FORMAT_BIN = 0, 1


def fibdrv_ioc(direction, nr, size):
    return (direction << 30) | (size << 16) | (ord("f") << 8) | nr


IOC_SET_ALGO = fibdrv_ioc(1, 1, ALGO_NAME_MAX)
IOC_GET_ALGO = fibdrv_ioc(2, 2, ALGO_NAME_MAX)
IOC_SET_FORMAT = fibdrv_ioc(0, 3, 0)
IOC_RESULT_SIZE = fibdrv_ioc(2, 4, 8)
# struct fibdrv_calib { u32 func, calls; u64 work_n, ns; }
IOC_CALIBRATE = fibdrv_ioc(3, 5, 24)
CALIB_COMPUTE = 0x100  # FIBDRV_CALIB_COMPUTE
DEV = "/dev/fibonacci"

_failed = False
_last = time.monotonic()
_spent = {}  # check group -> seconds, in the order groups first appear


def _account(name):
    global _last
    now = time.monotonic()
    group = ".".join(name.split(".")[:2])
    _spent[group] = _spent.get(group, 0.0) + now - _last
    _last = now


def time_line():
    """'# time by check group: a.b 12.3 s, ...', the largest first (at most 8)."""
    top = sorted(_spent.items(), key=lambda kv: -kv[1])[:8]
    rest = sum(_spent.values()) - sum(v for _, v in top)
    parts = [f"{g} {v:.1f} s" for g, v in top] + ([f"others {rest:.1f} s"] if rest >= 0.05 else [])
    return "# time by check group (seconds before each check): " + ", ".join(parts)


def check(name, ok, detail=""):
    """Report one check; returns ok so callers can chain."""
    global _failed
    _account(name)
    if ok:
        print(f"PASS {name}", flush=True)
    else:
        _failed = True
        print(f"FAIL {name}: {detail}", flush=True)
    return ok


def skip(name, why):
    _account(name)
    print(f"SKIP {name}: {why}", flush=True)


def fail(name, detail):
    check(name, False, detail)


def exit():
    if _spent:
        print(time_line(), flush=True)
    sys.exit(1 if _failed else 0)


def run(main):
    """Run a test program's main; an exception is a FAIL, not a silent stop."""
    import traceback
    try:
        main()
    except Exception as e:  # noqa: BLE001 - any crash of the test is a failure
        traceback.print_exc()
        fail(f"{sys.argv[0].rsplit('/', 1)[-1]}.crashed", repr(e))
    exit()


# What a statistical assertion may risk on the real clock: a "no difference"
# check fails only at a Holm-adjusted p of at most this (a designed false
# positive rate of 1 in 10,000 per check, where the rounds are independent).
# Under the instruction clock (QEMU icount, meta.clock "instructions") the
# comparison decides exactly (compare/cstats.c, ft_cmp_exact) and the check
# takes its verdict as it is: identical code costs identical counts.
REAL_CLOCK_P = 1e-4


def clock():
    """The guest's clock as fibtrace reports it: "instructions" or "real"."""
    try:
        with open("/proc/cmdline") as f:
            words = f.read().split()
    except OSError:
        return "real"
    vals = [w.split("=", 1)[1] for w in words if w.startswith("fibtrace.clock=")]
    return "instructions" if vals and vals[-1] == "instructions" else "real"


def spurious(c, doc):
    """A compare[] entry that a check of "no difference" must count against it."""
    if doc["meta"]["clock"] == "instructions":
        return c["significant"]
    return c["significant"] and c["p_holm"] is not None and c["p_holm"] <= REAL_CLOCK_P


def text_count(out, name="fib_read"):
    """A function's count in the text report's table: the default one (name, count, ...)
    or --all's (name, attach, count, ...); None when it is not listed."""
    m = re.search(rf"^{re.escape(name)} +(?:[a-z][\w.]* +)?(\d+) ", out, re.M)
    return int(m.group(1)) if m else None


def fib(n):
    """F(n) by fast doubling on Python integers: the independent reference."""
    a, b = 0, 1  # F(k), F(k+1) with k built from the top bits of n
    for bit in bin(n)[2:]:
        c = a * (2 * b - a)
        d = a * a + b * b
        a, b = (d, c + d) if bit == "1" else (c, d)
    return a


def reads_accounted(issued, count, fr):
    """Every read issued is in fib_read's books (JSON functions[].roots): counted
    (@count, summed over -i intervals; fr from the last report), dropped for a
    lost exit, or still open; only entries the kernel did not run a program for
    (kprobe_missed; recursion_misses, whose side is not known) are unseen.
    Returns (ok, detail)."""
    r = fr["roots"]
    seen = count + r["dropped"] + r["open"]
    hi = issued - fr["kprobe_missed"]
    ok = r["returned"] == count and hi - fr["recursion_misses"] <= seen <= hi
    return ok, (f"issued {issued}: fib_read counted {count} (roots.returned {r['returned']}) + "
                f"dropped {r['dropped']} + open {r['open']} = {seen}, want {hi} (issued - "
                f"kprobe_missed {fr['kprobe_missed']}), or down to recursion_misses "
                f"{fr['recursion_misses']} fewer")


def open_algo(algo):
    """/dev/fibonacci opened read-write with @algo selected (per open)."""
    fd = os.open(DEV, os.O_RDWR)
    fcntl.ioctl(fd, IOC_SET_ALGO, algo.encode().ljust(ALGO_NAME_MAX, b"\0"))
    return fd


def calibrate(fd, func, calls, work_n):
    """FIBDRV_IOC_CALIBRATE on @fd: the summed ktime of @calls timed calls, in ns."""
    buf = bytearray(struct.pack("=IIQQ", func, calls, work_n, 0))
    fcntl.ioctl(fd, IOC_CALIBRATE, buf)
    return struct.unpack("=IIQQ", buf)[3]


def algorithms():
    """[(name, max_n)] as the device lists them in sysfs."""
    with open("/sys/class/misc/fibonacci/algorithms") as f:
        rows = [line.split("\t") for line in f.read().splitlines() if line]
    return [(name, int(limit)) for name, limit in rows]


def has_kprobe_multi():
    """Whether this kernel has kprobe.multi links (CONFIG_FPROBE), per its config in /boot."""
    try:
        with open(f"/boot/config-{os.uname().release}") as f:
            return "CONFIG_FPROBE=y\n" in f.read()
    except OSError:
        return False


def default_plan():
    """The attach plan fibtrace's --attach auto picks here outside --compare (src/fibtrace/discover/plan.h)."""
    return "kprobe.multi" if has_kprobe_multi() else "kprobe"
