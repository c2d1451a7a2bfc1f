// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace --compare: the statistics of every (variant, n) cell and of every
 * candidate against the baseline (seeded so that a run is reproducible),
 * Holm's correction over all pairs, the power and regression checks, and
 * ft_compare_report, which puts them together with the chosen report.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "report/report.h"

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Candidate v against the baseline: the geomean of its ratios, the n significant either way. */
static void verdict(const struct ft_compare *c, int v, double *tmp, struct cmp_verdict *out)
{
	const struct ft_cmp_pair *pp = pair_of(c, v);
	size_t i, k = 0;

	out->faster = out->slower = 0;
	for (i = 0; i < c->nn; i++) {
		if (tmp && isfinite(pp[i].ratio) && pp[i].ratio > 0)
			tmp[k++] = pp[i].ratio;
		out->faster += pp[i].significant && pp[i].ratio < 1;
		out->slower += pp[i].significant && pp[i].ratio > 1;
	}
	out->compared = k;
	out->geomean = tmp ? stats_geomean(tmp, k) : NAN;
}

int cmp_analyze(struct ft_compare *c)
{
	double *tmp;
	size_t i, k = 0;
	int v, err;

	c->cell = calloc((size_t)c->nv * c->nn, sizeof(*c->cell));
	c->pair = calloc((size_t)(c->nv - 1) * c->nn, sizeof(*c->pair));
	if (!c->cell || !c->pair)
		return -ENOMEM;
	for (v = 0; v < c->nv; v++) {
		for (i = 0; i < c->nn; i++) {
			struct raw_cell *r = &c->raw[(size_t)v * c->nn + i];
			struct ft_cmp_cell *cell = &c->cell[(size_t)v * c->nn + i];

			err = ft_cmp_cell_analyze(r->v, r->count, c->o.metric, c->o.outliers,
						  mix((uint64_t)v << 40 ^ nth(c, i)), cell);
			if (err && err != -EINVAL)
				return err;
			c->var[v].removed += cell->reads - cell->kept;
		}
	}
	for (v = 0; v < c->nv; v++) {
		if (v == c->base)
			continue;
		for (i = 0; i < c->nn; i++, k++) {
			struct ft_cmp_pair *p = &c->pair[k];

			ft_cmp_pair_analyze(
				&c->cell[(size_t)c->base * c->nn + i],
				&c->cell[(size_t)v * c->nn + i],
				mix(0x7261746fULL << 32 ^ (uint64_t)v << 48 ^ nth(c, i)), p);
			p->variant = v;
			p->nidx = i;
		}
	}
	c->npairs = k;
	ft_cmp_holm(c->pair, c->npairs);
	ft_cmp_confirm(c->pair, c->npairs);
	for (k = 0; c->exact && k < c->npairs; k++)
		ft_cmp_exact(&c->cell[(size_t)c->base * c->nn + c->pair[k].nidx],
			     &c->cell[(size_t)c->pair[k].variant * c->nn + c->pair[k].nidx],
			     &c->pair[k]);
	tmp = malloc(c->nn * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	for (v = 0; v < c->nv; v++)
		if (v != c->base)
			verdict(c, v, tmp, &c->var[v].verdict);
	free(tmp);
	return 0;
}

/* Too few rounds for the number of comparisons: say so rather than print only "~". */
void cmp_power_warning(const struct ft_compare *c, struct ft_run *run)
{
	double pmin = ft_cmp_min_p(c->repeat, c->repeat);

	if (c->npairs && !c->exact && pmin * c->npairs > FT_CMP_ALPHA)
		ft_warn(run,
			"%u rounds cannot show a difference: the smallest possible p is %.2g, and "
			"Holm over %zu comparisons needs %.2g or less; raise --repeat or compare "
			"fewer n",
			c->repeat, pmin, c->npairs, FT_CMP_ALPHA / c->npairs);
}

int cmp_regressions(const struct ft_compare *c)
{
	size_t k;
	int found = 0;

	if (c->o.fail_pct < 0)
		return 0;
	for (k = 0; k < c->npairs; k++) {
		const struct ft_cmp_pair *p = &c->pair[k];

		/* Significant means both tests agree (ft_cmp_confirm); slower
		 * means the interval lies above 1, not only the median ratio. */
		if (!p->significant || !(p->ratio > 1 + c->o.fail_pct / 100) || !(p->ci_lo > 1))
			continue;
		found++;
		if (c->exact)
			fprintf(stderr,
				"fibtrace: regression: %s is %.2f%% slower than %s at n = %" PRIu64
				" (instructions, exact: ratio of medians and of minima %.5g..%.5g; "
				"threshold %g%%)\n",
				c->var[p->variant].label, (p->ratio - 1) * 100,
				c->var[c->base].label, nth(c, p->nidx), p->ci_lo, p->ci_hi,
				c->o.fail_pct);
		else
			fprintf(stderr,
				"fibtrace: regression: %s is %.1f%% slower than %s at n = %" PRIu64
				" (ratio %.4g, 95%% CI %.4g..%.4g, Holm p = %.3g; threshold "
				"%g%%)\n",
				c->var[p->variant].label, (p->ratio - 1) * 100,
				c->var[c->base].label, nth(c, p->nidx), p->ratio, p->ci_lo,
				p->ci_hi, p->p_holm, c->o.fail_pct);
	}
	return found;
}

struct saved {
	const struct ft_compare *c;
	struct ft_run *run;
	enum ft_cmp_output how;
};

static int fill_report(FILE *f, void *ctx)
{
	const struct saved *s = ctx;

	if (s->how == FT_CMP_JSON)
		cmp_report_json(f, s->c, s->run);
	else
		cmp_report_benchfmt(f, s->c, s->run);
	return 0;
}

/* --save-json / --save-benchfmt: one more format into @path; 0 or -1 (said why). */
static int save_report(const struct ft_compare *c, struct ft_run *run, const char *path,
		       enum ft_cmp_output how)
{
	struct saved s = {c, run, how};

	return ft_write_file(path, fill_report, &s);
}

int ft_compare_report(struct ft_compare *c, struct ft_run *run, FILE *f)
{
	int ret = 0;

	c->exact = ft_run_clock_exact(run);
	if (cmp_analyze(c) || (c->attr && cmp_attr_analyze(c))) {
		fprintf(stderr, "fibtrace: --compare: out of memory in the statistics\n");
		return -FT_EXIT_ERROR;
	}
	cmp_power_warning(c, run);
	switch (c->o.output) {
	case FT_CMP_JSON:
		cmp_report_json(f, c, run);
		break;
	case FT_CMP_BENCHFMT:
		cmp_report_benchfmt(f, c, run);
		break;
	default:
		cmp_report_text(f, c, run);
		break;
	}
	fflush(f);
	if (c->o.plot && cmp_report_plot(c, run, c->o.plot))
		ret = -FT_EXIT_ERROR;
	if (c->o.save_json && save_report(c, run, c->o.save_json, FT_CMP_JSON))
		ret = -FT_EXIT_ERROR;
	if (c->o.save_benchfmt && save_report(c, run, c->o.save_benchfmt, FT_CMP_BENCHFMT))
		ret = -FT_EXIT_ERROR;
	/* The gate's answer wins over a failed plot: CI must see the regression. */
	if (cmp_regressions(c))
		ret = -FT_EXIT_REGRESSION;
	return ret;
}
