#!/usr/bin/env bash
# Build build/<release>/fibdrv.ko for one kernel release, with module BTF.
# Usage: build-module.sh KVER "LIB_OBJS"
#
# kbuild skips BTF for out-of-tree modules when the headers package has no
# vmlinux (Debian's has none), so extract it from /boot/vmlinuz-KVER and run
# pahole with the flags kbuild itself uses.
set -euo pipefail
kver=${1:?usage: build-module.sh KVER LIB_OBJS}
lib_objs=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/$kver
kdir=/lib/modules/$kver/build

[ -d "$kdir" ] || { echo "build-module: no headers for $kver ($kdir); run make deps" >&2; exit 1; }
mkdir -p "$out/kmod"
# Copy rather than build in place: one object tree per kernel, source tree clean.
cp -p "$top"/fibdrv/*.c "$top"/fibdrv/*.h "$top"/fibdrv/Kbuild "$out/kmod/"
make -s -C "$kdir" M="$out/kmod" FIBDRV_LIB_OBJS="$lib_objs" modules 2>&1 |
	grep -v 'Skipping BTF generation' || true
[ -f "$out/kmod/fibdrv.ko" ] || { echo "build-module: kbuild failed for $kver" >&2; exit 1; }

if [ ! -s "$out/vmlinux" ] || [ "/boot/vmlinuz-$kver" -nt "$out/vmlinux" ]; then
	python3 "$top/scripts/extract-vmlinux.py" "/boot/vmlinuz-$kver" "$out/vmlinux.tmp"
	mv "$out/vmlinux.tmp" "$out/vmlinux"
fi
cp "$out/kmod/fibdrv.ko" "$out/fibdrv.ko.tmp"
LLVM_OBJCOPY=objcopy pahole -J --btf_gen_floats -j --lang_exclude=rust \
	--btf_base "$out/vmlinux" "$out/fibdrv.ko.tmp"
readelf -S "$out/fibdrv.ko.tmp" | grep -q '\.BTF' ||
	{ echo "build-module: pahole added no .BTF to fibdrv.ko" >&2; exit 1; }
mv "$out/fibdrv.ko.tmp" "$out/fibdrv.ko"
echo "build-module: $out/fibdrv.ko (with BTF)"
