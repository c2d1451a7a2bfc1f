/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timeline of single reads (--trace-out FILE.json, docs/views.md):
 * every traced call of a bounded number of reads (--trace-reads), chosen
 * across the sweep's n, written in the Chrome trace event format that
 * Perfetto and chrome://tracing open. BPF sends one event per call of a
 * chosen read (bpf/fibtrace.h, struct ft_call_ev); nothing for the others.
 */
#ifndef FIBTRACE_TIMELINE_H
#define FIBTRACE_TIMELINE_H

#include "run.h"

#define FT_TRACE_READS_DEFAULT 200
#define FT_TRACE_READS_MAX 100000

/*
 * Chooses the reads: with a sweep of @nvals n values and @nalgos
 * algorithms, up to reads / nalgos n values evenly spaced (first and last
 * included), each traced once per algorithm. 0 or -ENOMEM.
 */
int ft_timeline_choose(struct ft_timeline *tl, const struct ft_run *run, unsigned int nalgos);

/* Ring buffer callback: appends one call event. */
int ft_timeline_add(void *ctx, void *data, size_t size);

void ft_timeline_free(struct ft_timeline *tl);

#endif
