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

#include "run.h"

struct ft_event_def {
	const char *name;
	__u32 type; /* perf_event_attr.type */
	__u64 config;
	bool hardware;
};

/* One requested event. */
struct ft_counter_ev {
	const struct ft_event_def *def;
	int index;		   /* BPF index (0..nev-1), -1 when not available */
	char reason[240];	   /* why it is not available */
	struct ft_cnt_delta whole; /* the whole run, every CPU (multiplexing) */
};

struct ft_counters {
	struct ft_counter_ev req[FT_MAX_EVENTS]; /* in the order of -e */
	int nreq;
	int nev;		     /* available events, BPF indexes 0..nev-1 */
	int by_index[FT_MAX_EVENTS]; /* BPF index -> req[] */
	int ncpus;
	int *fds;     /* [index * ncpus + cpu], -1 for an offline CPU */
	bool require; /* --require-counters */
	bool warned_multiplex;
};

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
/* Name of the first available event (BPF index 0), or NULL. */
const char *ft_counters_first_event(const struct ft_counters *c);

#endif
