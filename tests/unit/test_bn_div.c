// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of the big-number library's Newton inverse and division
 * (bn_inv.c, bn_div.c) against GMP: inverses from scratch and from a
 * root's, Barrett division at every size, long quotients by blocks or by
 * a padded inverse, the chain of the conversion's powers. The harness is
 * in bn_check.c; main in test_bn.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bn_check.h"

/* bn_invert of an n-limb divisor against GMP: @kind 0 random, 1 B^n / 2, 2 all-ones */
static void check_invert(size_t n, int kind)
{
	u64 *d = xalloc(n), *v = xalloc(n + 1);
	mpz_t zd, zx;

	mpz_inits(zd, zx, NULL);
	rnd_limbs(d, n);
	if (kind)
		memset(d, kind == 1 ? 0 : 0xff, n * 8);
	d[n - 1] |= 1ULL << 63;
	if (bn_invert(v, d, n)) {
		fail("bn_invert n=%zu failed", n);
	} else {
		to_mpz(zd, d, n);
		mpz_set_ui(zx, 1);
		mpz_mul_2exp(zx, zx, 128 * n);
		mpz_tdiv_q(zx, zx, zd);
		if (!eq_mpz(v, n + 1, zx))
			fail("bn_invert n=%zu wrong", n);
	}
	mpz_clears(zd, zx, NULL);
	free(d);
	free(v);
}

/* bn_divrem of x (xn limbs) by d (n limbs) against GMP */
static void check_divrem(const u64 *x, size_t xn, const u64 *d, size_t n)
{
	u64 *q = xalloc(xn - n + 1), *r = xalloc(n);
	mpz_t zd, zx, zq, zr;
	int err;

	mpz_inits(zd, zx, zq, zr, NULL);
	to_mpz(zd, d, n);
	to_mpz(zx, x, xn);
	err = bn_divrem(q, r, x, xn, d, n);
	mpz_tdiv_qr(zq, zr, zx, zd);
	if (err)
		fail("bn_divrem xn=%zu dn=%zu error %d", xn, n, err);
	else if (!eq_mpz(q, xn - n + 1, zq) || !eq_mpz(r, n, zr))
		fail("bn_divrem xn=%zu dn=%zu wrong", xn, n);
	mpz_clears(zd, zx, zq, zr, NULL);
	free(q);
	free(r);
}

/*
 * dv's v within 16 units of floor(B^(2T) / dh), as Barrett division needs
 * (BN_DIVREM_MAX_FIXUPS): a square's inverse from a fresh one (e <= 2
 * units off) is about (2e)^2 off
 */
static int divisor_close(const struct bn_divisor *dv)
{
	mpz_t zd, zv, zw;
	int ok;

	mpz_inits(zd, zv, zw, NULL);
	to_mpz(zd, dv->dh, dv->T);
	mpz_set_ui(zw, 1);
	mpz_mul_2exp(zw, zw, 128 * dv->T);
	mpz_tdiv_q(zw, zw, zd);
	to_mpz(zv, dv->v, dv->T + 1);
	mpz_sub(zv, zv, zw);
	ok = mpz_cmpabs_ui(zv, 16) <= 0;
	if (!ok && mpz_sizeinbase(zv, 2) < 60)
		printf("  (inverse %ld units off)\n", mpz_get_si(zv));
	mpz_clears(zd, zv, zw, NULL);
	return ok;
}

/*
 * bn_divisor_init_sq: d = e^2's inverse started from e's (the conversion's
 * powers), within a few units of floor(B^(2 dn) / dh) as Barrett needs;
 * e's top limb cut by @cut bits (the shifts of e and d differ). Without
 * their low zero limbs, as the conversion keeps its powers: @z = 1, e's
 * low limb zero, both divisors padded back to their full sizes; @z = 2,
 * e's low 32 bits zero, e's divisor of its own size and d's without the
 * square's zero low limb (B^-1 between them); @z = 3, d's top third only
 * (a short quotient's divisor, from the top limbs of e's inverse)
 */
