// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_mul.c - products and squarings above the schoolbook ones: Karatsuba
 * (Toom-2), Toom-3 and Toom-4, each with a dedicated squaring,
 * the dispatchers bn_mul_n()/bn_sqr_n() that pick the method by size,
 * the unbalanced product bn_mul() and the scratch sizes (*_itch).
 *
 * The dispatchers stay in this file: they and the algorithms call each
 * other recursively, and gcc decides what to inline here (bn_toom3_point,
 * bn_abs_sub_n) by that visible cycle; fibtrace's counts depend on it.
 */
#include "bn_impl.h"

/* ---- helpers for the subquadratic algorithms ------------------------- */

/* r = |a - b| (n limbs each); returns 1 when a < b.  Always inlined. */
static inline int bn_abs_sub_n(u64 *r, const u64 *a, const u64 *b, size_t n)
{
	if (__bn_cmp_n(a, b, n) >= 0) {
		bn_sub_n(r, a, b, n);
		return 0;
	}
	bn_sub_n(r, b, a, n);
	return 1;
}

/* r (an limbs) = |a - b| with an >= bn; returns 1 when a < b. */
static int bn_abs_sub(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn)
{
	if (an == bn)
		return bn_abs_sub_n(r, a, b, an);
	if (bn_cmp(a, an, b, bn) >= 0) {
		bn_sub(r, a, an, b, bn);
		return 0;
	}
	/* a < b: the top an - bn limbs of a are zero */
	bn_sub_n(r, b, a, bn);
	bn_zero(r + bn, an - bn);
	return 1;
}

/* exact arithmetic right shift by one (two's complement) */
static void bn_sar1(u64 *x, size_t n)
{
	u64 sign = x[n - 1] & (1ULL << 63);

	bn_rshift(x, x, n, 1);
	x[n - 1] |= sign;
}

/* r[0 .. rn) += a[0 .. an), ignoring what would carry past rn */
static void bn_add_into(u64 *r, size_t rn, const u64 *a, size_t an)
{
	u64 cy;

	if (an > rn)
		an = rn;
	cy = bn_add_n(r, r, a, an);
	if (cy && rn > an)
		bn_add_1(r + an, r + an, rn - an, cy);
}

/* ---- Karatsuba ------------------------------------------------------- */

/* r[0 .. rn) += c, c in [-1, 3] (a carry or a borrow to pass up) */
static void bn_add_signed_1(u64 *r, size_t rn, long c)
{
	if (c > 0)
		bn_add_1(r, r, rn, (u64)c);
	else if (c < 0)
		bn_sub_1(r, r, rn, 1);
}

/*
 * The Karatsuba recomposition in place: r holds v0 = L0 + H0 B^h in
 * [0, 2h) and vinf = L1 + H1 B^h in [2h, 2n); the product is v0 + vinf B^2h
 * + (v0 + vinf -/+ z1) B^h.  Its blocks of h limbs: L0, then H0 + L0 + L1,
 * then H0 + L1 + H1, then H1: T = H0 + L1 serves both middle blocks, so
 * three additions of h limbs and one of 2h (-/+ z1) replace three of 2h
 * (GMP's toom22 does the same).  sub: subtract z1 (the two differences had
 * the same sign), else add it.
 */
static void bn_karatsuba_recompose(u64 *r, size_t n, size_t h, const u64 *z1, int sub)
{
	size_t hi1 = 2 * n - 3 * h; /* H1's limbs: h or h - 2 */
	u64 c1, c2;
	long c3;

	c1 = bn_add_n(r + 2 * h, r + h, r + 2 * h, h); /* T, in L1's place */
	c2 = bn_add_n(r + h, r + 2 * h, r, h);	       /* T + L0 */
	c3 = (long)(c1 + bn_add(r + 2 * h, r + 2 * h, h, r + 3 * h, hi1)); /* T + H1 */
	if (sub)
		c3 -= (long)bn_sub_n(r + h, r + h, z1, 2 * h);
	else
		c3 += (long)bn_add_n(r + h, r + h, z1, 2 * h);
	/* T's carry and the first middle block's, at B^2h; the rest at B^3h */
	bn_add_signed_1(r + 3 * h, hi1, c3);
	bn_add_signed_1(r + 2 * h, 2 * n - 2 * h, (long)(c1 + c2));
}

