#!/usr/bin/env bash
# scripts/layers-fibdrv.sh finds what it is for (make unit): on copies of
# build/obj/fibdrv's objects, one recompiled with a call planted in its
# source, it fails naming the planted edges: a cycle (bn_divexact.c calling
# bn_mul.c, which calls it back), a call up a layer (the allocator calling
# the limb layer), and passes on the objects as they are. Prints PASS/FAIL
# lines (tests/run.sh counts them); needs make user's objects.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
objs=build/obj/fibdrv
CC=${CC:-cc}

ok() { # NAME CONDITION-STATUS DETAIL
	if [ "$2" = 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi
}

if [ ! -f $objs/bn_divexact.o ] || [ ! -f $objs/bn_mem.o ]; then
	echo "SKIP layers.planted: no $objs/bn_divexact.o or bn_mem.o (make user builds them)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# plant NAME FILE CALL: $tmp/NAME/{src,obj}, FILE.c with CALL appended in a
# function of its own, recompiled; the other objects copied
plant() {
	mkdir -p "$tmp/$1/src" "$tmp/$1/obj"
	cp fibdrv/*.c fibdrv/*.h "$tmp/$1/src/"
	cp $objs/*.o "$tmp/$1/obj/"
	printf '\nnoinline void bn_planted_%s(u64 *r, size_t n)\n{\n\t%s;\n}\n' "$1" "$3" \
		>>"$tmp/$1/src/$2.c"
	$CC -O2 -Wall -std=gnu11 -Wno-missing-prototypes -I"$tmp/$1/src" -c "$tmp/$1/src/$2.c" \
		-o "$tmp/$1/obj/$2.o"
}

out=$(scripts/layers-fibdrv.sh "$objs" fibdrv 2>&1)
ok layers.clean "$(grep -q '^PASS layers.fibdrv ' <<<"$out"; echo $?)" "$out"

if plant cycle bn_divexact 'r[0] = bn_mul_n_itch(n)' 2>"$tmp/cc.log"; then
	out=$(scripts/layers-fibdrv.sh "$tmp/cycle/obj" "$tmp/cycle/src" 2>&1)
	rc=$?
	ok layers.planted_cycle "$([ $rc = 1 ] &&
		grep -q '^FAIL layers.fibdrv.cycle: ' <<<"$out" &&
		grep -q 'edge bn_divexact.o -> bn_mul.o (bn_mul_n_itch)' <<<"$out" &&
		grep -q 'edge bn_mul.o -> bn_divexact.o (bn_divexact_by3, bn_divexact_by5)' <<<"$out"
		echo $?)" "status $rc: $out"
else
	ok layers.planted_cycle 1 "compiling the planted bn_divexact.c failed: $(cat "$tmp/cc.log")"
fi

if plant up bn_mem 'bn_add_1(r, r, n, 1)' 2>"$tmp/cc.log"; then
	out=$(scripts/layers-fibdrv.sh "$tmp/up/obj" "$tmp/up/src" 2>&1)
	rc=$?
	ok layers.planted_call_up "$([ $rc = 1 ] &&
		grep -q '^FAIL layers.fibdrv.layer: alloc -> limb: bn_mem.o -> bn_aors.o (bn_add_1)' <<<"$out" &&
		! grep -q 'cycle' <<<"$out"
		echo $?)" "status $rc: $out"
else
	ok layers.planted_call_up 1 "compiling the planted bn_mem.c failed: $(cat "$tmp/cc.log")"
fi
