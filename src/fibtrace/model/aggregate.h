/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From what BPF gathered to the numbers the reports print: histogram bucket
 * bounds and percentiles, the per-(algorithm, n) table of the read records
 * with its compute/format/copy breakdown, copy throughput per size, counter
 * scaling and per-n counter sums, attach counts, interval deltas. Pure: no
 * libbpf, no I/O; unit-tested on the host (tests/unit/test_aggregate.c).
 *
 * Quantiles of samples (per-n medians, p90, p99, counter medians) use the one
 * definition of lib/stats.h (Hyndman & Fan type 7), rounded to the nearest ns
 * for integer outputs; docs/statistics.md. Function percentiles come from the
 * histogram: the bucket holding the nearest-rank target, interpolated
 * linearly inside it (the raw durations are not kept).
 */
#ifndef FIBTRACE_AGGREGATE_H
#define FIBTRACE_AGGREGATE_H

#include "events.h"
#include "run.h"

/* Buckets in use for this histogram configuration. */
unsigned int ft_hist_nbuckets(const struct ft_hist_cfg *cfg);
/* Values v with lo <= v <= hi fall into bucket idx (see bpf/fibtrace.h). */
void ft_hist_bounds(const struct ft_hist_cfg *cfg, unsigned int idx, __u64 *lo, __u64 *hi);
/* Percentile p (0..1) of a function's durations, from its histogram. */
__u64 ft_hist_percentile(const struct ft_hist_cfg *cfg, const struct ft_func_stats *st, double p);

/* A function's figures, raw or compensated (bpf/fibtrace.h, docs/measurement.md). */
struct ft_func_fig {
	__u64 total, self, avg, p50, p90, p99;
};
void ft_func_figures(const struct ft_hist_cfg *cfg, const struct ft_func_stats *st, bool comp,
		     struct ft_func_fig *f);

/*
 * Calls entered with no traced call open below them whose end fibtrace has
 * not seen (bpf/fibtrace.h, root_*): running, or lost without a trace.
 */
__u64 ft_func_open(const struct ft_func_stats *st);

/* One (algo, n)'s fib_read statistics, raw or compensated. */
struct ft_pern_fig {
	__u64 median, p90, p99;
	__u64 compute, format, copy, rest; /* medians over the reads */
};

/* Per-(algo, n) aggregation of the read records. */
struct ft_pern {
	unsigned int algo;
	__u64 n, count, errors;
	__u64 min, max; /* raw */
	struct ft_pern_fig raw, comp;
	__u64 calls;		/* traced calls per read (mean) */
	__u64 comp_err;		/* compensation error bound of the median (median of the reads') */
	__u64 parts_over_total; /* reads whose parts exceed the total: 0 */
	__u64 off_ns;		/* off-CPU time inside the reads, summed */
	__u64 switched;		/* reads switched out at least once */
	__u64 oncpu_median;	/* median of each read's total minus its off-CPU time */
};
/* A compensated median whose error bound reaches it: printed as ?, left out of plots. */
static inline bool ft_pern_unresolved(const struct ft_pern *r)
{
	return r->comp_err >= r->comp.median;
}
/*
 * The per-n model: one row per (algo, n) of run->recs, which it sorts by
 * (algo, n). Built at the first call and kept in @run (run->pern) until
 * the records change; every view reads the same rows. Returns the row count.
 */
size_t ft_pern_rows(struct ft_run *run, const struct ft_pern **out);

/* Copy throughput per size: fibdrv_copy's len and time, from the read records. */
struct ft_copy_row {
	__u64 bytes, count, ns;
};
size_t ft_copy_build(const struct ft_run *run, struct ft_copy_row **out);

/* Functions traced with fentry, with kprobes, and not at all. */
void ft_attach_counts(const struct ft_targets *tg, int by_mode[FT_MODE_NR], int *none);
const char *ft_attach_name(const struct ft_target *t);

/* A counter's value as perf stat estimates it: value * enabled / running when multiplexed. */
double ft_cnt_scaled(const struct ft_cnt_delta *d);
bool ft_cnt_is_scaled(const struct ft_cnt_delta *d);
double ft_cnt_running_pct(const struct ft_cnt_delta *d);
/* *to += *d, field by field. */
void ft_cnt_add(struct ft_cnt_delta *to, const struct ft_cnt_delta *d);
/* Calls discarded from the counter sums, every reason. */
__u64 ft_cnt_discarded_total(const struct ft_cnt_stats *s);

/* Counters of fib_read per (algo, n), over the read records sorted by ft_pern_rows. */
struct ft_pern_cnt {
	__u64 kept, discarded;
	struct ft_cnt_delta sum[FT_MAX_EVENTS];
	double median[FT_MAX_EVENTS]; /* of the per-read scaled deltas */
};
void ft_pern_counters(const struct ft_run *run, unsigned int algo, __u64 n, struct ft_pern_cnt *p);

/*
 * Interval reports (-i): turns the cumulative per-function stats, counter
 * sums and loss counters of @run into the deltas since the previous call
 * (min and max stay cumulative). @prev (one per target, zeroed at first) and
 * @prev_lost keep the cumulative values between calls.
 */
struct ft_interval_prev {
	struct ft_func_stats st;
	struct ft_cnt_stats cnt;
};
void ft_interval_delta(struct ft_run *run, struct ft_interval_prev *prev, __u64 *prev_lost);

#endif
