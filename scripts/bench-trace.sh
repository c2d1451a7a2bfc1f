#!/usr/bin/env bash
# Tracing overhead per read of /dev/fibonacci: untraced, fibtrace (the plan
# --attach auto picks, full default set; without its call tree; and with
# --attach fentry), fibtrace --kprobe, bpftrace on
# the same functions into per-function histograms, two floors (bpftrace
# programs on the same functions that do nothing, and that only read the
# clock into a per-CPU sum), bcc's funclatency on fib_read, and the read
# path alone (fibtrace --no-discover vs bpftrace on the same functions).
# Every fibtrace row has its start-up and detach (meta.startup) and its
# cost per call as a multiple of the clock floor's. One guest boot per
# kernel; the workload is build/bench/trace_workload (C, tight lseek+read
# loop, fastest of 15 rounds).
#
#   scripts/bench-trace.sh [KVER...]   default: every kernel of scripts/kernels.sh
#                                      writes bench/results/trace.json (the rows of
#                                      the kernels and clocks measured replaced)
#
# added_ns_per_call = (ns_per_read(tracer) - ns_per_read(none)) / calls_per_read
# where calls_per_read is exact: fibtrace's own JSON counts for the same reads
# (sum of every traced function's count / fib_read's count).
# Needs build/fibtrace, build/bench/trace_workload, build/KVER/fibdrv.ko
# (make bench-trace builds them), bpftrace and bpfcc-tools. Under software
# emulation absolute times are inflated: compare ratios.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if [ "${1:-}" = --guest ]; then
	# In the guest, as root: load fibdrv, run every configuration, write the
	# rows of this kernel to $2 (JSON list).
	insmod "build/$(uname -r)/fibdrv.ko"
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	mount -t debugfs nodev /sys/kernel/debug 2>/dev/null || true
	status=0
	python3 - "$2" <<'PY' || status=$?
import json, os, re, signal, subprocess, sys, time

sys.path.insert(0, "bench")
import bpftrace_idiom  # noqa: E402

OUT = sys.argv[1]
KERNEL = os.uname().release
WORKLOAD = "build/bench/trace_workload"
# (n, reads per round): many cheap reads, fewer expensive ones.
SPECS = [(90, 1000), (10000, 30)]
# Many short rounds, the fastest one counts: other guests share the host's
# CPUs, and their interference only ever adds time.
ROUNDS = 15
CPU = "0"  # the workload's CPU; tracers' user space mostly runs on the other
READY_TIMEOUT = 900  # s: loading ~180 BPF programs under TCG is slow
STOP_TIMEOUT = 600  # s: printing bpftrace's histograms is slow too
# Tracers' output where the host can read it after a failure.
tmp = os.path.join("build/vm", "bench-trace-" + KERNEL)
os.makedirs(tmp, exist_ok=True)


def log(msg):
    print(f"bench-trace: {KERNEL}: {msg}", file=sys.stderr, flush=True)


def reads_issued(specs):
    return sum((1 + ROUNDS) * reads for _, reads in specs)  # warm-up + rounds


def workload(specs):
    """Run the workload; {n: (best_ns, median_ns)} per read."""
    args = [WORKLOAD, "--rounds", str(ROUNDS), "--cpu", CPU]
    args += [f"{n}:{reads}" for n, reads in specs]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    res = {}
    for line in out.split("\n"):
        if line.strip():
            n, _, _, median, best = line.split()
            res[int(n)] = (float(best), float(median))
    return res


