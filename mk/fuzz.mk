# make fuzz: three libFuzzer harnesses built with ASan and UBSan, each run by
# scripts/fuzz.sh (its regressions replayed, then FUZZ_SECONDS of fuzzing
# from tests/fuzz/corpus/NAME):
#   bn      the big-number library and every algorithm against GMP
#   cli     fibtrace's command line and every option's value parser
#   report  fibtrace's JSON and CSV writers on hostile names (jansson parses)
# FUZZ_SECONDS is per harness; make fuzz-NAME runs one.
#
# FUZZ_RUNS=yes (make test, tests/run.sh) fuzzes a fixed number of inputs per
# harness instead, FUZZ_RUNS_NAME, about what 40 s of one core ran on this
# host (2026-11-27: bn 36,859, cli 3,407,798, report 36,961): the same
# amount of fuzzing however busy the host, where a time budget shrinks with
# the CPU a process gets. make test runs them at nice 19 beside the guest
# suites, on the cores the emulated guests leave idle, with a per-input
# timeout of 120 s: a niced process may wait seconds for a core, and that is
# not a hang.
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_RUNS_bn := 40000
FUZZ_RUNS_cli := 3000000
FUZZ_RUNS_report := 40000
# A fixed seed keeps make test reproducible; FUZZ_SEED=0 lets libFuzzer pick.
FUZZ_SEED ?= 1
FUZZERS := bn cli report
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Itests/fuzz \
	-Wall -Wextra -Werror -std=gnu11 -Ifibdrv -Isrc
# libFuzzer options of each harness.
FUZZ_OPTS_bn := -max_len=4096 -timeout=20
FUZZ_OPTS_cli := -max_len=512 -timeout=10
FUZZ_OPTS_report := -max_len=2048 -timeout=10

$(BUILD)/fuzz/fuzz_bn: tests/fuzz/fuzz_bn.c $(BN_SRCS) $(wildcard fibdrv/*.h) tests/fuzz/fuzz_check.h
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $< $(BN_SRCS) -o $@ -lgmp

# The whole of fibtrace but its main (the skeleton header is included).
$(BUILD)/fuzz/fuzz_cli: tests/fuzz/fuzz_cli.c $(filter-out src/fibtrace/main.c,$(FIBTRACE_SRCS)) \
		$(LIB_SRCS) tests/fuzz/fuzz_check.h | $(BUILD)/fibtrace.skel.h
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $(filter-out -O2 -g,$(USER_CFLAGS)) $(filter %.c,$^) -o $@ $(TOOL_LIBS)

$(BUILD)/fuzz/fuzz_report: tests/fuzz/fuzz_report.c $(FIBTRACE_PURE) \
		$(filter-out src/lib/gnuplot.c,$(LIB_SRCS)) tests/fuzz/fuzz_check.h
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $(filter-out -O2 -g,$(USER_CFLAGS)) $(filter %.c,$^) -o $@ -ljansson -lm -lpthread

.PHONY: fuzz $(addprefix fuzz-,$(FUZZERS))
fuzz: $(addprefix fuzz-,$(FUZZERS))
$(addprefix fuzz-,$(FUZZERS)): fuzz-%: $(BUILD)/fuzz/fuzz_%
	@scripts/fuzz.sh $* $< $(if $(FUZZ_RUNS),runs=$(FUZZ_RUNS_$*),$(FUZZ_SECONDS)) $(FUZZ_SEED) \
		$(FUZZ_OPTS_$*) $(if $(FUZZ_RUNS),-timeout=120)
