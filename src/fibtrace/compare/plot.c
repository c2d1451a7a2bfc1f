// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace --compare --plot: two panels through gnuplot (lib/gnuplot.h),
 * the median of every variant against n with its 95% interval, and the
 * ratio of every candidate to the baseline with its bootstrap band.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "compare_int.h"
#include "gnuplot.h"

/* One data block per variant: n median ci_lo ci_hi. */
static void write_latency(FILE *f, const struct ft_compare *c)
{
	size_t i;
	int v;

	for (v = 0; v < c->nv; v++) {
		fprintf(f, "%s# %s\n", v ? "\n\n" : "", c->var[v].label);
		for (i = 0; i < c->nn; i++) {
			const struct ft_cmp_cell *x = cell_of(c, v, i);

			if (x->s.median > 0)
				fprintf(f, "%" PRIu64 " %.6g %.6g %.6g\n", nth(c, i), x->s.median,
					fmax(x->ci_lo, 1), fmax(x->ci_hi, 1));
		}
	}
}

/* One data block per candidate: n ratio ci_lo ci_hi. */
static void write_ratios(FILE *f, const struct ft_compare *c)
{
	size_t i;
	int v, k = 0;

	for (v = 0; v < c->nv; v++) {
		const struct ft_cmp_pair *pp;

		if (v == c->base)
			continue;
		pp = pair_of(c, v);
		fprintf(f, "%s# %s\n", k++ ? "\n\n" : "", c->var[v].label);
		for (i = 0; i < c->nn; i++)
			if (isfinite(pp[i].ratio) && pp[i].ratio > 0 && pp[i].ci_lo > 0 &&
			    isfinite(pp[i].ci_hi))
				fprintf(f, "%" PRIu64 " %.6g %.6g %.6g\n", nth(c, i), pp[i].ratio,
					pp[i].ci_lo, pp[i].ci_hi);
	}
}

static void write_script(FILE *f, const struct ft_compare *c, const struct ft_run *run,
			 const char *lat, const char *rat)
{
	char text[256], q[520];
	int v, k = 0;

	/* Labels, module and kernel names only inside quoted literals (gnuplot_quote). */
	fprintf(f, "set multiplot layout 2,1\n");
	snprintf(text, sizeof(text),
		 "fibtrace --compare %s: %s per read, median and 95%% CI (kernel %s)",
		 ft_cmp_kind_name(c->o.kind), ft_cmp_metric_name(c->o.metric), run->kernel);
	fprintf(f, "set title %s\n", gnuplot_quote(q, sizeof(q), text));
	fprintf(f, "set xlabel 'n'\nset ylabel '%s'\nset logscale y\nset grid\nset key left top\n",
		!ft_run_clock_exact(run) ? "ns" : "instructions (QEMU icount)");
	fprintf(f, "plot ");
	for (v = 0; v < c->nv; v++)
		fprintf(f, "%s'%s' index %d using 1:2:3:4 with yerrorlines pt 7 ps 0.4 title %s",
			v ? ", " : "", lat, v, gnuplot_quote(q, sizeof(q), c->var[v].label));
	snprintf(text, sizeof(text), "ratio to the baseline %s (median / median, 95%% bootstrap band)",
		 c->var[c->base].label);
	fprintf(f, "\nset title %s\n", gnuplot_quote(q, sizeof(q), text));
	fprintf(f, "set ylabel 'ratio'\nset style fill transparent solid 0.25 noborder\nplot ");
	for (v = 0; v < c->nv; v++) {
		if (v == c->base)
			continue;
		fprintf(f,
			"%s'%s' index %d using 1:3:4 with filledcurves lc %d notitle, "
			"'' index %d using 1:2 with linespoints pt 7 ps 0.4 lc %d title %s",
			k ? ", " : "", rat, k, v + 1, k, v + 1,
			gnuplot_quote(q, sizeof(q), c->var[v].label));
		k++;
	}
	/*
	 * Two lines not drawn (lt -2) keep the axis at least 0.999..1.001: an
	 * A/A run under the instruction clock has every ratio exactly 1, an
	 * empty range gnuplot would warn about.
	 */
	fprintf(f, ", 1 with lines dt 2 lc rgb 'black' notitle, 0.999 with lines lt -2 notitle, "
		   "1.001 with lines lt -2 notitle\nunset multiplot\n");
}

int cmp_report_plot(const struct ft_compare *c, const struct ft_run *run, const char *path)
{
	struct gnuplot_job j;
	FILE *f;

	if (gnuplot_begin(&j, path))
		return -1;
	f = gnuplot_open(&j, "latency.dat");
	if (!f)
		goto fail;
	write_latency(f, c);
	fclose(f);
	f = gnuplot_open(&j, "ratio.dat");
	if (!f)
		goto fail;
	write_ratios(f, c);
	fclose(f);
	write_script(gnuplot_script(&j), c, run, gnuplot_path(&j, 0), gnuplot_path(&j, 1));
	return gnuplot_run(&j);
fail:
	gnuplot_abort(&j);
	return -1;
}
