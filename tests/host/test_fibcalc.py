#!/usr/bin/python3
"""build/fibcalc on the host: the library's user-space front end.

Against independent truth: F(N) from Python's integers (decimal and the
binary format's hexadecimal), the list of algorithms and their caps, exit
status 64 with a message for bad input; --memory's peak at least the bytes
of the text it formats (the library counts every allocation, the text
among them) and the same in two runs. Prints PASS/FAIL lines for
tests/run.sh.
"""
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIBCALC = os.path.join(TOP, "build", "fibcalc")
sys.path.insert(0, os.path.join(TOP, "tests", "guest"))
import gtest  # noqa: E402  (the guest tests' reporter and F(n) reference; host-safe)
from gtest import fib  # noqa: E402


def result(ok, name, detail=""):
    gtest.check(f"host/fibcalc.{name}", ok, detail)


def run(*args):
    p = subprocess.run([FIBCALC, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def main():
    sys.set_int_max_str_digits(0)
    rc, out, _ = run("--list")
    algos = [line.split("\t") for line in out.splitlines()]
    result(rc == 0 and len(algos) == 8 and all(int(m) > 0 for _, m in algos), "list", out[:200])
    rc, default, _ = run("--default")
    result(rc == 0 and default.strip() in [a for a, _ in algos], "default", default)
    for name, cap in algos:
        ns = [n for n in (0, 1, 2, 93, 94, 1000) if n <= int(cap)]
        bad = [n for n in ns if run("--algo", name, str(n))[1] != f"{fib(n)}\n"]
        result(not bad, f"dec.{name}", f"wrong F(n) for n in {bad}")
    n = 100000
    rc, out, _ = run("--format", "bin", str(n))
    result(rc == 0 and out == f"{fib(n):#x}\n", "bin.100000", out[:80])

    rc, out, _ = run("--memory", str(n))
    rc2, out2, _ = run("--memory", str(n))
    digits = len(str(fib(n)))
    result(rc == 0 and out == out2 and int(out) >= digits, "memory.100000",
           f"exit {rc}, {out.strip()} and {out2.strip()} bytes for {digits} digits")

    for args, what in ((["--algo", "nope", "5"], "unknown algorithm"),
                       (["x5"], "non-negative"),
                       (["--algo", "iter64", "94"], "beyond the cap"),
                       (["--memory", "--reads", "2", "5"], "--memory"),
                       ([], "missing N")):
        rc, _, err = run(*args)
        result(rc == 64 and what in err, f"usage.{'_'.join(args) or 'none'}",
               f"exit {rc}: {err.strip()[-200:]}")


if __name__ == "__main__":
    gtest.run(main)
