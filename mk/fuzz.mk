# make fuzz: the libFuzzer harness (tests/fuzz/fuzz_bn.c) against GMP, built
# with ASan and UBSan. FUZZ_SECONDS bounds the run (60 in make test);
# tests/fuzz/corpus is the checked-in seed corpus (new inputs go to
# build/fuzz/corpus); every file in tests/fuzz/regressions is replayed first.
FUZZ_SECONDS ?= 60
# A fixed seed keeps make test reproducible; FUZZ_SEED=0 lets libFuzzer pick.
FUZZ_SEED ?= 1
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Werror -std=gnu11 -Ifibdrv -Isrc

$(BUILD)/fuzz/fuzz_bn: tests/fuzz/fuzz_bn.c $(BN_SRCS) $(wildcard fibdrv/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $< $(BN_SRCS) -o $@ -lgmp

.PHONY: fuzz
fuzz: $(BUILD)/fuzz/fuzz_bn
	@mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/crashes
	@if ls tests/fuzz/regressions/* >/dev/null 2>&1; then \
		if $(BUILD)/fuzz/fuzz_bn tests/fuzz/regressions/* >$(BUILD)/fuzz/regressions.log 2>&1; \
		then echo "PASS fuzz.regressions ($$(ls tests/fuzz/regressions | wc -l) inputs)"; \
		else echo "FAIL fuzz.regressions: see $(BUILD)/fuzz/regressions.log"; exit 1; fi; \
	else echo "SKIP fuzz.regressions: no regression inputs yet"; fi
	@if $(BUILD)/fuzz/fuzz_bn -max_total_time=$(FUZZ_SECONDS) -seed=$(FUZZ_SEED) -max_len=4096 -timeout=20 -print_final_stats=1 \
		-artifact_prefix=$(BUILD)/fuzz/crashes/ $(BUILD)/fuzz/corpus tests/fuzz/corpus \
		>$(BUILD)/fuzz/fuzz.log 2>&1; then \
		echo "PASS fuzz.bn-vs-gmp ($(FUZZ_SECONDS) s, $$(grep -o 'stat::number_of_executed_units: [0-9]*' $(BUILD)/fuzz/fuzz.log | grep -o '[0-9]*$$' || grep -o '#[0-9]*' $(BUILD)/fuzz/fuzz.log | tail -n 1) runs)"; \
	else echo "FAIL fuzz.bn-vs-gmp: finding in $(BUILD)/fuzz/crashes (log $(BUILD)/fuzz/fuzz.log); copy it to tests/fuzz/regressions"; \
		tail -n 30 $(BUILD)/fuzz/fuzz.log; exit 1; fi
