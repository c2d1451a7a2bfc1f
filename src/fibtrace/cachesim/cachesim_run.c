// SPDX-License-Identifier: GPL-2.0
/*
 * --cachesim's side effects: find Valgrind and the harness, check the
 * algorithms and n against the harness's own list, run the reads natively
 * (for the cost of a simulated read) and under callgrind, parse the output
 * (cachesim.c), remove the temporary files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cachesim.h"
#include "helper.h"
#include "model/run.h"
#include "range.h"

/* A common desktop x86: what the figures mean unless --cache-geometry says otherwise. */
const struct ft_sim_cache ft_sim_default_geometry[3] = {
	{32768, 8, 64},	   /* I1 */
	{32768, 8, 64},	   /* D1 */
	{8388608, 16, 64}, /* LL */
};

static bool pow2(unsigned long x)
{
	return x && !(x & (x - 1));
}

/*
 * "SIZE,ASSOC,LINE" at the start of @p (up to ':' or the end) into @c, each
 * decimal digits only (parse_u64: no sign, no overflow); the characters
 * used, or -1.
 */
static int geometry_fields(const char *p, struct ft_sim_cache *c)
{
	unsigned long *field[3] = {&c->size, &c->assoc, &c->line};
	char digits[24];
	size_t used = 0;
	uint64_t v;

	for (int k = 0; k < 3; k++) {
		size_t len = strcspn(p + used, k < 2 ? ",:" : ":");

		if (len >= sizeof(digits))
			return -1;
		memcpy(digits, p + used, len);
		digits[len] = 0;
		if (parse_u64(digits, &v) || v > ULONG_MAX)
			return -1;
		*field[k] = v;
		used += len;
		if (k < 2 && p[used++] != ',')
			return -1;
	}
	return (int)used;
}

int ft_sim_geometry_parse(const char *s, struct ft_sim_cache g[3], bool *host, char *msg,
			  size_t len)
{
	static const char *const lvl[3] = {"I1=", "D1=", "LL="};
	const char *p = s;

	memcpy(g, ft_sim_default_geometry, sizeof(ft_sim_default_geometry));
	*host = !strcmp(s, "host");
	if (*host)
		return 0;
	do {
		struct ft_sim_cache c;
		unsigned long set_bytes;
		int i, used = -1;

		for (i = 0; i < 3 && strncmp(p, lvl[i], 3); i++)
			;
		if (i < 3)
			used = geometry_fields(p + 3, &c);
		if (used < 0) {
			snprintf(msg, len, "want host, or I1=SIZE,ASSOC,LINE[:D1=...][:LL=...]");
			return -1;
		}
		/* ASSOC * LINE past ULONG_MAX is past SIZE too: no set fits. */
		if (!pow2(c.line) || c.line < 16 || !c.assoc ||
		    __builtin_mul_overflow(c.assoc, c.line, &set_bytes) || c.size % set_bytes ||
		    !pow2(c.size / set_bytes)) {
			snprintf(msg, len,
				 "%.2s: the line must be a power of two >= 16 and SIZE / (ASSOC * "
				 "LINE) sets a power of two",
				 lvl[i]);
			return -1;
		}
		g[i] = c;
		p += 3 + used;
	} while (*p++ == ':');
	return 0;
}

/*
 * Run @argv as the user who ran sudo (helper_drop_to_invoker), stdout to
 * /dev/null, stderr to @log (NULL: ours); its wall time in @secs.
 */
