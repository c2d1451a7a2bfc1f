// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the pure parts of fibtrace --compare
 * (src/fibtrace/compare/cstats.c): option values, outlier selection, the
 * statistics of a cell and a pair, Holm over pairs, row grouping and number
 * formatting. Each check prints "PASS compare.<name>" or "FAIL ...".
 *
 * Expected values are worked out by hand below (or follow from stats.c,
 * whose own tests pin it to numpy/scipy/statsmodels).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "fmt.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int failures;

static void check(const char *name, int ok)
{
	printf("%s compare.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static int close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

static void test_options(void)
{
	struct ft_cmp_opts o = FT_CMP_OPTS_INIT;

	check("opts.defaults", o.kind == FT_CMP_NONE && o.outliers == FT_OUTLIERS_TUKEY &&
				       o.metric == FT_METRIC_TOTAL && o.fail_pct < 0 &&
				       o.max_rows == FT_CMP_DEFAULT_ROWS && !o.strict);
	check("opts.kind", !ft_cmp_set(&o, "compare", "formats") && o.kind == FT_CMP_FORMATS &&
				   !ft_cmp_set(&o, "compare", "algos") && o.kind == FT_CMP_ALGOS);
	check("opts.kind_bad", ft_cmp_set(&o, "compare", "algo") != NULL);
	check("opts.kind_builds", !ft_cmp_set(&o, "compare", "builds") && o.kind == FT_CMP_BUILDS &&
					  !strcmp(ft_cmp_kind_name(o.kind), "builds"));
	check("opts.labels",
	      !ft_cmp_set(&o, "labels", "base,head") && !strcmp(o.labels, "base,head") &&
		      ft_cmp_set(&o, "labels", "") && ft_cmp_set(&o, "labels", "a,,b") &&
		      ft_cmp_set(&o, "labels", ",a") && ft_cmp_set(&o, "labels", "a,"));
	check("opts.labels.control_chars", ft_cmp_set(&o, "labels", "a\nset,b") &&
						   ft_cmp_set(&o, "labels", "a\x7f,b"));
	check("opts.labels.quote_kept", !ft_cmp_set(&o, "labels", "it's,b"));
	check("opts.save",
	      !ft_cmp_set(&o, "save-json", "r.json") && !strcmp(o.save_json, "r.json") &&
		      !ft_cmp_set(&o, "save-benchfmt", "r.txt") &&
		      !strcmp(o.save_benchfmt, "r.txt") && ft_cmp_set(&o, "save-json", ""));
	check("opts.outliers",
	      !ft_cmp_set(&o, "outliers", "trim") && o.outliers == FT_OUTLIERS_TRIM &&
		      !ft_cmp_set(&o, "outliers", "keep") && o.outliers == FT_OUTLIERS_KEEP);
	check("opts.outliers_bad", ft_cmp_set(&o, "outliers", "2sigma") != NULL);
	check("opts.metric", !ft_cmp_set(&o, "metric", "user") && o.metric == FT_METRIC_USER &&
				     !strcmp(ft_cmp_metric_name(o.metric), "user"));
	check("opts.metric_bad", ft_cmp_set(&o, "metric", "cycles") != NULL);
	check("opts.metric_counter",
	      !ft_cmp_set(&o, "metric", "counter") && o.metric == FT_METRIC_COUNTER);
	check("opts.pct", !ft_cmp_set(&o, "fail-on-regression", "5") && o.fail_pct == 5 &&
				  !ft_cmp_set(&o, "fail-on-regression", "2.5%") &&
				  o.fail_pct == 2.5 && !ft_cmp_set(&o, "fail-on-regression", "0") &&
				  o.fail_pct == 0);
	check("opts.pct_bad", ft_cmp_set(&o, "fail-on-regression", "-1") &&
				      ft_cmp_set(&o, "fail-on-regression", "5x") &&
				      ft_cmp_set(&o, "fail-on-regression", "") &&
				      ft_cmp_set(&o, "fail-on-regression", "nan"));
	check("opts.format", !ft_cmp_set(&o, "format", "benchfmt") && o.output == FT_CMP_BENCHFMT &&
				     o.output_set && ft_cmp_set(&o, "format", "csv"));
	check("opts.rows", !ft_cmp_set(&o, "rows", "0") && o.max_rows == 0 &&
				   ft_cmp_set(&o, "rows", "-1") && ft_cmp_set(&o, "rows", "x"));
	check("opts.baseline", !ft_cmp_set(&o, "baseline", "iter64") &&
				       !strcmp(o.baseline, "iter64") &&
				       ft_cmp_set(&o, "baseline", ""));
}

static void test_select(void)
{
	/* Q1 = 3.25, Q3 = 7.75 (type 7), IQR 4.5: fences -3.5 .. 14.5. */
	const double v[] = {5, 1, 100, 4, 6, 7, 8, 3, 2, 9};
	size_t keep[ARRAY_SIZE(v)], k, i;
	const double w[] = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100,
			    11, 21, 31, 41, 51, 61, 71, 81, 91, 101};
	int ok;

	k = ft_cmp_select(v, ARRAY_SIZE(v), FT_OUTLIERS_TUKEY, keep);
	ok = k == 9;
	for (i = 0; i < k && ok; i++)
		ok = keep[i] == (i < 2 ? i : i + 1); /* index 2 (100) dropped, order kept */
	check("select.tukey", ok);
	k = ft_cmp_select(v, ARRAY_SIZE(v), FT_OUTLIERS_KEEP, keep);
	check("select.keep", k == ARRAY_SIZE(v) && keep[2] == 2);
	/* 10 values: floor(0.05 * 10) = 0 dropped. */
	k = ft_cmp_select(v, ARRAY_SIZE(v), FT_OUTLIERS_TRIM, keep);
	check("select.trim_small", k == ARRAY_SIZE(v));
	/* 20 values: one from each tail (10 at index 0, 101 at index 19). */
	{
		size_t keep2[ARRAY_SIZE(w)];

		k = ft_cmp_select(w, ARRAY_SIZE(w), FT_OUTLIERS_TRIM, keep2);
		ok = k == 18 && keep2[0] == 1 && keep2[8] == 9 && keep2[9] == 10 && keep2[17] == 18;
		check("select.trim", ok);
	}
	/* All equal: IQR 0, everything on the fences, all kept. */
	{
		const double e[] = {7, 7, 7, 7};
		size_t ke[4];

		check("select.tukey_equal",
		      ft_cmp_select(e, 4, FT_OUTLIERS_TUKEY, ke) == 4 && ke[3] == 3);
	}
	check("select.empty", ft_cmp_select(v, 0, FT_OUTLIERS_TUKEY, keep) == 0);
}

static void test_cell_and_pair(void)
{
	double total[] = {100, 110, 120, 130, 10000}, compute[] = {50, 60, 70, 80, 90},
	       zero[5] = {}, user[] = {200, 210, 220, 230, 240};
	double *vals[FT_METRIC_NR] = {total, compute, zero, zero, user, zero, zero};
	double total_b[] = {200, 220, 240, 260, 280};
	double *vals_b[FT_METRIC_NR] = {total_b, compute, zero, zero, user, zero, zero};
	struct ft_cmp_cell a, b, empty;
	struct ft_cmp_pair p;

	/* Q1 110, Q3 130, fences 80..160: 10000 goes, the rest stays. */
	check("cell.analyze",
	      !ft_cmp_cell_analyze(vals, 5, FT_METRIC_TOTAL, FT_OUTLIERS_TUKEY, 1, &a));
	check("cell.kept", a.reads == 5 && a.kept == 4);
	check("cell.median", close_to(a.s.median, 115) && close_to(a.s.iqr, 15));
	/* The other metrics' medians are over the same kept reads (50..80). */
	check("cell.other_medians", close_to(a.med[FT_METRIC_COMPUTE], 65) &&
					    close_to(a.med[FT_METRIC_USER], 215) &&
					    close_to(a.med[FT_METRIC_TOTAL], 115));
	check("cell.ci", a.ci_lo >= 100 && a.ci_hi <= 130 && a.ci_lo <= a.ci_hi);
	check("cell.analyze_b",
	      !ft_cmp_cell_analyze(vals_b, 5, FT_METRIC_TOTAL, FT_OUTLIERS_KEEP, 2, &b));
	ft_cmp_pair_analyze(&a, &b, 3, &p);
	/* median(b) 240 / median(a) 115; U test: every b above every a (4 vs 5, exact). */
	check("pair.ratio",
	      close_to(p.ratio, 240.0 / 115) && p.ci_lo <= p.ratio && p.ratio <= p.ci_hi);
	check("pair.p", close_to(p.p, 2.0 / 126)); /* 2 / C(9, 4) */
	/* Same cell against itself: ratio 1, p 1. */
	{
		struct ft_cmp_pair same;

		ft_cmp_pair_analyze(&a, &a, 4, &same);
		check("pair.aa", close_to(same.ratio, 1) && close_to(same.p, 1));
	}
	/* An empty cell gives NaN, not a crash. */
	check("cell.empty",
	      !ft_cmp_cell_analyze(vals, 0, FT_METRIC_TOTAL, FT_OUTLIERS_TUKEY, 5, &empty) &&
		      isnan(empty.s.median));
	ft_cmp_pair_analyze(&a, &empty, 6, &p);
	check("pair.empty", isnan(p.ratio) && isnan(p.p));
	ft_cmp_cell_free(&a);
	ft_cmp_cell_free(&b);
	ft_cmp_cell_free(&empty);
}

static void test_holm(void)
{
	/* statsmodels multipletests([0.01, 0.04, 0.03, 0.5], 0.05, "holm"):
	 * adjusted [0.04, 0.09, 0.09, 0.5], reject [T, F, F, F]. */
	struct ft_cmp_pair p[4] = {{.p = 0.01}, {.p = 0.04}, {.p = 0.03}, {.p = 0.5}};

	ft_cmp_holm(p, 4);
	check("holm.adjusted", close_to(p[0].p_holm, 0.04) && close_to(p[1].p_holm, 0.09) &&
				       close_to(p[2].p_holm, 0.09) && close_to(p[3].p_holm, 0.5));
	check("holm.significant",
	      p[0].significant && !p[1].significant && !p[2].significant && !p[3].significant);
	ft_cmp_holm(p, 0); /* nothing to do, no crash */
	check("holm.empty", 1);
}

static void test_confirm(void)
{
	/* The flake that asked for it: Holm-significant, interval 0.93..1.42. */
	struct ft_cmp_pair p[5] = {
		{.ratio = 1.13, .ci_lo = 0.93, .ci_hi = 1.42, .p = 0.01},
		{.ratio = 1.20, .ci_lo = 1.05, .ci_hi = 1.40, .p = 0.01},
		{.ratio = 0.80, .ci_lo = 0.70, .ci_hi = 0.90, .p = 0.01},
		{.ratio = 1.20, .ci_lo = 1.05, .ci_hi = 1.40, .p = 0.5},
		{.ratio = NAN, .ci_lo = NAN, .ci_hi = NAN, .p = 0.001},
	};

	ft_cmp_holm(p, 5);
	check("confirm.holm_first", p[0].significant && p[1].significant && p[2].significant &&
					    !p[3].significant && p[4].significant);
	ft_cmp_confirm(p, 5);
	check("confirm.interval_holds_1", !p[0].significant);
	check("confirm.both_agree", p[1].significant && p[2].significant);
	check("confirm.rank_test_still_needed", !p[3].significant);
	check("confirm.no_interval", !p[4].significant);
}

static void test_min_p(void)
{
	/* Exact (5 vs 5, no ties): 2 / C(10, 5). */
	check("min_p.exact", close_to(ft_cmp_min_p(5, 5), 2.0 / 252));
	/* Asymptotic (20 vs 20): z = (400 - 200 - 0.5) / sqrt(400 * 41 / 12). */
	check("min_p.asymptotic",
	      close_to(ft_cmp_min_p(20, 20), erfc(199.5 / sqrt(400.0 * 41 / 12) / sqrt(2))));
	check("min_p.empty", isnan(ft_cmp_min_p(0, 5)));
}

static void test_groups(void)
{
	size_t start[101], r;
	int ok;

	check("groups.one_per_n", ft_cmp_group_rows(5, 30, start) == 5 && start[0] == 0 &&
					  start[5] == 5 && start[3] == 3);
	check("groups.unlimited", ft_cmp_group_rows(50, 0, start) == 50 && start[50] == 50);
	/* 94 n in 10 rows: 4 rows of 10, then 6 of 9. */
	ok = ft_cmp_group_rows(94, 10, start) == 10 && start[0] == 0 && start[10] == 94;
	for (r = 0; r < 10 && ok; r++)
		ok = start[r + 1] - start[r] == (r < 4 ? 10u : 9u);
	check("groups.94_in_10", ok);
	check("groups.exact", ft_cmp_group_rows(30, 30, start) == 30 && start[30] == 30);
	check("groups.31_in_30", ft_cmp_group_rows(31, 30, start) == 30 && start[1] == 2 &&
					 start[2] == 3 && start[30] == 31);
}

static void test_format(void)
{
	static const struct {
		double ns;
		const char *want;
	} cases[] = {
		{0, "0ns"},	     {123, "123ns"},	{12.5, "12.50ns"},  {999, "999ns"},
		{1000, "1.000us"},   {4567, "4.567us"}, {12346, "12.35us"}, {123456, "123.5us"},
		{999960, "1.000ms"}, {1.5e9, "1.500s"}, {7.2e10, "72.00s"}, {NAN, "?"},
	};
	char buf[32];
	size_t i;
	int ok = 1;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fmt_ns(buf, sizeof(buf), cases[i].ns, FMT_NS_SIG4);
		if (strcmp(buf, cases[i].want)) {
			printf("# fmt_ns(%g) = %s, want %s\n", cases[i].ns, buf, cases[i].want);
			ok = 0;
		}
	}
	check("fmt.ns", ok);
	ft_cmp_fmt_delta(buf, sizeof(buf), 1.123);
	ok = !strcmp(buf, "+12.3%");
	ft_cmp_fmt_delta(buf, sizeof(buf), 0.5);
	ok = ok && !strcmp(buf, "-50.0%");
	ft_cmp_fmt_delta(buf, sizeof(buf), 0.9999);
	ok = ok && !strcmp(buf, "+0.0%");
	ft_cmp_fmt_delta(buf, sizeof(buf), NAN);
	ok = ok && !strcmp(buf, "?");
	check("fmt.delta", ok);
}

