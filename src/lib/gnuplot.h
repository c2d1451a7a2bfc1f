/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Plots through gnuplot: a private temporary directory for the data files
 * and the script, the terminal chosen from the output's extension (.svg or
 * .png), gnuplot run on the script, everything removed afterwards.
 *
 *   struct gnuplot_job j;
 *   if (gnuplot_begin(&j, "out.svg")) return -1;
 *   FILE *d = gnuplot_open(&j, "data.dat");  ... gnuplot_path(&j, 0) ...
 *   FILE *s = gnuplot_script(&j);            ... plot commands ...
 *   err = gnuplot_run(&j);                   (closes the script, runs, cleans up)
 */
#ifndef FIBTRACE_LIB_GNUPLOT_H
#define FIBTRACE_LIB_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

#define GNUPLOT_MAX_FILES 4

struct gnuplot_job {
	const char *out; /* the plot to write */
	char dir[64];
	char path[GNUPLOT_MAX_FILES][128]; /* data files; the last one used is the script */
	int nfiles;
	FILE *script;
};

/*
 * Checks the extension, creates the directory and the script (whose first
 * lines set the terminal and the output). 0, or -1 with a message on stderr.
 */
int gnuplot_begin(struct gnuplot_job *j, const char *out);
/* Creates data file @name in the directory; NULL on failure. */
FILE *gnuplot_open(struct gnuplot_job *j, const char *name);
/* Path of the i-th data file (for the script). */
const char *gnuplot_path(const struct gnuplot_job *j, int i);
/* The script being written (terminal and output already set). */
FILE *gnuplot_script(struct gnuplot_job *j);
/*
 * @s as a gnuplot single-quoted string literal, in @buf (of @len bytes,
 * truncated to fit): every ' doubled, every control character written as
 * '?'. The only way text from outside (labels, module, algorithm and kernel
 * names) may enter a script: in a literal it stays text, never gnuplot code
 * (gnuplot has system()). Returns @buf.
 */
const char *gnuplot_quote(char *buf, size_t len, const char *s);
/* Runs gnuplot, says where the plot went (or that it failed), removes the files: 0 or -1. */
int gnuplot_run(struct gnuplot_job *j);
/* Removes the files without running (on an error path). */
void gnuplot_abort(struct gnuplot_job *j);

#endif