static void check_divisor_sq(size_t T1, unsigned int cut, int z)
{
	u64 *e = xalloc(T1), *d = xalloc(2 * T1), *s = xalloc(bn_sqr_n_itch(T1));
	struct bn_divisor he = {0}, hd = {0};
	size_t dn;
	int err;

	rnd_limbs(e, T1);
	e[T1 - 1] = (e[T1 - 1] | 1ULL << 63) >> cut;
	if (z == 1)
		e[0] = 0;
	else if (z == 2)
		e[0] &= ~0ULL << 32;
	bn_sqr_n(d, e, T1, s);
	dn = bn_normalized_size(d, 2 * T1);
	if (z == 1)
		err = bn_divisor_init_inv(&he, e + 1, T1 - 1, T1, 0) ||
		      bn_divisor_init_sq(&hd, d + 2, dn - 2, dn, 0, &he);
	else if (z == 2)
		err = bn_divisor_init_inv(&he, e, T1, T1, 0) ||
		      bn_divisor_init_sq(&hd, d + 1, dn - 1, dn - 1, -1, &he);
	else if (z == 3)
		err = bn_divisor_init_inv(&he, e, T1, T1, 0) ||
		      bn_divisor_init_sq(&hd, d, dn, dn / 3, (long)(dn / 3) - (long)dn, &he);
	else
		err = bn_divisor_init_inv(&he, e, T1, T1, 0) ||
		      bn_divisor_init_sq(&hd, d, dn, dn, 0, &he);
	if (err)
		fail("bn_divisor_init_sq T1=%zu failed", T1);
	else if (!hd.from_sq)
		fail("bn_divisor_init_sq T1=%zu z=%d: not from the square", T1, z);
	else if (!divisor_close(&hd))
		fail("bn_divisor_init_sq T1=%zu cut=%u z=%d: inverse more than 16 units off", T1,
		     cut, z);
	bn_divisor_release(&he);
	bn_divisor_release(&hd);
	free(e);
	free(d);
	free(s);
}

/*
 * The conversion's chain: p[k] = p[k-1]^2 without its low zero limbs,
 * each divisor from the one below where bn_divisor_init_sq may. Every
 * inverse within 8 units: a square's inverse started from another
 * square's came out 95, then 36,669 units off (its half's error squared
 * at each level), and every division by it fell back to the exact inverse.
 */
static void check_divisor_chain(void)
{
	struct bn_divisor dv[14] = {{0}};
	u64 *p[14];
	size_t pn[14], pz[14], k, w, T;
	u64 *s;
	long sh;

	p[0] = xalloc(1);
	p[0][0] = 10000000000000000000ULL;
	pn[0] = 1;
	pz[0] = 0;
	for (k = 1; k < 14; k++) {
		p[k] = xalloc(2 * pn[k - 1]);
		s = xalloc(bn_sqr_n_itch(pn[k - 1]));
		bn_sqr_n(p[k], p[k - 1], pn[k - 1], s);
		free(s);
		pn[k] = bn_normalized_size(p[k], 2 * pn[k - 1]);
		for (w = 0; !p[k][w]; w++)
			;
		memmove(p[k], p[k] + w, (pn[k] - w) * 8);
		pn[k] -= w;
		pz[k] = 2 * pz[k - 1] + w;
		/* as bn_dec.c keeps them: p[k]'s own size, padded to the power's from the NTT's */
		T = pn[k] < BN_MUL_NTT_THRESHOLD ? pn[k] : pn[k] + pz[k];
		sh = (long)(T - pn[k]) - 2L * (long)(dv[k - 1].T - pn[k - 1]) - (long)w;
		if (k > 1 ? bn_divisor_init_sq(&dv[k], p[k], pn[k], T, sh, &dv[k - 1])
			  : bn_divisor_init(&dv[k], p[k], pn[k], T))
			fail("divisor chain k=%zu failed", k);
		else if (!divisor_close(&dv[k]))
			fail("divisor chain k=%zu (%zu limbs, from_sq %d): inverse too coarse", k,
			     pn[k], dv[k].from_sq);
		if (k > 1 && dv[k].from_sq && dv[k - 1].from_sq)
			fail("divisor chain k=%zu: a square's inverse started from another's", k);
	}
	for (k = 0; k < 14; k++) {
		if (k)
			bn_divisor_release(&dv[k]);
		free(p[k]);
	}
}

/*
 * Quotients longer than the divisor (d of n limbs, x of xn), against GMP.
 * @how 0: one Barrett step by d padded to T > n limbs (its inverse to T
 * limbs, x up to n + T - 1 limbs); 1: bn_divrem_long_scr, by blocks of T
 * limbs (T == 0: T = n, d's own inverse; else d padded to T); 2: the same
 * with q written over x. @kind: d random, B^n / 2 or all ones (the
 * approximate inverse's hardest).
 */
