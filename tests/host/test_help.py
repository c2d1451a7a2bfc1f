#!/usr/bin/python3
"""fibtrace's help on the host (no kernel, no root needed).

-h and --help print the one page (src/fibtrace/cli/help.c): exit 0, at most
60 lines of at most 79 columns, every option it names known to --help-all;
--help-all lists every visible option; each old spelling kept for scripts
(--kprobe, --json/-j, --csv, --sim-cache) is accepted though hidden, and
each hidden one is absent from both lists. Prints PASS/FAIL lines for
tests/run.sh.
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIBTRACE = os.path.join(TOP, "build", "fibtrace")
sys.path.insert(0, os.path.join(TOP, "tests", "guest"))
import gtest  # noqa: E402

HIDDEN = {"--kprobe": [], "--json": [], "-j": [], "--csv": [], "--sim-cache": ["host"]}
LINES, COLUMNS = 60, 79


def result(ok, name, detail=""):
    gtest.check(f"host/help.{name}", ok, detail)


def run(*args):
    p = subprocess.run([FIBTRACE, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def main():
    rc_h, page, _ = run("-h")
    rc, long_page, _ = run("--help")
    lines = page.splitlines()
    result(rc_h == 0 and rc == 0 and page == long_page, "h_is_help", f"exit {rc_h}, {rc}")
    result(len(lines) <= LINES, "lines", f"{len(lines)} lines (at most {LINES})")
    wide = [ln for ln in lines if len(ln) > COLUMNS]
    result(not wide, "columns", str(wide[:3]))
    rc, every, _ = run("--help-all")
    result(rc == 0 and len(every.splitlines()) > len(lines), "help_all",
           f"exit {rc}, {len(every.splitlines())} lines")
    known = set(re.findall(r"--[a-z][a-z-]+", every))
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", page))
    result(named <= known, "page_names_known_options", str(sorted(named - known)))
    for alias, arg in HIDDEN.items():
        rc, out, err = run(alias, *arg, "-V")  # parsed, then -V exits 0
        result(rc == 0 and out.startswith("fibtrace "), f"alias{alias}", f"exit {rc}: {err}")
        shown = re.search(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", page + every)
        result(not shown, f"alias{alias}.hidden", "listed in the help")


if __name__ == "__main__":
    gtest.run(main)
