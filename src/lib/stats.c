// SPDX-License-Identifier: GPL-2.0
/* Statistics for comparing latency samples; see stats.h and docs/statistics.md. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- PRNG: splitmix64 seeding xoshiro256** ---- */

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void stats_rng_seed(struct stats_rng *rng, uint64_t seed)
{
	uint64_t sm = seed;

	for (int i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&sm);
}

uint64_t stats_rng_next(struct stats_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl64(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return result;
}

uint64_t stats_rng_below(struct stats_rng *rng, uint64_t bound)
{
	uint64_t threshold, r;

	if (bound == 0)
		return 0;
	threshold = (0 - bound) % bound; /* 2^64 mod bound */
	do
		r = stats_rng_next(rng);
	while (r < threshold);
	return r % bound;
}

double stats_rng_uniform(struct stats_rng *rng)
{
	return (double)(stats_rng_next(rng) >> 11) * 0x1.0p-53;
}

/* ---- helpers ---- */

int stats_cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

bool stats_has_nan(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isnan(x[i]))
			return true;
	return false;
}

/* A sorted malloc'd copy of x, or NULL. */
static double *sorted_copy(const double *x, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), stats_cmp_double);
	return s;
}

/* a + t (b - a) for t in [0, 1], numpy's _lerp (exact at both ends). */
static inline double lerp(double a, double b, double t)
{
	double d = b - a;

	return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

/* Neumaier's compensated sum. */
struct ksum {
	double sum, c;
};

static void ksum_add(struct ksum *k, double v)
{
	double t = k->sum + v;

	if (fabs(k->sum) >= fabs(v))
		k->c += (k->sum - t) + v;
	else
		k->c += (v - t) + k->sum;
	k->sum = t;
}

/* ---- location ---- */

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
	double h, fl;
	size_t i;

	if (n == 0 || !(q >= 0.0 && q <= 1.0))
		return NAN;
	h = (double)(n - 1) * q;
	fl = floor(h);
	i = (size_t)fl;
	if (i >= n - 1)
		return sorted[n - 1];
	return lerp(sorted[i], sorted[i + 1], h - fl);
}

double stats_quantile(const double *x, size_t n, double q)
{
	double *s, r;

	if (n == 0 || stats_has_nan(x, n))
		return NAN;
	s = sorted_copy(x, n);
	if (!s)
		return NAN;
	r = stats_quantile_sorted(s, n, q);
	free(s);
	return r;
}

double stats_median(const double *x, size_t n)
{
	return stats_quantile(x, n, 0.5);
}

double stats_mean(const double *x, size_t n)
{
	struct ksum k = {0, 0};

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		ksum_add(&k, x[i]);
	return (k.sum + k.c) / (double)n;
}

double stats_geomean(const double *x, size_t n)
{
	struct ksum k = {0, 0};
	bool zero = false;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] >= 0.0))
			return NAN;
		if (x[i] == 0.0)
			zero = true;
		else
			ksum_add(&k, log(x[i]));
	}
	if (zero)
		return 0.0;
	return exp((k.sum + k.c) / (double)n);
}

int stats_summarize(const double *x, size_t n, struct stats_summary *out)
{
	double *s;

	out->n = 0;
	out->median = out->q1 = out->q3 = out->iqr = NAN;
	out->min = out->max = out->mean = NAN;
	if (n == 0 || stats_has_nan(x, n))
		return -EINVAL;
	s = sorted_copy(x, n);
	if (!s)
		return -ENOMEM;
	out->n = n;
	out->median = stats_quantile_sorted(s, n, 0.5);
	out->q1 = stats_quantile_sorted(s, n, 0.25);
	out->q3 = stats_quantile_sorted(s, n, 0.75);
	out->iqr = out->q3 - out->q1;
	out->min = s[0];
	out->max = s[n - 1];
	out->mean = stats_mean(x, n);
	free(s);
	return 0;
}

/* ---- outliers ---- */

int stats_tukey_fences(const double *x, size_t n, double k, double *lo, double *hi)
{
	double *s, q1, q3;

	*lo = *hi = NAN;
	if (n == 0 || !(k >= 0.0) || stats_has_nan(x, n))
		return -EINVAL;
	s = sorted_copy(x, n);
	if (!s)
		return -ENOMEM;
	q1 = stats_quantile_sorted(s, n, 0.25);
	q3 = stats_quantile_sorted(s, n, 0.75);
	free(s);
	*lo = q1 - k * (q3 - q1);
	*hi = q3 + k * (q3 - q1);
	return 0;
}

