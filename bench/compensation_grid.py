#!/usr/bin/python3
"""The compensation's error on a grid, in the guest: every attach plan the
kernel has, n = 90, 1000, 10^4, 10^5, the full default set and the read path
(--no-discover), against the untraced truth. Meant for the instruction clock
(QEMU icount, scripts/vmaccel.sh), where the truth and every traced run
repeat exactly, so an error is a bias, not noise.

Run by scripts/bench-compensation.sh --guest (make bench-trace) in guests
under the instruction clock, as root with fibdrv loaded; writes this
kernel's rows to argv[1] (JSON list); bench/results/compensation-grid.json.

truth       trace_workload --truth: reads minus reads fib_read refuses at
            once (the syscall path cancels), the fastest of 5 rounds
fibtrace    the compensated fib_read median (and the raw one), --sweep n:n
error       (compensated - truth) / truth; target: within 2% or 200 ns
"""
import json
import os
import subprocess
import sys

from compensation import truth  # noqa: E402  the untraced truth, one definition

FIBTRACE = "build/fibtrace"
WORKLOAD = "build/bench/trace_workload"
KERNEL = os.uname().release
SPECS = [(90, 200), (1000, 60), (10000, 12), (100000, 3)]


def log(msg):
    print(f"bench-compensation-grid: {KERNEL}: {msg}", file=sys.stderr, flush=True)


def plans():
    """The plans this kernel has; GRID_PLANS="multi ..." for some of them."""
    have = ["fentry", "kprobe"]
    with open("/proc/kallsyms") as f:
        if any(" fprobe_register" in line for line in f):
            have.insert(1, "multi")
    want = os.environ.get("GRID_PLANS", "").split()
    return [p for p in have if not want or p in want]


def run(n, reads, plan, full):
    args = [FIBTRACE, "--json", "--sweep", f"{n}:{n}", "--repeat", str(reads), "--cpu", "0",
            "--attach", plan] + ([] if full else ["--no-discover"]) + os.environ.get(
                "GRID_ARGS", "").split()
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{' '.join(args)}: exit {p.returncode}: {p.stderr[-500:]}")
    doc = json.loads(p.stdout)
    row = doc["per_n"][0]
    return doc, row


def main():
    rows = []
    subprocess.run([WORKLOAD, "--rounds", "1", "--cpu", "0", "1000:50"], check=True,
                   capture_output=True)  # warm-up
    for n, reads in SPECS:
        t = truth(n, reads, rounds=5)
        for plan in plans():
            for full in (True, False):
                doc, r = run(n, reads, plan, full)
                raw = r["median_ns"]
                comp = r["compensated"]["median_ns"] if "compensated" in r else raw
                err = (comp - t) / t * 100
                row = dict(kernel=KERNEL, clock=doc["meta"]["clock"], n=n, plan=plan,
                           function_set="all" if full else "read-path", truth_ns=t,
                           compensated_ns=comp, raw_ns=raw, error_percent=round(err, 2),
                           error_ns=round(comp - t, 1), calls_per_read=r.get("traced_calls"),
                           error_bound_ns=r.get("compensated", {}).get("error_ns"),
                           within_target=abs(comp - t) <= max(0.02 * t, 200))
                rows.append(row)
                log(f"n={n} {plan} {row['function_set']}: truth {t:.0f} comp {comp:.0f} "
                    f"({err:+.2f}%) raw {raw}")
    with open(sys.argv[1], "w") as f:
        json.dump(rows, f, indent=1)


main()
