// SPDX-License-Identifier: GPL-2.0
/*
 * report/: one run's model laid out, computing nothing. This file is its
 * front: the format the command line chose, --save-json and --save-csv, and
 * stdout's last check. Every file goes through write.c. Text: report_text.c; JSON: report_json.c;
 * CSV: report_csv.c; -e's columns: report_counters.c; --cachesim's: report_cachesim.c; the call
 * tree's views: tree_views.c; the timeline: timeline_write.c; plots: plot.c. See report.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

void ft_report(FILE *f, struct ft_run *run, enum ft_output out, enum ft_hists hists)
{
	if (out == FT_OUT_JSON)
		ft_report_json(f, run, NULL, NULL);
	else if (out == FT_OUT_CSV)
		ft_report_csv(f, run);
	else
		ft_report_text(f, run, hists);
}

struct saved {
	struct ft_run *run;
	enum ft_output out;
	enum ft_hists hists;
};

static int fill_report(FILE *f, void *ctx)
{
	const struct saved *s = ctx;

	ft_report(f, s->run, s->out, s->hists);
	return 0;
}

/* --save-json, --save-csv: the report in format @out into @path too; 0 or -1 (said why). */
int ft_report_save(struct ft_run *run, const char *path, enum ft_output out, enum ft_hists hists)
{
	struct saved s = {run, out, hists};

	return ft_write_file(path, fill_report, &s);
}

/* 0 when everything printed to stdout reached it, else -FT_EXIT_ERROR with a message */
int ft_report_flushed(void)
{
	if (!fflush(stdout) && !ferror(stdout))
		return 0;
	fprintf(stderr, "fibtrace: writing the report failed: %s\n", strerror(errno));
	return -FT_EXIT_ERROR;
}
