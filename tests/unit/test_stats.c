// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of src/lib/stats.c. Each check prints one line, "PASS stats.<name>"
 * or "FAIL stats.<name>: <reason>"; the exit status is 1 if any check failed.
 *
 * Reference values were computed with numpy 2.4.6, scipy 1.17.1 and
 * statsmodels 0.15.0 by tests/unit/stats_reference.py (which prints every
 * value hard-coded below; the tests themselves need no Python). Where the
 * computation is deterministic and exact the tolerance is 1e-9 relative.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define REL 1e-9

static int failures;

static void check(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("PASS stats.%s\n", name);
		return;
	}
	failures++;
	printf("FAIL stats.%s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* |got - want| <= rel * max(|got|, |want|); equal infinities and NaNs match. */
static int close_to(double got, double want, double rel)
{
	if (isnan(want))
		return isnan(got);
	if (got == want)
		return 1;
	return fabs(got - want) <= rel * fmax(fabs(got), fabs(want));
}

static void check_close(const char *name, double got, double want, double rel)
{
	check(name, close_to(got, want, rel), "got %.17g, want %.17g (rel %g)", got, want, rel);
}

/* ---- data sets (shared with stats_reference.py) ---- */

static const double Q[] = {3.1, 1.0, 4.7, 1.0, 5.9, 2.6, 5.3, 5.8, 9.7, 9.3};
static const double ODD[] = {7.5, -2.25, 3.0, 11.0, 0.5, 3.0, 8.125};
static const double S[] = {1021, 998, 1003, 1187, 1002, 995, 1010, 999, 3050, 1001, 1004, 997};

static void test_rng(void)
{
	struct stats_rng g;
	/* splitmix64 from state 0: its published first four outputs. */
	static const uint64_t seed0[4] = {0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL,
					  0x06c45d188009454fULL, 0xf88bb8a8724c81ecULL};
	/* xoshiro256** from state {1, 2, 3, 4} (reference implementation's outputs). */
	static const uint64_t x1234[4] = {11520, 0, 1509978240, 1215971899390074240ULL};
	/* stats_rng_below(10) after seeding with 42 (stats_reference.py). */
	static const uint64_t below42[8] = {2, 2, 9, 3, 6, 4, 4, 7};
	int ok = 1;

	stats_rng_seed(&g, 0);
	check("rng.splitmix64-seeding", !memcmp(g.s, seed0, sizeof(seed0)), "state mismatch");
	g.s[0] = 1, g.s[1] = 2, g.s[2] = 3, g.s[3] = 4;
	for (int i = 0; i < 4; i++)
		ok &= stats_rng_next(&g) == x1234[i];
	check("rng.xoshiro256ss-reference", ok, "output mismatch");
	stats_rng_seed(&g, 42);
	ok = 1;
	for (int i = 0; i < 8; i++)
		ok &= stats_rng_below(&g, 10) == below42[i];
	check("rng.below-reproducible", ok, "draws differ from the reference");

	/* below(n) stays in range, including bound 1 and a bound near 2^64. */
	stats_rng_seed(&g, 7);
	ok = 1;
	for (int i = 0; i < 1000; i++) {
		ok &= stats_rng_below(&g, 1) == 0;
		ok &= stats_rng_below(&g, 3) < 3;
		ok &= stats_rng_below(&g, UINT64_MAX - 5) < UINT64_MAX - 5;
		double u = stats_rng_uniform(&g);
		ok &= u >= 0.0 && u < 1.0;
	}
	check("rng.ranges", ok, "value out of range");
}

static void test_quantiles(void)
{
	/* numpy.quantile(Q, q) (default method "linear"). */
	static const struct {
		double q, want;
	} qs[] = {{0, 1.0},   {0.1, 1.0},    {0.25, 2.725}, {1.0 / 3, 3.1},
		  {0.5, 5.0}, {0.75, 5.875}, {0.9, 9.34},   {1, 9.7}};
	double sorted[ARRAY_SIZE(Q)];
	char name[64];
	int ok = 1;

	for (size_t i = 0; i < ARRAY_SIZE(qs); i++) {
		snprintf(name, sizeof(name), "quantile.numpy-linear.q%g", qs[i].q);
		check_close(name, stats_quantile(Q, ARRAY_SIZE(Q), qs[i].q), qs[i].want, REL);
	}
	memcpy(sorted, Q, sizeof(Q));
	for (size_t i = 1; i < ARRAY_SIZE(sorted); i++) /* insertion sort */
		for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
			double t = sorted[j];

			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	for (size_t i = 0; i < ARRAY_SIZE(qs); i++)
		ok &= close_to(stats_quantile_sorted(sorted, ARRAY_SIZE(sorted), qs[i].q),
			       qs[i].want, REL);
	check("quantile.sorted-variant-agrees", ok, "sorted variant differs");
	check("quantile.rejects-q-out-of-range",
	      isnan(stats_quantile(Q, ARRAY_SIZE(Q), -0.01)) &&
		      isnan(stats_quantile(Q, ARRAY_SIZE(Q), 1.01)) &&
		      isnan(stats_quantile(Q, ARRAY_SIZE(Q), NAN)),
	      "expected NaN");

	/* numpy.median */
	check_close("median.even-with-ties", stats_median(Q, ARRAY_SIZE(Q)), 5.0, REL);
	check_close("median.odd", stats_median(ODD, ARRAY_SIZE(ODD)), 3.0, REL);
	check_close("median.n1", stats_median((const double[]){42.5}, 1), 42.5, 0);
	check_close("median.all-equal", stats_median((const double[]){7, 7, 7, 7}, 4), 7, 0);
	check("median.n0-is-nan", isnan(stats_median(Q, 0)), "expected NaN");
	check("median.nan-input-is-nan", isnan(stats_median((const double[]){1, NAN, 3}, 3)),
	      "expected NaN");
	check_close("mean.odd", stats_mean(ODD, ARRAY_SIZE(ODD)), 4.410714285714286, REL);
	check("mean.n0-is-nan", isnan(stats_mean(ODD, 0)), "expected NaN");
}

static void test_summary(void)
{
	struct stats_summary s;
	int err;

	/* numpy: median, quantile .25/.75, min, max, mean of S. */
	err = stats_summarize(S, ARRAY_SIZE(S), &s);
	check("summary.numpy",
	      !err && s.n == ARRAY_SIZE(S) && close_to(s.median, 1002.5, REL) &&
		      close_to(s.q1, 998.75, REL) && close_to(s.q3, 1012.75, REL) &&
		      close_to(s.iqr, 1012.75 - 998.75, REL) && s.min == 995 && s.max == 3050 &&
		      close_to(s.mean, 1188.9166666666667, REL),
	      "err %d n %zu median %g q1 %g q3 %g min %g max %g mean %.17g", err, s.n, s.median,
	      s.q1, s.q3, s.min, s.max, s.mean);
	err = stats_summarize(ODD, ARRAY_SIZE(ODD), &s);
	check("summary.odd-numpy",
	      !err && close_to(s.q1, 1.75, REL) && close_to(s.q3, 7.8125, REL) && s.median == 3.0 &&
		      s.min == -2.25 && s.max == 11.0,
	      "err %d q1 %g q3 %g", err, s.q1, s.q3);
	err = stats_summarize((const double[]){5}, 1, &s);
	check("summary.n1",
	      !err && s.n == 1 && s.median == 5 && s.q1 == 5 && s.q3 == 5 && s.iqr == 0 &&
		      s.min == 5 && s.max == 5 && s.mean == 5,
	      "err %d", err);
	err = stats_summarize((const double[]){3, 3, 3}, 3, &s);
	check("summary.all-equal", !err && s.median == 3 && s.iqr == 0 && s.mean == 3, "err %d",
	      err);
	err = stats_summarize(S, 0, &s);
	check("summary.n0-einval", err == -EINVAL && s.n == 0 && isnan(s.median), "err %d", err);
	err = stats_summarize((const double[]){1, NAN}, 2, &s);
	check("summary.nan-einval", err == -EINVAL, "err %d", err);
}

static void test_tukey(void)
{
	/* numpy: Q1 = 998.75, Q3 = 1012.75, fences 977.75 and 1033.75. */
	static const double kept_want[] = {1021, 998, 1003, 1002, 995, 1010, 999, 1001, 1004, 997};
	double out[ARRAY_SIZE(S)], lo, hi, inplace[ARRAY_SIZE(S)];
	size_t kept;
	int err;

	err = stats_tukey_fences(S, ARRAY_SIZE(S), STATS_TUKEY_K, &lo, &hi);
	check("tukey.fences", !err && close_to(lo, 977.75, REL) && close_to(hi, 1033.75, REL),
	      "err %d lo %g hi %g", err, lo, hi);
	kept = stats_tukey_filter(S, ARRAY_SIZE(S), out);
	check("tukey.filter-keeps-order",
	      kept == ARRAY_SIZE(kept_want) && !memcmp(out, kept_want, sizeof(kept_want)),
	      "kept %zu", kept);
	memcpy(inplace, S, sizeof(S));
	kept = stats_tukey_filter(inplace, ARRAY_SIZE(S), inplace);
	check("tukey.filter-in-place",
	      kept == ARRAY_SIZE(kept_want) && !memcmp(inplace, kept_want, sizeof(kept_want)),
	      "kept %zu", kept);
	/*
	 * Fences are inclusive: 1..8 and X (X >= 8) have Q1 = 3, Q3 = 7 and an
	 * upper fence of 7 + 1.5 * 4 = 13, so X = 13 stays and X = 13.5 goes.
	 */
	kept = stats_tukey_filter((const double[]){13, 1, 2, 3, 4, 5, 6, 7, 8}, 9, out);
	check("tukey.inclusive-fence", kept == 9 && out[0] == 13, "kept %zu", kept);
	kept = stats_tukey_filter((const double[]){13.5, 1, 2, 3, 4, 5, 6, 7, 8}, 9, out);
	check("tukey.beyond-fence-removed", kept == 8 && out[0] == 1, "kept %zu", kept);
	kept = stats_tukey_filter((const double[]){9, 9, 9, 9}, 4, out);
	check("tukey.all-equal-keeps-all", kept == 4, "kept %zu", kept);
	kept = stats_tukey_filter((const double[]){9}, 1, out);
	check("tukey.n1", kept == 1 && out[0] == 9, "kept %zu", kept);
	check("tukey.n0", stats_tukey_filter(S, 0, out) == 0, "expected 0");
	err = stats_tukey_fences(S, 0, 1.5, &lo, &hi);
	check("tukey.fences-n0-einval", err == -EINVAL && isnan(lo) && isnan(hi), "err %d", err);
}

static void test_geomean(void)
{
	static const double g[] = {1.02, 0.97, 1.5, 0.8, 1.11, 2.0};

	/* scipy.stats.gmean(g) */
	check_close("geomean.scipy", stats_geomean(g, ARRAY_SIZE(g)), 1.1753061835731047, REL);
	check_close("geomean.n1", stats_geomean((const double[]){3.5}, 1), 3.5, REL);
	check_close("geomean.all-equal", stats_geomean((const double[]){1.25, 1.25, 1.25}, 3), 1.25,
		    REL);
	check("geomean.n0-is-nan", isnan(stats_geomean(g, 0)), "expected NaN");
	check("geomean.negative-is-nan", isnan(stats_geomean((const double[]){1, -1}, 2)),
	      "expected NaN");
	check("geomean.zero-is-zero", stats_geomean((const double[]){2, 0}, 2) == 0, "expected 0");
}

static void mwu_case(const char *name, const double *a, size_t na, const double *b, size_t nb,
		     enum stats_mwu_method method, double want_u, double want_p,
		     enum stats_mwu_method want_used)
{
	enum stats_mwu_method used;
	double u, p;
	int err = stats_mann_whitney_method(a, na, b, nb, method, &u, &p, &used);

	check(name,
	      !err && used == want_used && close_to(u, want_u, REL) && close_to(p, want_p, REL),
	      "err %d method %d U %.17g p %.17g, want U %.17g p %.17g method %d", err, used, u, p,
	      want_u, want_p, want_used);
}

/* Brute force: the number of ways to place m a's among m + n ranks with U = u. */
static void brute_u_counts(int m, int n, unsigned long long *count)
{
	for (unsigned mask = 0; mask < (1u << (m + n)); mask++) {
		int bits = __builtin_popcount(mask), u = 0, bs = 0;

		if (bits != m)
			continue;
		/* rank order low to high; U_a counts (a, b) pairs with a above b */
		for (int pos = 0; pos < m + n; pos++) {
			if (mask & (1u << pos))
				u += bs;
			else
				bs++;
		}
		count[u]++;
	}
}

static void test_mann_whitney(void)
{
	static const double a1[] = {1.1, 2.3, 3.5, 4.2, 5.9};
	static const double b1[] = {2.0, 6.1, 7.4, 8.8, 9.5, 10.3};
	static const double a2[] = {3, 5, 5, 7, 9, 9, 9};
	static const double b2[] = {5, 8, 9, 10, 11, 12};
	static const double la[] = {100, 114, 105, 119, 110, 101, 115, 106, 120, 111,
				    102, 116, 107, 121, 112, 103, 117, 108, 122, 113,
				    104, 118, 109, 100, 114, 105, 119, 110, 101, 115,
				    106, 120, 111, 102, 116, 107, 121, 112, 103, 117};
	static const double lb[] = {104, 128, 123, 118, 113, 108, 132, 127, 122, 117, 112, 107, 131,
				    126, 121, 116, 111, 106, 130, 125, 120, 115, 110, 105, 129, 124,
				    119, 114, 109, 104, 128, 123, 118, 113, 108, 132, 127, 122, 117,
				    112, 107, 131, 126, 121, 116, 111, 106, 130, 125, 120};
	static const double sep_a[] = {1, 2, 3, 4, 5, 6, 7, 8};
	static const double sep_b[] = {9, 10, 11, 12, 13, 14, 15, 16};
	static const double ea[] = {10.5, 20.5, 35.5, 41.5, 60.5, 75.5, 90.5, 99.5};
	static const double fa[] = {1000.5,  5000.5,   20000.5,	 50000.5,
				    80000.5, 120000.5, 150000.5, 190000.5};
	double ha[60], hb[70], b200[200], *big;
	double u, p, u2, p2;
	int err;

	/*
	 * scipy.stats.mannwhitneyu(a, b) (two-sided). "auto" in scipy 1.17 picks
	 * "exact" when min(na, nb) <= 8 and there are no ties.
	 */
	mwu_case("mwu.small-no-ties-exact", a1, 5, b1, 6, STATS_MWU_AUTO, 4.0, 0.05194805194805195,
		 STATS_MWU_EXACT);
	mwu_case("mwu.small-no-ties-asymptotic", a1, 5, b1, 6, STATS_MWU_ASYMPTOTIC, 4.0,
		 0.05523425371806383, STATS_MWU_ASYMPTOTIC);
	mwu_case("mwu.small-ties-auto-is-asymptotic", a2, 7, b2, 6, STATS_MWU_AUTO, 9.5,
		 0.10903426335621068, STATS_MWU_ASYMPTOTIC);
	mwu_case("mwu.small-ties-explicit-exact", a2, 7, b2, 6, STATS_MWU_EXACT, 9.5,
		 0.13752913752913754, STATS_MWU_EXACT);
	mwu_case("mwu.n1-vs-n1", (const double[]){1}, 1, (const double[]){2}, 1, STATS_MWU_AUTO,
		 0.0, 1.0, STATS_MWU_EXACT);
	mwu_case("mwu.n1-vs-9", (const double[]){1}, 1,
		 (const double[]){2, 3, 4, 5, 6, 7, 8, 9, 10}, 9, STATS_MWU_AUTO, 0.0, 0.2,
		 STATS_MWU_EXACT);
	mwu_case("mwu.separated-8-8", sep_a, 8, sep_b, 8, STATS_MWU_AUTO, 0.0,
		 0.0001554001554001554, STATS_MWU_EXACT);
	mwu_case("mwu.all-equal", (const double[]){5, 5, 5}, 3, (const double[]){5, 5, 5, 5}, 4,
		 STATS_MWU_AUTO, 6.0, 1.0, STATS_MWU_ASYMPTOTIC);
	for (int i = 0; i < 200; i++)
		b200[i] = i;
	mwu_case("mwu.3-vs-200-exact", (const double[]){12.5, 40.5, 77.5}, 3, b200, 200,
		 STATS_MWU_AUTO, 132.0, 0.10059248701136567, STATS_MWU_EXACT);
	mwu_case("mwu.40-vs-50-ties", la, 40, lb, 50, STATS_MWU_AUTO, 506.5, 6.192756634541732e-05,
		 STATS_MWU_ASYMPTOTIC);
	for (int i = 0; i < 60; i++)
		ha[i] = i + 0.25;
	for (int i = 0; i < 70; i++)
		hb[i] = i + 45.75;
	mwu_case("mwu.60-vs-70-tiny-p", ha, 60, hb, 70, STATS_MWU_AUTO, 105.0,
		 1.2240893131912274e-20, STATS_MWU_ASYMPTOTIC);

	/* Counts far beyond 2^64 (C(100008, 8) ~ 2^117.6): still exact. */
	big = malloc(200000 * sizeof(*big));
	if (!big) {
		check("mwu.alloc", 0, "out of memory");
		return;
	}
	for (int i = 0; i < 200000; i++)
		big[i] = i;
	mwu_case("mwu.8-vs-100000-exact", ea, 8, big, 100000, STATS_MWU_AUTO, 438.0,
		 9.330008674286606e-24, STATS_MWU_EXACT);
	/* C(200008, 8) ~ 2^125.6 is past 128-bit exact counts: auto falls back. */
	mwu_case("mwu.8-vs-200000-falls-back", fa, 8, big, 200000, STATS_MWU_AUTO, 616008.0,
		 0.25987446862538177, STATS_MWU_ASYMPTOTIC);
	err = stats_mann_whitney_method(fa, 8, big, 200000, STATS_MWU_EXACT, &u, &p, NULL);
	check("mwu.exact-too-large-erange", err == -ERANGE && isnan(p), "err %d", err);
	free(big);

	/* Swapping the samples: U_b = na nb - U_a, same p. */
	err = stats_mann_whitney(la, 40, lb, 50, &u, &p);
	err |= stats_mann_whitney(lb, 50, la, 40, &u2, &p2);
	check("mwu.swap-symmetry", !err && u + u2 == 40.0 * 50 && close_to(p, p2, 1e-15),
	      "U %g + %g, p %g vs %g", u, u2, p, p2);

	/* The exact null distribution against brute-force enumeration (4 vs 5, 3 vs 7). */
	{
		static const int sizes[][2] = {{4, 5}, {3, 7}, {5, 5}};
		int ok = 1;

		for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
			int m = sizes[s][0], n = sizes[s][1];
			unsigned long long count[64] = {0}, total = 0, below = 0;
			double a[8], b[8];

			brute_u_counts(m, n, count);
			for (int k = 0; k <= m * n; k++)
				total += count[k];
			/* for each U_a value, build samples realising it and compare p */
			for (int target = 0; target <= m * n; target++) {
				int rem = target;

				below += count[target];
				/* a[i] sits above min(rem, n) of the b's (greedy) */
				for (int j = 0; j < n; j++)
					b[j] = 2.0 * j + 1.0;
				for (int i = 0; i < m; i++) {
					int above = rem < n ? rem : n;

					a[i] = 2.0 * above;
					rem -= above;
				}
				if (rem) /* not reachable with this greedy shape */
					continue;
				if (stats_mann_whitney_method(a, m, b, n, STATS_MWU_EXACT, &u, &p,
							      NULL))
					ok = 0;
				/* ties among a's are allowed; U is still target, p ignores ties */
				double lower = 0.0;
				int umin = target < m * n - target ? target : m * n - target;

				for (int k = 0; k <= umin; k++)
					lower += (double)count[k];
				double want = fmin(1.0, 2.0 * lower / (double)total);

				ok &= u == target && close_to(p, want, 1e-12);
			}
			ok &= total > 0 && below == total;
		}
		check("mwu.exact-matches-enumeration", ok, "p differs from brute force");
	}

	err = stats_mann_whitney(a1, 0, b1, 6, &u, &p);
	check("mwu.n0-einval", err == -EINVAL && isnan(u) && isnan(p), "err %d", err);
	err = stats_mann_whitney((const double[]){1, NAN}, 2, b1, 6, &u, &p);
	check("mwu.nan-einval", err == -EINVAL, "err %d", err);
}

