// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The unit tests' harness (bn_check.h): check groups, random operands,
 * GMP conversions, the sizes at and around every threshold.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bn_check.h"

int failures;
static char fail_msg[512];
static int group_failed;

void fail(const char *fmt, ...)
{
	va_list ap;

	if (group_failed++)
		return;	/* keep the first reason */
	va_start(ap, fmt);
	vsnprintf(fail_msg, sizeof(fail_msg), fmt, ap);
	va_end(ap);
}

void group_begin(void)
{
	group_failed = 0;
	fail_msg[0] = 0;
}

void group_end(const char *name)
{
	size_t cur, peak;

	bn_mem_stats(&cur, &peak);
	if (!group_failed && cur != 0)
		fail("%zu bytes still allocated (leak)", cur);
	if (group_failed) {
		printf("FAIL %s: %s\n", name, fail_msg);
		failures++;
	} else {
		printf("PASS %s\n", name);
	}
	fflush(stdout);
}

/* ---- random operands ------------------------------------------------------ */

static u64 rng_state = 0x243f6a8885a308d3ULL;

u64 rnd(void)
{
	u64 x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* random limbs with runs of all-ones / zero limbs and bit patterns */
void rnd_limbs(u64 *x, size_t n)
{
	size_t i;
	int kind = (int)(rnd() % 6);

	for (i = 0; i < n; i++) {
		switch (kind) {
		case 0: x[i] = ~0ULL; break;
		case 1: x[i] = rnd() % 4 ? ~0ULL : rnd(); break;
		case 2: x[i] = rnd() % 4 ? 0 : rnd(); break;
		case 3: x[i] = rnd() >> (rnd() % 64); break;
		default: x[i] = rnd(); break;
		}
	}
	if (n && kind != 2 && x[n - 1] == 0)
		x[n - 1] = 1;
}

void to_mpz(mpz_t z, const u64 *x, size_t n)
{
	mpz_import(z, n, -1, sizeof(u64), 0, 0, x);
}

/* r (n limbs) == z ? */
int eq_mpz(const u64 *r, size_t n, const mpz_t z)
{
	mpz_t t;
	int eq;

	mpz_init(t);
	to_mpz(t, r, n);
	eq = mpz_cmp(t, z) == 0;
	mpz_clear(t);
	return eq;
}

u64 *xalloc(size_t n)
{
	u64 *p = malloc((n ? n : 1) * sizeof(u64));

	if (!p) {
		printf("FAIL test.alloc: out of memory\n");
		exit(1);
	}
	return p;
}

const size_t edge_sizes[] = {
	0,
	1,
	2,
	3,
	4,
	5,
	7,
	8,
	9,
	15,
	16,
	17,
	BN_MUL_KARATSUBA_THRESHOLD - 1,
	BN_MUL_KARATSUBA_THRESHOLD,
	BN_MUL_KARATSUBA_THRESHOLD + 1,
	BN_SQR_KARATSUBA_THRESHOLD - 1,
	BN_SQR_KARATSUBA_THRESHOLD,
	BN_SQR_KARATSUBA_THRESHOLD + 1,
	2 * BN_MUL_KARATSUBA_THRESHOLD + 1,
	BN_MUL_TOOM3_THRESHOLD - 1,
	BN_MUL_TOOM3_THRESHOLD,
	BN_MUL_TOOM3_THRESHOLD + 1,
	BN_SQR_TOOM3_THRESHOLD - 1,
	BN_SQR_TOOM3_THRESHOLD,
	BN_SQR_TOOM3_THRESHOLD + 1,
	3 * BN_MUL_TOOM3_THRESHOLD + 2,
	3 * BN_SQR_TOOM3_THRESHOLD + 1,
	1000,
	2500,
	BN_MUL_TOOM4_THRESHOLD - 1,
	BN_MUL_TOOM4_THRESHOLD,
	BN_MUL_TOOM4_THRESHOLD + 1,
	BN_SQR_TOOM4_THRESHOLD - 1,
	BN_SQR_TOOM4_THRESHOLD,
	BN_SQR_TOOM4_THRESHOLD + 1,
	4 * BN_MUL_TOOM4_THRESHOLD + 2,
	4 * BN_SQR_TOOM4_THRESHOLD + 3,
};
const size_t nedge = sizeof(edge_sizes) / sizeof(edge_sizes[0]);
