// SPDX-License-Identifier: GPL-2.0
/*
 * Overhead calibration: see calibrate.h and docs/measurement.md.
 *
 * fibdrv calls an empty function, each call timed alone in the kernel, in
 * two settings: warm, the calls back to back; cold, each call after a
 * computation of F(work_n) (the caches, and under emulation the translated
 * code, then hold the real work, not the tracer). A traced call amid real
 * work costs somewhere between the two; under emulation cold is about twice
 * warm. Per round of each setting:
 *   full = (time per call traced - time per call untraced)
 *          what a traced call adds to the time of whoever calls it;
 *   in   = the mean interval BPF recorded for those calls: the part of
 *          full inside the call's own interval (the empty body's own few
 *          ns included).
 * Medians over FT_CALIB_ROUNDS rounds; min and max are reported. BPF
 * subtracts the midpoints of warm and cold; their spread (cold - warm, on
 * either side of the midpoint: the host's speed drifts too), times the
 * traced calls a figure contains, is the figure's compensation error bound.
 * A sweep recalibrates every FT_RECAL_S between its reads (fewer rounds):
 * the midpoints move, and the bound per call adds how far they moved.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib_int.h"
#include "fibdev.h"

/* Which fibdrv_calib<k> a calibration target is. */
static int calib_func(const struct ft_target *t)
{
	size_t n = strlen(FT_CALIB_PREFIX);
	int k;

	if (strncmp(t->name, FT_CALIB_PREFIX, n) || !t->name[n] || t->name[n + 1])
		return -1;
	k = t->name[n] - '0';
	return k >= 0 && k < FIBDRV_CALIB_FUNCS ? k : -1;
}

/* One round: the time of one call, in ns. */
static int round_ns(const struct ft_calib *c, int func, int cold, double *per_call)
{
	__u32 calls = cold ? FT_CALIB_CALLS_COLD : FT_CALIB_CALLS_WARM;
	uint64_t ns = 0;
	int err = fibdev_calibrate(c->fd, func, calls, cold ? c->work_n : 0, &ns);

	if (err)
		fprintf(stderr, "fibtrace: calibration: FIBDRV_IOC_CALIBRATE: %s\n",
			strerror(-err));
	*per_call = (double)ns / calls;
	return err;
}

int ft_calibrate_untraced(struct ft_calib *c, struct ft_run *run, const char *device)
{
	const struct ft_targets *tg = run->targets;
	double x[FT_CALIB_ROUNDS];
	int i, k, r, cold;

	c->fd = -1;
	c->buf = NULL;
	c->exact = ft_run_clock_exact(run);
	if (!tg->ncalib)
		return 0;
	c->fd = fibdev_open(device, NULL, -1, "fibtrace: calibration");
	if (c->fd < 0)
		return -FT_EXIT_ERROR;
	c->work_n = ft_calib_capped_n(run, c->fd, FT_CALIB_WORK_N);
	c->callee_slot = -1;
	for (i = tg->count; i < ft_targets_all(tg); i++) {
		k = calib_func(&tg->t[i]);
		if (k == 1)
			c->callee_slot = tg->t[i].slot;
		for (cold = 0; k >= 0 && cold < 2; cold++) {
			for (r = 0; r < FT_CALIB_ROUNDS; r++)
				if (round_ns(c, k, cold, &x[r]))
					return -FT_EXIT_ERROR;
			c->untraced_ns[k][cold] = ft_calib_central(c->exact, x, FT_CALIB_ROUNDS);
		}
	}
	if (run->overhead.ctx.wanted)
		ft_calib_context_untraced(c, run);
	return 0;
}

/*
 * One traced round of calibration target @t in one setting: what a call
 * cost its caller (@full) and the interval BPF recorded for it (@in). 0, 1
 * when calls went unrecorded, or -(exit status). @full leaves out what the
 * programs timed of themselves (ft_func_stats.probe_ns), which BPF
 * subtracts call by call: the calibrated cost is the rest, the part no
 * program can time (the trampoline or kprobe, running the program, the
 * edges of the clock reads). For fibdrv_calib2, the pair: its tail call
 * fibdrv_calib1 runs inside each call, and its programs' time comes out of
 * both figures.
 */