class Tracer:
    """A tracer process; ready when its output matches a banner."""

    def __init__(self, name, args, banner, trigger=None, settle=0.0, env=None):
        self.name, self.args = name, args
        self.out_path = os.path.join(tmp, name.replace("@", "_") + ".out")
        self.err_path = self.out_path[:-4] + ".err"
        t0 = time.monotonic()
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(args, stdout=out, stderr=err,
                                         stdin=subprocess.DEVNULL, env=env)
        while True:
            if re.search(banner, self.output(), re.M):
                # Banners printed as a burst of lines: wait for the last.
                size = -1
                while settle and size != len(self.output()):
                    size = len(self.output())
                    time.sleep(settle)
                break
            if self.proc.poll() is not None:
                raise RuntimeError(f"{name} exited ({self.proc.returncode}) before its banner:\n"
                                   + self.output()[-3000:])
            if time.monotonic() - t0 > READY_TIMEOUT:
                self.proc.kill()
                self.proc.wait()
                raise RuntimeError(f"{name}: no banner /{banner}/ within {READY_TIMEOUT} s")
            if trigger:
                trigger()
            time.sleep(0.5)
        self.startup_s = round(time.monotonic() - t0, 1)

    def output(self):
        with open(self.out_path) as f1, open(self.err_path) as f2:
            return f1.read() + f2.read()

    def stop(self, required=True):
        """SIGINT, as Ctrl-C; returns (stdout, stderr). bpftrace 0.17 once
        ignored a SIGINT in the guest: repeat it, then kill; a tracer whose
        report is only a cross-check (required=False) then returns None
        instead of failing the whole run."""
        for attempt in range(3):
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(STOP_TIMEOUT / 3)
                break
            except subprocess.TimeoutExpired:
                log(f"{self.name} still running {STOP_TIMEOUT // 3} s after SIGINT")
        else:
            self.proc.kill()
            self.proc.wait()
            if not required:
                return None, None
            raise RuntimeError(f"{self.name} did not stop within {STOP_TIMEOUT} s")
        with open(self.out_path) as f1, open(self.err_path) as f2:
            out, err = f1.read(), f2.read()
        if self.proc.returncode not in (0, -signal.SIGINT):
            raise RuntimeError(f"{self.name} exited {self.proc.returncode}:\n{err[-3000:]}")
        return out, err


def fibtrace_session(name, extra, specs):
    """One fibtrace run in wait mode around the workload: timing, the
    function list with modes and exact counts (--json). With --json fibtrace
    prints no banner; -v prints its "slot" lines once every probe is
    attached."""
    tr = Tracer(name, ["build/fibtrace", "--no-hist", "--json", "-v"] + extra,
                r"^fibtrace: slot", settle=1.0)
    res = workload(specs)
    out, _ = tr.stop()
    doc = json.loads(out)
    slots = [{"mode": f["attach"], "module": "" if f["module"] == "vmlinux" else f["module"],
              "name": f["name"]} for f in doc["functions"]]
    funcs = {f["name"]: f for f in doc["functions"]}
    traced = [f for f in doc["functions"] if f["attach"] != "none"]
    reads_seen = funcs["fib_read"]["count"]
    if reads_seen != reads_issued(specs):
        raise RuntimeError(f"{name}: fib_read count {reads_seen} != "
                           f"{reads_issued(specs)} reads issued")
    lost = {k: v for k, v in doc["lost"].items() if isinstance(v, int) and v}
    return {
        "ns": res, "slots": slots, "startup_s": tr.startup_s, "startup": doc["meta"]["startup"],
        "counts": {f["name"]: f["count"] for f in traced},
        "calls_per_read": sum(f["count"] for f in traced) / reads_seen,
        "untraceable": sorted(f["name"] for f in doc["functions"] if f["attach"] == "none"),
        "attach_counts": doc["meta"]["attach_counts"], "lost": lost,
    }


def ping_ready():
    """Fires the bpftrace sentinel once it is attached (a kprobe, not a
    syscall tracepoint: those slow every syscall of every task)."""
    os.getppid()


def hist_totals(text):
    """Per map, the sum of an ASCII histogram's counts (bpftrace, bcc)."""
    totals, cur = {}, None
    for line in text.split("\n"):
        m = re.match(r"^@(\w+):", line)
        if m:
            cur = m.group(1)
            totals[cur] = 0
            continue
        m = re.match(r"^\s*(?:\[[^\]]*[\])]|\S+\s*->\s*\S+)\s*:?\s*(\d+)\s*\|", line)
        if m:
            totals[cur or "hist"] = totals.get(cur or "hist", 0) + int(m.group(1))
    return totals


