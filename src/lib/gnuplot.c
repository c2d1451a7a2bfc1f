// SPDX-License-Identifier: GPL-2.0
/* Plots through gnuplot: see gnuplot.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnuplot.h"
#include "helper.h"

static const char *terminal(const char *out)
{
	const char *ext = strrchr(out, '.');

	if (ext && !strcmp(ext, ".svg"))
		return "svg size 1000,800 dynamic background rgb 'white'";
	if (ext && !strcmp(ext, ".png"))
		return "pngcairo size 1000,800";
	return NULL;
}

static void cleanup(struct gnuplot_job *j)
{
	int i;

	if (j->script)
		fclose(j->script);
	j->script = NULL;
	for (i = 0; i < j->nfiles; i++)
		unlink(j->path[i]);
	unlink(j->path[GNUPLOT_MAX_FILES - 1]);
	rmdir(j->dir);
}

/*
 * The directory, the data files, the script and the plot are created as the
 * user who ran sudo (helper_fs_enter, helper_fs_fopen): gnuplot, run as that
 * user, reads what it must, and the plot is theirs.
 */
int gnuplot_begin(struct gnuplot_job *j, const char *out)
{
	const char *term = terminal(out);
	char *dir;

	memset(j, 0, sizeof(*j));
	j->out = out;
	if (!term) {
		fprintf(stderr, "fibtrace: --plot %s: want a .svg or .png file\n", out);
		return -1;
	}
	snprintf(j->dir, sizeof(j->dir), "/tmp/fibtrace-plot-XXXXXX");
	if (helper_fs_enter()) /* said why */
		return -1;
	dir = mkdtemp(j->dir);
	helper_fs_leave();
	if (!dir) {
		fprintf(stderr, "fibtrace: --plot: %s\n", strerror(errno));
		return -1;
	}
	snprintf(j->path[GNUPLOT_MAX_FILES - 1], sizeof(j->path[0]), "%s/plot.gp", j->dir);
	j->script = helper_fs_fopen(j->path[GNUPLOT_MAX_FILES - 1], "w");
	if (!j->script) {
		fprintf(stderr, "fibtrace: --plot: %s\n", strerror(errno));
		cleanup(j);
		return -1;
	}
	/*
	 * No "set output": gnuplot writes the plot to its standard output,
	 * which gnuplot_run() opens as @out. A path in the script would be
	 * gnuplot code (a quote in it ends the string; gnuplot has system()).
	 */
	fprintf(j->script, "set terminal %s\n", term);
	return 0;
}

const char *gnuplot_quote(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	if (len < 3) {
		if (len)
			buf[0] = 0;
		return buf;
	}
	buf[o++] = '\'';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (o + (c == '\'' ? 2 : 1) + 2 > len) /* and the closing quote, NUL */
			break;
		if (c == '\'') {
			buf[o++] = '\'';
			buf[o++] = '\'';
		} else {
			buf[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		}
	}
	buf[o++] = '\'';
	buf[o] = 0;
	return buf;
}

FILE *gnuplot_open(struct gnuplot_job *j, const char *name)
{
	if (j->nfiles >= GNUPLOT_MAX_FILES - 1)
		return NULL;
	snprintf(j->path[j->nfiles], sizeof(j->path[0]), "%s/%s", j->dir, name);
	return helper_fs_fopen(j->path[j->nfiles++], "w");
}

const char *gnuplot_path(const struct gnuplot_job *j, int i)
{
	return j->path[i];
}

FILE *gnuplot_script(struct gnuplot_job *j)
{
	return j->script;
}

int gnuplot_run(struct gnuplot_job *j)
{
	char prog[4096];
	int status, ret = -1, fd, bad;
	pid_t pid;

	bad = fclose(j->script);
	j->script = NULL;
	fd = -1;
	if (!bad && !helper_fs_enter()) {
		fd = open(j->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		helper_fs_leave();
	}
	if (fd < 0) {
		fprintf(stderr, "fibtrace: --plot %s: %s%s\n", j->out, strerror(errno),
			helper_fs_hint(errno));
		cleanup(j);
		return -1;
	}
	pid = helper_find("gnuplot", prog, sizeof(prog)) ? fork() : -1;
	if (pid == 0) {
		/* The plot's file is open already: gnuplot itself runs as the sudo user. */
		if (dup2(fd, STDOUT_FILENO) < 0 || helper_drop_to_invoker())
			_exit(126);
		execl(prog, "gnuplot", j->path[GNUPLOT_MAX_FILES - 1], (char *)NULL);
		_exit(127);
	}
	bad = close(fd);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    bad) {
		fprintf(stderr, "fibtrace: --plot: gnuplot failed (is gnuplot-nox installed?)\n");
		unlink(j->out);
	} else {
		fprintf(stderr, "fibtrace: plot written to %s\n", j->out);
		ret = 0;
	}
	cleanup(j);
	return ret;
}

void gnuplot_abort(struct gnuplot_job *j)
{
	cleanup(j);
}
