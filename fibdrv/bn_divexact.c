// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_divexact.c - exact division by a small divisor of B - 1: by 3 and by
 * 5 (bn_divexact_by3, bn_divexact_by5, one body), what the Toom
 * interpolations of bn_mul.c divide by, as GMP's diveby3.c. Limb layer:
 * no allocation, calls nothing.
 */
#include "bn_impl.h"

/*
 * r = a / d for a d dividing both a and B - 1 (3 and 5 do): with
 * m = (B - 1) / d, -m is d's inverse modulo B, so the quotient's limbs
 * come out of a running h = -(what is still owed) m: q[i] = h - lo(a[i] m),
 * then h = q[i] - hi(a[i] m) - borrow (GMP's bdiv_dbm1c).  Unlike a
 * Hensel loop through q[i] * d, the products do not depend on each other:
 * the only chain is a subtract-with-borrow.  Two limbs per iteration: 2.4
 * ns a limb for the Hensel loop, 0.86 for this one (mpn_divexact_by3 0.72;
 * 300 limbs, Zen 4).  Exact for two's complement a as well (a times d^-1 mod B^n).
 */
static __always_inline u64 dbm1_limb(u64 *r, u64 h, u64 a, u64 m)
{
	bn_u128 p = (bn_u128)a * m;
	u64 borrow = __builtin_sub_overflow(h, (u64)p, &h);

	*r = h;
	return h - (u64)(p >> 64) - borrow;
}

static __always_inline void divexact_dbm1(u64 *r, const u64 *a, size_t n, u64 m)
{
	u64 h = 0;
	size_t i;

	for (i = 0; i + 2 <= n; i += 2) {
		u64 a0 = a[i], a1 = a[i + 1]; /* both read before r (maybe a) is written */

		h = dbm1_limb(r + i, h, a0, m);
		h = dbm1_limb(r + i + 1, h, a1, m);
	}
	if (i < n)
		dbm1_limb(r + i, h, a[i], m);
}

noinline void bn_divexact_by3(u64 *r, const u64 *a, size_t n)
{
	divexact_dbm1(r, a, n, ~0ULL / 3);
}

noinline void bn_divexact_by5(u64 *r, const u64 *a, size_t n)
{
	divexact_dbm1(r, a, n, ~0ULL / 5);
}
