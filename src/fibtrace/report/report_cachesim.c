// SPDX-License-Identifier: GPL-2.0
/*
 * --cachesim's reports: the simulated events per read and per function
 * (text like cg_annotate's, hottest first; JSON; CSV; the plot of events per
 * read versus n, in plot.c), the join beside a kernel trace of the same
 * reads (compare/simulated.c has --compare algos --metric sim:EVENT).
 * Every figure here is simulated and says so. docs/counters.md explains
 * the fields.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cachesim/cachesim.h"
#include "fmt.h"
#include "model/aggregate.h"
#include "report.h"

/* A count in four significant digits: 987, 12.35k, 4.568M. */
const char *ft_sim_count(char *buf, size_t len, double v)
{
	static const char *const unit[] = {"", "k", "M", "G", "T"};
	int u = 0;

	while (fabs(v) >= 9999.5 && u < 4) {
		v /= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g%s", v, unit[u]);
	return buf;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

/* Derived rates: branch mispredictions over branches, L1 data misses over accesses. */
static double branch_miss_pct(const double *e)
{
	return pct(e[FT_SIM_BCM] + e[FT_SIM_BIM], e[FT_SIM_BC] + e[FT_SIM_BI]);
}

static double d1_miss_pct(const double *e)
{
	return pct(e[FT_SIM_D1MR] + e[FT_SIM_D1MW], e[FT_SIM_DR] + e[FT_SIM_DW]);
}

static void to_double(double *d, const __u64 *v)
{
	for (int e = 0; e < FT_SIM_NEV; e++)
		d[e] = v[e];
}

/* ---------- text ---------- */

void ft_sim_text_header(FILE *f, const struct ft_sim *sim)
{
	static const char *const lvl[3] = {"I1", "D1", "LL"};
	double run = sim->total[FT_SIM_IR];
	char b[32], c[32];
	int i, e;

	fprintf(f,
		"cachesim: SIMULATED events (%s, cache and branch simulators) of the user-space "
		"build of fibdrv's library, the sources of fibdrv.ko; not measured on this CPU\n",
		sim->tool);
	fprintf(f, "simulated caches (%s):",
		sim->host_geometry ? "Valgrind's choice from this "
				     "CPU, --cache-geometry host"
				   : "--cache-geometry");
	for (i = 0; i < 3; i++)
		fprintf(f, "%s %s %s", i ? ";" : "", lvl[i], sim->cache[i]);
	fprintf(f, "\nbranch predictor: Valgrind's (2-bit counters for conditional branches, a "
		   "table for indirect ones), not this CPU's\n");
	fprintf(f,
		"reads: %u algorithm%s x %u n x %u round%s = %u; simulated in %.2f s, natively "
		"%.3f s (%.0fx)\n",
		sim->nalgo, sim->nalgo > 1 ? "s" : "", sim->nn, sim->rounds,
		sim->rounds > 1 ? "s" : "", sim->reads, sim->sim_s, sim->native_s,
		sim->native_s > 0 ? sim->sim_s / sim->native_s : 0);
	fprintf(f,
		"Ir of the reads: the library's functions %.2f%%, outside them %.2f%% (the "
		"harness, malloc, memcpy); not in the reads: start-up and exit %s Ir, the warm-up "
		"round %s Ir\n",
		pct(sim->reads_lib[FT_SIM_IR],
		    sim->reads_lib[FT_SIM_IR] + sim->reads_out[FT_SIM_IR]),
		pct(sim->reads_out[FT_SIM_IR],
		    sim->reads_lib[FT_SIM_IR] + sim->reads_out[FT_SIM_IR]),
		ft_sim_count(b, sizeof(b),
			     run - sim->reads_lib[FT_SIM_IR] - sim->reads_out[FT_SIM_IR] -
				     sim->warmup[FT_SIM_IR]),
		ft_sim_count(c, sizeof(c), sim->warmup[FT_SIM_IR]));
	if (sim->rounds < 2) {
		fprintf(f, "deterministic: unchecked, one round per read (--repeat 2 or more "
			   "compares the rounds)\n");
		return;
	}
	fprintf(f, "deterministic:");
	for (e = 0; e < FT_SIM_NEV; e++)
		fprintf(f, " %s%s", ft_sim_event_name[e], ft_sim_exact(sim, e) ? "" : "~");
	fprintf(f,
		"  (every read identical in all %u rounds, but ~: varies across rounds, as the "
		"cache state a read starts from differs: medians shown, min and max in JSON)\n",
		sim->rounds);
}

static void text_cells(FILE *f, const struct ft_sim *sim)
{
	static const int col[] = {FT_SIM_IR,   FT_SIM_DR,   FT_SIM_DW,	 FT_SIM_D1MR,
				  FT_SIM_D1MW, FT_SIM_DLMR, FT_SIM_DLMW, FT_SIM_BC,
				  FT_SIM_BCM,  FT_SIM_BI,   FT_SIM_BIM};
	unsigned int a, j, c;
	char b[32];

	fprintf(f, "\nper read: the library's events (median over the rounds)\n%-22s %10s", "algo",
		"n");
	for (c = 0; c < sizeof(col) / sizeof(col[0]); c++)
		fprintf(f, " %8s", ft_sim_event_name[col[c]]);
	fprintf(f, " %8s %8s %10s\n", "br-miss%", "D1-miss%", "outside Ir");
	for (a = 0; a < sim->nalgo; a++)
		for (j = 0; j < sim->nn; j++) {
			const struct ft_sim_cell *x = &sim->cell[a * sim->nn + j];

			fprintf(f, "%-22s %10" PRIu64, sim->algo[a], (uint64_t)sim->n[j]);
			for (c = 0; c < sizeof(col) / sizeof(col[0]); c++)
				fprintf(f, " %7s%s", ft_sim_count(b, sizeof(b), x->lib[col[c]]),
					x->lo[col[c]] == x->hi[col[c]] ? " " : "~");
			fprintf(f, " %8.2f %8.2f %10s\n", branch_miss_pct(x->lib),
				d1_miss_pct(x->lib), ft_sim_count(b, sizeof(b), x->out[FT_SIM_IR]));
		}
}

static const struct ft_sim *sort_sim;
static unsigned int sort_algo;

/* Hottest first: the algorithm's Ir (sort_algo == nalgo: over every algorithm). */
static double func_ir(const struct ft_sim_func *fn)
{
	double s = 0;

	for (unsigned int a = 0; a < sort_sim->nalgo; a++)
		if (sort_algo == sort_sim->nalgo || a == sort_algo)
			s += fn->ev[a * FT_SIM_NEV + FT_SIM_IR];
	return s;
}

static int by_ir(const void *x, const void *y)
{
	const struct ft_sim_func *a = *(const struct ft_sim_func *const *)x;
	const struct ft_sim_func *b = *(const struct ft_sim_func *const *)y;
	double d = func_ir(b) - func_ir(a);

	return d > 0 ? 1 : d < 0 ? -1 : strcmp(a->name, b->name);
}

/* The functions sorted hottest first for algorithm @a (nalgo: all); caller frees. */
static const struct ft_sim_func **sorted(const struct ft_sim *sim, unsigned int a)
{
	const struct ft_sim_func **v = malloc((sim->nfn + 1) * sizeof(*v));

	if (!v)
		return NULL;
	memcpy(v, sim->fn, sim->nfn * sizeof(*v));
	sort_sim = sim;
	sort_algo = a;
	qsort(v, sim->nfn, sizeof(*v), by_ir);
	return v;
}

static void text_funcs(FILE *f, const struct ft_sim *sim, unsigned int a, bool all)
{
	const struct ft_sim_func **v = sorted(sim, a);
	double reads = (double)sim->nn * sim->rounds, lib = 0;
	unsigned int i, e, shown = 0, more = 0;
	char b[32];

	if (!v)
		return;
	for (i = 0; i < sim->nfn; i++)
		lib += v[i]->library ? v[i]->ev[a * FT_SIM_NEV] : 0;
	fprintf(f,
		"\n%s: the library's functions, self events per read (%.0f read%s), hottest "
		"first\n%8s %6s",
		sim->algo[a], reads, reads > 1 ? "s" : "", "Ir", "%Ir");
	for (e = 1; e < FT_SIM_NEV; e++)
		fprintf(f, " %7s", ft_sim_event_name[e]);
	fprintf(f, " %8s  %s\n", "calls", "function");
	for (i = 0; i < sim->nfn; i++) {
		const __u64 *ev = &v[i]->ev[a * FT_SIM_NEV];

		if (!v[i]->library || !ft_sim_func_in_reads(sim, v[i], a))
			continue;
		if (!all && (shown >= 15 || pct(ev[FT_SIM_IR], lib) < 0.1)) {
			more++;
			continue;
		}
		fprintf(f, "%8s %5.1f%%", ft_sim_count(b, sizeof(b), ev[FT_SIM_IR] / reads),
			pct(ev[FT_SIM_IR], lib));
		for (e = 1; e < FT_SIM_NEV; e++)
			fprintf(f, " %7s", ft_sim_count(b, sizeof(b), ev[e] / reads));
		fprintf(f, " %8s  %s\n", ft_sim_count(b, sizeof(b), v[i]->calls[a] / reads),
			v[i]->name);
		shown++;
	}
	if (more)
		fprintf(f, "  (%u more below 0.1%% or past 15: --all)\n", more);
	fprintf(f, "  outside the library, Ir per read:");
	for (i = shown = 0; i < sim->nfn && shown < 6; i++)
		if (!v[i]->library && v[i]->ev[a * FT_SIM_NEV]) {
			fprintf(f, " %s %s", v[i]->name,
				ft_sim_count(b, sizeof(b), v[i]->ev[a * FT_SIM_NEV] / reads));
			shown++;
		}
	fputc('\n', f);
	free(v);
}

static void text_report(FILE *f, const struct ft_sim *sim, bool all)
{
	ft_sim_text_header(f, sim);
	text_cells(f, sim);
	for (unsigned int a = 0; a < sim->nalgo; a++)
		text_funcs(f, sim, a, all);
}

/* ---------- JSON, CSV ---------- */

static void json_events(FILE *f, const char *key, const double *ev)
{
	fprintf(f, "\"%s\": {", key);
	for (int e = 0; e < FT_SIM_NEV; e++) {
		fprintf(f, "%s\"%s\": ", e ? ", " : "", ft_sim_event_name[e]);
		json_num(f, ev[e]);
	}
	fputc('}', f);
}

void ft_sim_json_meta(FILE *f, const struct ft_sim *sim)
{
	static const char *const lvl[3] = {"I1", "D1", "LL"};
	const struct {
		const char *key;
		const __u64 *ev;
	} part[4] = {
		{"run", sim->total},
		{"library", sim->reads_lib},
		{"outside", sim->reads_out},
		{"warmup", sim->warmup},
	};
	double d[FT_SIM_NEV];
	int i;

	fprintf(f, "\"cachesim\": {\"simulated\": true, \"tool\": ");
	json_str(f, sim->tool);
	fprintf(f, ", \"geometry\": \"%s\", \"caches\": {", sim->host_geometry ? "host" : "set");
	for (i = 0; i < 3; i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "", lvl[i]);
		json_str(f, sim->cache[i]);
	}
	fprintf(f, "}, \"rounds\": %u, \"reads\": %u, \"seconds\": %.3f, \"native_seconds\": %.4f",
		sim->rounds, sim->reads, sim->sim_s, sim->native_s);
	fprintf(f, ", \"exact\": {");
	for (i = 0; i < FT_SIM_NEV; i++)
		fprintf(f, "%s\"%s\": %s", i ? ", " : "", ft_sim_event_name[i],
			ft_sim_exact(sim, i) ? "true" : "false");
	fprintf(f, "}");
	for (i = 0; i < 4; i++) {
		to_double(d, part[i].ev);
		fprintf(f, ",\n    ");
		json_events(f, part[i].key, d);
	}
	fputc('}', f);
}

/* "cachesim": {"calls": N, "Ir": ...}: the function's events over every read, or nothing. */
void ft_sim_json_func(FILE *f, const struct ft_sim *sim, const char *name)
{
	const struct ft_sim_func *fn = sim ? ft_sim_func_find(sim, name) : NULL;
	double ev[FT_SIM_NEV], calls;

	if (!fn || !ft_sim_func_in_reads(sim, fn, -1))
		return;
	calls = ft_sim_func_sum(sim, fn, ev);
	fprintf(f, ", \"cachesim\": {\"calls\": %.0f", calls);
	for (int e = 0; e < FT_SIM_NEV; e++)
		fprintf(f, ", \"%s\": %.0f", ft_sim_event_name[e], ev[e]);
	fputc('}', f);
}

/* "cachesim": {the library's events per read}, "cachesim_outside": {...}, or nothing. */
void ft_sim_json_pern(FILE *f, const struct ft_sim *sim, const char *algo, __u64 n)
{
	int a = sim ? ft_sim_algo_index(sim, algo) : -1;
	const struct ft_sim_cell *c = a >= 0 ? ft_sim_cell_find(sim, a, n) : NULL;
	double lo[FT_SIM_NEV], hi[FT_SIM_NEV];

	if (!c)
		return;
	fprintf(f, ",\n     ");
	json_events(f, "cachesim", c->lib);
	fprintf(f, ",\n     ");
	json_events(f, "cachesim_outside", c->out);
	to_double(lo, c->lo);
	to_double(hi, c->hi);
	fprintf(f, ",\n     ");
	json_events(f, "cachesim_min", lo);
	fprintf(f, ", ");
	json_events(f, "cachesim_max", hi);
}

/* --cachesim=join's CSV columns: sim_calls (functions only) and sim_EVENT; empty without. */
void ft_sim_csv_head(FILE *f, const struct ft_sim *sim, bool funcs)
{
	if (!sim)
		return;
	if (funcs)
		fprintf(f, ",sim_calls");
	for (int e = 0; e < FT_SIM_NEV; e++)
		fprintf(f, ",sim_%s", ft_sim_event_name[e]);
}

void ft_sim_csv_func(FILE *f, const struct ft_sim *sim, const char *name)
{
	const struct ft_sim_func *fn = sim ? ft_sim_func_find(sim, name) : NULL;
	double ev[FT_SIM_NEV], calls = 0;
	int e;

	if (!sim)
		return;
	if (fn && !ft_sim_func_in_reads(sim, fn, -1))
		fn = NULL; /* seen only outside the reads (the harness's start-up) */
	if (fn)
		calls = ft_sim_func_sum(sim, fn, ev);
	for (e = -1; e < FT_SIM_NEV; e++) { /* calls, then the events */
		fputc(',', f);
		if (fn) /* empty: a function the simulation does not run (fib_read, the copy) */
			fprintf(f, "%.0f", e < 0 ? calls : ev[e]);
	}
}

void ft_sim_csv_pern(FILE *f, const struct ft_sim *sim, const char *algo, __u64 n)
{
	int a = sim ? ft_sim_algo_index(sim, algo) : -1;
	const struct ft_sim_cell *c = a >= 0 ? ft_sim_cell_find(sim, a, n) : NULL;

	for (int e = 0; sim && e < FT_SIM_NEV; e++) {
		fputc(',', f);
		if (c)
			fprintf(f, "%.1f", c->lib[e]);
	}
}

static void json_report(FILE *f, const struct ft_sim *sim)
{
	const struct ft_sim_func **v = sorted(sim, sim->nalgo);
	unsigned int i, a, j;
	bool first = true;

	fprintf(f, "{\n  \"meta\": {\"tool\": \"fibtrace 0.2\", \"mode\": \"cachesim\",\n    ");
	ft_sim_json_meta(f, sim);
	fprintf(f, "},\n  \"functions\": [");
	for (i = 0; v && i < sim->nfn; i++) {
		if (!ft_sim_func_in_reads(sim, v[i], -1))
			continue;
		fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
		first = false;
		json_str(f, v[i]->name);
		fprintf(f, ", \"library\": %s", v[i]->library ? "true" : "false");
		ft_sim_json_func(f, sim, v[i]->name);
		fputc('}', f);
	}
	free(v);
	fprintf(f, "\n  ],\n  \"per_n\": [");
	for (a = 0, first = true; a < sim->nalgo; a++)
		for (j = 0; j < sim->nn; j++) {
			fprintf(f, "%s\n    {\"algo\": ", first ? "" : ",");
			first = false;
			json_str(f, sim->algo[a]);
			fprintf(f, ", \"n\": %" PRIu64 ", \"rounds\": %u", (uint64_t)sim->n[j],
				sim->rounds);
			ft_sim_json_pern(f, sim, sim->algo[a], sim->n[j]);
			fputc('}', f);
		}
	fprintf(f, "\n  ]\n}\n");
}

static void csv_report(FILE *f, const struct ft_sim *sim)
{
	unsigned int a, j, i;
	int e;

	fprintf(f, "algo,function,library,calls");
	for (e = 0; e < FT_SIM_NEV; e++)
		fprintf(f, ",%s", ft_sim_event_name[e]);
	for (a = 0; a < sim->nalgo; a++)
		for (i = 0; i < sim->nfn; i++) {
			const struct ft_sim_func *fn = sim->fn[i];

			if (!ft_sim_func_in_reads(sim, fn, a))
				continue;
			fprintf(f, "\n");
			csv_str(f, sim->algo[a]);
			fputc(',', f);
			csv_str(f, fn->name);
			fprintf(f, ",%d,%" PRIu64, fn->library, (uint64_t)fn->calls[a]);
			for (e = 0; e < FT_SIM_NEV; e++)
				fprintf(f, ",%" PRIu64, (uint64_t)fn->ev[a * FT_SIM_NEV + e]);
		}
	fprintf(f, "\n\nalgo,n,rounds");
	for (e = 0; e < FT_SIM_NEV; e++)
		fprintf(f, ",%s", ft_sim_event_name[e]);
	fprintf(f, ",outside_Ir,exact_Ir\n");
	for (a = 0; a < sim->nalgo; a++)
		for (j = 0; j < sim->nn; j++) {
			const struct ft_sim_cell *c = &sim->cell[a * sim->nn + j];

			csv_str(f, sim->algo[a]);
			fprintf(f, ",%" PRIu64 ",%u", (uint64_t)sim->n[j], sim->rounds);
			for (e = 0; e < FT_SIM_NEV; e++)
				fprintf(f, ",%.1f", c->lib[e]);
			fprintf(f, ",%.1f,%d\n", c->out[FT_SIM_IR],
				c->lo[FT_SIM_IR] == c->hi[FT_SIM_IR]);
		}
}

void ft_sim_report(FILE *f, const struct ft_sim *sim, int output, bool all)
{
	if (output == FT_OUT_JSON)
		json_report(f, sim);
	else if (output == FT_OUT_CSV)
		csv_report(f, sim);
	else
		text_report(f, sim, all);
}

/* ---------- beside a kernel trace of the same reads (--cachesim=join) ---------- */

/* A joined function: the kernel's, its simulated twin, its self time (the sort key). */
struct join_row {
	const struct ft_target *t;
	const struct ft_sim_func *fn;
	struct ft_func_fig x;
};

static int by_self(const void *x, const void *y)
{
	const struct join_row *a = x, *b = y;

	return a->x.self < b->x.self   ? 1
	       : a->x.self > b->x.self ? -1
				       : strcmp(a->t->name, b->t->name);
}

/* One row; returns whether the simulated calls differ from the traced ones. */
static bool join_row(FILE *f, const struct ft_run *run, const struct join_row *r)
{
	const struct ft_target *t = r->t;
	double ev[FT_SIM_NEV], calls = ft_sim_func_sum(run->sim, r->fn, ev), per;
	char a[32], b[32], c[32], d[32];

	per = calls ? calls : 1;
	fmt_ns(a, sizeof(a), t->st.count ? (double)r->x.self / t->st.count : 0, FMT_NS_SIG4);
	fprintf(f, "%-30.30s %10" PRIu64 " %10.0f%s %10s %9s %8s %8s %7.2f %10.3f\n", t->name,
		(uint64_t)t->st.count, calls, calls == t->st.count ? " " : "*", a,
		ft_sim_count(b, sizeof(b), ev[FT_SIM_IR] / per),
		ft_sim_count(c, sizeof(c), (ev[FT_SIM_D1MR] + ev[FT_SIM_D1MW]) / per),
		ft_sim_count(d, sizeof(d), (ev[FT_SIM_BCM] + ev[FT_SIM_BIM]) / per),
		branch_miss_pct(ev), ev[FT_SIM_IR] ? (double)r->x.self / ev[FT_SIM_IR] : 0);
	return calls != t->st.count;
}

void ft_sim_text_join(FILE *f, const struct ft_run *run)
{
	const struct ft_targets *tg = run->targets;
	struct join_row v[FT_MAX_SLOTS];
	int k, n = 0, differ = 0;

	for (k = 0; k < tg->count; k++) {
		const struct ft_sim_func *fn = ft_sim_func_find(run->sim, tg->t[k].name);

		if (!tg->t[k].attached || !fn || !ft_sim_func_in_reads(run->sim, fn, -1))
			continue;
		v[n].t = &tg->t[k];
		v[n].fn = fn;
		ft_func_figures(&run->hist, &tg->t[k].st, run->overhead.on, &v[n].x);
		n++;
	}
	qsort(v, n, sizeof(v[0]), by_self);
	fprintf(f, "\n");
	ft_sim_text_header(f, run->sim);
	fprintf(f,
		"\nper function: the kernel's self time (%s, measured) beside the same reads' "
		"events (simulated),\nper call; * marks a function whose simulated calls differ "
		"from the traced ones\n%-30s %10s %11s %10s %9s %8s %8s %7s %10s\n",
		run->overhead.on ? "compensated" : "raw", "function", "calls", "sim calls",
		"self/call", "Ir/call", "D1m/call", "Bm/call", "br-miss%", "ns per Ir");
	for (k = 0; k < n; k++)
		differ += join_row(f, run, &v[k]);
	if (differ)
		fprintf(f,
			"  %d function%s called a different number of times in the kernel: "
			"calls outside the reads, lost calls, or another build of the code\n",
			differ, differ > 1 ? "s" : "");
	else if (n)
		fprintf(f, "  every function was called exactly as often in the kernel as in the "
			   "simulation: the same code ran\n");
}
