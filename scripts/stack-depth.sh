#!/usr/bin/env bash
# The deepest stack of traced calls per algorithm at its largest n (or at
# N): builds bench/stack_depth.c with the library and -finstrument-functions
# (no PIE, so nm's addresses are the run's), and counts only the functions
# fibdrv.ko has as bn_/fib_/fibdrv_ text symbols.
# Usage: stack-depth.sh KO [N]
set -euo pipefail
export LC_ALL=C # sort and join must agree on the order
ko=${1:?usage: stack-depth.sh build/KVER/fibdrv.ko [N]}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
mkdir -p "$out"
srcs=$(make -s -C "$top" --no-print-directory print-bn-srcs)
(cd "$top" && gcc -O2 -g -no-pie -std=gnu11 -Ifibdrv -finstrument-functions \
	-o "$out/stack_depth" bench/stack_depth.c $srcs)
nm "$ko" | awk 'NF == 3 && $2 ~ /^[tT]$/ && $3 ~ /^(bn_|fib_|fibdrv_)/ {print $3}' | sort -u >"$out/traced.names"
nm "$out/stack_depth" | awk 'NF == 3 && $2 ~ /^[tT]$/ {print $3, $1}' | sort >"$out/all.syms"
join "$out/traced.names" "$out/all.syms" | awk '{print $2}' | "$out/stack_depth" ${2:-}
