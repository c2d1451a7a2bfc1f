# The pure parts of fibtrace --compare (src/trace_compare_stats.c) and their
# unit tests. Included by the top-level Makefile; standalone:
# make -f mk/compare.mk unit-compare
BUILD ?= build
USER_CFLAGS ?= -O2 -g -Wall -Wextra -Werror -std=gnu11 -Ifibdrv -Isrc

COMPARE_SRCS := src/trace_compare_stats.c src/stats.c

# Including this fragment must not change the includer's default goal.
compare_saved_default_goal := $(.DEFAULT_GOAL)

$(BUILD)/tests/test_compare: tests/unit/test_compare.c $(COMPARE_SRCS) src/trace_compare.h src/stats.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) tests/unit/test_compare.c $(COMPARE_SRCS) -o $@ -lm

.PHONY: unit-compare
unit-compare: $(BUILD)/tests/test_compare
	@$(BUILD)/tests/test_compare

.DEFAULT_GOAL := $(compare_saved_default_goal)