static int series_round(struct ft_calib *c, struct ft_tracer *tr, const struct ft_target *t,
			int cold, double *full, double *in)
{
	unsigned int calls = cold ? FT_CALIB_CALLS_COLD : FT_CALIB_CALLS_WARM;
	int k = calib_func(t);
	bool pair = k == FT_CALIB_TAIL;
	struct ft_func_stats a, b, ca = {0}, cb = {0};
	double call, callee;

	if (pair && (c->callee_slot < 0 || ft_tracer_slot_stats(tr, c->callee_slot, &ca)))
		return -FT_EXIT_ERROR;
	if (ft_tracer_slot_stats(tr, t->slot, &a) || round_ns(c, k, cold, &call) ||
	    ft_tracer_slot_stats(tr, t->slot, &b))
		return -FT_EXIT_ERROR;
	if (pair && ft_tracer_slot_stats(tr, c->callee_slot, &cb))
		return -FT_EXIT_ERROR;
	if (b.count - a.count != calls || cb.count - ca.count != (pair ? calls : 0))
		return 1;
	callee = (double)(cb.probe_ns - ca.probe_ns) / calls;
	*full = call - c->untraced_ns[k][cold] - (double)(b.probe_ns - a.probe_ns) / calls - callee;
	*in = (double)(b.total_ns - a.total_ns) / calls - callee;
	return 0;
}

/* @rounds rounds of target @t in one setting summarized into @s. */
static void series_set(const struct ft_calib *c, const struct ft_target *t, int cold,
		       const double *full, const double *in, unsigned int rounds,
		       struct ft_cost_series *s)
{
	s->calls = cold ? FT_CALIB_CALLS_COLD : FT_CALIB_CALLS_WARM;
	ft_calib_summarize(c->exact, full, rounds, &s->full_ns, &s->full_min, &s->full_max);
	ft_calib_summarize(c->exact, in, rounds, &s->in_ns, &s->in_min, &s->in_max);
	s->rounds = rounds;
	s->work_n = cold ? c->work_n : 0;
	s->untraced_ns = c->untraced_ns[calib_func(t)][cold];
}

/* @rounds traced rounds of @t in one setting, in a row (a recalibration): 0, 1 or -(exit). */
static int series(struct ft_calib *c, struct ft_tracer *tr, const struct ft_target *t, int cold,
		  unsigned int rounds, struct ft_cost_series *s)
{
	double full[FT_CALIB_ROUNDS], in[FT_CALIB_ROUNDS];
	unsigned int r;
	int err;

	for (r = 0; r < rounds; r++)
		if ((err = series_round(c, tr, t, cold, &full[r], &in[r])))
			return err;
	series_set(c, t, cold, full, in, rounds, s);
	return 0;
}

/* Round @r of calibration target @t, warm then cold: 0 or -(exit status). */
static int target_round(struct ft_calib *c, struct ft_tracer *tr, const struct ft_target *t,
			unsigned int r, struct calib_rounds *cr)
{
	int k = calib_func(t), cold, err = 0;

	if (k < 0 || !t->attached || cr->unrecorded[k])
		return 0;
	for (cold = 0; cold < 2 && !err; cold++)
		err = series_round(c, tr, t, cold, &cr->full[k][cold][r], &cr->in[k][cold][r]);
	if (err > 0)
		cr->unrecorded[k] = true;
	return err < 0 ? err : 0;
}

/*
 * fibdrv_calib2's rounds (a call and its tail call, fibdrv_calib1, whose
 * series are its mode's): what a call whose last traced callee was a tail
 * call costs less than the two calls' costs, inside its own interval (in:
 * the two costs less the pair's interval, plus fibdrv_calib2's own work,
 * its untraced time less fibdrv_calib1's) and to its caller (out: the two
 * full costs less the pair's), from the midpoints of warm and cold before
 * the context's ratio.
 */
static void tail_costs(const struct ft_calib *c, const struct ft_target *t,
		       const struct calib_rounds *cr, struct ft_cost *cost)
{
	const struct ft_cost_series *w = &cost->warm, *k = &cost->cold;
	struct ft_cost_series pw, pc;
	double body[2];
	int cold;

	if (!cost->valid)
		return;
	series_set(c, t, 0, cr->full[FT_CALIB_TAIL][0], cr->in[FT_CALIB_TAIL][0], FT_CALIB_ROUNDS,
		   &pw);
	series_set(c, t, 1, cr->full[FT_CALIB_TAIL][1], cr->in[FT_CALIB_TAIL][1], FT_CALIB_ROUNDS,
		   &pc);
	for (cold = 0; cold < 2; cold++)
		body[cold] = c->untraced_ns[FT_CALIB_TAIL][cold] - c->untraced_ns[1][cold];
	cost->tail = pw;
	cost->tail_in_ns = (w->in_ns + k->in_ns + w->full_ns + k->full_ns - pw.in_ns - pc.in_ns +
			    body[0] + body[1]) /
			   2;
	cost->tail_out_ns = w->full_ns + k->full_ns - (pw.full_ns + pc.full_ns) / 2;
	cost->tail_valid = true;
}

