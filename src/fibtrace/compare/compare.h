/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fibtrace --compare: interleaved measurement of several fibdrv variants
 * (algorithms, or output formats of one algorithm), statistics per (variant,
 * n) and against a baseline, and the reports (text table, JSON, Go benchmark
 * format, plot). docs/compare.md describes the method and the output.
 *
 * cstats.c holds the pure parts (option parsing, outlier selection, per-cell
 * and per-pair statistics, row grouping, delta formatting), unit-tested on
 * the host by tests/unit/test_compare.c. The run itself: variants.c (what is
 * compared, ft_compare_prepare), hygiene.c (the machine checks), drive.c (the
 * interleaved reads, on sweep.h's loop), analyze.c (statistics, regressions,
 * ft_compare_report), report_text.c, report_json.c (JSON and benchfmt) and
 * plot.c. compare_int.h is their private interface.
 */
#ifndef FIBTRACE_COMPARE_H
#define FIBTRACE_COMPARE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cachesim/cachesim.h"
#include "stats.h"

#define FT_CMP_ALPHA 0.05
#define FT_CMP_TRIM_FRACTION 0.05 /* --outliers trim: from each tail */
#define FT_CMP_DEFAULT_ROWS 30

enum ft_cmp_kind { FT_CMP_NONE, FT_CMP_ALGOS, FT_CMP_FORMATS, FT_CMP_BUILDS };
enum ft_cmp_outliers { FT_OUTLIERS_TUKEY, FT_OUTLIERS_KEEP, FT_OUTLIERS_TRIM };
enum ft_cmp_output { FT_CMP_TEXT, FT_CMP_JSON, FT_CMP_BENCHFMT };

/* What one read measures; the first FT_METRIC_NR are kept per read. */
enum ft_cmp_metric {
	FT_METRIC_TOTAL,   /* fib_read, kernel (BPF) */
	FT_METRIC_COMPUTE, /* fibdrv_compute inside it */
	FT_METRIC_FORMAT,  /* fibdrv_format */
	FT_METRIC_COPY,	   /* fibdrv_copy */
	FT_METRIC_USER,	   /* read() as the calling thread sees it (CLOCK_MONOTONIC) */
	FT_METRIC_COUNTER, /* the first -e event's count inside fib_read (scaled) */
	FT_METRIC_ONCPU,   /* fib_read minus the time its task was switched out */
	FT_METRIC_NR,
};

/* Options, filled by main.c's argp parser through ft_cmp_set(). */
struct ft_cmp_opts {
	enum ft_cmp_kind kind;
	enum ft_cmp_outliers outliers;
	enum ft_cmp_metric metric;
	enum ft_cmp_output output;
	bool output_set; /* --format given */
	bool strict;
	bool attribute;	       /* --attribute: which functions changed (functions.c) */
	double fail_pct;       /* < 0: no --fail-on-regression */
	unsigned int max_rows; /* table rows before n are grouped; 0: one per n */
	const char *baseline;
	const char *plot;
	const char *labels;	   /* --labels A,B,... (builds) */
	const char *save_json;	   /* --save-json FILE: the JSON report too */
	const char *save_benchfmt; /* --save-benchfmt FILE: the benchfmt lines too */
};

#define FT_CMP_OPTS_INIT                                                                   \
	{                                                                                  \
		.fail_pct = -1, .max_rows = FT_CMP_DEFAULT_ROWS, .metric = FT_METRIC_TOTAL \
	}

/*
 * Sets option `opt` ("compare", "baseline", "outliers", "strict",
 * "fail-on-regression", "format", "metric", "rows", "labels", "save-json",
 * "save-benchfmt", "attribute") from `arg`. Returns NULL,
 * or a message saying what the option accepts.
 */
const char *ft_cmp_set(struct ft_cmp_opts *o, const char *opt, const char *arg);
const char *ft_cmp_kind_name(enum ft_cmp_kind k);
const char *ft_cmp_metric_name(enum ft_cmp_metric m);
const char *ft_cmp_outliers_name(enum ft_cmp_outliers o);

