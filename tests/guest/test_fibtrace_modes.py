#!/usr/bin/python3
"""fibtrace modes and errors in the guest: --kprobe gives the same counts as
fentry, algorithm ids through CO-RE, nested (Karatsuba/Toom-3) calls counted
exactly like the user-space build of the library, command / pid / duration /
interval modes, CSV, linear and sub-bucket histograms, plots, and the
documented exit statuses. Runs as root with fibdrv loaded.
"""
import fnmatch
import json
import os
import re
import selectors
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtest  # noqa: E402
import test_fibtrace_views as views  # noqa: E402
from gtest import check, skip  # noqa: E402

FIBTRACE = os.path.abspath("build/fibtrace")
KVER = os.uname().release
KO = f"build/{KVER}/fibdrv.ko"
GETPPID = ["/usr/bin/python3", "-c", "import os\nfor _ in range(1000): os.getppid()"]


def getppid_target():
    """The traceable vmlinux function each getppid() calls once, as a one-match glob.

    __x64_sys_getppid where ftrace lists it, else another *sys_getppid it
    lists (not ia32's); (None, why) when there is none."""
    try:
        with open("/sys/kernel/tracing/available_filter_functions") as f:
            listed = {line.split()[0] for line in f if line.strip()}
    except OSError as e:
        return None, f"no available_filter_functions: {e}"
    cands = sorted((n for n in listed if n.endswith("sys_getppid") and "ia32" not in n),
                   key=lambda n: (not n.startswith("__x64_"), n))
    for name in cands:
        if kallsyms_matching("", name[:-1] + "*") == {name}:
            return name, name[:-1] + "*"
    return None, f"no traceable *sys_getppid in available_filter_functions ({cands})"


READER = ("import os,sys; fd=os.open('/dev/fibonacci', os.O_RDONLY); "
          "[(os.lseek(fd, n, 0), os.read(fd, 4096)) for n in range(int(sys.argv[1]))]")


