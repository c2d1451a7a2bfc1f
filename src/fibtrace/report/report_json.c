// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON report: one document per run (docs/fibtrace.schema.json): meta,
 * functions with their histograms, per_n, copy, lost, and with --raw every
 * read record. --compare appends its members through the section callback.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "cachesim/cachesim.h"
#include "fmt.h"
#include "model/aggregate.h"
#include "model/tree.h"
#include "report.h"

static void json_series(FILE *f, const char *name, const struct ft_cost_series *s)
{
	fprintf(f,
		"\"%s\": {\"full_ns\": %.1f, \"full_min_ns\": %.1f, \"full_max_ns\": %.1f, "
		"\"in_ns\": %.1f, \"in_min_ns\": %.1f, \"in_max_ns\": %.1f, "
		"\"untraced_call_ns\": %.2f, \"rounds\": %u, \"calls_per_round\": %u, "
		"\"work_n\": %llu}",
		name, s->full_ns, s->full_min, s->full_max, s->in_ns, s->in_min, s->in_max,
		s->untraced_ns, s->rounds, s->calls, (unsigned long long)s->work_n);
}

static void json_cost(FILE *f, const char *name, const struct ft_cost *c)
{
	fprintf(f,
		"\"%s\": {\"full_ns\": %.1f, \"in_ns\": %.1f, \"full_error_ns\": %.1f, "
		"\"in_error_ns\": %.1f, \"functions\": %d,\n      \"recalibrations\": %u, "
		"\"run_full_min_ns\": %.1f, \"run_full_max_ns\": %.1f, \"context_ratio\": %.3f,"
		"\n      ",
		name, c->full_ns, c->in_ns, c->full_err, c->in_err, c->funcs, c->recals,
		c->run_full_min, c->run_full_max, c->ratio);
	json_series(f, "warm", &c->warm);
	fprintf(f, ",\n      ");
	json_series(f, "cold", &c->cold);
	fprintf(f, ",\n      \"tail\": {\"calibrated\": %s, \"in_ns\": %.1f, \"out_ns\": %.1f",
		c->tail_valid ? "true" : "false", c->tail_valid ? c->tail_in_ns : 0,
		c->tail_valid ? c->tail_out_ns : 0);
	if (c->tail_valid) {
		fputs(", ", f);
		json_series(f, "pair", &c->tail);
	}
	fputs("}}", f);
}

/* meta.overhead: the calibrated cost of one traced call per mode, and the method. */
static void json_overhead(FILE *f, const struct ft_run *run)
{
	const struct ft_overhead *o = &run->overhead;
	const struct ft_cost_context *x = &o->ctx;
	int m;

	fprintf(f,
		"    \"overhead\": {\"compensated\": %s, \"method\": ", o->on ? "true" : "false");
	json_str(
		f,
		"per traced call: its own in-interval cost and, for each traced call beneath it, "
		"the time its entry and exit programs timed of themselves (each from its first "
		"instruction to its last clock read: functions[].compensated.probe_ns) plus the "
		"calibrated full cost, the rest, subtracted (less tail.out_ns, and tail.in_ns "
		"back in the caller's own, for a callee it tail-called: kprobes and kprobe.multi "
		"return from both in one pass); costs calibrated at start-up on "
		"fibdrv_calib0/1/2 "
		"(and in a sweep again every 2 s between reads), the midpoint of warm "
		"(back-to-back) and cold (after real work) calls, times the factor a call of "
		"the module's own measured in context (a sweep: reads of F(n) less refused reads, "
		"untraced and traced, and fib_read's own cost inside its interval from the refused "
		"ones; otherwise F(n) computed untraced and traced; context_ratio); error_ns = "
		"traced calls x their spread (times that factor, "
		"plus half the context's range) plus the midpoint's move since the last "
		"calibration (fibtrace(8), COMPENSATION)");
	fprintf(f, ", \"uncompensated_functions\": %d", o->uncompensated);
	fprintf(f,
		",\n     \"context\": {\"measured\": %s, \"n\": %llu, \"rounds\": %u, "
		"\"computes_per_round\": %u, \"calls_per_compute\": %.1f, "
		"\"untraced_compute_ns\": %.1f, \"mode\": \"%s\",\n      \"full_ns\": %.1f, "
		"\"full_min_ns\": %.1f, \"full_max_ns\": %.1f,\n      \"source\": \"%s\", "
		"\"read_in_ns\": %.1f, \"read_in_error_ns\": %.1f}",
		x->done ? "true" : "false", x->done ? (unsigned long long)x->n : 0ULL,
		x->done ? x->rounds : 0, x->done ? x->computes : 0, x->done ? x->calls : 0,
		x->done ? x->untraced_ns : 0, x->done ? ft_mode_name(x->mode) : "",
		x->done ? x->full_ns : 0, x->done ? x->full_min : 0, x->done ? x->full_max : 0,
		x->reads ? "reads" : "computations", x->done && x->reads ? x->read_in_ns : 0,
		x->done && x->reads ? x->read_in_err : 0);
	for (m = FT_MODE_FENTRY; m < FT_MODE_NR; m++) {
		if (!o->mode[m].valid)
			continue;
		fprintf(f, ",\n     ");
		json_cost(f, ft_mode_name(m), &o->mode[m]);
	}
	fprintf(f, "},\n");
}

