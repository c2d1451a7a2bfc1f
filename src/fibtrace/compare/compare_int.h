/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fibtrace --compare, private: the state of one comparison and what the
 * modules of src/fibtrace/compare/ call of each other. compare.h is the
 * public side (main.c, the unit test).
 */
#ifndef FIBTRACE_COMPARE_INT_H
#define FIBTRACE_COMPARE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compare.h"
#include "model/run.h"

#define WARMUP_ROUNDS 1

enum hy_status { HY_OK, HY_WARN, HY_INFO };

struct hygiene {
	const char *name;
	enum hy_status status;
	char detail[200];
};

#define HY_CHECKS 8

/* Candidate v against the baseline over every n (cmp_analyze). */
struct cmp_verdict {
	double geomean;	       /* of the finite positive ratios; NaN when none */
	size_t compared;       /* how many ratios that is */
	size_t faster, slower; /* significant n either way */
};

struct variant {
	char label[80];
	int algo_id; /* in run->algos */
	int format;  /* FIBDRV_FORMAT_* */
	int fd;
	const char *device;
	struct ft_run *run; /* whose tracer records its reads: its build's */
	size_t mark;	    /* while driving: run->recs[mark..] are the last read's records */
	uint64_t reads, matched, unmatched, errors, removed;
	struct cmp_verdict verdict; /* after cmp_analyze; not for the baseline */
};

/* The algorithm variant v reads with. */
static inline const char *var_algo(const struct variant *v)
{
	return v->run->algos.name[v->algo_id];
}

/* Raw per-read values of one (variant, n). */
struct raw_cell {
	size_t count;
	double *v[FT_METRIC_NR];
};

/* --attribute (functions.c): a traced function and its slot in each variant's run (-1: none). */
struct cmp_func {
	const char *name;
	int slot[FT_CMP_MAX_VARIANTS];
};

/* One (function, candidate, n) tested: medians of its per-read self time, the test. */
struct cmp_ftest {
	int func;
	double base_med, med; /* ns per read, over the kept reads */
	double base_min, min; /* the same, the smallest (the exact decision) */
	bool dominated;	      /* a median < 0: within the tracing cost subtracted */
	struct ft_cmp_pair p; /* variant, nidx, ratio (CI when significant), p, p_holm */
};

struct cmp_attr {
	struct cmp_func *func;
	int nfunc;
	size_t *count;		/* reads kept so far per [(func * nv + variant) * nn + nidx] */
	double *vals;		/* their self times: repeat per cell */
	struct cmp_ftest *test; /* significant (not dominated, then dominated) first, by |change| */
	size_t ntests, nsig, ndominated; /* significant ones, and of those the dominated */
};

struct ft_compare {
	struct ft_cmp_opts o;
	const char *device;
	uint64_t first, step;
	size_t nn; /* values of n */
	unsigned int repeat;
	int cpu;
	struct variant var[FT_CMP_MAX_VARIANTS];
	int nv, base;
	struct raw_cell *raw; /* [variant * nn + nidx] */
	struct hygiene hy[HY_CHECKS];
	int nhy;
	uint64_t reads_issued, unmatched, read_errors;
	bool interrupted;
	/* analysis */
	bool exact; /* run->clock is instructions: ft_cmp_exact decides, not the tests */
	struct ft_cmp_cell *cell; /* [variant * nn + nidx] */
	struct ft_cmp_pair *pair; /* [(candidate order) * nn + nidx] */
	size_t npairs;
	struct cmp_attr *attr; /* --attribute; NULL without */
};

/*
 * Whether the per-read kernel times are compensated for tracing: not with
 * --attribute, where thousands of traced calls per read make the clamped
 * compensation unreliable (docs/compare.md): the raw times are what was
 * measured there, tracing included.
 */
static inline bool cmp_compensated(const struct ft_compare *c, const struct ft_run *run)
{
	return run->overhead.on && !c->o.attribute;
}

/* Reads back to back per visit, of which the cheapest counts (compare.h). */
static inline unsigned int cmp_burst(const struct ft_run *run)
{
	return ft_run_clock_exact(run) ? FT_CMP_EXACT_BURST : 1;
}

/* The i-th value of n. */
static inline uint64_t nth(const struct ft_compare *c, size_t i)
{
	return c->first + i * c->step;
}

static inline const struct ft_cmp_cell *cell_of(const struct ft_compare *c, int v, size_t i)
{
	return &c->cell[(size_t)v * c->nn + i];
}

/* Pairs of candidate v: pair_of(c, v)[i] for n index i. */
static inline const struct ft_cmp_pair *pair_of(const struct ft_compare *c, int v)
{
	return &c->pair[(size_t)(v < c->base ? v : v - 1) * c->nn];
}

/* hygiene.c: the checks into c->hy[]; then --strict's refusal and the warnings. */
void cmp_check_hygiene(struct ft_compare *c);
int cmp_hygiene_verdict(struct ft_compare *c, struct ft_run *run);
const char *cmp_hy_status_name(enum hy_status s);

/* analyze.c */
int cmp_analyze(struct ft_compare *c);
void cmp_power_warning(const struct ft_compare *c, struct ft_run *run);
/* Prints each --fail-on-regression regression on stderr; returns how many. */
int cmp_regressions(const struct ft_compare *c);

/*
 * functions.c (--attribute): prepare sets every variant's run->self_stride
 * (before the tracers load) and the storage; record takes the self times of
 * variant v's matched read at n index nidx, its run's record rec; analyze
 * tests, corrects and sorts. 0 or -(exit status) / -errno.
 */
int cmp_attr_prepare(struct ft_compare *c);
void cmp_attr_record(struct ft_compare *c, int v, size_t nidx, size_t rec);
int cmp_attr_analyze(struct ft_compare *c);
void cmp_attr_free(struct cmp_attr *a);
void cmp_attr_text(FILE *f, const struct ft_compare *c);
void cmp_attr_json(FILE *f, const struct ft_compare *c);

/* The reports. */
void cmp_report_text(FILE *f, const struct ft_compare *c, const struct ft_run *run);
void cmp_report_json(FILE *f, const struct ft_compare *c, struct ft_run *run);
void cmp_report_benchfmt(FILE *f, const struct ft_compare *c, const struct ft_run *run);
/* --plot: 0 or -1 (with a message on stderr). */
int cmp_report_plot(const struct ft_compare *c, const struct ft_run *run, const char *path);

#endif
