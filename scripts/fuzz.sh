#!/bin/bash
# scripts/fuzz.sh NAME BIN BUDGET SEED [libFuzzer options...]: one harness of
# `make fuzz` (mk/fuzz.mk). Replays every input of tests/fuzz/regressions/NAME
# (PASS/FAIL fuzz.NAME.regressions), then fuzzes for BUDGET (SECONDS, or
# runs=N inputs) from the checked-in
# corpus tests/fuzz/corpus/NAME (new inputs to build/fuzz/NAME/corpus,
# findings to build/fuzz/NAME/crashes; PASS/FAIL fuzz.NAME). A finding is
# replayed once more with the harness's messages shown.
set -u
name=$1 bin=$2 budget=$3 seed=$4
shift 4
out=build/fuzz/$name
mkdir -p "$out/corpus" "$out/crashes"

regress=(tests/fuzz/regressions/"$name"/*)
if [ -e "${regress[0]}" ]; then
	if "$bin" "$@" "${regress[@]}" >"$out/regressions.log" 2>&1; then
		echo "PASS fuzz.$name.regressions (${#regress[@]} inputs)"
	else
		echo "FAIL fuzz.$name.regressions: see $out/regressions.log"
		tail -n 20 "$out/regressions.log"
		exit 1
	fi
else
	echo "SKIP fuzz.$name.regressions: no regression inputs yet"
fi

case $budget in
runs=*) limit=-runs=${budget#runs=} ;;
*) limit=-max_total_time=$budget ;;
esac
start=$(date +%s)
# -close_fd_mask=3: the harness's own stdout and stderr are closed while it
# fuzzes (libFuzzer keeps its messages). fibtrace's command line prints its
# usage or help for most inputs: 3 million of them wrote a 29 GB fuzz.log
# and filled CI's disk (2026-11-30). A finding is replayed with them shown.
if "$bin" "$@" "$limit" -seed="$seed" -print_final_stats=1 -close_fd_mask=3 \
	-artifact_prefix="$out/crashes/" "$out/corpus" "tests/fuzz/corpus/$name" >"$out/fuzz.log" 2>&1; then
	runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/fuzz.log" | grep -o '[0-9]*$')
	echo "PASS fuzz.$name (${runs:-?} runs in $(( $(date +%s) - start )) s)"
else
	echo "FAIL fuzz.$name: a finding in $out/crashes (log $out/fuzz.log); copy it to tests/fuzz/regressions/$name"
	tail -n 30 "$out/fuzz.log"
	for f in "$out"/crashes/*; do
		[ -f "$f" ] || continue
		echo "# replayed with the harness's messages: $f"
		"$bin" "$@" "$f" 2>&1 | tail -n 20
		break
	done
	exit 1
fi
