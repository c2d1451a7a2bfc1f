// SPDX-License-Identifier: GPL-2.0
/*
 * The tests of stats.h: Mann-Whitney U (exact for small samples, the
 * normal approximation with ties otherwise) and Holm-Bonferroni over a
 * family. The rest (location, outliers, bootstrap) is stats.c.
 */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Mann-Whitney U ---- */

struct tagged {
	double v;
	bool in_a;
};

static int cmp_tagged(const void *pa, const void *pb)
{
	double a = ((const struct tagged *)pa)->v, b = ((const struct tagged *)pb)->v;

	return (a > b) - (a < b);
}

/*
 * Ranks the pooled sample: returns R_a (sum of a's midranks) and the tie term
 * sum(t^3 - t) over groups of equal values, or -ENOMEM.
 */
static int pooled_ranks(const double *a, size_t na, const double *b, size_t nb, double *rank_sum_a,
			double *tie_term)
{
	size_t n = na + nb;
	struct tagged *t = malloc(n * sizeof(*t));
	double ra = 0.0, tt = 0.0;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < na; i++)
		t[i] = (struct tagged){a[i], true};
	for (size_t i = 0; i < nb; i++)
		t[na + i] = (struct tagged){b[i], false};
	qsort(t, n, sizeof(*t), cmp_tagged);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1, in_a = 0;

		while (j < n && t[j].v == t[i].v)
			j++;
		for (size_t k = i; k < j; k++)
			in_a += t[k].in_a;
		/* Positions i..j-1 hold ranks i+1..j: their average is (i + 1 + j) / 2. */
		ra += (double)in_a * ((double)(i + 1 + j) / 2.0);
		if (j - i > 1) {
			double g = (double)(j - i);

			tt += g * g * g - g;
		}
		i = j;
	}
	free(t);
	*rank_sum_a = ra;
	*tie_term = tt;
	return 0;
}

__extension__ typedef unsigned __int128 u128;

/* log2 of C(n, k). */
static double log2_binom(size_t n, size_t k)
{
	return (lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1)) /
	       M_LN2;
}

/*
 * Exact two-sided p-value 2 P(U <= umin) = 2 P(U >= mn - umin) for samples of
 * sizes m and n without ties. The number of arrangements with U = u is the
 * coefficient of q^u in the Gaussian binomial
 *	[m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i),
 * built factor by factor: after factor i the polynomial is [n+i choose i]_q,
 * which has non-negative integer coefficients at most C(n+m, m). Arithmetic
 * is modulo 2^128, so intermediate "negative" values after a multiplication
 * by (1 - q^(n+i)) are harmless: the division by (1 - q^i) that follows is a
 * running sum and restores the exact (non-negative) coefficients. Only
 * coefficients up to umin are needed, and both steps only look backwards.
 */
static int mwu_exact_p(size_t m, size_t n, size_t umin, double *p)
{
	u128 *c, total = 1, below = 0;

	if (m > n) {
		size_t t = m;

		m = n;
		n = t;
	}
	/* C(n+m, m) and the intermediate C(n+i-1, i-1) (n+i) <= m C(n+m, m) must fit. */
	if (log2_binom(n + m, m) > 120.0)
		return -ERANGE;
	c = calloc(umin + 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		for (size_t u = umin + 1; u-- > n + i;) /* u = umin down to n + i */
			c[u] -= c[u - n - i];
		for (size_t u = i; u <= umin; u++)
			c[u] += c[u - i];
		total = total * (u128)(n + i) / (u128)i;
	}
	for (size_t u = 0; u <= umin; u++)
		below += c[u];
	free(c);
	*p = 2.0 * ((double)below / (double)total);
	if (*p > 1.0)
		*p = 1.0;
	return 0;
}

int stats_mann_whitney_method(const double *a, size_t na, const double *b, size_t nb,
			      enum stats_mwu_method method, double *u, double *p,
			      enum stats_mwu_method *method_used)
{
	enum stats_mwu_method requested = method;
	double ra, ties, u1, u2, umax, mn, N, var, z, pv = NAN;
	int err;

