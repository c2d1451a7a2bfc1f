// SPDX-License-Identifier: GPL-2.0
/*
 * fibcount: how often one read of F(N) by bn-fdouble-karatsuba calls each of
 * a few library functions, computed and then formatted in decimal as
 * fibdrv_format does, from the user-space build of the same sources compiled
 * with -finstrument-functions (mk/bignum.mk). The guest test of nested calls
 * (tests/guest/test_fibtrace_modes.py) compares the kernel's traced counts
 * with these.
 *
 *   fibcount N     prints "<function> <calls>" per function, one per line
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bn.h"
#include "fib_algo.h"

#define NO_INSTR __attribute__((no_instrument_function))

static const struct {
	const char *name;
	void *fn;
} counted[] = {
	{"bn_sqr_karatsuba", (void *)bn_sqr_karatsuba},
	{"bn_mul_karatsuba", (void *)bn_mul_karatsuba},
	{"bn_sqr_n", (void *)bn_sqr_n},
	{"bn_mul_n", (void *)bn_mul_n},
};
#define NCOUNTED (sizeof(counted) / sizeof(counted[0]))
static unsigned long calls[NCOUNTED];

void __cyg_profile_func_enter(void *fn, void *site) NO_INSTR;
void __cyg_profile_func_exit(void *fn, void *site) NO_INSTR;

void __cyg_profile_func_enter(void *fn, void *site)
{
	size_t i;

	(void)site;
	for (i = 0; i < NCOUNTED; i++)
		calls[i] += counted[i].fn == fn;
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

int main(int argc, char **argv)
{
	const char *name = "bn-fdouble-karatsuba";
	const struct fib_algo *a = fib_algo_find(name, strlen(name));
	struct fib_value v = FIB_VALUE_INIT;
	unsigned long long n;
	char *buf, *end;
	long len;
	size_t i;

	if (argc != 2 || !a) {
		fprintf(stderr, "usage: fibcount N\n");
		return 2;
	}
	n = strtoull(argv[1], &end, 10);
	if (*end || end == argv[1] || fib_compute(a, n, &v)) {
		fprintf(stderr, "fibcount: cannot compute F(%s)\n", argv[1]);
		return 1;
	}
	len = fib_format_size(&v, FIBDRV_FORMAT_DEC);
	buf = malloc(len > 0 ? len : 1);
	if (len < 0 || !buf || fib_format(&v, FIBDRV_FORMAT_DEC, buf, len) != len) {
		fprintf(stderr, "fibcount: cannot format F(%llu)\n", n);
		return 1;
	}
	for (i = 0; i < NCOUNTED; i++)
		printf("%s %lu\n", counted[i].name, calls[i]);
	free(buf);
	fib_value_release(&v);
	return 0;
}
