#!/usr/bin/python3
"""fibtrace in the guest: exact counts from a driven sweep (fentry), the JSON
document against docs/fibtrace.schema.json, histogram sums, per-n table.

Runs as root in the test VM with fibdrv loaded (tests/guest/run.sh).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtest  # noqa: E402
from gtest import check, skip  # noqa: E402

FIBTRACE = "build/fibtrace"
SCHEMA = "docs/fibtrace.schema.json"
SWEEP_FIRST, SWEEP_LAST, REPEAT = 0, 92, 5
READS = (SWEEP_LAST - SWEEP_FIRST + 1) * REPEAT  # 465


def run(args, timeout=300):
    p = subprocess.run([FIBTRACE] + args, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def validate(inst, schema, path="$"):
    """A small JSON Schema subset: type, required, properties, items, enum,
    minimum, additionalProperties (false or a schema). Returns errors."""
    errs = []
    types = schema.get("type")
    if types is not None:
        tl = types if isinstance(types, list) else [types]
        ok = False
        for t in tl:
            if t == "object" and isinstance(inst, dict):
                ok = True
            elif t == "array" and isinstance(inst, list):
                ok = True
            elif t == "string" and isinstance(inst, str):
                ok = True
            elif t == "integer" and isinstance(inst, int) and not isinstance(inst, bool):
                ok = True
            elif t == "number" and isinstance(inst, (int, float)) and not isinstance(inst, bool):
                ok = True
            elif t == "boolean" and isinstance(inst, bool):
                ok = True
            elif t == "null" and inst is None:
                ok = True
        if not ok:
            return [f"{path}: expected {types}, got {type(inst).__name__}"]
    if "enum" in schema and inst not in schema["enum"]:
        errs.append(f"{path}: {inst!r} not in {schema['enum']}")
    if "minimum" in schema and isinstance(inst, (int, float)) and inst < schema["minimum"]:
        errs.append(f"{path}: {inst} < {schema['minimum']}")
    if isinstance(inst, dict):
        for k in schema.get("required", []):
            if k not in inst:
                errs.append(f"{path}: missing {k}")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for k, v in inst.items():
            if k in props:
                errs += validate(v, props[k], f"{path}.{k}")
            elif extra is False:
                errs.append(f"{path}: unexpected {k}")
            elif isinstance(extra, dict):
                errs += validate(v, extra, f"{path}.{k}")
    if isinstance(inst, list) and "items" in schema:
        for i, v in enumerate(inst):
            errs += validate(v, schema["items"], f"{path}[{i}]")
    return errs


def funcs(doc):
    return {f["name"]: f for f in doc["functions"]}


def text_says_unresolved(text, doc):
    """The text names what compensation could not resolve, as the same run's JSON counts it:
    calls clamped at 0 (functions[].compensated.clamped) and per-n rows whose error bound is
    at least their compensated median."""
    clamped = sum(f["compensated"]["clamped"] for f in doc["functions"] if "compensated" in f)
    m = re.search(r"^clamped at 0: (\d+) calls of \d+ functions", text, re.M)
    check("fibtrace.text.clamped_said",
          int(m.group(1)) == clamped if m else clamped == 0,
          f"JSON: {clamped} calls clamped; text: {m.group(0) if m else 'nothing said'}")
    rows = [r["compensated"] for r in doc["per_n"] if "compensated" in r]
    unresolved = sum(r["error_ns"] >= r["median_ns"] for r in rows)
    m = re.search(r"^(\d+) of (\d+) rows are not resolved", text, re.M)
    check("fibtrace.text.unresolved_said",
          (int(m.group(1)), int(m.group(2))) == (unresolved, len(rows)) if m else unresolved == 0,
          f"JSON: {unresolved} of {len(rows)} per-n rows with error >= median; "
          f"text: {m.group(0) if m else 'nothing said'}")
    print(f"# compensation: {clamped} calls clamped, {unresolved} of {len(rows)} per-n rows "
          f"not resolved", flush=True)
    # The clock, in the header's first line as in the JSON (the harness's, gtest.clock()).
    first = next((ln for ln in text.splitlines() if ln.startswith("fibtrace: kernel")), "")
    m = re.search(r", clock (instructions|real)\b", first)
    check("fibtrace.text.clock", m is not None and m.group(1) == doc["meta"]["clock"] and
          doc["meta"]["clock"] == gtest.clock(), f"{first!r}; JSON {doc['meta']['clock']}")


def main():
    kver = os.uname().release
    print(f"# fibtrace on {kver}", flush=True)

    # Phase 1: --hist text output of fib_read for a driven sweep (its JSON saved).
    with tempfile.TemporaryDirectory() as tmp:
        sj = os.path.join(tmp, "h.json")
        rc, out, err = run(["--hist", "--no-discover", "--sweep", f"{SWEEP_FIRST}:{SWEEP_LAST}",
                            "--repeat", str(REPEAT), "--save-json", sj])
        check("fibtrace.hist.exit", rc == 0, f"exit {rc}: {err.strip()[-300:]}")
        hdoc = json.load(open(sj)) if rc == 0 else None
    plan = gtest.default_plan()
    check("fibtrace.hist.count", f"fib_read [{plan}]: count {READS}," in out,
          f"no 'fib_read [{plan}]: count {READS}' line:\n" + out[:600])
    check("fibtrace.hist.bars", "nsecs" in out and "|*" in out, out[:300])
    if hdoc:
        text_says_unresolved(out, hdoc)

    # Phase 1+2: one JSON document, default traced set, every read recorded.
    # The same run saves its JSON and CSV too (--save-json, --save-csv).
    with tempfile.TemporaryDirectory() as tmp:
        sj, sc = os.path.join(tmp, "r.json"), os.path.join(tmp, "r.csv")
        rc, out, err = run(["--json", "--raw", "--sweep", f"{SWEEP_FIRST}:{SWEEP_LAST}",
                            "--repeat", str(REPEAT), "--save-json", sj, "--save-csv", sc])
        check("fibtrace.json.exit", rc == 0, f"exit {rc}: {err.strip()[-300:]}")
        saved_json = open(sj).read() if os.path.exists(sj) else None
        saved_csv = open(sc).read() if os.path.exists(sc) else ""
    check("fibtrace.save_json.same", saved_json == out,
          "no saved JSON" if saved_json is None else "the saved JSON differs from stdout's")
    tables = saved_csv.strip().split("\n\n")
    check("fibtrace.save_csv.tables", len(tables) == 2 and tables[0].startswith("function,") and
          len(tables[1].splitlines()) == SWEEP_LAST - SWEEP_FIRST + 2, saved_csv[:300])
    try:
        doc = json.loads(out)
    except ValueError as e:
        check("fibtrace.json.parse", False, str(e))
        gtest.exit()
    check("fibtrace.json.parse", True)
    with open(SCHEMA) as f:
        errs = validate(doc, json.load(f))
    check("fibtrace.json.schema", not errs, "; ".join(errs[:5]))
    check("fibtrace.json.attach", doc["meta"]["attach"] == plan and
          doc["meta"]["startup"]["plan"] == plan, str(doc["meta"]["startup"]))
    check("fibtrace.json.kernel", doc["meta"]["kernel"] == kver, doc["meta"]["kernel"])
    fs = funcs(doc)
    fr = fs.get("fib_read", {})
    check("fibtrace.fib_read.count", fr.get("count") == READS, f"{fr.get('count')} != {READS}")
    bad = [f"{f['name']}: {sum(h['count'] for h in f['hist'])} != {f['count']}"
           for f in doc["functions"] if sum(h["count"] for h in f["hist"]) != f["count"]]
    check("fibtrace.hist.sums", not bad, "; ".join(bad[:5]))
    for stage in ("fibdrv_compute", "fibdrv_format", "fibdrv_copy"):
        c = fs.get(stage, {}).get("count")
        check(f"fibtrace.{stage}.count", c == READS, f"{c} != {READS}")
    cu = fs.get("_copy_to_user")
    if cu is None or cu["attach"] == "none":
        skip("fibtrace.copy_to_user.count", "_copy_to_user is notrace on this kernel "
             "(not in available_filter_functions): fibdrv_copy measures the copy")
    else:
        check("fibtrace.copy_to_user.count", cu["count"] == READS, f"{cu['count']} != {READS}")
    lost = {k: v for k, v in doc["lost"].items() if v}
    check("fibtrace.lost.zero", not lost, str(lost))

    # The per-n table holds every swept n, each with the repeat count.
    pern = doc["per_n"]
    ns = sorted(r["n"] for r in pern)
    check("fibtrace.per_n.all_n", ns == list(range(SWEEP_FIRST, SWEEP_LAST + 1)),
          f"{len(ns)} rows")
    badc = [r["n"] for r in pern if r["count"] != REPEAT]
    check("fibtrace.per_n.counts", not badc, f"n with count != {REPEAT}: {badc[:10]}")
    # Every read's breakdown parts are within its total.
    reads = doc.get("reads", [])
    check("fibtrace.reads.count", len(reads) == READS, f"{len(reads)} records")
    over = [r for r in reads
            if r["compute_ns"] + r["format_ns"] + r["copy_ns"] > r["total_ns"]]
    check("fibtrace.reads.parts_le_total", not over, f"{len(over)} reads, e.g. {over[:1]}")
    # The copy: one fibdrv_copy per read, bytes = the decimal length of F(n).
    nbytes = {n: len(str(gtest.fib(n))) for n in range(SWEEP_FIRST, SWEEP_LAST + 1)}
    badb = [r["n"] for r in reads if r["copy_bytes"] != nbytes[r["n"]]]
    check("fibtrace.reads.copy_bytes", not badb, f"n with wrong bytes: {badb[:10]}")
    copies = sum(c["count"] for c in doc["copy"])
    check("fibtrace.copy.count", copies == READS, f"{copies} != {READS}")

    # Nested calls: self <= total everywhere; the self times of the functions
    # inside fib_read add up to fib_read's total (self = total - children).
    badself = [f["name"] for f in doc["functions"] if f["self_ns"] > f["total_ns"]]
    check("fibtrace.nested.self_le_total", not badself, str(badself))
    outside = {"fib_llseek", "fib_open", "fib_release", "fib_write", "fib_ioctl",
               "fib_algo_find", "fib_algo_default", "algorithms_show"}
    inside = sum(f["self_ns"] for f in doc["functions"]
                 if f["module"] == "fibdrv" and f["name"] not in outside)
    check("fibtrace.nested.self_sum", inside == fr.get("total_ns"),
          f"sum of self {inside} != fib_read total {fr.get('total_ns')}")
    gtest.exit()


if __name__ == "__main__":
    main()
