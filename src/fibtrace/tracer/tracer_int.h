/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracer's state, shared by its two halves: tracer.c (open, load,
 * attach, records) and tracer_collect.c (the maps into the run). Nothing
 * else includes this: tracer.h is the interface.
 */
#ifndef FIBTRACE_TRACER_INT_H
#define FIBTRACE_TRACER_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "fibtrace.skel.h"
#include "tracer.h"

struct ft_tracer {
	struct ft_tracer_opts o;
	struct ft_run *run;
	struct ft_targets *tg;
	struct fibtrace *skel;
	struct bpf_link *links[FT_MAX_SLOTS][2];
	struct bpf_link *multi[2]; /* the kprobe.multi plan's links (multi.h) */
	struct ft_kretprobes *krp; /* the kprobe plan's kprobe events (kretprobe.h) */
	struct ring_buffer *rb;
	struct bpf_link *switch_link; /* off-CPU time: sched_switch */
	struct bpf_link *exit_link;   /* a task's end gives its call stack back */
	int fibdrv_btf_fd;	      /* module BTF for fentry on the traced module's functions */
	bool handlers;		      /* holds a reference on the section handlers */
	void *stats_buf;	      /* one slot's per-CPU stats, for ft_tracer_slot_stats */
	bool draining;		      /* ft_tracer_drain(): records to drain_fn, not to run */
	ft_rec_fn drain_fn;
	void *drain_ctx;
};

/* records.c: the read records' ring buffer (and the timeline's): 0 or -(exit status). */
int tracer_rings_open(struct ft_tracer *tr);

/* The program of @slot in @mode, entry or exit (bpf/fibtrace.h: FT_PROG). */
static inline struct bpf_program *slot_prog(struct fibtrace *skel, enum ft_mode mode, int slot,
					    bool exit)
{
	static const char *const prefix[2] = FT_PROG_PREFIXES;
	char name[32];

	if (mode == FT_MODE_MULTI)
		return exit ? skel->progs.ft_multi_exit : skel->progs.ft_multi_entry;
	if (mode == FT_MODE_KPROBE) /* shared by every kprobe'd function: the slot is the cookie */
		return exit ? skel->progs.ft_kp_exit : skel->progs.ft_kp_entry;

	snprintf(name, sizeof(name), "%s_%d", prefix[exit], slot);
	return bpf_object__find_program_by_name(skel->obj, name);
}

#endif
