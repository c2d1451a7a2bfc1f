// SPDX-License-Identifier: GPL-2.0
/*
 * trace_workload: the fixed read workload of scripts/bench-trace.sh.
 *
 *   trace_workload [--rounds R] [--cpu C] N:READS [N:READS...]
 *
 * For each N: one untimed warm-up round, then R timed rounds of READS
 * lseek(fd, N) + read() pairs in a tight loop. Prints one line per N:
 *   N READS ROUNDS MEDIAN_NS BEST_NS
 * where the times are per read (median and minimum over the rounds).
 * Every read issued, warm-up included, is (1 + R) * READS per N.
 *
 * --truth: the time inside fib_read, untraced. Each round times READS
 * pread()s of F(N) and READS pread()s at max_n + 1, which fib_read refuses
 * at once (EINVAL): the difference per read cancels the system call path
 * and leaves fib_read's own work (within the few ns its refusal takes).
 *
 * --mark: the timed rounds of each N are bracketed by two no-ops that
 * bench/insprof's QEMU plugin recognises (x86-64): it counts the
 * instructions executed at every address between them (make bench-parts).
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fibdrv_uapi.h"

#define MAX_SPECS 16
#define MAX_ROUNDS 99
/* F(10^6) has 208,988 digits: room for any n this benchmark uses. */
#define READ_BUF_SIZE (256 * 1024)

struct read_spec {
	uint64_t n;
	uint64_t reads;
};

static struct workload_options {
	const char *device;
	int rounds;
	int cpu;
	int truth;
	int mark;
	uint64_t max_n; /* fibdrv's, for --truth */
	int nspecs;
	struct read_spec specs[MAX_SPECS];
} opts = {
	.device = FIBDRV_DEVICE_PATH,
	.rounds = 5,
	.cpu = -1,
};

const char *argp_program_version = "trace_workload 0.1";
static const char doc[] = "Time lseek+read of /dev/fibonacci per n (scripts/bench-trace.sh).\v"
			  "Exit status: 0 ok, 1 device error, 2 bad usage.";
static const char args_doc[] = "N:READS [N:READS...]";

enum { OPT_DEVICE = 0x100, OPT_TRUTH, OPT_MARK };

static const struct argp_option options[] = {
	{"rounds", 'r', "R", 0, "Timed rounds per n (default 5, at most 99)", 0},
	{"cpu", 'c', "C", 0, "Pin to CPU C", 0},
	{"device", OPT_DEVICE, "PATH", 0, "Device path (default /dev/fibonacci)", 0},
	{"truth", OPT_TRUTH, NULL, 0, "Time inside fib_read: reads minus refused reads", 0},
	{"mark", OPT_MARK, NULL, 0, "Bracket the timed rounds with bench/insprof's marks", 0},
	{},
};

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	*out = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	return 0;
}

