#!/usr/bin/env bash
# scripts/layers.py finds what it is for (make unit): on a small tree of its
# own, laid out as src/fibtrace/ is, each rule broken once, it fails naming
# the breach (a cycle between two files, the folder cycle it makes, libbpf's
# program API outside tracer/, a cli/ header included below cli/); the same
# tree with the breaches taken out passes. Prints PASS/FAIL lines
# (tests/run.sh counts them).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { # NAME CONDITION-STATUS DETAIL
	if [ "$2" = 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi
}

# put FILE TEXT: the source, and its object under obj/ as the Makefile lays them
put() {
	mkdir -p "$tmp/$(dirname "$1")" "$tmp/obj/$(dirname "$1")"
	printf '%b\n' "$2" >"$tmp/$1"
	case $1 in *.c) (cd "$tmp" && $CC -c -Isrc/fibtrace "$1" -o "obj/${1%.c}.o") ;; esac
}

tree() { # PLANTED: 1 with the breaches, 0 without
	rm -rf "${tmp:?}/src" "$tmp/obj"
	put src/fibtrace/cli/cli.h '/* the options */'
	put src/fibtrace/main.c 'void model_a(void);\nint main(void) { model_a(); return 0; }'
	put src/fibtrace/model/a.c 'void report_b(void);\nvoid model_a(void) { report_b(); }'
	if [ "$1" = 1 ]; then
		put src/fibtrace/report/b.c '#include "cli/cli.h"\nvoid model_a(void);\nvoid report_b(void) { model_a(); }'
		put src/fibtrace/session/c.c 'void bpf_link__destroy(void *l);\nvoid session_c(void) { bpf_link__destroy(0); }'
	else
		put src/fibtrace/report/b.c 'void report_b(void) { }'
		put src/fibtrace/session/c.c 'void report_b(void);\nvoid session_c(void) { report_b(); }'
	fi
}

tree 1
out=$(cd "$tmp" && python3 "$top/scripts/layers.py" --obj obj --src src/fibtrace 2>&1)
rc=$?
echo "$out" | sed 's/^/# planted: /'
ok layers.planted.fails "$([ $rc = 1 ]; echo $?)" "status $rc"
ok layers.planted.file_cycle "$(grep -q 'FAIL layers: file cycle: src/fibtrace/model/a.c <-> src/fibtrace/report/b.c' <<<"$out" &&
	grep -q 'src/fibtrace/report/b.c -> src/fibtrace/model/a.c (model_a)' <<<"$out"; echo $?)" "$out"
ok layers.planted.folder_cycle "$(grep -q 'FAIL layers: folder cycle: model <-> report' <<<"$out"; echo $?)" "$out"
ok layers.planted.libbpf "$(grep -q 'FAIL layers: libbpf outside tracer/: src/fibtrace/session/c.c uses bpf_link__destroy' <<<"$out"; echo $?)" "$out"
ok layers.planted.cli_header "$(grep -q 'FAIL layers: cli/ header below cli/: src/fibtrace/report/b.c includes src/fibtrace/cli/cli.h' <<<"$out"; echo $?)" "$out"

tree 0
out=$(cd "$tmp" && python3 "$top/scripts/layers.py" --obj obj --src src/fibtrace 2>&1)
rc=$?
ok layers.clean.passes "$([ $rc = 0 ] && grep -q '^PASS layers' <<<"$out"; echo $?)" "status $rc: $out"