def run(args, timeout=300, pre=()):
    p = subprocess.run(list(pre) + [FIBTRACE] + args, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def run_json(name, args):
    """A --json run: its document, or None (failed checks say why); its seconds for the log."""
    t0 = time.monotonic()
    rc, out, err = run(["--json"] + args)
    secs = time.monotonic() - t0
    if not check(f"{name}.exit", rc == 0, f"exit {rc}: {err.strip()[-300:]}"):
        return None
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(f"{name}.parse", False, str(e))
        return None
    su = doc["meta"].get("startup", {})
    print(f"# {name}: {secs:.1f} s (start-up {su.get('total_s', 0):.1f}: discover "
          f"{su.get('discover_s', 0):.1f}, load {su.get('load_s', 0):.1f}, attach "
          f"{su.get('attach_s', 0):.1f}, calibrate {su.get('calibrate_s', 0):.1f}; detach "
          f"{su.get('detach_s', 0):.1f})", flush=True)
    return doc


def funcs(doc):
    return {f["name"]: f for f in doc["functions"]}


def hist_sums_ok(doc):
    return all(sum(h["count"] for h in f["hist"]) == f["count"] for f in doc["functions"])



FIBCOUNT = os.path.abspath("build/tests/fibcount")


def usercount(n):
    """Calls of bn_{sqr,mul}_karatsuba and bn_{sqr,mul}_n for one read of F(n) by
    bn-fdouble-karatsuba (compute, then decimal formatting as fibdrv_format
    does), from the user-space build of the same sources with
    -finstrument-functions (tests/guest/fibcount.c, built on the host by
    make all: compiling the library in the emulated guest took about a
    minute). ({name: calls}, "") or (None, why)."""
    if not os.access(FIBCOUNT, os.X_OK):
        return None, f"{FIBCOUNT} not built (make all builds it)"
    p = subprocess.run([FIBCOUNT, str(n)], capture_output=True, text=True, timeout=60)
    if p.returncode:
        return None, f"fibcount exit {p.returncode}: {p.stderr.strip()[-200:]}"
    return {k: int(v) for k, v in (line.split() for line in p.stdout.splitlines())}, ""


NESTED = ["bn_sqr_karatsuba", "bn_mul_karatsuba", "bn_sqr_n", "bn_mul_n"]
OUTSIDE_READ = {"fib_llseek", "fib_open", "fib_release", "fib_write", "fib_ioctl",
                "fib_algo_find", "fib_algo_default"}


def nested_checks(name, doc, exact=False):
    """Nested calls in a run of views.TREE_SWEEP: self within total, the self
    times inside fib_read adding up to its total, no frame lost, and (@exact)
    the Karatsuba recursion counted exactly like the user-space build."""
    fs = funcs(doc)
    bad = [f["name"] for f in doc["functions"] if f["self_ns"] > f["total_ns"]]
    check(f"{name}.self_le_total", not bad, str(bad))
    inside = sum(f["self_ns"] for f in doc["functions"]
                 if f["module"] == "fibdrv" and f["name"] not in OUTSIDE_READ)
    check(f"{name}.self_sum", inside == fs["fib_read"]["total_ns"],
          f"sum of self {inside} != fib_read total {fs['fib_read']['total_ns']}")
    check(f"{name}.no_overflow", doc["lost"]["stack_overflow"] == 0 and
          doc["lost"]["unmatched_exit"] == 0, str(doc["lost"]))
    sk = fs.get("bn_sqr_karatsuba", {})
    check(f"{name}.recursion.self_lt_total",
          sk.get("count", 0) and sk["self_ns"] < sk["total_ns"], str(sk)[:200])
    if not exact:
        return
    rounds = views.TREE_READS // len(views.TREE_N)
    want = dict.fromkeys(NESTED, 0)
    for n in views.TREE_N:
        per, why = usercount(n)
        if per is None or sorted(per) != sorted(NESTED):
            check(f"{name}.recursion.exact", False, f"no user-space counts: {why or per}")
            return
        for k in NESTED:
            want[k] += per[k] * rounds
    got = {k: fs[k]["count"] for k in NESTED if k in fs}
    check(f"{name}.recursion.exact", got == want and want["bn_sqr_karatsuba"] > 0,
          f"traced {got} != user space {want} (n {views.TREE_N}, {rounds} rounds)")


def kallsyms_matching(module, pattern):
    """Text symbols of /proc/kallsyms in @module ("" for vmlinux) matching @pattern."""
    found = set()
    with open("/proc/kallsyms") as f:
        for line in f:
            parts = line.split()
            mod = parts[3].strip("[]") if len(parts) > 3 else ""
            if parts[1] in "tT" and mod == module and fnmatch.fnmatchcase(parts[2], pattern):
                found.add(parts[2])
    return found


def globs():
    """-f globs: resolved against kallsyms, exact counts, none and too many refused."""
    name, pat = getppid_target()
    if name is None:
        skip("glob.vmlinux", pat)
    else:
        doc = run_json("glob.vmlinux", ["--no-discover", "-f", "vmlinux:" + pat, "--"]
                       + GETPPID)
        if doc:
            fs = funcs(doc)
            got = fs.get(name, {}).get("count")
            check("glob.vmlinux.exact", got == 1000 and len(fs) == 6,
                  f"{name} count {got} (want 1000 getppid() calls); traced {sorted(fs)}")
    want = {n for n in kallsyms_matching("fibdrv", "bn_mul_*")}
    doc = run_json("glob.module", ["--no-discover", "-f", "fibdrv:bn_mul_*", "--sweep",
                                   "10000:10000"])
    if doc:
        got = {f["name"] for f in doc["functions"] if f["name"].startswith("bn_mul_")}
        check("glob.module.resolved", got == want and len(want) > 3,
              f"traced {sorted(got)}, kallsyms has {sorted(want)}")
    # Given twice, -f adds to the list (it used to keep only the last one, silently).
    doc = run_json("glob.repeated", ["--no-discover", "-f", "fibdrv:bn_add", "-f",
                                     "fibdrv:bn_add_1", "--sweep", "1000:1000"])
    if doc:
        got = {f["name"] for f in doc["functions"] if f["name"].startswith("bn_")}
        check("glob.repeated", got == {"bn_add", "bn_add_1"}, f"traced {sorted(got)}")
    rc, out, err = run(["--no-discover", "-f", "no_such_prefix_xyz_*", "-d", "0.1"])
    check("glob.none", rc == 5 and "matches no function" in err, f"exit {rc}: {err.strip()}")
    rc, out, err = run(["-f", "*", "-d", "0.1"])
    check("glob.too_many", rc == 2 and "slots left" in err, f"exit {rc}: {err.strip()[-300:]}")


def symbol_cache():
    """The kernel tables kept in /run/fibtrace between runs (src/fibtrace/symbols/ksyms_cache.c):
    read from the kernel and kept (0600 in a 0700 directory), then read back
    with the same targets and counts; not with --no-symbol-cache; and never
    stale: with another module loaded its symbols are there (fibdrv_a from
    the test builds), and once it is gone again they are not."""
    cache = "/run/fibtrace/ksyms"
    if os.path.exists(cache):
        os.unlink(cache)
    args = ["--no-discover", "-f", "fibdrv:bn_add*", "--sweep", "0:20"]
    docs = [run_json(f"symcache.{i}", args) for i in (1, 2)]
    if not all(docs):
        return
    src = [d["meta"]["startup"]["symbols"] for d in docs]
    st, dst = os.stat(cache) if os.path.exists(cache) else None, os.stat(os.path.dirname(cache))
    check("symcache.kept", src[0] == "kernel" and st is not None and
          st.st_mode & 0o777 == 0o600 and dst.st_mode & 0o777 == 0o700,
          f"first run's symbols from the {src[0]}; {cache}: "
          f"{oct(st.st_mode) if st else 'missing'}, directory {oct(dst.st_mode)}")
    same = [sorted((f["name"], f["attach"], f["count"]) for f in d["functions"]) for d in docs]
    check("symcache.hit", src[1] == "cache" and same[0] == same[1],
          f"second run's symbols from the {src[1]}; functions {same[0][:4]} / {same[1][:4]}")
    fd = os.open("/dev/fibonacci", os.O_RDONLY)  # fibdrv's use count moves: not in the key
    try:
        doc = run_json("symcache.device_open", args)
    finally:
        os.close(fd)
    if doc:
        got = doc["meta"]["startup"]["symbols"]
        check("symcache.device_open.hit", got == "cache", f"symbols from the {got}")
    doc = run_json("symcache.off", ["--no-symbol-cache"] + args)
    if doc:
        got = doc["meta"]["startup"]["symbols"]
        check("symcache.off", got == "kernel (--no-symbol-cache)", got)
    ko = f"build/{os.uname().release}/builds/fibdrv_a.ko"
    if not os.path.exists(ko):
        skip("symcache.module_loaded", f"{ko} not built (make test builds it)")
        return
    probe = ["--no-discover", "-f", "fibdrv_a:fib_read", "--sweep", "0:1"]
    if subprocess.run(["insmod", ko]).returncode != 0:
        check("symcache.module_loaded", False, f"insmod {ko} failed")
        return
    try:
        doc = run_json("symcache.module_loaded", probe)
        got = doc and doc["meta"]["startup"]["symbols"]
        check("symcache.module_loaded.fresh", got == "kernel", f"symbols from the {got}")
    finally:
        subprocess.run(["rmmod", "fibdrv_a"])
    rc, out, err = run(probe)
    check("symcache.module_gone", rc == 5 and "fibdrv_a" in err and "not in /proc/kallsyms" in err,
          f"exit {rc}: {err.strip()[-300:]}")


def symbol_cache_churn():
    """Issue 50: a module loaded and unloaded in a loop while runs read the
    kernel's tables. A run reads them again until the modules' key is the
    same after a read as before it, and keeps only such tables (ksyms.c,
    load_files); whatever was kept, the next run, the churn over, attaches
    exactly: its calls per function equal those of a run that reads the
    kernel (--no-symbol-cache)."""
    ko = f"build/{os.uname().release}/builds/fibdrv_a.ko"
    if not os.path.exists(ko):
        skip("symcache.churn", f"{ko} not built (make test builds it)")
        return
    cache = "/run/fibtrace/ksyms"
    if os.path.exists(cache):
        os.unlink(cache)
    stop, cycles = threading.Event(), [0, 0]

    def churn():
        while not stop.is_set():
            ok = subprocess.run(["insmod", ko], capture_output=True).returncode == 0
            ok = subprocess.run(["rmmod", "fibdrv_a"], capture_output=True).returncode == 0 and ok
            cycles[ok] += 1
    args = ["--no-discover", "-f", "fibdrv:bn_*", "--sweep", "0:300:10"]
    t = threading.Thread(target=churn)
    t.start()
    during = []
    try:
        for i in range(3):
            during.append(run(["--json"] + args))
    finally:
        stop.set()
        t.join()
    # Each run reads its tables again until a read holds still (ksyms.c):
    # it succeeds, or, when the modules changed during all ten reads and
    # fibdrv is missing from the last, says so (exit 4), never that fibdrv
    # is not loaded.
    sources = []
    for i, (rc, out, err) in enumerate(during):
        if rc == 0:
            sources.append(json.loads(out)["meta"]["startup"]["symbols"])
        check(f"symcache.churn.during{i}", rc == 0 or
              (rc == 4 and "changed during each of 10 reads" in err),
              f"exit {rc}: {err.strip()[-300:]}")
    print(f"# symcache.churn: {cycles[1]} load/unload cycles ({cycles[0]} failed) during "
          f"three runs, whose tables came from: {sources}")
    check("symcache.churn.cycled", cycles[1] > 0 and cycles[0] == 0,
          f"{cycles[1]} cycles, {cycles[0]} failed")
    after = run_json("symcache.churn.after", args)
    truth = run_json("symcache.churn.truth", ["--no-symbol-cache"] + args)
    if not (after and truth):
        return
    calls = [sorted((f["name"], f["attach"], f["count"]) for f in d["functions"])
             for d in (after, truth)]
    check("symcache.churn.exact", calls[0] == calls[1] and len(calls[0]) > 5,
          f"from the {after['meta']['startup']['symbols']}: {len(calls[0])} functions; "
          f"differ: {sorted(set(calls[0]) ^ set(calls[1]))[:6]}")


def no_fibdrv_glob():
    """Without fibdrv, -f kernel functions alone are traced (fibdrv unloaded by the caller)."""
    name, pat = getppid_target()
    if name is None:
        skip("no_fibdrv", pat)
        return
    rc, out, err = run(["-f", "vmlinux:" + pat, "--"] + GETPPID)
    check("no_fibdrv.glob", rc == 0 and gtest.text_count(out, name) == 1000 and
          "fibdrv not loaded" in out and "fibdrv is not loaded" in err,
          f"exit {rc}: {out[-600:]!r} {err.strip()[-300:]!r}")
    doc = run_json("no_fibdrv.json", ["-f", "vmlinux:" + pat, "--"] + GETPPID)
    if doc:
        fs = funcs(doc)
        check("no_fibdrv.json.read_path_absent",
              fs[name]["count"] == 1000 and fs["fib_read"]["count"] == 0 and
              fs["fib_read"]["attach"] == "none", str({k: fs[k]["count"] for k in fs}))


def report_before_detach():
    """The text report is out before the probes go (issue 49): its last byte is
    readable no later than stderr's 'probes detached in' line, written once the detach
    has ended (every chunk read in one pass of select() gets that pass's time); the
    header does not claim a detach time it cannot know yet."""
    p = subprocess.Popen([FIBTRACE, "--no-discover", "--sweep", "0:300:10"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ, "out")
    sel.register(p.stderr, selectors.EVENT_READ, "err")
    data = {"out": b"", "err": b""}
    last_out, detached, t0 = None, None, time.monotonic()
    while sel.get_map() and time.monotonic() - t0 < 600:
        ready = sel.select(timeout=1)
        now = time.monotonic()
        for key, _ in ready:
            chunk = os.read(key.fileobj.fileno(), 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            data[key.data] += chunk
            if key.data == "out":
                last_out = now
            elif detached is None and b"probes detached in" in data["err"]:
                detached = now
    rc = p.wait(timeout=60)
    out = data["out"].decode(errors="replace")
    check("report.before_detach", rc == 0 and last_out is not None and detached is not None
          and last_out <= detached and "detached in" not in out,
          f"exit {rc}, last report bytes at {last_out}, detached at {detached}")


def main():
    algos = [a for a, _ in gtest.algorithms()]

    # fentry and kprobe: the same counts for every function, at n = 90, 10045
    # and 20000 (Karatsuba recursion, nested twice at 20000), and the nested
    # calls counted exactly (nested_checks). The runs are also the views
    # test's fentry and kprobe trees (test_fibtrace_views.fentry_tree,
    # kprobe_tree): one full-set attach and detach each, 10-30 s under
    # emulation, not two.
    folded = f"build/vm/tree-{KVER}.folded"
    if os.path.exists(folded):
        os.unlink(folded)
    sweep, reads = views.TREE_SWEEP, views.TREE_READS
    fe = run_json("modes.fentry", views.FENTRY_TREE_ARGS + ["--folded", folded])
    if fe:
        views.fentry_tree(fe, folded)
        nested_checks("nested.fentry", fe, exact=True)
    kp = run_json("modes.kprobe", ["--kprobe"] + sweep)
    if kp:
        views.kprobe_tree(kp)
        nested_checks("nested.kprobe", kp)
    if fe and kp:
        check("modes.kprobe.attach", kp["meta"]["attach"] == "kprobe" and all(
            f["attach"] in ("kprobe", "none") for f in kp["functions"]),
            str(kp["meta"]["attach_counts"]))
        cf = {f["name"]: f["count"] for f in fe["functions"]}
        ck = {f["name"]: f["count"] for f in kp["functions"]}
        diff = {k: (cf.get(k), ck.get(k)) for k in set(cf) | set(ck) if cf.get(k) != ck.get(k)}
        check("modes.kprobe.same_counts", not diff, str(sorted(diff.items())[:6]))
        check("modes.kprobe.fib_read", ck.get("fib_read") == reads,
              f"{ck.get('fib_read')} != {reads}")
        check("modes.kprobe.hist_sums", hist_sums_ok(kp))
        lost = {k: v for k, v in kp["lost"].items() if v}
        check("modes.kprobe.lost.zero", not lost, str(lost))

    # kprobe.multi: the same counts as fentry, from two programs.
    if fe and gtest.has_kprobe_multi():
        mu = run_json("modes.multi", ["--attach", "multi"] + sweep)
        if mu:
            nested_checks("nested.multi", mu)
            su = mu["meta"]["startup"]
            check("modes.multi.plan", su["plan"] == "kprobe.multi" and su["programs"] == 2 and
                  mu["meta"]["attach"] == "kprobe.multi", str(su))
            cf = {f["name"]: f["count"] for f in fe["functions"]}
            cm = {f["name"]: f["count"] for f in mu["functions"]}
            diff = {k: (cf.get(k), cm.get(k)) for k in set(cf) | set(cm)
                    if cf.get(k) != cm.get(k)}
            check("modes.multi.same_counts", not diff, str(sorted(diff.items())[:6]))
            check("modes.multi.fib_read", cm.get("fib_read") == reads,
                  f"{cm.get('fib_read')} != {reads}")
            check("modes.multi.hist_sums", hist_sums_ok(mu))
            lost = {k: v for k, v in mu["lost"].items() if v}
            check("modes.multi.lost.zero", not lost, str(lost))
        # auto weighs per-call cost against start-up (plan.c, ft_plan_weigh):
        # 250,000 reads through the read path alone make at least 10^6 traced
        # calls, past the ~660,000 at which fentry's calls, ~1,100
        # instructions cheaper, repay its slower start and detach.
        swept = run_json("modes.auto.long_sweep", ["--no-discover", "--sweep", "0:9", "--repeat",
                                                  "25000"])
        if swept:
            su = swept["meta"]["startup"]
            check("modes.auto.long_sweep.fentry", su["plan"] == "fentry" and
                  "250000 reads" in su["reason"] and
                  funcs(swept)["fib_read"]["count"] == 250000,
                  f"{su}; fib_read {funcs(swept)['fib_read']['count']}")
    elif fe:
        rc, out, err = run(["--attach", "multi", "--no-discover", "-d", "1"])
        check("modes.multi.unavailable", rc == 2 and "no kprobe.multi" in err,
              f"exit {rc}: {err.strip()[-300:]}")

    # Algorithms: algo_id read through CO-RE from file->private_data.
    pick = [a for a in ("bn-iter", "bn-fdouble") if a in algos] or algos[:2]
    doc = run_json("modes.algo", ["--no-discover", "--sweep", "10:19", "--algo", ",".join(pick)])
    if doc:
        got = sorted({(r["algo"], r["n"], r["count"]) for r in doc["per_n"]})
        want = sorted({(a, n, 1) for a in pick for n in range(10, 20)})
        check("modes.algo.per_n", got == want, f"{got[:4]} ... vs {want[:4]} ...")
        check("modes.algo.ids", all(algos[r["algo_id"]] == r["algo"] for r in doc["per_n"]))

    # Command mode, pid filter, duration and interval.
    cmd = ["--", "/usr/bin/python3", "-c", READER, "10"]
    doc = run_json("modes.command", ["--no-discover"] + cmd)
    if doc:
        check("modes.command.count", funcs(doc)["fib_read"]["count"] == 10 and
              doc["meta"]["mode"] == "command", str(funcs(doc)["fib_read"]["count"]))
    doc = run_json("modes.pid", ["--no-discover", "-p", "1"] + cmd)
    if doc:
        check("modes.pid.filtered", funcs(doc)["fib_read"]["count"] == 0)
    rc, out, err = run(["--no-discover", "-d", "1.2", "-i", "0.5"])
    check("modes.interval", rc == 0 and out.count("fibtrace: kernel") >= 2,
          f"exit {rc}, {out.count('fibtrace: kernel')} reports")
    rc, out, err = run(["--no-discover", "--", "/bin/false"])
    check("exit.child_failed", rc == 7, f"exit {rc}")
    report_before_detach()

    globs()
    symbol_cache()
    symbol_cache_churn()

    # Histograms: linear and sub-buckets keep sums equal to counts.
    doc = run_json("hist.linear", ["--no-discover", "--linear", "0:200000:2000",
                                   "--sweep", "0:30"])
    if doc:
        check("hist.linear.sums", doc["meta"]["hist"]["type"] == "linear" and hist_sums_ok(doc))
    doc = run_json("hist.bits", ["--no-discover", "--hist-bits", "3", "--sweep", "0:30"])
    if doc:
        check("hist.bits.sums", hist_sums_ok(doc) and doc["meta"]["hist"]["sub_bits"] == 3)

    # CSV and plots.
    rc, out, err = run(["--csv", "--no-discover", "--sweep", "0:9"])
    blocks = out.strip().split("\n\n")
    check("csv.tables", rc == 0 and len(blocks) == 2 and len(blocks[1].splitlines()) == 11
          and blocks[0].startswith("function,"), out[:300])
    # PNG here; SVG (the same terminal choice, src/lib/gnuplot.c, with its
    # labels read back) in test_fibtrace_compare.py: a gnuplot run costs
    # 4-12 s in the guest.
    path = f"build/vm/fibtrace-test-{os.uname().release}.png"
    if os.path.exists(path):
        os.unlink(path)
    rc, out, err = run(["--no-discover", "--sweep", "0:60:5", "--algo", ",".join(pick),
                        "--plot", path])
    head = b""
    if os.path.exists(path):
        with open(path, "rb") as f:
            head = f.read(8)
    ok = rc == 0 and head == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 1000
    check("plot.png", ok, f"exit {rc}, starts {head!r}: {err.strip()[-200:]}")

    # Exit statuses (docs/fibtrace.md).
    for name, args, want in (("usage.sweep", ["--sweep", "5:1"], 2),
                             ("usage.bits", ["--hist-bits", "9"], 2),
                             ("usage.flag", ["--no-such-flag"], 2),
                             ("usage.algo", ["--sweep", "0:1", "--algo", "nope"], 2),
                             ("usage.save_csv_compare", ["--compare", "algos", "--sweep", "0:1",
                                                         "--save-csv", "/tmp/x.csv"], 2),
                             ("usage.save_interval", ["-d", "1", "-i", "1", "--save-json",
                                                      "/tmp/x.json"], 2),
                             ("unknown_func", ["--no-discover", "-f", "no_such_func_xyz"], 5)):
        rc, out, err = run(args)
        check(f"exit.{name}", rc == want, f"exit {rc}, want {want}: {err.strip()[-200:]}")
    rc, out, err = run(["--no-discover", "-d", "1"],
                       pre=["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            "--inh-caps=-all"])
    check("exit.not_root", rc == 3, f"exit {rc}: {err.strip()[-200:]}")

    # fibdrv not loaded -> 4 with a hint; --load loads it.
    if subprocess.run(["rmmod", "fibdrv"]).returncode == 0:
        try:
            rc, out, err = run(["--no-discover", "--sweep", "0:1"])
            check("exit.no_fibdrv", rc == 4 and "insmod" in err, f"exit {rc}: {err.strip()}")
            no_fibdrv_glob()
            rc, out, err = run(["--no-discover", "--load", KO, "--sweep", "0:3"])
            check("load.insmod", rc == 0 and os.path.exists("/sys/module/fibdrv") and
                  "count 4," in out, f"exit {rc}: {err.strip()[-200:]}")
        finally:
            if not os.path.exists("/sys/module/fibdrv"):
                subprocess.run(["insmod", KO])
    else:
        skip("exit.no_fibdrv", "rmmod fibdrv failed")
    gtest.exit()


if __name__ == "__main__":
    main()
