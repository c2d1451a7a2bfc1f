#!/usr/bin/env bash
# Overhead compensation against the untraced truth (part of make bench-trace):
# bench/compensation.py in one guest per kernel, then the table.
#
#   scripts/bench-compensation.sh [KVER...]   default: every kernel of scripts/kernels.sh
#                                             writes bench/results/compensation.json
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if [ "${1:-}" = --guest ]; then
	insmod "build/$(uname -r)/fibdrv.ko"
	status=0
	python3 bench/compensation.py "$2" || status=$?
	# Under the instruction clock, the error on the whole grid (every plan,
	# four n, both sets): exact there, so a bias is seen as it is.
	if grep -qw 'fibtrace.clock=instructions' /proc/cmdline; then
		python3 bench/compensation_grid.py "${2%.json}.grid.json" || status=$?
	fi
	rmmod fibdrv || true
	exit $status
fi

# shellcheck source=scripts/guest-bench.sh
. scripts/guest-bench.sh
guest_bench bench-compensation build/fibtrace build/bench/trace_workload /usr/bin/bpftrace -- "$@"
python3 - "$build" "$host" "${parts[@]}" <<'PY'
import json, sys

sys.path.insert(0, "bench")
from results_rows import write_rows  # noqa: E402

rows = [r for p in sys.argv[3:] for r in json.load(open(p))]
for r in rows:
    r["fibtrace_build"] = sys.argv[1]
    r["host"] = sys.argv[2]
write_rows("bench/results/compensation.json", rows)
grid = []
for p in sys.argv[3:]:
    try:
        grid += json.load(open(p[:-len(".json")] + ".grid.json"))
    except OSError:
        pass
for r in grid:
    r["fibtrace_build"], r["host"] = sys.argv[1], sys.argv[2]
if grid:
    write_rows("bench/results/compensation-grid.json", grid)
    print("%-22s %7s %-7s %-9s %10s %10s %9s %8s" % ("kernel", "n", "plan", "set", "truth",
                                                     "comp", "error", "target"))
    for r in grid:
        print("%-22s %7d %-7s %-9s %10.0f %10.0f %+8.2f%% %8s" % (
            r["kernel"], r["n"], r["plan"], r["function_set"], r["truth_ns"],
            r["compensated_ns"], r["error_percent"], "ok" if r["within_target"] else "MISS"))
    print("bench-compensation: the grid, instruction clock: compensated fib_read median "
          "against the untraced truth (2% or 200 instructions); "
          "bench/results/compensation-grid.json")
    print()

def us(ns, digits=1):
    return f"{ns / 1000:.{digits}f}"

def err(e):
    return f"{e['percent']:+.0f}%" + ("" if e["within_target"] else "!")

noise = [r["noise"] for r in rows if "noise" in r]
rows = [r for r in rows if "noise" not in r]
print("%-22s %-5s %6s %6s %8s | %8s %6s | %8s %6s %8s %6s | %8s %6s %6s | %8s %6s" % (
    "kernel", "clock", "n", "calls", "truth", "raw", "err", "comp", "err", "bound", "in?",
    "path", "raw", "comp", "single", "err"))
for r in rows:
    e = r["error"]
    print("%-22s %-5s %6d %6d %8s | %8s %6s | %8s %6s %8s %6s | %8s %6s %6s | %8s %6s" % (
        r["kernel"], r.get("clock", "real")[:5], r["n"], r["traced_calls"], us(r["truth_ns"]), us(r["raw_ns"]), err(e["raw"]),
        us(r["compensated_ns"]), err(e["compensated"]), "±" + us(r["error_bound_ns"]),
        "yes" if r["truth_within_bound"] else "NO", us(r["read_path_compensated_ns"]),
        err(e["read_path_raw"]), err(e["read_path_compensated"]), us(r["single_probe_ns"]),
        err(e["single_probe"])))
print("bench-compensation: times in us, medians; err = (x - truth) / truth, ! = outside the target "
      "(10% or 1 us); in? = truth within fibtrace's error bound; path = --no-discover; "
      "single = bpftrace on fib_read alone; bench/results/compensation.json")
print()
print("%-22s %-5s %6s | %9s | %9s %21s %6s" % ("kernel", "clock", "n", "paid", "subtracted",
                                              "context rounds", "mode"))
for r in rows:
    ctx = r["overhead"].get("context", {})
    mode = ctx.get("mode") or ""
    cost = r["overhead"].get(mode, {})
    print("%-22s %-5s %6d | %9s | %9s %21s %6s" % (
        r["kernel"], r.get("clock", "real")[:5], r["n"], us((r["raw_ns"] - r["truth_ns"]) / r["traced_calls"], 2),
        us(cost["full_ns"], 2) if cost else "-",
        (us(ctx["full_min_ns"], 2) + ".." + us(ctx["full_max_ns"], 2)) if ctx.get("measured") else "-",
        mode))
print("bench-compensation: per traced call, us: paid = (raw - truth) / calls; subtracted = the "
      "cost fibtrace took off each call; context rounds = the range its calibration in context saw")
print()
print("%-22s %6s %9s | %9s %9s %9s %7s | %19s %7s" % (
    "kernel", "n", "untraced", "p10", "p50", "p90", "+-", "0.5s bin medians", "+-"))
for r in noise:
    print("%-22s %6d %9s | %9s %9s %9s %6.0f%% | %9s..%-9s %6.0f%%" % (
        r["kernel"], r["n"], us(r["untraced_ns"]), us(r["overhead_p10_ns"]),
        us(r["overhead_p50_ns"]), us(r["overhead_p90_ns"]), r["spread_percent"],
        us(r["bin_median_min_ns"]), us(r["bin_median_max_ns"]), r["bin_spread_percent"]))
print("bench-compensation: noise: what tracing the default set adds to one computation of F(n) "
      "(the kernel's time, mean of 5 per sample, 200 samples 20 ms apart), us; +- = half the "
      "10-90% range (or of the bin medians' range) over the median")
PY
