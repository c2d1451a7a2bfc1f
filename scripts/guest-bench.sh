# Sourced by scripts/bench-trace.sh and scripts/bench-compensation.sh: the
# host side they share. guest_bench NAME TOOL... -- KVER...: checks that every
# TOOL is there, runs "scripts/NAME.sh --guest PART" in one guest per kernel
# (default: every kernel of scripts/kernels.sh), its console into
# build/vm/NAME-KVER.log and its "NAME" progress lines to stderr, and sets
# parts (each kernel's JSON rows), build (the commit measured, with
# "+uncommitted" when bpf/, src/ or fibdrv/ differ from it) and host (the
# host's CPU model and the date: emulated figures move with the host by
# up to 2x, so every row says where and when it was measured).
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
	for k in "${kernels[@]}"; do
		part=build/vm/$name-$k.json
		rm -f "$part"
		VM_TIMEOUT=${VM_TIMEOUT:-1500} scripts/vmtest.sh "$k" -- "scripts/$name.sh" --guest "$part" |
			tee "build/vm/$name-$k.log" | grep --line-buffered "^$name" >&2 || true
		[ -s "$part" ] || {
			echo "$name: $k: no results; the guest's log: build/vm/$name-$k.log" >&2
			exit 1
		}
		parts+=("$part")
	done
	build=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	git diff --quiet HEAD -- bpf src fibdrv 2>/dev/null || build="$build+uncommitted"
	host="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(date -u +%F)"
}
