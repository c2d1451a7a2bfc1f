#!/usr/bin/env bash
# Build fibdrv for one kernel release, with module BTF.
#
#   build-module.sh KVER "LIB_OBJS" [NAME [SRC [OUT]]]
#
#   KVER      kernel release (headers in /lib/modules/KVER/build)
#   LIB_OBJS  the big-number library's objects (from mk/bignum.mk's BN_SRCS)
#   NAME      module name (default fibdrv)
#   SRC       fibdrv source directory (default: this repository's fibdrv/)
#   OUT       output directory (default build/KVER); writes OUT/NAME.ko and
#             builds in OUT/kmod (fibdrv) or OUT/kmod-NAME (any other name)
#
# An empty NAME, SRC or OUT means the default; relative paths are taken from
# the current directory. With no NAME, SRC or OUT (make module) the result is
# build/KVER/fibdrv.ko, device /dev/fibonacci.
#
# Under a NAME other than fibdrv (make perf-gate loads two builds side by
# side), the Kbuild is generated instead of copied and compiles with
# -DFIBDRV_DEVICE_NAME='"NAME"': the device is /dev/NAME, its sysfs
# directory /sys/class/misc/NAME/. Sources older than FIBDRV_DEVICE_NAME get
# their "fibonacci" literals replaced by it, in the copy only.
#
# kbuild skips BTF for out-of-tree modules when the headers package has no
# vmlinux (Debian's, Ubuntu's and Fedora's have none), so this script runs
# pahole itself, with the flags kbuild computes for that kernel
# (PAHOLE_FLAGS, printed by a line appended to the build's Kbuild), against
# the kernel's own BTF:
#   - for the running kernel (KVER = uname -r), /sys/kernel/btf/vmlinux,
#     which every user may read: no root, no /boot (the native path);
#   - for any other release (the guests' kernels), the vmlinux extracted from
#     /boot/vmlinuz-KVER (once per release, into build/KVER/vmlinux).
#
#   build-module.sh --if-headers KVER LIB_OBJS
#
# builds only when KVER's headers are installed (and, for the running kernel,
# its BTF is there), and otherwise says what is missing and exits 0 (make's
# build for the running kernel).
set -euo pipefail
usage='usage: build-module.sh [--if-headers] KVER LIB_OBJS [NAME [SRC [OUT]]]'
optional=0
if [ "${1:-}" = --if-headers ]; then
	optional=1
	shift
fi
kver=${1:?$usage}
lib_objs=${2:-}
name=${3:-fibdrv}
top=$(cd "$(dirname "$0")/.." && pwd)
src=${4:-$top/fibdrv}
out=${5:-$top/build/$kver}
kdir=/lib/modules/$kver/build

die() { echo "build-module: $*" >&2; exit 1; }

running=$(uname -r)
# The package that installs KVER's headers, by distribution.
headers_package() {
	local id
	id=$(. /etc/os-release 2>/dev/null && echo "${ID:-} ${ID_LIKE:-}")
	case " $id " in
	*" fedora "* | *" rhel "* | *" centos "*) echo "sudo dnf install kernel-devel-$1" ;;
	*" debian "* | *" ubuntu "*) echo "sudo apt-get install linux-headers-$1" ;;
	*) echo "your distribution's headers for $1 (Debian, Ubuntu: linux-headers-$1; Fedora: kernel-devel-$1)" ;;
	esac
}
if [ ! -d "$kdir" ]; then
	if [ "$kver" = "$running" ]; then
		why="no headers for the running kernel $kver ($kdir): install them with: $(headers_package "$kver")"
	else
		why="no headers for $kver ($kdir): make deps installs the guests' kernels; for another kernel: $(headers_package "$kver")"
	fi
	if [ $optional = 1 ]; then
		echo "build-module: $why; build/$kver/fibdrv.ko not built" >&2
		exit 0
	fi
	die "$why"
