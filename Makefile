# fibtrace: trace where fibdrv (a Fibonacci kernel module) spends its time.
#
#   make demo          install what is missing, build, boot a 6.1 guest, trace
#   make test          host unit tests, then the guest suite on every kernel line
#   make               user-space programs, fibdrv.ko for the guests' kernels and the running one
#   make deps          check (any user), install what is missing (root: sudo make deps; Debian 12)
#   make install       PREFIX=/usr/local DESTDIR=: programs, man page, completion, docs, module sources
#   make module KVER=R build/R/fibdrv.ko (with module BTF)
#   make vmtest KVER=R boot kernel R under QEMU and run the guest suite
#   make soak KVER=R   16 readers, two tracers, rmmod attempts for SOAK_SECONDS (600)
#   make unit          host unit tests only (with --cachesim's, install's, deps's, the workflows',
#                      make check-inline and check-core)
#   make check-inline  no traced fibdrv function is inlined or cloned anywhere
#   make check-core    src/fibtrace/discover/core_btf.c names every CO-RE relocation of the BPF object
#   make vmlinux-h     regenerate vmlinux/x86/vmlinux.h from the 6.1 kernel's BTF
#   make bench         big-number library against GMP (bench/results/bn.json)
#   make bench-trace   tracing overhead per read in the guest (bench/results/trace.json)
#   make perf-gate BASE=REV  fibdrv at REV against the working tree's in one guest;
#                      exit 8 on a regression, then which functions changed
#                      (KVER, SWEEP, REPEAT, PCT, ATTRIBUTE, ATTR_REPEAT; docs/ci.md)
#   make fuzz          libFuzzer: bn against GMP, the CLI, the JSON/CSV writers (FUZZ_SECONDS each)
#   make stack-depth   deepest stack of traced calls per algorithm at its cap (N=n)
#   make format        clang-format every C source
#
# docs/architecture.md maps each target and source file.
SHELL := /bin/bash
BUILD := build
CC ?= gcc
CLANG ?= clang
# bpftool is in /usr/sbin on Debian, Ubuntu and Fedora: not on a user's PATH.
ifeq ($(origin BPFTOOL),undefined)
BPFTOOL := $(or $(shell command -v bpftool 2>/dev/null),$(firstword $(wildcard /usr/sbin/bpftool \
	/sbin/bpftool)),bpftool)
endif
export BPFTOOL
# One set of flags for every user-space object (mk/*.mk use it too). CFLAGS
# and LDFLAGS are the user's (default -O2 -g); warnings are errors only with
# WERROR=1, which make test (and so CI) sets: a newer compiler's new warning
# must not stop a user's build. The BPF object follows WERROR too.
CFLAGS ?= -O2 -g
WERROR ?=
WERROR_FLAG = $(if $(filter 1 yes,$(WERROR)),-Werror)
USER_CFLAGS ?= $(CFLAGS) -Wall -Wextra $(WERROR_FLAG) -std=gnu11 \
	-Ifibdrv -Ibpf -Isrc/lib -Isrc/fibtrace -I$(BUILD)
ARCH_DEFINE := -D__TARGET_ARCH_x86
VMLINUX_H := vmlinux/x86/vmlinux.h
.DEFAULT_GOAL := all
# The object of each source: $(call obj,a.c b.c) -> build/obj/a.o build/obj/b.o
obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

# The big-number library (BN_SRCS), its programs, tests, benchmark.
include mk/bignum.mk

# Kernel lines: the newest installed release of each of 6.1 and 6.12.
KERNELS = $(shell scripts/kernels.sh)
KVER ?=

# -Werror is for our own code only: libbpf/GMP headers are system headers.
TOOL_LIBS := -lbpf -lelf -lz -lm -lpthread
# The QEMU TCG plugins of make bench-fncount and make bench-parts.
PLUGINS = $(BUILD)/bench/fncount.so $(BUILD)/bench/insprof.so

# Sources by program. src/lib is shared; the pure part of fibtrace (no
# libbpf, no skeleton) is what the unit tests link.
LIB_SRCS := $(wildcard src/lib/*.c)
FIBTRACE_SRCS := src/fibtrace/main.c $(wildcard src/fibtrace/*/*.c)
FIBTRACE_PURE := src/fibtrace/model/run.c src/fibtrace/model/aggregate.c src/fibtrace/report/report_text.c \
	src/fibtrace/report/report_json.c src/fibtrace/report/report_csv.c src/fibtrace/report/report_counters.c \
	src/fibtrace/model/tree.c src/fibtrace/cachesim/cachesim.c src/fibtrace/report/report_cachesim.c \
	src/fibtrace/report/report.c src/fibtrace/report/tree_views.c src/fibtrace/report/write.c \
	src/fibtrace/report/text_hist.c
