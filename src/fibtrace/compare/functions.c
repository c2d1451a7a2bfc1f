// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace --compare --attribute: which traced functions changed.
 *
 * With --attribute every read's record brings, per traced function, the self
 * time of that function's calls inside the read less the tracing cost inside
 * them, not clamped (bpf/fibtrace.h: struct ft_read_funcs; it can be
 * negative where the calibration overestimates). Each (function, candidate, n) is
 * then tested as the read totals are: the run's outlier rule on each side,
 * a two-sided Mann-Whitney U test, and Holm's correction over the whole
 * family of such tests (every function at every n where either side spent
 * time in it). The significant ones get the bootstrap CI of the ratio of
 * medians (where both are positive) and are listed by the time they add or
 * remove per read, the
 * largest change first: with one slowed function, that function heads the
 * list. A significant change where either median is negative is listed
 * apart, as dominated by tracing: the function's self time is then below the
 * calibrated tracing cost subtracted from it (many traced callees), and a
 * difference of a few per cent in the true cost per traced call between the
 * builds' tracers, seen in A/A runs, moves it by milliseconds. Functions are
 * matched across builds by name; a function one build lacks is not tested
 * for it.
 *
 * The bootstrap is the costly part (10000 resamples per interval): it runs
 * only for the significant tests, the others keep the ratio of medians.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "fmt.h"

/* Self times kept at most (8 bytes each): 256 MiB. */
#define ATTR_MAX_VALUES (32u << 20)

/* One (function, variant, n): the values of its matched reads. */
static double *cell_vals(const struct cmp_attr *a, const struct ft_compare *c, int f, int v,
			 size_t i, size_t **count)
{
	size_t cell = ((size_t)f * c->nv + v) * c->nn + i;

	*count = &a->count[cell];
	return &a->vals[cell * c->repeat];
}

/* The traced functions of the baseline's run, and each one's slot in every variant's. */
static int find_functions(struct cmp_attr *a, const struct ft_compare *c)
{
	const struct ft_targets *base = c->var[c->base].run->targets;
	int i, v, k;

	a->func = calloc(base->count ? base->count : 1, sizeof(*a->func));
	if (!a->func)
		return -ENOMEM;
	for (i = 0; i < base->count; i++) {
		struct cmp_func *fn = &a->func[a->nfunc++];

		fn->name = base->t[i].name;
		for (v = 0; v < c->nv; v++) {
			const struct ft_targets *tg = c->var[v].run->targets;

			fn->slot[v] = -1;
			for (k = 0; k < tg->count; k++)
				if (!strcmp(tg->t[k].name, fn->name))
					fn->slot[v] = tg->t[k].slot;
		}
	}
	return 0;
}

int cmp_attr_prepare(struct ft_compare *c)
{
	struct cmp_attr *a = calloc(1, sizeof(*a));
	size_t cells, vals;
	int v, k;

	c->attr = a;
	if (!a || find_functions(a, c))
		goto nomem;
	/* Each build's BPF sends the self times; run->rec_self keeps them. */
	for (v = 0; v < c->nv; v++) {
		struct ft_run *run = c->var[v].run;

		for (k = 0; k < run->targets->count; k++)
			if ((unsigned int)run->targets->t[k].slot >= run->self_stride)
				run->self_stride = run->targets->t[k].slot + 1;
	}
	cells = (size_t)a->nfunc * c->nv * c->nn;
	if (cells && c->repeat > ATTR_MAX_VALUES / cells) {
		fprintf(stderr,
			"fibtrace: --attribute keeps every read's self time of %d functions x %d "
			"variants x %zu n x %u rounds: over %u values; compare fewer n, variants "
			"or rounds\n",
			a->nfunc, c->nv, c->nn, c->repeat, ATTR_MAX_VALUES);
		return -FT_EXIT_USAGE;
	}
	vals = cells * c->repeat;
	a->count = calloc(cells + 1, sizeof(*a->count));
	a->vals = malloc((vals + 1) * sizeof(*a->vals));
	if (a->count && a->vals)
		return 0;
nomem:
	fprintf(stderr,
		"fibtrace: --attribute: out of memory for %d functions x %d variants x "
		"%zu n x %u rounds\n",
		a ? a->nfunc : 0, c->nv, c->nn, c->repeat);
	return -FT_EXIT_ERROR;
}

