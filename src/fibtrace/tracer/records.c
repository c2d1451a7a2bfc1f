// SPDX-License-Identifier: GPL-2.0
/*
 * The tracer's ring buffers: one record per read (bpf/read.bpf.h) into
 * run->recs through ft_run_add_rec, and with --trace-out the chosen reads'
 * call events into the timeline (model/timeline.c). See tracer.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "model/timeline.h"
#include "tracer_int.h"

static int handle_rec(void *ctx, void *data, size_t size)
{
	struct ft_tracer *tr = ctx;

	if (tr->draining)
		return tr->drain_fn ? tr->drain_fn(tr->drain_ctx, data, size) : 0;
	return ft_run_add_rec(tr->run, data, size);
}

/* --trace-out: the reads to follow, and the ring buffer of their calls. */
static int timeline_arm(struct ft_tracer *tr)
{
	struct ft_timeline *tl = tr->run->timeline;
	__s32 left;
	size_t i;

	if (!tl)
		return 0;
	tr->skel->bss->trace_left = tl->reads;
	for (i = 0; i < tl->ntrace_n; i++) {
		left = tl->per_n;
		if (bpf_map_update_elem(bpf_map__fd(tr->skel->maps.trace_sel), &tl->trace_n[i],
					&left, BPF_ANY))
			return -1;
	}
	return ring_buffer__add(tr->rb, bpf_map__fd(tr->skel->maps.calls), ft_timeline_add, tl);
}

int tracer_rings_open(struct ft_tracer *tr)
{
	tr->rb = ring_buffer__new(bpf_map__fd(tr->skel->maps.reads), handle_rec, tr, NULL);
	if (!tr->rb || timeline_arm(tr)) {
		fprintf(stderr, "fibtrace: ring buffer: %s\n", strerror(errno));
		return -FT_EXIT_ERROR;
	}
	return 0;
}

int ft_tracer_poll(struct ft_tracer *tr, int timeout_ms)
{
	int err = ring_buffer__poll(tr->rb, timeout_ms);

	/* Records are submitted without wakeups: drain on the timer too. */
	if (err >= 0 || err == -EINTR)
		err = ring_buffer__consume(tr->rb);
	return err;
}

int ft_tracer_consume(struct ft_tracer *tr)
{
	return tr->rb ? ring_buffer__consume(tr->rb) : 0;
}

void ft_tracer_drain(struct ft_tracer *tr, ft_rec_fn fn, void *ctx)
{
	tr->draining = true;
	tr->drain_fn = fn;
	tr->drain_ctx = ctx;
	ft_tracer_consume(tr);
	tr->draining = false;
}
