# The statistics library (src/stats.c) and its unit tests.
# Included by the top-level Makefile; standalone: make -f mk/stats.mk unit-stats
BUILD ?= build
USER_CFLAGS ?= -O2 -g -Wall -Wextra -Werror -std=gnu11 -Ifibdrv -Isrc

STATS_SRCS := src/stats.c

# Including this fragment must not change the includer's default goal.
stats_saved_default_goal := $(.DEFAULT_GOAL)

$(BUILD)/tests/test_stats: tests/unit/test_stats.c $(STATS_SRCS) src/stats.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) tests/unit/test_stats.c $(STATS_SRCS) -o $@ -lm

.PHONY: unit-stats
unit-stats: $(BUILD)/tests/test_stats
	@$(BUILD)/tests/test_stats

.DEFAULT_GOAL := $(stats_saved_default_goal)
