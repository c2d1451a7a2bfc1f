#!/usr/bin/env python3
"""Check that every function fibtrace traces by default is only called out of line.

Usage: check-inline.py build/<kver>/fibdrv.ko ...

fibtrace traces by default every FUNC of fibdrv's BTF named bn_*, fib_* or
fibdrv_* that /proc/kallsyms lists and ftrace can patch (discover.c). From
the .ko alone that is: a FUNC in .BTF (when build/<kver>/vmlinux, the base
BTF, is there), a FUNC symbol outside .init.* in the symbol table, and an
entry in __mcount_loc (what available_filter_functions lists); fibdrv_calib*
are left out (calibration). If gcc also inlined such a function somewhere
(a DW_TAG_inlined_subroutine whose abstract origin has its name), or made a
clone of it (NAME.constprop.N, .isra.N, .part.N), the calls there never reach
the traced entry: its counts are partial and its callers' self time too
large, silently. One line per module: PASS, FAIL naming each function and its
inlined call sites (DW_AT_call_file:DW_AT_call_line, in the function whose
code holds them) or clones, or SKIP with the reason. Exit 1 on any FAIL.

Tools: readelf (binutils), llvm-dwarfdump (llvm), bpftool ($BPFTOOL, which make
sets: /usr/sbin is not on a user's PATH); all from make deps.
"""
import os
import re
import shutil
import subprocess
import sys

PREFIXES = ("bn_", "fib_", "fibdrv_")
RESERVED = ("fibdrv_calib",)
CLONE = re.compile(r"^(.+?)\.(constprop|isra|part)\.\d+(\..*)?$")