static int parse_spec(char *arg, struct read_spec *spec)
{
	char *colon = strchr(arg, ':');

	if (!colon)
		return -1;
	*colon = '\0';
	if (parse_u64(arg, &spec->n) || parse_u64(colon + 1, &spec->reads) || !spec->reads)
		return -1;
	return 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	uint64_t v;

	switch (key) {
	case 'r':
		if (parse_u64(arg, &v) || v < 1 || v > MAX_ROUNDS)
			argp_error(state, "--rounds: expected 1..%d, got '%s'", MAX_ROUNDS, arg);
		opts.rounds = (int)v;
		break;
	case 'c':
		if (parse_u64(arg, &v) || v >= CPU_SETSIZE)
			argp_error(state, "--cpu: expected a CPU number, got '%s'", arg);
		opts.cpu = (int)v;
		break;
	case OPT_DEVICE:
		opts.device = arg;
		break;
	case OPT_TRUTH:
		opts.truth = 1;
		break;
	case OPT_MARK:
#if !defined(__x86_64__)
		argp_error(state, "--mark: x86-64 only");
#endif
		opts.mark = 1;
		break;
	case ARGP_KEY_ARG:
		if (opts.nspecs == MAX_SPECS)
			argp_error(state, "at most %d N:READS arguments", MAX_SPECS);
		if (parse_spec(arg, &opts.specs[opts.nspecs]))
			argp_error(state, "expected N:READS with READS > 0, got '%s'", arg);
		opts.nspecs++;
		break;
	case ARGP_KEY_END:
		if (!opts.nspecs)
			argp_error(state, "no N:READS given");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* READS reads of F(n); returns 0 or -errno (a short or empty read is -EIO). */
static int read_round(int fd, char *buf, const struct read_spec *spec)
{
	uint64_t i;
	ssize_t len;

	for (i = 0; i < spec->reads; i++) {
		if (lseek(fd, (off_t)spec->n, SEEK_SET) < 0)
			return -errno;
		len = read(fd, buf, READ_BUF_SIZE);
		if (len < 0)
			return -errno;
		if (len == 0 || len == READ_BUF_SIZE)
			return -EIO;
	}
	return 0;
}

/* --truth: READS preads of F(n) minus READS refused preads, in ns. */
static int truth_round(int fd, char *buf, const struct read_spec *spec, double *ns)
{
	uint64_t i, t0, t1, t2;
	ssize_t len;

	t0 = now_ns();
	for (i = 0; i < spec->reads; i++) {
		len = pread(fd, buf, READ_BUF_SIZE, (off_t)spec->n);
		if (len <= 0 || len == READ_BUF_SIZE)
			return len < 0 ? -errno : -EIO;
	}
	t1 = now_ns();
	for (i = 0; i < spec->reads; i++)
		if (pread(fd, buf, READ_BUF_SIZE, (off_t)opts.max_n + 1) != -1 || errno != EINVAL)
			return -EPROTO; /* the refusal is what cancels the syscall path */
	t2 = now_ns();
	*ns = (double)(t1 - t0) - (double)(t2 - t1);
	return 0;
}

/*
 * bench/insprof's marks: nopl 0x465450NN(%rax), a no-op whose displacement
 * says "begin" (NN = 01) or "end" (02) to the plugin.
 */
static void mark(int end)
{
#if defined(__x86_64__)
	if (!opts.mark)
		return;
	if (end)
		__asm__ volatile("nopl 0x46545002(%%rax)" ::: "memory");
	else
		__asm__ volatile("nopl 0x46545001(%%rax)" ::: "memory");
#else
	(void)end;
#endif
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int run_spec(int fd, char *buf, const struct read_spec *spec)
{
	double per_read[MAX_ROUNDS];
	uint64_t t0;
	int r, err;

	err = read_round(fd, buf, spec); /* warm-up: caches, page faults */
	mark(0);
	for (r = 0; !err && r < opts.rounds; r++) {
		double ns = 0;

		t0 = now_ns();
		if (opts.truth)
			err = truth_round(fd, buf, spec, &ns);
		else
			err = read_round(fd, buf, spec);
		if (!opts.truth)
			ns = (double)(now_ns() - t0);
		per_read[r] = ns / (double)spec->reads;
	}
	mark(1);
	if (err) {
		fprintf(stderr, "trace_workload: read of F(%" PRIu64 ") from %s: %s\n", spec->n,
			opts.device, strerror(-err));
		return 1;
	}
	qsort(per_read, (size_t)opts.rounds, sizeof(per_read[0]), cmp_double);
	/* Even round counts: the lower middle, an observed value. */
	printf("%" PRIu64 " %" PRIu64 " %d %.1f %.1f\n", spec->n, spec->reads, opts.rounds,
	       per_read[(opts.rounds - 1) / 2], per_read[0]);
	fflush(stdout);
	return 0;
}

/* fibdrv's max_n module parameter. */
static int read_max_n(uint64_t *max_n)
{
	FILE *f = fopen("/sys/module/fibdrv/parameters/max_n", "r");
	unsigned long long v;
	int ok = f && fscanf(f, "%llu", &v) == 1;

	if (f)
		fclose(f);
	if (!ok) {
		fprintf(stderr, "trace_workload: --truth: cannot read fibdrv's max_n\n");
		return -1;
	}
	*max_n = v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {options, parse_arg, args_doc, doc, NULL, NULL, NULL};
	cpu_set_t set;
	char *buf;
	int fd, i, ret = 0;

	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	if (opts.cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(opts.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "trace_workload: pin to CPU %d: %s\n", opts.cpu,
				strerror(errno));
			return 1;
		}
	}
	if (opts.truth && read_max_n(&opts.max_n))
		return 1;
	fd = open(opts.device, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "trace_workload: %s: %s (is fibdrv loaded?)\n", opts.device,
			strerror(errno));
		return 1;
	}
	buf = malloc(READ_BUF_SIZE);
	if (!buf) {
		fprintf(stderr, "trace_workload: out of memory\n");
		close(fd);
		return 1;
	}
	for (i = 0; i < opts.nspecs && !ret; i++)
		ret = run_spec(fd, buf, &opts.specs[i]);
	free(buf);
	close(fd);
	return ret;
}