def bpftrace_session(name, slots, specs, floor=None):
    script, probes = bpftrace_idiom.script(slots, floor, os.getpid())
    path = os.path.join(tmp, name.replace("@", "_") + ".bt")
    with open(path, "w") as f:
        f.write(script)
    tr = Tracer(name, ["bpftrace", path], r"^bench-trace: attached", trigger=ping_ready)
    res = workload(specs)
    out, _ = tr.stop(required=False)
    hists = {k[3:]: v for k, v in hist_totals(out or "").items() if k.startswith("ns_")}
    kinds = [f"{k}:{v}" for k, v in (("kfunc", probes["fentry"]), ("kprobe", probes["kprobe"])) if v]
    return {"ns": res, "startup_s": tr.startup_s, "probe": "bpftrace " + " ".join(kinds),
            "hist_counts": hists}


def funclatency_session(specs):
    # Unbuffered: its banner goes to a file, not a terminal.
    tr = Tracer("funclatency", ["/usr/sbin/funclatency-bpfcc", "fib_read"], r"^Tracing ",
                env=dict(os.environ, PYTHONUNBUFFERED="1"))
    res = workload(specs)
    out, _ = tr.stop(required=False)
    return {"ns": res, "startup_s": tr.startup_s, "hist_counts": hist_totals(out or "")}


rows = []
t_start = time.monotonic()
log("workload untraced")
base_before = workload(SPECS)

# fibtrace (the plan auto picks: kprobe.multi, or the kprobe plan where
# the kernel has no kprobe.multi): one run per n, so its JSON counts are
# exact for that n. fibtrace@no-tree: the same without the call tree (its
# cost per call). fibtrace@fentry: the per-function fentry programs, the
# plan --compare uses; its modes per function are bpftrace's too.
fib = {}
FIB_RUNS = [("fibtrace", []), ("fibtrace@read-path", ["--no-discover"]),
            ("fibtrace@no-tree", ["--no-tree"]), ("fibtrace@fentry", ["--attach", "fentry"])]
for tracer, extra in FIB_RUNS:
    for n, reads in SPECS:
        log(f"{tracer} {' '.join(extra)} n={n}")
        fib[tracer, n] = fibtrace_session(tracer, extra, [(n, reads)])
        log(f"  started in {fib[tracer, n]['startup_s']} s, "
            f"{fib[tracer, n]['calls_per_read']:.1f} calls/read")
# --kprobe: one run for every n; its counts must be the sum of the
# fibtrace@fentry runs', but for fib_open and fib_release: once per workload process.
log("fibtrace-kprobe --kprobe")
kprobe_run = fibtrace_session("fibtrace-kprobe", ["--kprobe"], SPECS)
log(f"  started in {kprobe_run['startup_s']} s")
fentry_sum = {}
for n, _ in SPECS:
    for func, count in fib["fibtrace@fentry", n]["counts"].items():
        fentry_sum[func] = fentry_sum.get(func, 0) + count
for func in ("fib_open", "fib_release"):
    if func in fentry_sum:
        fentry_sum[func] = 1
kprobe_counts_match = kprobe_run["counts"] == fentry_sum
if not kprobe_counts_match:
    log("warning: --kprobe counts differ from fentry's: " + ", ".join(
        f"{f} {kprobe_run['counts'].get(f)} vs {fentry_sum.get(f)}"
        for f in sorted(set(kprobe_run["counts"]) | set(fentry_sum))
        if kprobe_run["counts"].get(f) != fentry_sum.get(f)))

full_slots = fib["fibtrace@fentry", SPECS[0][0]]["slots"]
log("floors: bpftrace programs that do nothing, and that only read the clock")
floor_empty = bpftrace_session("floor@empty", full_slots, SPECS, "empty")
floor_clock = bpftrace_session("floor@clock", full_slots, SPECS, "clock")
path_slots = fib["fibtrace@read-path", SPECS[0][0]]["slots"]
log(f"bpftrace on {sum(s['mode'] != 'none' for s in full_slots)} functions")
bpf_full = bpftrace_session("bpftrace", full_slots, SPECS)
log(f"  started in {bpf_full['startup_s']} s")
log(f"bpftrace on the read path ({sum(s['mode'] != 'none' for s in path_slots)} functions)")
bpf_path = bpftrace_session("bpftrace@read-path", path_slots, SPECS)
log(f"  started in {bpf_path['startup_s']} s")
log("funclatency-bpfcc fib_read")
flat = funclatency_session(SPECS)
log(f"  started in {flat['startup_s']} s")
log("workload untraced again")
base_after = workload(SPECS)


