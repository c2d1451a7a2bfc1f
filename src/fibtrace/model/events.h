/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The -e events of a run as the model holds them: which were asked for,
 * which are counted (their BPF index) and why the others are not, and the
 * whole run's values. tracer/counters.c opens them and fills this in; the
 * model and the reports only read it. See docs/counters.md.
 */
#ifndef FIBTRACE_EVENTS_H
#define FIBTRACE_EVENTS_H

#include <linux/types.h>
#include <stdbool.h>

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

/* Name of the first available event (BPF index 0), or NULL. */
const char *ft_counters_first_event(const struct ft_counters *c);

#endif
