/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What calibrate.c and calib_context.c share: the rounds of a calibration,
 * the central value of a series, and the calibration in context
 * (docs/measurement.md, "The observer effect").
 */
#ifndef FIBTRACE_CALIB_INT_H
#define FIBTRACE_CALIB_INT_H

#include <stdbool.h>

#include "calibrate.h"
#include "stats.h"

/*
 * ft_calibrate()'s rounds, gathered round by round: every calibration
 * target's warm and cold rounds (indexed by its calibration function), and
 * the rounds in context between them.
 */
struct calib_rounds {
	double full[FIBDRV_CALIB_FUNCS][2][FT_CALIB_ROUNDS];
	double in[FIBDRV_CALIB_FUNCS][2][FT_CALIB_ROUNDS];
	bool unrecorded[FIBDRV_CALIB_FUNCS]; /* some of its calls went unrecorded */
	double per[FT_MODE_NR];		     /* the context's traced calls per sample */
	double tails[FT_MODE_NR];	     /* those whose last traced callee was a tail call */
	double ctx_ns[FT_CALIB_ROUNDS];	     /* one traced sample, per round */
	double ctx_ref[FT_CALIB_ROUNDS];     /* reads: fib_read's interval in refused reads */
	double ctx_end;			     /* when the last round in context ended */
	const char *ctx_failed;		     /* why there is no calibration in context */
};

/*
 * Central value (the median on a real clock, the minimum under the
 * instruction clock: calibrate.c) and range of a series' @n rounds.
 */
static inline void ft_calib_summarize(bool exact, const double *x, unsigned int n, double *mid,
				      double *lo, double *hi)
{
	struct stats_summary sum;

	stats_summarize(x, n, &sum);
	*mid = exact ? sum.min : sum.median;
	*lo = sum.min;
	*hi = sum.max;
}

static inline double ft_calib_central(bool exact, const double *x, unsigned int n)
{
	double mid, lo, hi;

	ft_calib_summarize(exact, x, n, &mid, &lo, &hi);
	return mid;
}

/* F(@want), or less within @fd's algorithm's range. */
__u64 ft_calib_capped_n(const struct ft_run *run, int fd, __u64 want);
/* @cost's subtracted figures from its @warm and @cold series, times its ratio. */
void ft_calib_set_midpoint(struct ft_cost *cost, const struct ft_cost_series *warm,
			   const struct ft_cost_series *cold);

/* calib_context.c: the calibration in context, untraced, then round by round traced. */
void ft_calib_context_untraced(struct ft_calib *c, struct ft_run *run);
void ft_calib_context_start(struct ft_calib *c, struct ft_tracer *tr, struct ft_run *run,
			    struct calib_rounds *cr);
void ft_calib_context_round(struct ft_calib *c, struct ft_tracer *tr, struct ft_run *run,
			    unsigned int r, struct calib_rounds *cr);
void ft_calib_context_costs(struct ft_run *run, const struct calib_rounds *cr);

#endif /* FIBTRACE_CALIB_INT_H */
