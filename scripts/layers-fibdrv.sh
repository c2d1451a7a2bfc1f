#!/usr/bin/env bash
# The call graph between fibdrv's files, from their objects: no cycle, and
# the big-number library's layers only call downwards.
#
#   layers-fibdrv.sh [OBJDIR [SRCDIR]]
#
#   OBJDIR  the objects of fibdrv/*.c (default build/obj/fibdrv: the user-space
#           build of mk/bignum.mk; build/<kver>/kmod, kbuild's, has
#           fibdrv_main.o too)
#   SRCDIR  the sources (default fibdrv/): only OBJDIR's X.o whose X.c is
#           there are read, so objects of renamed or removed files left in
#           OBJDIR do not count (the PASS line says how many)
#
# An object's undefined symbols (nm: U) that another object defines are its
# calls (or data references) into that file: an edge A.o -> B.o. Two checks:
#
#   cycle   objects that reach each other through edges (a strongly
#           connected group): one cycle through them, each edge with the
#           symbols it stands for, then the group's other edges (each on
#           some cycle too);
#   layer   a call from a lower layer into a higher one, the layers by name:
#             0 alloc  bn_mem.o          the allocator, under both layers
#             1 limb   bn_*.o (not 0, 2) limb arrays (GMP's mpn)
#             2 value  bn_val*.o         struct bn (GMP's mpz)
#             3 fib    fib_*.o, fibdrv_main.o: the algorithms and the device
#           an object named otherwise is layer 3.
#
# Prints "PASS layers.fibdrv[.KVER] (OBJDIR: N objects, E edges, ...)" or a FAIL
# line per finding (the edges of a cycle indented under it); exit 0, 1 on
# any finding, 2 on a usage error or no objects.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
objdir=${1:-$top/build/obj/fibdrv}
srcdir=${2:-$top/fibdrv}
[ $# -le 2 ] || { echo "usage: layers-fibdrv.sh [OBJDIR [SRCDIR]]" >&2; exit 2; }
[ -d "$objdir" ] || { echo "layers-fibdrv: no directory $objdir (make user builds build/obj/fibdrv)" >&2; exit 2; }
[ -d "$srcdir" ] || { echo "layers-fibdrv: no directory $srcdir" >&2; exit 2; }

# One line per symbol: "object D symbol" (defined) or "object U symbol".
syms=$(
	for o in "$objdir"/*.o; do
		[ -e "$o" ] || continue
		b=$(basename "$o" .o)
		if [ ! -f "$srcdir/$b.c" ]; then
			# kbuild's module info, the linked module, or a stale object
			case $b in *.mod | fibdrv) ;; *) echo "stale $b.o -" ;; esac
			continue
		fi
		nm -P "$o" | awk -v o="$b.o" '
			$2 == "U" { print o, "U", $1; next }
			$2 ~ /^[A-TV-Z]$/ { print o, "D", $1 }'
	done
)
[ -n "$syms" ] || { echo "layers-fibdrv: no objects of $srcdir/*.c in $objdir" >&2; exit 2; }

py=$(cat <<'PY'
import os
import sys

defs, uses, objs = {}, {}, set()
# the checks' name: layers.fibdrv, layers.fibdrv.KVER for kbuild's objects (build/KVER/kmod)
parts = sys.argv[1].rstrip("/").split("/")
name = "layers.fibdrv" + (f".{parts[-2]}" if len(parts) > 1 and parts[-1] == "kmod" else "")
stale = []
for line in sys.stdin:
    o, kind, sym = line.split()
    if o == "stale":
        stale.append(kind)
        continue
    objs.add(o)
    if kind == "D":
        defs[sym] = o
    else:
        uses.setdefault(o, set()).add(sym)

if not objs:
    print(f"layers-fibdrv: no objects of the sources in {sys.argv[1]}", file=sys.stderr)
    sys.exit(2)

# edges[a][b] = the symbols a uses that b defines
edges = {o: {} for o in objs}
for a, syms in uses.items():
    for s in syms:
        b = defs.get(s)
        if b and b != a:
            edges[a].setdefault(b, set()).add(s)


def layer(o):
    name = o[:-2]
    if name == "bn_mem":
        return 0, "alloc"
    if name.startswith("bn_val"):
        return 2, "value"
    if name.startswith("bn_"):
        return 1, "limb"
    return 3, "fib"


def edge(a, b):
    return f"{a} -> {b} ({', '.join(sorted(edges[a][b]))})"


fails = []
# The one search for strongly connected components (scripts/layers.py, which
# checks src/fibtrace the same way): a component of two objects or more holds a cycle.
sys.path.insert(0, os.environ["LAYERS_DIR"])
from layers import cycles  # noqa: E402

comps = cycles(objs, {(a, b): syms for a in edges for b, syms in edges[a].items()})
for comp in comps:
    if len(comp) < 2:
        continue
    members = set(comp)
    # one cycle through the component's first object: a path back to it, breadth first
    start = min(comp)
    prev, todo = {start: None}, [start]
    end = None
    while todo and end is None:
        nxt = []
        for v in todo:
            for w in sorted(edges[v]):
                if w not in members:
                    continue
                if w == start:
                    end = v
                    break
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
            if end is not None:
                break
        todo = nxt
    path = [end]
    while prev[path[-1]] is not None:
        path.append(prev[path[-1]])
    path.reverse()
    path.append(start)
    fails.append(f"FAIL {name}.cycle: {' -> '.join(path)}")
    for a, b in zip(path, path[1:]):
        fails.append(f"  edge {edge(a, b)}")
    # every edge between two objects of the component is on some cycle
    rest = [(a, b) for a in sorted(comp) for b in sorted(edges[a])
            if b in members and (a, b) not in zip(path, path[1:])]
    if rest:
        fails.append(f"  the same {len(comp)} objects ({' '.join(sorted(comp))}) call each other"
                     f" in {len(rest)} more edge(s), each on a cycle:")
        fails += [f"  edge {edge(a, b)}" for a, b in rest]

for a in sorted(objs):
    for b in sorted(edges[a]):
        (la, na), (lb, nb) = layer(a), layer(b)
        if la < lb:
            fails.append(f"FAIL {name}.layer: {na} -> {nb}: {edge(a, b)}")

nedges = sum(len(e) for e in edges.values())
if fails:
    print("\n".join(fails))
    sys.exit(1)
skipped = f", {len(stale)} stale object(s) without a source skipped: {' '.join(stale)}" if stale else ""
print(f"PASS {name} ({sys.argv[1]}: {len(objs)} objects, {nedges} edges, no cycle,"
      f" calls only down alloc < limb < value < fib{skipped})")
PY
)
LAYERS_DIR=$top/scripts python3 -c "$py" "${objdir#"$top"/}" <<<"$syms"