LIB_OBJS := $(call obj,$(LIB_SRCS))
FIBTRACE_OBJS := $(call obj,$(FIBTRACE_SRCS))

# The fuzzers (make fuzz): the big-number library, the command line, the reports.
include mk/fuzz.mk

.PHONY: all deps module modules user vmtest test unit check-inline check-core demo vmlinux-h bench bench-trace bench-fncount bench-parts clean format check-kver \
	stack-depth print-bn-srcs perf-gate test-builds soak install FORCE

all: user modules

user: $(BUILD)/fibclient $(BUILD)/fibtrace $(BUILD)/tests/fibstress $(BUILD)/fibcalc \
	$(BUILD)/bench/trace_workload $(BUILD)/tests/fibcount

deps:
	@scripts/deps.sh

# The guests' kernels, then the running kernel's when its headers are
# installed (the native path: its BTF from /sys/kernel/btf/vmlinux; without
# headers build-module.sh says which package has them and make goes on).
NATIVE_KVER := $(shell uname -r)
modules:
	@set -e; for k in $(KERNELS); do $(MAKE) --no-print-directory module KVER=$$k; done
	+@$(if $(filter $(NATIVE_KVER),$(KERNELS)),:,scripts/build-module.sh --if-headers "$(NATIVE_KVER)" \
		"$(patsubst fibdrv/%.c,%.o,$(BN_SRCS))")

# KVER (and soak's SOAK_SECONDS) reach the scripts as data, through the
# environment, as perf-gate's variables do (tests/host/test_perf_gate_args.sh).
$(foreach t,check-kver module vmtest soak,$(eval $(t): export FT_KVER := $$(value KVER)))
check-kver:
	@[ -n "$$FT_KVER" ] || { echo "set KVER=<kernel release>, one of: $(KERNELS)" >&2; exit 2; }

module: check-kver
	+@scripts/build-module.sh "$$FT_KVER" "$(patsubst fibdrv/%.c,%.o,$(BN_SRCS))"

