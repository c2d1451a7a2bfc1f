// SPDX-License-Identifier: GPL-2.0
/*
 * --plot FILE.svg|FILE.png: gnuplot draws three panels: from the per-n
 * table, fib_read median latency versus n, one line per algorithm (log y),
 * and the stacked breakdown compute / format / copy / rest (medians) of each
 * of the first four algorithms, side by side; from the copy rows, the copy
 * to user space's throughput versus its size (fibdrv_copy, MB/s = bytes /
 * average ns * 1000). With --cachesim, the simulated Ir, D1mr and Bcm per
 * read versus n instead. The data and the script go to a temporary
 * directory.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cachesim/cachesim.h"
#include "gnuplot.h"
#include "model/aggregate.h"
#include "report.h"

/* What per_n.dat holds: a data block per algorithm, and what of it can be drawn. */
struct plot_data {
	unsigned int algo[64]; /* the algorithm of each data block */
	size_t resolved[64];   /* its rows with a point (the others are gaps) */
	unsigned int nblocks;
	size_t rows, unresolved;
};

/* One gnuplot data block (two blank lines apart) per algorithm. */
static void write_data(FILE *f, const struct ft_pern *rows, size_t nrows, bool comp,
		       struct plot_data *d)
{
	unsigned int prev_algo = UINT32_MAX;
	size_t i;

	memset(d, 0, sizeof(*d));
	d->rows = nrows;
	for (i = 0; i < nrows; i++) {
		const struct ft_pern *r = &rows[i];
		const struct ft_pern_fig *x = comp ? &r->comp : &r->raw;

		if (r->algo != prev_algo) {
			if (prev_algo != UINT32_MAX)
				fprintf(f, "\n\n");
			if (d->nblocks == 64)
				break;
			d->algo[d->nblocks++] = r->algo;
			prev_algo = r->algo;
		}
		/* An unresolved median (its bound reaches it) is a gap, not a point. */
		if (comp && ft_pern_unresolved(r)) {
			fprintf(f, "%" PRIu64 " NaN NaN NaN NaN NaN\n", (uint64_t)r->n);
			d->unresolved++;
			continue;
		}
		d->resolved[d->nblocks - 1]++;
		fprintf(f,
			"%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			(uint64_t)r->n, (uint64_t)(x->median ? x->median : 1), (uint64_t)x->compute,
			(uint64_t)x->format, (uint64_t)x->copy, (uint64_t)x->rest);
	}
}

/* Bytes and MB/s per copy size (the copy rows of aggregate.c): rows written. */
static size_t write_copies(FILE *f, const struct ft_run *run)
{
	struct ft_copy_row *copies;
	size_t n = ft_copy_build(run, &copies), i;

	for (i = 0; i < n; i++)
		fprintf(f, "%" PRIu64 " %.3f\n", (uint64_t)copies[i].bytes,
			copies[i].ns ? copies[i].bytes * 1e3 * copies[i].count / copies[i].ns
				     : 0.0);
	free(copies);
	return n;
}

/* At most this many breakdown panels, side by side: the first algorithms'. */
#define PLOT_BREAKDOWNS 4

/* The stacked breakdown of data block @i (its algorithm's rows) at @x,@y, @w wide, @h high. */
static void write_breakdown(FILE *f, const struct ft_run *run, const char *data, unsigned int i,
			    unsigned int algo, double x, double y, double w, double h)
{
	char text[256], q[520];

	fprintf(f, "set origin %.4f,%.4f\nset size %.4f,%.4f\nset key left top opaque samplen 1\n",
		x, y, w, h);
	snprintf(text, sizeof(text), "fib\\_read of %s, stacked medians",
		 ft_algo_name(run, algo));
	fprintf(f, "set title %s\n", gnuplot_quote(q, sizeof(q), text));
	fprintf(f,
		"plot '%s' index %u using 1:($3+$4+$5+$6) with filledcurves x1 title 'rest', "
		"'' index %u using 1:($3+$4+$5) with filledcurves x1 title 'copy', "
		"'' index %u using 1:($3+$4) with filledcurves x1 title 'format', "
		"'' index %u using 1:3 with filledcurves x1 title 'compute'\n",
		data, i, i, i, i);
}

/* The latency panel's title: which figures, how many left out, the kernel. */
static void latency_title(FILE *f, const struct ft_run *run, const struct plot_data *d)
{
	char text[256], q[520];

	if (d->unresolved)
		snprintf(text, sizeof(text),
			 "fib\\_read median versus n, compensated (%zu of %zu unresolved: left "
			 "out), kernel %s",
			 d->unresolved, d->rows, run->kernel);
	else
		snprintf(text, sizeof(text), "fib\\_read median versus n, %s, kernel %s",
			 run->overhead.on ? "compensated for tracing" : "raw", run->kernel);
	fprintf(f, "set title %s\n", gnuplot_quote(q, sizeof(q), text));
}

/*
 * Rows of panels: the latency of every algorithm with a resolved point; the
 * breakdowns of the first PLOT_BREAKDOWNS of them side by side; the copy's
 * throughput.
 */
