#!/usr/bin/env bash
# fibtrace's overhead: the time of a read of /dev/fibonacci untraced, with the
# read path traced (5 functions), with every fibdrv function traced (fentry),
# and with every function traced by kprobes. One guest boot per kernel.
#
#   scripts/bench-trace.sh [KVER...]   default: every kernel of scripts/kernels.sh
#                                      writes bench/results/trace.json
# Needs build/fibtrace and build/KVER/fibdrv.ko (make all). Under software
# emulation absolute times are slow; compare the ratios to the baseline.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if [ "${1:-}" = --guest ]; then
	# In the guest: fibdrv loaded by us, results to $2.
	out=$2
	kver=$(uname -r)
	insmod "build/$kver/fibdrv.ko"
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	tmp=$(mktemp -d)
	workload() { # prints "n reads ns_per_read" lines, best of 3 rounds
		/usr/bin/python3 - <<'PY'
import os, time
fd = os.open("/dev/fibonacci", os.O_RDONLY)
for n, reads in ((90, 2000), (10000, 200)):
    best = None
    for _ in range(3):
        t = time.perf_counter_ns()
        for _ in range(reads):
            os.lseek(fd, n, 0)
            os.read(fd, 4096)
        dt = (time.perf_counter_ns() - t) / reads
        best = dt if best is None or dt < best else best
    print(n, reads, int(best))
PY
	}
	echo "{\"kernel\": \"$kver\", \"configs\": [" >"$out"
	first=1
	for cfg in baseline read-path all-fentry all-kprobe; do
		case $cfg in
		baseline) args=() ;;
		read-path) args=(--no-discover) ;;
		all-fentry) args=() ;;
		all-kprobe) args=(--kprobe) ;;
		esac
		pid=
		if [ $cfg != baseline ]; then
			build/fibtrace "${args[@]}" --no-hist -v >/dev/null 2>"$tmp/err" &
			pid=$!
			for _ in $(seq 600); do
				grep -q "Hit Ctrl-C" "$tmp/err" && break
				kill -0 $pid 2>/dev/null || { cat "$tmp/err" >&2; exit 1; }
				sleep 0.2
			done
		fi
		res=$(workload)
		funcs=0
		if [ -n "$pid" ]; then
			kill -INT $pid
			wait $pid || true
			funcs=$(grep -c '^fibtrace: slot' "$tmp/err" || true)
		fi
		[ $first = 1 ] || echo "," >>"$out"
		first=0
		printf '  {"config": "%s", "functions": %s, "reads": [' "$cfg" "$funcs" >>"$out"
		echo "$res" | awk 'BEGIN{s=""} {printf "%s{\"n\": %s, \"reads\": %s, \"ns_per_read\": %s}", s, $1, $2, $3; s=", "}' >>"$out"
		echo "]}" >>"$out"
		echo "bench-trace: $kver $cfg: $(echo $res | tr '\n' ' ')" >&2
	done
	echo "]}" >>"$out"
	rmmod fibdrv
	exit 0
fi

kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <(scripts/kernels.sh)
mkdir -p build/vm bench/results
parts=()
for k in "${kernels[@]}"; do
	scripts/vmtest.sh "$k" -- scripts/bench-trace.sh --guest "build/vm/trace-$k.json"
	parts+=("build/vm/trace-$k.json")
done
python3 - "${parts[@]}" <<'PY' >bench/results/trace.json
import json, sys
runs = [json.load(open(p)) for p in sys.argv[1:]]
for r in runs:
    base = {x["n"]: x["ns_per_read"] for x in r["configs"][0]["reads"]}
    for c in r["configs"]:
        for x in c["reads"]:
            x["ratio_to_baseline"] = round(x["ns_per_read"] / base[x["n"]], 3)
print(json.dumps({"tool": "fibtrace", "what": "ns per lseek+read from Python, best of 3; "
                  "software-emulated guest: compare ratios", "runs": runs}, indent=2))
PY
echo "bench-trace: bench/results/trace.json"
