#!/usr/bin/env bash
# make perf-gate: is the working tree's fibdrv slower than BASE's? Builds
# fibdrv at BASE as module fibdrv_base (/dev/fibdrv_base) and the working
# tree's fibdrv/ as fibdrv_head (/dev/fibdrv_head), boots one guest of KVER
# and compares their read latency there with
# `fibtrace --compare builds` (interleaved rounds, Holm-adjusted tests;
# docs/compare.md). docs/ci.md shows how to run it in CI.
#
#   scripts/perf-gate.sh BASE [KVER]     BASE: a git revision; KVER: default
#                                         the newest of scripts/kernels.sh
#   environment: SWEEP=A:B:S REPEAT=R PCT=P (defaults below, by clock),
#   VM_CLOCK, VM_ACCEL, VM_TIMEOUT (scripts/vmtest.sh); ATTRIBUTE=auto|always|never
#   and ATTR_REPEAT=R for the second pass (below); HEAD_SRC=DIR the head's
#   fibdrv sources (default fibdrv/: the working tree's)
#
# Two passes in the one guest. The verdict: the read path only (five traced
# functions, so the reads are measured nearly as they run untraced). Then,
# when the verdict is a regression (ATTRIBUTE=auto) or always, which
# functions changed: the same comparison with every function traced and
# `--attribute` (each function's self time per read, tested per n, Holm over
# the whole family; docs/compare.md), ATTR_REPEAT rounds. Its fib_read
# figures carry the cost of tracing every call and never decide the verdict.
#
# Writes build/perf-gate/: result.txt (fibtrace's report), result.json,
# result.bench (benchstat), result.png, functions.txt and functions.json (the
# second pass, when it ran), guest.log (the guest's console), verdict.txt
# and status; base-src/ (BASE's tree) and KVER/fibdrv_base.ko,
# KVER/fibdrv_head.ko. Ends with one line "perf-gate: PASS|REGRESSION|ERROR"
# and exits with the verdict's fibtrace status: 0 no n slower by more than
# PCT% with significance, 8 a regression, anything else an error (enum
# ft_exit in src/fibtrace/model/run.h; 2 here for bad arguments or a failed build).
#
#   scripts/perf-gate.sh --guest OUTDIR WHEN -- VERDICT CMD... [--then ATTRIBUTION CMD...]
#                                         the part run in the guest
set -euo pipefail

