// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fibcalc - compute F(N) in user space with the fibdrv library.
 *
 *   fibcalc [--algo A] [--format dec|bin] N
 *   fibcalc --list            one line per algorithm: name<TAB>max_n
 *   fibcalc --default         the default algorithm's name
 *   fibcalc --memory N        the library's peak bytes for F(N) and its format
 *
 * Prints F(N) in decimal and a newline.  With --format bin the value is
 * formatted to the binary limb format (little-endian u64 limbs) and
 * printed as hexadecimal, most significant digit first, "0x" prefixed
 * (F(0) = "0x0").  Exit status 0 on success, 1 when the computation fails,
 * 64 (EX_USAGE) for bad input: unknown algorithm, N beyond the algorithm's
 * cap, non-numeric N.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fib_algo.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#else
#define HAVE_CALLGRIND 0
#define CALLGRIND_DUMP_STATS_AT(label) ((void)(label))
#endif

#define EXIT_USAGE 64

const char *argp_program_version = "fibcalc 1.0";
static const char doc[] = "Compute the Fibonacci number F(N) with the fibdrv library.";
static const char args_doc[] = "N\n--reads R N [N...]";

static const struct argp_option options[] = {
	{"algo", 'a', "A", 0,
	 "algorithm (default bn-fdouble-karatsuba), see --list; with --reads a comma-separated "
	 "list",
	 0},
	{"reads", 'r', "R", 0,
	 "the --cachesim harness: a warm-up round, then R rounds of reads of every N, no output",
	 0},
	{"format", 'f', "FMT", 0, "dec (default) or bin (printed as hex)", 0},
	{"list", 'l', NULL, 0, "list the algorithms: name<TAB>max_n", 0},
	{"default", 'D', NULL, 0, "print the default algorithm's name", 0},
	{"memory", 'm', NULL, 0,
	 "print instead of F(N) the bytes the library held at its peak computing and formatting "
	 "it (what one read of the device allocates at once, before the kernel's rounding)",
	 0},
	{NULL, 0, NULL, 0, NULL, 0},
};

#define MAX_ALGOS 16
#define MAX_NS 100000

struct args {
	const struct fib_algo *algo[MAX_ALGOS];
	unsigned int nalgo;
	enum fib_format format;
	int list;
	unsigned int reads; /* --reads R; 0: print F(N) */
	int memory;	    /* --memory: print the peak bytes instead */
	unsigned int nn;
	u64 n[MAX_NS];
};

