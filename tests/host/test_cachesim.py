#!/usr/bin/python3
"""fibtrace --cachesim on the host: no root, no BPF, no guest.

Against independent truth: two runs give identical counts; the simulator's
own invariants (Bcm <= Bc, D1mr <= Dr, last-level misses <= L1 misses,
every function's counts <= the run's); the library's functions add up to the
library totals; fib_compute is called exactly once per read; the orders the
algorithms' designs imply (iteration executes more instructions than fast
doubling at n = 1000; Karatsuba fewer than schoolbook squaring at n = 10^5);
the library's share of the reads' instructions; a smaller D1 misses more; the
documents against docs/cachesim.schema.json; bad input exits with a clear
message; as root under sudo (SUDO_UID/SUDO_GID 65534), valgrind runs as that
user and the files written for them (the plot, callgrind's output kept by
-v) are theirs, and a valgrind in a directory others can write is not run;
--user 65534 and --user root take precedence over sudo's user. Prints PASS/FAIL/SKIP lines for tests/run.sh.
"""
import csv
import io
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIBTRACE = os.path.join(TOP, "build", "fibtrace")
EVENTS = ["Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim"]
# (smaller, larger): the first never exceeds the second
ORDERED = [("Bcm", "Bc"), ("Bim", "Bi"), ("D1mr", "Dr"), ("D1mw", "Dw"), ("I1mr", "Ir"),
           ("DLmr", "D1mr"), ("DLmw", "D1mw"), ("ILmr", "I1mr")]
failed = 0


def result(ok, name, detail=""):
    global failed
    status = "PASS" if ok is True else "SKIP" if ok is None else "FAIL"
    failed += status == "FAIL"
    print(f"{status} host/cachesim.{name}{': ' + detail if detail else ''}", flush=True)


def run(args, env=None):
    p = subprocess.run([FIBTRACE] + args, capture_output=True, text=True, timeout=600, env=env)
    return p.returncode, p.stdout, p.stderr


def doc(args):
    rc, out, err = run(args + ["--json"])
    if rc:
        raise RuntimeError(f"fibtrace {' '.join(args)}: exit {rc}: {err.strip()[-300:]}")
    return json.loads(out)


def schema_errors(d):
    try:
        import jsonschema
    except ImportError:
        return None
    with open(os.path.join(TOP, "docs", "cachesim.schema.json")) as f:
        schema = json.load(f)
    return [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(d)][:3]


def check_determinism():
    args = ["--cachesim", "--sweep", "1000:3000:1000", "--repeat", "2",
            "--algo", "bn-iter,bn-fdouble-karatsuba"]
    a, b = doc(args), doc(args)
    same = a["functions"] == b["functions"] and a["per_n"] == b["per_n"]
    result(same, "deterministic.runs", "two runs, identical counts per function and per read"
           if same else "two runs differ")
    ir = all(r["cachesim_min"]["Ir"] == r["cachesim_max"]["Ir"] for r in a["per_n"])
    result(ir and a["meta"]["cachesim"]["exact"]["Ir"], "deterministic.rounds",
           "Ir identical in both rounds of every read" if ir else "Ir differs between rounds")
    errs = schema_errors(a)
    result(None if errs is None else not errs, "schema",
           "python3-jsonschema missing" if errs is None else "; ".join(errs) or
           "docs/cachesim.schema.json")
    return a


def check_invariants(d):
    meta = d["meta"]["cachesim"]
    bad = []
    for small, large in ORDERED:
        for r in d["per_n"]:
            if r["cachesim"][small] > r["cachesim"][large]:
                bad.append(f"{r['algo']} n={r['n']}: {small} > {large}")
        for f in d["functions"]:
            if f["cachesim"][small] > f["cachesim"][large]:
                bad.append(f"{f['name']}: {small} > {large}")
    result(not bad, "invariants.rates", "; ".join(bad[:3]) or
           "Bcm <= Bc, Bim <= Bi, D1m <= D, LL misses <= L1 misses, per read and per function")
    over = [f"{f['name']} {e}" for f in d["functions"] for e in EVENTS
            if f["cachesim"][e] > meta["run"][e]]
    result(not over, "invariants.totals", ", ".join(over[:3]) or
           f"each of {len(d['functions'])} functions' counts <= the run's")
    lib = {e: sum(f["cachesim"][e] for f in d["functions"] if f["library"]) for e in EVENTS}
    out = {e: sum(f["cachesim"][e] for f in d["functions"] if not f["library"]) for e in EVENTS}
    ok = lib == {e: meta["library"][e] for e in EVENTS} and \
        out == {e: meta["outside"][e] for e in EVENTS}
    result(ok, "invariants.sum", f"library functions sum to Ir {lib['Ir']:.0f} = meta "
           f"{meta['library']['Ir']:.0f}; outside {out['Ir']:.0f} = {meta['outside']['Ir']:.0f}")
    reads = meta["reads"]
    calls = {f["name"]: f["cachesim"]["calls"] for f in d["functions"]}
    result(calls.get("fib_compute") == reads, "calls.fib_compute",
           f"fib_compute called {calls.get('fib_compute')} times in {reads} reads")
    n_cells = len(d["per_n"])
    result(n_cells == 6 and reads == 12, "reads", f"{n_cells} (algo, n) cells, {reads} reads "
           "(2 algorithms x 3 n x 2 rounds)")


