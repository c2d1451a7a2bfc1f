#!/usr/bin/env bash
# The builds of fibdrv that tests/guest/test_fibtrace_builds.py compares with
# `fibtrace --compare builds`, for each kernel release given:
#
#   build/KVER/builds/fibdrv_a.ko     the working tree, under the name fibdrv_a
#   build/KVER/builds/fibdrv_b.ko     the same sources again, as fibdrv_b (A/A)
#   build/KVER/builds/fibdrv_slow.ko  the same with a slowdown planted in a copy
#                                     of the sources (never committed):
#                                     fibdrv_format() busy-waits PLANT_US
#                                     microseconds when the decimal text is
#                                     longer than PLANT_MIN_LEN bytes, so
#                                     small n are untouched
#
# Usage: build-test-builds.sh "LIB_OBJS" KVER...  (make test-builds)
# Prints "PASS|FAIL builds.modules..." lines for the test runner, and writes
# build/KVER/builds/status (ok or failed) when KVER's builds are done.
set -uo pipefail
lib_objs=${1:?usage: build-test-builds.sh LIB_OBJS KVER...}
shift
top=$(cd "$(dirname "$0")/.." && pwd)
plant_us=${PLANT_US:-2000}
plant_min_len=${PLANT_MIN_LEN:-1000}
status=0

# shellcheck source=scripts/plant.sh
. "$top/scripts/plant.sh"
build_kver() { # KVER: its three builds; its PASS/FAIL line; non-zero on failure
	local kver=$1 out slow spec name status=0
	out=$top/build/$kver/builds
	mkdir -p "$out"
	# The planted copy: one line before the formatting call, checked to be there.
	slow=$out/src-slow
	if ! plant_copy "$top/fibdrv" "$slow" 'planted by build-test-builds.sh' \
		"s|^\(\t*\)len = fib_format(value, format, buf, len);|\1if (len > $plant_min_len)\n\1\tudelay($plant_us); /* planted by build-test-builds.sh */\n&|"; then
		echo "FAIL builds.modules.$kver: cannot plant the slowdown (fibdrv_format changed?)"
		return 1
	fi
	for spec in "fibdrv_a:$top/fibdrv" "fibdrv_b:$top/fibdrv" "fibdrv_slow:$slow"; do
		name=${spec%%:*}
		if ! "$top/scripts/build-module.sh" "$kver" "$lib_objs" "$name" "${spec#*:}" "$out" >/dev/null; then
			echo "FAIL builds.modules.$kver: $name did not build"
			status=1
		fi
	done
	[ "$status" = 0 ] && echo "PASS builds.modules.$kver: fibdrv_a, fibdrv_b, fibdrv_slow (udelay($plant_us) over $plant_min_len digits)"
	return $status
}

# build_kver, then its outcome for the guest test, which waits while
# build/KVER/builds/pending is there and no status (tests/run.sh creates
# pending and builds these beside the first guest's boot): "ok" or
# "failed" in build/KVER/builds/status.
mark_kver() { # KVER
	local out=$top/build/$1/builds rc=0
	mkdir -p "$out"
	rm -f "$out/status"
	build_kver "$1" || rc=$?
	if [ "$rc" = 0 ]; then echo ok; else echo failed; fi >"$out/status"
	rm -f "$out/pending"
	return $rc
}

# The kernels side by side (kbuild is mostly one process: two use the two
# cores), each one's lines printed in the order given.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pids=()
for kver in "$@"; do
	mark_kver "$kver" >"$tmp/$kver" 2>&1 &
	pids+=($!)
done
i=0
for kver in "$@"; do
	wait "${pids[$i]}" || status=1
	cat "$tmp/$kver"
	i=$((i + 1))
done
exit $status
