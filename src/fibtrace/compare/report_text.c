// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace --compare, the text report: a header (what was measured, the
 * hygiene checks, reads and outliers), the table of medians and changes
 * against the baseline (consecutive n grouped into at most --rows rows), the
 * summary per candidate and where the time goes.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "fmt.h"

static const char *metric_desc(enum ft_cmp_metric m)
{
	switch (m) {
	case FT_METRIC_TOTAL:
		return "fib_read kernel time (BPF)";
	case FT_METRIC_COMPUTE:
		return "fibdrv_compute kernel time (BPF)";
	case FT_METRIC_FORMAT:
		return "fibdrv_format kernel time (BPF)";
	case FT_METRIC_COPY:
		return "fibdrv_copy kernel time (BPF)";
	case FT_METRIC_COUNTER:
		return "the first -e event counted inside fib_read (BPF, scaled)";
	case FT_METRIC_ONCPU:
		return "fib_read on-CPU time: kernel time minus time switched out (BPF)";
	default:
		return "read() syscall, user side (CLOCK_MONOTONIC)";
	}
}

static void pct_of(char *buf, size_t size, double part, double whole)
{
	if (isnan(part) || isnan(whole) || whole <= 0)
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%.1f%%", 100 * part / whole);
}

static void print_header(FILE *f, const struct ft_compare *c, const struct ft_run *run)
{
	enum ft_cmp_metric m = c->o.metric;
	bool comp = cmp_compensated(c, run) && (m <= FT_METRIC_COPY || m == FT_METRIC_ONCPU);
	uint64_t removed = 0, kept = 0;
	int v, h;

	fprintf(f,
		"fibtrace --compare %s: kernel %s, clock %s, metric %s (%s%s)\n"
		"n %" PRIu64 "..%" PRIu64 " step %" PRIu64 " (%zu values), %u rounds interleaved "
		"(%d warm-up round discarded), baseline %s\n",
		ft_cmp_kind_name(c->o.kind), run->kernel, ft_run_clock_desc(run),
		ft_cmp_metric_name(c->o.metric), metric_desc(c->o.metric),
		comp ? ", compensated for tracing" : "", c->first, nth(c, c->nn - 1), c->step,
		c->nn, c->repeat, WARMUP_ROUNDS, c->var[c->base].label);
	if (cmp_burst(run) > 1)
		fprintf(f,
			"each visit (variant, n, round): %u reads back to back, the cheapest "
			"counted (the kernel allocator's batch refills set aside)\n",
			cmp_burst(run));
	if (c->o.kind == FT_CMP_FORMATS)
		fprintf(f, "algorithm %s, output format dec (decimal) against bin (binary limbs)\n",
			var_algo(&c->var[0]));
	if (c->o.kind == FT_CMP_BUILDS) {
		fprintf(f, "algorithm %s; builds side by side, each traced by its own BPF object:",
			var_algo(&c->var[0]));
		for (v = 0; v < c->nv; v++)
			fprintf(f, " %s (%s)", c->var[v].label, c->var[v].device);
		fputc('\n', f);
	}
	if (c->attr)
		fprintf(f,
			"--attribute: %d functions traced per build; the read times above are raw "
			"and "
			"include tracing every call: judge fib_read by the read-path-only "
			"comparison "
			"(without --attribute)\n",
			run->targets->count);
	for (h = 0; h < c->nhy; h++)
		fprintf(f, "hygiene: %-4s %-15s %s\n",
			c->hy[h].status == HY_WARN ? "WARN" : cmp_hy_status_name(c->hy[h].status),
			c->hy[h].name, c->hy[h].detail);
	for (v = 0; v < c->nv; v++) {
		removed += c->var[v].removed;
		kept += c->var[v].matched - c->var[v].removed;
	}
	fprintf(f,
		"reads: %" PRIu64 " measured (%" PRIu64 " counted), %" PRIu64 " failed, %" PRIu64
		" without a matching BPF record; lost in BPF: %" PRIu64 " (ring buffer)\n",
		c->reads_issued, removed + kept, c->read_errors, c->unmatched,
		(uint64_t)run->lost[FT_LOST_RINGBUF]);
	fprintf(f, "outliers (%s%s): removed %" PRIu64 " of %" PRIu64 " reads:",
		ft_cmp_outliers_name(c->o.outliers),
		c->o.outliers == FT_OUTLIERS_TUKEY  ? ", outside Q1-1.5IQR..Q3+1.5IQR per n"
		: c->o.outliers == FT_OUTLIERS_TRIM ? ", 5% from each tail per n"
						    : ", none removed",
		removed, removed + kept);
	for (v = 0; v < c->nv; v++)
		fprintf(f, " %s %" PRIu64 "%s", c->var[v].label, c->var[v].removed,
			v + 1 < c->nv ? "," : "\n");
}

