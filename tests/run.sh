#!/usr/bin/env bash
# The test runner behind `make test`: host unit tests, then the guest suite
# on each kernel release given. Counts the PASS/FAIL/SKIP lines every test
# prints and ends with the summary line "N passed, N failed, N skipped".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log=$(mktemp)
trap '[ -n "${disk_pid:-}" ] && kill "$disk_pid" 2>/dev/null; rm -f "$log" "$log".*' EXIT
status=0

run() { # run a suite, echoing and recording its lines
	"$@" 2>&1 | tee -a "$log"
	local rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || status=1
	return 0
}

# Disk: what the suite writes (builds, guests' logs, the gate's second tree)
# goes under build/. A filesystem that fills mid-run fails whatever test is
# writing then, after many minutes (seen in CI on 2026-11-30: "No space left
# on device" after the 6.1 suite); too little space at the start fails here,
# at once, and the lowest free space seen is printed at the end.
DISK_NEED_MIB=${DISK_NEED_MIB:-1024}
disk_free() { df -Pk build 2>/dev/null | awk 'NR == 2 {print int($4 / 1024)}'; }
mkdir -p build
disk0=$(disk_free)
if [ -n "$disk0" ] && [ "$disk0" -lt "$DISK_NEED_MIB" ]; then
	echo "FAIL disk.free: $disk0 MiB free on build/'s filesystem ($(df -P build | awk 'NR == 2 {print $6}')); make test needs about $DISK_NEED_MIB MiB there: free some space first (DISK_NEED_MIB overrides)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
disk_watch() { # the lowest free space on build/'s filesystem, every 10 s, into $log.disk
	local min=$disk0 f
	echo "$min" >"$log.disk"
	while sleep 10; do
		f=$(disk_free)
		if [ -n "$f" ] && [ "$f" -lt "$min" ]; then
			min=$f
			echo "$min" >"$log.disk"
		fi
	done
}
[ -n "$disk0" ] && { disk_watch & disk_pid=$!; }

# The module builds test_fibtrace_builds.py compares (make test-builds, the
# kernels side by side) are made beside the first guest's boot, at nice 10:
# before the guests they held the first one back by 25 s of the 45 s before
# it (clean clones, 2026-11-27), and that file comes fourth in a suite,
# after two minutes or more. It waits while build/KVER/builds/pending is
# there and build/KVER/builds/status not yet; their lines are printed after
# the suites.
for k in "$@"; do
	mkdir -p "build/$k/builds"
	rm -f "build/$k/builds/status"
	touch "build/$k/builds/pending"
done
(nice -n 10 make --no-print-directory test-builds >"$log.builds" 2>&1
 echo $? >"$log.builds.rc"
 for k in "$@"; do rm -f "build/$k/builds/pending"; done) & # also when make failed early