void cmp_attr_record(struct ft_compare *c, int v, size_t nidx, size_t rec)
{
	const struct ft_run *run = c->var[v].run;
	struct cmp_attr *a = c->attr;
	const __s64 *self = &run->rec_self[rec * run->self_stride];
	size_t *count;
	double *vals;
	int f, slot;

	for (f = 0; f < a->nfunc; f++) {
		slot = a->func[f].slot[v];
		vals = cell_vals(a, c, f, v, nidx, &count);
		if (slot < 0 || *count >= c->repeat)
			continue;
		vals[(*count)++] = (double)self[slot];
	}
}

/* The reads of one cell kept by the run's outlier rule, into out[]: how many, or -1. */
static long kept_vals(const struct ft_compare *c, const double *v, size_t n, double *out)
{
	size_t *keep = malloc((n + 1) * sizeof(*keep)), k, i;

	if (!keep)
		return -1;
	k = ft_cmp_select(v, n, c->o.outliers, keep);
	for (i = 0; k != (size_t)-1 && i < k; i++)
		out[i] = v[keep[i]];
	free(keep);
	return k == (size_t)-1 ? -1 : (long)k;
}

static bool all_zero(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] != 0)
			return false;
	return true;
}

/* Scratch for the two sides of one test. */
struct sides {
	double *a, *b;
	long na, nb;
};

/*
 * The kept reads of function f at n index i, baseline and variant v: 1 when
 * there is something to test, 0 when not (no reads, or no time on either side).
 */
static int load_sides(const struct ft_compare *c, int f, int v, size_t i, struct sides *s)
{
	const struct cmp_attr *a = c->attr;
	size_t *ca, *cb;
	const double *va = cell_vals(a, c, f, c->base, i, &ca);
	const double *vb = cell_vals(a, c, f, v, i, &cb);

	if (!*ca || !*cb || (all_zero(va, *ca) && all_zero(vb, *cb)))
		return 0;
	s->na = kept_vals(c, va, *ca, s->a);
	s->nb = kept_vals(c, vb, *cb, s->b);
	if (s->na < 0 || s->nb < 0)
		return -ENOMEM;
	return s->na > 0 && s->nb > 0;
}

static double min_of(const double *x, long n)
{
	double m = x[0];
	long i;

	for (i = 1; i < n; i++)
		if (x[i] < m)
			m = x[i];
	return m;
}

/* Every (function, candidate, n) with time on some side: medians and Mann-Whitney p. */
static int run_tests(struct ft_compare *c, struct sides *s)
{
	struct cmp_attr *a = c->attr;
	size_t i, max = (size_t)a->nfunc * c->nv * c->nn;
	int f, v, got;

	a->test = calloc(max + 1, sizeof(*a->test));
	if (!a->test)
		return -ENOMEM;
	for (f = 0; f < a->nfunc; f++)
		for (v = 0; v < c->nv; v++)
			for (i = 0; i < c->nn && v != c->base; i++) {
				struct cmp_ftest *t = &a->test[a->ntests];

				got = load_sides(c, f, v, i, s);
				if (got < 0)
					return got;
				if (!got)
					continue;
				t->func = f;
				t->p.variant = v;
				t->p.nidx = i;
				t->base_med = stats_median(s->a, s->na);
				t->med = stats_median(s->b, s->nb);
				t->base_min = min_of(s->a, s->na);
				t->min = min_of(s->b, s->nb);
				t->dominated = t->base_med < 0 || t->med < 0;
				t->p.ratio =
					t->base_med > 0 && t->med >= 0 ? t->med / t->base_med : NAN;
				t->p.ci_lo = t->p.ci_hi = NAN;
				if (stats_mann_whitney(s->a, s->na, s->b, s->nb, NULL, &t->p.p))
					t->p.p = NAN;
				a->ntests++;
			}
	return 0;
}