/* Geometric mean of the finite positive values of x[0..n). */
static double geomean_positive(const double *x, size_t n)
{
	double s = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		double v = x[i];

		if (v > 0 && isfinite(v)) {
			s += log(v);
			k++;
		}
	}
	return k ? exp(s / k) : NAN;
}

static void fmt_median_ci(char *buf, size_t size, const struct ft_cmp_cell *cell)
{
	char med[32];
	double half;

	fmt_ns(med, sizeof(med), cell->s.median, FMT_NS_SIG4);
	half = fmax(cell->ci_hi - cell->s.median, cell->s.median - cell->ci_lo);
	if (isnan(half) || !(cell->s.median > 0))
		snprintf(buf, size, "%s", med);
	else
		snprintf(buf, size, "%s ±%3.0f%%", med, 100 * half / cell->s.median);
}

/* s left-aligned in `width` columns: UTF-8 continuation bytes take none. */
static void put_col(FILE *f, const char *s, int width)
{
	int cols = 0;
	const char *p;

	for (p = s; *p; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80;
	fputs(s, f);
	for (; cols < width; cols++)
		fputc(' ', f);
}

/* The two title lines; width[v]: columns of variant v's median column. */
static void table_head(FILE *f, const struct ft_compare *c, bool grouped, int *width)
{
	int v;

	fprintf(f, "\n%-17s", grouped ? "n (range, count)" : "n");
	for (v = 0; v < c->nv; v++) {
		char title[100];

		snprintf(title, sizeof(title), "%s%s", c->var[v].label,
			 v == c->base ? " (baseline)" : "");
		width[v] = strlen(title) > 19 ? (int)strlen(title) : 19;
		fprintf(f, " | ");
		put_col(f, title, width[v]);
		if (v != c->base)
			fprintf(f, " %-31s %-13s", "", "");
	}
	fprintf(f, "\n%-17s", "");
	for (v = 0; v < c->nv; v++) {
		fprintf(f, " | ");
		put_col(f, grouped ? "geomean of medians" : "median ± CI", width[v]);
		if (v != c->base)
			fprintf(f, " %-31s %-13s",
				grouped ? "vs base (min..max)" : "vs base [95% CI]",
				grouped ? "significant n" : "p (Holm)");
	}
	fputc('\n', f);
}

/* One n: the change with its interval, and Holm's p. */
static void fmt_pair_one(char *span, size_t sspan, char *pcol, size_t spcol, bool exact,
			 const struct ft_cmp_pair *p)
{
	char d[24], lo[24], hi[24];

	ft_cmp_fmt_delta(d, sizeof(d), p->ratio);
	ft_cmp_fmt_delta(lo, sizeof(lo), p->ci_lo);
	ft_cmp_fmt_delta(hi, sizeof(hi), p->ci_hi);
	snprintf(span, sspan, "%7s [%s, %s]", d, lo, hi);
	if (exact)
		snprintf(pcol, spcol, "exact%s", p->significant ? " *" : " ~");
	else if (isnan(p->p_holm))
		snprintf(pcol, spcol, "p=?");
	else
		snprintf(pcol, spcol, "p=%.3f%s", p->p_holm, p->significant ? " *" : " ~");
}

/* A group of n (pp[0..cnt)): geomean change, its range, how many significant. */
static void fmt_pair_group(char *span, size_t sspan, char *pcol, size_t spcol,
			   const struct ft_cmp_pair *pp, size_t cnt, double *tmp)
{
	char d[24], lo[24], hi[24];
	double mn = INFINITY, mx = -INFINITY;
	size_t i, sig = 0;

	for (i = 0; i < cnt; i++) {
		tmp[i] = pp[i].ratio;
		if (pp[i].ratio < mn)
			mn = pp[i].ratio;
		if (pp[i].ratio > mx)
			mx = pp[i].ratio;
		sig += pp[i].significant;
	}
	ft_cmp_fmt_delta(d, sizeof(d), geomean_positive(tmp, cnt));
	ft_cmp_fmt_delta(lo, sizeof(lo), mn);
	ft_cmp_fmt_delta(hi, sizeof(hi), mx);
	snprintf(span, sspan, "%7s (%s..%s)", d, lo, hi);
	snprintf(pcol, spcol, "%zu/%zu", sig, cnt);
}

/* The row of n indices [a, b); tmp: scratch for b - a doubles. */
static void table_row(FILE *f, const struct ft_compare *c, size_t a, size_t b, const int *width,
		      double *tmp)
{
	char label[64], cellbuf[64], span[96], pcol[40];
	size_t i;
	int v;

	if (b - a == 1)
		snprintf(label, sizeof(label), "%" PRIu64, nth(c, a));
	else
		snprintf(label, sizeof(label), "%" PRIu64 "-%" PRIu64 " (%zu)", nth(c, a),
			 nth(c, b - 1), b - a);
	fprintf(f, "%-17s", label);
	for (v = 0; v < c->nv; v++) {
		if (b - a == 1) {
			fmt_median_ci(cellbuf, sizeof(cellbuf), cell_of(c, v, a));
		} else {
			for (i = a; i < b; i++)
				tmp[i - a] = cell_of(c, v, i)->s.median;
			fmt_ns(cellbuf, sizeof(cellbuf), geomean_positive(tmp, b - a), FMT_NS_SIG4);
		}
		fprintf(f, " | ");
		put_col(f, cellbuf, width[v]);
		if (v == c->base)
			continue;
		if (b - a == 1)
			fmt_pair_one(span, sizeof(span), pcol, sizeof(pcol), c->exact,
				     &pair_of(c, v)[a]);
		else
			fmt_pair_group(span, sizeof(span), pcol, sizeof(pcol), pair_of(c, v) + a,
				       b - a, tmp);
		fprintf(f, " %-31s %-13s", span, pcol);
	}
	fputc('\n', f);
}

static void print_table_padded(FILE *f, const struct ft_compare *c)
{
	int width[FT_CMP_MAX_VARIANTS];
	size_t rows_cap = (c->o.max_rows && c->o.max_rows < c->nn ? c->o.max_rows : c->nn) + 1;
	size_t *start = malloc(rows_cap * sizeof(*start)), nrows, r;
	double *tmp = malloc(c->nn * sizeof(*tmp));
	bool grouped;

	if (!start || !tmp) {
		free(start);
		free(tmp);
		return;
	}
	nrows = ft_cmp_group_rows(c->nn, c->o.max_rows, start);
	grouped = nrows < c->nn;
	table_head(f, c, grouped, width);
	for (r = 0; r < nrows; r++)
		table_row(f, c, start[r], start[r + 1], width, tmp);
	if (c->exact)
		fprintf(f,
			"\nTimes are instruction counts (QEMU icount), the same for every read "
			"that is not interrupted: no test is needed. vs base is median(variant) / "
			"median(baseline) - 1, [the changes of the minimum and of the median]; * a "
			"difference (both beyond %.1f%% of the read and %d instructions, the same "
			"way), ~ none.\n",
			FT_CMP_EXACT_TOL * 100, FT_CMP_EXACT_FLOOR_NS);
	else
		fprintf(f,
			"\n± is the 95%% bootstrap interval of the median; vs base is "
			"median(variant) / median(baseline) - 1 with its 95%% bootstrap interval; "
			"p: two-sided Mann-Whitney U, Holm-adjusted over all %zu comparisons; * "
			"significant (p at most %.2f and the interval excluding 0%%), ~ not.\n",
			c->npairs, FT_CMP_ALPHA);
	if (grouped)
		fprintf(f, "Rows group consecutive n (--rows 0 for one row per n): geometric means "
			   "over the group, the range of the per-n changes, and how many n are "
			   "significant.\n");
	free(start);
	free(tmp);
}

/* The table without the padding at the end of its lines. */
static void print_table(FILE *out, const struct ft_compare *c)
{
	char *buf = NULL, *line, *end;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		print_table_padded(out, c);
		return;
	}
	print_table_padded(f, c);
	fclose(f);
	for (line = buf; *line; line = end + 1) {
		char *stop;

		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		for (stop = end; stop > line && stop[-1] == ' '; stop--)
			;
		fwrite(line, 1, stop - line, out);
		if (!*end)
			break;
		fputc('\n', out);
	}
	free(buf);
}

