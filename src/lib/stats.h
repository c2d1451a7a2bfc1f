/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small, exact statistics for comparing latency samples (fibtrace --compare).
 *
 * Plain C, libm only, no global state. Functions may malloc scratch space and
 * always free it. docs/statistics.md says what each statistic is and why it is
 * used; the conventions every function follows are:
 *
 *  - Inputs are arrays of finite doubles. Functions returning int give 0 on
 *    success and a negative errno otherwise: -EINVAL for n == 0, a NaN in the
 *    data or a bad parameter, -ENOMEM when scratch space cannot be had, -EDOM
 *    when the statistic is undefined for the data (see each function). On
 *    error, double outputs are set to NaN.
 *  - Functions returning double give NaN for n == 0 or a NaN in the data.
 *  - n == 1 and all-equal samples are valid everywhere.
 *  - Quantiles use one rule everywhere, numpy's default ("linear", Hyndman &
 *    Fan type 7): see stats_quantile_sorted(). The median is the 0.5 quantile.
 */
#ifndef FIBTRACE_STATS_H
#define FIBTRACE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Tukey's fence multiplier: values outside [Q1 - k*IQR, Q3 + k*IQR] are outliers. */
#define STATS_TUKEY_K 1.5
/* Defaults fibtrace uses for the bootstrap (docs/statistics.md says why). */
#define STATS_BOOTSTRAP_RESAMPLES 10000u
#define STATS_CI_LEVEL 0.95

/*
 * Deterministic PRNG: xoshiro256** 1.0 (Blackman & Vigna), its 256-bit state
 * filled by four successive outputs of splitmix64 started at the seed. Exposed
 * so that callers and tests can reproduce the bootstrap's draws exactly.
 */
struct stats_rng {
	uint64_t s[4];
};

void stats_rng_seed(struct stats_rng *rng, uint64_t seed);
uint64_t stats_rng_next(struct stats_rng *rng);
/*
 * Uniform integer in [0, bound), bound > 0, without modulo bias: draws r until
 * r >= (2^64 - bound) mod bound, then returns r mod bound (0 for bound == 0).
 */
uint64_t stats_rng_below(struct stats_rng *rng, uint64_t bound);
/* Uniform double in [0, 1): the top 53 bits of one draw times 2^-53. */
double stats_rng_uniform(struct stats_rng *rng);

/* qsort() comparison of doubles, ascending. */
int stats_cmp_double(const void *a, const void *b);
/* Whether any of x[0..n) is NaN (every test refuses such a sample: -EINVAL). */
bool stats_has_nan(const double *x, size_t n);

/*
 * Quantile q in [0, 1] of n values sorted ascending, numpy's default rule
 * (method="linear", Hyndman & Fan type 7): with h = (n - 1) q, i = floor(h)
 * and t = h - i, the result is sorted[i] + t (sorted[i+1] - sorted[i])
 * (computed as sorted[i+1] - (1 - t)(sorted[i+1] - sorted[i]) when t >= 0.5,
 * as numpy does). NaN if n == 0 or q is outside [0, 1].
 */
double stats_quantile_sorted(const double *sorted, size_t n, double q);
/* The same on unsorted data (sorts a copy). NaN also on allocation failure. */
double stats_quantile(const double *x, size_t n, double q);
/* The 0.5 quantile: the middle value, or the mean of the two middle ones. */
double stats_median(const double *x, size_t n);
/* Arithmetic mean (compensated summation). NaN if n == 0. */
double stats_mean(const double *x, size_t n);
/*
 * Geometric mean exp(mean(log x)), as scipy.stats.gmean: NaN if n == 0 or any
 * x < 0 (or NaN), 0 if some x == 0 and none is negative.
 */
double stats_geomean(const double *x, size_t n);

struct stats_summary {
	size_t n;
	double median;
	double q1;  /* 0.25 quantile */
	double q3;  /* 0.75 quantile */
	double iqr; /* q3 - q1 */
	double min;
	double max;
	double mean;
};

/* Fills *out; -EINVAL (all fields NaN, n = 0) if n == 0 or a value is NaN. */
int stats_summarize(const double *x, size_t n, struct stats_summary *out);

/*
 * Tukey's fences lo = Q1 - k IQR, hi = Q3 + k IQR of x (k >= 0, usually
 * STATS_TUKEY_K); a value v is kept iff lo <= v <= hi (as benchstat v1 did).
 */