# Every user-space object: one pattern, header dependencies from -MMD.
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -MMD -MP -c $< -o $@
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# BPF object -> skeleton (the objects that include it wait for it).
$(BUILD)/fibtrace.bpf.o: bpf/fibtrace.bpf.c $(wildcard bpf/*.bpf.h) bpf/fibtrace.h $(VMLINUX_H)
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf $(ARCH_DEFINE) -Wall $(WERROR_FLAG) -Ivmlinux/x86 -Ibpf -c $< -o $@

$(BUILD)/fibtrace.skel.h: $(BUILD)/fibtrace.bpf.o
	$(BPFTOOL) gen skeleton $< name fibtrace > $@

$(FIBTRACE_OBJS): | $(BUILD)/fibtrace.skel.h $(BUILD)/version.h

# The version (--version, the man page's footer): git describe, else VERSION.
# Rewritten only when it changes, so cli.o is rebuilt only then.
$(BUILD)/version.h: FORCE
	@mkdir -p $(@D)
	@echo "#define FT_VERSION \"$$(scripts/version.sh)\"" >$@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
FORCE:

$(BUILD)/fibtrace: $(FIBTRACE_OBJS) $(LIB_OBJS)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) $^ -o $@ $(TOOL_LIBS)

$(BUILD)/fibclient: $(call obj,src/fibclient.c src/lib/range.c src/lib/fibdev.c)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) $^ -o $@ -lgmp

# Guest-side stress client (run by tests/guest/test_reliability.py).
$(BUILD)/tests/fibstress: $(call obj,tests/guest/fibstress.c src/lib/fibdev.c)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) $^ -o $@ -lgmp -lpthread

# vmlinux.h is checked in; CO-RE relocations make the 6.1 one serve 6.12.
vmlinux-h:
	@k=$$(scripts/kernels.sh | grep '^6\.1\.' | head -n 1); \
	[ -n "$$k" ] || { echo "no 6.1 kernel installed (make deps)" >&2; exit 1; }; \
	mkdir -p $(BUILD)/$$k && python3 scripts/extract-vmlinux.py /boot/vmlinuz-$$k $(BUILD)/$$k/vmlinux && \
	$(BPFTOOL) btf dump file $(BUILD)/$$k/vmlinux format c > $(VMLINUX_H) && \
	echo "$(VMLINUX_H) from $$k"

# Host unit tests: one program per module, each printing PASS/FAIL lines
# that tests/run.sh counts. None needs libbpf or a kernel.
UNIT_TESTS := test_range test_stats test_compare test_attribute test_aggregate test_ksyms \
	test_cachesim test_hist test_gnuplot test_helper test_plan test_plot
$(BUILD)/tests/test_range: $(call obj,tests/unit/test_range.c src/lib/range.c)
$(BUILD)/tests/test_stats: $(call obj,tests/unit/test_stats.c src/lib/stats.c src/lib/stats_tests.c)
$(BUILD)/tests/test_gnuplot: $(call obj,tests/unit/test_gnuplot.c src/lib/gnuplot.c src/lib/helper.c)
$(BUILD)/tests/test_helper: $(call obj,tests/unit/test_helper.c src/lib/helper.c)
$(BUILD)/tests/test_compare: $(call obj,tests/unit/test_compare.c \
	src/fibtrace/compare/cstats.c src/lib/stats.c src/lib/stats_tests.c src/lib/fmt.c)
$(BUILD)/tests/test_attribute: $(call obj,tests/unit/test_attribute.c \
	src/fibtrace/compare/functions.c src/fibtrace/compare/cstats.c src/lib/stats.c src/lib/stats_tests.c src/lib/fmt.c)
$(BUILD)/tests/test_aggregate: $(call obj,tests/unit/test_aggregate.c $(FIBTRACE_PURE) \
	$(filter-out src/lib/gnuplot.c,$(LIB_SRCS)))
$(BUILD)/tests/test_hist: $(call obj,tests/unit/test_hist.c $(FIBTRACE_PURE) \
	$(filter-out src/lib/gnuplot.c,$(LIB_SRCS)))
$(BUILD)/tests/test_plot: $(call obj,tests/unit/test_plot.c $(FIBTRACE_PURE) \
	src/fibtrace/report/plot.c $(LIB_SRCS))
$(BUILD)/tests/test_plan: $(call obj,tests/unit/test_plan.c src/fibtrace/discover/plan.c)
$(BUILD)/tests/test_ksyms: $(call obj,tests/unit/test_ksyms.c src/fibtrace/symbols/ksyms.c src/fibtrace/symbols/ksyms_cache.c)
$(BUILD)/tests/test_cachesim: $(call obj,tests/unit/test_cachesim.c src/fibtrace/cachesim/cachesim.c \
	src/fibtrace/cachesim/cachesim_run.c src/fibtrace/model/run.c src/lib/stats.c src/lib/stats_tests.c src/lib/fmt.c src/lib/fibdev.c \
	src/lib/helper.c src/lib/range.c)
$(addprefix $(BUILD)/tests/,$(UNIT_TESTS)):
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) $^ -o $@ -lm -lpthread

# tests/host/test_user.py (--user's refusals) and
# tests/host/test_install.py (make install, the man page, the installed tool),
# test_deps.py (make deps as nobody, off Debian 12), test_ci.py (the GitHub
# workflows: actionlint, their steps run here) and test_build_module.py
# (build-module.sh's errors) need no kernel either; test_vmaccel.sh checks
# how scripts/vmaccel.sh chooses KVM or emulation, and the clock, here;
# test_layers_fibdrv.sh that scripts/layers-fibdrv.sh (make layers-fibdrv:
# no call cycle between fibdrv's files, none up a layer) fails where it should;
# test_unprivileged.sh runs a short make demo as nobody (a guest booted
# unprivileged; skipped while another guest runs); test_bench_plugins.py
# loads make bench-fncount's and make bench-parts' QEMU plugins into this
# machine's QEMU and checks bench-parts' analysis on a planted run.
unit: $(addprefix $(BUILD)/tests/,$(UNIT_TESTS)) unit-bn $(BUILD)/fibtrace $(BUILD)/fibcalc \
	$(BUILD)/fibclient $(PLUGINS)
	@st=0; for t in $(UNIT_TESTS); do $(BUILD)/tests/$$t || st=1; done; \
	tests/host/test_cachesim.py || st=1; tests/host/test_fibcalc.py || st=1; \
	tests/host/test_install.py || st=1; tests/host/test_deps.py || st=1; \
	tests/host/test_help.py || st=1; tests/host/test_bpf_sizes.py || st=1; \
	tests/host/test_badinput.py || st=1; tests/host/test_user.py || st=1; \
	tests/host/test_perf_gate_args.sh || st=1; \
	tests/host/test_ci.py || st=1; tests/host/test_build_module.py || st=1; \
	tests/host/test_vmaccel.sh || st=1; tests/host/test_vmtest_watchdog.sh || st=1; \
	tests/host/test_layers_fibdrv.sh || st=1; \
	tests/host/test_bench_plugins.py || st=1; \
	scripts/layers.py --src src/fibtrace || st=1; tests/host/test_layers.sh || st=1; \
	tests/host/test_unprivileged.sh || st=1; \
	$(MAKE) --no-print-directory check-inline || st=1; \
	$(MAKE) --no-print-directory layers-fibdrv || st=1; \
	$(MAKE) --no-print-directory check-core || st=1; exit $$st

# No function fibtrace traces by default is also inlined or cloned somewhere
# (its counts would miss those calls): one PASS/FAIL line per built module,
# from its symbols, BTF, __mcount_loc and DWARF. Part of make unit.
# The CO-RE table of src/fibtrace/discover/core_btf.c against the object's relocations.
check-core: $(BUILD)/fibtrace.bpf.o
	@scripts/check-core.py $<

check-inline:
	@$(MAKE) --no-print-directory modules || { echo "FAIL inline: make modules failed"; exit 1; }
	@scripts/check-inline.py $(foreach k,$(KERNELS),$(BUILD)/$(k)/fibdrv.ko)

vmtest: check-kver all
	@scripts/vmtest.sh "$$FT_KVER"

# The soak alone (tests/guest/test_soak.py) in KVER's guest for SOAK_SECONDS;
# make test runs it for 60 s in each guest.
SOAK_SECONDS ?= 600
soak: export FT_SOAK_SECONDS := $(value SOAK_SECONDS)
soak: check-kver all
	@case "$$FT_SOAK_SECONDS" in ''|*[!0-9]*) \
		echo "soak: SOAK_SECONDS must be a whole number of seconds" >&2; exit 2;; esac; \
	VM_TIMEOUT=$$(( FT_SOAK_SECONDS + 900 )) scripts/vmtest.sh "$$FT_KVER" -- env \
		GUEST_TESTS=test_soak.py SOAK_SECONDS="$$FT_SOAK_SECONDS" \
		GUEST_TEST_TIMEOUT=$$(( FT_SOAK_SECONDS + 600 )) tests/guest/run.sh

# The README's test command: install, build, host tests, guest suite per kernel.
# Our own code builds with -Werror here (and in every make it starts).
test: export WERROR := 1
test: deps
	@$(MAKE) --no-print-directory -j2 all
	@tests/run.sh $(KERNELS)

# The builds tests/guest/test_fibtrace_builds.py compares (--compare builds):
# build/<kver>/builds/fibdrv_{a,b,slow}.ko, the last with a planted slowdown.
test-builds:
	@scripts/build-test-builds.sh "$(patsubst fibdrv/%.c,%.o,$(BN_SRCS))" $(KERNELS)

demo: deps
	@$(MAKE) --no-print-directory -j2 all
	@scripts/demo.sh

bench: bench-bn

# Tracing overhead per read in the guest (bench/results/trace.json) and the
# compensated figures against the untraced truth and the noise of a traced call's
# cost (bench/results/compensation.json):
# KERNELS="KVER" for one kernel.
bench-trace: all $(BUILD)/bench/trace_workload
	@scripts/bench-trace.sh $(KERNELS)
	@scripts/bench-compensation.sh $(KERNELS)

# Per function, fibtrace's compensated times against the instructions a QEMU
# plugin counts outside the guest for the same calls untraced
# (bench/results/fncount.json; scripts/bench-fncount.sh).
bench-fncount: all $(BUILD)/bench/fncount.so
	@scripts/bench-fncount.sh $(KERNELS)

# What each part of a traced call costs, in instructions: a QEMU plugin's
# count per code address, untraced and under each attach plan, charged to
# the guest's symbols and the BPF programs' source lines
# (bench/results/parts.json; scripts/bench-parts.sh).
bench-parts: all $(BUILD)/bench/insprof.so $(BUILD)/bench/trace_workload $(BUILD)/bench/jitlines
	@scripts/bench-parts.sh $(KERNELS)

# QEMU TCG plugins (bench/fncount/, bench/insprof/): built against QEMU's
# documented API (bench/qemu_plugin_api.h), no QEMU headers.
$(BUILD)/bench/fncount.so: bench/fncount/fncount.c
$(BUILD)/bench/insprof.so: bench/insprof/insprof.c
$(PLUGINS): bench/qemu_plugin_api.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wall -Wextra $(WERROR_FLAG) -shared -fPIC \
		-fvisibility=hidden $(filter %.c,$^) -o $@

$(BUILD)/bench/trace_workload: $(call obj,bench/trace_workload.c)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) $^ -o $@

$(BUILD)/bench/jitlines: $(call obj,bench/insprof/jitlines.c)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) $^ -o $@ $(TOOL_LIBS)

# Performance gate: fibdrv at BASE (module fibdrv_base) against the working
# tree's (fibdrv_head), side by side in one guest of KVER (default the newest
# kernel) with fibtrace --compare builds; outputs in build/perf-gate/. The
# script exits with fibtrace's status (8: a regression); make turns any
# failure into 2, build/perf-gate/status keeps the script's. The variables
# reach the script as data, as given ($(value)), through the environment:
# never spliced into the recipe's shell source (tests/host/test_perf_gate_args.sh).
PERF_GATE_VARS := BASE KVER SWEEP REPEAT PCT ATTRIBUTE ATTR_REPEAT
$(foreach v,$(PERF_GATE_VARS),$(eval perf-gate: export FT_GATE_$(v) := $$(value $(v))))
perf-gate:
	@$(if $(value BASE),,$(error perf-gate: set BASE=<git revision>, e.g. make perf-gate BASE=origin/main))
	@SWEEP="$$FT_GATE_SWEEP" REPEAT="$$FT_GATE_REPEAT" PCT="$$FT_GATE_PCT" \
		ATTRIBUTE="$$FT_GATE_ATTRIBUTE" ATTR_REPEAT="$$FT_GATE_ATTR_REPEAT" \
		scripts/perf-gate.sh "$$FT_GATE_BASE" "$$FT_GATE_KVER"

# The deepest stack of traced calls per algorithm at its cap (sizes FT_STACK_DEPTH).
stack-depth: modules
	@scripts/stack-depth.sh build/$(firstword $(KERNELS))/fibdrv.ko $(N)

# make install [PREFIX=/usr/local] [DESTDIR=]: the three programs (fibcalc is
# --cachesim's helper: fibtrace finds it beside itself), the module's sources
# with a Makefile that builds them for the running kernel, the man page, the
# documents, bash completion. The module itself is built by its user, for
# their kernel (fibtrace(8), THE MODULE).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/fibtrace
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
INSTALL ?= install
INSTALL_DOCS := README.md LICENSE $(wildcard docs/*.md docs/*.json docs/*.png)
install: $(BUILD)/fibtrace $(BUILD)/fibclient $(BUILD)/fibcalc
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DATADIR)/fibtrace/fibdrv $(DESTDIR)$(DATADIR)/fibtrace/scripts
	$(INSTALL) -m 0755 $^ $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 0644 fibdrv/*.c fibdrv/*.h fibdrv/Kbuild fibdrv/Makefile \
		$(DESTDIR)$(DATADIR)/fibtrace/fibdrv/
	$(INSTALL) -m 0755 scripts/build-module.sh scripts/extract-vmlinux.py \
		$(DESTDIR)$(DATADIR)/fibtrace/scripts/
	sed -e "s|@VERSION@|$$(scripts/version.sh)|g" -e 's|@DOCDIR@|$(DOCDIR)|g' \
		-e 's|@DATADIR@|$(DATADIR)|g' docs/fibtrace.8.in >$(DESTDIR)$(MANDIR)/man8/fibtrace.8
	chmod 0644 $(DESTDIR)$(MANDIR)/man8/fibtrace.8
	$(INSTALL) -m 0644 $(INSTALL_DOCS) $(DESTDIR)$(DOCDIR)/
	$(INSTALL) -m 0644 -D LICENSES/MIT $(DESTDIR)$(DOCDIR)/LICENSES/MIT
	$(INSTALL) -m 0644 completions/fibtrace.bash $(DESTDIR)$(BASHCOMPDIR)/fibtrace

print-bn-srcs:
	@echo $(BN_SRCS)

format:
	clang-format -i $$(git ls-files '*.c' '*.h' | grep -v '^vmlinux/')

clean:
	rm -rf $(BUILD)
