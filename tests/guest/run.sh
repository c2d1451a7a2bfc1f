#!/usr/bin/env bash
# The guest test suite: runs inside the test VM (scripts/vmtest.sh), as root,
# from the repository root. Loads fibdrv, runs every tests/guest/test_*
# program, unloads fibdrv and scans dmesg. Each check prints one line
# "PASS|FAIL|SKIP <kernel line>/<name>"; exits non-zero on any FAIL.
set -uo pipefail
kver=$(uname -r)
line=$(echo "$kver" | cut -d. -f1,2)
export FIBTEST_KVER=$kver
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PYTHON=/usr/bin/python3
failed=0

report() { # STATUS NAME [DETAIL]
	echo "$1 $line/$2${3:+: $3}"
	[ "$1" = FAIL ] && failed=1
	return 0
}

echo "guest: kernel $kver, $(nproc) CPUs, $(awk '/MemTotal/ {print $2 / 1024 " MiB"}' /proc/meminfo)"
dmesg -C
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null || true

if insmod "build/$kver/fibdrv.ko"; then
	report PASS module.load
else
	report FAIL module.load "insmod build/$kver/fibdrv.ko failed"
	dmesg | tail -n 20
	exit 1
fi
if [ -d /sys/kernel/btf/fibdrv ] || [ -f /sys/kernel/btf/fibdrv ]; then
	report PASS module.btf
else
	report FAIL module.btf "/sys/kernel/btf/fibdrv missing: fentry on module functions will not attach"
fi

# GUEST_TESTS="test_a.py test_b.py": only those (make soak); default every one.
tests=(tests/guest/test_*)
[ -n "${GUEST_TESTS:-}" ] && read -ra tests <<<"$(printf 'tests/guest/%s ' $GUEST_TESTS)"
for t in "${tests[@]}"; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	start=$(date +%s)
	# Seconds of the guest's clock, which under icount are instructions: the
	# native build compiles the module in the guest, about 550 G instructions
	# (546 s on 6.12 under icount; a few minutes of the host's time).
	limit=${GUEST_TEST_TIMEOUT:-600}
	[ "$name" = test_native.py ] && limit=${GUEST_NATIVE_TIMEOUT:-1800}
	timeout --kill-after=10 "$limit" "$t" 2>&1 |
		sed -u -E "s#^(PASS|FAIL|SKIP) #\\1 $line/#"
	status=${PIPESTATUS[0]}
	echo "guest: $name exit $status in $(( $(date +%s) - start ))s"
	if [ "$status" = 124 ] || [ "$status" = 137 ]; then
		report FAIL "$name" "timed out"
	elif [ "$status" != 0 ]; then
		failed=1
	fi
done

if rmmod fibdrv; then
	report PASS module.unload
else
	report FAIL module.unload "rmmod fibdrv failed"
fi

# A clean kernel log is part of the contract: any splat fails the suite.
splats=$(dmesg | grep -E 'BUG|WARNING|Oops|general protection|soft lockup|hard LOCKUP|blocked for more than|hung_task|KASAN|UBSAN|refcount_t|list_add corruption|kernel BUG' || true)
if [ -z "$splats" ]; then
	report PASS dmesg.clean
else
	report FAIL dmesg.clean "kernel log reports problems"
	echo "$splats" | head -n 20
fi
echo "guest: done on $kver"
exit $failed
