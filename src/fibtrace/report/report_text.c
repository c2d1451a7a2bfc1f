// SPDX-License-Identifier: GPL-2.0
/*
 * The text report: a header line, funclatency-style histograms with a
 * summary line per function, the function table, the per-n table with its
 * breakdown, copy throughput per size, the loss counters. Function
 * percentiles come from the histogram buckets; per-n statistics from the
 * per-read records (aggregate.h says how).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachesim/cachesim.h"
#include "fmt.h"
#include "model/aggregate.h"
#include "model/tree.h"
#include "report.h"
#include "report_int.h"
#include "symbols/ksyms.h"

static void fmt_ns_u64(char *buf, size_t size, __u64 ns)
{
	fmt_ns(buf, size, (double)ns, FMT_NS_COARSE);
}

/* One mode's calibrated cost: at start-up, and over a sweep's recalibrations. */
static void text_cost(FILE *f, enum ft_mode m, const struct ft_cost *k,
		      const struct ft_cost_context *x)
{
	char a[32], b[32], c[32], d[32];

	fmt_ns(a, sizeof(a), k->warm.full_ns, FMT_NS_SIG4);
	fmt_ns(b, sizeof(b), k->cold.full_ns, FMT_NS_SIG4);
	fmt_ns(c, sizeof(c), (k->warm.full_ns + k->cold.full_ns) / 2 * k->ratio, FMT_NS_SIG4);
	fmt_ns(d, sizeof(d),
	       fabs(k->cold.full_ns - k->warm.full_ns) * k->ratio + k->ctx_err +
		       FT_COST_CALL_SPREAD * (k->warm.full_ns + k->cold.full_ns) / 2 * k->ratio,
	       FMT_NS_SIG4);
	fprintf(f, "  a traced %s call costs its caller %s warm, %s cold besides its programs",
		ft_mode_name(m), a, b);
	if (x->done && x->mode == m) {
		fmt_ns(a, sizeof(a), x->full_ns, FMT_NS_SIG4);
		fmt_ns(b, sizeof(b), x->read_in_ns, FMT_NS_SIG4);
		fprintf(f, ", %s in context (x%.2f: %sF(%llu), %.0f calls", a, k->ratio,
			x->reads ? "reads of " : "", (unsigned long long)x->n, x->calls);
		fprintf(f, x->reads ? " each; fib_read's own %s)" : ")", b);
	}
	fprintf(f, ": %s subtracted per call besides that, error bound +-%s (± columns)\n", c,
		d);
	if (k->tail_valid) {
		fmt_ns(a, sizeof(a), k->tail_out_ns, FMT_NS_SIG4);
		fmt_ns(b, sizeof(b), k->tail_in_ns, FMT_NS_SIG4);
		fprintf(f,
			"    a call and its tail call return together: %s less to the caller's "
			"caller, %s less inside the caller (fibdrv_calib2)\n",
			a, b);
	}
	if (!k->recals)
		return;
	fmt_ns(a, sizeof(a), k->run_full_min, FMT_NS_SIG4);
	fmt_ns(b, sizeof(b), k->run_full_max, FMT_NS_SIG4);
	fmt_ns(c, sizeof(c), k->full_ns, FMT_NS_SIG4);
	fmt_ns(d, sizeof(d), k->full_err, FMT_NS_SIG4);
	fprintf(f,
		"    recalibrated %u times during the sweep: subtracted %s to %s, the last %s "
		"+-%s (spread + drift)\n",
		k->recals, a, b, c, d);
}

/*
 * What the traced calls' programs timed of themselves, per call (bpf/fibtrace.h:
 * ft_func_stats.probe_ns): subtracted as measured, beside the calibrated cost.
 */
static double probe_per_call(const struct ft_targets *tg)
{
	double probe = 0, calls = 0;
	int i;

	for (i = 0; i < tg->count; i++) {
		probe += (double)tg->t[i].st.probe_ns;
		calls += (double)tg->t[i].st.count;
	}
	return calls ? probe / calls : 0;
}

