#!/usr/bin/env bash
# Per function, fibtrace's compensated times against a count made outside
# the guest (make bench-fncount): the instructions each traced call of
# fibdrv executes untraced, counted by a QEMU TCG plugin
# (bench/fncount/fncount.c), against fibtrace's compensated total and self
# time per call for the same reads with every function traced.
#
#   scripts/bench-fncount.sh [KVER...]     default: every kernel of scripts/kernels.sh
#   FNCOUNT_ALGO (bn-fdouble-karatsuba), FNCOUNT_N (1000), FNCOUNT_READS (30),
#   FNCOUNT_ATTACH (auto): the reads and the plan
#
# Two boots per kernel, both one vCPU under the instruction clock: (1)
# fibtrace --sweep N:N --repeat READS --format json, every function; (2) the
# plugin loaded, fibdrv loaded, the traced functions' addresses written for
# the plugin, the same reads untraced (build/fibclient, decimal). Writes
# bench/results/fncount.json (rows per kernel and function) and prints the
# table: calls per read (they must agree), instructions per call, and
# fibtrace's error.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
algo=${FNCOUNT_ALGO:-bn-fdouble-karatsuba}
n=${FNCOUNT_N:-1000}
reads=${FNCOUNT_READS:-30}
attach=${FNCOUNT_ATTACH:-auto}

case "${1:-}" in
--traced) # in the guest (OUT ALGO N READS ATTACH): fibtrace's view of the reads
	algo=$3 n=$4 reads=$5 attach=$6
	insmod "build/$(uname -r)/fibdrv.ko"
	build/fibtrace --attach "$attach" --sweep "$n:$n" --repeat "$reads" --algo "$algo" \
		--format json >"$2"
	exit 0
	;;
--untraced) # in the guest (TRACED SYMS ALGO N READS), the plugin counting: the same reads, no probe
	algo=$4 n=$5 reads=$6
	insmod "build/$(uname -r)/fibdrv.ko"
	python3 - "$2" "$3.tmp" <<-'PY'
		import json, sys
		names = {f["name"] for f in json.load(open(sys.argv[1]))["functions"]}
		with open("/proc/kallsyms") as k, open(sys.argv[2], "w") as out:
		    for line in k:
		        p = line.split()
		        if len(p) >= 4 and p[3] == "[fibdrv]" and p[1] in "tT" and p[2] in names:
		            out.write(f"{p[0]} {p[2]}\n")
	PY
	mv "$3.tmp" "$3" # the plugin starts counting when it sees the file
	# fibtrace's sweep reads in decimal: so do these (fibclient's default)
	for i in $(seq $((reads + 5))); do # the first until the plugin has seen the file
		build/fibclient -q -a "$algo" "$n" || exit 1
	done
	exit 0
	;;
esac

make --no-print-directory all build/bench/fncount.so >/dev/null
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <(scripts/kernels.sh)
parts=()
for k in "${kernels[@]}"; do
	traced=build/vm/fncount-$k-traced.json syms=build/vm/fncount-$k-syms.txt
	counts=build/vm/fncount-$k-counts.txt
	rm -f "$traced" "$syms" "$counts"
	echo "bench-fncount: $k: fibtrace, every function ($algo, F($n) x $reads)" >&2
	VM_CLOCK=icount VM_CPUS=1 scripts/vmtest.sh "$k" -- \
		scripts/bench-fncount.sh --traced "$traced" "$algo" "$n" "$reads" "$attach" >"build/vm/fncount-$k-traced.log" 2>&1 || true
	[ -s "$traced" ] || { echo "bench-fncount: $k: no fibtrace report (build/vm/fncount-$k-traced.log)" >&2; exit 1; }
	echo "bench-fncount: $k: the plugin, untraced" >&2
	VM_CLOCK=icount VM_CPUS=1 VM_QEMU_EXTRA="-plugin $top/build/bench/fncount.so,syms=$top/$syms,out=$top/$counts" \
		scripts/vmtest.sh "$k" -- scripts/bench-fncount.sh --untraced "$traced" "$syms" "$algo" "$n" "$reads" \
		>"build/vm/fncount-$k-untraced.log" 2>&1 || true
	[ -s "$counts" ] || { echo "bench-fncount: $k: no plugin counts (build/vm/fncount-$k-untraced.log)" >&2; exit 1; }
	parts+=("$k" "$traced" "$counts")
done
python3 bench/fncount/compare.py "$algo" "$n" "$reads" "${parts[@]}"
