#!/usr/bin/env bash
# make perf-gate passes BASE, KVER, SWEEP, REPEAT, PCT, ATTRIBUTE and
# ATTR_REPEAT to scripts/perf-gate.sh as data (make unit). Once, BASE was
# spliced into a double-quoted shell string: BASE='x";id;"' ran id. Here
# each variable holds shell and make code that would create a file if run;
# in a tree of links to this one with perf-gate.sh replaced by a stub that
# records what it got: the recipe `make -n` prints names none of the values,
# no file is created, and the stub gets each value byte for byte. Prints
# PASS/FAIL lines (tests/run.sh counts them). (A make function in a
# command-line assignment, $(shell ...), is make code its caller wrote and
# make runs it; a git ref cannot hold the space a call needs.)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { # NAME CONDITION-STATUS DETAIL
	if [ "$2" = 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi
}

tree=$tmp/tree
mkdir -p "$tree/scripts"
for f in "$top"/* "$top"/.clang-format; do
	[ "$(basename "$f")" = scripts ] || ln -s "$f" "$tree/"
done
ln -s "$top"/scripts/* "$tree/scripts/"
rm "$tree/scripts/perf-gate.sh" "$tree/scripts/build-module.sh" "$tree/scripts/vmtest.sh"
# module, vmtest and soak pass KVER (soak also SOAK_SECONDS) the same way.
for stub in build-module vmtest; do
	cat >"$tree/scripts/$stub.sh" <<'EOF'
#!/usr/bin/env bash
{ printf 'arg1=%s\n' "$1"; printf 'soak=%s\n' "${SOAK_SECONDS:-}"; } >"$GATE_STUB_OUT"
EOF
	chmod +x "$tree/scripts/$stub.sh"
done
cat >"$tree/scripts/perf-gate.sh" <<'EOF'
#!/usr/bin/env bash
{
	printf 'arg1=%s\n' "$1"
	printf 'arg2=%s\n' "$2"
	for v in SWEEP REPEAT PCT ATTRIBUTE ATTR_REPEAT; do printf '%s=%s\n' "$v" "${!v}"; done
} >"$GATE_STUB_OUT"
EOF
chmod +x "$tree/scripts/perf-gate.sh"

ran=$tmp/ran
base="x\";touch $ran.base;\""
kver="k'\$(touch $ran.kver)'"
sweep="1:2\`touch $ran.sweep\`"
pct="5;touch $ran.pct"
repeat="\$(touch $ran.repeat)"
attribute="a b	c"
attr_repeat="3\"'\\"
vars=(BASE="$base" KVER="$kver" SWEEP="$sweep" REPEAT="$repeat" PCT="$pct"
	ATTRIBUTE="$attribute" ATTR_REPEAT="$attr_repeat")

dry=$(make -s -C "$tree" -n perf-gate "${vars[@]}" 2>&1)
leaked=$(grep -F -e touch -e 'a b' <<<"$dry")
ok perf_gate.dry_run_names_no_value "$([ -z "$leaked" ] && echo 0 || echo 1)" "$dry"

GATE_STUB_OUT=$tmp/got make -s -C "$tree" perf-gate "${vars[@]}" >"$tmp/make.log" 2>&1
st=$?
ok perf_gate.runs_stub "$st" "make exited $st: $(cat "$tmp/make.log")"
ls "$tmp" | grep -q '^ran\.' && r=1 || r=0
ok perf_gate.nothing_ran "$r" "created: $(ls "$tmp" | grep '^ran\.' | tr '\n' ' ')"

printf -v want 'arg1=%s\narg2=%s\nSWEEP=%s\nREPEAT=%s\nPCT=%s\nATTRIBUTE=%s\nATTR_REPEAT=%s' \
	"$base" "$kver" "$sweep" "$repeat" "$pct" "$attribute" "$attr_repeat"
got=$(cat "$tmp/got" 2>/dev/null)
ok perf_gate.values_byte_for_byte "$([ "$got" = "$want" ] && echo 0 || echo 1)" \
	"got: $got"

# KVER for module, vmtest and soak: as data, byte for byte. (vmtest and soak
# also make all, which the dry run prints: only the values are looked for.)
for target in module vmtest soak; do
	dry=$(make -s -C "$tree" -n "$target" KVER="$kver" 2>&1)
	ok "$target.dry_run_names_no_value" "$(grep -qF "touch $ran" <<<"$dry" && echo 1 || echo 0)" \
		"$(grep -F "touch $ran" <<<"$dry")"
done
rm -f "$tmp/got"
GATE_STUB_OUT=$tmp/got make -s -C "$tree" module KVER="$kver" >"$tmp/make.log" 2>&1
ok module.kver_byte_for_byte "$([ "$(cat "$tmp/got" 2>/dev/null)" = "$(printf 'arg1=%s\nsoak=' "$kver")" ] &&
	! ls "$tmp" | grep -q '^ran\.' && echo 0 || echo 1)" "got: $(cat "$tmp/got" 2>/dev/null)"
out=$(make -s -C "$tree" -n soak KVER=k SOAK_SECONDS='1;touch '"$ran.soak" 2>&1)
ok soak.seconds_as_data "$(grep -qF "touch $ran" <<<"$out" && echo 1 || echo 0)" "$out"

# Without BASE: make's usage error, exit 2, the script not run.
rm -f "$tmp/got"
out=$(GATE_STUB_OUT=$tmp/got make -s -C "$tree" perf-gate 2>&1)
st=$?
ok perf_gate.needs_base "$([ $st = 2 ] && [ ! -e "$tmp/got" ] &&
	grep -q 'perf-gate: set BASE=<git revision>, e.g. make perf-gate BASE=origin/main' \
		<<<"$out" && echo 0 || echo 1)" "exit $st: $out"
