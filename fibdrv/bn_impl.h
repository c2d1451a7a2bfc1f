/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* bn_impl.h - private inline helpers shared by bn.c and bn_dec.c */
#ifndef FIBDRV_BN_IMPL_H
#define FIBDRV_BN_IMPL_H

#include "bn.h"

typedef unsigned __int128 bn_u128;

/* 128/64 division, nh < d.  Kernel-safe: no __udivti3. */
static inline u64 bn_udiv_qrnnd(u64 *rem, u64 nh, u64 nl, u64 d)
{
#if defined(__x86_64__)
	u64 q, r;

	__asm__("divq %4" : "=a"(q), "=d"(r) : "a"(nl), "d"(nh), "rm"(d));
	*rem = r;
	return q;
#else
	bn_u128 n = ((bn_u128)nh << 64) | nl;

	*rem = (u64)(n % d);
	return (u64)(n / d);
#endif
}

/* v = floor((B^2 - 1) / d) - B for normalised d (top bit set) */
static inline u64 bn_invert_limb(u64 d)
{
	u64 r;

	return bn_udiv_qrnnd(&r, ~d, ~0ULL, d);
}

/* Moller-Granlund division of (nh, nl) by normalised d, nh < d. */
static inline u64 bn_udiv_preinv(u64 *rem, u64 nh, u64 nl, u64 d, u64 v)
{
	bn_u128 p = (bn_u128)nh * v;
	u64 q1, q0, r;

	p += ((bn_u128)(nh + 1) << 64) | nl;
	q1 = (u64)(p >> 64);
	q0 = (u64)p;
	r = nl - q1 * d;
	if (r > q0) {
		q1--;
		r += d;
	}
	if (unlikely(r >= d)) {
		q1++;
		r -= d;
	}
	*rem = r;
	return q1;
}

static inline void bn_zero(u64 *r, size_t n)
{
	if (n)
		memset(r, 0, n * sizeof(u64));
}

static inline void bn_copyi(u64 *r, const u64 *a, size_t n)
{
	if (n)
		memmove(r, a, n * sizeof(u64));
}

static inline unsigned int bn_clz(u64 x)
{
	return (unsigned int)__builtin_clzll(x);
}

/* two's complement negation in place */
static inline void bn_neg_inplace(u64 *x, size_t n)
{
	size_t i;

	for (i = 0; i < n && x[i] == 0; i++)
		;
	if (i == n)
		return;
	x[i] = -x[i];
	for (i++; i < n; i++)
		x[i] = ~x[i];
}

#endif /* FIBDRV_BN_IMPL_H */
