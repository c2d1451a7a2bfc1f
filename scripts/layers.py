#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The layer check (make unit): the rules docs/architecture.md states, checked
on the built objects and the sources.

  scripts/layers.py [--obj DIR] [--src DIR]... [--graph]

For src/fibtrace (fibdrv's library has scripts/layers-fibdrv.sh), an edge
A -> B means that A.c calls a function or uses a variable B.c defines (from
`nm` of their objects in DIR: A's undefined symbols, B's defined ones) or that
A includes a header of B's folder (from the sources). It fails on:
  - a cycle between two files (calls), printed edge by edge;
  - a cycle between two folders of src/fibtrace (calls or includes): a
    folder's callers are above it, never below;
  - libbpf's program, link, map or ring-buffer API outside tracer/, its BTF
    API outside symbols/, discover/ and tracer/, the skeleton outside tracer/;
  - a header of cli/ included outside cli/ and main.c.
Exit 0 and one PASS line, or 1 and one FAIL line per breach.
"""
import argparse
import os
import re
import subprocess
import sys

TOP = "src/fibtrace"
LIBBPF_PROG = re.compile(r"^(bpf_|libbpf_|ring_buffer__|perf_buffer__)")
LIBBPF_BTF = re.compile(r"^btf__")


def nm(obj, flag):
    out = subprocess.run(["nm", flag, obj], capture_output=True, text=True,
                         check=True).stdout
    syms = set()
    for line in out.splitlines():
        f = line.split()
        if flag == "-u" and len(f) >= 2:
            syms.add(f[-1])
        elif flag == "--defined-only" and len(f) >= 3 and f[1] in "TDBRC":
            syms.add(f[2])
    return syms


def objects(objdir, srcdir):
    """{source path: object path} for every .c under srcdir with an object."""
    found = {}
    for root, _, files in os.walk(srcdir):
        for f in files:
            if f.endswith(".c"):
                src = os.path.join(root, f)
                obj = os.path.join(objdir, src[:-2] + ".o")
                if os.path.exists(obj):
                    found[src] = obj
    return found


def call_edges(objs):
    """({(a, b): [symbols]}, {src: undefined symbols})."""
    owner, undef = {}, {}
    for src, obj in objs.items():
        for s in nm(obj, "--defined-only"):
            owner[s] = src
        undef[src] = nm(obj, "-u")
    edges = {}
    for src, syms in undef.items():
        for s in sorted(syms):
            dst = owner.get(s)
            if dst and dst != src:
                edges.setdefault((src, dst), []).append(s)
    return edges, undef


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(srcdir):
    """{file: [included paths resolved under srcdir]} for .c and .h."""
    out = {}
    for root, _, files in os.walk(srcdir):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(root, f)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            res = []
            for inc in INCLUDE.findall(text):
                for base in (root, srcdir):
                    cand = os.path.normpath(os.path.join(base, inc))
                    if os.path.exists(cand):
                        res.append(cand)
                        break
            out[path] = res
    return out


def cycles(nodes, edges):
    """Strongly connected components of more than one node (Tarjan)."""
    adj = {n: [] for n in nodes}
    for a, b in edges:
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, [])
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        work = [(v, iter(sorted(adj[v])))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))
            elif nxt not in index:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(sorted(adj[nxt]))))
            elif nxt in on:
                low[node] = min(low[node], index[nxt])

    for n in sorted(adj):
        if n not in index:
            visit(n)
    return comps


def folder(path):
    rel = os.path.relpath(path, TOP)
    return rel.split(os.sep)[0] if os.sep in rel else "main"


def report_cycles(kind, comps, edges, fails):
    for comp in comps:
        members = set(comp)
        why = ["%s -> %s (%s)" % (a, b, ", ".join(s[:3]))
               for (a, b), s in sorted(edges.items())
               if a in members and b in members]
        fails.append("%s cycle: %s\n    %s" % (kind, " <-> ".join(comp),
                                                "\n    ".join(why)))


def check_tree(objdir, srcdir, fails):
    objs = objects(objdir, srcdir)
    if not objs:
        fails.append("no objects for %s under %s: build first" % (srcdir, objdir))
        return 0
    edges, undef = call_edges(objs)
    report_cycles("file", cycles(objs, edges), edges, fails)
    fedges = {}
    for (a, b), syms in edges.items():
        fa, fb = folder(a), folder(b)
        if fa != fb:
            fedges.setdefault((fa, fb), []).extend("%s->%s:%s" % (
                os.path.basename(a), os.path.basename(b), s) for s in syms)
    for path, incs in includes(srcdir).items():
        for inc in incs:
            fa, fb = folder(path), folder(inc)
            if fa != fb and inc.startswith(srcdir):
                fedges.setdefault((fa, fb), []).append(
                    "%s includes %s" % (os.path.basename(path), inc))
    nodes = {folder(p) for p in objs}
    report_cycles("folder", cycles(nodes, fedges), fedges, fails)
    if GRAPH:
        for f in sorted(nodes):
            print("%s -> %s" % (f, " ".join(sorted({b for a, b in fedges if a == f}))))
    for src, syms in sorted(undef.items()):
        f = folder(src)
        prog = sorted(s for s in syms if LIBBPF_PROG.match(s))
        btf = sorted(s for s in syms if LIBBPF_BTF.match(s))
        if prog and f != "tracer":
            fails.append("libbpf outside tracer/: %s uses %s" % (src, ", ".join(prog)))
        if btf and f not in ("tracer", "discover", "symbols"):
            fails.append("libbpf's BTF outside symbols/, discover/, tracer/: %s uses %s" %
                         (src, ", ".join(btf)))
    for path, incs in includes(srcdir).items():
        f = folder(path)
        for inc in incs:
            if folder(inc) == "cli" and f not in ("cli", "main"):
                fails.append("cli/ header below cli/: %s includes %s" % (path, inc))
    for path in includes(srcdir):
        with open(path, encoding="utf-8") as fh:
            if INCLUDE_SKEL.search(fh.read()) and folder(path) != "tracer":
                fails.append("skeleton outside tracer/: %s" % path)
    return len(objs)


GRAPH = False
INCLUDE_SKEL = re.compile(r'^\s*#\s*include\s+[<"][^>"]*\.skel\.h[>"]', re.M)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--obj", default="build/obj")
    ap.add_argument("--src", action="append")
    ap.add_argument("--graph", action="store_true",
                    help="print which folders each folder calls or includes")
    args = ap.parse_args()
    global GRAPH
    GRAPH = args.graph
    fails, counted = [], []
    for srcdir in args.src or [TOP]:
        counted.append("%s: %d files" % (srcdir, check_tree(args.obj, srcdir, fails)))
    for f in fails:
        print("FAIL layers: " + f)
    if not fails:
        print("PASS layers: no cycle between files or folders, libbpf, the "
              "skeleton and cli/ where they may be (%s)" % "; ".join(counted))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
