// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace reports: text (funclatency-style histograms, a summary line per
 * function, the per-n table), one JSON document (docs/fibtrace.schema.json)
 * and CSV. Function percentiles come from the histogram buckets (linear
 * interpolation inside the bucket); per-n statistics are exact, from the
 * per-read records (nearest rank).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace_counters.h"
#include "trace_model.h"

void ft_warn(struct ft_run *run, const char *fmt, ...)
{
	va_list ap;
	char buf[256];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fibtrace: warning: %s\n", buf);
	if (run && run->nwarnings < (int)(sizeof(run->warnings) / sizeof(run->warnings[0])))
		snprintf(run->warnings[run->nwarnings++], sizeof(run->warnings[0]), "%s", buf);
}

const char *ft_algo_name(const struct ft_run *run, unsigned int id)
{
	return (int)id < run->nalgos ? run->algos[id] : "?";
}

static unsigned int hist_nbuckets(const struct ft_hist_cfg *cfg)
{
	return cfg->linear ? cfg->lin_buckets + 2 : FT_HIST_SLOTS;
}

/* Values v with lo <= v <= hi fall into bucket idx (see fibtrace.h). */
void ft_hist_bounds(const struct ft_hist_cfg *cfg, unsigned int idx, __u64 *lo, __u64 *hi)
{
	unsigned int b = cfg->bits, g, sub;

	if (cfg->linear) {
		if (idx == 0) {
			*lo = 0;
			*hi = cfg->lin_min ? cfg->lin_min - 1 : 0;
		} else if (idx <= cfg->lin_buckets) {
			*lo = cfg->lin_min + (idx - 1) * cfg->lin_step;
			*hi = *lo + cfg->lin_step - 1;
		} else {
			*lo = cfg->lin_min + cfg->lin_buckets * cfg->lin_step;
			*hi = UINT64_MAX;
		}
		return;
	}
	if (idx < (1u << b)) {
		*lo = *hi = idx;
		return;
	}
	g = idx >> b;
	sub = idx & ((1u << b) - 1);
	if (g - 1 + b >= 64) {
		*lo = *hi = UINT64_MAX;
		return;
	}
	*lo = (__u64)((1u << b) + sub) << (g - 1);
	*hi = *lo + ((__u64)1 << (g - 1)) - 1;
}

__u64 ft_hist_percentile(const struct ft_hist_cfg *cfg, const struct ft_func_stats *st, double p)
{
	__u64 target, cum = 0, lo, hi, v;
	unsigned int i, n = hist_nbuckets(cfg);

	if (!st->count)
		return 0;
	target = (__u64)(p * st->count + 0.999999);
	if (target < 1)
		target = 1;
	for (i = 0; i < n; i++) {
		if (!st->hist[i])
			continue;
		if (cum + st->hist[i] >= target) {
			ft_hist_bounds(cfg, i, &lo, &hi);
			if (hi > st->max_ns)
				hi = st->max_ns;
			if (lo < st->min_ns)
				lo = st->min_ns;
			if (hi < lo)
				hi = lo;
			v = lo + (__u64)((double)(hi - lo) * (target - cum) / st->hist[i]);
			return v;
		}
		cum += st->hist[i];
	}
	return st->max_ns;
}

/* ---------- per-(algo, n) aggregation of the read records ---------- */

