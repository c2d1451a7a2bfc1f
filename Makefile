# fibtrace: trace where fibdrv (a Fibonacci kernel module) spends its time.
#
#   make demo          install what is missing, build, boot a 6.1 guest, trace
#   make test          host unit tests, then the guest suite on every kernel line
#   make               user-space programs and fibdrv.ko for every kernel with headers
#   make deps          install packages, kernels and virtme-ng (root, Debian 12)
#   make module KVER=R build/R/fibdrv.ko (with module BTF)
#   make vmtest KVER=R boot kernel R under QEMU and run the guest suite
#   make vmlinux-h     regenerate vmlinux/x86/vmlinux.h from the 6.1 kernel's BTF
#   make bench         big-number library against GMP (bench/results/bn.json)
#   make bench-trace   tracing overhead per read in the guest (bench/results/trace.json)
#   make fuzz          libFuzzer against GMP (FUZZ_SECONDS, default 60)
#   make format        clang-format every C source
SHELL := /bin/bash
BUILD := build
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
USER_CFLAGS ?= -O2 -g -Wall -Wextra -Werror -std=gnu11 -Ifibdrv -Isrc
ARCH_DEFINE := -D__TARGET_ARCH_x86
VMLINUX_H := vmlinux/x86/vmlinux.h

# The big-number library (BN_SRCS) and its programs, tests and benchmark.
-include mk/bignum.mk
-include mk/stats.mk
-include mk/compare.mk
include mk/fuzz.mk

# Kernel lines: the newest installed release of each of 6.1 and 6.12.
KERNELS = $(shell scripts/kernels.sh)
KVER ?=

# -Werror is for our own code only: libbpf/GMP headers are system headers.
TOOL_LIBS := -lbpf -lelf -lz

.PHONY: all deps module modules user vmtest test unit demo vmlinux-h bench bench-trace clean format check-kver

all: user modules

user: $(BUILD)/fibclient $(BUILD)/fibtrace $(BUILD)/tests/fibstress $(if $(BN_SRCS),$(BUILD)/fibcalc)

deps:
	@scripts/deps.sh

modules:
	@set -e; for k in $(KERNELS); do $(MAKE) --no-print-directory module KVER=$$k; done

check-kver:
	@[ -n "$(KVER)" ] || { echo "set KVER=<kernel release>, one of: $(KERNELS)" >&2; exit 2; }

module: check-kver
	@scripts/build-module.sh "$(KVER)" "$(patsubst fibdrv/%.c,%.o,$(BN_SRCS))"

$(BUILD)/range.o: src/range.c src/range.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -c $< -o $@

$(BUILD)/fibclient: src/fibclient.c fibdrv/fibdrv_uapi.h $(BUILD)/range.o
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $< $(BUILD)/range.o -o $@ -lgmp

# BPF object -> skeleton -> fibtrace.
$(BUILD)/fibtrace.bpf.o: bpf/fibtrace.bpf.c src/fibtrace.h $(VMLINUX_H)
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf $(ARCH_DEFINE) -Wall -Werror -Ivmlinux/x86 -Isrc -c $< -o $@

$(BUILD)/fibtrace.skel.h: $(BUILD)/fibtrace.bpf.o
	$(BPFTOOL) gen skeleton $< name fibtrace > $@

# src/stats.c: the statistics of --compare (src/trace_compare*.c).
FIBTRACE_SRCS := $(wildcard src/fibtrace*.c src/trace_*.c) src/stats.c
$(BUILD)/fibtrace: $(FIBTRACE_SRCS) $(wildcard src/*.h) $(BUILD)/fibtrace.skel.h $(BUILD)/range.o
	$(CC) $(USER_CFLAGS) -I$(BUILD) $(FIBTRACE_SRCS) $(BUILD)/range.o -o $@ $(TOOL_LIBS) -lm

# vmlinux.h is checked in; CO-RE relocations make the 6.1 one serve 6.12.
vmlinux-h:
	@k=$$(scripts/kernels.sh | grep '^6\.1\.' | head -n 1); \
	[ -n "$$k" ] || { echo "no 6.1 kernel installed (make deps)" >&2; exit 1; }; \
	mkdir -p $(BUILD)/$$k && python3 scripts/extract-vmlinux.py /boot/vmlinuz-$$k $(BUILD)/$$k/vmlinux && \
	$(BPFTOOL) btf dump file $(BUILD)/$$k/vmlinux format c > $(VMLINUX_H) && \
	echo "$(VMLINUX_H) from $$k"

$(BUILD)/tests/test_range: tests/unit/test_range.c $(BUILD)/range.o
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $< $(BUILD)/range.o -o $@

# Guest-side stress client (run by tests/guest/test_reliability.py).
$(BUILD)/tests/fibstress: tests/guest/fibstress.c fibdrv/fibdrv_uapi.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $< -o $@ -lgmp -lpthread

# Host unit tests; each prints PASS/FAIL lines that tests/run.sh counts.
unit: $(BUILD)/tests/test_range $(if $(BN_SRCS),unit-bn) $(if $(STATS_SRCS),unit-stats) $(if $(COMPARE_SRCS),unit-compare)
	@$(BUILD)/tests/test_range

vmtest: check-kver all
	@scripts/vmtest.sh "$(KVER)"

# The README's test command: install, build, host tests, guest suite per kernel.
test: deps
	@$(MAKE) --no-print-directory all
	@tests/run.sh $(KERNELS)

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

bench: $(if $(BN_SRCS),bench-bn)

# Tracing overhead per read in the guest (bench/results/trace.json):
# KERNELS="KVER" for one kernel.
bench-trace: all $(BUILD)/bench/trace_workload
	@scripts/bench-trace.sh $(KERNELS)

$(BUILD)/bench/trace_workload: bench/trace_workload.c fibdrv/fibdrv_uapi.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $< -o $@

format:
	clang-format -i $$(git ls-files '*.c' '*.h' | grep -v '^vmlinux/')

clean:
	rm -rf $(BUILD)