/* Whether figures are compensated, with what costs (calibrate.h). */
static void text_overhead(FILE *f, const struct ft_run *run)
{
	const struct ft_overhead *o = &run->overhead;
	char a[32];
	int m;

	if (!o->on) {
		fprintf(f, "times are raw: each includes fibtrace's own cost for every traced call "
			   "inside it\n");
		return;
	}
	fprintf(f, "times marked * are compensated for fibtrace's own cost "
		   "(fibtrace(8), COMPENSATION); JSON has both\n");
	fmt_ns(a, sizeof(a), probe_per_call(run->targets), FMT_NS_SIG4);
	fprintf(f, "  programs timed themselves: %s a call on average, subtracted as measured; "
		   "calibrated:\n", a);
	for (m = FT_MODE_FENTRY; m < FT_MODE_NR; m++)
		if (o->mode[m].valid && o->mode[m].funcs)
			text_cost(f, m, &o->mode[m], &o->ctx);
}

/*
 * The default header, three lines: the kernel and the clock; what was traced
 * and driven; what the * figures subtract. --all prints the long one.
 */
static void text_header_short(FILE *f, const struct ft_run *run)
{
	const struct ft_targets *tg = run->targets;
	const struct ft_overhead *o = &run->overhead;
	const struct ft_cost *k = NULL;
	char a[32], b[32], c[32];
	int m;

	fprintf(f, "fibtrace: kernel %s, clock %s\n", run->kernel, ft_run_clock_desc(run));
	fprintf(f, "%d functions by %s, %s", tg->count,
		run->startup.plan ? run->startup.plan : "fentry", run->run_mode);
	if (run->sweep)
		fprintf(f, " %" PRIu64 ":%" PRIu64 ":%" PRIu64 " x%u, %" PRIu64 " reads",
			(uint64_t)run->first, (uint64_t)run->last, (uint64_t)run->step, run->repeat,
			(uint64_t)run->reads_issued);
	fprintf(f, ", %.2fs (started in %.2fs)\n", run->seconds, run->startup.total_s);
	for (m = FT_MODE_FENTRY; m < FT_MODE_NR && o->on; m++)
		if (o->mode[m].valid && o->mode[m].funcs && !k)
			k = &o->mode[m];
	if (!k) {
		fprintf(f, "times are raw: each includes fibtrace's own cost for the traced calls "
			   "inside it\n");
		return;
	}
	fmt_ns(a, sizeof(a), probe_per_call(tg), FMT_NS_SIG4);
	fmt_ns(b, sizeof(b), k->full_ns, FMT_NS_SIG4);
	fmt_ns(c, sizeof(c), k->full_err, FMT_NS_SIG4);
	fprintf(f,
		"* compensated: per call %s its programs timed + %s calibrated, +-%s (--all: how)\n",
		a, b, c);
}

static void text_header(FILE *f, const struct ft_run *run)
{
	const struct ft_targets *tg = run->targets;
	const struct ft_startup *su = &run->startup;
	const char *symbols = su->symbols ? su->symbols : "kernel";
	char from[128];
	int by[FT_MODE_NR], nn;

	if (!run->all) {
		text_header_short(f, run);
		return;
	}
	ft_attach_counts(tg, by, &nn);
	fprintf(f, "fibtrace: kernel %s, clock %s, clocksource %s\n", run->kernel,
		ft_run_clock_desc(run), run->clocksource);
	fprintf(f, "%d functions (fentry %d, kprobe %d, ", tg->count, by[FT_MODE_FENTRY],
		by[FT_MODE_KPROBE]);
	if (by[FT_MODE_MULTI])
		fprintf(f, "kprobe.multi %d, ", by[FT_MODE_MULTI]);
	fprintf(f, "untraceable %d), %s", nn, run->run_mode);
	if (run->cpu >= 0)
		fprintf(f, ", cpu %d", run->cpu);
	if (run->sweep)
		fprintf(f, ", sweep %" PRIu64 ":%" PRIu64 ":%" PRIu64 " x%u, %" PRIu64 " reads",
			(uint64_t)run->first, (uint64_t)run->last, (uint64_t)run->step, run->repeat,
			(uint64_t)run->reads_issued);
	fprintf(f, ", %.2fs\n", run->seconds);
	if (su->plan) {
		if (!strcmp(symbols, "cache"))
			snprintf(from, sizeof(from), "from %s", FT_KSYMS_CACHE_DIR);
		else
			snprintf(from, sizeof(from), "read from the %s", symbols);
		fprintf(f,
			"attach plan %s (%s): %d programs; started in %.2fs (discover %.2f with "
			"symbols %s, load %.2f, attach %.2f, calibrate %.2f)",
			su->plan, su->reason, su->programs, su->total_s, su->discover_s, from,
			su->load_s, su->attach_s, su->calibrate_s);
		/* Printed before the detach (main.c): its time goes to stderr after it. */
		if (su->detach_s >= 0)
			fprintf(f, ", detached in %.2fs", su->detach_s);
		fputc('\n', f);
	}
	text_overhead(f, run);
}