size_t stats_tukey_filter(const double *x, size_t n, double *out)
{
	double lo, hi;
	size_t kept = 0;
	int err = stats_tukey_fences(x, n, STATS_TUKEY_K, &lo, &hi);

	if (err == -ENOMEM)
		return (size_t)-1;
	if (err)
		return 0;
	for (size_t i = 0; i < n; i++) {
		double v = x[i];

		if (lo <= v && v <= hi)
			out[kept++] = v;
	}
	return kept;
}

/* ---- bootstrap ---- */

/*
 * One bootstrap resample's median: n indices into the sorted sample are
 * drawn and tallied in cnt (n counters, zeroed here), then the two middle
 * order statistics are read off the running count. Equal to the median of
 * the resampled values themselves, in O(n) without sorting them.
 */
static double resample_median(const double *sorted, size_t n, size_t *cnt, struct stats_rng *rng)
{
	size_t k1 = (n - 1) / 2, k2 = n / 2, cum = 0;
	double v1 = NAN, v2 = NAN;
	bool have1 = false;

	memset(cnt, 0, n * sizeof(*cnt));
	for (size_t i = 0; i < n; i++)
		cnt[stats_rng_below(rng, n)]++;
	for (size_t i = 0; i < n; i++) {
		cum += cnt[i];
		if (!have1 && cum > k1) {
			v1 = sorted[i];
			have1 = true;
		}
		if (cum > k2) {
			v2 = sorted[i];
			break;
		}
	}
	/* The 0.5 quantile: t = 0.5 between the middle pair (they coincide for odd n). */
	return lerp(v1, v2, n % 2 ? 0.0 : 0.5);
}

static bool ci_args_ok(unsigned resamples, double level)
{
	return resamples >= 1 && level > 0.0 && level < 1.0;
}

/* Sorts the bootstrap replicates and reads the percentile interval off them. */
static void percentile_ci(double *rep, unsigned resamples, double level, double *lo, double *hi)
{
	qsort(rep, resamples, sizeof(*rep), stats_cmp_double);
	*lo = stats_quantile_sorted(rep, resamples, (1.0 - level) / 2.0);
	*hi = stats_quantile_sorted(rep, resamples, (1.0 + level) / 2.0);
}

int stats_bootstrap_median_ci(const double *x, size_t n, unsigned resamples, double level,
			      uint64_t seed, double *lo, double *hi)
{
	struct stats_rng rng;
	double *s = NULL, *rep = NULL;
	size_t *cnt = NULL;
	int err = -ENOMEM;

	*lo = *hi = NAN;
	if (n == 0 || !ci_args_ok(resamples, level) || stats_has_nan(x, n))
		return -EINVAL;
	s = sorted_copy(x, n);
	rep = malloc((size_t)resamples * sizeof(*rep));
	cnt = malloc(n * sizeof(*cnt));
	if (!s || !rep || !cnt)
		goto out;
	stats_rng_seed(&rng, seed);
	for (unsigned r = 0; r < resamples; r++)
		rep[r] = resample_median(s, n, cnt, &rng);
	percentile_ci(rep, resamples, level, lo, hi);
	err = 0;
out:
	free(s);
	free(rep);
	free(cnt);
	return err;
}

int stats_bootstrap_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
			     unsigned resamples, double level, uint64_t seed, double *ratio,
			     double *lo, double *hi)
{
	struct stats_rng rng;
	double *sa = NULL, *sb = NULL, *rep = NULL;
	size_t *cnt = NULL;
	double r0 = NAN, l = NAN, h = NAN;
	int err = -EINVAL;

	if (na == 0 || nb == 0 || !ci_args_ok(resamples, level) || stats_has_nan(a, na) ||
	    stats_has_nan(b, nb))
		goto done;
	err = -ENOMEM;
	sa = sorted_copy(a, na);
	sb = sorted_copy(b, nb);
	rep = malloc((size_t)resamples * sizeof(*rep));
	cnt = malloc((na > nb ? na : nb) * sizeof(*cnt));
	if (!sa || !sb || !rep || !cnt)
		goto done;
	err = -EDOM;
	{
		double ma = stats_quantile_sorted(sa, na, 0.5);

		if (ma == 0.0)
			goto done;
		r0 = stats_quantile_sorted(sb, nb, 0.5) / ma;
	}
	stats_rng_seed(&rng, seed);
	for (unsigned r = 0; r < resamples; r++) {
		double ma = resample_median(sa, na, cnt, &rng);
		double mb = resample_median(sb, nb, cnt, &rng);

		rep[r] = mb / ma;
		if (isnan(rep[r])) {
			r0 = NAN;
			goto done;
		}
	}
	percentile_ci(rep, resamples, level, &l, &h);
	err = 0;
done:
	free(sa);
	free(sb);
	free(rep);
	free(cnt);
	if (ratio)
		*ratio = err ? NAN : r0;
	if (lo)
		*lo = l;
	if (hi)
		*hi = h;
	return err;
}
