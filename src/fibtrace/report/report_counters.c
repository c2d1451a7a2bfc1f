// SPDX-License-Identifier: GPL-2.0
/*
 * The counters (-e) in the reports: the text tables, the JSON members and
 * the CSV columns, per function and per (algo, n); values per call, scaled
 * by enabled/running time when the PMU multiplexed, with derived ratios
 * (IPC, branch-miss and cache-miss rates). docs/counters.md.
 */
#include <inttypes.h>
#include <string.h>

#include "model/aggregate.h"
#include "report.h"

static const char *const status_names[FT_CNT_STATUS_NR] = {
	"none", "kept", "migrated", "read_failed", "switched",
};

/* ---------- values: scaling, per call, derived ratios ---------- */

static int index_of(const struct ft_counters *c, const char *name)
{
	int e;

	for (e = 0; e < c->nev; e++)
		if (!strcmp(c->req[c->by_index[e]].def->name, name))
			return e;
	return -1;
}

static const char *ev_name(const struct ft_counters *c, int e)
{
	return c->req[c->by_index[e]].def->name;
}

/* num/den of two events' scaled sums; false when one is missing or den is 0. */
static bool ratio(const struct ft_counters *c, const struct ft_cnt_delta *sum, const char *num,
		  const char *den, double *out)
{
	int a = index_of(c, num), b = index_of(c, den);
	double d;

	if (a < 0 || b < 0)
		return false;
	d = ft_cnt_scaled(&sum[b]);
	if (d <= 0)
		return false;
	*out = ft_cnt_scaled(&sum[a]) / d;
	return true;
}

static const struct {
	const char *key, *label, *num, *den;
	double mult;
} derived[] = {
	{"ipc", "IPC", "instructions", "cycles", 1},
	{"branch_miss_pct", "br-miss%", "branch-misses", "branches", 100},
	{"cache_miss_pct", "cache-miss%", "cache-misses", "cache-references", 100},
};
#define NDERIVED (sizeof(derived) / sizeof(derived[0]))

static bool active(const struct ft_run *run)
{
	return run->counters && run->counters->nreq;
}

/* ---------- text ---------- */