/* meta.startup: the plan, why, and how long each start-up phase took. */
static void json_startup(FILE *f, const struct ft_startup *su)
{
	fprintf(f, "    \"startup\": {\"plan\": ");
	json_str(f, su->plan ? su->plan : "");
	fprintf(f, ", \"reason\": ");
	json_str(f, su->reason ? su->reason : "");
	fprintf(f, ", \"symbols\": ");
	json_str(f, su->symbols ? su->symbols : "kernel");
	fprintf(f,
		", \"programs\": %d, \"discover_s\": %.3f, \"load_s\": %.3f, \"attach_s\": %.3f, "
		"\"calibrate_s\": %.3f, \"total_s\": %.3f, \"detach_s\": %.3f}",
		su->programs, su->discover_s, su->load_s, su->attach_s, su->calibrate_s,
		su->total_s, su->detach_s);
}

/* meta.hist: the histograms' buckets, log2 with sub-buckets or linear. */
static void json_hist_kind(FILE *f, const struct ft_run *run)
{
	if (run->hist.linear)
		fprintf(f,
			"    \"hist\": {\"type\": \"linear\", \"min_ns\": %" PRIu64
			", \"max_ns\": %" PRIu64 ", \"step_ns\": %" PRIu64 "},\n",
			(uint64_t)run->hist.lin_min, (uint64_t)run->hist.lin_max,
			(uint64_t)run->hist.lin_step);
	else
		fprintf(f, "    \"hist\": {\"type\": \"log2\", \"sub_bits\": %u},\n",
			run->hist.bits);
}

static void json_meta(FILE *f, const struct ft_run *run)
{
	const struct ft_targets *tg = run->targets;
	int k, by[FT_MODE_NR], nn;

	ft_attach_counts(tg, by, &nn);
	fprintf(f, "{\n  \"meta\": {\"tool\": \"fibtrace\", \"schema\": 1, \"kernel\": ");
	json_str(f, run->kernel);
	fprintf(f,
		", \"attach_counts\": {\"fentry\": %d, \"kprobe\": %d, \"kprobe_multi\": %d, "
		"\"none\": %d},\n",
		by[FT_MODE_FENTRY], by[FT_MODE_KPROBE], by[FT_MODE_MULTI], nn);
	json_startup(f, &run->startup);
	fprintf(f,
		", \"attach\": \"%s\", \"mode\": \"%s\", \"cpu\": %d, \"seconds\": %.6f, "
		"\"filter_pid\": %u, \"module_btf\": %s,\n",
		ft_mode_name(tg->t[FT_SLOT_READ].mode), run->run_mode, run->cpu, run->seconds,
		run->filter_pid, tg->module_btf ? "true" : "false");
	fprintf(f, "    \"clocksource\": ");
	json_str(f, run->clocksource);
	fprintf(f, ", \"clock\": ");
	json_str(f, run->clock);
	fprintf(f, ", \"vm\": ");
	json_str(f, run->vm);
	fprintf(f,
		", \"stack_depth\": %d, \"max_depth\": %u, \"maxactive\": %u, \"off_cpu\": %s,\n",
		FT_STACK_DEPTH, run->max_depth, run->maxactive, run->off_cpu ? "true" : "false");
	if (run->heap_bytes >= 0)
		fprintf(f, "    \"memory\": {\"heap_bytes\": %lld},\n", run->heap_bytes);
	else
		fprintf(f, "    \"memory\": {\"heap_bytes\": null},\n");
	fprintf(f,
		"    \"call_tree\": {\"kept\": %s, \"tree_n\": ", run->tree_on ? "true" : "false");
	if (run->tree_n == FT_TREE_ALL_N)
		fprintf(f, "null");
	else
		fprintf(f, "%" PRIu64, (uint64_t)run->tree_n);
	fprintf(f, ", \"nodes\": %zu, \"max_nodes\": %d},\n", run->ntree, FT_TREE_NODES);
	json_overhead(f, run);
	json_hist_kind(f, run);
	fprintf(f, "    \"algorithms\": [");
	for (k = 0; k < run->algos.count; k++) {
		fprintf(f, "%s", k ? ", " : "");
		json_str(f, run->algos.name[k]);
	}
	fprintf(f, "],\n");
	if (run->sweep)
		fprintf(f,
			"    \"sweep\": {\"first\": %" PRIu64 ", \"last\": %" PRIu64
			", \"step\": %" PRIu64 ", \"repeat\": %u, \"reads_issued\": %" PRIu64
			", \"read_errors\": %" PRIu64 "},\n",
			(uint64_t)run->first, (uint64_t)run->last, (uint64_t)run->step, run->repeat,
			(uint64_t)run->reads_issued, (uint64_t)run->read_errors);
	fprintf(f, "    \"warnings\": [");
	for (k = 0; k < run->nwarnings; k++) {
		fprintf(f, "%s", k ? ", " : "");
		json_str(f, run->warnings[k]);
	}
	fprintf(f, "]");
	ft_counters_json_meta(f, run);
	if (run->sim) {
		fprintf(f, ",\n    ");
		ft_sim_json_meta(f, run->sim);
	}
	fprintf(f, "\n  }");
}