/* The exact decision under the instruction clock: the A/A and the planted 0.5% of the gate. */
static int exact_pair(const double *x, const double *y, size_t n, struct ft_cmp_pair *p)
{
	double zero[8] = {}, xa[8], ya[8];
	double *va[FT_METRIC_NR] = {xa, zero, zero, zero, zero, zero, zero};
	double *vb[FT_METRIC_NR] = {ya, zero, zero, zero, zero, zero, zero};
	struct ft_cmp_cell a, b;
	int err;

	memcpy(xa, x, n * sizeof(*x));
	memcpy(ya, y, n * sizeof(*y));
	err = ft_cmp_cell_analyze(va, n, FT_METRIC_TOTAL, FT_OUTLIERS_TUKEY, 1, &a) ||
	      ft_cmp_cell_analyze(vb, n, FT_METRIC_TOTAL, FT_OUTLIERS_TUKEY, 2, &b);
	if (!err)
		ft_cmp_exact(&a, &b, p);
	ft_cmp_cell_free(&a);
	ft_cmp_cell_free(&b);
	return err;
}

static void test_exact(void)
{
	/* Seen in a gate's A/A run (n = 40100, 6.12 under icount): identical code. */
	double same[] = {1547429, 1547429, 1547429};
	/* An A/A run's n = 100100, each visit's cheapest of 5 reads (compare.h). */
	double aa_base[] = {5841174, 5841175, 5841199}, aa_head[] = {5841175, 5841182, 5841203};
	double planted[] = {1547429 + 7740, 1547429 + 7740, 1547429 + 7740};
	double small[] = {4242, 4242, 4242}, small_more[] = {4242 + 800, 4242 + 800, 4242 + 800};
	double big[] = {5848054, 5850693, 5885076}, big_slow[3];
	double one_tick[] = {1547429, 1547429, 1561000}; /* one interrupted read */
	double faster[] = {1530000, 1530000, 1530000};
	struct ft_cmp_pair p;
	int i;

	for (i = 0; i < 3; i++)
		big_slow[i] = big[i] * 1.005;
	check("exact.aa", !exact_pair(same, same, 3, &p) && !p.significant && p.ratio == 1 &&
				  p.ci_lo == 1 && p.ci_hi == 1);
	check("exact.aa_burst_spread",
	      !exact_pair(aa_base, aa_head, 3, &p) && !p.significant && p.ci_lo >= 1);
	check("exact.one_interrupt", !exact_pair(same, one_tick, 3, &p) && !p.significant);
	check("exact.planted_0.5pct", !exact_pair(big, big_slow, 3, &p) && p.significant &&
					      close_to(p.ratio, 1.005) && p.ci_lo > 1);
	check("exact.planted_0.5pct_40100", !exact_pair(same, planted, 3, &p) && p.significant);
	check("exact.small_change_under_floor",
	      !exact_pair(small, small_more, 3, &p) && !p.significant && p.ci_lo > 1.18);
	check("exact.faster", !exact_pair(same, faster, 3, &p) && p.significant && p.ci_hi < 1);
}

int main(void)
{
	test_options();
	test_select();
	test_cell_and_pair();
	test_holm();
	test_confirm();
	test_min_p();
	test_groups();
	test_format();
	test_exact();
	return failures ? 1 : 0;
}
