// SPDX-License-Identifier: GPL-2.0
/*
 * The calibration in context (docs/measurement.md, "The observer effect"):
 * what a traced call of the module's own costs amid real work, against the
 * calibration functions' midpoint (calibrate.c), and, when fibtrace drives
 * the reads (a sweep), what fib_read's own tracing costs inside its interval.
 *
 * A sample is, for a sweep, FT_CALIB_CONTEXT_COMPUTES reads of F(n) and as
 * many reads fib_read refuses at its first test (FT_CALIB_REFUSED_N): the
 * median read less the median refusal, timed from user space untraced, from
 * each read's record (fib_read's interval) traced. The syscall path cancels;
 * what is left is fib_read's work and, traced, the cost of every traced call
 * inside it as a read makes them (its stages, the same attach set), less
 * what their programs timed of themselves (BPF subtracts that as measured;
 * the calibrated cost is the rest). The
 * interval BPF records for a refused read is fib_read's own in-interval cost
 * (its body is a compare and a return, which the untraced truth subtracts
 * the same way). Otherwise (a command, -p, waiting: the reads are not
 * fibtrace's) a sample is FIBDRV_CALIB_COMPUTE computations of F(n).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calib_int.h"
#include "fibdev.h"

/* F(@want), or less within @fd's algorithm's range. */
__u64 ft_calib_capped_n(const struct ft_run *run, int fd, __u64 want)
{
	char name[FIBDRV_ALGO_NAME_MAX];
	int i = -1;

	if (!fibdev_get_algo(fd, name, sizeof(name)))
		i = fibdev_algo_index(&run->algos, name);
	if (i < 0)
		return 1; /* unknown: F(1) */
	return run->algos.max_n[i] < want ? run->algos.max_n[i] : want;
}

/* The cost BPF subtracts: the midpoint of @warm and @cold, their spread as the error bound per
 * call. */
void ft_calib_set_midpoint(struct ft_cost *cost, const struct ft_cost_series *warm,
			   const struct ft_cost_series *cold)
{
	cost->full_ns = (warm->full_ns + cold->full_ns) / 2;
	cost->full_err = fabs(cold->full_ns - warm->full_ns);
	cost->in_ns = (warm->in_ns + cold->in_ns) / 2;
	cost->in_err = fabs(cold->in_ns - warm->in_ns);
	if (cost->in_ns > cost->full_ns)
		cost->in_ns = cost->full_ns; /* noise on a tiny cost: in is part of full */
	/* In context a call costs cost->ratio times the calibration function's: both parts, both
	 * bounds, and the context's own spread on the full cost's; and every call's cost varies
	 * by FT_COST_CALL_SPREAD of it with the function and the run (run.h). */
	cost->full_ns *= cost->ratio;
	cost->in_ns *= cost->ratio;
	cost->full_err =
		cost->full_err * cost->ratio + cost->ctx_err + FT_COST_CALL_SPREAD * cost->full_ns;
	cost->in_err = cost->in_err * cost->ratio + FT_COST_CALL_SPREAD * cost->in_ns;
}

/* fib_read's target, when traced: the reads can calibrate; NULL otherwise. */
static const struct ft_target *read_target(const struct ft_run *run)
{
	const struct ft_targets *tg = run->targets;
	int i;

	for (i = 0; i < tg->count; i++)
		if (tg->t[i].slot == FT_SLOT_READ && !tg->t[i].unavailable)
			return &tg->t[i];
	return NULL;
}

/*
 * The n of the context: a sweep's middle n (a call's cost moves with the work
 * between calls: docs/measurement.md) within [FT_CALIB_CONTEXT_N_MIN,
 * FT_CALIB_CONTEXT_N_MAX] for computations (below, a computation makes too
 * few traced calls), at most FT_CALIB_CONTEXT_N_MAX for reads (above, the
 * calibration would take seconds under emulation); FT_CALIB_CONTEXT_N when
 * the reads are not fibtrace's.
 */
static __u64 context_n(const struct ft_run *run, bool reads)
{
	__u64 mid;

	if (!run->sweep || !run->step)
		return FT_CALIB_CONTEXT_N;
	mid = run->first + (run->last - run->first) / run->step / 2 * run->step;
	if (mid < FT_CALIB_CONTEXT_N_MIN && !reads)
		return FT_CALIB_CONTEXT_N_MIN;
	return mid < FT_CALIB_CONTEXT_N_MAX ? mid : FT_CALIB_CONTEXT_N_MAX;
}

/*
 * @k preads of F(@n) in a row (@refuse: fib_read must refuse them), each
 * timed: their median into @ns. pread, as the untraced truth does
 * (bench/trace_workload.c), since lseek refuses what fib_read must. 0 or
 * -errno.
 */