static int spawn(char *const argv[], const char *log, double *secs)
{
	double t0 = ft_now_s();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY), fd = log ? open(log, O_WRONLY) : -1;

		dup2(null, STDOUT_FILENO);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		if (helper_drop_to_invoker()) /* valgrind and fibcalc need no root */
			_exit(126);
		execv(argv[0], argv);
		fprintf(stderr, "fibtrace: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	*secs = ft_now_s() - t0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The harness's algorithms (fibcalc --list) and, without --algo, its default (--default). */
struct algo_list {
	char name[FT_SIM_MAX_ALGOS][32];
	__u64 max_n[FT_SIM_MAX_ALGOS];
	int n;
	char def[32];
};

/* "harness @arg"'s standard output, read by @f's caller; no shell: a path stays a path. */
static FILE *run_harness(const char *harness, const char *arg, pid_t *pid)
{
	int fds[2];

	if (pipe(fds))
		return NULL;
	*pid = fork();
	if (*pid == 0) {
		close(fds[0]);
		if (dup2(fds[1], STDOUT_FILENO) < 0 || helper_drop_to_invoker())
			_exit(126);
		execl(harness, "fibcalc", arg, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if (*pid < 0) {
		close(fds[0]);
		return NULL;
	}
	return fdopen(fds[0], "r");
}

/* The harness's lines for @arg into @l; 0 when it ran and exited 0. */
static int harness_lines(const char *harness, const char *arg, struct algo_list *l)
{
	char line[128];
	unsigned long long m;
	int status = -1;
	pid_t pid = -1;
	FILE *f = run_harness(harness, arg, &pid);

	while (f && fgets(line, sizeof(line), f)) {
		char name[32];

		if (sscanf(line, "%31s %llu", name, &m) == 2 && l->n < FT_SIM_MAX_ALGOS) {
			snprintf(l->name[l->n], sizeof(l->name[0]), "%s", name);
			l->max_n[l->n++] = m;
		} else if (sscanf(line, "%31s", name) == 1) {
			snprintf(l->def, sizeof(l->def), "%s", name);
		}
	}
	if (f)
		fclose(f);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return f && WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

static int list_algos(const char *harness, struct algo_list *l)
{
	l->n = 0;
	l->def[0] = 0;
	if (harness_lines(harness, "--list", l) || harness_lines(harness, "--default", l))
		return -1;
	return !l->n || !l->def[0] ? -1 : 0;
}

/* --algo (or the default) into sim->algo[], each known and taking every n. */
static int choose_algos(struct ft_sim *sim, const struct ft_sim_opts *o, const struct algo_list *l)
{
	const char *p = o->algos ? o->algos : l->def;
	__u64 top = 0;
	unsigned int j;
	int i;

	for (j = 0; j < o->nn; j++)
		top = o->n[j] > top ? o->n[j] : top;
	sim->nalgo = 0;
	do {
		size_t len = strcspn(p, ",");

		for (i = 0; i < l->n && (strlen(l->name[i]) != len || strncmp(l->name[i], p, len));
		     i++)
			;
		if (i == l->n || sim->nalgo == FT_SIM_MAX_ALGOS) {
			fprintf(stderr,
				"fibtrace: --cachesim: unknown algorithm '%.*s' (the "
				"library's: ",
				(int)len, p);
			for (i = 0; i < l->n; i++)
				fprintf(stderr, "%s%s", i ? ", " : "", l->name[i]);
			fprintf(stderr, ")\n");
			return -FT_EXIT_USAGE;
		}
		if (top > l->max_n[i]) {
			fprintf(stderr,
				"fibtrace: --cachesim: n = %" PRIu64 " exceeds %s's max_n %" PRIu64
				"\n",
				(uint64_t)top, l->name[i], (uint64_t)l->max_n[i]);
			return -FT_EXIT_USAGE;
		}
		snprintf(sim->algo[sim->nalgo++], sizeof(sim->algo[0]), "%s", l->name[i]);
		p += len;
	} while (*p++);
	return 0;
}

/* The harness's command line: build/fibcalc --reads R --algo A,B N... (decimal, the device's
 * default) */
static char **harness_argv(const struct ft_sim *sim, const struct ft_sim_opts *o,
			   const char *harness, char *algos, size_t len)
{
	char **argv = calloc(o->nn + 8, sizeof(*argv)), **a = argv;
	unsigned int i;
	size_t used = 0;

	if (!argv)
		return NULL;
	for (i = 0; i < sim->nalgo; i++)
		used += snprintf(algos + used, len - used, "%s%s", i ? "," : "", sim->algo[i]);
	*a++ = strdup(harness);
	*a++ = strdup("--reads");
	asprintf(a++, "%u", o->rounds);
	*a++ = strdup("--algo");
	*a++ = strdup(algos);
	for (i = 0; i < o->nn; i++)
		asprintf(a++, "%" PRIu64, (uint64_t)o->n[i]);
	return argv;
}

static void free_argv(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

/* callgrind's options: simulators on, one file, names and positions written out. */
static int valgrind_argv(char **v, const char *valgrind, const char *out, const struct ft_sim *sim)
{
	static const char *const lvl[3] = {"I1", "D1", "LL"};
	int n = 0, i;

	v[n++] = strdup(valgrind);
	v[n++] = strdup("--tool=callgrind");
	v[n++] = strdup("--cache-sim=yes");
	v[n++] = strdup("--branch-sim=yes");
	v[n++] = strdup("--combine-dumps=yes");
	v[n++] = strdup("--compress-strings=no");
	v[n++] = strdup("--compress-pos=no");
	v[n++] = strdup("--separate-recs=1"); /* a recursive function is one name, not f'2, f'3 */
	asprintf(&v[n++], "--callgrind-out-file=%s", out);
	for (i = 0; i < 3 && !sim->host_geometry; i++)
		asprintf(&v[n++], "--%s=%lu,%lu,%lu", lvl[i], sim->geom[i].size, sim->geom[i].assoc,
			 sim->geom[i].line);
	return n;
}

/* The last lines of Valgrind's log: why it failed. */
static void print_tail(const char *log)
{
	char line[512];
	FILE *f = fopen(log, "r");
	long at = 0;

	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	at = ftell(f);
	fseek(f, at > 2048 ? at - 2048 : 0, SEEK_SET);
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "  %s", line);
	fclose(f);
}

/*
 * Where fibtrace is, the harness is: fibcalc beside fibtrace, in build/ or
 * where make install put both ($(PREFIX)/bin).
 */
static int find_tools(char *valgrind, char *harness, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (!helper_find("valgrind", valgrind, len)) {
		fprintf(stderr, "fibtrace: --cachesim needs Valgrind: valgrind is not in PATH "
				"(install the package valgrind)\n");
		return -FT_EXIT_NO_TOOL;
	}
	if (n <= 0)
		return -FT_EXIT_ERROR;
	self[n] = 0;
	snprintf(harness, len, "%s/fibcalc", dirname(self));
	if (access(harness, X_OK)) {
		fprintf(stderr,
			"fibtrace: --cachesim runs %s, which is missing (fibcalc is built and "
			"installed beside fibtrace)\n",
			harness);
		return -FT_EXIT_ERROR;
	}
	return 0;
}

/* The reads under callgrind into @out, then parsed. */
static int simulate(struct ft_sim *sim, char **hargv, const char *valgrind, const char *out,
		    const char *log)
{
	char **v = calloc(16 + sim->nn + 8, sizeof(*v));
	int n, st, err = 0;
	FILE *f;

	if (!v)
		return -FT_EXIT_ERROR;
	n = valgrind_argv(v, valgrind, out, sim);
	for (char **a = hargv; *a; a++)
		v[n++] = strdup(*a);
	st = spawn(v, log, &sim->sim_s);
	free_argv(v);
	if (st) {
		fprintf(stderr, "fibtrace: --cachesim: valgrind exited with %d:\n", st);
		print_tail(log);
		return -FT_EXIT_ERROR;
	}
	f = helper_fs_fopen(out, "r"); /* written by valgrind as the user: read as the user */
	if (!f || ft_sim_parse(sim, f)) {
		fprintf(stderr, "fibtrace: --cachesim: cannot read callgrind's output %s: %s\n",
			out, f ? sim->error : strerror(errno));
		err = -FT_EXIT_ERROR;
	}
	if (f)
		fclose(f);
	return err;
}

int ft_sim_run(struct ft_sim *sim, const struct ft_sim_opts *o)
{
	char valgrind[PATH_MAX], harness[PATH_MAX], algos[FT_SIM_MAX_ALGOS * 32];
	char out[] = "/tmp/fibtrace-cachesim-XXXXXX", log[] = "/tmp/fibtrace-cachesim-log-XXXXXX";
	char msg[160];
	struct algo_list l;
	char **hargv = NULL;
	int err, fo = -1, fl = -1;
	double native;

	err = find_tools(valgrind, harness, sizeof(valgrind));
	if (err)
		return err;
	if (list_algos(harness, &l)) {
		fprintf(stderr, "fibtrace: --cachesim: %s --list failed\n", harness);
		return -FT_EXIT_ERROR;
	}
	err = choose_algos(sim, o, &l);
	if (err)
		return err;
	if (o->nn > FT_SIM_MAX_N || (double)sim->nalgo * o->nn * o->rounds > FT_SIM_MAX_READS) {
		fprintf(stderr,
			"fibtrace: --cachesim simulates at most %d reads of %d distinct n (a "
			"simulated read costs about a hundred native ones); this run asks for %u x "
			"%u x %u\n",
			FT_SIM_MAX_READS, FT_SIM_MAX_N, sim->nalgo, o->nn, o->rounds);
		return -FT_EXIT_USAGE;
	}
	if (ft_sim_prepare(sim, sim->nalgo, o->n, o->nn, o->rounds))
		return -FT_EXIT_ERROR;
	memcpy(sim->geom, ft_sim_default_geometry, sizeof(sim->geom));
	if (o->geometry &&
	    ft_sim_geometry_parse(o->geometry, sim->geom, &sim->host_geometry, msg, sizeof(msg))) {
		fprintf(stderr, "fibtrace: bad --cache-geometry '%s': %s\n", o->geometry, msg);
		return -FT_EXIT_USAGE;
	}
	hargv = harness_argv(sim, o, harness, algos, sizeof(algos));
	if (!helper_fs_enter()) { /* callgrind, run as the sudo user, writes it */
		fo = mkstemp(out);
		helper_fs_leave();
	}
	fl = mkstemp(log); /* valgrind's stderr: opened by fibtrace for it */
	if (!hargv || fo < 0 || fl < 0) {
		fprintf(stderr, "fibtrace: --cachesim: %s\n", strerror(errno ? errno : ENOMEM));
		err = -FT_EXIT_ERROR;
		goto out;
	}
	/* Natively first: what a read costs without the simulation (and a harness that works). */
	if (spawn(hargv, NULL, &native)) {
		fprintf(stderr, "fibtrace: --cachesim: %s --reads failed\n", harness);
		err = -FT_EXIT_ERROR;
		goto out;
	}
	sim->native_s = native;
	if (o->verbose)
		fprintf(stderr, "fibtrace: --cachesim: %s under callgrind, output %s\n", harness,
			out);
	err = simulate(sim, hargv, valgrind, out, log);
out:
	free_argv(hargv);
	if (fo >= 0) {
		close(fo);
		if (!o->verbose)
			unlink(out);
	}
	if (fl >= 0) {
		close(fl);
		unlink(log);
	}
	return err;
}
