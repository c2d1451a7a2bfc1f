#!/usr/bin/env bash
# Boot one kernel release under QEMU (virtme-ng) and run a command in it,
# by default the guest test suite. Returns the command's exit status.
#
#   vmtest.sh KVER                 run tests/guest/run.sh
#   vmtest.sh KVER -- CMD ARGS...  run CMD in the guest, from the repository
#
# How the guest runs (docs/measurement.md, "Clocks"):
#   VM_ACCEL=auto (default) KVM where the CPU has hardware virtualisation,
#            /dev/kvm is usable and a guest boots on it within
#            VM_KVM_PROBE seconds (20); else software emulation (TCG), with
#            the reason on stderr. kvm or tcg force it.
#   VM_CLOCK=auto (default) icount under TCG, real under KVM. icount: QEMU's
#            -icount shift=0,align=off,sleep=off, the guest's clock advances
#            1 ns per instruction executed, whatever the host does, so every
#            time fibtrace measures is an exact, repeatable instruction
#            count. real: the guest's clock is the host's time. icount needs
#            TCG (VM_CLOCK=icount with VM_ACCEL=kvm is refused).
# The guest's kernel command line says which (fibtrace.clock=instructions
# or real, fibtrace.vm=kvm|tcg|tcg-icount): fibtrace's reports name the clock
# from it. VM_TIMEOUT bounds the whole boot and run (seconds, default 1800),
# VM_BOOT_TIMEOUT the boot alone (600: then it is stopped and booted once
# more); VM_VERBOSE=1 shows the guest kernel's console; VM_IMAGE another
# kernel image than /boot/vmlinuz-KVER;
# VM_MEM and VM_CPUS size the guest (VM_CPUS default 2; 1 for 6.1 under
# icount, whose boot does not finish with 2 vCPUs taking turns).
set -uo pipefail
kver=${1:?usage: vmtest.sh KVER [-- CMD ARGS...]}
shift
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$top/build/vm"
if [ "${1:-}" = "--" ]; then
	shift
	# Hand the command over in a script file: vng re-quotes a command line.
	script=$(mktemp "$top/build/vm/cmd.XXXXXX")
	printf '%q ' "$@" >"$script"
	cmd="bash ${script#$top/}"
else
	cmd="tests/guest/run.sh"
fi

image=${VM_IMAGE:-/boot/vmlinuz-$kver}
[ -r "$image" ] || { echo "vmtest: no readable $image (make deps)" >&2; exit 1; }
[ -f "$top/build/$kver/fibdrv.ko" ] || { echo "vmtest: no build/$kver/fibdrv.ko (make module KVER=$kver)" >&2; exit 1; }
command -v vng >/dev/null || { echo "vmtest: vng not found (make deps)" >&2; exit 1; }

# shellcheck source=scripts/vmaccel.sh
. "$top/scripts/vmaccel.sh"
vm_choose "$image" || exit 2
accel=(--disable-kvm)
[ "$VM_HOW" = kvm ] && accel=() # KVM is vng's own default
# VM_VERBOSE=1: the kernel's console messages too (a guest that dies
# without a word from its command may have said why there).
[ -n "${VM_VERBOSE:-}" ] && accel+=(--verbose)
# VM_QEMU_EXTRA: more QEMU options (make bench-fncount's -plugin).
qemu=${VM_QEMU_EXTRA:-}
[ "$VM_HOW" = tcg-icount ] && qemu="-icount shift=0,align=off,sleep=off${qemu:+ $qemu}"
qemu_opts=()
[ -n "$qemu" ] && qemu_opts=("--qemu-opts=$qemu")
cpus=${VM_CPUS:-2}
if [ -z "${VM_CPUS:-}" ] && [ "$VM_HOW" = tcg-icount ] && [[ $kver == 6.1.* ]]; then
	cpus=1
fi
echo "vmtest: $kver, $VM_HOW ($VM_WHY), $cpus vCPUs" >&2
# VM_APPEND: the guest kernel's command line additions. By default the TSC
# is the clocksource, as on real machines: left to choose, the emulated
# kernel sometimes distrusts the TSC and picks HPET, and then every BPF
# timestamp is an emulated MMIO read (fibtrace reports the clocksource).
# VM_APPEND="" lets the kernel choose.
append=()
for opt in ${VM_APPEND-clocksource=tsc tsc=reliable}; do append+=(--append "$opt"); done
append+=(--append "fibtrace.clock=$VM_CLOCK_NAME" --append "fibtrace.vm=$VM_HOW")
# Under icount the same run must count the same instructions: KASLR would
# move the kernel and its modules at every boot, and with them the order of
# kprobe.multi's sorted addresses and which entries share a hash bucket
# (an empty traced function's cost moved by 20 instructions between boots).
[ "$VM_HOW" = tcg-icount ] && append+=(--append nokaslr)
# The guest shares the host's root file system read-only; build/vm is the
# one directory it may write back (test artefacts, plots).
console=$(mktemp "$top/build/vm/console.XXXXXX")
pidfile=$console.pid
watchdog=
trap 'rm -f "${script:-}" "$console" "$pidfile"; [ -z "$watchdog" ] || kill "$watchdog" 2>/dev/null' EXIT
# A boot that never reaches the command (seen twice on 6.12 under icount
# after a guest had died: the console stayed empty for 25 minutes) is
# stopped after VM_BOOT_TIMEOUT seconds (600; booting takes under 2
# minutes here with two guests at once), and booted again below.
boot_watchdog() {
	local waited=0
	while [ "$waited" -lt "${VM_BOOT_TIMEOUT:-600}" ]; do
		sleep 2
		waited=$((waited + 2))
		grep -q 'vmtest: guest up' "$console" 2>/dev/null && return 0
	done
	echo "vmtest: the guest did not come up within ${VM_BOOT_TIMEOUT:-600}s: stopping it" >&2
	[ -s "$pidfile" ] && kill -TERM "$(cat "$pidfile")" 2>/dev/null
}
boot() {
	: >"$console"
	rm -f "$pidfile"
	boot_watchdog &
	watchdog=$!
	# timeout's pid into $pidfile, for the watchdog: it stops vng and QEMU.
	sh -c 'echo $$ >"$0"; exec "$@"' "$pidfile" timeout --kill-after=15 "${VM_TIMEOUT:-1800}" \
		vng -r "$image" "${accel[@]}" "${qemu_opts[@]}" "${append[@]}" -m "${VM_MEM:-2G}" -p "$cpus" \
		--rwdir "$top/build/vm" -- "echo vmtest: guest up; cd $(printf %q "$top") && $cmd" </dev/null 2>&1 |
		tee "$console"
	# Through a pipe: given a regular file as stdout, the VM's console
	# reopens and truncates it, losing what was printed before the boot.
	status=${PIPESTATUS[0]}
	kill "$watchdog" 2>/dev/null
	wait "$watchdog" 2>/dev/null
	watchdog=
}
boot
# A guest that died or hung before running anything (QEMU or vng failing
# to start, seen once with no message at all; the watchdog above) gets one
# more boot; a failing command does not.
if [ $status != 0 ] && ! grep -q 'vmtest: guest up' "$console"; then
	echo "vmtest: the guest exited with status $status before running anything: booting it again"
	boot
fi
if [ $status = 124 ] || [ $status = 137 ]; then
	echo "FAIL vm.$kver.timeout: guest did not finish within ${VM_TIMEOUT:-1800}s"
fi
exit $status