static int timed_reads(struct ft_calib *c, __u64 n, bool refuse, unsigned int k, double *ns)
{
	double t[FT_CALIB_CONTEXT_COMPUTES];
	struct timespec a, b;
	unsigned int i;
	ssize_t got;

	for (i = 0; i < k; i++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		got = pread(c->fd, c->buf, c->bufsize, (off_t)n);
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (refuse ? got != -1 || errno != EINVAL : got <= 0)
			return -EPROTO;
		t[i % FT_CALIB_CONTEXT_COMPUTES] =
			(b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	}
	*ns = ft_calib_central(false, t,
			       k < FT_CALIB_CONTEXT_COMPUTES ? k : FT_CALIB_CONTEXT_COMPUTES);
	return 0;
}

/*
 * One sample's time per read or computation into @s. For reads, the median
 * read of F(n) and the median refused read, apart (a run reports medians;
 * a mean would count what the kernel's allocator adds to some reads, and
 * under the instruction clock the minimum of a difference would pick a
 * round whose refused reads an interrupt slowed): untraced, as user space
 * times them; traced (@tr), fib_read's interval as BPF recorded it in each
 * read's record, as a run's figures are (user space would add fib_read's
 * own exit program, which costs more for a read than for a refusal), less
 * the time the traced calls' programs timed of themselves (the record's
 * probe_ns). 0 or -errno.
 */
struct sample {
	double ns, refused_ns;
};

/* The traced reads' intervals, from their records: [0] reads of F(n), [1] refused. */
struct read_sink {
	double ns[2][FT_CALIB_CONTEXT_COMPUTES];
	unsigned int n[2];
};

static int sink_rec(void *ctx, const void *data, size_t size)
{
	const struct ft_read_rec *r = data;
	struct read_sink *s = ctx;
	int refused;

	if (size < FT_READ_REC_SIZE_NO_COUNTERS)
		return 0;
	refused = (__s64)r->ret < 0;
	if (s->n[refused] < FT_CALIB_CONTEXT_COMPUTES)
		s->ns[refused][s->n[refused]++] = (double)(r->total_ns - r->probe_ns);
	return 0;
}

static int read_sample(struct ft_calib *c, struct ft_tracer *tr, const struct ft_run *run,
		       struct sample *s)
{
	unsigned int k = run->overhead.ctx.computes;
	struct read_sink sink = {0};
	int err;

	err = timed_reads(c, c->refuse_n, true, k, &s->refused_ns);
	if (!err)
		err = timed_reads(c, run->overhead.ctx.n, false, k, &s->ns);
	if (!tr || err)
		return err;
	ft_tracer_drain(tr, sink_rec, &sink);
	if (!sink.n[0] || !sink.n[1])
		return -ENODATA; /* records lost: the ring buffer full */
	s->ns = ft_calib_central(false, sink.ns[0], sink.n[0]);
	s->refused_ns = ft_calib_central(false, sink.ns[1], sink.n[1]);
	return 0;
}

/*
 * Traced calls the reported slots recorded so far, per mode, those whose
 * last traced callee was a tail call (@tails, when not NULL), and (@probe,
 * when not NULL) what their programs timed of themselves
 * (ft_func_stats.probe_ns): 0 or -(exit status).
 */
static int count_calls(struct ft_tracer *tr, const struct ft_targets *tg, double calls[FT_MODE_NR],
		       double tails[FT_MODE_NR], double *probe)
{
	struct ft_func_stats st;
	int i;

	for (i = 0; i < FT_MODE_NR; i++) {
		calls[i] = 0;
		if (tails)
			tails[i] = 0;
	}
	if (probe)
		*probe = 0;
	for (i = 0; i < tg->count; i++) {
		const struct ft_target *t = &tg->t[i];

		if (t->unavailable || !t->attached)
			continue;
		if (ft_tracer_slot_stats(tr, t->slot, &st))
			return -FT_EXIT_ERROR;
		calls[t->mode] += st.count;
		if (tails)
			tails[t->mode] += st.tail_calls;
		if (probe)
			*probe += (double)st.probe_ns;
	}
	return 0;
}

/*
 * One sample, untraced (@tr NULL) or traced; traced computations less what
 * their calls' programs timed of themselves (the ioctl's own traced calls,
 * outside the timed computations, included: one call's programs in ten
 * computations).
 */
static int sample(struct ft_calib *c, struct ft_tracer *tr, const struct ft_run *run,
		  struct sample *s)
{
	const struct ft_cost_context *x = &run->overhead.ctx;
	double calls[FT_MODE_NR], before = 0, after = 0;
	uint64_t t;
	int err = 0;

	if (x->reads)
		return read_sample(c, tr, run, s);
	s->ns = s->refused_ns = 0;
	if (tr)
		err = count_calls(tr, run->targets, calls, NULL, &before);
	if (!err)
		err = fibdev_calibrate(c->fd, FIBDRV_CALIB_COMPUTE, x->computes, x->n, &t);
	if (!err && tr)
		err = count_calls(tr, run->targets, calls, NULL, &after);
	if (err)
		return err;
	s->ns = ((double)t - (after - before)) / x->computes;
	return 0;
}

/* Whether the context is reads: a sweep's, with fib_read traced. */
static bool want_reads(struct ft_calib *c, const struct ft_run *run)
{
	if (!run->sweep || !read_target(run))
		return false;
	c->refuse_n = FT_CALIB_REFUSED_N;
	c->bufsize = fibdev_bufsize(run->overhead.ctx.n);
	c->buf = malloc(c->bufsize);
	return c->buf != NULL;
}

void ft_calib_context_untraced(struct ft_calib *c, struct ft_run *run)
{
	struct ft_cost_context *x = &run->overhead.ctx;
	double t[FT_CALIB_ROUNDS], ref[FT_CALIB_ROUNDS];
	struct sample s;
	int r, err = 0;

	x->reads = run->sweep && read_target(run);
	x->n = ft_calib_capped_n(run, c->fd, context_n(run, x->reads));
	x->reads = want_reads(c, run);
	x->computes = FT_CALIB_CONTEXT_COMPUTES;
	for (r = 0; r < FT_CALIB_ROUNDS && !err; r++) {
		err = sample(c, NULL, run, &s);
		t[r] = s.ns;
		ref[r] = s.refused_ns;
	}
	if (err) {
		ft_warn(run,
			"calibration in context: %s: %s: the calibration functions' costs alone",
			x->reads ? "reads of F(n) and refused reads"
				 : "FIBDRV_IOC_CALIBRATE (a fibdrv before FIBDRV_CALIB_COMPUTE?)",
			strerror(-err));
		x->wanted = false;
		return;
	}
	x->untraced_ns = ft_calib_central(c->exact, t, FT_CALIB_ROUNDS) -
			 ft_calib_central(c->exact, ref, FT_CALIB_ROUNDS);
}

/*
 * The traced calls of one computation (or read), per mode, into @per (and
 * those of them whose last traced callee was a tail call into @tails), as
 * the difference of two batches that make the same calls besides: for
 * computations, the ioctl's own (fib_ioctl, the check of n: outside the
 * timed computations) between one computation and x->computes of them; for
 * reads, fib_read itself and the lseek before each read, between refused
 * reads and reads. Also the warm-up. The mode of most calls into x->mode.
 */
static int context_calls(struct ft_calib *c, struct ft_tracer *tr, struct ft_run *run,
			 double per[FT_MODE_NR], double tails[FT_MODE_NR])
{
	struct ft_cost_context *x = &run->overhead.ctx;
	const struct ft_targets *tg = run->targets;
	double c0[FT_MODE_NR], c1[FT_MODE_NR], c2[FT_MODE_NR], ns;
	double t0[FT_MODE_NR], t1[FT_MODE_NR], t2[FT_MODE_NR];
	unsigned int k = x->computes, per_batch = x->reads ? k : k - 1;
	uint64_t t;
	int m, err = count_calls(tr, tg, c0, t0, NULL);

	if (!err)
		err = x->reads ? timed_reads(c, c->refuse_n, true, k, &ns)
			       : fibdev_calibrate(c->fd, FIBDRV_CALIB_COMPUTE, 1, x->n, &t);
	if (!err)
		err = count_calls(tr, tg, c1, t1, NULL);
	if (!err)
		err = x->reads ? timed_reads(c, x->n, false, k, &ns)
			       : fibdev_calibrate(c->fd, FIBDRV_CALIB_COMPUTE, k, x->n, &t);
	if (!err)
		err = count_calls(tr, tg, c2, t2, NULL);
	if (x->reads)
		ft_tracer_drain(tr, NULL, NULL);
	if (err)
		return err;
	x->calls = 0;
	for (m = 0; m < FT_MODE_NR; m++) {
		per[m] = ((c2[m] - c1[m]) - (c1[m] - c0[m])) / per_batch;
		tails[m] = ((t2[m] - t1[m]) - (t1[m] - t0[m])) / per_batch;
		x->calls += per[m];
		if (per[m] > per[x->mode])
			x->mode = m;
	}
	return 0;
}

void ft_calib_context_start(struct ft_calib *c, struct ft_tracer *tr, struct ft_run *run,
			    struct calib_rounds *cr)
{
	struct ft_cost_context *x = &run->overhead.ctx;

	cr->ctx_failed = x->wanted ? NULL : "not wanted";
	if (!x->wanted)
		return;
	ft_tracer_set_state(tr, FT_CALIB_CONTEXT);
	if (context_calls(c, tr, run, cr->per, cr->tails))
		cr->ctx_failed = x->reads ? "its reads failed" : "FIBDRV_IOC_CALIBRATE failed";
	else if (x->calls <
		 (x->reads ? FT_CALIB_CONTEXT_MIN_READ_CALLS : FT_CALIB_CONTEXT_MIN_CALLS))
		cr->ctx_failed = "too few traced calls";
	cr->ctx_end = ft_now_s();
}

/*
 * Round @r in context: one traced sample, its time. The rounds are at least
 * FT_CALIB_CONTEXT_GAP_US apart: under emulation a traced call's cost moves
 * by +-25% from one moment to the next (docs/measurement.md, "noise"), so
 * their median then averages moments, and half their range, in the bound,
 * says how far they move. What separates them is the calibration functions'
 * rounds (ft_calibrate), and a spin for whatever of the gap they leave: a
 * CPU left idle comes back slower (measured: sleeping 30 ms between rounds
 * put their median 19-67% above what the reads then paid in 8 rows of 12),
 * and a sweep's reads come back to back. Then one sample, untimed, warms up
 * the kernel's side again.
 */
void ft_calib_context_round(struct ft_calib *c, struct ft_tracer *tr, struct ft_run *run,
			    unsigned int r, struct calib_rounds *cr)
{
	double until = cr->ctx_end + FT_CALIB_CONTEXT_GAP_US / 1e6;
	struct sample s;

	if (cr->ctx_failed)
		return;
	ft_tracer_set_state(tr, FT_CALIB_CONTEXT);
	while (ft_now_s() < until)
		;
	if (sample(c, tr, run, &s) || sample(c, tr, run, &s)) {
		cr->ctx_failed = "a sample failed";
		return;
	}
	cr->ctx_ns[r] = s.ns;
	cr->ctx_ref[r] = s.refused_ns;
	cr->ctx_end = ft_now_s();
}

/*
 * The calibration in context from its rounds: what one call of x->mode
 * cost there (the other modes' calls at their own cost, known now), the
 * factor between that and the calibration function's midpoint for that
 * mode; half the rounds' range joins its bound; for reads, fib_read's own
 * in-interval cost. Nothing applied when it could not be measured (a
 * warning says why).
 */
void ft_calib_context_costs(struct ft_run *run, const struct calib_rounds *cr)
{
	struct ft_cost_context *x = &run->overhead.ctx;
	struct ft_cost *cost = &run->overhead.mode[x->mode];
	bool exact = ft_run_clock_exact(run);
	double full[FT_CALIB_ROUNDS], other = 0, ref, lo = 0, hi = 0;
	int r, m;

	if (!x->wanted)
		return;
	if (cr->ctx_failed || !cost->valid) {
		ft_warn(run, "calibration in context: %s: the calibration functions' costs alone",
			cr->ctx_failed ? cr->ctx_failed : "no calibration of its mode");
		return;
	}
	/* Two calls returning together cost tail_out less than two calls (calibrate.c). */
	for (m = 0; m < FT_MODE_NR; m++) {
		const struct ft_cost *mc = &run->overhead.mode[m];

		if (m != (int)x->mode)
			other += cr->per[m] * mc->full_ns;
		if (mc->tail_valid)
			other -= cr->tails[m] * mc->tail_out_ns;
	}
	ref = ft_calib_central(exact, cr->ctx_ref, FT_CALIB_ROUNDS);
	for (r = 0; r < FT_CALIB_ROUNDS; r++)
		full[r] = (cr->ctx_ns[r] - ref - x->untraced_ns - other) / cr->per[x->mode];
	x->rounds = FT_CALIB_ROUNDS;
	ft_calib_summarize(exact, full, x->rounds, &x->full_ns, &x->full_min, &x->full_max);
	if (!(x->full_ns > 0)) {
		ft_warn(run, "calibration in context: no cost measured: the calibration "
			     "functions' costs alone");
		return;
	}
	if (x->reads)
		ft_calib_summarize(exact, cr->ctx_ref, x->rounds, &x->read_in_ns, &lo, &hi);
	x->read_in_err = x->reads ? (hi - lo) / 2 : 0;
	cost->ratio = x->full_ns / cost->full_ns;
	cost->ctx_err = (x->full_max - x->full_min) / 2;
	ft_calib_set_midpoint(cost, &cost->warm, &cost->cold);
	cost->run_full_min = cost->run_full_max = cost->full_ns;
	x->done = true;
}
