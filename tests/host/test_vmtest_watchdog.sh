#!/usr/bin/env bash
# scripts/vmtest.sh's boot watchdog (make unit), with a stand-in for vng: a
# boot that never reaches the command is stopped after VM_BOOT_TIMEOUT and
# booted once more (on 2026-12-02 a 6.12 guest that the suite booted again
# after a death stayed silent for 25 minutes); a command that runs longer
# than VM_BOOT_TIMEOUT once the guest is up is left alone. Prints PASS/FAIL.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
tmp=$(mktemp -d)
kver=vmtest-watchdog-test
mkdir -p "build/$kver"
: >"build/$kver/fibdrv.ko"
: >"$tmp/image"
trap 'rm -rf "$tmp" "build/$kver"' EXIT

# The stand-in: boot number N (counted in $FAKE_COUNT) does what $FAKE_PLAN's
# Nth word says: hang (no output, a minute), up (the guest's first line, then
# done) or slow (up, then 8 s of command).
cat >"$tmp/vng" <<'VNG'
#!/bin/sh
n=$(($(cat "$FAKE_COUNT" 2>/dev/null || echo 0) + 1))
echo "$n" >"$FAKE_COUNT"
set -- $FAKE_PLAN
shift $((n - 1))
case "$1" in
hang) sleep 60 ;;
up) echo "vmtest: guest up" ;;
slow) echo "vmtest: guest up"; sleep 8 ;;
esac
exit 0
VNG
chmod +x "$tmp/vng"

ok() { # NAME CONDITION-STATUS DETAIL
	if [ "$2" = 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi
}

run() { # PLAN: vmtest.sh's output into $out, its status into $rc, seconds into $took
	rm -f "$tmp/count"
	local start=$SECONDS
	out=$(PATH="$tmp:$PATH" FAKE_COUNT="$tmp/count" FAKE_PLAN="$1" VM_ACCEL=tcg VM_CLOCK=real \
		VM_BOOT_TIMEOUT=4 VM_IMAGE="$tmp/image" scripts/vmtest.sh "$kver" -- true 2>&1)
	rc=$? took=$((SECONDS - start)) boots=$(cat "$tmp/count" 2>/dev/null || echo 0)
}

run "hang up"
ok vmtest.watchdog.hung_boot_again "$([ $rc = 0 ] && [ "$boots" = 2 ] && [ $took -lt 40 ] &&
	[[ $out == *"did not come up within 4s"* ]] && [[ $out == *"booting it again"* ]]; echo $?)" \
	"status $rc, $boots boots, ${took}s: $out"
run "hang hang"
ok vmtest.watchdog.hung_twice_fails "$([ $rc != 0 ] && [ "$boots" = 2 ] && [ $took -lt 60 ]; echo $?)" \
	"status $rc, $boots boots, ${took}s: $out"
run "slow"
ok vmtest.watchdog.long_command_kept "$([ $rc = 0 ] && [ "$boots" = 1 ] &&
	[[ $out != *"did not come up"* ]]; echo $?)" "status $rc, $boots boots: $out"
