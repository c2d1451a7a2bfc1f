/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bn_generic.h - what bn_x86.h provides, in plain C, for machines without
 * it (or with BN_NO_ASM defined): no block kernels, so the C loops of the
 * .c files do all the work.
 */
#ifndef FIBDRV_BN_GENERIC_H
#define FIBDRV_BN_GENERIC_H

#include "bn_compat.h"

/* 128/64 division, nh < d (needs __udivti3 in the kernel outside x86-64) */
static inline u64 bn_udiv_qrnnd(u64 *rem, u64 nh, u64 nl, u64 d)
{
	unsigned __int128 n = ((unsigned __int128)nh << 64) | nl;

	*rem = (u64)(n % d);
	return (u64)(n / d);
}

/* no add/sub block kernel: 0 limbs done, the C loop does them all */
static inline size_t bn_add_n_x4(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *cy)
{
	(void)r, (void)a, (void)b, (void)n, (void)cy;
	return 0;
}

static inline size_t bn_sub_n_x4(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *cy)
{
	(void)r, (void)a, (void)b, (void)n, (void)cy;
	return 0;
}

/* The multiplication block kernels are never used; they stay correct. */
static inline int bn_mul_x4_ok(size_t n)
{
	(void)n;
	return 0;
}

static inline u64 bn_addmul_1_x4(u64 *r, const u64 *a, size_t blocks, u64 b, u64 cy)
{
	size_t i;

	for (i = 0; i < 4 * blocks; i++) {
		unsigned __int128 t = (unsigned __int128)a[i] * b + r[i] + cy;

		r[i] = (u64)t;
		cy = (u64)(t >> 64);
	}
	return cy;
}

static inline u64 bn_mul_1_x4(u64 *r, const u64 *a, size_t blocks, u64 b, u64 cy)
{
	size_t i;

	for (i = 0; i < 4 * blocks; i++) {
		unsigned __int128 t = (unsigned __int128)a[i] * b + cy;

		r[i] = (u64)t;
		cy = (u64)(t >> 64);
	}
	return cy;
}

#endif /* FIBDRV_BN_GENERIC_H */
