// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_inv.c - the Newton inverse (bn_invert) and the Barrett divisors built
 * from it (struct bn_divisor: bn_divisor_init_scr, and bn_divisor_init_sq
 * for a square's from its root's), which bn_div.c divides by.
 */
#include "bn_impl.h"

/* ---- Newton inverse ---------------------------------------------------- */

/*
 * Exact fix-up of v (n + 1 limbs, a few units off) to floor(B^(2n) / d):
 * compare d * v with B^(2n) and step v.  P: 2n + 2 limbs; scr: the
 * scratch of bn_mul(P, v, n + 1, d, n).
 */
static void bn_invert_fixup(u64 *v, const u64 *d, size_t n, u64 *P, u64 *scr)
{
	size_t pn = 2 * n, i;

	bn_mul(P, v, n + 1, d, n, scr);
	if (P[pn] == 0) {
		/* R = B^(2n) - P >= 0: while R >= d, v++ */
		bn_neg_inplace(P, pn);
		for (i = 0; bn_cmp(P, pn, d, n) >= 0; i++) {
			bn_sub(P, P, pn, d, n);
			bn_add_1(v, v, n + 1, 1);
		}
	} else {
		/* excess = P - B^(2n) > 0 (or 0): v--, until excess <= 0 */
		P[pn] -= 1;
		while (bn_normalized_size(P, pn + 1)) {
			bn_sub_1(v, v, n + 1, 1);
			if (bn_cmp(P, pn + 1, d, n) >= 0)
				bn_sub(P, P, pn + 1, d, n);
			else
				break;
		}
	}
}

static size_t bn_invert_step_itch(size_t n, size_t h, int exact);

/*
 * The limbs of d whose inverse bn_invert_rec takes first, n/2 + 1 (from n
 * = 3): one more than half, so that the Newton step's error is its
 * truncation's (two units) and not also the square of vh's error, which
 * at h = ceil(n/2) (even n) grew level after level: 18, 72 units off at
 * 3000 limbs, where Barrett division allows 8.
 */
static size_t bn_invert_h(size_t n)
{
	return n > 2 ? n / 2 + 1 : (n + 1) / 2;
}

/*
 * The scratch of bn_invert_rec(n): vh (h + 1 limbs), then the deeper
 * levels' scratch or, once they have returned, this level's: pd (m + 1),
 * prod (h + m + 2) and their products' scratch; the exact fix-up reuses
 * the same place (P: 2n + 2, and its product's scratch).
 */
noinline size_t bn_invert_itch(size_t n, int exact)
{
	size_t h, here, deeper;

	if (n <= 1)
		return 0;
	h = bn_invert_h(n);
	here = bn_invert_step_itch(n, h, exact);
	deeper = bn_invert_itch(h, exact);
	return (h + 1) + (deeper > here ? deeper : here);
}

/*
 * pd (m + 1 limbs) = |E|, E = B^m - d vh (m = n + h), from d vh modulo
 * B^Nw - 1 (Nw >= n + 3: |E| < 4 B^n is far below B^Nw / 2), where that
 * transform is shorter than the full product's; *neg = 1 when E <= 0.
 * Nonzero (nothing to use) when not applicable, or when the low limb,
 * computed directly, shows |E| too large for Nw limbs.
 */