/*
 * a = a1 B^h + a0, h = ceil(n/2).  a0 b1 + a1 b0 = a0 b0 + a1 b1 - (a0 - a1)(b0 - b1).
 * scratch: 4h limbs + bn_mul_n_itch(h).
 */
noinline void bn_mul_karatsuba(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *scratch)
{
	size_t h = (n + 1) / 2, l = n - h;
	u64 *da = scratch, *db = da + h, *z1 = db + h;
	u64 *next = z1 + 2 * h;
	int sa, sb;

	sa = bn_abs_sub(da, a, h, a + h, l);
	sb = bn_abs_sub(db, b, h, b + h, l);
	bn_mul_n(z1, da, db, h, next);
	bn_mul_n(r, a, b, h, next);
	bn_mul_n(r + 2 * h, a + h, b + h, l, next);
	bn_karatsuba_recompose(r, n, h, z1, sa == sb);
}

/* scratch: 3h limbs + bn_sqr_n_itch(h) */
noinline void bn_sqr_karatsuba(u64 *r, const u64 *a, size_t n, u64 *scratch)
{
	size_t h = (n + 1) / 2, l = n - h;
	u64 *da = scratch, *z1 = da + h;
	u64 *next = z1 + 2 * h;

	bn_abs_sub(da, a, h, a + h, l);
	bn_sqr_n(z1, da, h, next);
	bn_sqr_n(r, a, h, next);
	bn_sqr_n(r + 2 * h, a + h, l, next);
	bn_karatsuba_recompose(r, n, h, z1, 1);
}

/* ---- Toom-3 ---------------------------------------------------------- */

/*
 * Evaluate a = a2 x^2 + a1 x + a0 (k, k, l limbs) at 1, -1, -2.
 * p1, pm1, pm2 get k + 1 limbs; returns the signs of a(-1), a(-2) in
 * bits 0 and 1.  tmp: 2(k + 1) limbs.
 */
static int bn_toom3_eval(u64 *p1, u64 *pm1, u64 *pm2, const u64 *a, size_t k, size_t l, u64 *tmp)
{
	const u64 *a0 = a, *a1 = a + k, *a2 = a + 2 * k;
	u64 *u = tmp, *v = tmp + k + 1;
	int signs = 0;

	/* s = a0 + a2 in p1, a(1) = s + a1, a(-1) = s - a1 */
	p1[k] = bn_add(p1, a0, k, a2, l);
	if (p1[k] == 0 && __bn_cmp_n(p1, a1, k) < 0) {
		bn_sub_n(pm1, a1, p1, k);
		pm1[k] = 0;
		signs |= 1;
	} else {
		pm1[k] = p1[k] - bn_sub_n(pm1, p1, a1, k);
	}
	p1[k] += bn_add_n(p1, p1, a1, k);

	/* a(-2) = (a0 + 4 a2) - 2 a1 */
	u[l] = bn_lshift(u, a2, l, 2);
	bn_zero(u + l + 1, k - l);
	u[k] += bn_add_n(u, u, a0, k);
	v[k] = bn_lshift(v, a1, k, 1);
	if (bn_abs_sub_n(pm2, u, v, k + 1))
		signs |= 2;
	return signs;
}

/* W (L limbs, two's complement) = |x| * |y| with sign neg */
static void bn_toom3_point(u64 *w, const u64 *x, const u64 *y, size_t k1, int neg, int square,
			   u64 *next)
{
	if (square)
		bn_sqr_n(w, x, k1, next);
	else
		bn_mul_n(w, x, y, k1, next);
	if (neg)
		bn_neg_inplace(w, 2 * k1);
}

/*
 * Interpolation (Bodrato's sequence for the points 0, 1, -1, -2, inf) on
 * two's complement numbers of L = 2k + 2 limbs, then recomposition.
 * r holds w0 in [0, 2k) and winf in [4k, 2n).
 */