def compare(args):
    d = doc(["--compare", "algos", "--metric", "sim:Ir"] + args)
    row = d["compare"]["rows"][0]
    return {v["name"]: v["value"] for v in row["variants"]}, d["compare"]["exact"]


def check_orders():
    v, exact = compare(["--sweep", "1000:1000", "--repeat", "2", "--algo", "bn-iter,bn-fdouble"])
    result(v["bn-iter"] > v["bn-fdouble"] and exact, "order.iter-vs-fdouble",
           f"n=1000 Ir per read: bn-iter {v['bn-iter']:.0f} > bn-fdouble {v['bn-fdouble']:.0f} "
           f"(exact: {exact})")
    v, exact = compare(["--sweep", "100000:100000", "--algo",
                        "bn-fdouble-sqr,bn-fdouble-karatsuba"])
    a, b = v["bn-fdouble-karatsuba"], v["bn-fdouble-sqr"]
    result(a < b, "order.karatsuba-vs-sqr",
           f"n=10^5 Ir per read: bn-fdouble-karatsuba {a:.0f} < bn-fdouble-sqr {b:.0f}")


def check_share():
    d = doc(["--cachesim", "--sweep", "100000:100000", "--algo", "bn-fdouble-karatsuba"])
    m = d["meta"]["cachesim"]
    measured = m["run"]["Ir"] - m["warmup"]["Ir"]
    share = m["library"]["Ir"] / measured
    result(share > 0.9, "share.library",
           f"n=10^5: the library's functions execute {100 * share:.2f}% of the run's "
           f"instructions (start-up, harness, malloc and exit the rest; the warm-up round apart)")


def check_geometry():
    base = doc(["--cachesim", "--sweep", "20000:20000", "--algo", "bn-fdouble-karatsuba"])
    small = doc(["--cachesim", "--sweep", "20000:20000", "--algo", "bn-fdouble-karatsuba",
                 "--cache-geometry", "D1=4096,2,64"])
    b, s = base["per_n"][0]["cachesim"], small["per_n"][0]["cachesim"]
    desc = small["meta"]["cachesim"]["caches"]["D1"]
    ok = s["D1mr"] > b["D1mr"] and s["Ir"] == b["Ir"] and desc.startswith("4096 B")
    result(ok, "geometry", f"D1 4 KiB 2-way: D1mr {s['D1mr']:.0f} > {b['D1mr']:.0f} with 32 KiB "
           f"8-way, Ir unchanged ({s['Ir']:.0f}); reported as '{desc}'")


def check_outputs():
    rc, out, err = run(["--cachesim", "--sweep", "1000:2000:1000", "--algo", "bn-iter"])
    result(rc == 0 and "SIMULATED" in out and "bn_add_n" in out and "simulated caches" in out,
           "text", f"exit {rc}; says SIMULATED, the caches, bn_add_n in the function table")
    rc, out, err = run(["--cachesim", "--csv", "--sweep", "1000:2000:1000", "--algo", "bn-iter"])
    funcs, pern = out.split("\n\n", 1) if rc == 0 else ("", "")
    rows = list(csv.DictReader(io.StringIO(pern)))
    ok = rc == 0 and funcs.startswith("algo,function,library,calls,Ir") and len(rows) == 2 and \
        float(rows[0]["Ir"]) > 0
    result(ok, "csv", f"exit {rc}; functions then {len(rows)} per-n rows")
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "sim.png")
        rc, out, err = run(["--cachesim", "--sweep", "1000:5000:1000", "--algo",
                            "bn-iter,bn-fdouble", "--plot", png])
        size = os.path.getsize(png) if os.path.exists(png) else 0
        result(rc == 0 and size > 5000, "plot", f"exit {rc}, {size} bytes")


