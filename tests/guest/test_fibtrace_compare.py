#!/usr/bin/python3
"""fibtrace --compare in the guest: an A/A run flags (almost) nothing, known
orders name the expected winner, JSON against docs/fibtrace.schema.json,
benchfmt lines, --fail-on-regression, --strict, bad flags.

Runs as root in the test VM with fibdrv loaded (tests/guest/run.sh). Small
sweeps, few rounds, read path only: about 1.5 minutes per kernel under TCG.
Timing assertions are about statistical significance (Holm-corrected
Mann-Whitney on interleaved samples), never about absolute times.
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtest  # noqa: E402
from gtest import check, skip  # noqa: E402
from test_fibtrace import validate  # noqa: E402  (the schema-subset validator)

# The CPU the comparisons pin to: 1, off the CPU that takes most interrupts,
# where the guest has two (the 6.1 guest under icount has one: scripts/vmtest.sh).
CPU = str(min(1, (os.cpu_count() or 1) - 1))

FIBTRACE = "build/fibtrace"
SCHEMA = "docs/fibtrace.schema.json"
PLOT = f"build/vm/compare-aa-{os.uname().release}.svg"  # two kernels' guests share build/vm
HYGIENE = ["pinned-cpu", "governor", "turbo", "aslr", "isolcpus", "irq-affinity",
           "virtualization", "pmu"]
BENCH_RE = re.compile(r"^BenchmarkFibRead/algo=([^/\s]+)/format=(dec|bin)/n=(\d+) 1 (\d+) ns/op"
                      r"(?: (\d+) [a-z-]+/op)+$")


def run(args, timeout=300):
    p = subprocess.run([FIBTRACE] + args, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


FLAGGED_RE = re.compile(r"^fibtrace: regression: (.*) at n = (\d+) ", re.M)


def run_json(name, args, want_rc=0, confirm=False):
    """Run a --json comparison; check exit status, parse, schema. Returns doc or None.

    confirm (an A/A run that must pass): a run flagged at α is re-measured
    once, and only a (variant, n) flagged by both runs fails: a systematic
    difference repeats, chance does not. The first run's lines are printed."""
    rc, out, err = run(args + ["--json"])
    if confirm and rc == 8:
        first = set(FLAGGED_RE.findall(err))
        print(f"# {name}: flagged {sorted(first)} on the first run; re-measuring once:\n"
              + "\n".join(f"#   {ln}" for ln in err.splitlines() if "regression:" in ln),
              flush=True)
        rc, out, err = run(args + ["--json"])
        if rc == 8 and not first & set(FLAGGED_RE.findall(err)):
            print(f"# {name}: the second run flagged other n, none again: noise", flush=True)
            rc = 0
    check(f"{name}.exit", rc == want_rc, f"exit {rc} (want {want_rc}): {err.strip()[-400:]}")
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(f"{name}.json", False, f"{e}: {out[:200]!r}")
        return None, err
    with open(SCHEMA) as f:
        errs = validate(doc, json.load(f))
    check(f"{name}.schema", not errs, "; ".join(errs[:5]))
    return doc, err


