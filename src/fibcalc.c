// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fibcalc - compute F(N) in user space with the fibdrv library.
 *
 *   fibcalc [--algo A] [--format dec|bin] N
 *   fibcalc --list            one line per algorithm: name<TAB>max_n
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

#define EXIT_USAGE 64

const char *argp_program_version = "fibcalc 1.0";
static const char doc[] = "Compute the Fibonacci number F(N) with the fibdrv library.";
static const char args_doc[] = "N";

static const struct argp_option options[] = {
	{ "algo", 'a', "A", 0, "algorithm (default bn-fdouble-karatsuba), see --list", 0 },
	{ "format", 'f', "FMT", 0, "dec (default) or bin (printed as hex)", 0 },
	{ "list", 'l', NULL, 0, "list the algorithms: name<TAB>max_n", 0 },
	{ NULL, 0, NULL, 0, NULL, 0 },
};

struct args {
	const struct fib_algo *algo;
	enum fib_format format;
	int list;
	int have_n;
	u64 n;
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	char *end;

	switch (key) {
	case 'a':
		a->algo = fib_algo_find(arg, strlen(arg));
		if (!a->algo)
			argp_failure(state, EXIT_USAGE, 0, "unknown algorithm '%s' (see --list)", arg);
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
	case ARGP_KEY_ARG:
		if (a->have_n)
			argp_failure(state, EXIT_USAGE, 0, "only one N, please");
		errno = 0;
		if (arg[0] < '0' || arg[0] > '9')
			argp_failure(state, EXIT_USAGE, 0, "N must be a non-negative integer: '%s'", arg);
		a->n = strtoull(arg, &end, 10);
		if (*end || errno)
			argp_failure(state, EXIT_USAGE, 0, "N must be a non-negative integer: '%s'", arg);
		a->have_n = 1;
		break;
	case ARGP_KEY_END:
		if (!a->list && !a->have_n)
			argp_failure(state, EXIT_USAGE, 0, "missing N (try --help)");
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

int main(int argc, char **argv)
{
	struct args a = { fib_algo_default(), FIBDRV_FORMAT_DEC, 0, 0, 0 };
	struct fib_value v = FIB_VALUE_INIT;
	unsigned int i;
	long size, len;
	char *buf;
	int err;

	argp_err_exit_status = EXIT_USAGE;
	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (a.list) {
		for (i = 0; i < fib_algo_count; i++)
			printf("%s\t%llu\n", fib_algos[i].name, fib_algos[i].max_n);
		return 0;
	}
	err = fib_compute(a.algo, a.n, &v);
	if (err == -EOVERFLOW || err == -E2BIG) {
		fprintf(stderr, "fibcalc: N = %llu is beyond the cap of %s (max_n %llu): %s\n",
			a.n, a.algo->name, a.algo->max_n, strerror(-err));
		return EXIT_USAGE;
	}
	if (err) {
		fprintf(stderr, "fibcalc: %s failed: %s\n", a.algo->name, strerror(-err));
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
	if (a.format == FIBDRV_FORMAT_DEC) {
		fwrite(buf, 1, (size_t)len, stdout);
		putchar('\n');
	} else {
		print_hex((const unsigned char *)buf, len);
	}
	free(buf);
	fib_value_release(&v);
	return fflush(stdout) ? 1 : 0;
}
