/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fibtrace counters (-e/--events): per-CPU counting perf events read by BPF
 * at entry and exit of every traced call. See docs/counters.md.
 */
#ifndef FIBTRACE_COUNTERS_H
#define FIBTRACE_COUNTERS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>

#include "model/events.h"
#include "model/run.h"

/* Parses -e LIST; on error writes a message to @err and returns -1. */
int ft_counters_parse(struct ft_counters *c, const char *list, char *err, size_t errlen);
/* Opens the events on every CPU: 0, or -FT_EXIT_NO_COUNTERS with --require-counters. */
int ft_counters_open(struct ft_counters *c, struct ft_run *run);
void ft_counters_close(struct ft_counters *c);

struct fibtrace;
/* Before load: knobs and map sizes; after load: the fds into the map. */
void ft_counters_prepare(struct fibtrace *skel, const struct ft_run *run);
int ft_counters_install(struct fibtrace *skel, const struct ft_run *run);
/* Per-function sums (cumulative) into targets[].cnt; whole-run times. */
int ft_counters_collect(struct fibtrace *skel, struct ft_run *run);

#endif
