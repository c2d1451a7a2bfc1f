# mk/bignum.mk - the fibdrv big-number library and its user-space programs,
# included by the top-level Makefile, which gives USER_CFLAGS, obj (source ->
# build/obj/....o) and the pattern rule that compiles every object. The ASan
# build compiles with other flags, so it names its sources itself.
#
#   BN_SRCS                  library sources, compiled into fibdrv.ko as well
#   build/fibcalc            F(N) in user space with the same code
#   build/tests/unit_bn      unit tests against GMP (-O2)
#   build/tests/unit_bn_asan the same with ASan+UBSan (reduced n ranges)
#   build/bench/bn_bench     benchmark against GMP -> bench/results/bn.json
#   build/tests/fibcount     call counts of one read (the guest's nested-calls test)
#   make unit-bn / bench-bn  build and run them
#   make layers-fibdrv       no call cycle between fibdrv's files, no call up a
#                            layer (scripts/layers-fibdrv.sh), in the user-space
#                            objects and in each module built (part of make unit)
BN_SAN_FLAGS ?= -fsanitize=address,undefined -fno-sanitize-recover=all

# By layer, bottom up (scripts/layers-fibdrv.sh checks that calls only go
# down and that no two files call each other): the allocator, the limb
# layer (GMP's mpn), the value layer (struct bn: GMP's mpz), the algorithms.
BN_SRCS := fibdrv/bn_mem.c \
	fibdrv/bn_aors.c fibdrv/bn_shift.c fibdrv/bn_cmp.c fibdrv/bn_mul_1.c fibdrv/bn_divexact.c \
	fibdrv/bn_mul.c fibdrv/bn_ntt.c fibdrv/bn_ntt_mul.c fibdrv/bn_inv.c fibdrv/bn_div.c fibdrv/bn_dec.c \
	fibdrv/bn_val.c fibdrv/bn_val_conv.c \
	fibdrv/fib_algo.c fibdrv/fib_value.c
BN_HDRS := fibdrv/bn_compat.h fibdrv/bn.h fibdrv/bn_impl.h fibdrv/bn_ntt_impl.h fibdrv/bn_x86.h \
	fibdrv/bn_generic.h fibdrv/bn_aors_tmpl.h fibdrv/fib_algo.h fibdrv/fibdrv_uapi.h

# -z now: symbols bound at start-up, not on a read's first call (--cachesim counts each read).
$(BUILD)/fibcalc: $(call obj,src/fibcalc.c $(BN_SRCS))
	$(CC) $(USER_CFLAGS) $(LDFLAGS) $^ -o $@ -Wl,-z,now

# The guest's reference for nested call counts (tests/guest/fibcount.c, run
# by tests/guest/test_fibtrace_modes.py): the library instrumented with
# -finstrument-functions at -O1, built here, not in the emulated guest.
$(BUILD)/tests/fibcount: tests/guest/fibcount.c $(BN_SRCS) $(BN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) -O1 -finstrument-functions $(filter %.c,$^) -o $@

BN_TEST_SRCS := tests/unit/test_bn.c tests/unit/test_bn_div.c tests/unit/test_bn_fib.c \
	tests/unit/bn_check.c

$(BUILD)/tests/unit_bn: $(call obj,$(BN_TEST_SRCS) $(BN_SRCS))
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) $^ -o $@ -lgmp

$(BUILD)/tests/unit_bn_asan: $(BN_TEST_SRCS) tests/unit/bn_check.h $(BN_SRCS) $(BN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) $(BN_SAN_FLAGS) -DBN_TEST_REDUCED $(BN_TEST_SRCS) $(BN_SRCS) -o $@ -lgmp

$(BUILD)/bench/bn_bench: $(call obj,bench/bn_bench.c $(BN_SRCS))
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) $^ -o $@ -lgmp

.PHONY: unit-bn bench-bn layers-fibdrv
unit-bn: $(BUILD)/tests/unit_bn $(BUILD)/tests/unit_bn_asan
	@st=0; $(BUILD)/tests/unit_bn || st=1; $(BUILD)/tests/unit_bn_asan || st=1; exit $$st

bench-bn: $(BUILD)/bench/bn_bench
	@mkdir -p bench/results
	@$(BUILD)/bench/bn_bench --json bench/results/bn.json

layers-fibdrv: $(call obj,$(BN_SRCS))
	@st=0; scripts/layers-fibdrv.sh $(BUILD)/obj/fibdrv || st=1; \
	for k in $(KERNELS); do \
		[ ! -d $(BUILD)/$$k/kmod ] || scripts/layers-fibdrv.sh $(BUILD)/$$k/kmod || st=1; \
	done; exit $$st