/* Calibration target @t's series from its rounds: its mode's costs (or a warning). */
static void target_costs(const struct ft_calib *c, struct ft_run *run, const struct ft_target *t,
			 const struct calib_rounds *cr)
{
	struct ft_cost *cost = &run->overhead.mode[t->mode];
	int k = calib_func(t);

	if (k < 0 || !t->attached)
		return;
	if (cr->unrecorded[k]) {
		ft_warn(run, "calibration: calls of %s went unrecorded: %s figures not compensated",
			t->name, ft_mode_name(t->mode));
		return;
	}
	if (k == FT_CALIB_TAIL) {
		tail_costs(c, t, cr, cost);
		return;
	}
	series_set(c, t, 0, cr->full[k][0], cr->in[k][0], FT_CALIB_ROUNDS, &cost->warm);
	series_set(c, t, 1, cr->full[k][1], cr->in[k][1], FT_CALIB_ROUNDS, &cost->cold);
	cost->ratio = 1;
	cost->ctx_err = 0;
	ft_calib_set_midpoint(cost, &cost->warm, &cost->cold);
	cost->run_full_min = cost->run_full_max = cost->full_ns;
	cost->valid = cost->full_ns > 0;
}

/*
 * Every compensated slot's costs into BPF: its mode's; fib_read's own
 * in-interval cost as its reads measured it, when the context was reads.
 */
static void push_costs(struct ft_tracer *tr, const struct ft_run *run)
{
	const struct ft_cost_context *x = &run->overhead.ctx;
	const struct ft_targets *tg = run->targets;
	int i;

	for (i = 0; i < tg->count; i++) {
		const struct ft_target *t = &tg->t[i];
		struct ft_cost cost = run->overhead.mode[t->mode];

		if (t->unavailable || !cost.valid)
			continue;
		if (t->slot == FT_SLOT_READ && x->done && x->reads) {
			cost.in_ns = x->read_in_ns;
			cost.in_err = x->read_in_err + FT_COST_CALL_SPREAD * x->read_in_ns;
		}
		ft_tracer_set_cost(tr, t->slot, &cost);
	}
}

/*
 * The rounds, interleaved: round r of every calibration function (warm,
 * cold; FT_CALIBRATING), then round r in context (every slot recording,
 * cleared at the end). Besides spacing the rounds in context without
 * idling, this measures the calibration functions and the context over
 * the same stretch of time, so a drift of the host moves both. 0 or
 * -(exit status).
 */
static int calibrate_rounds(struct ft_calib *c, struct ft_tracer *tr, struct ft_run *run,
			    struct calib_rounds *cr)
{
	const struct ft_targets *tg = run->targets;
	unsigned int r;
	int i, err = 0;

	ft_calib_context_start(c, tr, run, cr);
	for (r = 0; r < FT_CALIB_ROUNDS && !err; r++) {
		ft_tracer_set_state(tr, FT_CALIBRATING);
		for (i = tg->count; i < ft_targets_all(tg) && !err; i++)
			err = target_round(c, tr, &tg->t[i], r, cr);
		if (!err)
			ft_calib_context_round(c, tr, run, r, cr);
	}
	ft_tracer_set_state(tr, FT_OFF);
	if (run->overhead.ctx.wanted && ft_tracer_clear(tr)) {
		fprintf(stderr, "fibtrace: calibration in context: cannot clear its records\n");
		return -FT_EXIT_ERROR;
	}
	return err;
}

int ft_calibrate(struct ft_calib *c, struct ft_tracer *tr, struct ft_run *run)
{
	struct ft_targets *tg = run->targets;
	struct ft_overhead *o = &run->overhead;
	struct calib_rounds cr = {0};
	int i, err;

	if (c->fd < 0)
		return 0;
	err = calibrate_rounds(c, tr, run, &cr);
	if (err)
		return err;
	for (i = tg->count; i < ft_targets_all(tg); i++)
		target_costs(c, run, &tg->t[i], &cr);
	ft_calib_context_costs(run, &cr);
	for (i = 0; i < tg->count; i++) {
		struct ft_target *t = &tg->t[i];
		struct ft_cost *cost = &o->mode[t->mode];

		if (t->unavailable)
			continue;
		if (!cost->valid) {
			o->uncompensated++;
			continue;
		}
		cost->funcs++;
		o->on = true;
	}
	push_costs(tr, run);
	if (o->on && o->uncompensated)
		ft_warn(run, "%d functions not compensated: no calibration for their mode",
			o->uncompensated);
	c->tr = tr;
	c->run = run;
	c->last_s = ft_now_s();
	return 0;
}

