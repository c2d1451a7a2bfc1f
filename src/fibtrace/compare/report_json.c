// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace --compare, machine-readable reports: the regular fibtrace JSON
 * document (docs/fibtrace.schema.json) with the comparison's members
 * (settings, hygiene, variants, stats, compare, summary), and the Go
 * benchmark format (one line per matched read) that benchstat reads.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "compare_int.h"
#include "fmt.h"
#include "model/events.h"
#include "report/report.h"

static void json_settings(FILE *f, const struct ft_compare *c, const struct ft_run *run)
{
	fprintf(f,
		"  \"settings\": {\"kind\": \"%s\", \"metric\": \"%s\", \"outliers\": \"%s\", "
		"\"baseline\": ",
		ft_cmp_kind_name(c->o.kind), ft_cmp_metric_name(c->o.metric),
		ft_cmp_outliers_name(c->o.outliers));
	json_str(f, c->var[c->base].label);
	fprintf(f,
		", \"rounds\": %u, \"warmup_rounds\": %d, \"reads_per_visit\": %u, "
		"\"interleaved\": true, \"alpha\": %g, "
		"\"ci_level\": %g, \"bootstrap_resamples\": %u, \"comparisons\": %zu, "
		"\"strict\": %s, \"fail_on_regression_pct\": ",
		c->repeat, WARMUP_ROUNDS, cmp_burst(run), FT_CMP_ALPHA, STATS_CI_LEVEL, STATS_BOOTSTRAP_RESAMPLES,
		c->npairs, c->o.strict ? "true" : "false");
	json_num(f, c->o.fail_pct >= 0 ? c->o.fail_pct : NAN);
	fprintf(f, ", \"decision\": \"%s\", \"exact_tolerance_pct\": %g",
		c->exact ? "exact" : "tests", FT_CMP_EXACT_TOL * 100);
	fprintf(f,
		", \"interrupted\": %s, \"unmatched_reads\": %" PRIu64
		", \"compensated\": %s, \"attribute\": %s},\n",
		c->interrupted ? "true" : "false", c->unmatched,
		cmp_compensated(c, run) ? "true" : "false", c->attr ? "true" : "false");
}

static void json_hygiene(FILE *f, const struct ft_compare *c)
{
	int h;

	fprintf(f, "  \"hygiene\": [");
	for (h = 0; h < c->nhy; h++) {
		fprintf(f, "%s\n    {\"check\": \"%s\", \"status\": \"%s\", \"detail\": ",
			h ? "," : "", c->hy[h].name, cmp_hy_status_name(c->hy[h].status));
		json_str(f, c->hy[h].detail);
		fputc('}', f);
	}
}

static void json_variants(FILE *f, const struct ft_compare *c)
{
	int v;

	fprintf(f, "\n  ],\n  \"variants\": [");
	for (v = 0; v < c->nv; v++) {
		const struct variant *x = &c->var[v];

		fprintf(f, "%s\n    {\"label\": ", v ? "," : "");
		json_str(f, x->label);
		fprintf(f, ", \"algo\": ");
		json_str(f, var_algo(x));
		fprintf(f, ", \"device\": ");
		json_str(f, x->device);
		fprintf(f,
			", \"algo_id\": %d, \"format\": \"%s\", \"baseline\": %s, \"reads\": "
			"%" PRIu64 ", \"matched\": %" PRIu64 ", \"unmatched\": %" PRIu64
			", \"errors\": %" PRIu64 ", \"outliers_removed\": %" PRIu64 "}",
			x->algo_id, x->format == FIBDRV_FORMAT_BIN ? "bin" : "dec",
			v == c->base ? "true" : "false", x->reads, x->matched, x->unmatched,
			x->errors, x->removed);
	}
}

/* One (variant, n) cell: its summary and the medians of every metric. */
static void json_cell(FILE *f, const struct ft_compare *c, const struct ft_run *run, int v,
		      size_t i)
{
	static const char *const mkey[FT_METRIC_NR] = {
		"total_ns", "compute_ns", "format_ns", "copy_ns", "user_ns", "counter", "oncpu_ns"};
	const struct ft_cmp_cell *x = cell_of(c, v, i);
	int m;

	json_str(f, c->var[v].label);
	fprintf(f,
		", \"n\": %" PRIu64 ", \"count\": %zu, \"kept\": %zu, "
		"\"outliers_removed\": %zu, \"median_ns\": ",
		nth(c, i), x->reads, x->kept, x->reads - x->kept);
	json_num(f, x->s.median);
	json_field(f, "q1_ns", x->s.q1);
	json_field(f, "q3_ns", x->s.q3);
	json_field(f, "iqr_ns", x->s.iqr);
	json_field(f, "min_ns", x->s.min);
	json_field(f, "max_ns", x->s.max);
	json_field(f, "mean_ns", x->s.mean);
	json_field(f, "ci_lo_ns", x->ci_lo);
	json_field(f, "ci_hi_ns", x->ci_hi);
	fprintf(f, ", \"medians\": {");
	for (m = 0; m < FT_METRIC_NR; m++) {
		if (m == FT_METRIC_COUNTER && !ft_counters_first_event(run->counters))
			continue;
		fprintf(f, "%s\"%s\": ", m ? ", " : "", mkey[m]);
		json_num(f, x->med[m]);
	}
	fprintf(f, "}}");
}

static void json_stats(FILE *f, const struct ft_compare *c, const struct ft_run *run)
{
	size_t i, k = 0;
	int v;

	fprintf(f, "\n  ],\n  \"stats\": [");
	for (v = 0; v < c->nv; v++)
		for (i = 0; i < c->nn; i++) {
			fprintf(f, "%s\n    {\"variant\": ", k++ ? "," : "");
			json_cell(f, c, run, v, i);
		}
}

