// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace --compare algos|formats|builds: the measurement, on sweep.h's
 * read loop.
 *
 * Every variant reads through its own open file (its own algorithm or output
 * format, or its own build's device, whose tracer records its reads). A round
 * visits every n and, for each n, every variant in turn, the starting variant
 * rotating from round to round, so slow drift (thermal, frequency, other
 * load) falls on every variant alike and none is always first after another.
 * Each read's kernel times come from the BPF per-read record (fib_read total
 * and its compute/format/copy stages); its user-side time is CLOCK_MONOTONIC
 * around read(). Records are matched to reads one by one (single driving
 * thread, pid filter = ourselves): a read whose record is missing, extra (in
 * its build's tracer or in another's) or disagrees on n, algorithm or return
 * value is counted as unmatched and left out, never mixed in.
 *
 * Under the instruction clock a visit is FT_CMP_EXACT_BURST reads back to
 * back and counts its cheapest (compare.h): the kernel allocator's batch
 * refills, which fall on some reads and not others, are set aside, and what
 * is left is the read's own count, the same in every round.
 */
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "compare_int.h"
#include "model/aggregate.h"
#include "model/events.h"
#include "session/sweep.h"

/* The visit under way: its cheapest matched read so far. */
struct best {
	bool have;
	int variant;
	size_t nidx;
	size_t rec; /* its record, in the variant's run */
	double vals[FT_METRIC_NR];
};

/* What the loop's callbacks need. */
struct drive {
	struct ft_compare *c;
	struct ft_run *run;
	ft_cmp_drain_fn drain;
	void *drain_ctx;
	struct best best;
};

static int drive_drain(void *ctx)
{
	struct drive *d = ctx;

	return d->drain(d->drain_ctx);
}

static void unmatched(struct ft_compare *c, struct variant *v)
{
	v->unmatched++;
	c->unmatched++;
}

/* Records drained since the last read, over every build's run. */
static size_t new_recs(const struct ft_compare *c)
{
	size_t total = 0;
	int v, w;

	for (v = 0; v < c->nv; v++) {
		for (w = 0; w < v && c->var[w].run != c->var[v].run; w++)
			;
		if (w == v) /* the first variant of its run */
			total += c->var[v].run->nrecs - c->var[v].mark;
	}
	return total;
}

/*
 * Matches read @r to its record, @v->run->recs[@v->mark], and its values
 * into vals[]: true when exactly one record matches it; otherwise counted as
 * failed or unmatched.
 */
static bool match_read(struct ft_compare *c, struct ft_run *run, const struct ft_sweep_read *r,
		       double vals[FT_METRIC_NR])
{
	struct variant *v = &c->var[r->variant];
	const struct ft_read_rec *rec;
	bool comp;

	c->reads_issued++;
	run->reads_issued++;
	v->reads++;
	if (r->got < 0) {
		v->errors++;
		c->read_errors++;
		run->read_errors++;
		return false;
	}
	rec = new_recs(c) == 1 && v->run->nrecs == v->mark + 1 ? &v->run->recs[v->mark] : NULL;
	if (!rec || rec->n != r->n || rec->algo != (__u32)v->algo_id || rec->ret != r->got) {
		unmatched(c, v);
		return false;
	}
	vals[FT_METRIC_COUNTER] = 0;
	if (ft_counters_first_event(run->counters)) {
		/*
		 * Counters that could not be paired (migrated, switched out)
		 * would mix in other work: the read is left out like an
		 * unmatched one.
		 */
		if (rec->cnt_status != FT_CNT_OK) {
			unmatched(c, v);
			return false;
		}
		vals[FT_METRIC_COUNTER] = ft_cnt_scaled(&rec->cnt[0]);
	}
	/* Compensated for fibtrace's cost unless --no-compensate or --attribute. */
	comp = cmp_compensated(c, run);
	vals[FT_METRIC_TOTAL] = comp ? rec->comp_total_ns : rec->total_ns;
	vals[FT_METRIC_COMPUTE] = comp ? rec->comp_stage_ns[0] : rec->stage_ns[0];
	vals[FT_METRIC_FORMAT] = comp ? rec->comp_stage_ns[1] : rec->stage_ns[1];
	vals[FT_METRIC_COPY] = comp ? rec->comp_stage_ns[2] : rec->stage_ns[2];
	vals[FT_METRIC_USER] = r->user_ns;
	/* Off-CPU time is waiting, not tracing: it comes off the compensated time as it is. */
	vals[FT_METRIC_ONCPU] =
		vals[FT_METRIC_TOTAL] > rec->off_ns ? vals[FT_METRIC_TOTAL] - rec->off_ns : 0;
	return true;
}