static void test_holm(void)
{
	/* statsmodels multipletests(p, alpha=0.05, method="holm") */
	static const double p1[] = {0.01, 0.04, 0.03, 0.005, 0.2, 0.04};
	static const bool rej1[] = {true, false, false, true, false, false};
	static const double adj1[] = {0.05, 0.12, 0.12, 0.03, 0.2, 0.12};
	static const double p2[] = {0.001, 0.0125, 0.013, 0.9};
	static const bool rej2[] = {true, true, true, false};
	static const double adj2[] = {0.004, 0.037500000000000006, 0.037500000000000006, 0.9};
	bool sig[8];
	double adj[8];
	int ok;

	stats_holm(p1, 6, 0.05, sig, adj);
	ok = 1;
	for (int i = 0; i < 6; i++)
		ok &= sig[i] == rej1[i] && close_to(adj[i], adj1[i], REL);
	check("holm.statsmodels-1", ok, "mismatch (0.01 sits exactly on alpha/5)");
	stats_holm(p2, 4, 0.05, sig, adj);
	ok = 1;
	for (int i = 0; i < 4; i++)
		ok &= sig[i] == rej2[i] && close_to(adj[i], adj2[i], REL);
	check("holm.statsmodels-2", ok, "mismatch");

	/* By hand: m = 1 is the plain test; adjusted values cap at 1. */
	stats_holm((const double[]){0.03}, 1, 0.05, sig, adj);
	check("holm.m1", sig[0] && adj[0] == 0.03, "sig %d adj %g", sig[0], adj[0]);
	stats_holm((const double[]){0.6, 0.7}, 2, 0.05, sig, adj);
	check("holm.caps-at-1", !sig[0] && !sig[1] && adj[0] == 1.0 && adj[1] == 1.0, "adj %g %g",
	      adj[0], adj[1]);
	/* NaN counts in m (0.02 * 2 = 0.04), never significant, adjusted NaN. */
	stats_holm((const double[]){NAN, 0.02}, 2, 0.05, sig, adj);
	check("holm.nan", !sig[0] && isnan(adj[0]) && sig[1] && close_to(adj[1], 0.04, REL),
	      "sig %d %d adj %g %g", sig[0], sig[1], adj[0], adj[1]);
	stats_holm((const double[]){0.01, 0.02}, 2, 0.05, NULL, adj);
	check("holm.null-outputs", close_to(adj[0], 0.02, REL) && close_to(adj[1], 0.02, REL),
	      "adj %g %g", adj[0], adj[1]);
	stats_holm((const double[]){0.0, 0.001}, 2, NAN, sig, adj);
	check("holm.nan-alpha-rejects-nothing",
	      !sig[0] && !sig[1] && adj[0] == 0 && adj[1] == 0.001, "sig %d %d adj %g", sig[0],
	      sig[1], adj[1]);
	stats_holm(NULL, 0, 0.05, NULL, NULL); /* m == 0: nothing to do, no crash */
	check("holm.m0", 1, "");
}