static int bn_invert_wrapped(u64 *pd, size_t m, const u64 *d, size_t n, const u64 *vh, size_t h,
			     u64 *scr, int *neg)
{
	size_t Nw, t, i;
	u64 low = d[0] * vh[0]; /* limb 0 of d vh - B^m (m >= 1) */

	if (n < BN_MUL_NTT_THRESHOLD || h + 1 < BN_MUL_NTT_THRESHOLD)
		return -1;
	Nw = __bn_bnm1_size(n + 3, n, h + 1);
	if (Nw > m + 1 || __bn_bnm1_shape(Nw).N >= __bn_ntt_shape(n, h + 1).N)
		return -1;
	bn_mulmod_bnm1(pd, Nw, d, n, vh, h + 1, scr);
	/* D = d vh - B^m modulo B^Nw - 1, B^m = B^(m mod Nw) there */
	t = m % Nw;
	if (bn_sub_1(pd + t, pd + t, Nw - t, 1))
		bn_sub_1(pd, pd, Nw, 1);
	/* the representative nearest 0: -E = D, or D - (B^Nw - 1) = -(~D) */
	*neg = !(pd[Nw - 1] >> 63);
	if (!*neg) {
		for (i = 0; i < Nw; i++)
			pd[i] = ~pd[i];
		low = -low;
	}
	bn_zero(pd + Nw, m + 1 - Nw);
	return pd[0] != low;
}

/* bn_invert_step's scratch: pd (m + 1), prod (h + m + 2), their products' (and the fix-up's) */
static size_t bn_invert_step_itch(size_t n, size_t h, int exact)
{
	size_t m = n + h, here, fix;

	here = (m + 1) + (h + m + 2) + bn_mul_itch(m + 1, h + 1);
	fix = exact ? (2 * n + 2) + bn_mul_itch(n + 1, n) : 0;
	return bn_max(fix, here);
}

/*
 * One Newton step: v (n + 1 limbs) ~ floor(B^(2n) / d) from vh (h + 1
 * limbs) ~ floor(B^(2h) / the top h limbs of d), ceil(n/2) <= h < n, in
 * scratch @scr of bn_invert_step_itch(n, h, exact); then, if @exact, the
 * fix-up to the exact floor. v's error: the correction's truncation (at
 * most two units low) and vh's error e squared, e^2 B^(n - 2h) (up to
 * 2 e^2 units for h = n/2, below one unit from h = n/2 + 1).
 */
static int bn_invert_step(u64 *v, const u64 *d, size_t n, size_t h, int exact, const u64 *vh,
			  u64 *scr)
{
	size_t m = n + h, en, cn, at;
	u64 *pd, *prod;
	int neg;

	pd = scr;
	prod = pd + m + 1;
	scr = prod + h + m + 2;
	/* pd = |E|, E = B^(n+h) - d * vh, |E| < 4 B^n: modulo B^Nw - 1, or in full */
	if (bn_invert_wrapped(pd, m, d, n, vh, h, scr, &neg)) {
		bn_mul(pd, d, n, vh, h + 1, scr);
		if (pd[m] == 0) {
			neg = 0;
			bn_neg_inplace(pd, m);
		} else {
			neg = 1;
			pd[m] -= 1;
		}
	}
	en = bn_normalized_size(pd, m + 1);
	/*
	 * correction = floor(vh * |E| / B^(2h)), from the top h + 2 limbs of
	 * |E| only: the rest (drop limbs) is worth less than vh B^drop / B^2h
	 * < B^(drop + 1 - h) <= 1 (en <= n + 1 <= 2h + 1), so the correction
	 * comes out at most two units low (as GMP's mpn_invertappr truncates)
	 */
	cn = 0;
	at = 0;
	if (en) {
		size_t drop = en > h + 2 ? en - (h + 2) : 0, kn = en - drop;

		if (kn >= h + 1)
			bn_mul(prod, pd + drop, kn, vh, h + 1, scr);
		else
			bn_mul(prod, vh, h + 1, pd + drop, kn, scr);
		at = 2 * h - drop;
		if (h + 1 + kn > at)
			cn = bn_normalized_size(prod + at, h + 1 + kn - at);
	}
	bn_zero(v, n - h);
	bn_copyi(v + n - h, vh, h + 1);
	if (cn > n + 1)
		return -EINVAL; /* cannot happen: |correction| < 8 B^(n-h) */
	if (cn) {
		if (neg)
			bn_sub(v, v, n + 1, prod + at, cn);
		else
			bn_add(v, v, n + 1, prod + at, cn);
	}
	/*
	 * Barrett division only needs v within a few units (it corrects its
	 * quotient both ways), so the divisors skip the exact fix-up and its
	 * full product (exact == 0).
	 */
	if (exact)
		bn_invert_fixup(v, d, n, pd, pd + 2 * n + 2);
	return 0;
}