fi
# The kernel's own BTF, which the module's is split from (pahole --btf_base).
if [ "$kver" = "$running" ] && [ ! -r /sys/kernel/btf/vmlinux ]; then
	why="the running kernel $kver has no BTF (/sys/kernel/btf/vmlinux: it was built without CONFIG_DEBUG_INFO_BTF): fibtrace's BPF programs need it (CO-RE); use a kernel with BTF (Debian 11+, Ubuntu 20.10+, Fedora 31+ ship one)"
	if [ $optional = 1 ]; then
		echo "build-module: $why; build/$kver/fibdrv.ko not built" >&2
		exit 0
	fi
	die "$why"
fi
command -v pahole >/dev/null ||
	die "pahole not found: install dwarves (Debian, Ubuntu, Fedora: the package dwarves)"
# 1.24 -> 124, as the kernel's scripts/pahole-version.sh counts.
pahole_ver=$(pahole --version | sed -E 's/^v([0-9]+)\.([0-9]+).*/\1\2/')
kernel_pahole=$(sed -n 's/^CONFIG_PAHOLE_VERSION=//p' "$kdir/.config" 2>/dev/null || true)
[ "$pahole_ver" -ge 120 ] 2>/dev/null ||
	die "pahole $(pahole --version) is too old: module BTF needs pahole 1.20 or later (--btf_base); install a newer dwarves"
if grep -q '^# CONFIG_DEBUG_INFO_BTF_MODULES is not set' "$kdir/.config" 2>/dev/null; then
	echo "build-module: warning: $kver was built without CONFIG_DEBUG_INFO_BTF_MODULES:" \
		"it ignores module BTF, so fibtrace will use kprobes, not fentry" >&2
fi
# A module name: what kbuild and /dev accept, under MODULE_NAME_LEN (56).
[[ $name =~ ^[A-Za-z_][A-Za-z0-9_]{0,54}$ ]] || die "bad module name '$name' (letters, digits, _)"
[ -d "$src" ] || die "no source directory $src"
src=$(cd "$src" && pwd)
[ -f "$src/fibdrv_main.c" ] || die "$src has no fibdrv_main.c"
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The vmlinux extracted from /boot (not for the running kernel): kept in the
# repository's build/KVER, or beside the module where the script is
# installed (make install: $(PREFIX)/share/fibtrace/scripts).
if [ -f "$top/mk/bignum.mk" ]; then
	vmlinux=$top/build/$kver/vmlinux
else
	vmlinux=$out/vmlinux-$kver
fi

if [ "$name" = fibdrv ]; then
	kmod=$out/kmod
else
	kmod=$out/kmod-$name
	[ ! -e "$src/$name.c" ] || die "module name '$name' is also a source file of $src"
fi
# Another source or name: start from an empty object tree. The copies keep
# their times (cp -p), and a source older than a stale object would not be
# rebuilt (git archive dates files at the commit).
if [ "$name" != fibdrv ] || [ "$src" != "$top/fibdrv" ]; then
	rm -rf "$kmod"