def check_counts(name, doc, labels, ns, rounds):
    """Every (variant, n) holds exactly `rounds` matched reads; nothing lost."""
    check(f"{name}.labels", [v["label"] for v in doc["variants"]] == labels,
          str([v["label"] for v in doc["variants"]]))
    cells = {(s["variant"], s["n"]): s for s in doc["stats"]}
    want = {(lab, n) for lab in labels for n in ns}
    check(f"{name}.cells", set(cells) == want, f"{len(cells)} cells, want {len(want)}")
    bad = [k for k, s in cells.items() if s["count"] != rounds or s["kept"] > s["count"]
           or s["kept"] + s["outliers_removed"] != s["count"]]
    check(f"{name}.cell_counts", not bad, f"cells without {rounds} reads: {bad[:5]}")
    unmatched = sum(v["unmatched"] + v["errors"] for v in doc["variants"])
    check(f"{name}.matched", unmatched == 0 and doc["settings"]["unmatched_reads"] == 0,
          f"{unmatched} unmatched/failed reads")
    removed = sum(v["outliers_removed"] for v in doc["variants"])
    check(f"{name}.outliers_total", removed == sum(s["outliers_removed"] for s in cells.values()),
          "per-variant and per-cell outlier counts disagree")
    # Under the instruction clock each visit is 5 reads back to back, the cheapest counted.
    burst = 5 if doc["meta"]["clock"] == "instructions" else 1
    check(f"{name}.reads_per_visit", doc["settings"]["reads_per_visit"] == burst,
          f"{doc['settings']['reads_per_visit']} != {burst} (clock {doc['meta']['clock']})")
    reads = len(labels) * len(ns) * rounds * burst
    check(f"{name}.reads_issued", doc["meta"]["sweep"]["reads_issued"] == reads,
          f"{doc['meta']['sweep']['reads_issued']} != {reads}")
    check(f"{name}.mode", doc["meta"]["mode"] == "compare", doc["meta"]["mode"])
    pairs = {(c["b"], c["n"]) for c in doc["compare"]}
    want_pairs = {(lab, n) for lab in labels[1:] for n in ns}
    check(f"{name}.pairs", pairs == want_pairs and all(c["a"] == labels[0] for c in doc["compare"]),
          f"{len(pairs)} pairs")
    check(f"{name}.holm_family", doc["settings"]["comparisons"] == len(want_pairs),
          f"{doc['settings']['comparisons']} != {len(want_pairs)}")


def reversals(doc, winner, loser):
    """The comparisons that found `winner` materially slower than `loser`.

    Material as --fail-on-regression defines a regression (compare/analyze.c):
    significant, more than 2% the wrong way, and its 95% interval wholly on
    that side of 1. (Seen in CI, 6.1 beside the 6.12 guest: fdouble64-clz /
    iter64 1.04 and 1.12 at n = 89, 90 with p_holm 0.009 and 0.03 but
    intervals [0.50, 1.92] and [0.46, 2.07]: a rank test's verdict on noise,
    not a slower algorithm.)"""
    def wrong_way(c):
        if c["ci_lo"] is None or c["ci_hi"] is None:
            return False
        if c["b"] == winner:
            return c["ratio"] > 1.02 and c["ci_lo"] > 1
        return c["b"] == loser and c["ratio"] < 0.98 and c["ci_hi"] < 1

    return [c for c in doc["compare"] if gtest.spurious(c, doc) and wrong_way(c)]


