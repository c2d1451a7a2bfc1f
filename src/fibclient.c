// SPDX-License-Identifier: GPL-2.0
/*
 * fibclient: read F(n) from /dev/fibonacci.
 *
 *   fibclient [--algo A] [--format dec|bin] N       print F(N)
 *   fibclient [--algo A] --sweep A:B[:STEP] [--verify]
 *                                    print "n F(n)" lines; with --verify,
 *                                    check each against GMP and print a summary
 */
#include <argp.h>
#include <errno.h>
#include <gmp.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fibdev.h"
#include "range.h"

static struct client_options {
	const char *device;
	const char *algo;
	int format;
	bool verify;
	bool quiet;
	bool have_n;
	uint64_t n;
	struct u64_range sweep;
	bool have_sweep;
} opts = {
	.device = FIBDRV_DEVICE_PATH,
	.format = FIBDRV_FORMAT_DEC,
};

const char *argp_program_version = "fibclient 0.2";
static const char doc[] = "Read Fibonacci numbers from /dev/fibonacci.\v"
			  "Exit status: 0 on success, 1 on a device error or a --verify mismatch, "
			  "2 on bad usage.";
static const char args_doc[] = "N";

enum { OPT_DEVICE = 0x100 };

static const struct argp_option options[] = {
	{"algo", 'a', "NAME", 0, "Algorithm (see /sys/class/misc/fibonacci/algorithms)", 0},
	{"format", 'f', "dec|bin", 0, "Read format (bin is converted to decimal for printing)", 0},
	{"sweep", 's', "A:B[:STEP]", 0, "Read every n from A to B", 0},
	{"verify", 'V', NULL, 0, "Check every value against GMP", 0},
	{"quiet", 'q', NULL, 0, "Print no values (with --verify: only the summary)", 0},
	{"device", OPT_DEVICE, "PATH", 0, "Device path (default /dev/fibonacci)", 0},
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	int err;

	switch (key) {
	case 'a':
		opts.algo = arg;
		break;
	case 'f':
		if (!strcmp(arg, "dec"))
			opts.format = FIBDRV_FORMAT_DEC;
		else if (!strcmp(arg, "bin"))
			opts.format = FIBDRV_FORMAT_BIN;
		else
			argp_error(state, "--format must be dec or bin, not '%s'", arg);
		break;
	case 's':
		err = parse_u64_range(arg, &opts.sweep);
		if (err)
			argp_error(state, "bad --sweep '%s' (%s)", arg, u64_range_why(err));
		opts.have_sweep = true;
		break;
	case 'V':
		opts.verify = true;
		break;
	case 'q':
		opts.quiet = true;
		break;
	case OPT_DEVICE:
		opts.device = arg;
		break;
	case ARGP_KEY_ARG:
		if (opts.have_n || parse_u64(arg, &opts.n))
			argp_error(state, "expected one non-negative integer N, got '%s'", arg);
		opts.have_n = true;
		break;
	case ARGP_KEY_END:
		if (opts.have_n == opts.have_sweep)
			argp_error(state, "give either N or --sweep A:B");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Reads F(n) into *buf (grown as needed); returns its length or -errno. */
static ssize_t read_fib(int fd, uint64_t n, char **buf, size_t *cap)
{
	uint64_t need;
	ssize_t len;

	if (lseek(fd, (off_t)n, SEEK_SET) < 0)
		return -errno;
	if (ioctl(fd, FIBDRV_IOC_RESULT_SIZE, &need) < 0)
		return -errno;
	if (need > *cap) {
		char *grown = realloc(*buf, need);

		if (!grown)
			return -ENOMEM;
		*buf = grown;
		*cap = need;
	}
	len = read(fd, *buf, *cap);
	return len < 0 ? -errno : len;
}

/* Converts what the device returned into a GMP integer. */
static void value_to_mpz(mpz_t out, const char *buf, size_t len, int format)
{
	if (format == FIBDRV_FORMAT_BIN) {
		/* little-endian u64 limbs, least significant first */
		mpz_import(out, len / 8, -1, 8, -1, 0, buf);
		return;
	}
	char *text = strndup(buf, len);

	if (!text || mpz_set_str(out, text, 10))
		mpz_set_si(out, -1);
	free(text);
}

int main(int argc, char **argv)
{
	static const struct argp argp = {options, parse_arg, args_doc, doc, NULL, NULL, NULL};
	uint64_t mismatches = 0, checked = 0;
	char *buf = NULL;
	size_t cap = 0;
	mpz_t got, want;
	int status = 0;
	int fd;

	argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (!opts.have_sweep)
		opts.sweep = (struct u64_range){opts.n, opts.n, 1};

	fd = fibdev_open(opts.device, opts.algo, opts.format, "fibclient");
	if (fd < 0)
		return 1;

	mpz_inits(got, want, NULL);
	for (uint64_t n = opts.sweep.first;; n += opts.sweep.step) {
		ssize_t len = read_fib(fd, n, &buf, &cap);

		if (len < 0) {
			fprintf(stderr, "fibclient: F(%" PRIu64 "): %s\n", n, strerror((int)-len));
			status = 1;
			break;
		}
		value_to_mpz(got, buf, (size_t)len, opts.format);
		if (opts.verify) {
			mpz_fib_ui(want, n);
			checked++;
			if (mpz_cmp(got, want)) {
				mismatches++;
				fprintf(stderr, "fibclient: MISMATCH at n=%" PRIu64 "\n", n);
			}
		}
		if (!opts.quiet) {
			if (opts.have_sweep)
				printf("%" PRIu64 " ", n);
			mpz_out_str(stdout, 10, got);
			putchar('\n');
		}
		if (n >= opts.sweep.last || opts.sweep.last - n < opts.sweep.step)
			break;
	}
	if (opts.verify) {
		fprintf(stderr, "fibclient: verified %" PRIu64 " values, %" PRIu64 " mismatches\n",
			checked, mismatches);
		if (mismatches)
			status = 1;
	}
	mpz_clears(got, want, NULL);
	free(buf);
	close(fd);
	return status;
}