def run(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def sections(ko):
    """Section index -> name, from readelf -SW."""
    out = {}
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", run(["readelf", "-SW", ko]), re.M):
        out[int(m.group(1))] = m.group(2)
    return out


def func_symbols(ko, secs):
    """FUNC symbols: list of (name, section name, value, size)."""
    syms = []
    for line in run(["readelf", "-sW", ko]).splitlines():
        f = line.split()
        if len(f) < 8 or f[3] != "FUNC" or not f[6].isdigit():
            continue
        syms.append((f[7], secs.get(int(f[6]), "?"), int(f[1], 16), int(f[2])))
    return syms


def mcount_sites(ko):
    """(section, offset) of each __fentry__ call ftrace records; None if no table."""
    out, inside = set(), False
    for line in run(["readelf", "-rW", ko]).splitlines():
        if line.startswith("Relocation section"):
            inside = "'.rela__mcount_loc'" in line
            continue
        if not inside:
            continue
        m = re.search(r"\s(\S+) \+ ([0-9a-f]+)$", line)
        if m:
            out.add((m.group(1), int(m.group(2), 16)))
    return out or None


def btf_funcs(ko):
    """FUNC names of the module's split BTF, or None (no base vmlinux, no .BTF)."""
    base = os.path.join(os.path.dirname(ko), "vmlinux")
    bpftool = shutil.which(os.environ.get("BPFTOOL", "bpftool"))
    if not os.path.exists(base) or not bpftool:
        return None
    try:
        out = run([bpftool, "-B", base, "btf", "dump", "file", ko])
    except subprocess.CalledProcessError:
        return None
    return set(re.findall(r"^\[\d+\] FUNC '([^']+)'", out, re.M))


def traced_set(ko):
    """The default traced set as discover.c would find it, and every FUNC symbol name."""
    syms = func_symbols(ko, sections(ko))
    sites = mcount_sites(ko)
    btf = btf_funcs(ko)
    names = [s[0] for s in syms]
    traced = set()
    for name, sec, value, size in syms:
        if not name.startswith(PREFIXES) or name.startswith(RESERVED):
            continue
        if sec.startswith(".init") or (btf is not None and name not in btf):
            continue
        if sites is not None and not any(
                s == sec and value <= off < value + size for s, off in sites):
            continue  # notrace: not in available_filter_functions
        traced.add(name)
    return traced, names, btf is not None, sites is not None


ATTR = re.compile(r'^\s+(DW_AT_\w+)\s+\((.*)\)\s*$')
DIE = re.compile(r'^0x[0-9a-f]+:(\s+)(DW_TAG_\w+|NULL)')


def short_path(path):
    """The kbuild copy of fibdrv/X.c is build/<kver>/kmod/X.c: name it fibdrv/X.c."""
    if "/kmod/" in path:
        return "fibdrv/" + path.rsplit("/", 1)[1]
    return path


def inlined_sites(ko):
    """Origin name -> list of (call file:line, function holding the code)."""
    found = []  # (origin, file, line, chain of enclosing instances)
    decl = {}  # function name -> its (DW_AT_decl_file, DW_AT_decl_line)s
    stack = []  # (indent, tag, attrs) of the open DIEs

    def finish(die):
        indent, tag, attrs = die
        if tag == "DW_TAG_subprogram" and "decl_line" in attrs:
            decl.setdefault(attrs.get("name"), set()).add(
                (attrs.get("decl_file"), attrs["decl_line"]))
        if tag != "DW_TAG_inlined_subroutine" or "origin" not in attrs:
            return
        chain = []  # the inlined calls around this one, then the function
        for _, t, a in reversed(stack):
            if t in ("DW_TAG_inlined_subroutine", "DW_TAG_subprogram"):
                chain.append(a.get("origin", a.get("name", "?")))
            if t == "DW_TAG_subprogram":
                break
        found.append((attrs["origin"], attrs.get("file", "?"), attrs.get("line", "?"), chain))

    cur = None
    proc = subprocess.Popen(["llvm-dwarfdump", "--debug-info", ko],
                            stdout=subprocess.PIPE, text=True)
    for line in proc.stdout:
        m = DIE.match(line)
        if m:
            if cur:
                finish(cur)
                stack.append(cur)
            indent = len(m.group(1))
            while stack and stack[-1][0] >= indent:
                stack.pop()
            cur = (indent, m.group(2), {}) if m.group(2) != "NULL" else None
            continue
        m = ATTR.match(line)
        if not m or not cur:
            continue
        at, val = m.groups()
        attrs = cur[2]
        if at in ("DW_AT_name", "DW_AT_abstract_origin", "DW_AT_specification"):
            q = re.search(r'"([^"]*)"', val)
            if q and "name" not in attrs:
                attrs["name"] = q.group(1)
            if q and at == "DW_AT_abstract_origin":
                attrs["origin"] = q.group(1)
        elif at == "DW_AT_call_file":
            attrs["file"] = val.strip('"')
        elif at == "DW_AT_call_line":
            attrs["line"] = val
        elif at == "DW_AT_decl_line":
            attrs["decl_line"] = val
        elif at == "DW_AT_decl_file":
            attrs["decl_file"] = val.strip('"')
    if cur:
        finish(cur)
    if proc.wait():
        raise subprocess.CalledProcessError(proc.returncode, "llvm-dwarfdump")
    sites = {}
    for origin, path, line, chain in found:
        if chain and chain[0] == origin and (path, line) in decl.get(origin, ()):
            # gcc nests an instance of F directly in F, "called" from F's own
            # declaration line: the enclosing call, not another call site (a
            # recursive call inlined into F has a line inside F's body)
            continue
        holder = chain[-1] if chain else "?"
        if len(chain) > 1:
            holder += " via " + ", ".join(reversed(chain[:-1]))
        sites.setdefault(origin, []).append((f"{short_path(path)}:{line}", holder))
    return sites


def check(ko):
    kver = os.path.basename(os.path.dirname(os.path.abspath(ko)))
    name = "inline." + kver
    if not os.path.exists(ko):
        print(f"SKIP {name}: {ko} not built (make modules)")
        return True
    if ".debug_info" not in sections(ko).values():
        print(f"FAIL {name}: {ko} has no DWARF (.debug_info): the kernel's "
              "CONFIG_DEBUG_INFO gives -g to modules; is it off?")
        return False
    traced, names, have_btf, have_mcount = traced_set(ko)
    nsyms = {}
    for n in names:
        nsyms[n] = nsyms.get(n, 0) + 1
    inl = inlined_sites(ko)
    bad = []
    for fn in sorted(traced):
        parts = []
        calls = inl.get(fn, [])
        if calls:
            seen = {}
            for where, holder in calls:
                key = f"{where} ({holder})"
                seen[key] = seen.get(key, 0) + 1
            parts.append("inlined at " + ", ".join(
                k + (f" x{n}" if n > 1 else "") for k, n in seen.items()))
        clones = sorted(n for n in names if (m := CLONE.match(n)) and m.group(1) == fn)
        if clones:
            parts.append("clone " + ", ".join(clones))
        if nsyms[fn] > 1:
            parts.append("several symbols of this name")
        if parts:
            bad.append(f"{fn} {' and '.join(parts)}")
    basis = "BTF, symbols" if have_btf else "symbols (no BTF base: build/<kver>/vmlinux)"
    basis += ", __mcount_loc" if have_mcount else ", no __mcount_loc"
    if bad:
        print(f"FAIL {name}: {len(bad)} of {len(traced)} traced functions "
              f"also called without their traced entry: {'; '.join(bad)}")
        return False
    print(f"PASS {name}: none of {len(traced)} traced functions ({basis}) is inlined "
          "or cloned anywhere in the module")
    return True


def main(argv):
    if not argv:
        print("SKIP inline: no kernel with headers installed, no fibdrv.ko to check (make deps)")
        return 0
    for tool, pkg in (("readelf", "binutils"), ("llvm-dwarfdump", "llvm")):
        if not shutil.which(tool):
            print(f"SKIP inline: {tool} missing (package {pkg}; make deps)")
            return 0
    ok = True
    for ko in argv:
        ok = check(ko) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
