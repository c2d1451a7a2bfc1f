# How a guest runs: KVM or software emulation (TCG), and which clock it
# keeps. Sourced by scripts/vmtest.sh (and scripts that report how their
# guest ran); defines vm_choose only.
#
#   vm_choose IMAGE   sets VM_HOW (kvm, tcg or tcg-icount), VM_CLOCK_NAME
#                     (real or instructions) and VM_WHY (one line: why this
#                     accelerator); returns 1 with a message on a bad setting
#
# VM_ACCEL=auto|kvm|tcg and VM_CLOCK=auto|real|icount (scripts/vmtest.sh).
# auto's KVM check, in order, each failing to TCG with its reason: the CPU
# advertises vmx or svm; /dev/kvm can be opened for reading and writing; a
# guest of IMAGE boots on it and runs `true` within VM_KVM_PROBE seconds
# (default 20). The last matters: a /dev/kvm can belong to a hypervisor that
# runs only its own guest kernels, on which a stock kernel hangs (these build
# machines: PVM). Its answer is kept for the host's boot in
# build/vm/kvm-probe.KVER, so a test run probes once.

vm_kvm_check() { # IMAGE: 0 when KVM works, else 1 with the reason in VM_WHY
	local image=$1 kver cache boot
	if ! grep -qwE 'vmx|svm' /proc/cpuinfo 2>/dev/null; then
		VM_WHY="no vmx or svm flag in /proc/cpuinfo: no hardware virtualisation"
		return 1
	fi
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		VM_WHY="/dev/kvm missing or not readable and writable by $(id -un) (add the user to group kvm, or a udev rule: docs/ci.md)"
		return 1
	fi
	kver=${image##*/vmlinuz-}
	cache=${VM_PROBE_DIR:-build/vm}/kvm-probe.$kver
	boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
	if [ -f "$cache" ] && [ "$(head -n 1 "$cache")" = "$boot" ]; then
		VM_WHY=$(tail -n 1 "$cache")
		[ "$(sed -n 2p "$cache")" = ok ]
		return
	fi
	local t=${VM_KVM_PROBE:-20} start=$SECONDS rc=0
	echo "vmtest: checking that a guest boots on KVM (at most ${t}s)" >&2
	timeout --kill-after=5 "$t" vng -r "$image" -m 512M -p 1 -- true \
		</dev/null >/dev/null 2>&1 || rc=$?
	mkdir -p "${cache%/*}"
	if [ $rc = 0 ]; then
		VM_WHY="KVM: a guest booted in $((SECONDS - start))s"
		printf '%s\nok\n%s\n' "$boot" "$VM_WHY" >"$cache"
		return 0
	fi
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		VM_WHY="a guest on /dev/kvm did not finish booting within ${t}s (a hypervisor that runs only its own guest kernels?)"
	else
		VM_WHY="a guest on /dev/kvm failed to boot (status $rc)"
	fi
	printf '%s\nfail\n%s\n' "$boot" "$VM_WHY" >"$cache"
	return 1
}

vm_choose() { # IMAGE
	local accel=${VM_ACCEL:-auto} clock=${VM_CLOCK:-auto}
	case $accel in
	kvm) VM_HOW=kvm VM_WHY="VM_ACCEL=kvm" ;;
	tcg) VM_HOW=tcg VM_WHY="VM_ACCEL=tcg" ;;
	auto)
		if [ "$clock" = icount ]; then
			VM_HOW=tcg VM_WHY="VM_CLOCK=icount needs TCG"
		elif vm_kvm_check "$1"; then
			VM_HOW=kvm
		else
			VM_HOW=tcg VM_WHY="TCG: $VM_WHY"
		fi
		;;
	*)
		echo "vmtest: VM_ACCEL=$accel is not auto, kvm or tcg" >&2
		return 1
		;;
	esac
	case $clock in
	auto) [ "$VM_HOW" = tcg ] && clock=icount || clock=real ;;
	real | icount) ;;
	*)
		echo "vmtest: VM_CLOCK=$clock is not auto, real or icount" >&2
		return 1
		;;
	esac
	if [ "$clock" = icount ]; then
		if [ "$VM_HOW" = kvm ]; then
			echo "vmtest: VM_CLOCK=icount needs software emulation (VM_ACCEL=tcg or auto), not KVM" >&2
			return 1
		fi
		VM_HOW=tcg-icount VM_CLOCK_NAME=instructions
	else
		VM_CLOCK_NAME=real
	fi
	return 0
}
