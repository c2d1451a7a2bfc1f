#!/usr/bin/env python3
"""Check that src/fibtrace/discover/core_btf.c names every struct and member the BPF
object's CO-RE relocations use, and nothing else.

Usage: check-core.py build/fibtrace.bpf.o

fibtrace relocates its BPF programs against a small BTF holding only the
structs and members of core_btf.c's table (its `needs[]`, a line each), copied from
the running kernel's BTF (core_btf.h). A relocation the table misses would
fail at load (a field), or read as absent (bpf_core_type_exists), on every
kernel. The relocations are the ones libbpf reports while bpftool computes
the same kind of minimal BTF (`bpftool -d gen min_core_btf`) against a
kernel BTF: the host's /sys/kernel/btf/vmlinux, or build/<kver>/vmlinux.
One line: PASS, FAIL naming what is missing, nested or unused, or SKIP with
the reason. Exit 1 on FAIL.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

TABLE = "src/fibtrace/discover/core_btf.c"
RELO = re.compile(r"relo #\d+: <(\w+)> \[\d+\] (?:struct|union) (\w+)((?:\.\w+)*)")
NEED = re.compile(r'^\s*\{"(\w+)", "([^"]*)", (?:true|false)\},', re.M)


def kernel_btf():
    if os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        return "/sys/kernel/btf/vmlinux"
    found = sorted(glob.glob("build/*/vmlinux"))
    return found[0] if found else None


def main():
    obj = sys.argv[1]
    btf = kernel_btf()
    if not btf:
        print("SKIP core.table: no kernel BTF (/sys/kernel/btf/vmlinux, build/<kver>/vmlinux)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([os.environ.get("BPFTOOL", "bpftool"), "-d", "gen", "min_core_btf", btf,
                            os.path.join(tmp, "min.btf"), obj],
                           capture_output=True, text=True)
    used, nested = set(), set()
    for kind, struct, path in RELO.findall(p.stdout + p.stderr):
        members = path.lstrip(".").split(".") if path else []
        if len(members) > 1:
            nested.add(f"{struct}{path}")
        used.add((struct, members[0] if members else None))
    if not used:
        print(f"FAIL core.table: bpftool reported no CO-RE relocation in {obj} "
              f"(exit {p.returncode}): {(p.stderr or p.stdout).strip()[-300:]}")
        return 1
    with open(TABLE) as f:
        table = {s: set(m.split()) for s, m in NEED.findall(f.read())}
    missing = sorted(f"{s}.{m}" if m else s for s, m in used
                     if s not in table or (m and m not in table[s]))
    needed = {(s, m) for s, m in used if m}
    unused = sorted(f"{s}.{m}" for s, ms in table.items() for m in ms if (s, m) not in needed)
    unused += sorted(s for s in table if not any(u[0] == s for u in used))
    problems = []
    if missing:
        problems.append("not in the table: " + ", ".join(missing))
    if nested:
        problems.append("nested accesses (core_btf.c copies top-level members): " +
                        ", ".join(sorted(nested)))
    if unused:
        problems.append("in the table, never relocated: " + ", ".join(unused))
    if problems:
        print(f"FAIL core.table: {TABLE} and {obj} disagree: " + "; ".join(problems))
        return 1
    print(f"PASS core.table: {len(table)} structs, {len(needed)} members: every CO-RE "
          f"relocation of {obj} (bpftool, against {btf}) is in {TABLE}, and nothing else")
    return 0


if __name__ == "__main__":
    sys.exit(main())
