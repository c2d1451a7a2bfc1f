#!/usr/bin/env python3
"""The QEMU plugins of make bench-fncount and make bench-parts, and
bench-parts' analysis, on this machine (make unit). Each plugin
(bench/fncount/fncount.c, bench/insprof/insprof.c) loads into this
machine's QEMU (its API declarations match the QEMU that runs it: an
unresolved symbol or version fails the load) and refuses to run without its
arguments; fncount writes its counts file when QEMU exits, saying it saw no
symbols, insprof writes nothing without a window. bench/insprof/parts.py,
on a planted guest run whose answers are known (two windows, two plans'
symbols, JIT line tables and call counts), charges every instruction to the
right symbol, part, source line and part of the BPF programs, per traced
call, and refuses a window count that does not match the plans. The
counting in a guest is checked by the benchmarks themselves: calls per read
must agree with fibtrace's (bench-fncount), fibdrv's own instructions must
come out 0 (bench-parts). Prints PASS/FAIL lines (tests/run.sh counts them).
"""
import re
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(TOP)
results = []


def check(name, ok, why=""):
    results.append(ok)
    print(f"PASS {name}" if ok else f"FAIL {name}: {why}")


def qemu_with(qemu, plugin):
    """QEMU without a machine, @plugin loaded, until its monitor's "quit"
    (no time bound: the 120 s only end a hang)."""
    return subprocess.run([qemu, "-M", "none", "-display", "none", "-monitor", "stdio",
                           "-plugin", plugin], input="quit\n", text=True, capture_output=True,
                          timeout=120)


def first_line(path):
    try:
        with open(path) as f:
            return f.readline().rstrip("\n")
    except OSError:
        return None


def plugin_checks(tmp):
    qemu = shutil.which("qemu-system-x86_64")
    if not qemu:
        print("SKIP fncount.loads, insprof.loads: no qemu-system-x86_64 (make deps)")
        return
    counts, blocks = os.path.join(tmp, "counts"), os.path.join(tmp, "blocks.txt")
    # (name, its arguments, what it leaves at exit: the first line or None, refusal)
    plugins = [
        ("fncount", f"syms={tmp}/none,out={counts}", counts,
         "# fncount: no syms file seen, 0 functions", "needs syms=FILE and out=FILE"),
        ("insprof", f"out={blocks}", blocks, None, "needs out=FILE"),
    ]
    for name, args, out, head, refusal in plugins:
        so = f"build/bench/{name}.so"
        subprocess.run(["make", "--no-print-directory", so], check=True,
                       stdout=subprocess.DEVNULL)
        p = qemu_with(qemu, f"{so},{args}")
        got = first_line(out)
        ok = p.returncode == 0 and (got is None if head is None else
                                    got is not None and got.startswith(head))
        check(f"{name}.loads", ok, f"status {p.returncode}, {p.stderr[-300:]!r}, {out}: {got!r}")
        p = qemu_with(qemu, so)
        check(f"{name}.args_required", p.returncode != 0 and refusal in p.stderr,
              f"status {p.returncode}, {p.stderr[-300:]!r}")


K = 0xffffffff81000000  # kernel text
B = 0xffffffffa0010000  # a BPF program's JIT image


def account_line():
    """A line inside fibtrace.bpf.c's account(), as the source has it now."""
    with open("bpf/fibtrace.bpf.c") as f:
        for i, text in enumerate(f, 1):
            if re.match(r"static __always_inline .*\baccount\(", text):
                return i + 2
    raise SystemExit("test_bench_plugins: no account() in bpf/fibtrace.bpf.c")