/*
 * v = floor(B^(2n) / d), n + 1 limbs, d normalised, in scratch @scr of
 * bn_invert_itch(n, exact) limbs: vh, the inverse of the top half, first
 * (recursively, in the scratch past it), then one Newton step.
 */
static int bn_invert_rec(u64 *v, const u64 *d, size_t n, int exact, u64 *scr)
{
	size_t h = bn_invert_h(n);
	int err;

	if (n == 1) {
		u64 r;

		if (d[0] == 1ULL << 63) {
			v[0] = 0;
			v[1] = 2;
		} else {
			v[0] = bn_udiv_qrnnd(&r, -d[0], 0, d[0]);
			v[1] = 1;
		}
		return 0;
	}
	err = bn_invert_rec(scr, d + n - h, h, exact, scr + h + 1);
	if (err)
		return err;
	return bn_invert_step(v, d, n, h, exact, scr, scr + h + 1);
}

/* bn_invert_rec in @scr, or in scratch allocated here when @scr is NULL */
static int bn_invert_scr(u64 *v, const u64 *d, size_t n, int exact, u64 *scr)
{
	u64 *mem = NULL;
	int err;

	if (!scr && n > 1) {
		mem = bn_limbs_alloc(bn_invert_itch(n, exact));
		if (!mem)
			return -ENOMEM;
		scr = mem;
	}
	err = bn_invert_rec(v, d, n, exact, scr);
	bn_mem_free(mem);
	return err;
}

noinline int bn_invert(u64 *v, const u64 *d, size_t n)
{
	return bn_invert_scr(v, d, n, 1, NULL);
}

/* ---- Barrett divisors ---------------------------------------------------- */

/*
 * dv's fields, and dh = the top T limbs of d << s (v uninitialised); T >
 * dn pads d with T - dn zero limbs below: the inverse is then d's to T
 * limbs, for quotients longer than d (Barrett's estimate needs T >= qn - 1)
 */
static int bn_divisor_prep(struct bn_divisor *dv, const u64 *d, size_t dn, size_t T)
{
	long off = (long)dn - (long)T;
	size_t i;

	dv->d = d;
	dv->dn = dn;
	dv->T = T;
	dv->s = bn_clz(d[dn - 1]);
	dv->from_sq = 0;
	dv->dh = bn_limbs_alloc(2 * T + 1);
	if (!dv->dh)
		return -ENOMEM;
	dv->v = dv->dh + T;
	for (i = 0; i < T; i++)
		dv->dh[i] = bn_shifted_limb(d, dn, off + (long)i, dv->s);
	return 0;
}

noinline int bn_divisor_init_scr(struct bn_divisor *dv, const u64 *d, size_t dn, size_t T,
				 int exact, u64 *scr)
{
	int err = bn_divisor_prep(dv, d, dn, T);

	if (err)
		return err;
	err = bn_invert_scr(dv->v, dv->dh, T, exact, scr);
	if (err)
		bn_divisor_release(dv);
	return err;
}

/*
 * vh (h + 1 limbs) ~ floor(B^(2h) / the top h limbs of D), D = d << s
 * (T limbs), d = e^2 B^w, from e's inverse: with D1 = e << s1 (T1 limbs)
 * and v1 ~ B^(2 T1) / D1, D = D1^2 B^w 2^(s - 2 s1), so B^(2h) / (D /
 * B^(T - h)) = v1^2 / 2^E with E = 64 (4 T1 + w - T - h) - (2 s1 - s). v1
 * a few units off gives vh a few units off (twice the relative error, at h
 * ~ T1 limbs), as good as a recursive approximate inversion's; only v1's
 * top h + 3 limbs are squared (a shorter T needs fewer). D and D1 may end
 * in zero limbs (divisors padded past their limbs). @sq: 2 T1 + 2 limbs
 * and the square's scratch. Nonzero when the sizes do not line up.
 */