static int cmp_rec(const void *a, const void *b)
{
	const struct ft_read_rec *x = a, *y = b;

	if (x->algo != y->algo)
		return x->algo < y->algo ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank on a sorted array. */
static __u64 rank(const __u64 *v, size_t n, double p)
{
	size_t k = (size_t)(p * n + 0.999999);

	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

static __u64 median_of(__u64 *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return rank(v, n, 0.5);
}

size_t ft_pern_build(struct ft_run *run, struct ft_pern **out)
{
	struct ft_pern *rows = NULL;
	size_t nrows = 0, i = 0, j, k, cap = 0;
	__u64 *tmp;

	*out = NULL;
	if (!run->nrecs)
		return 0;
	qsort(run->recs, run->nrecs, sizeof(*run->recs), cmp_rec);
	tmp = malloc(run->nrecs * sizeof(*tmp));
	if (!tmp)
		return 0;
	while (i < run->nrecs) {
		struct ft_pern *r;
		size_t cnt = 0;

		for (j = i; j < run->nrecs && run->recs[j].algo == run->recs[i].algo &&
			    run->recs[j].n == run->recs[i].n;
		     j++)
			;
		if (nrows == cap) {
			struct ft_pern *nr;

			cap = cap ? cap * 2 : 256;
			nr = realloc(rows, cap * sizeof(*rows));
			if (!nr)
				break;
			rows = nr;
		}
		r = &rows[nrows++];
		memset(r, 0, sizeof(*r));
		r->algo = run->recs[i].algo;
		r->n = run->recs[i].n;
		r->count = j - i;
		for (k = i; k < j; k++) {
			const struct ft_read_rec *x = &run->recs[k];

			if (x->ret < 0)
				r->errors++;
			if (x->stage_ns[0] + x->stage_ns[1] + x->stage_ns[2] > x->total_ns)
				r->parts_over_total++;
			tmp[cnt++] = x->total_ns;
		}
		qsort(tmp, cnt, sizeof(*tmp), cmp_u64);
		r->min = tmp[0];
		r->max = tmp[cnt - 1];
		r->median = rank(tmp, cnt, 0.5);
		r->p90 = rank(tmp, cnt, 0.9);
		r->p99 = rank(tmp, cnt, 0.99);
		for (k = 0; k < cnt; k++)
			tmp[k] = run->recs[i + k].stage_ns[0];
		r->compute = median_of(tmp, cnt);
		for (k = 0; k < cnt; k++)
			tmp[k] = run->recs[i + k].stage_ns[1];
		r->format = median_of(tmp, cnt);
		for (k = 0; k < cnt; k++)
			tmp[k] = run->recs[i + k].stage_ns[2];
		r->copy = median_of(tmp, cnt);
		for (k = 0; k < cnt; k++) {
			const struct ft_read_rec *x = &run->recs[i + k];
			__u64 parts = x->stage_ns[0] + x->stage_ns[1] + x->stage_ns[2];

			tmp[k] = x->total_ns > parts ? x->total_ns - parts : 0;
		}
		r->rest = median_of(tmp, cnt);
		i = j;
	}
	free(tmp);
	*out = rows;
	return nrows;
}

/* Copy throughput per size: fibdrv_copy's len and time, from the read records. */
struct copy_row {
	__u64 bytes, count, ns;
};

static int cmp_copy(const void *a, const void *b)
{
	const struct copy_row *x = a, *y = b;

	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

static size_t copy_build(const struct ft_run *run, struct copy_row **out)
{
	struct copy_row *rows = NULL;
	size_t n = 0, i, j;

	*out = NULL;
	if (!run->nrecs)
		return 0;
	rows = calloc(run->nrecs, sizeof(*rows));
	if (!rows)
		return 0;
	for (i = 0; i < run->nrecs; i++) {
		const struct ft_read_rec *x = &run->recs[i];

		if (!x->stage_ns[2])
			continue; /* no fibdrv_copy in this read */
		rows[n].bytes = x->copy_bytes;
		rows[n].count = 1;
		rows[n].ns = x->stage_ns[2];
		n++;
	}
	qsort(rows, n, sizeof(*rows), cmp_copy);
	for (i = 0, j = 0; i < n; i++) {
		if (j && rows[j - 1].bytes == rows[i].bytes) {
			rows[j - 1].count += rows[i].count;
			rows[j - 1].ns += rows[i].ns;
		} else {
			rows[j++] = rows[i];
		}
	}
	*out = rows;
	return j;
}

static const char *attach_name(const struct ft_target *t)
{
	return t->unavailable ? "none" : ft_mode_name(t->mode);
}

static const char *const lost_names[FT_LOST_NR] = {
	"unmatched_exit", "unwound", "stack_overflow", "task_storage", "ringbuf",
	"counters_discarded",
};

/* The read path's mode; functions[].attach has each function's. */
static const char *overall_attach(const struct ft_targets *tg)
{
	return ft_mode_name(tg->t[FT_SLOT_READ].mode);
}

static void attach_counts(const struct ft_targets *tg, int *fentry, int *kprobe, int *none)
{
	int i;

	*fentry = *kprobe = *none = 0;
	for (i = 0; i < tg->count; i++) {
		if (tg->t[i].unavailable)
			(*none)++;
		else if (tg->t[i].mode == FT_MODE_FENTRY)
			(*fentry)++;
		else
			(*kprobe)++;
	}
}

/* ---------- text ---------- */

static void fmt_ns(char *buf, size_t size, __u64 ns)
{
	if (ns < 10000)
		snprintf(buf, size, "%" PRIu64 "ns", (uint64_t)ns);
	else if (ns < 10000000)
		snprintf(buf, size, "%.1fus", ns / 1e3);
	else if (ns < 10000000000ULL)
		snprintf(buf, size, "%.1fms", ns / 1e6);
	else
		snprintf(buf, size, "%.2fs", ns / 1e9);
}

static void print_stars(FILE *f, __u64 val, __u64 max, int width)
{
	int n = max ? (int)((double)val * width / max) : 0, i;

	if (val && !n)
		n = 1; /* a non-empty bucket is never blank */
	for (i = 0; i < width; i++)
		fputc(i < n ? '*' : ' ', f);
}

static void print_hist(FILE *f, const struct ft_hist_cfg *cfg, const struct ft_func_stats *st)
{
	unsigned int i, first = UINT32_MAX, last = 0, n = hist_nbuckets(cfg);
	__u64 max = 0, lo, hi;

	for (i = 0; i < n; i++) {
		if (!st->hist[i])
			continue;
		if (first == UINT32_MAX)
			first = i;
		last = i;
		if (st->hist[i] > max)
			max = st->hist[i];
	}
	if (first == UINT32_MAX)
		return;
	fprintf(f, "%24s : %-10s distribution\n", "nsecs", "count");
	for (i = first; i <= last; i++) {
		char range[64];

		ft_hist_bounds(cfg, i, &lo, &hi);
		if (hi == UINT64_MAX)
			snprintf(range, sizeof(range), "%" PRIu64 " -> inf", (uint64_t)lo);
		else
			snprintf(range, sizeof(range), "%" PRIu64 " -> %" PRIu64, (uint64_t)lo,
				 (uint64_t)hi);
		fprintf(f, "%24s : %-10" PRIu64 " |", range, (uint64_t)st->hist[i]);
		print_stars(f, st->hist[i], max, 40);
		fprintf(f, "|\n");
	}
}

void ft_report_text(FILE *f, struct ft_run *run, bool hist)
{
	struct ft_targets *tg = run->targets;
	struct ft_pern *rows;
	struct copy_row *copies;
	size_t nrows, ncopies, i;
	char a[32], b[32], c[32], d[32], e[32], g[32], h[32];
	int k;

	{
		int nf, nk, nn;

		attach_counts(tg, &nf, &nk, &nn);
		fprintf(f, "fibtrace: kernel %s, %d functions (fentry %d, kprobe %d, untraceable %d), %s",
			run->kernel, tg->count, nf, nk, nn, run->run_mode);
	}
	if (run->cpu >= 0)
		fprintf(f, ", cpu %d", run->cpu);
	if (run->sweep)
		fprintf(f, ", sweep %" PRIu64 ":%" PRIu64 ":%" PRIu64 " x%u, %" PRIu64 " reads",
			(uint64_t)run->first, (uint64_t)run->last, (uint64_t)run->step,
			run->repeat, (uint64_t)run->reads_issued);
	fprintf(f, ", %.2fs\n", run->seconds);

	if (hist) {
		for (k = 0; k < tg->count; k++) {
			struct ft_target *t = &tg->t[k];

			if (!t->attached || !t->st.count)
				continue;
			fmt_ns(a, sizeof(a), t->st.total_ns / t->st.count);
			fmt_ns(b, sizeof(b), ft_hist_percentile(&run->hist, &t->st, 0.5));
			fmt_ns(c, sizeof(c), ft_hist_percentile(&run->hist, &t->st, 0.9));
			fmt_ns(d, sizeof(d), ft_hist_percentile(&run->hist, &t->st, 0.99));
			fprintf(f, "\n%s%s%s [%s]: count %" PRIu64 ", avg %s, p50 %s, p90 %s, p99 %s\n",
				t->module[0] ? t->module : "", t->module[0] ? ":" : "", t->name,
				attach_name(t), (uint64_t)t->st.count, a, b, c, d);
			print_hist(f, &run->hist, &t->st);
		}
	}

	fprintf(f, "\n%-28s %-6s %10s %10s %10s %9s %9s %9s %9s %9s\n", "function", "attach",
		"count", "total", "self", "avg", "p50", "p99", "min", "max");
	for (k = 0; k < tg->count; k++) {
		struct ft_target *t = &tg->t[k];
		const struct ft_func_stats *s = &t->st;

		if (!t->attached && !t->unavailable)
			continue;
		fmt_ns(a, sizeof(a), s->total_ns);
		fmt_ns(b, sizeof(b), s->self_ns);
		fmt_ns(c, sizeof(c), s->count ? s->total_ns / s->count : 0);
		fmt_ns(d, sizeof(d), ft_hist_percentile(&run->hist, s, 0.5));
		fmt_ns(e, sizeof(e), ft_hist_percentile(&run->hist, s, 0.99));
		fmt_ns(g, sizeof(g), s->min_ns);
		fmt_ns(h, sizeof(h), s->max_ns);
		fprintf(f, "%-28s %-6s %10" PRIu64 " %10s %10s %9s %9s %9s %9s %9s\n", t->name,
			attach_name(t), (uint64_t)s->count, a, b, c, d, e, g, h);
	}
	ft_counters_text(f, run);

	nrows = ft_pern_build(run, &rows);
	if (nrows) {
		fprintf(f, "\nfib_read per n (exact, from %zu read records; breakdown = medians):\n",
			run->nrecs);
		fprintf(f, "%-22s %8s %6s %9s %9s %9s %9s %9s %9s %9s\n", "algo", "n", "count",
			"median", "p90", "p99", "compute", "format", "copy", "rest");
		for (i = 0; i < nrows; i++) {
			struct ft_pern *r = &rows[i];

			fmt_ns(a, sizeof(a), r->median);
			fmt_ns(b, sizeof(b), r->p90);
			fmt_ns(c, sizeof(c), r->p99);
			fmt_ns(d, sizeof(d), r->compute);
			fmt_ns(e, sizeof(e), r->format);
			fmt_ns(g, sizeof(g), r->copy);
			fmt_ns(h, sizeof(h), r->rest);
			fprintf(f, "%-22s %8" PRIu64 " %6" PRIu64 " %9s %9s %9s %9s %9s %9s %9s\n",
				ft_algo_name(run, r->algo), (uint64_t)r->n, (uint64_t)r->count, a, b,
				c, d, e, g, h);
		}
	}
	free(rows);
	ft_counters_text_pern(f, run);

	ncopies = copy_build(run, &copies);
	if (ncopies) {
		size_t step = ncopies > 20 ? ncopies / 20 : 1;

		fprintf(f, "\ncopy to user space (fibdrv_copy) per size (%zu sizes%s):\n", ncopies,
			step > 1 ? ", sampled" : "");
		fprintf(f, "%10s %8s %10s %10s\n", "bytes", "calls", "avg", "MB/s");
		for (i = 0; i < ncopies; i += step) {
			struct copy_row *r = &copies[i];
			double avg = (double)r->ns / r->count;

			fmt_ns(a, sizeof(a), (__u64)avg);
			fprintf(f, "%10" PRIu64 " %8" PRIu64 " %10s %10.1f\n", (uint64_t)r->bytes,
				(uint64_t)r->count, a, avg > 0 ? r->bytes * 1e3 / avg : 0.0);
		}
	}
	free(copies);

	fprintf(f, "\nlost:");
	for (k = 0; k < FT_LOST_NR; k++)
		fprintf(f, " %s %" PRIu64, lost_names[k], (uint64_t)run->lost[k]);
	fprintf(f, " recursion_misses %" PRIu64 "\n", (uint64_t)run->recursion_misses);
	if (run->read_errors)
		fprintf(f, "read errors: %" PRIu64 "\n", (uint64_t)run->read_errors);
}

/* ---------- JSON ---------- */

void ft_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void ft_report_json(FILE *f, struct ft_run *run)
{
	struct ft_targets *tg = run->targets;
	struct ft_pern *rows;
	struct copy_row *copies;
	size_t nrows, ncopies, i;
	unsigned int nb = hist_nbuckets(&run->hist), j;
	int k;
	bool first;
	int nf, nk, nn;

	attach_counts(tg, &nf, &nk, &nn);
	fprintf(f, "{\n  \"meta\": {\"tool\": \"fibtrace\", \"schema\": 1, \"kernel\": ");
	ft_json_str(f, run->kernel);
	fprintf(f, ", \"attach_counts\": {\"fentry\": %d, \"kprobe\": %d, \"none\": %d}", nf, nk, nn);
	fprintf(f, ", \"attach\": \"%s\", \"mode\": \"%s\", \"cpu\": %d, \"seconds\": %.6f, "
		   "\"filter_pid\": %u, \"module_btf\": %s,\n",
		overall_attach(tg), run->run_mode, run->cpu, run->seconds, run->filter_pid,
		tg->module_btf ? "true" : "false");
	if (run->hist.linear)
		fprintf(f, "    \"hist\": {\"type\": \"linear\", \"min_ns\": %" PRIu64
			   ", \"max_ns\": %" PRIu64 ", \"step_ns\": %" PRIu64 "},\n",
			(uint64_t)run->hist.lin_min, (uint64_t)run->hist.lin_max,
			(uint64_t)run->hist.lin_step);
	else
		fprintf(f, "    \"hist\": {\"type\": \"log2\", \"sub_bits\": %u},\n", run->hist.bits);
	fprintf(f, "    \"algorithms\": [");
	for (k = 0; k < run->nalgos; k++) {
		fprintf(f, "%s", k ? ", " : "");
		ft_json_str(f, run->algos[k]);
	}
	fprintf(f, "],\n");
	if (run->sweep)
		fprintf(f, "    \"sweep\": {\"first\": %" PRIu64 ", \"last\": %" PRIu64
			   ", \"step\": %" PRIu64 ", \"repeat\": %u, \"reads_issued\": %" PRIu64
			   ", \"read_errors\": %" PRIu64 "},\n",
			(uint64_t)run->first, (uint64_t)run->last, (uint64_t)run->step, run->repeat,
			(uint64_t)run->reads_issued, (uint64_t)run->read_errors);
	fprintf(f, "    \"warnings\": [");
	for (k = 0; k < run->nwarnings; k++) {
		fprintf(f, "%s", k ? ", " : "");
		ft_json_str(f, run->warnings[k]);
	}
	fprintf(f, "]");
	ft_counters_json_meta(f, run);
	fprintf(f, "\n  },\n  \"functions\": [");
	first = true;
	for (k = 0; k < tg->count; k++) {
		struct ft_target *t = &tg->t[k];
		const struct ft_func_stats *s = &t->st;
		bool hfirst = true;

		if (!t->attached && !t->unavailable)
			continue;
		fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
		first = false;
		ft_json_str(f, t->name);
		fprintf(f, ", \"module\": ");
		ft_json_str(f, t->module[0] ? t->module : "vmlinux");
		fprintf(f, ", \"attach\": \"%s\", \"count\": %" PRIu64 ", \"total_ns\": %" PRIu64
			   ", \"self_ns\": %" PRIu64 ", \"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
			   ", \"avg_ns\": %" PRIu64 ", \"p50_ns\": %" PRIu64 ", \"p90_ns\": %" PRIu64
			   ", \"p99_ns\": %" PRIu64 ", \"recursion_misses\": %" PRIu64 ",\n      \"hist\": [",
			attach_name(t), (uint64_t)s->count, (uint64_t)s->total_ns,
			(uint64_t)s->self_ns, (uint64_t)s->min_ns, (uint64_t)s->max_ns,
			(uint64_t)(s->count ? s->total_ns / s->count : 0),
			(uint64_t)ft_hist_percentile(&run->hist, s, 0.5),
			(uint64_t)ft_hist_percentile(&run->hist, s, 0.9),
			(uint64_t)ft_hist_percentile(&run->hist, s, 0.99),
			(uint64_t)t->recursion_misses);
		for (j = 0; j < nb; j++) {
			__u64 lo, hi;

			if (!s->hist[j])
				continue;
			ft_hist_bounds(&run->hist, j, &lo, &hi);
			fprintf(f, "%s{\"lo_ns\": %" PRIu64 ", \"hi_ns\": %" PRIu64 ", \"count\": %" PRIu64 "}",
				hfirst ? "" : ", ", (uint64_t)lo, (uint64_t)hi, (uint64_t)s->hist[j]);
			hfirst = false;
		}
		fprintf(f, "]");
		ft_counters_json_func(f, run, t);
		fputc('}', f);
	}
	fprintf(f, "\n  ],\n  \"per_n\": [");
	nrows = ft_pern_build(run, &rows);
	for (i = 0; i < nrows; i++) {
		struct ft_pern *r = &rows[i];

		fprintf(f, "%s\n    {\"algo\": ", i ? "," : "");
		ft_json_str(f, ft_algo_name(run, r->algo));
		fprintf(f, ", \"algo_id\": %u, \"n\": %" PRIu64 ", \"count\": %" PRIu64
			   ", \"errors\": %" PRIu64 ", \"median_ns\": %" PRIu64 ", \"p90_ns\": %" PRIu64
			   ", \"p99_ns\": %" PRIu64 ", \"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
			   ", \"parts_over_total\": %" PRIu64 ", \"breakdown\": {\"compute_ns\": %" PRIu64
			   ", \"format_ns\": %" PRIu64 ", \"copy_ns\": %" PRIu64 ", \"rest_ns\": %" PRIu64 "}",
			r->algo, (uint64_t)r->n, (uint64_t)r->count, (uint64_t)r->errors,
			(uint64_t)r->median, (uint64_t)r->p90, (uint64_t)r->p99, (uint64_t)r->min,
			(uint64_t)r->max, (uint64_t)r->parts_over_total, (uint64_t)r->compute,
			(uint64_t)r->format, (uint64_t)r->copy, (uint64_t)r->rest);
		ft_counters_json_pern(f, run, r->algo, r->n);
		fputc('}', f);
	}
	free(rows);
	fprintf(f, "\n  ],\n  \"copy\": [");
	ncopies = copy_build(run, &copies);
	for (i = 0; i < ncopies; i++)
		fprintf(f, "%s\n    {\"bytes\": %" PRIu64 ", \"count\": %" PRIu64 ", \"ns\": %" PRIu64 "}",
			i ? "," : "", (uint64_t)copies[i].bytes, (uint64_t)copies[i].count,
			(uint64_t)copies[i].ns);
	free(copies);
	fprintf(f, "\n  ],\n  \"lost\": {");
	for (k = 0; k < FT_LOST_NR; k++)
		fprintf(f, "\"%s\": %" PRIu64 ", ", lost_names[k], (uint64_t)run->lost[k]);
	fprintf(f, "\"recursion_misses\": %" PRIu64 "}", (uint64_t)run->recursion_misses);
	if (run->raw) {
		fprintf(f, ",\n  \"reads\": [");
		for (i = 0; i < run->nrecs; i++) {
			const struct ft_read_rec *x = &run->recs[i];

			fprintf(f, "%s\n    {\"algo_id\": %u, \"n\": %" PRIu64 ", \"total_ns\": %" PRIu64
				   ", \"compute_ns\": %" PRIu64 ", \"format_ns\": %" PRIu64
				   ", \"copy_ns\": %" PRIu64 ", \"copy_to_user_ns\": %" PRIu64
				   ", \"copy_bytes\": %" PRIu64 ", \"copy_calls\": %u, \"ret\": %" PRId64
				   ", \"cpu\": %u",
				i ? "," : "", x->algo, (uint64_t)x->n, (uint64_t)x->total_ns,
				(uint64_t)x->stage_ns[0], (uint64_t)x->stage_ns[1],
				(uint64_t)x->stage_ns[2], (uint64_t)x->copy_ns,
				(uint64_t)x->copy_bytes, x->copy_calls, (int64_t)x->ret, x->cpu);
			ft_counters_json_rec(f, run, x);
			fputc('}', f);
		}
		fprintf(f, "\n  ]");
	}
	fprintf(f, "\n}\n");
}

/* ---------- CSV: the function table, a blank line, the per-n table ---------- */

void ft_report_csv(FILE *f, struct ft_run *run)
{
	struct ft_targets *tg = run->targets;
	struct ft_pern *rows;
	size_t nrows, i;
	int k;

	fprintf(f, "function,module,attach,count,total_ns,self_ns,min_ns,max_ns,p50_ns,p90_ns,p99_ns");
	ft_counters_csv_func_head(f, run);
	fputc('\n', f);
	for (k = 0; k < tg->count; k++) {
		struct ft_target *t = &tg->t[k];

		if (!t->attached && !t->unavailable)
			continue;
		fprintf(f, "%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			   ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
			t->name, t->module[0] ? t->module : "vmlinux", attach_name(t),
			(uint64_t)t->st.count, (uint64_t)t->st.total_ns, (uint64_t)t->st.self_ns,
			(uint64_t)t->st.min_ns, (uint64_t)t->st.max_ns,
			(uint64_t)ft_hist_percentile(&run->hist, &t->st, 0.5),
			(uint64_t)ft_hist_percentile(&run->hist, &t->st, 0.9),
			(uint64_t)ft_hist_percentile(&run->hist, &t->st, 0.99));
		ft_counters_csv_func(f, run, t);
		fputc('\n', f);
	}
	nrows = ft_pern_build(run, &rows);
	if (nrows) {
		fprintf(f, "\nalgo,n,count,median_ns,p90_ns,p99_ns,compute_ns,format_ns,copy_ns,rest_ns");
		ft_counters_csv_pern_head(f, run);
		fputc('\n', f);
		for (i = 0; i < nrows; i++) {
			fprintf(f, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				   ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
				ft_algo_name(run, rows[i].algo), (uint64_t)rows[i].n,
				(uint64_t)rows[i].count, (uint64_t)rows[i].median,
				(uint64_t)rows[i].p90, (uint64_t)rows[i].p99,
				(uint64_t)rows[i].compute, (uint64_t)rows[i].format,
				(uint64_t)rows[i].copy, (uint64_t)rows[i].rest);
			ft_counters_csv_pern(f, run, rows[i].algo, rows[i].n);
			fputc('\n', f);
		}
	}
	free(rows);
}