def describe_modes(slots):
    c = {}
    for s in slots:
        c[s["mode"]] = c.get(s["mode"], 0) + 1
    return ", ".join(f"{k}:{v}" for k, v in sorted(c.items()))


for n, reads in SPECS:
    # The baseline: the faster of the untraced runs before and after the tracers.
    none_ns = min(base_before[n][0], base_after[n][0])
    full = fib["fibtrace", n]
    path = fib["fibtrace@read-path", n]
    common = {"kernel": KERNEL, "n": n, "reads_per_round": reads, "rounds": ROUNDS,
              "statistic": "fastest round"}
    sets = {
        "none": dict(functions=0, function_set="none", calls=0.0, probe="none",
                     ns=(none_ns, min(base_before[n][1], base_after[n][1])),
                     extra={"ns_per_read_before": base_before[n][0],
                            "ns_per_read_after": base_after[n][0]}),
    }
    for tracer, _ in FIB_RUNS:
        run = fib[tracer, n]
        sets[tracer] = dict(functions=len(run["counts"]),
                            function_set="read-path" if tracer.endswith("read-path") else "all",
                            calls=run["calls_per_read"], ns=run["ns"][n],
                            probe="fibtrace " + describe_modes(run["slots"]),
                            extra={"startup_s": run["startup_s"], "startup": run["startup"],
                                   "untraceable": run["untraceable"], "lost": run["lost"],
                                   "counts_per_read": {k: v / reads_issued([(n, reads)])
                                                       for k, v in run["counts"].items()}})
    sets["fibtrace-kprobe"] = dict(functions=len(kprobe_run["counts"]), function_set="all",
                                   calls=full["calls_per_read"], ns=kprobe_run["ns"][n],
                                   probe="fibtrace " + describe_modes(kprobe_run["slots"]),
                                   extra={"startup_s": kprobe_run["startup_s"],
                                          "startup": kprobe_run["startup"],
                                          "lost": kprobe_run["lost"],
                                          "counts_equal_fentry": kprobe_counts_match})
    for tracer, run, ref, ref_name in (("bpftrace", bpf_full, full, "fibtrace"),
                                       ("bpftrace@read-path", bpf_path, path, "fibtrace@read-path")):
        sets[tracer] = dict(functions=len(ref["counts"]),
                            function_set="read-path" if "@" in tracer else "all",
                            calls=ref["calls_per_read"], ns=run["ns"][n], probe=run["probe"],
                            extra={"startup_s": run["startup_s"],
                                   # bpftrace's tid-keyed start loses the
                                   # outer call of a recursion: fewer
                                   # recorded than traced calls.
                                   "hist_calls_recorded_all_n": sum(run["hist_counts"].values())
                                   if run["hist_counts"] else None,
                                   "calls_traced_all_n": round(sum(
                                       fib[ref_name, m]["calls_per_read"] * reads_issued([(m, r)])
                                       for m, r in SPECS))})
    for tracer, run in (("floor@empty", floor_empty), ("floor@clock", floor_clock)):
        sets[tracer] = dict(functions=len(full["counts"]), function_set="all",
                            calls=full["calls_per_read"], ns=run["ns"][n], probe=run["probe"],
                            extra={"startup_s": run["startup_s"]})
    sets["funclatency"] = dict(functions=1, function_set="fib_read", calls=1.0,
                               ns=flat["ns"][n], probe="bcc kprobe:1",
                               extra={"startup_s": flat["startup_s"],
                                      "hist_calls_recorded_all_n":
                                          sum(flat["hist_counts"].values())
                                          if flat["hist_counts"] else None})
    for tracer in ("none", "fibtrace", "fibtrace@no-tree", "fibtrace@fentry", "fibtrace-kprobe",
                   "bpftrace", "floor@empty", "floor@clock", "funclatency", "fibtrace@read-path",
                   "bpftrace@read-path"):
        if tracer not in sets:
            continue
        s = sets[tracer]
        added = (s["ns"][0] - none_ns) / s["calls"] if s["calls"] else 0.0
        row = dict(common, tracer=tracer, function_set=s["function_set"],
                   functions=s["functions"], calls_per_read=round(s["calls"], 3),
                   probe=s["probe"], ns_per_read=round(s["ns"][0], 1),
                   ns_per_read_median=round(s["ns"][1], 1), added_ns_per_call=round(added, 1))
        # Time the tracer adds to a read: per-call costs are only resolved
        # where this is well above the run-to-run noise (a few %).
        row["added_percent"] = round(100 * (s["ns"][0] - none_ns) / none_ns, 1)
        row.update(s["extra"])
        rows.append(row)
    # Ratio to bpftrace tracing the same functions (funclatency: to the full set).
    by = {r["tracer"]: r for r in rows if r["n"] == n}
    for r in by.values():
        ref = by["bpftrace@read-path" if r["function_set"] == "read-path" else "bpftrace"]
        if r["tracer"] != "none" and ref["added_ns_per_call"] > 0:
            r["ratio_to_bpftrace"] = round(r["added_ns_per_call"] / ref["added_ns_per_call"], 3)
        floor = by["floor@clock"]["added_ns_per_call"]
        if r["tracer"].startswith("fibtrace") and r["function_set"] == "all" and floor > 0:
            r["ratio_to_clock_floor"] = round(r["added_ns_per_call"] / floor, 3)

