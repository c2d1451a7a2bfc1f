#!/usr/bin/env bash
# The README's two commands need no root once everything is installed
# (make unit; issue 47): as nobody (setpriv, when this runs as root; else as
# the user running it), in a copy of the tree that user owns
# (build/unpriv/tree: the sources and build/, the kernels' extracted vmlinux
# linked, not copied),
#
#   unpriv.demo  make demo, shortened (DEMO_SWEEP=0:100:50 DEMO_REPEAT=1:
#                3 reads): make deps, the build (both modules: kbuild
#                rebuilds them in the copy), a guest booted by that user
#                through scripts/vmtest.sh, fibdrv loaded in it, fibtrace's
#                report counting the 3 reads, its flame graph written back
#                into the copy as that user.
#
# make test is the same steps (make deps, make all, guests by vmtest.sh)
# and 20 minutes of suites; make deps alone as nobody is
# tests/host/test_deps.py's. The demo boots a guest (about a minute under
# emulation): while another QEMU runs (make test's suites, beside which
# make unit runs) it is skipped, a third guest slowing them several times;
# UNPRIV_DEMO=always runs it anyway.
# Prints PASS/FAIL/SKIP lines (tests/run.sh counts them).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

ok() { # NAME CONDITION-STATUS DETAIL
	if [ "$2" = 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi
}
skip() { echo "SKIP $1: $2"; }

if [ "$(id -u)" = 0 ]; then
	if ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1; then
		skip unpriv.demo "no setpriv or no user nobody to drop root with"
		exit 0
	fi
	who=nobody
	as=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups --)
	path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin # not root's
	home= # nobody's is /nonexistent: one in the copy
else
	who=$(id -un)
	as=()
	path=$PATH # where this user's tools are (vng from pip --user, say)
	home=$HOME
fi
kver=$(scripts/kernels.sh | sort -V | tail -n 1)
guests=$(pgrep -c qemu-system)
if [ -z "$kver" ]; then
	skip unpriv.demo "no kernel with image and headers (make deps)"
	exit 0
elif [ "$guests" -gt 0 ] && [ "${UNPRIV_DEMO:-}" != always ]; then
	skip unpriv.demo "$guests QEMU guest(s) already running (make test's suites?): a third would slow them several times"
	exit 0
elif ! "${as[@]}" test -r "/boot/vmlinuz-$kver"; then
	skip unpriv.demo "$who cannot read /boot/vmlinuz-$kver (the guest's kernel image)"
	exit 0
fi
if ! out=$("${as[@]}" env -i PATH="$path" scripts/deps.sh 2>&1); then
	skip unpriv.demo "make deps fails for $who (not everything installed: tests/host/test_deps.py says what): $(tail -n 1 <<<"$out")"
	exit 0
fi

work=$top/build/unpriv
tree=$work/tree
log=$top/build/unpriv.log
rm -rf "$work"
mkdir -p "$tree/build" "$work/home"
trap 'rm -rf "$work"' EXIT
# A clean environment: none of this make's (MAKEFLAGS, its jobserver) or root's.
userenv=(env -i HOME="${home:-$work/home}" PATH="$path" LANG=C.UTF-8 TERM=dumb ${VM_ACCEL:+VM_ACCEL=$VM_ACCEL} ${VM_CLOCK:+VM_CLOCK=$VM_CLOCK})
run_as() { # CMD...: in the copy, as $who
	(cd "$tree" && "${as[@]}" "${userenv[@]}" "$@")
}

# The copy keeps the files' times (tar), so make rebuilds little.
tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$tree" -xf - ||
	{ ok unpriv.demo 1 "copying the tree into $tree failed"; exit 1; }
tar -C "$top" --exclude=./build/unpriv --exclude=./build/vm --exclude=./build/perf-gate \
	--exclude=./build/fuzz --exclude='./build/*/vmlinux' --exclude='./build/*/builds' \
	-cf - ./build | tar -C "$tree" -xf - ||
	{ ok unpriv.demo 1 "copying build/ into $tree failed"; exit 1; }
for v in build/*/vmlinux; do
	[ -f "$v" ] && ln -s "$top/$v" "$tree/$v"
done
[ "$who" = nobody ] && chown -R nobody: "$work"
if ! run_as test -w . 2>/dev/null; then
	skip unpriv.demo "$who cannot reach $tree (a directory on the way closed to it)"
	exit 0
fi

start=$SECONDS
run_as env DEMO_SWEEP=0:100:50 DEMO_REPEAT=1 make --no-print-directory demo >"$log" 2>&1
rc=$?
echo "# unpriv: make demo as $who: exit $rc in $((SECONDS - start)) s (log: build/unpriv.log)"
owner=$(stat -c %U "$tree/build/vm/demo-flame.svg" 2>/dev/null)
# Three n, each read with the demo's two algorithms: six reads.
ok unpriv.demo "$([ $rc = 0 ] &&
	grep -qE '^fibdrv:fib_read \[[a-z.]+\]: count 6,' "$log" &&
	grep -q 'flame graph in build/vm/demo-flame.svg' "$log" &&
	[ "$owner" = "$who" ]
	echo $?)" "exit $rc, flame graph owned by '${owner:-no file}': $(tail -n 5 "$log" | tr '\n' ' ')"
# The demo's plot (issue 49): a PNG (its signature), of some size, the user's.
png=$tree/build/vm/demo.png
ok unpriv.demo.plot "$([ "$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
	[ "$(stat -c %s "$png")" -gt 10000 ] && [ "$(stat -c %U "$png")" = "$who" ]
	echo $?)" "$(ls -l "$png" 2>&1)"
