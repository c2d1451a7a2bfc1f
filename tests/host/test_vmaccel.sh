#!/usr/bin/env bash
# scripts/vmaccel.sh's choice, on this machine (make unit): VM_ACCEL=auto
# decides within 10 s and says why, and the clock follows the accelerator.
# Where the CPU advertises no hardware virtualisation (vmx/svm) that is TCG
# at once; where it does, the bounded boot check decides (a /dev/kvm whose
# guests hang, as on the PVM build machines, falls back to TCG). Prints
# PASS/FAIL lines (tests/run.sh counts them).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. scripts/vmaccel.sh
image=$(ls /boot/vmlinuz-* 2>/dev/null | head -n 1)
image=${image:-/boot/vmlinuz-none}

ok() { # NAME CONDITION-STATUS DETAIL
	if [ "$2" = 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi
}

start=$SECONDS
VM_ACCEL=auto VM_CLOCK=auto VM_PROBE_DIR=$(mktemp -d) vm_choose "$image" >/dev/null 2>&1
rc=$? took=$((SECONDS - start))
echo "# vmaccel: auto chose $VM_HOW in ${took}s: $VM_WHY"
ok vmaccel.auto.decides "$([ $rc = 0 ] && [ $took -le 10 ] && [ -n "$VM_WHY" ]; echo $?)" \
	"status $rc after ${took}s, why '$VM_WHY'"
if grep -qwE 'vmx|svm' /proc/cpuinfo; then
	ok vmaccel.auto.clock "$([ "$VM_HOW" = kvm ] && [ "$VM_CLOCK_NAME" = real ] ||
		{ [ "$VM_HOW" = tcg-icount ] && [ "$VM_CLOCK_NAME" = instructions ]; }; echo $?)" \
		"$VM_HOW / $VM_CLOCK_NAME"
else
	ok vmaccel.auto.tcg_without_vmx "$([ "$VM_HOW" = tcg-icount ] &&
		[ "$VM_CLOCK_NAME" = instructions ] && [[ $VM_WHY == *"no vmx or svm"* ]]; echo $?)" \
		"$VM_HOW / $VM_CLOCK_NAME: $VM_WHY"
fi
VM_ACCEL=kvm VM_CLOCK=icount vm_choose "$image" >/dev/null 2>&1
ok vmaccel.kvm_icount_refused "$([ $? = 1 ]; echo $?)" "VM_ACCEL=kvm VM_CLOCK=icount was accepted"
VM_ACCEL=tcg VM_CLOCK=real vm_choose "$image" >/dev/null 2>&1
ok vmaccel.tcg_real "$([ "$VM_HOW" = tcg ] && [ "$VM_CLOCK_NAME" = real ]; echo $?)" "$VM_HOW / $VM_CLOCK_NAME"
VM_ACCEL=bogus vm_choose "$image" >/dev/null 2>&1
ok vmaccel.bad_value "$([ $? = 1 ]; echo $?)" "VM_ACCEL=bogus was accepted"