/* A short recalibration of @t's mode: its cost moved to the new midpoint. */
static int recalibrate_one(struct ft_calib *c, const struct ft_target *t)
{
	struct ft_cost *cost = &c->run->overhead.mode[t->mode];
	struct ft_cost_series warm, cold;
	struct ft_cost before = *cost;
	int err;

	/* The tail call's saving keeps its start-up figure: a difference of two costs. */
	if (calib_func(t) < 0 || calib_func(t) == FT_CALIB_TAIL || !t->attached || !cost->valid ||
	    !cost->funcs)
		return 0;
	err = series(c, c->tr, t, 0, FT_RECAL_ROUNDS_WARM, &warm);
	if (!err)
		err = series(c, c->tr, t, 1, FT_RECAL_ROUNDS_COLD, &cold);
	if (err)
		return err;
	ft_calib_set_midpoint(cost, &warm, &cold);
	if (cost->full_ns <= 0) {
		*cost = before; /* noise on a short series: keep the last costs */
		return 0;
	}
	cost->full_err += fabs(cost->full_ns - before.full_ns);
	cost->recals++;
	cost->run_full_min = fmin(cost->run_full_min, cost->full_ns);
	cost->run_full_max = fmax(cost->run_full_max, cost->full_ns);
	return 0;
}

void ft_calibrate_tick(void *calib)
{
	struct ft_calib *c = calib;
	const struct ft_targets *tg;
	int i, err = 0;

	/* Under the instruction clock a traced call's cost does not drift with the host. */
	if (c->fd < 0 || c->failed || c->exact || !c->run->overhead.on ||
	    ft_now_s() - c->last_s < FT_RECAL_S)
		return;
	tg = c->run->targets;
	ft_tracer_set_state(c->tr, FT_CALIBRATING);
	for (i = tg->count; i < ft_targets_all(tg) && !err; i++)
		err = recalibrate_one(c, &tg->t[i]);
	ft_tracer_set_state(c->tr, FT_ON);
	if (err) {
		c->failed = true;
		ft_warn(c->run, "recalibration failed: costs stay as last calibrated");
	}
	push_costs(c->tr, c->run);
	c->last_s = ft_now_s();
}

/* Mode @m's cost of every run: their mean, the error widened by their spread. */
static void pool_mode(struct ft_run *const *runs, int n, int m)
{
	double full = 0, in = 0, fmin = INFINITY, fmax = 0, imin = INFINITY, imax = 0;
	double ferr = 0, ierr = 0, tin = 0, tout = 0;
	bool tail = true;
	int i;

	for (i = 0; i < n; i++) {
		const struct ft_cost *c = &runs[i]->overhead.mode[m];

		if (!c->valid)
			return; /* one build uncalibrated: each keeps its own (or none) */
		tail = tail && c->tail_valid;
		tin += c->tail_in_ns / n;
		tout += c->tail_out_ns / n;
		full += c->full_ns / n;
		in += c->in_ns / n;
		fmin = fmin < c->full_ns ? fmin : c->full_ns;
		fmax = fmax > c->full_ns ? fmax : c->full_ns;
		imin = imin < c->in_ns ? imin : c->in_ns;
		imax = imax > c->in_ns ? imax : c->in_ns;
		ferr = ferr > c->full_err ? ferr : c->full_err;
		ierr = ierr > c->in_err ? ierr : c->in_err;
	}
	for (i = 0; i < n; i++) {
		struct ft_cost *c = &runs[i]->overhead.mode[m];

		c->full_ns = full;
		c->in_ns = in;
		c->full_err = ferr + (fmax - fmin) / 2;
		c->in_err = ierr + (imax - imin) / 2;
		c->run_full_min = fmin;
		c->run_full_max = fmax;
		/* One build without fibdrv_calib2: no build's tail calls corrected, alike. */
		c->tail_valid = tail;
		c->tail_in_ns = tin;
		c->tail_out_ns = tout;
	}
}

void ft_calibrate_pool(struct ft_tracer *const *trs, struct ft_run *const *runs, int n)
{
	int i, m;

	if (n < 2)
		return;
	for (m = 0; m < FT_MODE_NR; m++)
		pool_mode(runs, n, m);
	for (i = 0; i < n; i++)
		push_costs(trs[i], runs[i]);
}

void ft_calibrate_close(struct ft_calib *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->buf);
	c->buf = NULL;
}