/* The visit's counted read into its cell (and --attribute's self times). */
static void commit_visit(struct drive *d)
{
	struct ft_compare *c = d->c;
	struct best *b = &d->best;
	struct raw_cell *cell = &c->raw[(size_t)b->variant * c->nn + b->nidx];
	int m;

	if (!b->have)
		return;
	for (m = 0; m < FT_METRIC_NR; m++)
		cell->v[m][cell->count] = b->vals[m];
	cell->count++;
	c->var[b->variant].matched++;
	if (c->attr)
		cmp_attr_record(c, b->variant, b->nidx, b->rec);
	b->have = false;
}

/*
 * A read of a visit: the visit keeps its cheapest matched read (in the
 * compared metric), whose record takes the place of the first one kept; the
 * other reads' records go.
 */
static void count_read(struct drive *d, const struct ft_sweep_read *r)
{
	struct ft_compare *c = d->c;
	struct variant *v = &c->var[r->variant];
	struct best *b = &d->best;
	double vals[FT_METRIC_NR];

	if (match_read(c, d->run, r, vals)) {
		if (!b->have) {
			*b = (struct best){.have = true,
					   .variant = r->variant,
					   .nidx = r->nidx,
					   .rec = v->mark};
			memcpy(b->vals, vals, sizeof(vals));
		} else {
			if (vals[c->o.metric] < b->vals[c->o.metric]) {
				ft_run_move_rec(v->run, b->rec, v->mark);
				memcpy(b->vals, vals, sizeof(vals));
			}
			ft_run_truncate_recs(v->run, v->mark);
		}
	}
	if (r->burst_idx + 1 >= r->burst)
		commit_visit(d);
}

/* Every variant's mark at its run's end: the next read's records follow. */
static void set_marks(struct ft_compare *c)
{
	int v;

	for (v = 0; v < c->nv; v++)
		c->var[v].mark = c->var[v].run->nrecs;
}

/* After each read, its records drained: v->run->recs[v->mark .. nrecs) of each build. */
static void on_read(void *ctx, const struct ft_sweep_read *r)
{
	struct drive *d = ctx;
	int v;

	if (r->warmup) /* not part of the report either */
		for (v = 0; v < d->c->nv; v++)
			ft_run_truncate_recs(d->c->var[v].run, d->c->var[v].mark);
	else
		count_read(d, r);
	set_marks(d->c);
}

static int open_variants(struct ft_compare *c, int *fds)
{
	int j;

	for (j = 0; j < c->nv; j++) {
		struct variant *v = &c->var[j];

		v->fd = fibdev_open(v->device, var_algo(v), v->format, "fibtrace");
		if (v->fd < 0) {
			v->fd = -1;
			return -FT_EXIT_ERROR;
		}
		fds[j] = v->fd;
	}
	return 0;
}

static void close_variants(struct ft_compare *c)
{
	int j;

	for (j = 0; j < c->nv; j++)
		if (c->var[j].fd >= 0) {
			close(c->var[j].fd);
			c->var[j].fd = -1;
		}
}

int ft_compare_drive(struct ft_compare *c, struct ft_run *run, ft_cmp_drain_fn drain, void *ctx,
		     volatile sig_atomic_t *stop)
{
	struct drive d = {.c = c, .run = run, .drain = drain, .drain_ctx = ctx};
	int fds[FT_CMP_MAX_VARIANTS];
	struct ft_sweep s = {
		.range = {.first = c->first, .last = nth(c, c->nn - 1), .step = c->step},
		.rounds = c->repeat,
		.warmup = WARMUP_ROUNDS,
		.burst = cmp_burst(run),
		.fds = fds,
		.nvar = c->nv,
		.interleave = true,
		.drain_each_read = true,
		.progress = isatty(STDERR_FILENO) && c->o.output == FT_CMP_TEXT,
		.on_read = on_read,
		.drain = drive_drain,
		.ctx = &d,
		.stop = stop,
	};
	int err = open_variants(c, fds);

	if (!err) {
		set_marks(c);
		if (ft_sweep_run(&s))
			err = -FT_EXIT_ERROR;
		commit_visit(&d); /* a visit a signal cut short */
	}
	close_variants(c);
	if (err)
		return err;
	if (*stop) {
		c->interrupted = true;
		ft_warn(run, "interrupted: the comparison uses the rounds completed so far");
	}
	if (c->unmatched)
		ft_warn(run, "%" PRIu64 " reads had no matching BPF record (left out)",
			c->unmatched);
	if (c->read_errors)
		ft_warn(run, "%" PRIu64 " reads failed (left out)", c->read_errors);
	return 0;
}
