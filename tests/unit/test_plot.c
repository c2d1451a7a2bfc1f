// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of --plot (src/fibtrace/report/plot.c) with gnuplot: a
 * compensated median whose error bound reaches it is left out of the plot
 * and counted in its title; an algorithm with no resolved median gets no
 * line and no breakdown panel; a run whose medians are all unresolved is
 * refused with the way out (--no-discover, --no-compensate), no file
 * written; raw figures are all drawn. The SVG is read back for the titles.
 * As root under sudo (SUDO_UID/SUDO_GID 65534): the plot (gnuplot run as
 * that user, reading files created for it) and a report file
 * (ft_write_file) are created as that user, in a directory they may write.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helper.h"
#include "report/report.h"

static int failures;

static void check(const char *name, int ok)
{
	printf("%s plot.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

/* A read of F(@n) by @algo: @total instructions raw, @comp compensated within @err. */
static void add(struct ft_run *run, unsigned int algo, __u64 n, __u64 total, __u64 comp, __u64 err)
{
	struct ft_read_rec r = {.n = n,
				.total_ns = total,
				.algo = algo,
				.ret = 1,
				.comp_total_ns = comp,
				.comp_err_ns = err,
				.copy_bytes = 1};

	r.stage_ns[0] = r.comp_stage_ns[0] = comp / 2;
	ft_run_add_rec(run, &r, FT_READ_REC_SIZE_NO_COUNTERS);
}

static char *slurp(const char *path)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

static void setup(struct ft_run *run, struct ft_targets *tg, bool comp)
{
	memset(run, 0, sizeof(*run));
	run->targets = tg;
	run->kernel = "test";
	snprintf(run->clock, sizeof(run->clock), "instructions");
	run->overhead.on = comp;
	run->algos.count = 2;
	snprintf(run->algos.name[0], sizeof(run->algos.name[0]), "alg-resolved");
	snprintf(run->algos.name[1], sizeof(run->algos.name[1]), "alg-unresolved");
}

static int fill_hello(FILE *f, void *ctx)
{
	(void)ctx;
	return fputs("hello\n", f) < 0;
}

/* @path owned by uid and gid 65534. */
static bool nobodys(const char *path)
{
	struct stat st;

	return !stat(path, &st) && st.st_uid == 65534 && st.st_gid == 65534;
}

static void as_invoker(struct ft_run *run)
{
	char dir[] = "/tmp/fibtrace-test-sudo-XXXXXX", svg[64], json[64];

	if (getuid() != 0) {
		printf("SKIP plot.sudo: not root (the drop is root's only)\n");
		return;
	}
	if (!mkdtemp(dir) || chmod(dir, 01777)) {
		check("sudo.setup", 0);
		return;
	}
	snprintf(svg, sizeof(svg), "%s/plot.svg", dir);
	snprintf(json, sizeof(json), "%s/r.json", dir);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	check("sudo.plot_owned", !ft_plot(run, svg) && nobodys(svg));
	check("sudo.file_owned", !ft_write_file(json, fill_hello, NULL) && nobodys(json));
	chmod(dir, 0700); /* root's alone: not a place the user may write */
	unlink(json);
	check("sudo.file_where_user_may_not",
	      ft_write_file(json, fill_hello, NULL) == -1 && access(json, F_OK));
	check("sudo.hint", !strcmp(helper_fs_hint(EACCES), " (as the user who ran sudo, SUDO_UID: "
							   "choose a place they may write)") &&
				   !strcmp(helper_fs_hint(ENOENT), ""));
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	unlink(svg);
	rmdir(dir);
}

int main(void)
{
	static struct ft_targets tg;
	static struct ft_run run;
	char path[] = "/tmp/fibtrace-test-plot-XXXXXX.svg";
	int fd = mkstemps(path, 4), n;
	char *svg;

	if (fd < 0 || close(fd)) {
		perror("mkstemps");
		return 1;
	}
	setup(&run, &tg, true);
	for (n = 0; n < 10; n++) {
		add(&run, 0, n, 100000, 2000 + 10 * n, n == 5 ? 5000 : 50); /* n = 5: unresolved */
		add(&run, 1, n, 900000, 3000, 4000); /* every median unresolved */
	}
	check("partly-unresolved.drawn", !ft_plot(&run, path));
	svg = slurp(path);
	check("title.counts-left-out", strstr(svg, "11 of 20 unresolved: left out") != NULL);
	check("resolved-algorithm.line-and-panel", strstr(svg, "fib_read of alg-resolved") != NULL);
	check("unresolved-algorithm.no-line-no-panel", !strstr(svg, "alg-unresolved"));
	ft_run_free(&run);

	setup(&run, &tg, true);
	for (n = 0; n < 10; n++)
		add(&run, 1, n, 900000, 3000, 4000);
	unlink(path);
	check("all-unresolved.refused", ft_plot(&run, path) == -1 && access(path, F_OK));
	ft_run_free(&run);

	setup(&run, &tg, false); /* --no-compensate: raw figures, every one drawn */
	for (n = 0; n < 10; n++)
		add(&run, 1, n, 900000, 3000, 4000);
	check("raw.drawn", !ft_plot(&run, path));
	svg = slurp(path);
	check("raw.title", strstr(svg, "median versus n, raw") && strstr(svg, "alg-unresolved"));
	as_invoker(&run);
	ft_run_free(&run);
	unlink(path);
	return failures ? 1 : 0;
}