/* "hist" or "comp_hist": the non-empty buckets. */
static void json_hist(FILE *f, const struct ft_run *run, const char *name, const __u64 *hist)
{
	unsigned int nb = ft_hist_nbuckets(&run->hist), j;
	bool first = true;

	fprintf(f, "\"%s\": [", name);
	for (j = 0; j < nb; j++) {
		__u64 lo, hi;

		if (!hist[j])
			continue;
		ft_hist_bounds(&run->hist, j, &lo, &hi);
		fprintf(f,
			"%s{\"lo_ns\": %" PRIu64 ", \"hi_ns\": %" PRIu64 ", \"count\": %" PRIu64
			"}",
			first ? "" : ", ", (uint64_t)lo, (uint64_t)hi, (uint64_t)hist[j]);
		first = false;
	}
	fprintf(f, "]");
}

/* functions[].compensated, with its histogram (absent with --no-compensate). */
static void json_func_comp(FILE *f, const struct ft_run *run, const struct ft_func_stats *s)
{
	struct ft_func_fig c;

	ft_func_figures(&run->hist, s, true, &c);
	fprintf(f,
		",\n      \"compensated\": {\"total_ns\": %" PRIu64 ", \"self_ns\": %" PRIu64
		", \"avg_ns\": %" PRIu64 ", \"p50_ns\": %" PRIu64 ", \"p90_ns\": %" PRIu64
		", \"p99_ns\": %" PRIu64 ", \"total_error_ns\": %" PRIu64
		", \"avg_error_ns\": %" PRIu64 ", \"clamped\": %" PRIu64 ", \"probe_ns\": %" PRIu64
		", \"tail_calls\": %" PRIu64 ", ",
		(uint64_t)c.total, (uint64_t)c.self, (uint64_t)c.avg, (uint64_t)c.p50,
		(uint64_t)c.p90, (uint64_t)c.p99, (uint64_t)s->comp_err_ns,
		(uint64_t)(s->count ? s->comp_err_ns / s->count : 0), (uint64_t)s->comp_clamped,
		(uint64_t)s->probe_ns, (uint64_t)s->tail_calls);
	json_hist(f, run, "hist", s->comp_hist);
	fputc('}', f);
}