/* Per candidate: the geomean change and where it is significant. */
static void print_verdicts(FILE *f, const struct ft_compare *c)
{
	char d[24];
	int v;

	for (v = 0; v < c->nv; v++) {
		const struct cmp_verdict *s = &c->var[v].verdict;

		if (v == c->base)
			continue;
		ft_cmp_fmt_delta(d, sizeof(d), s->geomean);
		fprintf(f,
			"geomean %s / %s: %.4g (%s) over %zu n; significantly faster at %zu, "
			"slower at %zu, no significant difference at %zu\n",
			c->var[v].label, c->var[c->base].label, s->geomean, d, s->compared,
			s->faster, s->slower, c->nn - s->faster - s->slower);
	}
}

/* Where the time goes: sums over n of the per-n medians (kept reads). */
static void print_time_split(FILE *f, const struct ft_compare *c)
{
	size_t i;
	int v, m;

	fprintf(f, "\ntime split (per-n medians summed over n):\n");
	for (v = 0; v < c->nv; v++) {
		double sum[FT_METRIC_NR] = {}, rest;
		char user[32], kern[32], parts[FT_METRIC_NR][16], restp[16];

		for (i = 0; i < c->nn; i++)
			for (m = 0; m < FT_METRIC_NR; m++)
				if (!isnan(cell_of(c, v, i)->med[m]))
					sum[m] += cell_of(c, v, i)->med[m];
		rest = sum[FT_METRIC_TOTAL] - sum[FT_METRIC_COMPUTE] - sum[FT_METRIC_FORMAT] -
		       sum[FT_METRIC_COPY];
		fmt_ns(user, sizeof(user), sum[FT_METRIC_USER], FMT_NS_SIG4);
		fmt_ns(kern, sizeof(kern), sum[FT_METRIC_TOTAL], FMT_NS_SIG4);
		for (m = 0; m < FT_METRIC_NR; m++)
			pct_of(parts[m], sizeof(parts[m]), sum[m], sum[FT_METRIC_TOTAL]);
		pct_of(restp, sizeof(restp), rest, sum[FT_METRIC_TOTAL]);
		pct_of(parts[FT_METRIC_USER], sizeof(parts[0]), sum[FT_METRIC_TOTAL],
		       sum[FT_METRIC_USER]);
		fprintf(f,
			"  %-22s read() %s user-side; fib_read %s = %s of it; of fib_read: compute "
			"%s, format %s, copy %s, rest %s\n",
			c->var[v].label, user, kern, parts[FT_METRIC_USER],
			parts[FT_METRIC_COMPUTE], parts[FT_METRIC_FORMAT], parts[FT_METRIC_COPY],
			restp);
	}
}

static void print_summary(FILE *f, const struct ft_compare *c)
{
	double *tmp = malloc(c->nn * sizeof(*tmp));

	if (!tmp)
		return;
	fputc('\n', f);
	print_verdicts(f, c);
	print_time_split(f, c);
	free(tmp);
}

void cmp_report_text(FILE *f, const struct ft_compare *c, const struct ft_run *run)
{
	print_header(f, c, run);
	print_table(f, c);
	print_summary(f, c);
	if (c->attr)
		cmp_attr_text(f, c);
}