static void text_hists(FILE *f, const struct ft_run *run, enum ft_hists hists)
{
	const struct ft_targets *tg = run->targets;
	bool comp = run->overhead.on;
	char a[32], b[32], c[32], d[32];
	struct ft_func_fig x;
	int k;

	for (k = 0; k < tg->count && hists != FT_HISTS_NONE; k++) {
		const struct ft_target *t = &tg->t[k];

		/* Without fibdrv the -f functions stand in for fib_read. */
		if (!t->attached || !t->st.count ||
		    (hists == FT_HISTS_READ && t->slot != FT_SLOT_READ && !tg->no_module))
			continue;
		ft_func_figures(&run->hist, &t->st, comp, &x);
		fmt_ns_u64(a, sizeof(a), x.avg);
		fmt_ns_u64(b, sizeof(b), x.p50);
		fmt_ns_u64(c, sizeof(c), x.p90);
		fmt_ns_u64(d, sizeof(d), x.p99);
		fprintf(f,
			"\n%s%s%s [%s]: count %" PRIu64
			", avg%s %s, p50%s %s, p90%s %s, p99%s %s%s\n",
			t->module[0] ? t->module : "", t->module[0] ? ":" : "", t->name,
			ft_attach_name(t), (uint64_t)t->st.count, comp ? "*" : "", a,
			comp ? "*" : "", b, comp ? "*" : "", c, comp ? "*" : "", d,
			comp && run->all ? " (compensated)" : "");
		ft_text_hist(f, &run->hist, comp ? t->st.comp_hist : t->st.hist);
	}
}

/* The default tables' columns (100 at most); --all: func_head's. */
static void func_head_short(FILE *f, const struct ft_run *run)
{
	const char *s = run->overhead.on ? "*" : "";

	fprintf(f, "%-28s %8s %9s%s %9s%s %8s%s %8s%s %9s\n", "function", "count", "total", s,
		"self", s, "avg", s, "p99", s, run->overhead.on ? "raw avg" : "max");
}

static void func_row_short(FILE *f, const struct ft_run *run, const struct ft_target *t)
{
	const struct ft_func_stats *s = &t->st;
	bool comp = run->overhead.on;
	char a[32], b[32], c[32], d[32], e[32];
	struct ft_func_fig x, raw;

	ft_func_figures(&run->hist, s, comp, &x);
	ft_func_figures(&run->hist, s, false, &raw);
	fmt_ns_u64(a, sizeof(a), x.total);
	fmt_ns_u64(b, sizeof(b), x.self);
	fmt_ns_u64(c, sizeof(c), x.avg);
	fmt_ns_u64(d, sizeof(d), x.p99);
	fmt_ns_u64(e, sizeof(e), comp ? raw.avg : s->max_ns);
	fprintf(f, "%-28.28s %8" PRIu64 " %10s %10s %9s %9s %9s\n", t->name, (uint64_t)s->count, a,
		b, c, d, e);
}