static void json_function(FILE *f, const struct ft_run *run, const struct ft_target *t)
{
	const struct ft_func_stats *s = &t->st;
	struct ft_func_fig r;

	json_str(f, t->name);
	fprintf(f, ", \"module\": ");
	json_str(f, t->module[0] ? t->module : "vmlinux");
	ft_func_figures(&run->hist, s, false, &r);
	fprintf(f,
		", \"attach\": \"%s\", \"count\": %" PRIu64 ", \"total_ns\": %" PRIu64
		", \"self_ns\": %" PRIu64 ", \"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
		", \"avg_ns\": %" PRIu64 ", \"p50_ns\": %" PRIu64 ", \"p90_ns\": %" PRIu64
		", \"p99_ns\": %" PRIu64 ", \"recursion_misses\": %" PRIu64
		", \"kretprobe_missed\": %" PRIu64 ", \"kprobe_missed\": %" PRIu64 ",\n      ",
		ft_attach_name(t), (uint64_t)s->count, (uint64_t)r.total, (uint64_t)r.self,
		(uint64_t)s->min_ns, (uint64_t)s->max_ns, (uint64_t)r.avg, (uint64_t)r.p50,
		(uint64_t)r.p90, (uint64_t)r.p99, (uint64_t)t->recursion_misses,
		(uint64_t)t->kretprobe_missed, (uint64_t)t->kprobe_missed);
	fprintf(f,
		"\"roots\": {\"entered\": %" PRIu64 ", \"returned\": %" PRIu64
		", \"dropped\": %" PRIu64 ", \"open\": %" PRIu64 "}, ",
		(uint64_t)s->root_entered, (uint64_t)s->root_returned, (uint64_t)s->root_dropped,
		(uint64_t)ft_func_open(s));
	if (run->off_cpu)
		fprintf(f, "\"off_cpu_ns\": %" PRIu64 ", \"off_cpu_calls\": %" PRIu64 ", ",
			(uint64_t)s->off_ns, (uint64_t)s->off_calls);
	json_hist(f, run, "hist", s->hist);
	if (run->overhead.on)
		json_func_comp(f, run, s);
	ft_counters_json_func(f, run, t);
	ft_sim_json_func(f, run->sim, t->name);
	fputc('}', f);
}

static void json_functions(FILE *f, const struct ft_run *run)
{
	const struct ft_targets *tg = run->targets;
	bool first = true;
	int k;

	fprintf(f, ",\n  \"functions\": [");
	for (k = 0; k < tg->count; k++) {
		const struct ft_target *t = &tg->t[k];

		if (!t->attached && !t->unavailable)
			continue;
		fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
		first = false;
		json_function(f, run, t);
	}
	fprintf(f, "\n  ]");
}

static void json_breakdown(FILE *f, const struct ft_pern_fig *x)
{
	fprintf(f,
		"\"breakdown\": {\"compute_ns\": %" PRIu64 ", \"format_ns\": %" PRIu64
		", \"copy_ns\": %" PRIu64 ", \"rest_ns\": %" PRIu64 "}",
		(uint64_t)x->compute, (uint64_t)x->format, (uint64_t)x->copy, (uint64_t)x->rest);
}

static void json_pern(FILE *f, struct ft_run *run)
{
	const struct ft_pern *rows;
	size_t nrows = ft_pern_rows(run, &rows), i;

	fprintf(f, ",\n  \"per_n\": [");
	for (i = 0; i < nrows; i++) {
		const struct ft_pern *r = &rows[i];

		fprintf(f, "%s\n    {\"algo\": ", i ? "," : "");
		json_str(f, ft_algo_name(run, r->algo));
		fprintf(f,
			", \"algo_id\": %u, \"n\": %" PRIu64 ", \"count\": %" PRIu64
			", \"errors\": %" PRIu64 ", \"median_ns\": %" PRIu64
			", \"p90_ns\": %" PRIu64 ", \"p99_ns\": %" PRIu64 ", \"min_ns\": %" PRIu64
			", \"max_ns\": %" PRIu64 ", \"parts_over_total\": %" PRIu64
			", \"traced_calls\": %" PRIu64 ", ",
			r->algo, (uint64_t)r->n, (uint64_t)r->count, (uint64_t)r->errors,
			(uint64_t)r->raw.median, (uint64_t)r->raw.p90, (uint64_t)r->raw.p99,
			(uint64_t)r->min, (uint64_t)r->max, (uint64_t)r->parts_over_total,
			(uint64_t)r->calls);
		json_breakdown(f, &r->raw);
		if (run->overhead.on) {
			fprintf(f,
				",\n     \"compensated\": {\"median_ns\": %" PRIu64
				", \"p90_ns\": %" PRIu64 ", \"p99_ns\": %" PRIu64
				", \"error_ns\": %" PRIu64 ", ",
				(uint64_t)r->comp.median, (uint64_t)r->comp.p90,
				(uint64_t)r->comp.p99, (uint64_t)r->comp_err);
			json_breakdown(f, &r->comp);
			fputc('}', f);
		}
		if (run->off_cpu)
			fprintf(f,
				",\n     \"off_cpu\": {\"total_ns\": %" PRIu64
				", \"reads_switched\": %" PRIu64 ", \"on_cpu_median_ns\": %" PRIu64
				"}",
				(uint64_t)r->off_ns, (uint64_t)r->switched,
				(uint64_t)r->oncpu_median);
		ft_counters_json_pern(f, run, r->algo, r->n);
		ft_sim_json_pern(f, run->sim, ft_algo_name(run, r->algo), r->n);
		fputc('}', f);
	}
	fprintf(f, "\n  ]");
}