static void check_divrem_long(size_t n, size_t T, size_t xn, int kind, int how)
{
	u64 *d = xalloc(n), *x = xalloc(xn), *q = xalloc(xn - n + 1), *r = xalloc(n), *scr;
	static const char *what[] = {"padded divisor", "bn_divrem_long_scr",
				     "bn_divrem_long_scr in place"};
	struct bn_divisor dv;
	mpz_t zd, zx, zq, zr;
	int err;

	rnd_limbs(d, n);
	if (kind == 1)
		memset(d, 0, n * 8);
	else if (kind == 2)
		memset(d, 0xff, n * 8);
	if (kind)
		d[n - 1] |= 1ULL << 63;
	else if (!d[n - 1])
		d[n - 1] = 1;
	rnd_limbs(x, xn);
	mpz_inits(zd, zx, zq, zr, NULL);
	to_mpz(zd, d, n);
	to_mpz(zx, x, xn);
	mpz_tdiv_qr(zq, zr, zx, zd);
	T = T ? T : n;
	scr = xalloc(how ? bn_divrem_long_itch(T, n, xn) : bn_divrem_itch_sizes(T, n, xn));
	err = bn_divisor_init(&dv, d, n, T);
	if (!err && how == 2)
		err = bn_divrem_long_scr(&dv, x, r, x, xn, scr);
	else if (!err)
		err = how ? bn_divrem_long_scr(&dv, q, r, x, xn, scr)
			  : bn_divrem_by_scr(&dv, q, r, x, xn, scr);
	if (err)
		fail("%s xn=%zu dn=%zu T=%zu error %d", what[how], xn, n, T, err);
	else if (!eq_mpz(how == 2 ? x : q, xn - n + 1, zq) || !eq_mpz(r, n, zr))
		fail("%s xn=%zu dn=%zu T=%zu kind=%d wrong", what[how], xn, n, T, kind);
	bn_divisor_release(&dv);
	mpz_clears(zd, zx, zq, zr, NULL);
	free(d);
	free(x);
	free(q);
	free(r);
	free(scr);
}

