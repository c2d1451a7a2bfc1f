#!/usr/bin/env python3
"""make bench-fncount's table: per function, fibtrace's compensated time per
call (every function traced) against the instructions the plugin counted
for the same calls untraced (bench/fncount/fncount.c). Writes the rows into
bench/results/fncount.json (bench/results_rows.py) and prints the ten
hottest functions by untraced self instructions per read.

  compare.py ALGO N READS (KVER TRACED.json COUNTS.txt)...
"""
import json
import sys

sys.path.insert(0, "bench")
from results_rows import write_rows  # noqa: E402


def plugin_counts(path):
    head, rows = "", {}
    for line in open(path):
        if line.startswith("#"):
            head = line[1:].strip()
            continue
        name, calls, incl, self_ = line.split()
        rows[name] = (int(calls), int(incl), int(self_))
    return head, rows


def pct(got, truth):
    return round(100.0 * (got - truth) / truth, 1) if truth else None


def rows_of(kver, algo, n, reads, traced, counts):
    doc = json.load(open(traced))
    head, pl = plugin_counts(counts)
    pl_reads = pl.get("fibdrv_compute", (0, 0, 0))[0]
    out = []
    for f in doc["functions"]:
        name, cnt = f["name"], f["count"]
        if name not in pl or not cnt or not pl_reads:
            continue
        calls, incl, self_ = pl[name]
        c = f["compensated"]
        truth_t, truth_s = incl / calls, self_ / calls
        got_t, got_s = c["total_ns"] / cnt, c["self_ns"] / cnt
        bound = c.get("total_error_ns", 0) / cnt
        out.append({
            "kernel": kver, "clock": "instructions", "algo": algo, "n": n, "reads": reads,
            "attach": f["attach"], "function": name,
            "calls_per_read": {"fibtrace": round(cnt / reads, 3),
                               "plugin": round(calls / pl_reads, 3)},
            "untraced_total": round(truth_t, 1), "untraced_self": round(truth_s, 1),
            "untraced_self_per_read": round(self_ / pl_reads, 1),
            "compensated_total": round(got_t, 1), "compensated_self": round(got_s, 1),
            "raw_total": round(f["total_ns"] / cnt, 1), "bound_total": round(bound, 1),
            "error_total_pct": pct(got_t, truth_t), "error_self_pct": pct(got_s, truth_s),
            "within_bound": abs(got_t - truth_t) <= bound,
            "plugin": head,
        })
    return out


def main():
    algo, n, reads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rows = []
    args = sys.argv[4:]
    for i in range(0, len(args), 3):
        rows += rows_of(args[i], algo, n, reads, args[i + 1], args[i + 2])
    write_rows("bench/results/fncount.json", rows)
    for kver in dict.fromkeys(r["kernel"] for r in rows):
        mine = sorted((r for r in rows if r["kernel"] == kver),
                      key=lambda r: -r["untraced_self_per_read"])
        differ = [r["function"] for r in mine
                  if r["calls_per_read"]["fibtrace"] != r["calls_per_read"]["plugin"]]
        print(f"\n{kver}, {algo} F({n}) x {reads}, instructions per call "
              f"(untraced: the plugin; fibtrace: compensated, every function traced); "
              f"calls per read agree for {len(mine) - len(differ)} of {len(mine)} functions"
              + (f" (not: {', '.join(differ)}: the untraced reads open the device each "
                 "time and ask the result's size: fibclient)" if differ else ""))
        print(f"{'function':24} {'calls/read':>10} {'untraced':>9} {'fibtrace':>9} {'error':>7} "
              f"{'bound':>7} {'self':>9} {'fibtrace':>9} {'error':>7} {'raw':>9}")
        for r in mine[:10]:
            cpr = r["calls_per_read"]
            calls = (f"{cpr['fibtrace']:g}" if cpr["fibtrace"] == cpr["plugin"]
                     else f"{cpr['fibtrace']:g}/{cpr['plugin']:g}")
            print(f"{r['function']:24} {calls:>10} {r['untraced_total']:>9.0f} "
                  f"{r['compensated_total']:>9.0f} {r['error_total_pct']:>+6.1f}% "
                  f"{r['bound_total']:>7.0f} {r['untraced_self']:>9.0f} "
                  f"{r['compensated_self']:>9.0f} {r['error_self_pct']:>+6.1f}% "
                  f"{r['raw_total']:>9.0f}")


if __name__ == "__main__":
    main()