int stats_tukey_fences(const double *x, size_t n, double k, double *lo, double *hi);
/*
 * Copies to out, in their original order, the values of x inside the fences
 * with k = STATS_TUKEY_K and returns how many were kept (the caller reports
 * n minus that as removed). out needs room for n values and may be x itself.
 * Returns 0 if n == 0 or x holds a NaN (nothing kept, out untouched) and
 * (size_t)-1 if scratch space cannot be allocated. Not calling it is "keep".
 */
size_t stats_tukey_filter(const double *x, size_t n, double *out);

/*
 * Bootstrap percentile confidence interval of the median.
 *
 * Draws `resamples` resamples of size n with replacement (indices from
 * stats_rng_below(rng, n) on a generator seeded with `seed`, resample after
 * resample), takes each resample's median, and returns the (1 - level) / 2
 * and (1 + level) / 2 quantiles (type 7) of those medians in *lo and *hi.
 * Deterministic given the seed. Needs resamples >= 1 and 0 < level < 1.
 * Cost: O(n log n + resamples * n) time, O(n + resamples) memory.
 * Note lo <= median(x) <= hi is likely but not guaranteed for tiny or very
 * lumpy samples: it is a property of the data, not of the method.
 */
int stats_bootstrap_median_ci(const double *x, size_t n, unsigned resamples, double level,
			      uint64_t seed, double *lo, double *hi);

/*
 * Ratio of medians of two independent samples, ratio = median(b) / median(a)
 * (> 1 means b is slower when the values are latencies), with its bootstrap
 * percentile confidence interval: each resample draws na indices into a then
 * nb indices into b from one generator seeded with `seed`, and takes the
 * ratio of the two resample medians; lo/hi are the type-7 quantiles as above.
 * -EDOM if median(a) == 0 or some resample ratio is 0/0; a resample with
 * median(a) == 0 < |median(b)| gives an infinite ratio, which can show up in
 * lo or hi. Any of ratio, lo, hi may be NULL.
 */
int stats_bootstrap_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
			     unsigned resamples, double level, uint64_t seed, double *ratio,
			     double *lo, double *hi);

/*
 * Mann-Whitney U test, two-sided, as scipy.stats.mannwhitneyu(a, b):
 *
 *  u: U of the first sample, R_a - na (na + 1) / 2 with R_a the sum of a's
 *     ranks in the pooled sample (ties get the average rank).
 *  p: STATS_MWU_ASYMPTOTIC: normal approximation with tie correction and
 *     continuity correction: z = (max(U_a, U_b) - na nb / 2 - 0.5) / s,
 *     s^2 = na nb / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))), p = 2 P(Z > z)
 *     clipped to 1 (p = 1 when every value is equal).
 *     STATS_MWU_EXACT: 2 P(U >= max(U_a, U_b)) under the exact null
 *     distribution of U (counts of rank configurations, computed exactly in
 *     128-bit integers as the coefficients of the Gaussian binomial
 *     [N choose na]_q), clipped to 1. Ties are ignored, as in scipy.
 *     -ERANGE if C(N, na) is too large (about 2^120) for exact counts.
 *     STATS_MWU_AUTO: scipy's method="auto" rule (scipy 1.17): exact when
 *     min(na, nb) <= 8 and the pooled sample has no ties, asymptotic
 *     otherwise -- and asymptotic as well where exact would give -ERANGE
 *     (only possible with min(na, nb) <= 8 and max(na, nb) > ~100000).
 * Either output may be NULL. method_used (may be NULL) tells which was used.
 */
enum stats_mwu_method {
	STATS_MWU_AUTO,
	STATS_MWU_ASYMPTOTIC,
	STATS_MWU_EXACT,
};

int stats_mann_whitney_method(const double *a, size_t na, const double *b, size_t nb,
			      enum stats_mwu_method method, double *u, double *p,
			      enum stats_mwu_method *method_used);
/* stats_mann_whitney_method() with STATS_MWU_AUTO. */
int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u,
		       double *p);

/*
 * Holm-Bonferroni step-down correction of m p-values at family-wise level
 * alpha, as statsmodels' multipletests(p, alpha, method="holm"): with the
 * p-values sorted ascending p(1) <= ... <= p(m), adjusted p(j) is
 * max over i <= j of min(1, (m - i + 1) p(i)); hypotheses (1)..(j-1) are
 * rejected (significant) where j is the first with p(j) > alpha / (m - j + 1).
 * Outputs are in the input order; either may be NULL. A NaN p-value counts in
 * m, is never significant and gets a NaN adjusted value; it is sorted last.
 * A NaN or negative alpha marks nothing significant.
 */
void stats_holm(const double *p, size_t m, double alpha, bool *significant, double *adjusted);

#endif