/* Holm over the family; then the interval of each significant ratio. */
static int correct_and_bound(struct ft_compare *c, struct sides *s)
{
	struct cmp_attr *a = c->attr;
	struct ft_cmp_pair *p = calloc(a->ntests + 1, sizeof(*p));
	size_t k;

	if (!p)
		return -ENOMEM;
	for (k = 0; k < a->ntests; k++)
		p[k] = a->test[k].p;
	ft_cmp_holm(p, a->ntests);
	for (k = 0; k < a->ntests; k++) {
		struct cmp_ftest *t = &a->test[k];

		t->p.p_holm = p[k].p_holm;
		t->p.significant = p[k].significant;
		if (!t->p.significant)
			continue;
		a->nsig++;
		a->ndominated += t->dominated;
		if (isnan(t->p.ratio) || load_sides(c, t->func, t->p.variant, t->p.nidx, s) <= 0 ||
		    stats_bootstrap_ratio_ci(s->a, s->na, s->b, s->nb, STATS_BOOTSTRAP_RESAMPLES,
					     STATS_CI_LEVEL, 0x66756e63ULL ^ k, NULL, &t->p.ci_lo,
					     &t->p.ci_hi) ||
		    !(t->p.ci_lo > 0) || !isfinite(t->p.ci_hi))
			/* Resamples with medians at or below 0: no ratio interval. */
			t->p.ci_lo = t->p.ci_hi = NAN;
	}
	free(p);
	return 0;
}

/*
 * Under the instruction clock (c->exact), ft_cmp_exact's rule on self
 * times, which can be 0 or below the tracing cost subtracted: a function
 * changed when its median and its minimum both moved the same way by more
 * than FT_CMP_EXACT_FUNC_FLOOR_NS (a count, not a share: the reads here
 * carry every traced call's cost, so a share of them would hide a change
 * the untraced read shows). Replaces the tests' verdict and interval;
 * p_holm stays, for information.
 */
static void exact_decide(struct ft_compare *c)
{
	struct cmp_attr *a = c->attr;
	size_t k;

	a->nsig = a->ndominated = 0;
	for (k = 0; k < a->ntests; k++) {
		struct cmp_ftest *t = &a->test[k];
		double tol = FT_CMP_EXACT_FUNC_FLOOR_NS, dmed = t->med - t->base_med;
		double dmin = t->min - t->base_min;

		t->p.significant = isfinite(tol) && ((dmed > tol && dmin > tol) ||
						     (dmed < -tol && dmin < -tol));
		t->p.ci_lo = t->p.ci_hi = NAN;
		if (t->base_min > 0 && t->base_med > 0 && t->min >= 0 && t->med >= 0) {
			t->p.ci_lo = fmin(t->min / t->base_min, t->med / t->base_med);
			t->p.ci_hi = fmax(t->min / t->base_min, t->med / t->base_med);
		}
		a->nsig += t->p.significant;
		a->ndominated += t->p.significant && t->dominated;
	}
}

/* Significant first, of those the ones not dominated by tracing; then by the time changed per read.
 */
static int by_change(const void *x, const void *y)
{
	const struct cmp_ftest *a = x, *b = y;
	double da = fabs(a->med - a->base_med), db = fabs(b->med - b->base_med);

	if (a->p.significant != b->p.significant)
		return a->p.significant ? -1 : 1;
	if (a->dominated != b->dominated)
		return a->dominated ? 1 : -1;
	return da > db ? -1 : da < db ? 1 : 0;
}

int cmp_attr_analyze(struct ft_compare *c)
{
	struct sides s = {};
	int err = -ENOMEM;

	s.a = malloc((c->repeat + 1) * sizeof(double));
	s.b = malloc((c->repeat + 1) * sizeof(double));
	if (s.a && s.b)
		err = run_tests(c, &s);
	if (!err)
		err = correct_and_bound(c, &s);
	if (!err && c->exact)
		exact_decide(c);
	if (!err)
		qsort(c->attr->test, c->attr->ntests, sizeof(*c->attr->test), by_change);
	free(s.a);
	free(s.b);
	return err;
}

void cmp_attr_free(struct cmp_attr *a)
{
	if (!a)
		return;
	free(a->func);
	free(a->count);
	free(a->vals);
	free(a->test);
	free(a);
}

/* ---------- reports ---------- */

/* A time that may be negative; with @plus, "+" before a positive one. */
static void fmt_signed(char *buf, size_t size, double ns, bool plus)
{
	char t[24];

	fmt_ns(t, sizeof(t), fabs(ns), FMT_NS_SIG4);
	snprintf(buf, size, "%s%s", ns < 0 ? "-" : plus ? "+" : "", t);
}

