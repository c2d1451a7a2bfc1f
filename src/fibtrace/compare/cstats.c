// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace --compare, the pure parts: option values, outlier selection, the
 * statistics of a (variant, n) cell and of a pair against the baseline,
 * grouping of n into table rows, delta formatting. No I/O, no BPF, so the
 * host unit tests (tests/unit/test_compare.c) link it with lib/stats.c alone.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

static const char *const metric_names[FT_METRIC_NR] = {"total", "compute", "format", "copy",
						       "user",	"counter", "oncpu"};
static const char *const outlier_names[] = {"tukey", "keep", "trim"};

const char *ft_cmp_kind_name(enum ft_cmp_kind k)
{
	return k == FT_CMP_FORMATS ? "formats" : k == FT_CMP_BUILDS ? "builds" : "algos";
}

const char *ft_cmp_metric_name(enum ft_cmp_metric m)
{
	return m < FT_METRIC_NR ? metric_names[m] : "?";
}

const char *ft_cmp_outliers_name(enum ft_cmp_outliers o)
{
	return o <= FT_OUTLIERS_TRIM ? outlier_names[o] : "?";
}

static int parse_pct(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || (*end && strcmp(end, "%")) || !(v >= 0) || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

const char *ft_cmp_set(struct ft_cmp_opts *o, const char *opt, const char *arg)
{
	const char *p;
	int i;

	if (!strcmp(opt, "compare")) {
		if (!strcmp(arg, "algos"))
			o->kind = FT_CMP_ALGOS;
		else if (!strcmp(arg, "formats"))
			o->kind = FT_CMP_FORMATS;
		else if (!strcmp(arg, "builds"))
			o->kind = FT_CMP_BUILDS;
		else
			return "algos, formats or builds";
	} else if (!strcmp(opt, "baseline")) {
		if (!*arg)
			return "a variant name";
		o->baseline = arg;
	} else if (!strcmp(opt, "outliers")) {
		for (i = 0; i <= FT_OUTLIERS_TRIM; i++)
			if (!strcmp(arg, outlier_names[i]))
				break;
		if (i > FT_OUTLIERS_TRIM)
			return "tukey, keep or trim";
		o->outliers = i;
	} else if (!strcmp(opt, "strict")) {
		o->strict = true;
	} else if (!strcmp(opt, "attribute")) {
		o->attribute = true;
	} else if (!strcmp(opt, "fail-on-regression")) {
		if (parse_pct(arg, &o->fail_pct))
			return "a percentage >= 0, e.g. 5 or 5%";
	} else if (!strcmp(opt, "format")) {
		if (!strcmp(arg, "text"))
			o->output = FT_CMP_TEXT;
		else if (!strcmp(arg, "json"))
			o->output = FT_CMP_JSON;
		else if (!strcmp(arg, "benchfmt"))
			o->output = FT_CMP_BENCHFMT;
		else
			return "text, json, csv or benchfmt";
		o->output_set = true;
	} else if (!strcmp(opt, "metric")) {
		for (i = 0; i < FT_METRIC_NR; i++)
			if (!strcmp(arg, metric_names[i]))
				break;
		if (i == FT_METRIC_NR)
			return "total, compute, format, copy or user";
		o->metric = i;
	} else if (!strcmp(opt, "labels")) {
		if (!*arg || *arg == ',' || strstr(arg, ",,") || arg[strlen(arg) - 1] == ',')
			return "names separated by commas";
		for (p = arg; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				return "names without control characters";
		o->labels = arg;
	} else if (!strcmp(opt, "save-json") || !strcmp(opt, "save-benchfmt")) {
		if (!*arg)
			return "a file name";
		*(opt[5] == 'j' ? &o->save_json : &o->save_benchfmt) = arg;
	} else if (!strcmp(opt, "rows")) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || *arg == '-' || v > 100000)
			return "a row count 0..100000 (0: one row per n)";
		o->max_rows = v;
	} else {
		return "(unknown option)";
	}
	return NULL;
}