fi
mkdir -p "$kmod"
# Copy rather than build in place: one object tree per kernel, source tree clean.
if [ "$name" = fibdrv ]; then
	cp -p "$src"/*.c "$src"/*.h "$src"/Kbuild "$kmod/"
else
	cp -p "$src"/*.c "$src"/*.h "$kmod/"
	# The source's own Kbuild is for fibdrv.ko: what it has beyond the two
	# lines generated here is not carried over.
	if [ -f "$src/Kbuild" ]; then
		extra=$(grep -vE '^[[:space:]]*(#|$)' "$src/Kbuild" |
			grep -vxE 'obj-m[[:space:]]*:?=[[:space:]]*fibdrv\.o' |
			grep -vxE 'fibdrv-y[[:space:]]*:?=[[:space:]]*fibdrv_main\.o[[:space:]]+\$\(FIBDRV_LIB_OBJS\)' ||
			true)
		[ -z "$extra" ] ||
			echo "build-module: $name: ignoring these lines of $src/Kbuild: $extra" >&2
	fi
	cat >"$kmod/Kbuild" <<-KBUILD
		# Generated by scripts/build-module.sh: $name.ko, device /dev/$name.
		obj-m := $name.o
		$name-y := fibdrv_main.o \$(FIBDRV_LIB_OBJS)
		ccflags-y += -DFIBDRV_DEVICE_NAME='"$name"'
	KBUILD
	if ! grep -q FIBDRV_DEVICE_NAME "$kmod/fibdrv_main.c"; then
		count=$({ grep -o '"fibonacci"' "$kmod/fibdrv_main.c" || true; } | wc -l)
		[ "$count" -gt 0 ] ||
			die "$src/fibdrv_main.c neither uses FIBDRV_DEVICE_NAME nor has a \"fibonacci\" literal: cannot rename its device"
		sed -i 's/"fibonacci"/FIBDRV_DEVICE_NAME/g' "$kmod/fibdrv_main.c"
		echo "build-module: $name: $src/fibdrv_main.c predates FIBDRV_DEVICE_NAME;" \
			"replaced its $count \"fibonacci\" literal(s) by it in the copy" >&2
	fi
fi
# The flags kbuild would give pahole for this kernel (it skips the step
# itself without a vmlinux in the headers): printed while kbuild reads the Kbuild.
cat >>"$kmod/Kbuild" <<-'KBUILD'
	# Appended by build-module.sh: the pahole flags of this kernel's kbuild.
	$(info build-module-pahole-flags: $(PAHOLE_FLAGS) $(MODULE_PAHOLE_FLAGS))
KBUILD
rm -f "$kmod/$name.ko"
kbuild_out=$(make -s -C "$kdir" M="$kmod" FIBDRV_LIB_OBJS="$lib_objs" modules 2>&1) || true
pahole_flags=$(sed -n 's/^build-module-pahole-flags: //p' <<<"$kbuild_out" | head -n 1)
grep -v -e 'Skipping BTF generation' -e '^build-module-pahole-flags: ' <<<"$kbuild_out" || true
[ -f "$kmod/$name.ko" ] || die "kbuild failed for $kver"

if [ "$kver" = "$running" ]; then
	base=/sys/kernel/btf/vmlinux
else
	image=/boot/vmlinuz-$kver
	[ -r "$image" ] || die "cannot read $image: the BTF of $kver comes from its image (for the running kernel it would come from /sys/kernel/btf/vmlinux)"
	if [ ! -s "$vmlinux" ] || [ "$image" -nt "$vmlinux" ]; then
		mkdir -p "$(dirname "$vmlinux")"
		python3 "$top/scripts/extract-vmlinux.py" "$image" "$vmlinux.tmp.$$"
		mv "$vmlinux.tmp.$$" "$vmlinux"
	fi
	base=$vmlinux
fi
cp "$kmod/$name.ko" "$out/$name.ko.tmp"
# shellcheck disable=SC2086 # kbuild's flags, one word each
if ! LLVM_OBJCOPY=objcopy pahole -J $pahole_flags --btf_base "$base" "$out/$name.ko.tmp"; then
	rm -f "$out/$name.ko.tmp"
	if [ -n "$kernel_pahole" ] && [ "$pahole_ver" -lt "$kernel_pahole" ]; then
		die "pahole $(pahole --version) failed with the flags of $kver's kbuild ($pahole_flags): that kernel was built with pahole ${kernel_pahole:0:1}.${kernel_pahole:1}; install dwarves ${kernel_pahole:0:1}.${kernel_pahole:1} or later"
	fi
	die "pahole failed on $name.ko (flags: $pahole_flags; base: $base)"
fi
readelf -S "$out/$name.ko.tmp" | grep -q '\.BTF' || die "pahole added no .BTF to $name.ko"
if [ "$name" != fibdrv ] && strings -a "$out/$name.ko.tmp" | grep -x fibonacci >/dev/null; then
	echo "build-module: warning: $name.ko still has the string \"fibonacci\":" \
		"it may not load beside fibdrv" >&2
fi
mv "$out/$name.ko.tmp" "$out/$name.ko"
# A kernel in lockdown (Secure Boot) refuses a module without a signature it trusts.
if [ "$kver" = "$running" ] && grep -qE '\[(integrity|confidentiality)\]' /sys/kernel/security/lockdown 2>/dev/null; then
	echo "build-module: note: this kernel is locked down ($(cat /sys/kernel/security/lockdown)):" \
		"it will refuse $name.ko unless it is signed with a key it trusts (docs/native.md#secure-boot)" >&2
fi
echo "build-module: $out/$name.ko (with BTF from $base)"