def plant(d):
    """Untraced: fibdrv 1000 and user 500 per read (and once vfs_read 7
    more, to be left out); traced: the same plus,
    per traced call, a trampoline 10, the clock 4 and a program 6 (4 on a
    line of account(), 2 on tree.bpf.h:70). 10 reads, 3 calls each."""
    reads, calls, line = 10, 30, account_line()
    syms = (f"{K:x} T __bpf_prog_enter_recur\n{K + 0x100:x} T ktime_get_mono_fast_ns\n"
            f"{K + 0x200:x} T vfs_read\n"
            f"{B:x} t bpf_prog_0123456789abcdef_on_exit\t[bpf]\n{B + 0x100:x} t end\t[bpf]\n"
            f"{0xffffffffc0000000:x} t fib_read\t[fibdrv]\n")
    with open(os.path.join(d, "a.syms"), "w") as f:
        f.write(syms)
    with open(os.path.join(d, "a.lines"), "w") as f:
        f.write(f"{B:x} on_exit /src/bpf/fibtrace.bpf.c:{line}\n{B + 0x10:x} on_exit /src/bpf/tree.bpf.h:70\n")
    funcs = [{"name": "fib_read", "count": 2 * reads, "attach": "fentry"},
             {"name": "bn_add", "count": 4 * reads, "attach": "fentry"},
             {"name": "bn_gone", "count": 0, "attach": "none"}]
    with open(os.path.join(d, "a.json"), "w") as f:
        json.dump({"functions": funcs}, f)
    fib = 0xffffffffc0000000
    untraced = [f"user {500 * reads}", f"{fib:x} 100 {10 * reads}"]
    traced = untraced + [f"{K:x} 5 {2 * calls}", f"{K + 0x100:x} 2 {2 * calls}",
                         f"{B:x} 3 {2 * calls} 0,4,16"]  # 2 in account(), 1 on tree.bpf.h:70
    with open(os.path.join(d, "blocks.txt"), "w") as f:
        f.write("window 0 instructions 0 full 0\n" + "\n".join(untraced) + "\n")
        # a second untraced window that met one-off work: the fewer counts
        f.write("window 1 instructions 0 full 0\n" + "\n".join(untraced) +
                f"\n{K + 0x200:x} 7 {reads}\n")
        f.write("window 2 instructions 0 full 0\n" + "\n".join(traced) + "\n")


def parts_checks(tmp):
    d = os.path.join(tmp, "run")
    os.makedirs(d)
    plant(d)
    env = dict(os.environ, PARTS_RESULTS=os.path.join(tmp, "parts.json"))
    p = subprocess.run([sys.executable, "bench/insprof/parts.py", "1000", "10", "a", "K", d],
                       capture_output=True, text=True, env=env)
    try:
        row = json.load(open(env["PARTS_RESULTS"]))[0]
    except (OSError, ValueError, IndexError) as e:
        check("parts.runs", False, f"{e}; status {p.returncode}: {p.stderr[-400:]}")
        return
    check("parts.runs", p.returncode == 0, p.stderr[-400:])
    check("parts.calls_per_read", row["calls_per_read"] == 3.0, row["calls_per_read"])
    check("parts.added_per_call", row["added_per_call"] == 20.0, row["added_per_call"])
    want = {"attach: fentry/fexit trampoline": 10.0, "clock (bpf_ktime_get_ns)": 4.0,
            "BPF programs (JIT)": 6.0, "fibdrv (must be 0)": 0.0, "user space": 0.0}
    got = {k: v for k, v in row["parts_per_call"].items() if k in want}
    check("parts.parts", got == want, f"{row['parts_per_call']}")
    line = account_line()
    check("parts.bpf_lines", row["bpf_lines_per_call"] == {f"/src/bpf/fibtrace.bpf.c:{line}": 4.0,
                                                           "/src/bpf/tree.bpf.h:70": 2.0},
          row["bpf_lines_per_call"])
    check("parts.bpf_parts", row["bpf_parts_per_call"] == {"fibtrace.bpf.c:account()": 4.0,
                                                           "tree.bpf.h": 2.0},
          row["bpf_parts_per_call"])
    p = subprocess.run([sys.executable, "bench/insprof/parts.py", "1000", "10", "a b", "K", d],
                       capture_output=True, text=True, env=env)
    check("parts.windows_must_match", p.returncode != 0 and "3 windows for 2 plans" in p.stderr,
          f"status {p.returncode}: {p.stderr[-300:]}")


def main():
    tmp = tempfile.mkdtemp()
    try:
        plugin_checks(tmp)
        parts_checks(tmp)
    finally:
        shutil.rmtree(tmp)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