static void json_copy_lost(FILE *f, const struct ft_run *run)
{
	struct ft_copy_row *copies;
	size_t ncopies = ft_copy_build(run, &copies), i;
	int k;

	fprintf(f, ",\n  \"copy\": [");
	for (i = 0; i < ncopies; i++)
		fprintf(f,
			"%s\n    {\"bytes\": %" PRIu64 ", \"count\": %" PRIu64 ", \"ns\": %" PRIu64
			"}",
			i ? "," : "", (uint64_t)copies[i].bytes, (uint64_t)copies[i].count,
			(uint64_t)copies[i].ns);
	free(copies);
	fprintf(f, "\n  ],\n  \"lost\": {");
	for (k = 0; k < FT_LOST_NR; k++)
		fprintf(f, "\"%s\": %" PRIu64 ", ", ft_lost_names[k], (uint64_t)run->lost[k]);
	fprintf(f, "\"records_dropped\": %" PRIu64 ", \"recursion_misses\": %" PRIu64 "}",
		(uint64_t)run->recs_dropped, (uint64_t)run->recursion_misses);
}

static void json_reads(FILE *f, const struct ft_run *run)
{
	size_t i;

	fprintf(f, ",\n  \"reads\": [");
	for (i = 0; i < run->nrecs; i++) {
		const struct ft_read_rec *x = &run->recs[i];

		fprintf(f,
			"%s\n    {\"algo_id\": %u, \"n\": %" PRIu64 ", \"total_ns\": %" PRIu64
			", \"compute_ns\": %" PRIu64 ", \"format_ns\": %" PRIu64
			", \"copy_ns\": %" PRIu64 ", \"copy_to_user_ns\": %" PRIu64
			", \"copy_bytes\": %" PRIu64 ", \"copy_calls\": %u, \"ret\": %" PRId64
			", \"cpu\": %u, \"traced_calls\": %u",
			i ? "," : "", x->algo, (uint64_t)x->n, (uint64_t)x->total_ns,
			(uint64_t)x->stage_ns[0], (uint64_t)x->stage_ns[1],
			(uint64_t)x->stage_ns[2], (uint64_t)x->copy_ns, (uint64_t)x->copy_bytes,
			x->copy_calls, (int64_t)x->ret, x->cpu, x->calls);
		if (run->off_cpu)
			fprintf(f, ", \"off_cpu_ns\": %" PRIu64 ", \"switches\": %u",
				(uint64_t)x->off_ns, x->switches);
		if (run->overhead.on)
			fprintf(f,
				", \"compensated\": {\"total_ns\": %" PRIu64
				", \"compute_ns\": %" PRIu64 ", \"format_ns\": %" PRIu64
				", \"copy_ns\": %" PRIu64 ", \"copy_to_user_ns\": %" PRIu64
				", \"error_ns\": %" PRIu64 "}",
				(uint64_t)x->comp_total_ns, (uint64_t)x->comp_stage_ns[0],
				(uint64_t)x->comp_stage_ns[1], (uint64_t)x->comp_stage_ns[2],
				(uint64_t)x->comp_copy_ns, (uint64_t)x->comp_err_ns);
		ft_counters_json_rec(f, run, x);
		fputc('}', f);
	}
	fprintf(f, "\n  ]");
}

void ft_report_json(FILE *f, struct ft_run *run, void (*section)(FILE *f, void *ctx), void *ctx)
{
	json_meta(f, run);
	json_functions(f, run);
	ft_tree_json(f, run);
	json_pern(f, run);
	json_copy_lost(f, run);
	if (run->raw)
		json_reads(f, run);
	if (section) {
		fprintf(f, ",\n");
		section(f, ctx);
	}
	fprintf(f, "\n}\n");
}