/* --algo A[,B...]: each known; 0 or the usage error's message. */
static const char *parse_algos(struct args *a, const char *arg)
{
	static char msg[160];
	const char *p = arg;

	a->nalgo = 0;
	do {
		size_t len = strcspn(p, ",");

		if (a->nalgo == MAX_ALGOS)
			return "too many algorithms";
		a->algo[a->nalgo] = fib_algo_find(p, len);
		if (!a->algo[a->nalgo++] || !len) {
			snprintf(msg, sizeof(msg), "unknown algorithm '%.*s' (see --list)",
				 (int)len, p);
			return msg;
		}
		p += len;
	} while (*p++);
	return NULL;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	char *end;

	switch (key) {
	case 'a': {
		const char *msg = parse_algos(a, arg);

		if (msg)
			argp_failure(state, EXIT_USAGE, 0, "%s", msg);
		break;
	}
	case 'r':
		errno = 0;
		a->reads = strtoul(arg, &end, 10);
		if (*end || errno || !a->reads || a->reads > 1000000 || arg[0] < '0' ||
		    arg[0] > '9')
			argp_failure(state, EXIT_USAGE, 0, "bad --reads '%s' (1..1000000)", arg);
		break;
	case 'f':
		if (!strcmp(arg, "dec"))
			a->format = FIBDRV_FORMAT_DEC;
		else if (!strcmp(arg, "bin"))
			a->format = FIBDRV_FORMAT_BIN;
		else
			argp_failure(state, EXIT_USAGE, 0, "unknown format '%s' (dec or bin)", arg);
		break;
	case 'l':
		a->list = 1;
		break;
	case 'D':
		a->list = 2;
		break;
	case 'm':
		a->memory = 1;
		break;
	case ARGP_KEY_ARG:
		if (a->nn == MAX_NS)
			argp_failure(state, EXIT_USAGE, 0, "at most %d values of N", MAX_NS);
		errno = 0;
		if (arg[0] < '0' || arg[0] > '9')
			argp_failure(state, EXIT_USAGE, 0, "N must be a non-negative integer: '%s'", arg);
		a->n[a->nn++] = strtoull(arg, &end, 10);
		if (*end || errno)
			argp_failure(state, EXIT_USAGE, 0, "N must be a non-negative integer: '%s'",
				     arg);
		break;
	case ARGP_KEY_END:
		if (!a->list && !a->nn)
			argp_failure(state, EXIT_USAGE, 0, "missing N (try --help)");
		if (a->memory && a->reads)
			argp_failure(state, EXIT_USAGE, 0, "--memory is of one read, not --reads");
		if (!a->reads && (a->nn > 1 || a->nalgo > 1))
			argp_failure(state, EXIT_USAGE, 0,
				     "one N and one algorithm, unless --reads");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };

static int print_hex(const unsigned char *b, long len)
{
	long i = len;

	while (i > 0 && b[i - 1] == 0)
		i--;
	fputs("0x", stdout);
	if (i == 0)
		putchar('0');
	else
		printf("%x", b[--i]);
	while (i-- > 0)
		printf("%02x", b[i]);
	putchar('\n');
	return 0;
}

/* An N beyond an algorithm's cap: the usage error, before anything is computed. */
static int check_caps(const struct args *a)
{
	unsigned int i, j;

	for (i = 0; i < a->nalgo; i++)
		for (j = 0; j < a->nn; j++)
			if (fib_check_n(a->algo[i], a->n[j])) {
				fprintf(stderr,
					"fibcalc: N = %llu is beyond the cap of %s (max_n %llu)\n",
					a->n[j], a->algo[i]->name, a->algo[i]->max_n);
				return EXIT_USAGE;
			}
	return 0;
}

/*
 * One read as fib_read does it: compute, size, allocate, format, copy to the
 * caller's buffer @ubuf, free.  noinline: callgrind sees the harness's own
 * cost apart from main's.
 */
static noinline long one_read(const struct fib_algo *algo, u64 n, enum fib_format f, char *ubuf,
			      size_t cap)
{
	struct fib_value v = FIB_VALUE_INIT;
	long len;
	char *out;
	int err;

	err = fib_compute(algo, n, &v);
	if (err)
		return err;
	len = fib_format_size(&v, f);
	out = len < 0 ? NULL : malloc(len > 0 ? (size_t)len : 1);
	if (out) {
		len = (size_t)len > cap ? -ENOSPC : fib_format(&v, f, out, (size_t)len);
		if (len > 0)
			memcpy(ubuf, out, (size_t)len);
	} else if (len >= 0) {
		len = -ENOMEM;
	}
	free(out);
	fib_value_release(&v);
	return len;
}

/* --reads R: per algorithm, R rounds over every N, each read a callgrind part. */
static int harness(const struct args *a)
{
	size_t cap = 1;
	unsigned int i, r, j;
	char *ubuf;
	int ret = 0;

	if (!HAVE_CALLGRIND)
		fprintf(stderr,
			"fibcalc: built without valgrind/callgrind.h: reads are not split\n");
	for (j = 0; j < a->nn; j++) {
		long s = fib_result_size(a->n[j], a->format);

		if (s < 0)
			s = fib_result_size(a->n[j] + 1, a->format); /* an upper bound */
		if (s > 0 && (size_t)s + 64 > cap)
			cap = (size_t)s + 64;
	}
	ubuf = malloc(cap);
	if (!ubuf)
		return 1;
	CALLGRIND_DUMP_STATS_AT("harness start"); /* start-up apart from the first read */
	for (i = 0; i < a->nalgo && !ret; i++)
		for (r = 0; r <= a->reads && !ret; r++) /* round 0: the warm-up */
			for (j = 0; j < a->nn && !ret; j++) {
				long len = one_read(a->algo[i], a->n[j], a->format, ubuf, cap);

				if (r)
					CALLGRIND_DUMP_STATS_AT("read");
				else
					CALLGRIND_DUMP_STATS_AT("warmup");
				if (len < 0) {
					fprintf(stderr, "fibcalc: %s F(%llu): %s\n",
						a->algo[i]->name, a->n[j], strerror((int)-len));
					ret = 1;
				}
			}
	free(ubuf);
	return ret;
}

int main(int argc, char **argv)
{
	static struct args
		a; /* static: its 800 KB of N are not zeroed on the stack at each start */
	struct fib_value v = FIB_VALUE_INIT;
	unsigned int i;
	long size, len;
	char *buf;
	int err;

	a.algo[0] = fib_algo_default();
	a.nalgo = 1;
	a.format = FIBDRV_FORMAT_DEC;
	argp_err_exit_status = EXIT_USAGE;
	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (a.list == 2) {
		puts(fib_algo_default()->name);
		return 0;
	}
	if (a.list) {
		for (i = 0; i < fib_algo_count; i++)
			printf("%s\t%llu\n", fib_algos[i].name, fib_algos[i].max_n);
		return 0;
	}
	err = check_caps(&a);
	if (err)
		return err;
	if (a.reads)
		return harness(&a);
	err = fib_compute(a.algo[0], a.n[0], &v);
	if (err) {
		fprintf(stderr, "fibcalc: %s failed: %s\n", a.algo[0]->name, strerror(-err));
		return 1;
	}
	size = fib_format_size(&v, a.format);
	buf = size >= 0 ? malloc((size_t)size + 1) : NULL;
	len = buf ? fib_format(&v, a.format, buf, (size_t)size) : size;
	if (len < 0 || !buf) {
		fprintf(stderr, "fibcalc: formatting failed: %s\n", strerror(len < 0 ? (int)-len : ENOMEM));
		free(buf);
		fib_value_release(&v);
		return 1;
	}
	if (a.memory) {
		size_t cur, peak;

		bn_mem_stats(&cur, &peak);
		printf("%zu\n", peak);
	} else if (a.format == FIBDRV_FORMAT_DEC) {
		fwrite(buf, 1, (size_t)len, stdout);
		putchar('\n');
	} else {
		print_hex((const unsigned char *)buf, len);
	}
	free(buf);
	fib_value_release(&v);
	return fflush(stdout) ? 1 : 0;
}
