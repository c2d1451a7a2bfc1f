// SPDX-License-Identifier: GPL-2.0
/* From BPF's maps and records to the reports' numbers: see aggregate.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "stats.h"

unsigned int ft_hist_nbuckets(const struct ft_hist_cfg *cfg)
{
	return cfg->linear ? cfg->lin_buckets + 2 : FT_HIST_SLOTS;
}

static void linear_bounds(const struct ft_hist_cfg *cfg, unsigned int idx, __u64 *lo, __u64 *hi)
{
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
}

void ft_hist_bounds(const struct ft_hist_cfg *cfg, unsigned int idx, __u64 *lo, __u64 *hi)
{
	unsigned int b = cfg->bits, g, sub;

	if (cfg->linear) {
		linear_bounds(cfg, idx, lo, hi);
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

/* Percentile p of @count values in @hist, known to lie in [min, max]. */
static __u64 hist_percentile(const struct ft_hist_cfg *cfg, const __u64 *hist, __u64 count,
			     __u64 min, __u64 max, double p)
{
	__u64 target, cum = 0, lo, hi;
	unsigned int i, n = ft_hist_nbuckets(cfg);

	if (!count)
		return 0;
	target = (__u64)(p * count + 0.999999);
	if (target < 1)
		target = 1;
	for (i = 0; i < n; i++) {
		if (!hist[i])
			continue;
		if (cum + hist[i] >= target) {
			ft_hist_bounds(cfg, i, &lo, &hi);
			if (hi > max)
				hi = max;
			if (lo < min)
				lo = min;
			if (hi < lo)
				hi = lo;
			return lo + (__u64)((double)(hi - lo) * (target - cum) / hist[i]);
		}
		cum += hist[i];
	}
	return max;
}

__u64 ft_hist_percentile(const struct ft_hist_cfg *cfg, const struct ft_func_stats *st, double p)
{
	return hist_percentile(cfg, st->hist, st->count, st->min_ns, st->max_ns, p);
}

/*
 * The per-CPU counters are read one CPU after another, not at one instant:
 * a call entered on a CPU already read and ended on one read later shows
 * an end without its entry. Such a moment reads as 0 open, not as 2^64.
 */
__u64 ft_func_open(const struct ft_func_stats *st)
{
	__u64 ended = st->root_returned + st->root_dropped;

	return st->root_entered > ended ? st->root_entered - ended : 0;
}

/* A compensated duration is at most the raw one: max_ns bounds it too. */
void ft_func_figures(const struct ft_hist_cfg *cfg, const struct ft_func_stats *st, bool comp,
		     struct ft_func_fig *f)
{
	const __u64 *hist = comp ? st->comp_hist : st->hist;
	__u64 min = comp ? 0 : st->min_ns;