/*
 * Outlier selection on one sample (values v[0..n-1]): writes the indices of
 * the values kept, in their original order, to keep[] (room for n) and
 * returns how many. tukey: inside Q1 - 1.5 IQR .. Q3 + 1.5 IQR (inclusive);
 * trim: drops floor(FT_CMP_TRIM_FRACTION n) lowest and as many highest
 * (ties broken by position); keep: all. (size_t)-1 on allocation failure.
 */
size_t ft_cmp_select(const double *v, size_t n, enum ft_cmp_outliers how, size_t *keep);

/* Statistics of one (variant, n) cell, on the kept reads. */
struct ft_cmp_cell {
	size_t reads;		  /* matched reads measured */
	size_t kept;		  /* after outlier removal */
	struct stats_summary s;	  /* of the compared metric */
	double ci_lo, ci_hi;	  /* bootstrap CI of the median */
	double med[FT_METRIC_NR]; /* medians of every metric over the kept reads */
	double *kept_vals;	  /* compared metric of the kept reads (owned) */
};

/*
 * Fills *c from the per-read values vals[metric][0..n-1] (n may be 0: all
 * statistics NaN). `seed` makes the bootstrap reproducible. 0 or -errno.
 */
int ft_cmp_cell_analyze(double *const vals[FT_METRIC_NR], size_t n, enum ft_cmp_metric metric,
			enum ft_cmp_outliers how, uint64_t seed, struct ft_cmp_cell *c);
void ft_cmp_cell_free(struct ft_cmp_cell *c);

/* One candidate against the baseline at one n. */
struct ft_cmp_pair {
	size_t variant;		    /* candidate index */
	size_t nidx;		    /* index of n */
	double ratio, ci_lo, ci_hi; /* median(candidate) / median(baseline) */
	double p;		    /* two-sided Mann-Whitney U */
	double p_holm;		    /* Holm-adjusted over every pair of the run */
	bool significant;	    /* p_holm <= FT_CMP_ALPHA and 1 outside [ci_lo, ci_hi] */
};

/* Ratio, interval and p of candidate cell b against baseline cell a. */
void ft_cmp_pair_analyze(const struct ft_cmp_cell *a, const struct ft_cmp_cell *b, uint64_t seed,
			 struct ft_cmp_pair *out);
/*
 * The exact decision, for times counted in instructions (run->clock
 * "instructions": QEMU icount). A read not interrupted costs the same count
 * every time, so two builds or algorithms either differ or they do not: no
 * sampling distribution to test. Replaces ratio (median/median), ci_lo and
 * ci_hi (the ratio of the minima and of the medians, lower and higher: the
 * uninterrupted read and the typical one) and significant (the minimum and
 * the median both moved the same way by more than FT_CMP_EXACT_TOL of the
 * baseline's read, and by more than FT_CMP_EXACT_FLOOR_NS). p and p_holm
 * stay the rank test's, for information. An interrupt adds to single reads,
 * which the outlier rule, the minimum and the median all set aside.
 *
 * The kernel's allocator state would add more: the same read costs 3,500 to
 * 27,000 instructions more on some reads than on others (the page
 * allocator's per-CPU lists and the memory cgroup's charge stock, refilled or
 * drained when a read crosses their batch; docs/measurement.md), and as the
 * builds or algorithms compared take turns, one of them can meet that extra
 * in every round (A/A runs: +5,159 at n = 40100, -14,800 at n = 100100 in
 * all three rounds). So under this clock each visit (variant, n, round) is
 * FT_CMP_EXACT_BURST reads back to back and counts the cheapest: the twin
 * reads before it leave the allocator where the read fits (measured in the
 * 6.12 guest at n = 100100: 5,844,610 to 5,844,633 over seven rounds, where
 * single reads spread over 27,000), and A/A runs agree to within 30.
 */