def write_script(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


def check_as_invoker():
    """Root with SUDO_UID/SUDO_GID 65534: a valgrind wrapper first in PATH records
    the uid it runs as; the plot and callgrind's kept output belong to 65534. The
    wrapper's directory is root's alone (0755): a valgrind in a directory others
    can write (the 1777 one for 65534's files, earlier in PATH) is skipped.
    --user 65534 takes precedence over sudo's user (a SUDO_UID fibtrace would
    refuse, were it read), --user root over SUDO_UID 65534."""
    if os.getuid() != 0:
        result(None, "as_invoker", "not root (the drop is root's only)")
        return
    nobody = (65534, pwd.getpwuid(65534).pw_gid)
    for name, args, sudo, who in (("as_invoker", [], ("65534", "65534"), (65534, 65534)),
                                  ("as_user", ["--user", "65534"], ("root", "0"), nobody),
                                  ("as_user_root", ["--user", "root"], ("65534", "65534"),
                                   (0, 0))):
        as_user(name, args, sudo, who)


def as_user(name, args, sudo, who):
    """One run of check_as_invoker's: with @args and SUDO_UID, SUDO_GID @sudo,
    valgrind runs as @who's uid and the files are @who's (uid, gid)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o1777)
        seen, planted = os.path.join(tmp, "uid"), os.path.join(tmp, "planted-ran")
        bindir = os.path.join(tmp, "bin")
        os.mkdir(bindir, 0o755)
        write_script(os.path.join(bindir, "valgrind"),
                     f"#!/bin/sh\nid -u >{seen}\nexec {shutil.which('valgrind')} \"$@\"\n")
        write_script(os.path.join(tmp, "valgrind"), f"#!/bin/sh\ntouch {planted}\nexit 1\n")
        svg = os.path.join(tmp, "sim.svg")
        env = dict(os.environ, SUDO_UID=sudo[0], SUDO_GID=sudo[1],
                   PATH=f"{tmp}:{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}")
        rc, out, err = run(["-v", *args, "--cachesim", "--sweep", "10:20:10", "--algo",
                            "bn-iter", "--plot", svg], env)
        kept = [w for w in err.split() if w.startswith("/tmp/fibtrace-cachesim-")]
        uid = open(seen).read().strip() if os.path.exists(seen) else None
        owners = {p: (os.stat(p).st_uid, os.stat(p).st_gid) for p in [svg] + kept
                  if os.path.exists(p)}
        result(rc == 0 and uid == str(who[0]), f"{name}.valgrind_uid",
               f"exit {rc}, valgrind ran as {uid}: {err.strip()[-200:]}")
        result(rc == 0 and len(owners) == 2 and all(o == who for o in owners.values()),
               f"{name}.files_owned", f"exit {rc}, owners {owners}")
        result(not os.path.exists(planted) and
               f"not running {tmp}/valgrind as root" in err, f"{name}.open_dir_skipped",
               f"planted valgrind ran: {os.path.exists(planted)}; stderr {err.strip()[:200]!r}")
        for p in kept:
            os.unlink(p)


def check_errors():
    cases = [
        ("unknown-algo", ["--cachesim", "--sweep", "10:20", "--algo", "bn-nope"], None, 2,
         "unknown algorithm 'bn-nope'"),
        ("over-cap", ["--cachesim", "--sweep", "100:1000000:100000", "--algo", "bn-iter"], None, 2,
         "exceeds bn-iter's max_n"),
        ("bad-geometry", ["--cachesim", "--sweep", "10:20", "--cache-geometry", "D1=1000,3,60"], None,
         2, "bad --cache-geometry"),
        ("bad-mode", ["--cachesim=both", "--sweep", "10:20"], None, 2, "bad --cachesim"),
        ("with-events", ["--cachesim", "--sweep", "10:20", "-e", "cycles"], None, 2,
         "traces nothing"),
        ("bad-metric", ["--compare", "algos", "--metric", "sim:cycles", "--sweep", "10:20"], None,
         2, "bad --metric"),
        ("no-valgrind", ["--cachesim", "--sweep", "10:20"],
         dict(os.environ, PATH="/nonexistent"), 10, "needs Valgrind"),
    ]
    for name, args, env, want, text in cases:
        rc, out, err = run(args, env)
        result(rc == want and text in err and not out, f"error.{name}",
               f"exit {rc} (want {want}): {err.strip().splitlines()[-1] if err.strip() else ''}")


def main():
    if not os.access(FIBTRACE, os.X_OK):
        result(False, "build", f"{FIBTRACE} missing (make)")
        return 1
    if not shutil.which("valgrind"):
        result(False, "valgrind", "valgrind not installed (make deps)")
        return 1
    d = check_determinism()
    check_invariants(d)
    check_orders()
    check_share()
    check_geometry()
    check_outputs()
    check_as_invoker()
    check_errors()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