struct idx_val {
	double v;
	size_t i;
};

static int cmp_idx_val(const void *pa, const void *pb)
{
	const struct idx_val *a = pa, *b = pb;

	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int cmp_size(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	return a < b ? -1 : a > b;
}

size_t ft_cmp_select(const double *v, size_t n, enum ft_cmp_outliers how, size_t *keep)
{
	size_t i, k = 0;

	if (!n)
		return 0;
	if (how == FT_OUTLIERS_TUKEY) {
		double lo, hi;

		if (stats_tukey_fences(v, n, STATS_TUKEY_K, &lo, &hi))
			return (size_t)-1;
		for (i = 0; i < n; i++)
			if (v[i] >= lo && v[i] <= hi)
				keep[k++] = i;
		return k;
	}
	if (how == FT_OUTLIERS_TRIM) {
		size_t cut = (size_t)floor(FT_CMP_TRIM_FRACTION * (double)n);
		struct idx_val *s = malloc(n * sizeof(*s));

		if (!s)
			return (size_t)-1;
		for (i = 0; i < n; i++)
			s[i] = (struct idx_val){v[i], i};
		qsort(s, n, sizeof(*s), cmp_idx_val);
		for (i = cut; i < n - cut; i++)
			keep[k++] = s[i].i;
		free(s);
		qsort(keep, k, sizeof(*keep), cmp_size);
		return k;
	}
	for (i = 0; i < n; i++)
		keep[i] = i;
	return n;
}

static void cell_nan(struct ft_cmp_cell *c)
{
	int m;

	c->s.median = c->s.q1 = c->s.q3 = c->s.iqr = NAN;
	c->s.min = c->s.max = c->s.mean = NAN;
	c->ci_lo = c->ci_hi = NAN;
	for (m = 0; m < FT_METRIC_NR; m++)
		c->med[m] = NAN;
}

int ft_cmp_cell_analyze(double *const vals[FT_METRIC_NR], size_t n, enum ft_cmp_metric metric,
			enum ft_cmp_outliers how, uint64_t seed, struct ft_cmp_cell *c)
{
	size_t *keep = NULL, k, i;
	double *tmp = NULL;
	int m, err = -ENOMEM;

	memset(c, 0, sizeof(*c));
	cell_nan(c);
	c->reads = n;
	if (!n)
		return 0;
	keep = malloc(n * sizeof(*keep));
	tmp = malloc(n * sizeof(*tmp));
	c->kept_vals = malloc(n * sizeof(*c->kept_vals));
	if (!keep || !tmp || !c->kept_vals)
		goto out;
	k = ft_cmp_select(vals[metric], n, how, keep);
	if (k == (size_t)-1)
		goto out;
	c->kept = k;
	for (m = 0; m < FT_METRIC_NR; m++) {
		for (i = 0; i < k; i++)
			tmp[i] = vals[m][keep[i]];
		c->med[m] = stats_median(tmp, k);
		if (m == (int)metric)
			memcpy(c->kept_vals, tmp, k * sizeof(*tmp));
	}
	err = stats_summarize(c->kept_vals, k, &c->s);
	if (!err)
		err = stats_bootstrap_median_ci(c->kept_vals, k, STATS_BOOTSTRAP_RESAMPLES,
						STATS_CI_LEVEL, seed, &c->ci_lo, &c->ci_hi);
out:
	free(keep);
	free(tmp);
	return err;
}

void ft_cmp_cell_free(struct ft_cmp_cell *c)
{
	free(c->kept_vals);
	c->kept_vals = NULL;
}

void ft_cmp_pair_analyze(const struct ft_cmp_cell *a, const struct ft_cmp_cell *b, uint64_t seed,
			 struct ft_cmp_pair *out)
{
	out->ratio = out->ci_lo = out->ci_hi = out->p = out->p_holm = NAN;
	out->significant = false;
	if (!a->kept || !b->kept)
		return;
	if (stats_bootstrap_ratio_ci(a->kept_vals, a->kept, b->kept_vals, b->kept,
				     STATS_BOOTSTRAP_RESAMPLES, STATS_CI_LEVEL, seed, &out->ratio,
				     &out->ci_lo, &out->ci_hi))
		out->ratio = out->ci_lo = out->ci_hi = NAN;
	if (stats_mann_whitney(a->kept_vals, a->kept, b->kept_vals, b->kept, NULL, &out->p))
		out->p = NAN;
}

void ft_cmp_exact(const struct ft_cmp_cell *a, const struct ft_cmp_cell *b,
		  struct ft_cmp_pair *out)
{
	double rmin, rmed, dmin, dmed, tol;

	out->ratio = out->ci_lo = out->ci_hi = NAN;
	out->significant = false;
	if (!a->kept || !b->kept || !(a->s.min > 0) || !(a->s.median > 0))
		return;
	rmin = b->s.min / a->s.min;
	rmed = b->s.median / a->s.median;
	out->ratio = rmed;
	out->ci_lo = fmin(rmin, rmed);
	out->ci_hi = fmax(rmin, rmed);
	dmin = b->s.min - a->s.min;
	dmed = b->s.median - a->s.median;
	tol = fmax(FT_CMP_EXACT_TOL * a->s.median, FT_CMP_EXACT_FLOOR_NS);
	out->significant = (dmin > tol && dmed > tol) || (dmin < -tol && dmed < -tol);
}

void ft_cmp_holm(struct ft_cmp_pair *pairs, size_t m)
{
	double *p = calloc(m + 1, sizeof(*p)), *adj = calloc(m + 1, sizeof(*adj));
	bool *sig = calloc(m + 1, sizeof(*sig));
	size_t i;

	if (!p || !adj || !sig) {
		/* Nothing can be called significant without the correction. */
		for (i = 0; i < m; i++) {
			pairs[i].p_holm = NAN;
			pairs[i].significant = false;
		}
		goto out;
	}
	for (i = 0; i < m; i++)
		p[i] = pairs[i].p;
	stats_holm(p, m, FT_CMP_ALPHA, sig, adj);
	for (i = 0; i < m; i++) {
		pairs[i].p_holm = adj[i];
		pairs[i].significant = sig[i];
	}
out:
	free(p);
	free(adj);
	free(sig);
}

void ft_cmp_confirm(struct ft_cmp_pair *pairs, size_t m)
{
	size_t i;

	for (i = 0; i < m; i++)
		pairs[i].significant =
			pairs[i].significant && (pairs[i].ci_lo > 1 || pairs[i].ci_hi < 1);
}

double ft_cmp_min_p(size_t na, size_t nb)
{
	double *x = malloc((na + nb + 1) * sizeof(*x)), p = NAN;
	size_t i;

	if (!x || !na || !nb) {
		free(x);
		return NAN;
	}
	for (i = 0; i < na + nb; i++)
		x[i] = i;
	if (stats_mann_whitney(x, na, x + na, nb, NULL, &p))
		p = NAN;
	free(x);
	return p;
}

size_t ft_cmp_group_rows(size_t nn, size_t max_rows, size_t *start)
{
	size_t rows, r, base, extra;

	if (!max_rows || max_rows >= nn) {
		for (r = 0; r <= nn; r++)
			start[r] = r;
		return nn;
	}
	/* nn = rows * base + extra: the first `extra` rows get one more n. */
	rows = max_rows;
	base = nn / rows;
	extra = nn % rows;
	start[0] = 0;
	for (r = 0; r < rows; r++)
		start[r + 1] = start[r] + base + (r < extra);
	return rows;
}

void ft_cmp_fmt_delta(char *buf, size_t size, double r)
{
	double pct = (r - 1) * 100;

	if (isnan(r) || isinf(r)) {
		snprintf(buf, size, "?");
		return;
	}
	if (fabs(pct) < 0.05)
		pct = 0; /* no "-0.0%" */
	snprintf(buf, size, "%+.1f%%", pct);
}