SWEEP_DEFAULT=100:100100:20000
# By the guest's clock (scripts/vmaccel.sh: VM_CLOCK, by default icount under
# software emulation, real under KVM). Real time: a read's time varies, so
# many rounds and a statistical test, and a threshold above the noise.
# Instruction counts (QEMU icount): a read not interrupted costs the same
# every time, so three rounds decide exactly (the minimum and the median
# both beyond the threshold) and the threshold can be a quarter per cent.
REPEAT_DEFAULT=60
PCT_DEFAULT=5
ATTR_REPEAT_DEFAULT=30
REPEAT_DEFAULT_ICOUNT=3
PCT_DEFAULT_ICOUNT=0.25
ATTR_REPEAT_DEFAULT_ICOUNT=3
BASE_NAME=fibdrv_base
HEAD_NAME=fibdrv_head

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# In the guest (scripts/vmtest.sh, as root, from the repository): nothing of
# fibdrv may be loaded already; fibtrace loads and unloads both builds itself.
# Its status goes to OUTDIR/status as well, to tell it from a failed boot.
if [ "${1:-}" = --guest ]; then
	outdir=${2:?}
	when=${3:?}
	[ "${4:-}" = -- ] || { echo "usage: perf-gate.sh --guest OUTDIR WHEN -- CMD... [--then CMD...]" >&2; exit 2; }
	shift 4
	verdict=() attribution=()
	while [ $# -gt 0 ] && [ "$1" != --then ]; do verdict+=("$1"); shift; done
	[ $# -gt 0 ] && shift && attribution=("$@")
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	mount -t debugfs nodev /sys/kernel/debug 2>/dev/null || true
	for m in fibdrv "$BASE_NAME" "$HEAD_NAME"; do
		if [ -e "/sys/module/$m" ]; then
			echo "perf-gate: module $m is already loaded in the guest" >&2
			echo 1 >"$outdir/status"
			exit 1
		fi
	done
	echo "perf-gate: guest $(uname -r), $(nproc) CPUs: ${verdict[*]}"
	status=0
	"${verdict[@]}" 2>&1 | tee "$outdir/result.txt" || status=${PIPESTATUS[0]}
	echo "$status" >"$outdir/status"
	if [ ${#attribution[@]} -gt 0 ] && { [ "$when" = always ] || [ "$status" = 8 ]; }; then
		echo "perf-gate: which functions changed: ${attribution[*]}"
		astatus=0
		"${attribution[@]}" >"$outdir/functions.txt" 2>&1 || astatus=$?
		echo "$astatus" >"$outdir/functions.status"
	fi
	exit "$status"
fi

die() { echo "perf-gate: $*" >&2; exit 2; }
export PATH=$PATH:/usr/sbin:/sbin # modinfo, for users without sbin in PATH
pg=build/perf-gate
start=$SECONDS
what=
base=${1:-}
kver=${2:-}
head_src=${HEAD_SRC:-fibdrv}
pct=${PCT:-$PCT_DEFAULT} # set again below, by the clock
attribute=${ATTRIBUTE:-auto}
# The verdict, however the script ends: one line, also in $pg/verdict.txt,
# and the status in $pg/status.
finish() {
	local status=$? elapsed verdict took
	elapsed=$((SECONDS - start))
	took="$((elapsed / 60))m$((elapsed % 60))s"
	local sig="significantly " # the tests' word; the instruction clock's differences are exact
	[ "${VM_CLOCK_NAME:-}" = instructions ] && sig=
	case $status in
	0) verdict="perf-gate: PASS: no n ${sig}slower by more than $pct% ($what) in $took" ;;
	8) verdict="perf-gate: REGRESSION: some n ${sig}slower by more than $pct% (see $pg/result.txt; $what) in $took" ;;
	*) verdict="perf-gate: ERROR (status $status): no verdict (${what:+$what; }the guest's console, if it booted: $pg/guest.log) in $took" ;;
	esac
	mkdir -p "$pg"
	echo "$status" >"$pg/status"
	echo "$verdict" >"$pg/verdict.txt"
	echo "$verdict"
	exit "$status"
}
trap finish EXIT
rm -f "$pg"/result.* "$pg"/functions.* "$pg"/guest.log "$pg"/verdict.txt "$pg"/status
[ -n "$base" ] || die "set BASE=<git revision> (make perf-gate BASE=origin/main)"
commit=$(git rev-parse --verify --quiet "$base^{commit}") ||
	die "BASE=$base is not a commit here (in CI: fetch the history, e.g. fetch-depth: 0)"
if [ -z "$kver" ]; then
	kver=$(scripts/kernels.sh | sort -V | tail -n 1)
	[ -n "$kver" ] || die "no kernel with image and headers installed (make deps)"
fi
[ -r "/boot/vmlinuz-$kver" ] && [ -d "/lib/modules/$kver/build" ] ||
	die "KVER=$kver: no readable /boot/vmlinuz-$kver or no headers (make deps; one of: $(scripts/kernels.sh | tr '\n' ' '))"
# The guest's clock decides the defaults; the guest is then booted as chosen here.
# shellcheck source=scripts/vmaccel.sh
. scripts/vmaccel.sh
vm_choose "/boot/vmlinuz-$kver" || die "bad VM_ACCEL or VM_CLOCK"
export VM_CLOCK VM_ACCEL
[ "$VM_CLOCK_NAME" = instructions ] && VM_CLOCK=icount || VM_CLOCK=real
[ "$VM_HOW" = kvm ] && VM_ACCEL=kvm || VM_ACCEL=tcg
if [ "$VM_CLOCK_NAME" = instructions ]; then
	REPEAT_DEFAULT=$REPEAT_DEFAULT_ICOUNT PCT_DEFAULT=$PCT_DEFAULT_ICOUNT
	ATTR_REPEAT_DEFAULT=$ATTR_REPEAT_DEFAULT_ICOUNT
fi
sweep=${SWEEP:-$SWEEP_DEFAULT}
repeat=${REPEAT:-$REPEAT_DEFAULT}
pct=${PCT:-$PCT_DEFAULT}
attr_repeat=${ATTR_REPEAT:-$ATTR_REPEAT_DEFAULT}
[ -f "$head_src/fibdrv_main.c" ] || die "HEAD_SRC=$head_src has no fibdrv_main.c"
[[ $sweep =~ ^[0-9]+:[0-9]+(:[0-9]+)?$ ]] || die "SWEEP=$sweep is not A:B[:STEP]"
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "REPEAT=$repeat is not a positive integer"
[[ $pct =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "PCT=$pct is not a percentage"
[[ $attribute =~ ^(auto|always|never)$ ]] || die "ATTRIBUTE=$attribute is not auto, always or never"
[[ $attr_repeat =~ ^[1-9][0-9]*$ ]] || die "ATTR_REPEAT=$attr_repeat is not a positive integer"
# Two modules load side by side only under different module and device
# names: a build named N (not fibdrv) registers /dev/N (build-module.sh).
[ "$BASE_NAME" != "$HEAD_NAME" ] && [ "$BASE_NAME" != fibdrv ] && [ "$HEAD_NAME" != fibdrv ] ||
	die "module names $BASE_NAME and $HEAD_NAME must differ from each other and from fibdrv"

out=$pg/$kver
gout=build/vm/perf-gate # the guest writes only under build/vm (vmtest.sh)
head_desc=$(git rev-parse --short HEAD)
[ -z "$(git status --porcelain -- fibdrv)" ] || head_desc="$head_desc+uncommitted"
[ "$head_src" = fibdrv ] || head_desc="$head_src"
base_desc=$(git rev-parse --short "$commit")
if [ "$VM_CLOCK_NAME" = instructions ]; then
	clock="instruction counts (QEMU icount), exact decision"
else
	clock="real time ($VM_HOW), Mann-Whitney with Holm"
fi
what="base $base_desc vs head $head_desc, kernel $kver, n $sweep x $repeat rounds, threshold $pct%, $clock"
echo "perf-gate: base $base ($base_desc) against the working tree ($head_desc), kernel $kver"

# BASE's tree, exported rather than checked out: git archive leaves no
# worktree registered in the repository to clean up (or to go stale when a
# run is interrupted), and needs no checkout state.
rm -rf "$pg/base-src"
mkdir -p "$pg/base-src" "$out"
git archive --format=tar "$commit" | tar -x -C "$pg/base-src"

# The library's objects of each tree, from its own mk/bignum.mk. A BASE older
# than `make print-bn-srcs` still defines BN_SRCS: ask its Makefile directly.
lib_objs() { # DIR
	local srcs f objs=() extra
	if ! srcs=$(make -s --no-print-directory -C "$1" print-bn-srcs 2>/dev/null); then
		extra=$(mktemp)
		printf 'perf-gate-bn-srcs:\n\t@echo $(BN_SRCS)\n' >"$extra"
		srcs=$(make -s --no-print-directory -C "$1" -f Makefile -f "$extra" perf-gate-bn-srcs 2>/dev/null) ||
			srcs=
		rm -f "$extra"
	fi
	[ -n "$srcs" ] || die "$1: its Makefile gives no BN_SRCS (make print-bn-srcs): cannot build it"
	for f in $srcs; do
		[[ $f == fibdrv/*.c ]] || die "$1: BN_SRCS has $f, not fibdrv/*.c"
		f=${f#fibdrv/}
		objs+=("${f%.c}.o")
	done
	echo "${objs[*]}"
}
base_objs=$(lib_objs "$pg/base-src")
head_objs=$(lib_objs .)

# vmtest.sh needs build/KVER/fibdrv.ko; the guest runs build/fibtrace.
make --no-print-directory module KVER="$kver" || die "make module KVER=$kver failed"
make --no-print-directory user || die "make user failed"
scripts/build-module.sh "$kver" "$base_objs" "$BASE_NAME" "$pg/base-src/fibdrv" "$out" ||
	die "building BASE ($base) as $BASE_NAME failed"
scripts/build-module.sh "$kver" "$head_objs" "$HEAD_NAME" "$head_src" "$out" ||
	die "building the working tree as $HEAD_NAME failed"
# Each module's name, and its device's: the string constants of the module
# (.rodata.str*) name /dev/NAME, not /dev/fibonacci.
rodata_strings() { # KO
	local sec
	for sec in $(readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] \(\.rodata\.str[^ ]*\) .*/\1/p'); do
		readelf -p "$sec" "$1" | sed -n 's/^ *\[ *[0-9a-f]*\]  //p'
	done
}
for m in "$BASE_NAME" "$HEAD_NAME"; do
	[ "$(modinfo -F name "$out/$m.ko")" = "$m" ] || die "$out/$m.ko is not named $m (modinfo)"
	strs=$(rodata_strings "$out/$m.ko")
	grep -x "$m" <<<"$strs" >/dev/null && ! grep -x fibonacci <<<"$strs" >/dev/null ||
		die "$out/$m.ko: its device is not named $m"
done

rm -rf "$gout"
mkdir -p "$gout"
# The builds after the options (baseline first), as fibtrace --help says.
fibtrace=(build/fibtrace --compare builds --labels base,head --sweep "$sweep"
	--repeat "$repeat" --cpu 0 --fail-on-regression "$pct"
	--save-json "$gout/result.json" --save-benchfmt "$gout/result.bench"
	--plot "$gout/result.png" "$out/$BASE_NAME.ko" "$out/$HEAD_NAME.ko")
# The second pass: every function, --attribute; its own statistics only.
attribution=()
[ "$attribute" = never ] ||
	attribution=(--then build/fibtrace --compare builds --labels base,head --attribute
		--sweep "$sweep" --repeat "$attr_repeat" --cpu 0
		--save-json "$gout/functions.json" "$out/$BASE_NAME.ko" "$out/$HEAD_NAME.ko")
echo "perf-gate: booting $kver ($VM_HOW: $VM_WHY) for: ${fibtrace[*]}"
status=0
scripts/vmtest.sh "$kver" -- scripts/perf-gate.sh --guest "$gout" "$attribute" -- \
	"${fibtrace[@]}" "${attribution[@]}" | tee "$pg/guest.log" || status=${PIPESTATUS[0]}
# fibtrace's own status when it ran; otherwise the guest's (a failed boot, a
# timeout), never 0 or 8.
if [ -s "$gout/status" ]; then
	status=$(cat "$gout/status")
elif [ "$status" = 0 ] || [ "$status" = 8 ]; then
	status=1
fi
for f in result.txt result.json result.bench result.png functions.txt functions.json; do
	[ ! -e "$gout/$f" ] || cp "$gout/$f" "$pg/$f"
done

# fibtrace names each (variant, n) over the threshold on stderr.
grep '^fibtrace: regression' "$pg/result.txt" 2>/dev/null || true
if [ -e "$gout/functions.status" ]; then
	astatus=$(cat "$gout/functions.status")
	if [ "$astatus" = 0 ]; then
		echo "perf-gate: second pass, every function traced ($attr_repeat rounds; its fib_read times include tracing every call):"
		sed -n '/^which functions changed/,$p' "$pg/functions.txt"
	else
		echo "perf-gate: the second pass (which functions changed) failed with status $astatus: $pg/functions.txt" >&2
	fi
fi
echo "perf-gate: outputs in $pg/: $(cd "$pg" && ls -d result.* functions.* guest.log 2>/dev/null | tr '\n' ' ')"
exit "$status"