#define FT_CMP_EXACT_BURST 5	    /* reads back to back per visit, the cheapest counted */
#define FT_CMP_EXACT_TOL 0.001	    /* 0.1%: the smallest change called a difference */
#define FT_CMP_EXACT_FLOOR_NS 1000 /* ... and at least this many instructions */
/*
 * --attribute's self times per function (functions.c) have one more error:
 * each build's tracer subtracts its own calibrated cost per call, which
 * differs from build to build by a few instructions (its maps' random hash
 * seeds), times the calls per read (bn_mul_n: 700 a read on average over
 * the gate's n): -3,553 on bn_mul_n at n = 100100 in the planted run, where
 * only fibdrv_compute changed.
 */
#define FT_CMP_EXACT_FUNC_FLOOR_NS 10000
void ft_cmp_exact(const struct ft_cmp_cell *a, const struct ft_cmp_cell *b,
		  struct ft_cmp_pair *out);
/* Holm's correction across pairs[0..m-1]: sets p_holm and significant. */
void ft_cmp_holm(struct ft_cmp_pair *pairs, size_t m);
/*
 * Keeps `significant` only where the ratio's interval excludes 1: the rank
 * test and the interval must agree. Mann-Whitney tests whether one
 * distribution lies above the other, not the medians the ratio compares; on
 * skewed or bimodal reads it rejects at small n where the medians' interval
 * still holds 1 (CI: n = 100, ratio 1.13, Holm p 0.039, interval 0.93..1.42).
 */
void ft_cmp_confirm(struct ft_cmp_pair *pairs, size_t m);

/*
 * The smallest two-sided Mann-Whitney p two samples of na and nb values can
 * give (complete separation, no ties): below it nothing can be significant.
 */
double ft_cmp_min_p(size_t na, size_t nb);

/*
 * Table rows: nn values of n shown as at most max_rows rows (max_rows 0: one
 * row per n). Row r covers n indices [start[r], start[r + 1]); start needs
 * room for max_rows + 1 entries (nn + 1 when max_rows is 0 or >= nn).
 * Groups are consecutive and their sizes differ by at most one. Returns rows.
 */
size_t ft_cmp_group_rows(size_t nn, size_t max_rows, size_t *start);

/* Ratio r as a signed percent change: "+12.3%", "-45.0%", "+0.0%"; "?" for NaN. */
void ft_cmp_fmt_delta(char *buf, size_t size, double r);

/* ---- the run itself (main.c calls these in this order) ---- */

struct ft_run;
struct ft_compare;
typedef int (*ft_cmp_drain_fn)(void *ctx); /* moves ring buffer records to each run->recs */

/* --compare builds: one build of fibdrv, loaded, with its own tracer and run. */
struct ft_cmp_build {
	const char *label, *device;
	struct ft_run *run; /* its records; its algorithm list */
};

/*
 * Resolves the variants (--algo list, or every algorithm valid over the
 * sweep; formats dec and bin of one algorithm; builds[0..nbuilds-1], each
 * with the one --algo or its device's default), the baseline and the
 * hygiene checks; refuses with --strict. Needs run->algos (names and
 * max_n). Fills run's sweep fields and filter_pid. Returns 0 or -(exit
 * status); *out is set either way (ft_compare_free it).
 */
int ft_compare_prepare(struct ft_compare **out, const struct ft_cmp_opts *o, struct ft_run *run,
		       const char *algo_list, const char *device, uint64_t first, uint64_t last,
		       uint64_t step, unsigned int repeat, int cpu,
		       const struct ft_cmp_build *builds, int nbuilds);
/* Interleaved rounds of reads; 0 or -(exit status). */
int ft_compare_drive(struct ft_compare *c, struct ft_run *run, ft_cmp_drain_fn drain, void *ctx,
		     volatile sig_atomic_t *stop);
/* Statistics and the report on f: 0, -FT_EXIT_ERROR or -FT_EXIT_REGRESSION. */
int ft_compare_report(struct ft_compare *c, struct ft_run *run, FILE *f);
void ft_compare_free(struct ft_compare *c);

/* simulated.c: --compare algos --metric sim:EVENT, each algorithm's events per read. */
int ft_sim_compare_report(FILE *f, const struct ft_sim *sim, enum ft_sim_event ev,
			  const char *baseline, int output);

#endif