static void func_head(FILE *f, const struct ft_run *run)
{
	if (!run->all) {
		func_head_short(f, run);
		return;
	}
	if (run->overhead.on)
		fprintf(f, "%-28s %-6s %10s %10s %10s %9s %9s %9s %9s %9s\n", "function", "attach",
			"count", "total*", "self*", "avg*", "±avg", "p50*", "p99*", "raw avg");
	else
		fprintf(f, "%-28s %-6s %10s %10s %10s %9s %9s %9s %9s %9s\n", "function", "attach",
			"count", "total", "self", "avg", "p50", "p99", "min", "max");
}

static void func_row(FILE *f, const struct ft_run *run, const struct ft_target *t)
{
	const struct ft_func_stats *s = &t->st;
	bool comp = run->overhead.on;
	char a[32], b[32], c[32], col[4][32];
	struct ft_func_fig x, raw;
	int j = 0;

	if (!run->all) {
		func_row_short(f, run, t);
		return;
	}
	ft_func_figures(&run->hist, s, comp, &x);
	ft_func_figures(&run->hist, s, false, &raw);
	fmt_ns_u64(a, sizeof(a), x.total);
	fmt_ns_u64(b, sizeof(b), x.self);
	fmt_ns_u64(c, sizeof(c), x.avg);
	/* Compensated: ±avg p50* p99* raw-avg; raw: p50 p99 min max. */
	if (comp)
		fmt_ns_u64(col[j++], sizeof(col[0]), s->count ? s->comp_err_ns / s->count : 0);
	fmt_ns_u64(col[j++], sizeof(col[0]), x.p50);
	fmt_ns_u64(col[j++], sizeof(col[0]), x.p99);
	fmt_ns_u64(col[j++], sizeof(col[0]), comp ? raw.avg : s->min_ns);
	if (!comp)
		fmt_ns_u64(col[j++], sizeof(col[0]), s->max_ns);
	fprintf(f, "%-28s %-6s %10" PRIu64 " %10s %10s %9s %9s %9s %9s %9s\n", t->name,
		ft_attach_name(t), (uint64_t)s->count, a, b, c, col[0], col[1], col[2], col[3]);
}

static bool func_listed(const struct ft_target *t)
{
	return t->attached || t->unavailable;
}

static const struct ft_run *hot_run; /* qsort has no context argument */

static int cmp_self(const void *x, const void *y)
{
	const struct ft_target *a = *(const struct ft_target *const *)x;
	const struct ft_target *b = *(const struct ft_target *const *)y;
	bool comp = hot_run->overhead.on;
	__u64 sa = comp ? a->st.comp_self_ns : a->st.self_ns;
	__u64 sb = comp ? b->st.comp_self_ns : b->st.self_ns;

	return sa != sb ? (sa > sb ? -1 : 1) : strcmp(a->name, b->name);
}

#define TEXT_HOT_FUNCS 5 /* functions in the default report's hottest list */

/*
 * Calls whose compensated duration or self time came out below 0 and were
 * clamped (the subtraction is a calibrated estimate, the call measured less):
 * said, with the first four functions, so that no 0 passes for a measurement.
 */
static void text_clamped(FILE *f, const struct ft_run *run)
{
	const struct ft_targets *tg = run->targets;
	__u64 total = 0;
	int k, funcs = 0, named = 0;

	for (k = 0; k < tg->count; k++) {
		total += tg->t[k].st.comp_clamped;
		funcs += tg->t[k].st.comp_clamped > 0;
	}
	if (!run->overhead.on || !total)
		return;
	if (!run->all) {
		fprintf(f,
			"clamped at 0: %" PRIu64 " calls of %d functions measured less than the "
			"cost subtracted (--all: which)\n",
			(uint64_t)total, funcs);
		return;
	}
	fprintf(f,
		"clamped at 0: %" PRIu64 " calls of %d functions measured less than the cost "
		"subtracted from them (",
		(uint64_t)total, funcs);
	for (k = 0; k < tg->count && named < 4; k++) {
		const struct ft_func_stats *s = &tg->t[k].st;

		if (s->comp_clamped)
			fprintf(f, "%s%s %" PRIu64 " of %" PRIu64, named++ ? ", " : "",
				tg->t[k].name, (uint64_t)s->comp_clamped, (uint64_t)s->count);
	}
	fprintf(f,
		"%s): there the estimate of tracing's cost, not the call, is wrong; their * "
		"figures count those calls as 0, the raw ones with tracing's cost "
		"(fibtrace(8), COMPENSATION)\n",
		funcs > 4 ? ", ..." : "");
}