builds_pid=$!
if [ $# = 0 ]; then
	echo "FAIL vm.kernels: no kernel with headers installed (make deps)" | tee -a "$log"
	status=1
fi
rm -f build/vm/flame-*.svg build/vm/flame-*.png # written by the guest suites, checked below
# The host's own tests run beside the guest suites, at nice 19: two emulated
# guests leave about a sixth of the two cores idle (fentry and kprobe
# detach wait for grace periods; qemu's CPU time over wall time, both
# guests: 1.67-1.74 of 2), and a niced process takes mostly that (with
# them beside it the 6.1 suite took 906 s in a clean clone; the same tests
# without, 917-1074 s in the previous six). The fuzzers run a fixed number
# of inputs (FUZZ_RUNS, mk/fuzz.mk), not a time budget a busy core would
# shrink. Their lines are printed after the suites.
host_tests() {
	nice -n 19 make --no-print-directory unit >"$log.unit" 2>&1
	echo $? >"$log.unit.rc"
	nice -n 19 make --no-print-directory -j2 --output-sync=target fuzz FUZZ_RUNS=yes \
		>"$log.fuzz" 2>&1
	echo $? >"$log.fuzz.rc"
}
host_tests &
host_pid=$!
# The guests count instructions (QEMU icount, scripts/vmaccel.sh): every time
# a test compares is then an exact count that repeats on any host, so no
# check can fail by chance and the comparisons decide exactly
# (docs/measurement.md, "Clocks"). icount needs software emulation; on a
# machine with KVM, VM_CLOCK=real runs the suites there, several times
# faster, and each statistical check then risks a false positive at most 1 in
# 10,000 (tests/guest/gtest.py, REAL_CLOCK_P).
export VM_CLOCK=${VM_CLOCK:-icount}
# One vCPU per guest under icount (6.1 always had one there): 6.12's guest
# with two died silently in two of two clean-clone runs on 2026-12-02 and
# in about one in ten before (a double fault in QEMU 7.2's TCG, caught on
# the console once: docs/tests.md), while 6.1's with one never did in some
# 25 suites. Under icount QEMU runs the vCPUs in turn on one host thread,
# so one is not slower; VM_CPUS=2 brings the second back.
[ "$VM_CLOCK" = icount ] && export VM_CPUS=${VM_CPUS:-1}
# 40 min per suite (vmtest.sh's default is 30): 13-18 side by side on this
# 2-core host, more beside other load; a hang still ends well within CI's time.
export VM_TIMEOUT=${VM_TIMEOUT:-2400}
# The suites' guests also expedite RCU grace periods (IPIs instead of waiting
# for every CPU's next tick): releasing a kprobe perf event waits for several
# (perf_kprobe_destroy), and under emulation 6.1's full-set kprobe detach
# took 20.7 s with normal grace periods and 10.5 s expedited (two runs each,
# same host). Nothing a test asserts depends on grace periods being slow;
# make bench-trace keeps the kernel's default, so its detach figures are a
# stock kernel's.
export VM_APPEND=${VM_APPEND-clocksource=tsc tsc=reliable rcupdate.rcu_expedited=1}
# The kernels' guest suites run GUEST_JOBS at a time (default 2): one guest
# keeps about 1.3 of this host's 2 cores busy, so two side by side take less
# wall time than one after the other; a third would slow every guest several
# times. Each suite's lines go to its own file, printed when it ends.
GUEST_JOBS=${GUEST_JOBS:-2}
# A guest that exits before its suite ends (no "guest: done" line, not a
# timeout) is run once more, and the log says so with the first run's last
# lines. Seen once in the last of three clean-clone runs, 6.12 under icount
# on 2026-11-28: the guest was gone after test_reliability's
# stress.forked-shared-fd, with no kernel message and no QEMU error on the
# console (the same code passed the run before). A suite whose guest exits
# early twice fails (vm.KVER.died); a failing check never gets a second run.
suite() { # KVER FILE: one guest suite, its lines and its time into FILE
	local start rc try last
	start=$(date +%s)
	for try in 1 2; do
		# The second time with the guest kernel's console (VM_VERBOSE): a
		# guest that dies twice then says why, if the kernel said anything.
		VM_VERBOSE=$([ "$try" = 2 ] && echo 1) scripts/vmtest.sh "$1" >"$2" 2>&1
		rc=$?
		if grep -q '^guest: done on' "$2" || [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			break
		fi
		if [ "$try" = 2 ]; then
			echo "FAIL vm.$1.died: the guest exited (status $rc) before its suite ended, twice" >>"$2"
			break
		fi
		last=$(grep -v '^[[:space:]]*$' "$2" | tail -n 1)
		mv "$2" "$2.died"
	done
	if [ -e "$2.died" ]; then
		{
			echo "# vm.$1: the first guest exited before its suite ended, after: $last; the suite ran again. Its last lines:"
			tail -n 12 "$2.died" | sed 's/^/#   /'
		} >>"$2"
		rm -f "$2.died"
	fi
	echo "== $1 took $(( $(date +%s) - start ))s" >>"$2"
	touch "$2.done"
	return $rc
}
# The performance gate, A/A: the working tree against HEAD (on a clean clone,
# the same code twice) must pass; its wall time is on the verdict line. Its
# lines to stdout, its PASS/FAIL line to $log.gate. Under the instruction
# clock it must find no difference at all; on the real clock a run flagged
# is measured once more (chance at α does not repeat).
# Then the planted 0.5% (tests/gate/test_planted.sh): found, and named.
perf_gate_aa() {
	if make --no-print-directory perf-gate BASE=HEAD 2>&1 | tail -n 25; [ "${PIPESTATUS[0]}" = 0 ] ||
		{ [ "$(cat build/perf-gate/status 2>/dev/null)" = 8 ] &&
		  echo "# perf-gate.aa flagged: $(cat build/perf-gate/verdict.txt); re-measuring once (chance at α does not repeat)" &&
		  make --no-print-directory perf-gate BASE=HEAD 2>&1 | tail -n 25; [ "${PIPESTATUS[0]}" = 0 ]; }; then
		echo "PASS perf-gate.aa: $(cat build/perf-gate/verdict.txt)" >"$log.gate"
	else
		echo "FAIL perf-gate.aa: status $(cat build/perf-gate/status 2>/dev/null): $(cat build/perf-gate/verdict.txt 2>/dev/null)" >"$log.gate"
	fi
	if [ "$VM_CLOCK" = icount ]; then
		python3 - build/perf-gate/result.json >>"$log.gate" <<-'PY'
			import json, sys
			try:
			    doc = json.load(open(sys.argv[1]))
			    diff = [c["n"] for c in doc["compare"] if c["significant"]]
			    rest = [f"n={c['n']}:{(c['ratio'] - 1) * 100:+.3f}%" for c in doc["compare"]
			            if c["ratio"] != 1]
			    ok = doc["meta"]["clock"] == "instructions" and not diff
			    # Below the exact decision's floor (compare.h, FT_CMP_EXACT_FLOOR_NS,
			    # 1,000 instructions): each visit counts its cheapest of five reads
			    # back to back, so the same code agrees to within about 30.
			    print(f"# perf-gate.aa.exact: ratios other than 1, under the floor: {rest or 'none'}")
			    print(("PASS" if ok else "FAIL") + " perf-gate.aa.exact" + ("" if ok else
			          f": clock {doc['meta']['clock']}, n with a difference: {diff}"))
			except (OSError, ValueError, KeyError) as e:
			    print(f"FAIL perf-gate.aa.exact: {e!r}")
		PY
	fi
	tests/gate/test_planted.sh >>"$log.gate" 2>&1
	# make unit's run of it skips beside the suites; here it has the second
	# guest slot: make demo's steps as nobody (issue 47).
	UNPRIV_DEMO=always tests/host/test_unprivileged.sh >>"$log.gate" 2>&1
}
# Its guest starts when the first suite of the last batch ends, beside the
# other one (two guests at a time, as above): out of the critical path while
# the longer suite (6.1's) still runs.
gate_after() { # MARKER...: the gate once the first of them exists
	while :; do
		for f; do [ -e "$f" ] && break 2; done
		sleep 5
	done
	perf_gate_aa
}
# The guests boot one at a time: two booting side by side were up after
# 35-46 s each, one alone after about 20 s, and the first kernel's suite
# (6.1's, the longest: its kprobes attach one filter change at a time) is
# the critical path. The next guest starts when this one is up, or after
# 60 s.
booted() { # FILE: until the suite writing FILE has its guest up (or ended)
	local i
	for ((i = 0; i < 120; i++)); do
		grep -q 'vmtest: guest up' "$1" 2>/dev/null && return
		[ -e "$1.done" ] && return
		sleep 0.5
	done
}
kvers=("$@")
gate_pid=
if [ ${#kvers[@]} -gt 0 ]; then
	last=$(( (${#kvers[@]} - 1) / GUEST_JOBS * GUEST_JOBS ))
	gate_after $(for k in "${kvers[@]:last}"; do echo "$log.$k.done"; done) >"$log.gate.out" 2>&1 &
	gate_pid=$!
fi
for ((i = 0; i < ${#kvers[@]}; i += GUEST_JOBS)); do
	batch=("${kvers[@]:i:GUEST_JOBS}")
	pids=()
	for kver in "${batch[@]}"; do
		echo "== guest suite on $kver (started $(date +%T))"
		suite "$kver" "$log.$kver" &
		pids+=($!)
		[ "$kver" = "${batch[-1]}" ] || booted "$log.$kver"
	done
	for j in "${!batch[@]}"; do
		wait "${pids[$j]}" || status=1
		echo "== guest suite on ${batch[$j]}"
		tee -a "$log" <"$log.${batch[$j]}"
		rm -f "$log.${batch[$j]}"
	done
done

echo "== the builds --compare builds compares (make test-builds, beside the first guest's boot)"
wait "$builds_pid"
tee -a "$log" <"$log.builds"
[ "$(cat "$log.builds.rc")" = 0 ] || status=1
echo "== host unit tests (beside the guests, nice 19)"
wait "$host_pid"
tee -a "$log" <"$log.unit"
[ "$(cat "$log.unit.rc")" = 0 ] || status=1
echo "== fuzzing: bn against GMP, the command line, the JSON/CSV writers (a fixed number of inputs each)"
tee -a "$log" <"$log.fuzz"
[ "$(cat "$log.fuzz.rc")" = 0 ] || status=1

echo "== the guests' flame graphs in headless Chromium"
run tests/host/check_views.py

echo "== the performance gate, A/A (make perf-gate BASE=HEAD; started when the first suite ended)"
if [ -z "$gate_pid" ]; then
	echo "SKIP perf-gate.aa: no kernel with headers installed" | tee -a "$log"
else
	wait "$gate_pid"
	cat "$log.gate.out"
	tee -a "$log" <"$log.gate"
	grep -q '^FAIL ' "$log.gate" && status=1
fi

passed=$(grep -c '^PASS ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^SKIP ' "$log")
if [ "$status" != 0 ] && [ "$failed" = 0 ]; then
	# A suite died without saying why in a FAIL line: count that too.
	echo "FAIL runner: a suite exited non-zero without a FAIL line"
	failed=1
fi
echo
grep '^FAIL ' "$log" || true
if [ -n "${disk_pid:-}" ]; then
	kill "$disk_pid" 2>/dev/null
	echo "# disk: build/'s filesystem had $disk0 MiB free at the start, $(cat "$log.disk" 2>/dev/null || echo ?) MiB at the lowest (sampled every 10 s)"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