static void bn_toom3_interpolate(u64 *r, size_t n, size_t k, size_t l, u64 *w1, u64 *wm1, u64 *wm2,
				 u64 *tmp)
{
	size_t L = 2 * k + 2;
	const u64 *w0 = r, *winf = r + 4 * k;
	u64 *t1 = w1, *t2 = wm1, *t3 = wm2;

	/* t3 = (wm2 - w1) / 3 */
	bn_sub_n(t3, wm2, w1, L);
	bn_divexact_by3(t3, t3, L);
	/* t1 = (w1 - wm1) / 2 */
	bn_sub_n(t1, w1, wm1, L);
	bn_sar1(t1, L);
	/* t2 = wm1 - w0 */
	bn_sub(t2, wm1, L, w0, 2 * k);
	/* t3 = (t2 - t3) / 2 + 2 winf */
	bn_sub_n(t3, t2, t3, L);
	bn_sar1(t3, L);
	tmp[2 * l] = bn_lshift(tmp, winf, 2 * l, 1);
	bn_add(t3, t3, L, tmp, 2 * l + 1);
	/* t2 = t2 + t1 - winf */
	bn_add_n(t2, t2, t1, L);
	bn_sub(t2, t2, L, winf, 2 * l);
	/* t1 = t1 - t3 */
	bn_sub_n(t1, t1, t3, L);

	bn_zero(r + 2 * k, 2 * k);
	bn_add_into(r + k, 2 * n - k, t1, L);
	bn_add_into(r + 2 * k, 2 * n - 2 * k, t2, L);
	bn_add_into(r + 3 * k, 2 * n - 3 * k, t3, L);
}

static inline size_t bn_toom3_k(size_t n)
{
	return (n + 2) / 3;
}

/* scratch: 16(k + 1) limbs + bn_mul_n_itch(k + 1) */
noinline void bn_mul_toom3(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *scratch)
{
	size_t k = bn_toom3_k(n), l = n - 2 * k, k1 = k + 1, L = 2 * k + 2;
	u64 *p1 = scratch, *pm1 = p1 + k1, *pm2 = pm1 + k1;
	u64 *q1 = pm2 + k1, *qm1 = q1 + k1, *qm2 = qm1 + k1;
	u64 *w1 = qm2 + k1, *wm1 = w1 + L, *wm2 = wm1 + L, *tmp = wm2 + L;
	u64 *next = tmp + L;
	int sa, sb;

	sa = bn_toom3_eval(p1, pm1, pm2, a, k, l, tmp);
	sb = bn_toom3_eval(q1, qm1, qm2, b, k, l, tmp);
	bn_toom3_point(w1, p1, q1, k1, 0, 0, next);
	bn_toom3_point(wm1, pm1, qm1, k1, (sa ^ sb) & 1, 0, next);
	bn_toom3_point(wm2, pm2, qm2, k1, ((sa ^ sb) >> 1) & 1, 0, next);
	bn_mul_n(r, a, b, k, next);
	bn_mul_n(r + 4 * k, a + 2 * k, b + 2 * k, l, next);
	bn_toom3_interpolate(r, n, k, l, w1, wm1, wm2, tmp);
}

noinline void bn_sqr_toom3(u64 *r, const u64 *a, size_t n, u64 *scratch)
{
	size_t k = bn_toom3_k(n), l = n - 2 * k, k1 = k + 1, L = 2 * k + 2;
	u64 *p1 = scratch, *pm1 = p1 + k1, *pm2 = pm1 + k1;
	u64 *w1 = pm2 + k1, *wm1 = w1 + L, *wm2 = wm1 + L, *tmp = wm2 + L;
	u64 *next = tmp + L;

	bn_toom3_eval(p1, pm1, pm2, a, k, l, tmp);
	bn_toom3_point(w1, p1, NULL, k1, 0, 1, next);
	bn_toom3_point(wm1, pm1, NULL, k1, 0, 1, next);
	bn_toom3_point(wm2, pm2, NULL, k1, 0, 1, next);
	bn_sqr_n(r, a, k, next);
	bn_sqr_n(r + 4 * k, a + 2 * k, l, next);
	bn_toom3_interpolate(r, n, k, l, w1, wm1, wm2, tmp);
}

/* ---- Toom-4 ---------------------------------------------------------- */

static inline size_t bn_toom4_k(size_t n)
{
	return (n + 3) / 4;
}

/* x (k + 1 limbs) = 2 x + y (yn <= k limbs) */
static void bn_toom4_horner(u64 *x, size_t k, const u64 *y, size_t yn)
{
	bn_lshift(x, x, k + 1, 1);
	bn_add(x, x, k + 1, y, yn);
}

/*
 * a = a3 x^3 + a2 x^2 + a1 x + a0 (k, k, k, l limbs) at 1, -1, 2, -2 and
 * 1/2 (times 8), k + 1 limbs each: |a(-1)| and |a(-2)|, their signs in
 * bits 0 and 1 of the result (a square ignores them).  tmp: k + 1 limbs.
 */