static void json_pairs(FILE *f, const struct ft_compare *c)
{
	size_t k;

	fprintf(f, "\n  ],\n  \"compare\": [");
	for (k = 0; k < c->npairs; k++) {
		const struct ft_cmp_pair *p = &c->pair[k];

		fprintf(f, "%s\n    {\"n\": %" PRIu64 ", \"a\": ", k ? "," : "", nth(c, p->nidx));
		json_str(f, c->var[c->base].label);
		fprintf(f, ", \"b\": ");
		json_str(f, c->var[p->variant].label);
		fprintf(f, ", \"ratio\": ");
		json_num(f, p->ratio);
		fprintf(f, ", \"ci_lo\": ");
		json_num(f, p->ci_lo);
		fprintf(f, ", \"ci_hi\": ");
		json_num(f, p->ci_hi);
		fprintf(f, ", \"p_value\": ");
		json_num(f, p->p);
		fprintf(f, ", \"p_holm\": ");
		json_num(f, p->p_holm);
		fprintf(f, ", \"significant\": %s}", p->significant ? "true" : "false");
	}
}

static void json_summary(FILE *f, const struct ft_compare *c)
{
	int v, k = 0;

	fprintf(f, "\n  ],\n  \"summary\": [");
	for (v = 0; v < c->nv; v++) {
		const struct cmp_verdict *s = &c->var[v].verdict;

		if (v == c->base)
			continue;
		fprintf(f, "%s\n    {\"a\": ", k++ ? "," : "");
		json_str(f, c->var[c->base].label);
		fprintf(f, ", \"b\": ");
		json_str(f, c->var[v].label);
		fprintf(f, ", \"geomean_ratio\": ");
		json_num(f, s->geomean);
		fprintf(f, ", \"n_compared\": %zu, \"faster\": %zu, \"slower\": %zu}", s->compared,
			s->faster, s->slower);
	}
	fprintf(f, "\n  ]");
}

struct json_ctx {
	const struct ft_compare *c;
	const struct ft_run *run;
};

/* The compare members of the document, after the regular ones. */
static void json_section(FILE *f, void *ctx)
{
	const struct json_ctx *j = ctx;

	json_settings(f, j->c, j->run);
	json_hygiene(f, j->c);
	json_variants(f, j->c);
	json_stats(f, j->c, j->run);
	json_pairs(f, j->c);
	json_summary(f, j->c);
	if (j->c->attr)
		cmp_attr_json(f, j->c);
}

void cmp_report_json(FILE *f, const struct ft_compare *c, struct ft_run *run)
{
	struct json_ctx j = {.c = c, .run = run};

	ft_report_json(f, run, json_section, &j);
}

/* ---------- Go benchmark format ---------- */

/* Read s of cell (v, i): its name, the compared metric first, then the others. */
static void bench_line(FILE *f, const struct ft_compare *c, const struct ft_run *run, int v,
		       size_t i, size_t s)
{
	static const char *const unit[FT_METRIC_NR] = {
		"kernel-ns/op", "compute-ns/op", "format-ns/op", "copy-ns/op",
		"user-ns/op",	"counter/op",	 "oncpu-ns/op"};
	const struct raw_cell *r = &c->raw[(size_t)v * c->nn + i];
	const char *event = ft_counters_first_event(run->counters);
	int m;

	if (c->o.kind == FT_CMP_FORMATS)
		fprintf(f, "BenchmarkFibRead/algo=%s/format=%s/n=%" PRIu64, var_algo(&c->var[v]),
			c->var[v].label, nth(c, i));
	else if (c->o.kind == FT_CMP_BUILDS)
		fprintf(f, "BenchmarkFibRead/algo=%s/build=%s/n=%" PRIu64, var_algo(&c->var[v]),
			c->var[v].label, nth(c, i));
	else
		fprintf(f, "BenchmarkFibRead/algo=%s/n=%" PRIu64, c->var[v].label, nth(c, i));
	if (c->o.metric == FT_METRIC_COUNTER)
		fprintf(f, " 1 %.0f %s/op", r->v[c->o.metric][s], event);
	else
		fprintf(f, " 1 %.0f ns/op", r->v[c->o.metric][s]);
	for (m = 0; m < FT_METRIC_NR; m++) {
		if (m == (int)c->o.metric)
			continue;
		if (m == FT_METRIC_COUNTER) {
			if (event)
				fprintf(f, " %.0f %s/op", r->v[m][s], event);
			continue;
		}
		fprintf(f, " %.0f %s", r->v[m][s], unit[m]);
	}
	fputc('\n', f);
}

void cmp_report_benchfmt(FILE *f, const struct ft_compare *c, const struct ft_run *run)
{
	size_t i, s;
	int v, h;

	/* Configuration lines ("key: value") that benchstat carries along. */
	fprintf(f, "goos: linux\n");
#if defined(__x86_64__)
	fprintf(f, "goarch: amd64\n");
#endif
	fprintf(f, "pkg: fibdrv\nkernel: %s\nfibtrace-metric: %s\nfibtrace-baseline: %s\n",
		run->kernel, ft_cmp_metric_name(c->o.metric), c->var[c->base].label);
	for (h = 0; h < c->nhy; h++)
		fprintf(f, "hygiene-%s: %s %s\n", c->hy[h].name,
			cmp_hy_status_name(c->hy[h].status), c->hy[h].detail);
	/* Every matched read, before outlier removal: benchstat does its own statistics. */
	for (v = 0; v < c->nv; v++)
		for (i = 0; i < c->nn; i++)
			for (s = 0; s < c->raw[(size_t)v * c->nn + i].count; s++)
				bench_line(f, c, run, v, i, s);
}
