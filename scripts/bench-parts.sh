#!/usr/bin/env bash
# What each part of a traced call costs, in instructions (make bench-parts):
# a QEMU TCG plugin (bench/insprof/insprof.c) counts the instructions the
# guest executes at every code address while build/bench/trace_workload
# reads F(N) READS times, twice untraced and once under each fibtrace plan;
# bench/insprof/parts.py maps the addresses to the guest's symbols (its
# /proc/kallsyms, taken while each tracer is attached: the BPF programs and
# trampolines are there) and divides what each symbol added by the traced
# calls in the window; inside the BPF programs, build/bench/jitlines (the
# kernel's JIT line table) charges each instruction to its source line.
#
#   scripts/bench-parts.sh [KVER...]     default: every kernel of scripts/kernels.sh
#   PARTS_N (1000), PARTS_READS (200), PARTS_ALGO (bn-fdouble-karatsuba),
#   PARTS_PLANS: the plans, NAME=fibtrace options joined by commas, or
#     NAME=@bpftrace, @bpftrace-empty, @bpftrace-clock: bpftrace's usual
#     idiom and its two floors (bench/bpftrace_idiom.py) on the functions
#     the first plan traced, with the first plan's call counts
#
# One boot per kernel, one vCPU under the instruction clock. Writes
# bench/results/parts.json (rows per kernel, plan and part) and prints the
# table.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
n=${PARTS_N:-1000}
reads=${PARTS_READS:-200}
algo=${PARTS_ALGO:-bn-fdouble-karatsuba}
plans=${PARTS_PLANS:-"auto= fentry=--attach,fentry fentry-notree=--attach,fentry,--no-tree kprobe=--kprobe \
bpftrace=@bpftrace floor-empty=@bpftrace-empty floor-clock=@bpftrace-clock"}

# In the guest: bpftrace (KIND bpftrace, bpftrace-empty or bpftrace-clock)
# on the functions of fibtrace's report REPORT, attached when its sentinel
# fires (it attaches last); sets pid.
start_bpftrace() {
	local dir=$1 name=$2 kind=$3 report=$4
	python3 - "$report" "$kind" >"$dir/$name.bt" <<-'PY'
		import json, sys
		sys.path.insert(0, "bench")
		import bpftrace_idiom
		doc = json.load(open(sys.argv[1]))
		slots = [{"mode": f["attach"], "name": f["name"],
		          "module": "" if f["module"] == "vmlinux" else f["module"]} for f in doc["functions"]]
		floor = {"bpftrace": None, "bpftrace-empty": "empty", "bpftrace-clock": "clock"}[sys.argv[2]]
		print(bpftrace_idiom.script(slots, floor)[0], end="")
	PY
	bpftrace "$dir/$name.bt" >"$dir/$name.out" 2>"$dir/$name.err" &
	pid=$!
	until grep -q '^bench-trace: attached' "$dir/$name.out"; do
		kill -0 $pid 2>/dev/null || { cat "$dir/$name.err" >&2; exit 1; }
		python3 -c 'import os; os.getppid()'
		sleep 1
	done
}

if [ "${1:-}" = --guest ]; then # in the guest: DIR N READS ALGO PLAN...
	dir=$2 n=$3 reads=$4 algo=$5
	shift 5
	insmod "build/$(uname -r)/fibdrv.ko" "default_algo=$algo" # the workload reads with the default
	sysctl -qw net.core.bpf_jit_kallsyms=1
	# Twice untraced: a window that met some one-off kernel work (a slab
	# grown, a page cleared) does not become every plan's baseline.
	for i in 1 2; do
		build/bench/trace_workload --mark --rounds 1 "$n:$reads" >"$dir/untraced$i.txt"
	done
	first=${1%%=*}
	for plan in "$@"; do
		name=${plan%%=*}
		if [[ ${plan#*=} == @* ]]; then
			start_bpftrace "$dir" "$name" "${plan#*=@}" "$dir/$first.json"
		else
			IFS=, read -ra opts <<<"${plan#*=}"
			build/fibtrace --no-hist --json -v "${opts[@]}" >"$dir/$name.json" 2>"$dir/$name.err" &
			pid=$!
			until grep -q '^fibtrace: slot' "$dir/$name.err"; do
				kill -0 $pid 2>/dev/null || { cat "$dir/$name.err" >&2; exit 1; }
				sleep 0.5
			done
			sleep 2 # the -v lines are printed once every probe is attached
		fi
		build/bench/trace_workload --mark --rounds 1 "$n:$reads" >"$dir/$name.txt"
		cat /proc/kallsyms >"$dir/$name.syms"
		build/bench/jitlines >"$dir/$name.lines"
		kill -INT $pid
		wait $pid || true # bpftrace's status after SIGINT is not fibtrace's
	done
	dmesg | grep -E 'BUG|WARNING|Oops|lockup' && exit 1
	exit 0
fi

make --no-print-directory all build/bench/insprof.so build/bench/trace_workload build/bench/jitlines >/dev/null
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <(scripts/kernels.sh)
read -ra planv <<<"$plans"
parts=()
for k in "${kernels[@]}"; do
	dir=build/vm/parts-$k
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "bench-parts: $k: F($n) x $reads, untraced and under ${planv[*]%%=*}" >&2
	VM_CLOCK=icount VM_CPUS=1 VM_QEMU_EXTRA="-plugin $top/build/bench/insprof.so,out=$top/$dir/blocks.txt" \
		scripts/vmtest.sh "$k" -- scripts/bench-parts.sh --guest "$dir" "$n" "$reads" "$algo" "${planv[@]}" \
		>"$dir/guest.log" 2>&1 || { tail -20 "$dir/guest.log" >&2; exit 1; }
	parts+=("$k" "$dir")
done
python3 bench/insprof/parts.py "$n" "$reads" "${planv[*]%%=*}" "${parts[@]}"