static int bn_toom4_eval(u64 *p1, u64 *pm1, u64 *p2, u64 *pm2, u64 *ph, const u64 *a, size_t k,
			 size_t l, u64 *tmp)
{
	const u64 *a0 = a, *a1 = a + k, *a2 = a + 2 * k, *a3 = a + 3 * k;
	u64 *e = tmp;
	int signs;

	/* a(+-1) = (a0 + a2) +- (a1 + a3) */
	e[k] = bn_add_n(e, a0, a2, k);
	p1[k] = bn_add(p1, a1, k, a3, l);
	signs = bn_abs_sub_n(pm1, e, p1, k + 1);
	bn_add_n(p1, p1, e, k + 1);
	/* a(+-2) = (a0 + 4 a2) +- 2 (a1 + 4 a3) */
	e[k] = bn_lshift(e, a2, k, 2);
	e[k] += bn_add_n(e, e, a0, k);
	p2[l] = bn_lshift(p2, a3, l, 2);
	bn_zero(p2 + l + 1, k - l);
	p2[k] += bn_add_n(p2, p2, a1, k);
	bn_lshift(p2, p2, k + 1, 1);
	signs |= bn_abs_sub_n(pm2, e, p2, k + 1) << 1;
	bn_add_n(p2, p2, e, k + 1);
	/* 8 a(1/2) = ((2 a0 + a1) 2 + a2) 2 + a3 */
	bn_copyi(ph, a0, k);
	ph[k] = 0;
	bn_toom4_horner(ph, k, a1, k);
	bn_toom4_horner(ph, k, a2, k);
	bn_toom4_horner(ph, k, a3, l);
	return signs;
}

/* x (L limbs) -= y << cnt (yn limbs), through tmp (yn + 1 limbs) */
static void bn_toom4_sub_shifted(u64 *x, size_t L, const u64 *y, size_t yn, unsigned int cnt,
				 u64 *tmp)
{
	tmp[yn] = bn_lshift(tmp, y, yn, cnt);
	bn_sub(x, x, L, tmp, yn + 1);
}

/*
 * One pair of points +-x: wm = (w - W(-x)) / 2, the odd part, then w -= wm,
 * the even part; |W(-x)| is in wm, neg says W(-x) < 0 (then it adds).
 */
static void bn_toom4_split(u64 *w, u64 *wm, size_t L, int neg)
{
	if (neg)
		bn_add_n(wm, w, wm, L);
	else
		bn_sub_n(wm, w, wm, L);
	bn_rshift(wm, wm, L, 1);
	bn_sub_n(w, w, wm, L);
}

/*
 * The product's coefficients c0 .. c6 from its values at 0, inf, 1, -1, 2,
 * -2 and 1/2, |W(-1)| and |W(-2)| with their signs in bits 0 and 1 of
 * @neg.  The c_i of a product of non-negative numbers are non-negative, and
 * so is every intermediate below, each a non-negative combination of them
 * (the first step of each pair adds where W(-x) < 0), so unsigned L =
 * 2k + 2 limb arithmetic is exact:
 *   O1 = (W1 - Wm1) / 2 = c1 + c3 + c5        E1 = W1 - O1 = c0 + c2 + c4 + c6
 *   O2 = (W2 - Wm2) / 4 = c1 + 4 c3 + 16 c5   E2 = W2 - 2 O2 = c0 + 4 c2 + 16 c4 + 64 c6
 *   A = E1 - c0 - c6 = c2 + c4                B = E2 - c0 - 64 c6 = 4 c2 + 16 c4
 *   c4 = (B - 4 A) / 12                       c2 = A - c4
 *   C = Wh - 64 c0 - 16 c2 - 4 c4 - c6 = 32 c1 + 8 c3 + 2 c5
 *   D = (O2 - O1) / 3 = c3 + 5 c5             E = (32 O1 - C) / 6 = 4 c3 + 5 c5
 *   c3 = (E - D) / 3     c5 = (D - c3) / 5     c1 = O1 - c3 - c5
 * r holds c0 in [0, 2k) and c6 in [6k, 2n); the rest is added in.
 */
