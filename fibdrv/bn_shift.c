// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_shift.c - shifts of limb vectors by 1 to 63 bits.  Four limbs per
 * iteration: the loop's bookkeeping (and gcc's reloading of %cl for the two
 * shift counts) is paid once per four.  On 300 limbs, Zen 4: bn_lshift
 * 0.71 -> 0.56 ns a limb, bn_rshift 0.55 -> 0.42 (mpn_lshift 0.42-0.59,
 * mpn_rshift 0.41-0.46 in the same runs). Where the CPU has BMI2 (with
 * ADX, as for the mulx rows) the blocks are bn_x86.h's shlx/shrx loops:
 * a left then a right shift of 543 limbs 0.41 -> 0.38 ns a limb each, of
 * 18 limbs 0.52 -> 0.46.
 */
#include "bn_impl.h"

/* the limb of (hi:lo) << cnt that holds hi's low bits */
#define BN_SHL2(hi, lo, cnt, tnc) (((hi) << (cnt)) | ((lo) >> (tnc)))

noinline u64 bn_lshift(u64 *r, const u64 *a, size_t n, unsigned int cnt)
{
	unsigned int tnc = 64 - cnt;
	u64 out, hi;
	size_t i;

	if (!n)
		return 0;
	hi = a[n - 1];
	out = hi >> tnc;
	/* from the top down: r may be a, or above it */
	i = n - 1;
	if (bn_mul_k_ok())
		i = bn_lshift_blocks_k(r, a, i, &hi, cnt);
	for (; i >= 4; i -= 4) {
		u64 l3 = a[i - 1], l2 = a[i - 2], l1 = a[i - 3], l0 = a[i - 4];

		r[i] = BN_SHL2(hi, l3, cnt, tnc);
		r[i - 1] = BN_SHL2(l3, l2, cnt, tnc);
		r[i - 2] = BN_SHL2(l2, l1, cnt, tnc);
		r[i - 3] = BN_SHL2(l1, l0, cnt, tnc);
		hi = l0;
	}
	for (; i > 0; i--) {
		u64 lo = a[i - 1];

		r[i] = BN_SHL2(hi, lo, cnt, tnc);
		hi = lo;
	}
	r[0] = hi << cnt;
	return out;
}

noinline u64 bn_rshift(u64 *r, const u64 *a, size_t n, unsigned int cnt)
{
	unsigned int tnc = 64 - cnt;
	u64 out, lo;
	size_t i;

	if (!n)
		return 0;
	lo = a[0];
	out = lo << tnc;
	/* from the bottom up: r may be a, or below it */
	i = 0;
	if (bn_mul_k_ok())
		i = bn_rshift_blocks_k(r, a, i, n, &lo, cnt);
	for (; i + 4 < n; i += 4) {
		u64 h1 = a[i + 1], h2 = a[i + 2], h3 = a[i + 3], h4 = a[i + 4];

		r[i] = BN_SHL2(h1, lo, tnc, cnt);
		r[i + 1] = BN_SHL2(h2, h1, tnc, cnt);
		r[i + 2] = BN_SHL2(h3, h2, tnc, cnt);
		r[i + 3] = BN_SHL2(h4, h3, tnc, cnt);
		lo = h4;
	}
	for (; i + 1 < n; i++) {
		u64 hi = a[i + 1];

		r[i] = BN_SHL2(hi, lo, tnc, cnt);
		lo = hi;
	}
	r[n - 1] = lo >> cnt;
	return out;
}