	f->total = comp ? st->comp_total_ns : st->total_ns;
	f->self = comp ? st->comp_self_ns : st->self_ns;
	f->avg = st->count ? f->total / st->count : 0;
	f->p50 = hist_percentile(cfg, hist, st->count, min, st->max_ns, 0.5);
	f->p90 = hist_percentile(cfg, hist, st->count, min, st->max_ns, 0.9);
	f->p99 = hist_percentile(cfg, hist, st->count, min, st->max_ns, 0.99);
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

/* The quantile (lib/stats.h) of sorted integer samples, to the nearest ns. */
static __u64 quantile_u64(const double *sorted, size_t n, double q)
{
	return (__u64)llround(stats_quantile_sorted(sorted, n, q));
}

enum pern_part { PART_TOTAL, PART_COMPUTE, PART_FORMAT, PART_COPY, PART_REST };

/* One part of a read, raw or compensated (@comp). */
static double part_of(const struct ft_read_rec *x, enum pern_part part, bool comp)
{
	const __u64 *stage = comp ? x->comp_stage_ns : x->stage_ns;
	__u64 total = comp ? x->comp_total_ns : x->total_ns;
	__u64 parts = stage[0] + stage[1] + stage[2];

	switch (part) {
	case PART_TOTAL:
		return total;
	case PART_REST:
		return total > parts ? total - parts : 0;
	default:
		return stage[part - PART_COMPUTE];
	}
}

/* Sorted values of one part over recs[0..cnt-1], into tmp. */
static void sorted_part(const struct ft_read_rec *recs, size_t cnt, enum pern_part part, bool comp,
			double *tmp)
{
	size_t k;

	for (k = 0; k < cnt; k++)
		tmp[k] = part_of(&recs[k], part, comp);
	qsort(tmp, cnt, sizeof(*tmp), stats_cmp_double);
}

/* Median, p90, p99 and the breakdown's medians of the records, raw or compensated. */
static void pern_fig(const struct ft_read_rec *recs, size_t cnt, double *tmp, bool comp,
		     struct ft_pern_fig *f)
{
	sorted_part(recs, cnt, PART_TOTAL, comp, tmp);
	f->median = quantile_u64(tmp, cnt, 0.5);
	f->p90 = quantile_u64(tmp, cnt, 0.9);
	f->p99 = quantile_u64(tmp, cnt, 0.99);
	sorted_part(recs, cnt, PART_COMPUTE, comp, tmp);
	f->compute = quantile_u64(tmp, cnt, 0.5);
	sorted_part(recs, cnt, PART_FORMAT, comp, tmp);
	f->format = quantile_u64(tmp, cnt, 0.5);
	sorted_part(recs, cnt, PART_COPY, comp, tmp);
	f->copy = quantile_u64(tmp, cnt, 0.5);
	sorted_part(recs, cnt, PART_REST, comp, tmp);
	f->rest = quantile_u64(tmp, cnt, 0.5);
}

/* One row from the cnt records of one (algo, n). */
static void pern_row(const struct ft_read_rec *recs, size_t cnt, double *tmp, struct ft_pern *r)
{
	size_t k;

	memset(r, 0, sizeof(*r));
	r->algo = recs[0].algo;
	r->n = recs[0].n;
	r->count = cnt;
	r->min = recs[0].total_ns;
	for (k = 0; k < cnt; k++) {
		if (recs[k].ret < 0)
			r->errors++;
		if (recs[k].stage_ns[0] + recs[k].stage_ns[1] + recs[k].stage_ns[2] >
		    recs[k].total_ns)
			r->parts_over_total++;
		r->min = recs[k].total_ns < r->min ? recs[k].total_ns : r->min;
		r->max = recs[k].total_ns > r->max ? recs[k].total_ns : r->max;
		r->calls += recs[k].calls;
		r->off_ns += recs[k].off_ns;
		r->switched += recs[k].switches != 0;
		tmp[k] = recs[k].comp_err_ns;
	}
	r->calls /= cnt;
	qsort(tmp, cnt, sizeof(*tmp), stats_cmp_double);
	r->comp_err = quantile_u64(tmp, cnt, 0.5);
	for (k = 0; k < cnt; k++)
		tmp[k] = recs[k].total_ns - recs[k].off_ns;
	qsort(tmp, cnt, sizeof(*tmp), stats_cmp_double);
	r->oncpu_median = quantile_u64(tmp, cnt, 0.5);
	pern_fig(recs, cnt, tmp, false, &r->raw);
	pern_fig(recs, cnt, tmp, true, &r->comp);
}

static size_t pern_build(struct ft_run *run, struct ft_pern **out)
{
	struct ft_pern *rows = NULL;
	size_t nrows = 0, i = 0, j, cap = 0;
	double *tmp;

	*out = NULL;
	if (!run->nrecs)
		return 0;
	qsort(run->recs, run->nrecs, sizeof(*run->recs), cmp_rec);
	tmp = malloc(run->nrecs * sizeof(*tmp));
	if (!tmp)
		return 0;
	while (i < run->nrecs) {
		for (j = i; j < run->nrecs && !cmp_rec(&run->recs[j], &run->recs[i]); j++)
			;
		if (nrows == cap) {
			struct ft_pern *nr;

			cap = cap ? cap * 2 : 256;
			nr = realloc(rows, cap * sizeof(*rows));
			if (!nr)
				break;
			rows = nr;
		}
		pern_row(&run->recs[i], j - i, tmp, &rows[nrows++]);
		i = j;
	}
	free(tmp);
	*out = rows;
	return nrows;
}

size_t ft_pern_rows(struct ft_run *run, const struct ft_pern **out)
{
	if (!run->pern_valid) {
		free(run->pern);
		run->npern = pern_build(run, &run->pern);
		run->pern_valid = true;
	}
	*out = run->pern;
	return run->npern;
}

static int cmp_copy(const void *a, const void *b)
{
	const struct ft_copy_row *x = a, *y = b;

	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

size_t ft_copy_build(const struct ft_run *run, struct ft_copy_row **out)
{
	struct ft_copy_row *rows;
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

void ft_attach_counts(const struct ft_targets *tg, int by_mode[FT_MODE_NR], int *none)
{
	int i;

	*none = 0;
	for (i = 0; i < FT_MODE_NR; i++)
		by_mode[i] = 0;
	for (i = 0; i < tg->count; i++) {
		if (tg->t[i].unavailable)
			(*none)++;
		else
			by_mode[tg->t[i].mode]++;
	}
}

const char *ft_attach_name(const struct ft_target *t)
{
	return t->unavailable ? "none" : ft_mode_name(t->mode);
}

/* ---------- counters ---------- */

bool ft_cnt_is_scaled(const struct ft_cnt_delta *d)
{
	return d->running && d->running < d->enabled;
}

double ft_cnt_scaled(const struct ft_cnt_delta *d)
{
	if (ft_cnt_is_scaled(d))
		return d->value * ((double)d->enabled / d->running);
	return d->value;
}

double ft_cnt_running_pct(const struct ft_cnt_delta *d)
{
	return d->enabled ? 100.0 * d->running / d->enabled : 100.0;
}

__u64 ft_cnt_discarded_total(const struct ft_cnt_stats *s)
{
	__u64 n = 0;
	int r;

	for (r = FT_CNT_MIGRATED; r < FT_CNT_STATUS_NR; r++)
		n += s->discarded[r];
	return n;
}

void ft_cnt_add(struct ft_cnt_delta *to, const struct ft_cnt_delta *d)
{
	to->value += d->value;
	to->enabled += d->enabled;
	to->running += d->running;
}

/* First record >= (algo, n) in the sorted records. */
static size_t lower_bound(const struct ft_run *run, unsigned int algo, __u64 n)
{
	size_t lo = 0, hi = run->nrecs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ft_read_rec *x = &run->recs[mid];

		if (x->algo < algo || (x->algo == algo && x->n < n))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void ft_pern_counters(const struct ft_run *run, unsigned int algo, __u64 n, struct ft_pern_cnt *p)
{
	int nev = run->counters ? run->counters->nev : 0, e;
	size_t lo = lower_bound(run, algo, n), hi, i, cnt;
	double *v;

	memset(p, 0, sizeof(*p));
	for (hi = lo; hi < run->nrecs && run->recs[hi].algo == algo && run->recs[hi].n == n; hi++)
		;
	for (i = lo; i < hi; i++) {
		const struct ft_read_rec *x = &run->recs[i];

		if (x->cnt_status != FT_CNT_OK) {
			p->discarded += x->cnt_status != FT_CNT_NONE;
			continue;
		}
		p->kept++;
		for (e = 0; e < nev; e++)
			ft_cnt_add(&p->sum[e], &x->cnt[e]);
	}
	v = malloc((hi - lo + 1) * sizeof(*v));
	for (e = 0; v && p->kept && e < nev; e++) {
		cnt = 0;
		for (i = lo; i < hi; i++)
			if (run->recs[i].cnt_status == FT_CNT_OK)
				v[cnt++] = ft_cnt_scaled(&run->recs[i].cnt[e]);
		p->median[e] = stats_median(v, cnt);
	}
	free(v);
}

/* ---------- interval deltas ---------- */

static void sub_delta(struct ft_cnt_delta *d, const struct ft_cnt_delta *prev)
{
	d->value -= prev->value;
	d->enabled -= prev->enabled;
	d->running -= prev->running;
}

static void cnt_delta(struct ft_cnt_stats *s, const struct ft_cnt_stats *prev)
{
	int r, e;

	s->kept -= prev->kept;
	for (r = 0; r < FT_CNT_STATUS_NR; r++)
		s->discarded[r] -= prev->discarded[r];
	for (e = 0; e < FT_MAX_EVENTS; e++)
		sub_delta(&s->sum[e], &prev->sum[e]);
}

void ft_interval_delta(struct ft_run *run, struct ft_interval_prev *prev, __u64 *prev_lost)
{
	struct ft_targets *tg = run->targets;
	int i, h;

	for (i = 0; i < tg->count; i++) {
		struct ft_func_stats *s = &tg->t[i].st, cur = *s;
		struct ft_cnt_stats cur_cnt = tg->t[i].cnt;

		s->count -= prev[i].st.count;
		s->total_ns -= prev[i].st.total_ns;
		s->self_ns -= prev[i].st.self_ns;
		s->comp_total_ns -= prev[i].st.comp_total_ns;
		s->comp_self_ns -= prev[i].st.comp_self_ns;
		s->comp_clamped -= prev[i].st.comp_clamped;
		s->comp_err_ns -= prev[i].st.comp_err_ns;
		s->off_ns -= prev[i].st.off_ns;
		s->off_calls -= prev[i].st.off_calls;
		/* root_*: cumulative, their difference a gauge (bpf/fibtrace.h) */
		for (h = 0; h < FT_HIST_SLOTS; h++) {
			s->hist[h] -= prev[i].st.hist[h];
			s->comp_hist[h] -= prev[i].st.comp_hist[h];
		}
		prev[i].st = cur;
		cnt_delta(&tg->t[i].cnt, &prev[i].cnt);
		prev[i].cnt = cur_cnt;
	}
	for (i = 0; i < FT_LOST_NR; i++) {
		__u64 now = run->lost[i];

		run->lost[i] -= prev_lost[i];
		prev_lost[i] = now;
	}
}