static void bn_toom4_interpolate(u64 *r, size_t n, size_t k, size_t l, u64 *w1, u64 *wm1, u64 *w2,
				 u64 *wm2, u64 *wh, int neg, u64 *tmp)
{
	size_t L = 2 * k + 2;
	const u64 *c0 = r, *c6 = r + 6 * k;

	bn_toom4_split(w1, wm1, L, neg & 1); /* O1, E1 */
	bn_toom4_split(w2, wm2, L, neg & 2); /* 2 O2, E2 */
	bn_rshift(wm2, wm2, L, 1);	     /* O2 */
	bn_sub(w1, w1, L, c0, 2 * k);
	bn_sub(w1, w1, L, c6, 2 * l); /* A */
	bn_sub(w2, w2, L, c0, 2 * k);
	bn_toom4_sub_shifted(w2, L, c6, 2 * l, 6, tmp); /* B */
	bn_toom4_sub_shifted(w2, L, w1, L - 1, 2, tmp);
	bn_rshift(w2, w2, L, 2);
	bn_divexact_by3(w2, w2, L); /* c4 */
	bn_sub_n(w1, w1, w2, L);    /* c2 */
	bn_toom4_sub_shifted(wh, L, c0, 2 * k, 6, tmp);
	bn_toom4_sub_shifted(wh, L, w1, L - 1, 4, tmp);
	bn_toom4_sub_shifted(wh, L, w2, L - 1, 2, tmp);
	bn_sub(wh, wh, L, c6, 2 * l); /* C */
	bn_sub_n(wm2, wm2, wm1, L);
	bn_divexact_by3(wm2, wm2, L); /* D */
	tmp[L - 1] = bn_lshift(tmp, wm1, L - 1, 5);
	bn_sub_n(wh, tmp, wh, L);
	bn_rshift(wh, wh, L, 1);
	bn_divexact_by3(wh, wh, L); /* E */
	bn_sub_n(wh, wh, wm2, L);
	bn_divexact_by3(wh, wh, L); /* c3 */
	bn_sub_n(wm2, wm2, wh, L);
	bn_divexact_by5(wm2, wm2, L); /* c5 */
	bn_sub_n(wm1, wm1, wh, L);
	bn_sub_n(wm1, wm1, wm2, L); /* c1 */

	bn_zero(r + 2 * k, 4 * k);
	bn_add_into(r + k, 2 * n - k, wm1, L);
	bn_add_into(r + 2 * k, 2 * n - 2 * k, w1, L);
	bn_add_into(r + 3 * k, 2 * n - 3 * k, wh, L);
	bn_add_into(r + 4 * k, 2 * n - 4 * k, w2, L);
	bn_add_into(r + 5 * k, 2 * n - 5 * k, wm2, L);
}

/* scratch: 17(k + 1) limbs + bn_sqr_n_itch(k + 1) */
noinline void bn_sqr_toom4(u64 *r, const u64 *a, size_t n, u64 *scratch)
{
	size_t k = bn_toom4_k(n), l = n - 3 * k, k1 = k + 1, L = 2 * k + 2;
	u64 *p1 = scratch, *pm1 = p1 + k1, *p2 = pm1 + k1, *pm2 = p2 + k1, *ph = pm2 + k1;
	u64 *w1 = ph + k1, *wm1 = w1 + L, *w2 = wm1 + L, *wm2 = w2 + L, *wh = wm2 + L;
	u64 *tmp = wh + L, *next = tmp + L;

	bn_toom4_eval(p1, pm1, p2, pm2, ph, a, k, l, tmp);
	bn_sqr_n(w1, p1, k1, next);
	bn_sqr_n(wm1, pm1, k1, next);
	bn_sqr_n(w2, p2, k1, next);
	bn_sqr_n(wm2, pm2, k1, next);
	bn_sqr_n(wh, ph, k1, next);
	bn_sqr_n(r, a, k, next);
	bn_sqr_n(r + 6 * k, a + 3 * k, l, next);
	bn_toom4_interpolate(r, n, k, l, w1, wm1, w2, wm2, wh, 0, tmp);
}