static void test_bootstrap(void)
{
	static const double ra[] = {100, 102, 98, 101, 99, 130, 100, 97};
	static const double rb[] = {90, 91, 89, 93, 90, 88, 92, 150, 91};
	double lo, hi, lo2, hi2, ratio, med;
	int err, ok;

	/*
	 * Exact values from the Python re-implementation of the documented
	 * algorithm in stats_reference.py (same PRNG, numpy median/percentile).
	 */
	err = stats_bootstrap_median_ci(S, ARRAY_SIZE(S), 1000, 0.95, 42, &lo, &hi);
	check("bootstrap.median-reference", !err && lo == 998.5 && hi == 1015.5,
	      "err %d lo %.17g hi %.17g", err, lo, hi);
	err = stats_bootstrap_median_ci(Q, ARRAY_SIZE(Q), 2000, 0.9, 7, &lo, &hi);
	check("bootstrap.median-reference-2",
	      !err && close_to(lo, 2.6, 1e-12) && close_to(hi, 5.9, 1e-12),
	      "err %d lo %.17g hi %.17g", err, lo, hi);
	err = stats_bootstrap_ratio_ci(ra, 8, rb, 9, 1000, 0.95, 1234, &ratio, &lo, &hi);
	check("bootstrap.ratio-reference",
	      !err && close_to(ratio, 0.91, REL) && close_to(lo, 0.8823529411764706, 1e-12) &&
		      close_to(hi, 0.93, 1e-12),
	      "err %d ratio %.17g lo %.17g hi %.17g", err, ratio, lo, hi);

	/* Determinism, and the seed matters. */
	stats_bootstrap_median_ci(S, ARRAY_SIZE(S), 500, 0.95, 99, &lo, &hi);
	stats_bootstrap_median_ci(S, ARRAY_SIZE(S), 500, 0.95, 99, &lo2, &hi2);
	check("bootstrap.deterministic", lo == lo2 && hi == hi2, "two runs differ");
	ok = 0;
	for (uint64_t seed = 100; seed < 110; seed++) {
		stats_bootstrap_median_ci(Q, ARRAY_SIZE(Q), 200, 0.95, seed, &lo2, &hi2);
		stats_bootstrap_median_ci(Q, ARRAY_SIZE(Q), 200, 0.95, seed + 1000, &lo, &hi);
		ok |= lo != lo2 || hi != hi2;
	}
	check("bootstrap.seed-changes-draws", ok, "every seed gave the same interval");

	med = stats_median(S, ARRAY_SIZE(S));
	err = stats_bootstrap_median_ci(S, ARRAY_SIZE(S), 2000, 0.95, 1, &lo, &hi);
	check("bootstrap.brackets-median", !err && lo <= med && med <= hi, "%g <= %g <= %g", lo,
	      med, hi);
	err = stats_bootstrap_median_ci((const double[]){4.5}, 1, 100, 0.95, 1, &lo, &hi);
	check("bootstrap.n1", !err && lo == 4.5 && hi == 4.5, "err %d lo %g hi %g", err, lo, hi);
	err = stats_bootstrap_median_ci((const double[]){2, 2, 2, 2, 2}, 5, 100, 0.95, 1, &lo, &hi);
	check("bootstrap.all-equal", !err && lo == 2 && hi == 2, "err %d lo %g hi %g", err, lo, hi);
	err = stats_bootstrap_ratio_ci((const double[]){2, 2}, 2, (const double[]){3}, 1, 100, 0.95,
				       1, &ratio, &lo, &hi);
	check("bootstrap.ratio-degenerate", !err && ratio == 1.5 && lo == 1.5 && hi == 1.5,
	      "err %d ratio %g lo %g hi %g", err, ratio, lo, hi);

	/*
	 * Large sample from a known distribution: Exp(1), n = 2001, true median
	 * ln 2. The median's asymptotic standard error is 1 / (2 f(ln 2) sqrt(n))
	 * = 1 / sqrt(n), so a 95% interval is about 2 * 1.96 / sqrt(n) = 0.088
	 * wide; accept a width within a factor 2 of that.
	 */
	{
		enum { N = 2001 };
		static double x[N];
		struct stats_rng g;
		double want_w = 2 * 1.959963984540054 / sqrt(N);
		int covered = 0;

		stats_rng_seed(&g, 2024);
		for (int i = 0; i < N; i++)
			x[i] = -log1p(-stats_rng_uniform(&g));
		err = stats_bootstrap_median_ci(x, N, 2000, 0.95, 5, &lo, &hi);
		check("bootstrap.exp-contains-true-median", !err && lo <= M_LN2 && M_LN2 <= hi,
		      "[%g, %g] misses ln 2", lo, hi);
		check("bootstrap.exp-plausible-width",
		      !err && hi - lo > want_w / 2 && hi - lo < want_w * 2,
		      "width %g, expected about %g", hi - lo, want_w);

		/* Coverage over 40 independent samples of 201: about 38 of 40 expected. */
		for (int rep = 0; rep < 40; rep++) {
			for (int i = 0; i < 201; i++)
				x[i] = -log1p(-stats_rng_uniform(&g));
			stats_bootstrap_median_ci(x, 201, 1000, 0.95, (uint64_t)rep, &lo, &hi);
			covered += lo <= M_LN2 && M_LN2 <= hi;
		}
		check("bootstrap.exp-coverage", covered >= 34, "covered %d of 40", covered);

		/* Ratio of two samples of the same law: the interval holds 1. */
		for (int i = 0; i < 1000; i++)
			x[i] = -log1p(-stats_rng_uniform(&g));
		err = stats_bootstrap_ratio_ci(x, 500, x + 500, 500, 2000, 0.95, 3, &ratio, &lo,
					       &hi);
		check("bootstrap.ratio-same-law-holds-1",
		      !err && lo <= 1.0 && 1.0 <= hi && lo <= ratio && ratio <= hi,
		      "ratio %g [%g, %g]", ratio, lo, hi);
		/* b = 2a exactly: every resample ratio is a ratio of medians of
		 * different resamples, but the point estimate is exactly 2. */
		for (int i = 0; i < 500; i++)
			x[500 + i] = 2 * x[i];
		err = stats_bootstrap_ratio_ci(x, 500, x + 500, 500, 2000, 0.95, 3, &ratio, &lo,
					       &hi);
		check("bootstrap.ratio-doubled", !err && ratio == 2.0 && lo < 2.0 && 2.0 < hi,
		      "ratio %g [%g, %g]", ratio, lo, hi);
	}

	/* Errors. */
	err = stats_bootstrap_median_ci(S, 0, 100, 0.95, 1, &lo, &hi);
	check("bootstrap.n0-einval", err == -EINVAL && isnan(lo) && isnan(hi), "err %d", err);
	ok = stats_bootstrap_median_ci(S, 3, 0, 0.95, 1, &lo, &hi) == -EINVAL &&
	     stats_bootstrap_median_ci(S, 3, 10, 1.0, 1, &lo, &hi) == -EINVAL &&
	     stats_bootstrap_median_ci(S, 3, 10, 0.0, 1, &lo, &hi) == -EINVAL &&
	     stats_bootstrap_median_ci(S, 3, 10, NAN, 1, &lo, &hi) == -EINVAL &&
	     stats_bootstrap_median_ci((const double[]){1, NAN}, 2, 10, 0.9, 1, &lo, &hi) ==
		     -EINVAL;
	check("bootstrap.bad-args-einval", ok, "expected -EINVAL");
	err = stats_bootstrap_ratio_ci((const double[]){0, 0, 1}, 3, S, 3, 100, 0.95, 1, &ratio,
				       &lo, &hi);
	check("bootstrap.ratio-zero-median-edom", err == -EDOM && isnan(ratio) && isnan(lo),
	      "err %d", err);
	err = stats_bootstrap_ratio_ci(S, 0, S, 3, 100, 0.95, 1, &ratio, &lo, &hi);
	check("bootstrap.ratio-n0-einval", err == -EINVAL && isnan(ratio), "err %d", err);
}

int main(void)
{
	test_rng();
	test_quantiles();
	test_summary();
	test_tukey();
	test_geomean();
	test_mann_whitney();
	test_holm();
	test_bootstrap();
	return failures ? 1 : 0;
}