log(f"done in {time.monotonic() - t_start:.0f} s")
with open(OUT, "w") as f:
    json.dump(rows, f, indent=1)
PY
	rmmod fibdrv || true
	exit $status
fi

# shellcheck source=scripts/guest-bench.sh
. scripts/guest-bench.sh
guest_bench bench-trace build/fibtrace build/bench/trace_workload /usr/bin/bpftrace \
	/usr/sbin/funclatency-bpfcc -- "$@"
python3 - "$build" "$host" "${parts[@]}" <<'PY'
import json, sys

sys.path.insert(0, "bench")
from results_rows import write_rows  # noqa: E402

rows = [r for p in sys.argv[3:] for r in json.load(open(p))]
for r in rows:
    r["fibtrace_build"] = sys.argv[1]
    r["host"] = sys.argv[2]
    # A per-call cost is resolved when the tracer adds clearly more than the
    # run-to-run noise (a few %) to a read: not for 1-4 calls on a 1 ms read.
    r["resolved"] = r["tracer"] == "none" or r["added_percent"] >= 20
write_rows("bench/results/trace.json", rows)
hdr = ("kernel", "clock", "n", "tracer", "funcs", "calls/read", "ns/read", "added",
       "added ns/call", "vs bpftrace", "vs floor", "start s", "detach s")
print("%-22s %-5s %6s %-19s %5s %10s %12s %7s %13s %11s %8s %7s %8s" % hdr)
for r in rows:
    ratio, fl = r.get("ratio_to_bpftrace"), r.get("ratio_to_clock_floor")
    su = r.get("startup") or {}
    print("%-22s %-5s %6d %-19s %5d %10.1f %12.0f %6.0f%% %13.0f %11s %8s %7s %8s" % (
        r["kernel"], r.get("clock", "real")[:5], r["n"], r["tracer"], r["functions"],
        r["calls_per_read"],
        r["ns_per_read"], r["added_percent"], r["added_ns_per_call"],
        "-" if ratio is None else f"{ratio:.2f}" if r["resolved"] else "unresolved",
        "-" if fl is None else f"{fl:.2f}",
        "%.1f" % su["total_s"] if su else ("%.1f" % r["startup_s"] if "startup_s" in r else "-"),
        "%.2f" % su["detach_s"] if su else "-"))
print("bench-trace: ns/read is the fastest of %d rounds; added ns/call = "
      "(ns/read - untraced) / calls per read; clock instr: QEMU icount, 1 ns = 1 instruction "
      "(so added ns/call is instructions per traced call); bench/results/trace.json"
      % rows[0]["rounds"])
PY
