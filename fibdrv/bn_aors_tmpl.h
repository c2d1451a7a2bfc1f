/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bn_aors_tmpl.h - the one body of addition and subtraction ("add or
 * sub", as GMP's aors_n.c), included by bn_aors.c once per operation with:
 *
 *   BN_AORS(suffix)   the function names: bn_add##suffix or bn_sub##suffix
 *   BN_AORS_STEP      u64 step(u64 *r, u64 a, u64 b, u64 c): one limb of
 *                     r = a op b op c, returns the carry (borrow) out
 *   BN_AORS_STEP1     u64 step1(u64 *r, u64 a, u64 b): the same without c
 *   BN_AORS_X4        the kernel of the machine layer (bn_x86.h or
 *                     bn_generic.h): bn_add_n_x4 or bn_sub_n_x4, returns
 *                     the limbs it did (all on x86-64, none in C); the
 *                     loop below does the rest
 *
 * No include guard: meant to be included more than once.  It undefines
 * its parameters at the end.
 */

/* r = a op b (n limbs each), returns the carry (borrow).  r may alias a or b. */
noinline u64 BN_AORS(_n)(u64 *r, const u64 *a, const u64 *b, size_t n)
{
	u64 cy = 0;
	size_t i = BN_AORS_X4(r, a, b, n, &cy);

	for (; i < n; i++)
		cy = BN_AORS_STEP(&r[i], a[i], b[i], cy);
	return cy;
}

/* r = a op b (n limbs and a single limb), returns the carry (borrow) */
noinline u64 BN_AORS(_1)(u64 *r, const u64 *a, size_t n, u64 b)
{
	size_t i;

	for (i = 0; i < n; i++) {
		b = BN_AORS_STEP1(&r[i], a[i], b);
		if (!b) {
			if (r != a)
				bn_copyi(r + i + 1, a + i + 1, n - i - 1);
			return 0;
		}
	}
	return b;
}

/* r = a op b with an >= bn, returns the carry (borrow).  r may alias a. */
noinline u64 BN_AORS()(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn)
{
	u64 cy = BN_AORS(_n)(r, a, b, bn);

	return BN_AORS(_1)(r + bn, a + bn, an - bn, cy);
}

#undef BN_AORS
#undef BN_AORS_STEP
#undef BN_AORS_STEP1
#undef BN_AORS_X4
