# Sourced by scripts/bench-trace.sh and scripts/bench-compensation.sh: the
# host side they share. guest_bench NAME TOOL... -- KVER...: checks that every
# TOOL is there, runs "scripts/NAME.sh --guest PART" in one guest per kernel
# (default: every kernel of scripts/kernels.sh), its console into
# build/vm/NAME-KVER.log and its "NAME" progress lines to stderr, and sets
# parts (each kernel's JSON rows), build (the commit measured, with
# "+uncommitted" when bpf/, src/ or fibdrv/ differ from it) and host (the
# host's CPU model and the date: emulated figures move with the host by
# up to 2x, so every row says where and when it was measured). Each kernel
# runs once per clock of BENCH_CLOCKS (default "icount real": instruction
# counts, exact and the same on every host, then real time; scripts/vmaccel.sh),
# and every row says which in "clock" (instructions or real).
guest_bench() {
	local name=$1 f k part
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		[ -x "$1" ] || { echo "$name: $1 missing (make bench-trace; make deps)" >&2; exit 1; }
		shift
	done
	shift
	local kernels=("$@")
	[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <(scripts/kernels.sh)
	mkdir -p build/vm bench/results
	parts=()
	local clock clocks
	read -ra clocks <<<"${BENCH_CLOCKS:-icount real}"
	for k in "${kernels[@]}"; do
		for clock in "${clocks[@]}"; do
			part=build/vm/$name-$k-$clock.json
			rm -f "$part"
			VM_CLOCK=$clock VM_TIMEOUT=${VM_TIMEOUT:-1500} \
				scripts/vmtest.sh "$k" -- "scripts/$name.sh" --guest "$part" |
				tee "build/vm/$name-$k-$clock.log" | grep --line-buffered "^$name" >&2 || true
			[ -s "$part" ] || {
				echo "$name: $k ($clock): no results; the guest's log: build/vm/$name-$k-$clock.log" >&2
				exit 1
			}
			python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))
for r in rows:
    r["clock"] = "instructions" if sys.argv[2] == "icount" else "real"
json.dump(rows, open(sys.argv[1], "w"), indent=1)' "$part" "$clock"
			parts+=("$part")
		done
	done
	build=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	git diff --quiet HEAD -- bpf src fibdrv 2>/dev/null || build="$build+uncommitted"
	host="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(date -u +%F)"
}
