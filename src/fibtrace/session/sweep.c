// SPDX-License-Identifier: GPL-2.0
/* The one read loop of --sweep and --compare: see sweep.h. */
#include <errno.h>
#include <stdlib.h>

#include "fibdev.h"
#include "fmt.h"
#include "sweep.h"

struct loop {
	const struct ft_sweep *s;
	char *buf;
	size_t bufsize;
	uint64_t done, total;
	struct progress bar;
};

static bool stopped(const struct ft_sweep *s)
{
	return s->stop && *s->stop;
}

static unsigned int burst_of(const struct ft_sweep *s)
{
	return s->burst ? s->burst : 1;
}

static void read_one(struct loop *l, int v, unsigned int round, unsigned int b, size_t nidx,
		     uint64_t n)
{
	const struct ft_sweep *s = l->s;
	struct ft_sweep_read r = {
		.variant = v,
		.round = round,
		.warmup = round < s->warmup,
		.burst_idx = b,
		.burst = burst_of(s),
		.nidx = nidx,
		.n = n,
	};

	r.got = fibdev_read(s->fds[v], n, l->buf, l->bufsize, &r.user_ns);
	l->done++;
	if (s->drain_each_read || !(l->done & 63))
		s->drain(s->ctx);
	if (s->on_read)
		s->on_read(s->ctx, &r);
	if (s->tick)
		s->tick(s->tick_ctx);
	if (!(l->done & 63))
		progress_update(&l->bar, l->done, l->total);
}

/* One visit: the burst's reads of n by variant @v, back to back. */
static void visit(struct loop *l, int v, unsigned int round, size_t nidx, uint64_t n)
{
	unsigned int b;

	for (b = 0; b < burst_of(l->s) && !stopped(l->s); b++)
		read_one(l, v, round, b, nidx, n);
}

/* Every n of the range once, for one variant or (interleaved) for all. */
static void one_pass(struct loop *l, int v, unsigned int round)
{
	const struct ft_sweep *s = l->s;
	const struct u64_range *rg = &s->range;
	uint64_t n = rg->first;
	size_t nidx = 0;
	int j;

	for (;;) {
		if (stopped(s))
			return;
		if (v >= 0) {
			visit(l, v, round, nidx, n);
		} else {
			for (j = 0; j < s->nvar; j++)
				visit(l, (j + round) % s->nvar, round, nidx, n);
		}
		if (rg->last - n < rg->step)
			break; /* no overflow past UINT64_MAX */
		n += rg->step;
		nidx++;
	}
}

int ft_sweep_run(const struct ft_sweep *s)
{
	struct loop l = {.s = s};
	unsigned int rounds = s->rounds + s->warmup, r;
	int v;

	l.bufsize = fibdev_bufsize(s->range.last);
	l.buf = malloc(l.bufsize);
	if (!l.buf)
		return -ENOMEM;
	l.total = u64_mul_sat(u64_mul_sat(u64_range_count(&s->range), rounds),
			      (uint64_t)s->nvar * burst_of(s));
	progress_init(&l.bar, s->progress);
	if (s->interleave) {
		for (r = 0; r < rounds && !stopped(s); r++)
			one_pass(&l, -1, r);
	} else {
		for (v = 0; v < s->nvar && !stopped(s); v++)
			for (r = 0; r < rounds && !stopped(s); r++)
				one_pass(&l, v, r);
	}
	s->drain(s->ctx);
	progress_update(&l.bar, l.done, l.total);
	free(l.buf);
	return 0;
}