/* Every function (--all), or the read path and the hottest others by self time. */
static void text_functions(FILE *f, const struct ft_run *run)
{
	const struct ft_targets *tg = run->targets;
	const struct ft_target *hot[FT_MAX_SLOTS];
	int k, nhot = 0, shown;

	if (tg->no_module)
		fprintf(f, "\nfibdrv not loaded, no read path; the -f functions:\n");
	else
		fprintf(f, "\n%s:\n", run->all ? "every traced function" : "the read path");
	func_head(f, run);
	for (k = 0; k < tg->count; k++) {
		const struct ft_target *t = &tg->t[k];

		if (!func_listed(t) || (tg->no_module && t->slot < FT_FIXED_SLOTS))
			continue;
		if (run->all || tg->no_module || t->slot < FT_FIXED_SLOTS)
			func_row(f, run, t);
		else if (t->st.count)
			hot[nhot++] = t;
	}
	if (run->all || !nhot) {
		text_clamped(f, run);
		return;
	}
	hot_run = run;
	qsort(hot, nhot, sizeof(hot[0]), cmp_self);
	shown = nhot < TEXT_HOT_FUNCS ? nhot : TEXT_HOT_FUNCS;
	fprintf(f,
		"\nhottest functions by self time (%d of the %d called; --all: every function):\n",
		shown, nhot);
	func_head(f, run);
	for (k = 0; k < shown; k++)
		func_row(f, run, hot[k]);
	text_clamped(f, run);
}

#define TEXT_PERN_ROWS 12 /* rows of the default report's per-n table */

/*
 * A row of the default per-n table: seven columns. A compensated median
 * whose error bound reaches it is not a number to read: shown as "?".
 */
static void pern_row_short(FILE *f, const struct ft_run *run, const struct ft_pern *r)
{
	bool comp = run->overhead.on;
	const struct ft_pern_fig *x = comp ? &r->comp : &r->raw;
	char a[32], d[32], e[32], g[32], m[32];

	fmt_ns_u64(a, sizeof(a), x->median);
	if (comp && ft_pern_unresolved(r))
		snprintf(a, sizeof(a), "?");
	fmt_ns_u64(d, sizeof(d), x->compute);
	fmt_ns_u64(e, sizeof(e), x->format);
	fmt_ns_u64(g, sizeof(g), x->copy);
	fmt_ns_u64(m, sizeof(m), r->raw.median);
	fprintf(f, "%-20.20s %8" PRIu64 " %9s %9s %9s %9s %9s\n", ft_algo_name(run, r->algo),
		(uint64_t)r->n, a, d, e, g, m);
}