static int bn_invert_half_from_sq(u64 *vh, size_t T, long w, unsigned int s,
				  const struct bn_divisor *half, u64 *sq)
{
	size_t h = (T + 1) / 2, T1 = half->T, m = T1 + 1 < h + 3 ? T1 + 1 : h + 3;
	size_t cut = T1 + 1 - m, sn = 2 * m, off, have, i;
	long E = 64L * ((long)(4 * T1) + w - (long)(T + h) - 2L * (long)cut) -
		 (2L * half->s - (long)s);

	if (E <= 0 || (size_t)E / 64 >= sn)
		return -1;
	bn_sqr_n(sq, half->v + cut, m, sq + sn);
	off = (size_t)E / 64;
	have = sn - off < h + 2 ? sn - off : h + 2;
	if (E % 64)
		bn_rshift(sq + off, sq + off, have, (unsigned int)(E % 64));
	for (i = 0; i <= h; i++)
		vh[i] = i < have ? sq[off + i] : 0;
	return vh[h] > 2; /* an inverse of h limbs is at most 2 B^h: else not usable */
}

/*
 * dv for d (dn limbs; T limbs: its top ones, or padded with zero limbs)
 * where d B^(T - dn) = E^2 B^w, E = e B^(T1 - e's dn) the number @half
 * inverts (its approximate inverse, T1 limbs; w may be negative): the
 * inverse of the top half from half's squared (1/d = (1/e)^2), then one
 * Newton step, instead of inverting the top half afresh (about half of an
 * inversion's work). The D&C conversion's powers are such squares. Falls
 * back to bn_divisor_init_inv() when the sizes do not line up.
 */
noinline int bn_divisor_init_sq(struct bn_divisor *dv, const u64 *d, size_t dn, size_t T, long w,
				const struct bn_divisor *half)
{
	size_t h = (T + 1) / 2, T1 = half->T, step, square, fresh, itch;
	u64 *mem;
	int err;

	/*
	 * half's error e (units) gives this one about (2e)^2: from a fresh
	 * inversion's (e <= 2) a few units; from a square's own (up to 8)
	 * hundreds, then tens of thousands one level up (measured on the
	 * chain of the conversion's powers), past what Barrett corrects
	 */
	if (half->from_sq || half->T < half->dn || T1 < BN_DIVISOR_SQ_MIN || h > T1)
		return bn_divisor_init_inv(dv, d, dn, T, 0);
	err = bn_divisor_prep(dv, d, dn, T);
	if (err)
		return err;
	/* past vh: the square's, then the step's; or, should the square not serve, vh's afresh */
	step = bn_invert_step_itch(T, h, 0);
	square = T1 + 1 < h + 3 ? T1 + 1 : h + 3; /* the limbs of half's inverse squared */
	square = 2 * square + bn_sqr_n_itch(square);
	fresh = bn_invert_itch(h, 0);
	itch = bn_max(fresh, bn_max(step, square));
	mem = bn_limbs_alloc(h + 1 + itch);
	if (!mem) {
		bn_divisor_release(dv);
		return -ENOMEM;
	}
	dv->from_sq = !bn_invert_half_from_sq(mem, T, w, dv->s, half, mem + h + 1);
	if (!dv->from_sq)
		err = bn_invert_rec(mem, dv->dh + T - h, h, 0, mem + h + 1); /* vh afresh */
	if (!err)
		err = bn_invert_step(dv->v, dv->dh, T, h, 0, mem, mem + h + 1);
	bn_mem_free(mem);
	if (err)
		bn_divisor_release(dv);
	return err;
}
