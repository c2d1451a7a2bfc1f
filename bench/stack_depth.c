// SPDX-License-Identifier: GPL-2.0
/*
 * The deepest nesting of traced functions in one read, per algorithm at its
 * largest n, from a user-space build of the library with
 * -finstrument-functions (make stack-depth). Traced functions are the ones
 * whose addresses are given on stdin: the module's bn_/fib_/fibdrv_ text
 * symbols, looked up in this program (scripts/stack-depth.sh). Sizes
 * FT_STACK_DEPTH (bpf/fibtrace.h); docs/measurement.md has the numbers.
 *
 *   stack_depth [N]    N: cap every algorithm's n at N
 */
#include <stdio.h>
#include <stdlib.h>

#include "fib_algo.h"

#define MAX_TRACED 4096
#define MAX_NEST (1 << 16)

static void *traced[MAX_TRACED];
static int ntraced, depth, deepest, sp;
static unsigned char nest[MAX_NEST];

#define NO_INSTR __attribute__((no_instrument_function))

NO_INSTR static int is_traced(void *fn)
{
	int i;

	for (i = 0; i < ntraced; i++)
		if (traced[i] == fn)
			return 1;
	return 0;
}

NO_INSTR void __cyg_profile_func_enter(void *fn, void *site)
{
	int t = is_traced(fn);

	(void)site;
	if (sp < MAX_NEST)
		nest[sp] = t;
	sp++;
	if (t && ++depth > deepest)
		deepest = depth;
}

NO_INSTR void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	if (--sp < MAX_NEST && nest[sp])
		depth--;
}

NO_INSTR int main(int argc, char **argv)
{
	unsigned long long cap = argc > 1 ? strtoull(argv[1], NULL, 10) : ~0ULL;
	unsigned long addr;
	unsigned int i;

	while (ntraced < MAX_TRACED && scanf("%lx", &addr) == 1)
		traced[ntraced++] = (void *)addr;
	for (i = 0; i < fib_algo_count; i++) {
		const struct fib_algo *a = &fib_algos[i];
		u64 n = a->max_n < cap ? a->max_n : cap;
		struct fib_value v = FIB_VALUE_INIT;
		long len;
		char *buf;

		deepest = 0;
		if (fib_compute(a, n, &v)) {
			printf("%-22s n %-10llu failed\n", a->name, (unsigned long long)n);
			continue;
		}
		len = fib_format_size(&v, FIBDRV_FORMAT_DEC);
		buf = len > 0 ? malloc(len) : NULL;
		if (buf)
			fib_format(&v, FIBDRV_FORMAT_DEC, buf, len);
		free(buf);
		fib_value_release(&v);
		/* + fib_read and fibdrv_compute/fibdrv_format above the library */
		printf("%-22s n %-10llu deepest %d\n", a->name, (unsigned long long)n, deepest + 2);
	}
	return 0;
}