static void text_pern(FILE *f, struct ft_run *run)
{
	char a[32], b[32], c[32], d[32], e[32], g[32], h[32], m[32], x_err[32];
	bool comp = run->overhead.on;
	const char *star = comp ? "*" : "";
	const struct ft_pern *rows;
	size_t nrows = ft_pern_rows(run, &rows), i, k, shown = nrows, unresolved = 0;

	if (!run->all && nrows > TEXT_PERN_ROWS)
		shown = TEXT_PERN_ROWS;
	if (nrows) {
		fprintf(f,
			"\nfib_read per n (exact, from %zu read records; breakdown = medians):\n",
			run->nrecs);
		if (run->recs_dropped)
			fprintf(f,
				"(%" PRIu64 " later reads not kept, --max-records %zu: in the "
				"histograms above, not in this table)\n",
				(uint64_t)run->recs_dropped, run->max_recs);
		if (shown < nrows)
			fprintf(f,
				"(%zu of %zu rows, evenly spaced; --all: every row, JSON "
				"per_n[])\n",
				shown, nrows);
		if (!run->all)
			fprintf(f, "%-20s %8s %8s%s %8s%s %8s%s %8s%s %9s\n", "algo", "n", "median",
				star, "compute", star, "format", star, "copy", star, "raw med");
		else
			fprintf(f,
				"%-22s %8s %6s %8s%s %9s %8s%s %8s%s %8s%s %8s%s %8s%s %8s%s %9s "
				"%7s\n",
				"algo", "n", "count", "median", star, comp ? "±" : "", "p90", star,
				"p99", star, "compute", star, "format", star, "copy", star, "rest",
				star, "raw med", "calls");
	}
	for (k = 0; k < shown; k++) {
		const struct ft_pern *r;
		const struct ft_pern_fig *x;

		i = shown < nrows ? k * (nrows - 1) / (shown - 1) : k;
		r = &rows[i];
		x = comp ? &r->comp : &r->raw;
		if (!run->all) {
			pern_row_short(f, run, r);
			continue;
		}

		fmt_ns_u64(a, sizeof(a), x->median);
		fmt_ns_u64(b, sizeof(b), x->p90);
		fmt_ns_u64(c, sizeof(c), x->p99);
		fmt_ns_u64(d, sizeof(d), x->compute);
		fmt_ns_u64(e, sizeof(e), x->format);
		fmt_ns_u64(g, sizeof(g), x->copy);
		fmt_ns_u64(h, sizeof(h), x->rest);
		fmt_ns_u64(m, sizeof(m), r->raw.median);
		x_err[0] = 0;
		if (comp)
			fmt_ns_u64(x_err, sizeof(x_err), r->comp_err);
		fprintf(f,
			"%-22s %8" PRIu64 " %6" PRIu64
			" %9s %9s %9s %9s %9s %9s %9s %9s %9s %7" PRIu64 "\n",
			ft_algo_name(run, r->algo), (uint64_t)r->n, (uint64_t)r->count, a, x_err, b,
			c, d, e, g, h, m, (uint64_t)r->calls);
	}
	for (i = 0; comp && i < nrows; i++)
		unresolved += ft_pern_unresolved(&rows[i]);
	if (unresolved && !run->all)
		fprintf(f,
			"%zu of %zu rows are not resolved: ? where the bound (--all: ±) reaches "
			"the "
			"median*\n",
			unresolved, nrows);
	else if (unresolved)
		fprintf(f,
			"%zu of %zu rows are not resolved (± at least the median*): tracing cost "
			"their reads more than the work it measured; trace fewer functions "
			"(--no-discover, -f) for those n (fibtrace(8), COMPENSATION)\n",
			unresolved, nrows);
}

static void text_copies(FILE *f, const struct ft_run *run)
{
	struct ft_copy_row *copies;
	size_t ncopies = ft_copy_build(run, &copies), i;
	size_t step = ncopies > 20 ? ncopies / 20 : 1;
	char a[32];

	if (ncopies) {
		fprintf(f, "\ncopy to user space (fibdrv_copy) per size (%zu sizes%s):\n", ncopies,
			step > 1 ? ", sampled" : "");
		fprintf(f, "%10s %8s %10s %10s\n", "bytes", "calls", "avg", "MB/s");
	}
	for (i = 0; i < ncopies; i += step) {
		const struct ft_copy_row *r = &copies[i];
		double avg = (double)r->ns / r->count;

		fmt_ns_u64(a, sizeof(a), (__u64)avg);
		fprintf(f, "%10" PRIu64 " %8" PRIu64 " %10s %10.1f\n", (uint64_t)r->bytes,
			(uint64_t)r->count, a, avg > 0 ? r->bytes * 1e3 / avg : 0.0);
	}
	free(copies);
}

