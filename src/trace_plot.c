// SPDX-License-Identifier: GPL-2.0
/*
 * --plot FILE.svg|FILE.png: gnuplot draws two panels from the per-n table:
 * fib_read median latency versus n, one line per algorithm (log y), and the
 * stacked breakdown compute / format / copy / rest (medians) of the first
 * algorithm. The data and the script go to a temporary directory.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace_model.h"

/* Runs gnuplot on a script that draws @path: 0, or -1; says which. */
int ft_gnuplot(const char *script, const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "fibtrace: --plot: gnuplot failed (is gnuplot-nox installed?)\n");
		return -1;
	}
	fprintf(stderr, "fibtrace: plot written to %s\n", path);
	return 0;
}

int ft_plot(struct ft_run *run, const char *path)
{
	char dir[] = "/tmp/fibtrace-plot-XXXXXX", data[128], script[128];
	const char *ext = strrchr(path, '.'), *term;
	struct ft_pern *rows;
	size_t nrows, i;
	unsigned int prev_algo = UINT32_MAX, nblocks = 0, blocks[64];
	FILE *f;
	int ret = -1;

	if (ext && !strcmp(ext, ".svg"))
		term = "svg size 1000,800 dynamic background rgb 'white'";
	else if (ext && !strcmp(ext, ".png"))
		term = "pngcairo size 1000,800";
	else {
		fprintf(stderr, "fibtrace: --plot %s: want a .svg or .png file\n", path);
		return -1;
	}
	nrows = ft_pern_build(run, &rows);
	if (!nrows) {
		fprintf(stderr, "fibtrace: --plot: no fib_read records to plot\n");
		return -1;
	}
	if (!mkdtemp(dir)) {
		fprintf(stderr, "fibtrace: --plot: %s\n", strerror(errno));
		free(rows);
		return -1;
	}
	snprintf(data, sizeof(data), "%s/per_n.dat", dir);
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	f = fopen(data, "w");
	if (!f)
		goto out;
	/* One gnuplot data block (two blank lines apart) per algorithm. */
	for (i = 0; i < nrows; i++) {
		struct ft_pern *r = &rows[i];

		if (r->algo != prev_algo) {
			if (prev_algo != UINT32_MAX)
				fprintf(f, "\n\n");
			if (nblocks < 64)
				blocks[nblocks++] = r->algo;
			prev_algo = r->algo;
		}
		fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			(uint64_t)r->n, (uint64_t)(r->median ? r->median : 1),
			(uint64_t)r->compute, (uint64_t)r->format, (uint64_t)r->copy,
			(uint64_t)r->rest);
	}
	fclose(f);
	f = fopen(script, "w");
	if (!f)
		goto out;
	fprintf(f, "set terminal %s\nset output '%s'\nset multiplot layout 2,1\n", term, path);
	fprintf(f, "set title 'fib\\_read latency versus n (median, kernel %s)'\n", run->kernel);
	fprintf(f, "set xlabel 'n'\nset ylabel 'ns'\nset logscale y\nset grid\nset key left top\n");
	fprintf(f, "plot ");
	for (i = 0; i < nblocks; i++)
		fprintf(f, "%s'%s' index %zu using 1:2 with linespoints pt 7 ps 0.4 title '%s'",
			i ? ", " : "", data, i, ft_algo_name(run, blocks[i]));
	fprintf(f, "\nunset logscale y\n");
	fprintf(f, "set title 'fib\\_read breakdown, %s (medians, stacked)'\n",
		ft_algo_name(run, blocks[0]));
	fprintf(f, "plot '%s' index 0 using 1:($3+$4+$5+$6) with filledcurves x1 title 'rest', "
		   "'' index 0 using 1:($3+$4+$5) with filledcurves x1 title 'copy', "
		   "'' index 0 using 1:($3+$4) with filledcurves x1 title 'format', "
		   "'' index 0 using 1:3 with filledcurves x1 title 'compute'\n",
		data);
	fprintf(f, "unset multiplot\n");
	fclose(f);
	if (ft_gnuplot(script, path))
		goto out;
	ret = 0;
out:
	unlink(data);
	unlink(script);
	rmdir(dir);
	free(rows);
	return ret;
}