	if (u)
		*u = NAN;
	if (p)
		*p = NAN;
	if (method_used)
		*method_used = method;
	if (na == 0 || nb == 0 || stats_has_nan(a, na) || stats_has_nan(b, nb) ||
	    (method != STATS_MWU_AUTO && method != STATS_MWU_ASYMPTOTIC &&
	     method != STATS_MWU_EXACT))
		return -EINVAL;
	err = pooled_ranks(a, na, b, nb, &ra, &ties);
	if (err)
		return err;
	mn = (double)na * (double)nb;
	u1 = ra - (double)na * ((double)na + 1.0) / 2.0;
	u2 = mn - u1;
	umax = u1 > u2 ? u1 : u2;

	if (method == STATS_MWU_AUTO)
		method = ((na <= 8 || nb <= 8) && ties == 0.0) ? STATS_MWU_EXACT
							       : STATS_MWU_ASYMPTOTIC;
	if (method == STATS_MWU_EXACT) {
		/*
		 * Without ties U is an integer. With ties (only when asked for
		 * explicitly) scipy truncates max(U_a, U_b) to an integer k and
		 * returns 2 P(U >= k) = 2 P(U <= mn - k), ignoring the ties.
		 */
		err = mwu_exact_p(na, nb, (size_t)(mn - floor(umax)), &pv);
		if (err == -ERANGE && requested == STATS_MWU_AUTO)
			method = STATS_MWU_ASYMPTOTIC;
		else if (err)
			return err;
	}
	if (method == STATS_MWU_ASYMPTOTIC) {
		N = (double)na + (double)nb;
		var = mn / 12.0 * ((N + 1.0) - ties / (N * (N - 1.0)));
		if (var > 0.0) {
			z = (umax - mn / 2.0 - 0.5) / sqrt(var);
			pv = erfc(z / M_SQRT2); /* 2 P(Z > z) */
			if (pv > 1.0)
				pv = 1.0;
		} else {
			pv = 1.0; /* every value equal: no evidence of a difference */
		}
	}
	if (u)
		*u = u1;
	if (p)
		*p = pv;
	if (method_used)
		*method_used = method;
	return 0;
}

int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u, double *p)
{
	return stats_mann_whitney_method(a, na, b, nb, STATS_MWU_AUTO, u, p, NULL);
}

/* ---- Holm-Bonferroni ---- */

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *pa, const void *pb)
{
	const struct pidx *a = pa, *b = pb;
	bool na = isnan(a->p), nb = isnan(b->p);

	if (na != nb)
		return na - nb; /* NaN last */
	if (!na && a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

void stats_holm(const double *p, size_t m, double alpha, bool *significant, double *adjusted)
{
	struct pidx *s;
	double run = 0.0;
	bool rejecting = alpha >= 0.0; /* a NaN alpha rejects nothing */

	if (m == 0)
		return;
	s = malloc(m * sizeof(*s));
	if (!s) {
		/* No scratch: the conservative answer. */
		for (size_t i = 0; i < m; i++) {
			if (significant)
				significant[i] = false;
			if (adjusted)
				adjusted[i] = NAN;
		}
		return;
	}
	for (size_t i = 0; i < m; i++)
		s[i] = (struct pidx){p[i], i};
	qsort(s, m, sizeof(*s), cmp_pidx);
	for (size_t j = 0; j < m; j++) {
		double factor = (double)(m - j), pj = s[j].p;

		if (isnan(pj) || pj > alpha / factor)
			rejecting = false;
		if (significant)
			significant[s[j].i] = rejecting;
		if (isnan(pj)) {
			if (adjusted)
				adjusted[s[j].i] = NAN;
			continue;
		}
		if (pj * factor > run)
			run = pj * factor;
		if (adjusted)
			adjusted[s[j].i] = run < 1.0 ? run : 1.0;
	}
	free(s);
}