/* Calls whose end was not seen (ft_func_open()), when there are any: first four named. */
static void text_open(FILE *f, const struct ft_run *run)
{
	const struct ft_targets *tg = run->targets;
	__u64 total = 0, open;
	int k, named = 0;

	for (k = 0; k < tg->count; k++)
		total += ft_func_open(&tg->t[k].st);
	if (!total)
		return;
	fprintf(f, "open: %" PRIu64 " calls (", (uint64_t)total);
	for (k = 0; k < tg->count; k++) {
		open = ft_func_open(&tg->t[k].st);
		if (!open || named == 4)
			continue;
		fprintf(f, "%s%s %" PRIu64, named++ ? ", " : "", tg->t[k].name, (uint64_t)open);
	}
	fprintf(f,
		"%s) entered with no traced call below them and not ended: still running, "
		"or their exit was lost on a task that never entered a traced function again; "
		"not in the figures (JSON functions[].roots)\n",
		named == 4 && total > 4 ? ", ..." : "");
}

/* Every loss counter (--all), or those that are not 0. */
static void text_lost(FILE *f, const struct ft_run *run)
{
	int k, shown = 0;

	fprintf(f, "\nlost:");
	for (k = 0; k < FT_LOST_NR; k++) {
		if (!run->all && !run->lost[k])
			continue;
		fprintf(f, " %s %" PRIu64, ft_lost_names[k], (uint64_t)run->lost[k]);
		shown++;
	}
	if (run->all || run->recs_dropped) {
		fprintf(f, " records_dropped %" PRIu64, (uint64_t)run->recs_dropped);
		shown++;
	}
	if (!run->all)
		fprintf(f, shown ? " (the other counters 0)" : " nothing (every loss counter 0)");
	fprintf(f, " recursion_misses %" PRIu64 " (deepest call stack %u of %d)\n",
		(uint64_t)run->recursion_misses, run->max_depth, FT_STACK_DEPTH);
	text_open(f, run);
}

/* Time the traced calls spent switched out (sched_switch): waiting, not working. */
static void text_off_cpu(FILE *f, const struct ft_run *run)
{
	const struct ft_targets *tg = run->targets;
	const struct ft_func_stats *rd = NULL;
	char a[32], b[32];
	size_t i, switched = 0;
	int k;

	if (!run->off_cpu)
		return; /* not asked for (--off-cpu), or the kernel cannot: warned */
	for (k = 0; k < tg->count; k++)
		if (tg->t[k].slot == FT_SLOT_READ)
			rd = &tg->t[k].st;
	for (i = 0; i < run->nrecs; i++)
		switched += run->recs[i].switches != 0;
	if (!rd || !rd->off_ns) {
		fprintf(f, "off-CPU: none (no read was switched out)\n");
		return;
	}
	fmt_ns(a, sizeof(a), rd->off_ns, FMT_NS_SIG4);
	fmt_ns(b, sizeof(b), rd->total_ns, FMT_NS_SIG4);
	fprintf(f,
		"off-CPU: fib_read switched out %s of its %s (%.1f%%), in %zu of %zu reads: "
		"waiting, not working (JSON off_cpu)\n",
		a, b, 100.0 * rd->off_ns / (rd->total_ns ? rd->total_ns : 1), switched, run->nrecs);
}

void ft_report_text(FILE *f, struct ft_run *run, enum ft_hists hists)
{
	text_header(f, run);
	text_hists(f, run, hists);
	text_functions(f, run);
	ft_counters_text(f, run);
	if (run->tree_full || run->all)
		ft_tree_text(f, run);
	text_pern(f, run);
	ft_counters_text_pern(f, run);
	if (run->all)
		text_copies(f, run);
	text_lost(f, run);
	text_off_cpu(f, run);
	if (run->read_errors)
		fprintf(f, "read errors: %" PRIu64 "\n", (uint64_t)run->read_errors);
	if (run->sim)
		ft_sim_text_join(f, run);
}
