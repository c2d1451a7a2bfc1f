#!/usr/bin/env bash
# The QEMU plugin of make bench-fncount (bench/fncount/fncount.c), in this
# machine's QEMU without a guest (make unit): it loads (its API
# declarations match the QEMU that runs it: an unresolved symbol or version
# fails the load), writes its counts file when QEMU exits, saying it saw no
# symbols; without its arguments QEMU refuses it. The counting itself is
# checked against fibtrace in a guest by make bench-fncount (calls per read
# must agree). Prints PASS/FAIL lines (tests/run.sh counts them).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
so=build/bench/fncount.so
qemu=$(command -v qemu-system-x86_64)
if [ -z "$qemu" ]; then
	echo "SKIP fncount.loads: no qemu-system-x86_64 (make deps)"
	exit 0
fi
[ -f "$so" ] || make --no-print-directory "$so" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# QEMU quits at its monitor's "quit", read once it is up: no time bound
# (the 120 s only end a hang).
echo quit | timeout -s TERM 120 "$qemu" -M none -display none -monitor stdio \
	-plugin "$so,syms=$tmp/none,out=$tmp/counts" >"$tmp/log" 2>&1
head=$(head -n 1 "$tmp/counts" 2>/dev/null)
if [[ $head == "# fncount: no syms file seen, 0 functions"* ]]; then
	echo "PASS fncount.loads"
else
	echo "FAIL fncount.loads: counts file '$head'; QEMU said: $(tail -n 3 "$tmp/log" | tr '\n' ' ')"
fi
echo quit | timeout -s TERM 120 "$qemu" -M none -display none -monitor stdio -plugin "$so" \
	>"$tmp/log2" 2>&1
rc=$?
if [ $rc != 0 ] && [ $rc != 124 ] && grep -q "needs syms=FILE and out=FILE" "$tmp/log2"; then
	echo "PASS fncount.args_required"
else
	echo "FAIL fncount.args_required: status $rc: $(tail -n 3 "$tmp/log2" | tr '\n' ' ')"
fi