static void write_script(FILE *f, const struct ft_run *run, const char *data, const char *copies,
			 const struct plot_data *d)
{
	unsigned int i, k, nb = 0, drawn[PLOT_BREAKDOWNS];
	double h = copies ? 1.0 / 3 : 0.5;
	char q[520];

	for (i = 0; i < d->nblocks && nb < PLOT_BREAKDOWNS; i++)
		if (d->resolved[i])
			drawn[nb++] = i;
	/* Algorithm and kernel names only inside quoted literals (gnuplot_quote). */
	fprintf(f, "set multiplot\nset origin 0,%.4f\nset size 1,%.4f\n", 1 - h, h);
	latency_title(f, run, d);
	/* Under QEMU icount a "ns" is an instruction: the axis says which clock. */
	fprintf(f, "set xlabel 'n'\nset ylabel '%s'\nset logscale y\nset grid\nset key left top\n",
		!ft_run_clock_exact(run) ? "ns" : "instructions (QEMU icount)");
	fprintf(f, "plot ");
	for (i = 0, k = 0; i < d->nblocks; i++)
		if (d->resolved[i])
			fprintf(f, "%s'%s' index %u using 1:2 with linespoints pt 7 ps 0.4 title %s",
				k++ ? ", " : "", data, i,
				gnuplot_quote(q, sizeof(q), ft_algo_name(run, d->algo[i])));
	fprintf(f, "\nunset logscale y\n");
	for (i = 0; i < nb; i++)
		write_breakdown(f, run, data, drawn[i], d->algo[drawn[i]], (double)i / nb, 1 - 2 * h,
				1.0 / nb, h);
	if (copies)
		fprintf(f,
			"set origin 0,0\nset size 1,%.4f\n"
			"set title 'copy to user space (fibdrv\\_copy): throughput versus size "
			"(average per size, %s)'\n"
			"set xlabel 'bytes'\nset ylabel 'MB/s'\nset logscale x\nunset key\n"
			"plot '%s' using 1:2 with points pt 7 ps 0.5\nunset logscale x\n",
			h, run->overhead.on ? "raw: compensation is per call, not per byte" : "raw",
			copies);
	fprintf(f, "unset multiplot\n");
}

int ft_plot(struct ft_run *run, const char *path)
{
	struct gnuplot_job j;
	const struct ft_pern *rows;
	struct plot_data d;
	size_t nrows, ncopies;
	FILE *f;

	if (gnuplot_begin(&j, path))
		return -1;
	nrows = ft_pern_rows(run, &rows);
	if (!nrows) {
		fprintf(stderr, "fibtrace: --plot: no fib_read records to plot\n");
		gnuplot_abort(&j);
		return -1;
	}
	f = gnuplot_open(&j, "per_n.dat");
	if (!f) {
		gnuplot_abort(&j);
		return -1;
	}
	write_data(f, rows, nrows, run->overhead.on, &d);
	fclose(f);
	if (d.unresolved == d.rows) {
		fprintf(stderr,
			"fibtrace: --plot: every compensated median is unresolved (its error bound "
			"reaches it: many traced calls per read); trace fewer functions "
			"(--no-discover, the read path: within 2%%) or plot raw figures "
			"(--no-compensate)\n");
		gnuplot_abort(&j);
		return -1;
	}
	f = gnuplot_open(&j, "copies.dat");
	ncopies = f ? write_copies(f, run) : 0;
	if (f)
		fclose(f);
	write_script(gnuplot_script(&j), run, gnuplot_path(&j, 0),
		     ncopies ? gnuplot_path(&j, 1) : NULL, &d);
	return gnuplot_run(&j);
}

/* --cachesim --plot: */
/* Events per read versus n, one line per algorithm: Ir, and the misses beside. */
int ft_sim_plot(const struct ft_sim *sim, const char *path)
{
	static const int ev[] = {FT_SIM_IR, FT_SIM_D1MR, FT_SIM_BCM};
	struct gnuplot_job j;
	char text[256], q[520];
	unsigned int a, k, p;
	FILE *d, *s;

	if (gnuplot_begin(&j, path))
		return -1;
	d = gnuplot_open(&j, "sim.dat");
	if (!d) {
		gnuplot_abort(&j);
		return -1;
	}
	for (a = 0; a < sim->nalgo; a++) {
		for (k = 0; k < sim->nn; k++) {
			const struct ft_sim_cell *c = &sim->cell[a * sim->nn + k];

			fprintf(d, "%" PRIu64 " %.1f %.1f %.1f\n", (uint64_t)sim->n[k],
				c->lib[FT_SIM_IR], c->lib[FT_SIM_D1MR], c->lib[FT_SIM_BCM]);
		}
		fprintf(d, "\n\n");
	}
	fclose(d);
	s = gnuplot_script(&j);
	fprintf(s, "set multiplot layout 3,1\nset xlabel 'n'\nset grid\nset key left top\n");
	for (p = 0; p < 3; p++) { /* Ir on a log scale; the misses, often 0 at small n, linear */
		snprintf(text, sizeof(text), "%s per read versus n (simulated, %s)",
			 ft_sim_event_name[ev[p]], sim->tool);
		fprintf(s, "%s\nset title %s\nset ylabel '%s'\nplot ",
			p ? "unset logscale y" : "set logscale y",
			gnuplot_quote(q, sizeof(q), text), ft_sim_event_name[ev[p]]);
		for (a = 0; a < sim->nalgo; a++)
			fprintf(s,
				"%s'%s' index %u using 1:%u with linespoints pt 7 ps 0.4 title %s",
				a ? ", " : "", gnuplot_path(&j, 0), a, p + 2,
				gnuplot_quote(q, sizeof(q), sim->algo[a]));
		fprintf(s, "\n");
	}
	fprintf(s, "unset multiplot\n");
	return gnuplot_run(&j);
}