void test_invert_divrem(void)
{
	size_t it, n, xn;

	group_begin();
	for (it = 0; it < 60 * (size_t)RAND_ITERS; it++) {
		n = it < 20 ? it + 1 : 1 + rnd() % (it % 7 ? 200 : 3000);
		check_invert(n, it % 5 < 3 ? (int)(it % 5) : 0);
	}
	group_end("bn_invert");

	/* where the Newton step's d vh is taken modulo B^Nw - 1 (n, h + 1 past the NTT threshold) */
	group_begin();
	for (it = 0; it < 6; it++)
		check_invert(2 * BN_MUL_NTT_THRESHOLD + 1 + rnd() % BN_MUL_NTT_THRESHOLD, (int)(it % 3));
	group_end("bn_invert past the NTT threshold (d vh modulo B^Nw - 1)");

	group_begin();
	for (it = 0; it < 48; it++) {
		static const size_t t1[] = {BN_DIVISOR_SQ_MIN, 17, 33, 100, 1001, BN_MUL_NTT_THRESHOLD + 3};

		check_divisor_sq(t1[it % 6], it % 12 < 6 ? 0 : (unsigned int)(1 + rnd() % 63),
				 (int)(it / 12));
	}
	check_divisor_chain();
	group_end("bn_divisor_init_sq: a square's inverse from its root's, a few units off at most");

	group_begin();
	for (it = 0; it < 40 * (size_t)RAND_ITERS; it++) {
		size_t T;

		n = it < 20 ? it / 2 + 1 : 1 + rnd() % (it % 9 ? 120 : 1500);
		T = n + 1 + rnd() % (n + 2);
		check_divrem_long(n, T, n + rnd() % T, (int)(it % 3), 0);
	}
	/* products q d modulo B^Nw - 1 with q longer than d */
	for (it = 0; it < 2; it++)
		check_divrem_long(BN_MUL_NTT_THRESHOLD + 7, 2 * BN_MUL_NTT_THRESHOLD,
				  2 * BN_MUL_NTT_THRESHOLD + BN_MUL_NTT_THRESHOLD / 2, (int)it, 0);
	group_end("bn_divrem: divisors padded with zero limbs, quotients longer than d");

	group_begin();
	for (it = 0; it < 40 * (size_t)RAND_ITERS; it++) {
		n = it < 20 ? it / 2 + 1 : 1 + rnd() % (it % 9 ? 120 : 1500);
		check_divrem_long(n, 0, n + rnd() % (3 * n + 4), (int)(it % 3), 1 + (int)(it % 2));
	}
	group_end("bn_divrem_long_scr: quotients longer than the divisor, by blocks");

	/* blocks of T > n limbs (d padded, as the conversion's chain divides), q also over x */
	group_begin();
	for (it = 0; it < 40 * (size_t)RAND_ITERS; it++) {
		size_t T;

		n = it < 20 ? it / 2 + 1 : 1 + rnd() % (it % 9 ? 120 : 1500);
		T = n + 1 + rnd() % (n + 2);
		check_divrem_long(n, T, n + rnd() % (4 * T + 4), (int)(it % 3), 1 + (int)(it % 2));
	}
	/* the same past the NTT threshold: several blocks, q d modulo B^Nw - 1 */
	for (it = 0; it < 2; it++)
		check_divrem_long(BN_MUL_NTT_THRESHOLD + 7, 2 * BN_MUL_NTT_THRESHOLD,
				  7 * BN_MUL_NTT_THRESHOLD + 11, (int)it, 2);
	group_end("bn_divrem_long_scr: blocks of a padded divisor's T limbs, q in place of x");

	group_begin();
	for (it = 0; it < 80 * (size_t)RAND_ITERS; it++) {
		u64 *d, *x;

		n = it < 30 ? it / 3 + 1 : 1 + rnd() % (it % 9 ? 150 : 2000);
		xn = n + rnd() % (n + 1);
		d = xalloc(n);
		x = xalloc(xn);
		rnd_limbs(d, n);
		if (!d[n - 1])
			d[n - 1] = 1;
		if (it % 4 == 0)
			d[n - 1] >>= rnd() % 64;
		if (!d[n - 1])
			d[n - 1] = 1;
		rnd_limbs(x, xn);
		if (xn == 2 * n && bn_cmp_n(x + n, d, n) >= 0)
			x[xn - 1] = 0;	/* keep the quotient within n limbs */
		if (xn == 2 * n && bn_cmp_n(x + n, d, n) >= 0)
			memset(x + n, 0, n * 8);
		check_divrem(x, xn, d, n);
		free(d);
		free(x);
	}
	{
		u64 d[2] = { 5, 1 }, x[5] = { 1, 2, 3, 4, 5 }, q[4], r[2];

		if (bn_divrem(q, r, x, 5, d, 2) != -EINVAL)
			fail("bn_divrem accepted xn > 2 dn");
		if (bn_divrem(q, r, x, 4, d, 2) != -EINVAL)
			fail("bn_divrem accepted a quotient longer than dn limbs");
	}
	group_end("bn_divrem");

	/*
	 * Divisors past the NTT threshold, quotients too: q d modulo B^Nw - 1
	 * (bn_divrem_wrap_len); random, B^n / 2 and all-ones divisors (the
	 * approximate inverse's hardest), x up to 2 dn limbs
	 */
	group_begin();
	for (it = 0; it < 6; it++) {
		u64 *d, *x;

		n = BN_MUL_NTT_THRESHOLD + 1 + rnd() % (2 * BN_MUL_NTT_THRESHOLD);
		xn = it < 3 ? 2 * n : n + BN_MUL_NTT_THRESHOLD + rnd() % (n - BN_MUL_NTT_THRESHOLD);
		d = xalloc(n);
		x = xalloc(xn);
		rnd_limbs(d, n);
		if (it % 3 == 1)
			memset(d, 0, n * 8);
		else if (it % 3 == 2)
			memset(d, 0xff, n * 8);
		d[n - 1] |= 1ULL << 63;
		rnd_limbs(x, xn);
		if (xn == 2 * n)
			memset(x + n, 0, n * 8); /* the quotient within n limbs */
		if (xn == 2 * n)
			rnd_limbs(x + n, n - 1);
		check_divrem(x, xn, d, n);
		free(d);
		free(x);
	}
	group_end("bn_divrem past the NTT threshold (q d modulo B^Nw - 1)");
}