def winner_checks(name, doc, winner, loser, metric_note="", resolves=0.015):
    """`winner` is faster than `loser` (per n or across n), significantly slower at none."""
    cmp = doc["compare"]
    base = doc["settings"]["baseline"]
    faster = [c for c in cmp if c["significant"] and
              ((c["b"] == winner and c["ratio"] < 1) or (c["b"] == loser and c["ratio"] > 1))]
    wrong = reversals(doc, winner, loser)
    ratios = " ".join(f"n={c['n']}:{c['ratio']:.3f}(p={c['p_holm']:.2g})" for c in cmp)
    print(f"# {name}: baseline {base}{metric_note}: {ratios}", flush=True)
    # Per n, significant at most n; or, across n, a sign test: faster at
    # every one of 5 or more n has probability 2^-5 = 0.031 or less when
    # neither is faster (the n are measured independently). Under a busy
    # host a 3% difference can miss the per-n threshold at every n
    # (seen in CI: p = 0.075-0.11 at all 5 n, every ratio below 1).
    ahead = [c for c in cmp if (c["b"] == winner) == (c["ratio"] < 1)]
    sign_test = len(cmp) >= 5 and len(ahead) == len(cmp)
    # The host's noise, as the run measured it: the median half-width of the
    # ratios' 95% intervals. Wider than `resolves`, the run cannot show the
    # difference (seen in CI with both kernels' guests side by side: the u64
    # pair's ratios 0.99-1.03, p >= 0.11 at every n); then the order is not
    # asserted, and says why. A run that could show it and does not fails.
    noise = sorted((c["ci_hi"] - c["ci_lo"]) / 2 if c["ci_lo"] is not None and
                   c["ci_hi"] is not None else float("inf") for c in cmp)[len(cmp) // 2]
    detail = (f"{winner} significantly faster at {len(faster)} of {len(cmp)} n, "
              f"faster at {len(ahead)}: {ratios}; median 95% CI half-width {noise:.1%}")
    won = len(faster) * 2 > len(cmp) or sign_test
    if won or noise <= resolves:
        check(f"{name}.winner", won, detail)
    else:
        skip(f"{name}.winner", f"the host's noise exceeds the {resolves:.0%} this run can "
             f"resolve: {detail}")
    check(f"{name}.no_reversal", not wrong, f"significant the other way: {wrong[:3]}")


def device_order(a, b, ns, batches=25, calls=200, cpu=None):
    """Which of algorithms a, b computes F(n), n in ns, faster on this machine,
    by the device's own clock and not fibtrace's: FIBDRV_CALIB_COMPUTE times
    each untraced computation with ktime (fibdrv_main.c, calib_compute), here
    in batches of `calls`, a and b alternating, on the CPU fibtrace reads from.
    A paired sign test over the (n, batch) pairs decides, and a difference
    under 2% (the materiality of wrong_way) is no order. The ratio here is
    diluted towards 1 by the two ktime reads inside each timed call.
    Returns (winner or None, loser, detail)."""
    fds = {x: gtest.open_algo(x) for x in (a, b)}
    saved = os.sched_getaffinity(0)
    per = {(x, n): [] for x in (a, b) for n in ns}
    try:
        os.sched_setaffinity(0, {int(CPU) if cpu is None else cpu})
        for i in range(batches):
            for n in ns:
                for x in ((a, b) if i % 2 == 0 else (b, a)):
                    per[(x, n)].append(gtest.calibrate(fds[x], gtest.CALIB_COMPUTE, calls, n) / calls)
    finally:
        os.sched_setaffinity(0, saved)
        for fd in fds.values():
            os.close(fd)
    pairs = [(pa, pb) for n in ns for pa, pb in zip(per[(a, n)], per[(b, n)]) if pa != pb]
    k = sum(pb < pa for pa, pb in pairs)  # b faster
    m = len(pairs)
    tail = sum(math.comb(m, i) for i in range(max(k, m - k), m + 1)) / 2 ** m
    p = min(1.0, 2 * tail)
    ratios = [statistics.median(per[(b, n)]) / statistics.median(per[(a, n)]) for n in ns]
    ratio = statistics.median(ratios)
    detail = (f"device clock: {b} / {a} {ratio:.3f} (per n " + " ".join(f"{r:.3f}" for r in ratios)
              + f"), {b} faster in {k} of {m} paired batches, sign test p={p:.2g}")
    if p > 1e-3 or abs(ratio - 1) < 0.02:
        return None, None, detail
    return (b, a, detail) if ratio < 1 else (a, b, detail)


def main():
    kver = os.uname().release
    print(f"# fibtrace --compare on {kver}", flush=True)
    algos = dict(gtest.algorithms())
    need = {"bn-iter", "bn-fdouble", "iter64", "fdouble64", "fdouble64-clz"}
    if not need <= set(algos):
        skip("compare.algorithms", f"device lacks {sorted(need - set(algos))}")
        gtest.exit()

    # Usage errors: exit 2 before anything is loaded.
    bad = [
        (["--compare", "everything", "--sweep", "1:10"], "kind"),
        (["--compare", "algos"], "no_sweep"),
        (["--baseline", "iter64", "--sweep", "1:10"], "baseline_without_compare"),
        (["--compare", "algos", "--sweep", "1:10", "--outliers", "sigma2"], "outliers"),
        (["--compare", "algos", "--sweep", "1:10", "--metric", "cycles"], "metric"),
        (["--compare", "algos", "--sweep", "1:10", "--fail-on-regression", "-5"], "fail_pct"),
        (["--compare", "algos", "--sweep", "1:10", "--json", "--format", "benchfmt"], "json_benchfmt"),
        (["--compare", "algos", "--sweep", "1:10", "--algo", "iter64,fdouble64",
          "--baseline", "nosuch"], "baseline_unknown"),
        (["--compare", "algos", "--sweep", "0:200", "--algo", "iter64,bn-iter"], "beyond_max_n"),
        (["--compare", "algos", "--sweep", "0:10", "--algo", "iter64"], "one_variant"),
        (["--compare", "formats", "--sweep", "0:10", "--algo", "iter64,bn-iter"], "formats_two_algos"),
        (["--compare", "algos", "--sweep", "0:10", "--algo", "iter64,nosuch"], "unknown_algo"),
    ]
    for args, what in bad:
        rc, out, err = run(args, timeout=60)
        check(f"compare.usage.{what}", rc == 2 and err.strip() != "",
              f"exit {rc}, stderr {err.strip()[-200:]!r}")

    # --strict: the guest is virtualized, so it must refuse, with the reason.
    rc, out, err = run(["--compare", "algos", "--algo", "iter64,fdouble64", "--sweep", "0:10",
                        "--cpu", CPU, "--strict"], timeout=60)
    # (Under the instruction clock virtualization is no warning, ASLR and IRQs still are.)
    check("compare.strict.refuses", rc == 2 and "--strict: refusing" in err and out == ""
          and ("virtualization" in err) == (gtest.clock() == "real"),
          f"exit {rc}: {err.strip()[-300:]}")

    # A/A: one algorithm against itself, 20 n. With Holm over 20 comparisons at
    # 0.05, more than 2 significant n (10%) would mean the method is biased.
    ns = list(range(100, 2001, 100))
    rounds = 12
    doc, err = run_json("compare.aa", ["--compare", "algos", "--algo", "bn-fdouble,bn-fdouble",
                                       "--sweep", "100:2000:100", "--repeat", str(rounds),
                                       "--cpu", CPU, "--fail-on-regression", "5",
                                       "--plot", PLOT], confirm=True)
    if doc:
        check_counts("compare.aa", doc, ["bn-fdouble", "bn-fdouble#2"], ns, rounds)
        sig = [c["n"] for c in doc["compare"] if c["significant"]]
        bad = [c["n"] for c in doc["compare"] if gtest.spurious(c, doc)]
        print(f"# compare.aa: {len(sig)} of {len(ns)} n significant {sig}; geomean "
              f"{doc['summary'][0]['geomean_ratio']:.4f}; clock {doc['meta']['clock']}",
              flush=True)
        # Instruction counts: the same code costs the same, not one n may differ.
        # Real clock: none at a Holm p of 1e-4 or less (gtest.spurious).
        check("compare.aa.false_positives", not bad,
              f"{len(bad)} of {len(ns)} n different: {bad}")
        hy = {h["check"]: h for h in doc["hygiene"]}
        check("compare.hygiene.checks", list(hy) == HYGIENE, str(list(hy)))
        want = "info" if doc["meta"]["clock"] == "instructions" else "warn"
        check("compare.hygiene.virtualized",
              hy.get("virtualization", {}).get("status") == want and
              doc["settings"]["decision"] == ("exact" if want == "info" else "tests"),
              f"{hy.get('virtualization')}, decision {doc['settings']['decision']}")
        check("compare.hygiene.pinned", hy.get("pinned-cpu", {}).get("status") == "ok",
              str(hy.get("pinned-cpu")))
        # Each hygiene warning is one of the JSON's warnings too (virtualization
        # is one only on the real clock; ASLR warns under both).
        check("compare.hygiene.meta_warnings",
              all(any(w.startswith(f"hygiene: {h['check']}:") for w in doc["meta"]["warnings"])
                  for h in doc["hygiene"] if h["status"] == "warn") and
              any(w.startswith("hygiene: aslr") for w in doc["meta"]["warnings"]),
              str(doc["meta"]["warnings"]))
    try:
        with open(PLOT) as f:
            svg = f.read()
        check("compare.plot.svg", "<svg" in svg and "bn-fdouble#2" in svg, f"{len(svg)} bytes")
        os.unlink(PLOT)
    except OSError as e:
        check("compare.plot.svg", False, str(e))

    # Known order, n around 5000: fast doubling beats the addition loop by far.
    # With bn-fdouble as the baseline, bn-iter is the regression: exit 8.
    ns = list(range(4800, 5201, 100))
    doc, err = run_json("compare.bn", ["--compare", "algos", "--algo", "bn-fdouble,bn-iter",
                                       "--sweep", "4800:5200:100", "--repeat", "10", "--cpu", CPU,
                                       "--fail-on-regression", "20"], want_rc=8)
    if doc:
        check_counts("compare.bn", doc, ["bn-fdouble", "bn-iter"], ns, 10)
        winner_checks("compare.bn", doc, "bn-fdouble", "bn-iter")
        check("compare.bn.regression_named",
              re.search(r"regression: bn-iter is [0-9.]+% slower than bn-fdouble at n = \d+", err)
              is not None, err.strip()[-300:])

    # Known order, n near 90, on the compute stage (the whole read is ~15 us
    # of fixed costs under TCG): fast doubling from the top set bit (7 steps)
    # against the same from bit 63 (64 steps), the clz lesson of fibdrv. Not
    # iter64 against fdouble64-clz: there the arithmetic differs by about
    # 100 ns, while the emulator's speed jumps between two modes about 400 ns
    # apart per call (device clock, 6.12 guest: iter64 600-1250 ns, with n
    # 40 and 88 alike), and a run in CI found iter64 the faster at four n.
    # The read path only (--no-discover): with every function traced, the
    # compute stage holds traced calls whose calibrated cost and its error
    # would be subtracted from the work compared.
    ns = list(range(88, 93))
    winner, loser, why = device_order("fdouble64", "fdouble64-clz", ns)
    print(f"# compare.u64: {why}", flush=True)
    # 57 doubling steps fewer must show on the device's own clock too.
    check("compare.u64.device_order", winner == "fdouble64-clz", why)
    # Under emulation a code path's speed also depends on where unrelated
    # code lands, and each run JITs the tracer's programs and trampolines to
    # new addresses: in one 6.1 boot (2026-11-27, a 6.12 guest beside it),
    # 18 of 20 runs found fdouble64-clz 9-18% faster at every n, one 4-6%
    # at n = 89-92 against 12% at 88, and one reversed at 89-92 only, its
    # cells stable over 60 rounds (fdouble64 1005-1060 ns, clz 1136-1166
    # ns; at 88 1186 and 964), while the device clock said 15-18% faster
    # before every run. So a reversal is measured again, in a new run; the
    # checks below judge that run, and fail if it reverses too.
    u64 = ["--compare", "algos", "--algo", "fdouble64,fdouble64-clz", "--sweep", "88:92",
           "--repeat", "60", "--cpu", CPU, "--metric", "compute", "--no-discover"]
    doc, err = run_json("compare.u64", u64)
    first = reversals(doc, winner, loser) if doc and winner else []
    if first:
        print("# compare.u64: reversed at n = " +
              ", ".join(f"{c['n']} ({c['ratio']:.3f})" for c in first) +
              " against the device clock; measuring again with the tracer's code at new "
              "addresses", flush=True)
        doc, err = run_json("compare.u64.again", u64)
    if doc:
        check_counts("compare.u64", doc, ["fdouble64", "fdouble64-clz"], ns, 60)
        check("compare.u64.metric", doc["settings"]["metric"] == "compute", doc["settings"]["metric"])
        if winner:
            winner_checks("compare.u64", doc, winner, loser, " (compute stage)")

    # Formats, Go benchmark lines: exactly one line per read, all parse.
    rc, out, err = run(["--compare", "formats", "--algo", "bn-fdouble", "--sweep", "1000:3000:1000",
                        "--repeat", "5", "--cpu", CPU, "--format", "benchfmt"])
    check("compare.benchfmt.exit", rc == 0, f"exit {rc}: {err.strip()[-300:]}")
    lines = [ln for ln in out.splitlines() if ln.startswith("Benchmark")]
    unparsed = [ln for ln in lines if not BENCH_RE.match(ln)]
    check("compare.benchfmt.parse", lines and not unparsed, f"unparsed: {unparsed[:3]}")
    keys = sorted((m.group(2), int(m.group(3))) for m in map(BENCH_RE.match, lines) if m)
    want = sorted((f, n) for f in ("dec", "bin") for n in (1000, 2000, 3000) for _ in range(5))
    check("compare.benchfmt.lines", keys == want, f"{len(keys)} lines, want {len(want)}")
    config = [ln for ln in out.splitlines() if ln and not ln.startswith("Benchmark")]
    check("compare.benchfmt.config",
          all(re.match(r"^[a-z][a-z0-9-]*: ", ln) for ln in config)
          and any(ln.startswith("hygiene-virtualization: " +
                                ("info" if gtest.clock() == "instructions" else "warn"))
                  for ln in config),
          str(config[:12]))

    # Text: many n grouped into at most --rows rows, a summary line per candidate.
    rc, out, err = run(["--compare", "algos", "--algo", "iter64,fdouble64", "--sweep", "0:93",
                        "--repeat", "3", "--cpu", CPU, "--rows", "10", "--outliers", "keep"])
    check("compare.text.exit", rc == 0, f"exit {rc}: {err.strip()[-300:]}")
    rows = [ln for ln in out.splitlines() if re.match(r"^\d+-\d+ \(\d+\)", ln)]
    check("compare.text.rows", len(rows) == 10 and sum(int(re.search(r"\((\d+)\)", r).group(1))
                                                       for r in rows) == 94,
          f"{len(rows)} group rows:\n" + out[:800])
    check("compare.text.hygiene", out.count("\nhygiene: ") == len(HYGIENE), out[:800])
    check("compare.text.outliers", "outliers (keep" in out and "removed 0 of 564 reads" in out,
          out[:900])
    check("compare.text.summary", re.search(r"^geomean fdouble64 / iter64: ", out, re.M) is not None,
          out[-600:])

    # Counters (-e) in a comparison: fibtrace reads into its own locked,
    # already touched buffer, so page faults inside fib_read are exactly 0.
    rc, out, err = run(["--compare", "algos", "--algo", "iter64,fdouble64", "--sweep", "10:12",
                        "--repeat", "3", "--metric", "counter"])
    check("compare.counter.needs-event", rc == 2 and "--metric counter needs" in err,
          f"exit {rc}: {err.strip()[-300:]}")
    doc, err = run_json("compare.counter", ["--compare", "algos", "--algo", "iter64,fdouble64",
                                            "--sweep", "10:12", "--repeat", "4", "--cpu", CPU,
                                            "-e", "page-faults"])
    if doc:
        cells = doc["stats"]
        check("compare.counter.cells", len(cells) == 6 and
              all(s["medians"].get("counter") == 0 for s in cells),
              str([s["medians"] for s in cells][:3]))
        # A read whose counters could not be paired is left out and counted;
        # a visit counts when one of its reads_per_visit reads is kept.
        visits, per = sum(s["count"] for s in cells), doc["settings"]["reads_per_visit"]
        check("compare.counter.reads", visits <= 24 and
              (24 - visits) * per <= doc["settings"]["unmatched_reads"] and
              doc["meta"]["sweep"]["reads_issued"] == 24 * per,
              f"counts {[s['count'] for s in cells]}, unmatched {doc['settings']['unmatched_reads']}")
    rc, out, err = run(["--compare", "algos", "--algo", "iter64,fdouble64", "--sweep", "10:11",
                        "--repeat", "2", "-e", "page-faults", "--metric", "counter",
                        "--outliers", "keep", "--format", "benchfmt"])
    lines = [ln for ln in out.splitlines() if ln.startswith("Benchmark")]
    check("compare.counter.benchfmt", rc == 0 and 1 <= len(lines) <= 8 and all(
        re.search(r" 1 0 page-faults/op .* kernel-ns/op", ln) for ln in lines),
        f"exit {rc}: {err.strip()[-200:]} {lines[:2]}")
    gtest.exit()


if __name__ == "__main__":
    gtest.run(main)