static void fmt_count(char *buf, size_t len, double v, const struct ft_cnt_delta *d)
{
	int n = v < 100 ? snprintf(buf, len, "%.2f", v) : snprintf(buf, len, "%.0f", v);

	if (d && d->running < d->enabled && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (%.0f%%)", ft_cnt_running_pct(d));
}

void ft_counters_text(FILE *f, struct ft_run *run)
{
	const struct ft_counters *c = run->counters;
	struct ft_targets *tg = run->targets;
	unsigned int d;
	int k, e;

	if (!active(run))
		return;
	fprintf(f, "\ncounters:");
	for (k = 0; k < c->nreq; k++) {
		const struct ft_counter_ev *ev = &c->req[k];

		fprintf(f, "%s %s (%s, %s", k ? "," : "", ev->def->name,
			ev->def->hardware ? "hardware" : "software",
			ev->index < 0 ? "not available" : "counting");
		if (ev->index >= 0 && ev->whole.running < ev->whole.enabled)
			fprintf(f, " %.0f%% of the time", ft_cnt_running_pct(&ev->whole));
		fputc(')', f);
	}
	fputc('\n', f);
	if (!c->nev)
		return;
	fprintf(f, "per call, callees included; kept = same CPU at entry and exit, reads ok, "
		   "no context switch (%%: multiplexed, scaled):\n");
	fprintf(f, "%-28s %9s %9s", "function", "kept", "discarded");
	for (e = 0; e < c->nev; e++)
		fprintf(f, " %14s", ev_name(c, e));
	for (d = 0; d < NDERIVED; d++)
		if (index_of(c, derived[d].num) >= 0 && index_of(c, derived[d].den) >= 0)
			fprintf(f, " %11s", derived[d].label);
	fputc('\n', f);
	for (k = 0; k < tg->count; k++) {
		const struct ft_target *t = &tg->t[k];
		const struct ft_cnt_stats *s = &t->cnt;

		if (!t->attached || (!s->kept && !ft_cnt_discarded_total(s)))
			continue;
		fprintf(f, "%-28s %9" PRIu64 " %9" PRIu64, t->name, (uint64_t)s->kept,
			(uint64_t)ft_cnt_discarded_total(s));
		for (e = 0; e < c->nev; e++) {
			char buf[40];
			double v = ft_cnt_scaled(&s->sum[e]);

			fmt_count(buf, sizeof(buf), s->kept ? v / s->kept : 0, &s->sum[e]);
			fprintf(f, " %14s", buf);
		}
		for (d = 0; d < NDERIVED; d++) {
			double r;

			if (index_of(c, derived[d].num) < 0 || index_of(c, derived[d].den) < 0)
				continue;
			if (ratio(c, s->sum, derived[d].num, derived[d].den, &r))
				fprintf(f, " %11.2f", r * derived[d].mult);
			else
				fprintf(f, " %11s", "-");
		}
		fputc('\n', f);
	}
}

void ft_counters_text_pern(FILE *f, struct ft_run *run)
{
	const struct ft_counters *c = run->counters;
	size_t i;
	int e;

	if (!active(run) || !c->nev || !run->nrecs)
		return;
	fprintf(f, "\nfib_read counters per n (mean per kept read):\n");
	fprintf(f, "%-22s %8s %6s %9s", "algo", "n", "kept", "discarded");
	for (e = 0; e < c->nev; e++)
		fprintf(f, " %14s", ev_name(c, e));
	fputc('\n', f);
	for (i = 0; i < run->nrecs;) {
		const struct ft_read_rec *x = &run->recs[i];
		struct ft_pern_cnt p;
		size_t j = i;

		ft_pern_counters(run, x->algo, x->n, &p);
		fprintf(f, "%-22s %8" PRIu64 " %6" PRIu64 " %9" PRIu64, ft_algo_name(run, x->algo),
			(uint64_t)x->n, (uint64_t)p.kept, (uint64_t)p.discarded);
		for (e = 0; e < c->nev; e++) {
			char buf[40];
			double v = ft_cnt_scaled(&p.sum[e]);

			fmt_count(buf, sizeof(buf), p.kept ? v / p.kept : 0, &p.sum[e]);
			fprintf(f, " %14s", buf);
		}
		fputc('\n', f);
		while (j < run->nrecs && run->recs[j].algo == x->algo && run->recs[j].n == x->n)
			j++;
		i = j;
	}
}

/* ---------- JSON ---------- */

static void json_events(FILE *f, const struct ft_counters *c, const struct ft_cnt_delta *sum,
			__u64 kept, const double *median)
{
	int e;

	fprintf(f, "\"counters\": {");
	for (e = 0; e < c->nev; e++) {
		double v = ft_cnt_scaled(&sum[e]);

		fprintf(f, "%s\"%s\": {\"total\": %.0f, \"raw\": %" PRIu64 ", \"per_call\": %.6g",
			e ? ", " : "", ev_name(c, e), v, (uint64_t)sum[e].value,
			kept ? v / kept : 0.0);
		if (median)
			fprintf(f, ", \"median\": %.6g", median[e]);
		fprintf(f, ", \"scaled\": %s, \"running_pct\": %.2f}",
			ft_cnt_is_scaled(&sum[e]) ? "true" : "false", ft_cnt_running_pct(&sum[e]));
	}
	fputc('}', f);
}

void ft_counters_json_meta(FILE *f, const struct ft_run *run)
{
	const struct ft_counters *c = run->counters;
	int k;

	if (!active(run))
		return;
	fprintf(f, ",\n    \"counters\": [");
	for (k = 0; k < c->nreq; k++) {
		const struct ft_counter_ev *ev = &c->req[k];

		fprintf(f, "%s{\"name\": \"%s\", \"kind\": \"%s\", \"available\": %s",
			k ? ", " : "", ev->def->name, ev->def->hardware ? "hardware" : "software",
			ev->index >= 0 ? "true" : "false");
		if (ev->index >= 0)
			fprintf(f, ", \"running_pct\": %.2f", ft_cnt_running_pct(&ev->whole));
		else
			fprintf(f, ", \"reason\": \"%s\"", ev->reason); /* explain(): no quotes */
		fputc('}', f);
	}
	fputc(']', f);
}

void ft_counters_json_func(FILE *f, const struct ft_run *run, const struct ft_target *t)
{
	const struct ft_counters *c = run->counters;
	const struct ft_cnt_stats *s = &t->cnt;
	unsigned int d;
	bool first = true;

	if (!active(run))
		return;
	fprintf(f,
		",\n      \"counter_calls\": %" PRIu64
		", \"counter_discarded\": {\"migrated\": %" PRIu64 ", \"read_failed\": %" PRIu64
		", \"switched\": %" PRIu64 "},\n      ",
		(uint64_t)s->kept, (uint64_t)s->discarded[FT_CNT_MIGRATED],
		(uint64_t)s->discarded[FT_CNT_READ_FAILED],
		(uint64_t)s->discarded[FT_CNT_SWITCHED]);
	json_events(f, c, s->sum, s->kept, NULL);
	fprintf(f, ", \"counter_derived\": {");
	for (d = 0; d < NDERIVED; d++) {
		double r;

		if (!ratio(c, s->sum, derived[d].num, derived[d].den, &r))
			continue;
		fprintf(f, "%s\"%s\": %.6g", first ? "" : ", ", derived[d].key,
			r * derived[d].mult);
		first = false;
	}
	fputc('}', f);
}

void ft_counters_json_pern(FILE *f, const struct ft_run *run, unsigned int algo, __u64 n)
{
	struct ft_pern_cnt p;

	if (!active(run))
		return;
	ft_pern_counters(run, algo, n, &p);
	fprintf(f, ", \"counter_reads\": %" PRIu64 ", \"counter_discarded\": %" PRIu64 ", ",
		(uint64_t)p.kept, (uint64_t)p.discarded);
	json_events(f, run->counters, p.sum, p.kept, p.median);
}

void ft_counters_json_rec(FILE *f, const struct ft_run *run, const struct ft_read_rec *x)
{
	const struct ft_counters *c = run->counters;
	int e;

	if (!active(run))
		return;
	fprintf(f, ", \"counter_status\": \"%s\"",
		status_names[x->cnt_status < FT_CNT_STATUS_NR ? x->cnt_status : 0]);
	if (x->cnt_status != FT_CNT_OK)
		return;
	fprintf(f, ", \"counters\": {");
	for (e = 0; e < c->nev; e++)
		fprintf(f,
			"%s\"%s\": {\"value\": %" PRIu64 ", \"enabled_ns\": %" PRIu64
			", \"running_ns\": %" PRIu64 "}",
			e ? ", " : "", ev_name(c, e), (uint64_t)x->cnt[e].value,
			(uint64_t)x->cnt[e].enabled, (uint64_t)x->cnt[e].running);
	fputc('}', f);
}

/* ---------- CSV: columns appended to the function and per-n rows ---------- */

void ft_counters_csv_func_head(FILE *f, const struct ft_run *run)
{
	const struct ft_counters *c = run->counters;
	int e;

	if (!active(run))
		return;
	fprintf(f, ",counter_calls,counter_discarded");
	for (e = 0; e < c->nev; e++)
		fprintf(f, ",%s_total,%s_per_call,%s_running_pct", ev_name(c, e), ev_name(c, e),
			ev_name(c, e));
}

static void csv_events(FILE *f, const struct ft_counters *c, const struct ft_cnt_delta *sum,
		       __u64 kept)
{
	int e;

	for (e = 0; e < c->nev; e++) {
		double v = ft_cnt_scaled(&sum[e]);

		fprintf(f, ",%.0f,%.6g,%.2f", v, kept ? v / kept : 0.0,
			ft_cnt_running_pct(&sum[e]));
	}
}

void ft_counters_csv_func(FILE *f, const struct ft_run *run, const struct ft_target *t)
{
	if (!active(run))
		return;
	fprintf(f, ",%" PRIu64 ",%" PRIu64, (uint64_t)t->cnt.kept,
		(uint64_t)ft_cnt_discarded_total(&t->cnt));
	csv_events(f, run->counters, t->cnt.sum, t->cnt.kept);
}

void ft_counters_csv_pern_head(FILE *f, const struct ft_run *run)
{
	if (!active(run))
		return;
	ft_counters_csv_func_head(f, run);
}

void ft_counters_csv_pern(FILE *f, const struct ft_run *run, unsigned int algo, __u64 n)
{
	struct ft_pern_cnt p;

	if (!active(run))
		return;
	ft_pern_counters(run, algo, n, &p);
	fprintf(f, ",%" PRIu64 ",%" PRIu64, (uint64_t)p.kept, (uint64_t)p.discarded);
	csv_events(f, run->counters, p.sum, p.kept);
}
