// SPDX-License-Identifier: GPL-2.0 OR MIT
/* bn_shift.c - shifts of limb vectors by 1 to 63 bits */
#include "bn_impl.h"

noinline u64 bn_lshift(u64 *r, const u64 *a, size_t n, unsigned int cnt)
{
	unsigned int tnc = 64 - cnt;
	u64 out, hi;
	size_t i;

	if (!n)
		return 0;
	hi = a[n - 1];
	out = hi >> tnc;
	for (i = n - 1; i > 0; i--) {
		u64 lo = a[i - 1];

		r[i] = (hi << cnt) | (lo >> tnc);
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
	for (i = 0; i + 1 < n; i++) {
		u64 hi = a[i + 1];

		r[i] = (lo >> cnt) | (hi << tnc);
		lo = hi;
	}
	r[n - 1] = lo >> cnt;
	return out;
}