static void fmt_ratio(char *buf, size_t size, const struct cmp_ftest *t)
{
	if (!isfinite(t->p.ratio))
		snprintf(buf, size, "-");
	else if (isfinite(t->p.ci_lo) && isfinite(t->p.ci_hi))
		snprintf(buf, size, "%.3g [%.3g..%.3g]", t->p.ratio, t->p.ci_lo, t->p.ci_hi);
	else
		snprintf(buf, size, "%.3g", t->p.ratio);
}

void cmp_attr_text(FILE *f, const struct ft_compare *c)
{
	const struct cmp_attr *a = c->attr;
	size_t k, listed = a->nsig - a->ndominated, shown = listed;
	char base[32], med[32], change[32], ratio[48];

	if (c->exact)
		fprintf(f,
			"\nwhich functions changed: self time per read%s, in instructions: exact, "
			"the minimum and the median both moved by more than %d instructions, over "
			"%zu (function, n); largest change first\n",
			c->var[c->base].run->overhead.on ? " less tracing (calibrated, not clamped)"
							 : "",
			FT_CMP_EXACT_FUNC_FLOOR_NS, a->ntests);
	else
		fprintf(f,
			"\nwhich functions changed: self time per read%s, Mann-Whitney, Holm over "
			"%zu (function, n) tests; largest change first\n",
			c->var[c->base].run->overhead.on ? " less tracing (calibrated, not clamped)"
							 : "",
			a->ntests);
	if (c->o.max_rows && shown > c->o.max_rows)
		shown = c->o.max_rows;
	if (!listed)
		fprintf(f, "  no traced function's self time changed significantly%s\n",
			a->ndominated ? " above its tracing cost" : "");
	else
		fprintf(f, "  %-24s %-12s %9s %11s %11s %11s  %-24s %s\n", "function", "build", "n",
			"base/read", "self/read", "change",
			c->exact ? "ratio [min..median]" : "ratio [95% CI]", "Holm p");
	for (k = 0; k < shown; k++) {
		const struct cmp_ftest *t = &a->test[k];

		fmt_signed(base, sizeof(base), t->base_med, false);
		fmt_signed(med, sizeof(med), t->med, false);
		fmt_signed(change, sizeof(change), t->med - t->base_med, true);
		fmt_ratio(ratio, sizeof(ratio), t);
		fprintf(f, "  %-24s %-12s %9" PRIu64 " %11s %11s %11s  %-24s %.2g\n",
			a->func[t->func].name, c->var[t->p.variant].label, nth(c, t->p.nidx), base,
			med, change, ratio, t->p.p_holm);
	}
	if (shown < listed)
		fprintf(f, "  ... %zu more significant (--rows 0 shows all; the JSON lists all)\n",
			listed - shown);
	if (a->ndominated)
		fprintf(f,
			"  %zu more significant but dominated by tracing (a median below 0: self "
			"time under the tracing cost subtracted; JSON: tracing_dominated)\n",
			a->ndominated);
}

void cmp_attr_json(FILE *f, const struct ft_compare *c)
{
	const struct cmp_attr *a = c->attr;
	size_t k;

	fprintf(f, ",\n  \"compare_functions_tests\": %zu,\n  \"compare_functions\": [", a->ntests);
	for (k = 0; k < a->nsig; k++) {
		const struct cmp_ftest *t = &a->test[k];

		fprintf(f, "%s\n    {\"function\": ", k ? "," : "");
		json_str(f, a->func[t->func].name);
		fprintf(f, ", \"variant\": ");
		json_str(f, c->var[t->p.variant].label);
		fprintf(f, ", \"n\": %" PRIu64, nth(c, t->p.nidx));
		json_field(f, "base_ns", t->base_med);
		json_field(f, "ns", t->med);
		json_field(f, "delta_ns", t->med - t->base_med);
		json_field(f, "ratio", t->p.ratio);
		json_field(f, "ci_lo", t->p.ci_lo);
		json_field(f, "ci_hi", t->p.ci_hi);
		json_field(f, "p_value", t->p.p);
		json_field(f, "p_holm", t->p.p_holm);
		fprintf(f, ", \"significant\": %s, \"tracing_dominated\": %s}",
			t->p.significant ? "true" : "false", t->dominated ? "true" : "false");
	}
	fprintf(f, "\n  ]");
}
