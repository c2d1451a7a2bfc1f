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

/* No multiplication row kernel: bn_mul_1.c's C loops do the rows. */
static inline int bn_mul_k_ok(void)
{
	return 0;
}

static inline u64 bn_addmul_1_k(u64 *r, const u64 *a, size_t n, u64 b)
{
	(void)r, (void)a, (void)n, (void)b;
	return 0;
}

static inline u64 bn_mul_1_k(u64 *r, const u64 *a, size_t n, u64 b)
{
	(void)r, (void)a, (void)n, (void)b;
	return 0;
}

static inline void bn_addmul_rows_k(u64 *r, const u64 *a, size_t n, const u64 *b, size_t m,
				    long shrink)
{
	(void)r, (void)a, (void)n, (void)b, (void)m, (void)shrink;
}

static inline void bn_sqr_diag_k(u64 *r, const u64 *a, size_t n)
{
	(void)r, (void)a, (void)n;
}

/* No shift kernels: bn_shift.c's C loops do every limb. */
static inline size_t bn_lshift_blocks_k(u64 *r, const u64 *a, size_t i, u64 *hi, unsigned int cnt)
{
	(void)r, (void)a, (void)hi, (void)cnt;
	return i;
}

static inline size_t bn_rshift_blocks_k(u64 *r, const u64 *a, size_t i, size_t n, u64 *lo,
					unsigned int cnt)
{
	(void)r, (void)a, (void)n, (void)lo, (void)cnt;
	return i;
}

#endif /* FIBDRV_BN_GENERIC_H */