/* scratch: 22(k + 1) limbs + bn_mul_n_itch(k + 1) */
noinline void bn_mul_toom4(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *scratch)
{
	size_t k = bn_toom4_k(n), l = n - 3 * k, k1 = k + 1, L = 2 * k + 2;
	u64 *p1 = scratch, *pm1 = p1 + k1, *p2 = pm1 + k1, *pm2 = p2 + k1, *ph = pm2 + k1;
	u64 *q1 = ph + k1, *qm1 = q1 + k1, *q2 = qm1 + k1, *qm2 = q2 + k1, *qh = qm2 + k1;
	u64 *w1 = qh + k1, *wm1 = w1 + L, *w2 = wm1 + L, *wm2 = w2 + L, *wh = wm2 + L;
	u64 *tmp = wh + L, *next = tmp + L;
	int neg;

	neg = bn_toom4_eval(p1, pm1, p2, pm2, ph, a, k, l, tmp);
	neg ^= bn_toom4_eval(q1, qm1, q2, qm2, qh, b, k, l, tmp);
	bn_mul_n(w1, p1, q1, k1, next);
	bn_mul_n(wm1, pm1, qm1, k1, next);
	bn_mul_n(w2, p2, q2, k1, next);
	bn_mul_n(wm2, pm2, qm2, k1, next);
	bn_mul_n(wh, ph, qh, k1, next);
	bn_mul_n(r, a, b, k, next);
	bn_mul_n(r + 6 * k, a + 3 * k, b + 3 * k, l, next);
	bn_toom4_interpolate(r, n, k, l, w1, wm1, w2, wm2, wh, neg, tmp);
}

/* ---- dispatchers ------------------------------------------------------ */

size_t bn_mul_n_itch(size_t n)
{
	return __bn_mul_n_itch(n);
}

size_t bn_sqr_n_itch(size_t n)
{
	return __bn_sqr_n_itch(n);
}

size_t bn_mul_itch(size_t an, size_t bn)
{
	return __bn_mul_itch(an, bn);
}

noinline void bn_mul_n(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *scratch)
{
	if (n < BN_MUL_KARATSUBA_THRESHOLD)
		bn_mul_basecase(r, a, n, b, n);
	else if (n < BN_MUL_TOOM3_THRESHOLD)
		bn_mul_karatsuba(r, a, b, n, scratch);
	else if (n < BN_MUL_TOOM4_THRESHOLD)
		bn_mul_toom3(r, a, b, n, scratch);
	else if (!__bn_ntt_pays(n, BN_MUL_NTT_THRESHOLD))
		bn_mul_toom4(r, a, b, n, scratch);
	else
		bn_mul_ntt(r, a, n, b, n, scratch);
}

noinline void bn_sqr_n(u64 *r, const u64 *a, size_t n, u64 *scratch)
{
	if (n < BN_SQR_KARATSUBA_THRESHOLD)
		bn_sqr_basecase(r, a, n);
	else if (n < BN_SQR_TOOM3_THRESHOLD)
		bn_sqr_karatsuba(r, a, n, scratch);
	else if (n < BN_SQR_TOOM4_THRESHOLD)
		bn_sqr_toom3(r, a, n, scratch);
	else if (!__bn_ntt_pays(n, BN_SQR_NTT_THRESHOLD))
		bn_sqr_toom4(r, a, n, scratch);
	else
		bn_sqr_ntt(r, a, n, scratch);
}

/*
 * a x b, an >= bn >= 1: balanced products of bn-limb slices of a, or one
 * transform of the whole product where both are NTT-sized and an < 2 bn
 * (one transform of length >= an + bn instead of one of 2bn and the
 * remainder's; less scratch too: __bn_mul_itch)
 */
noinline void bn_mul(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn, u64 *scratch)
{
	u64 *tmp, *next;
	size_t off;

	if (bn < BN_MUL_KARATSUBA_THRESHOLD) {
		bn_mul_basecase(r, a, an, b, bn);
		return;
	}
	if (__bn_mul_direct_ntt(an, bn)) {
		bn_mul_ntt(r, a, an, b, bn, scratch);
		return;
	}
	if (an == bn) {
		if (a == b)
			bn_sqr_n(r, a, an, scratch);
		else
			bn_mul_n(r, a, b, an, scratch);
		return;
	}
	tmp = scratch;
	next = tmp + 2 * bn;
	bn_mul_n(r, a, b, bn, next);
	for (off = bn; off < an; off += bn) {
		size_t len = an - off < bn ? an - off : bn;
		u64 cy;

		if (len == bn)
			bn_mul_n(tmp, a + off, b, bn, next);
		else
			bn_mul(tmp, b, bn, a + off, len, next);
		/* r[off .. off + bn) holds the top of the previous product */
		cy = bn_add_n(r + off, r + off, tmp, bn);
		bn_copyi(r + off + bn, tmp + bn, len);
		bn_add_1(r + off + bn, r + off + bn, len, cy);
	}
}
