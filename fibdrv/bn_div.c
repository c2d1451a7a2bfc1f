// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_div.c - division: by a single limb (bn_divrem_1, with a precomputed
 * inverse), exact division by 3 (Toom-3 interpolation), the Newton inverse
 * (bn_invert) and Barrett division (bn_divrem, and bn_divrem_with for the
 * divisors that bn_conv.c prepares once and reuses).
 */
#include "bn_impl.h"

/* ---- by a single limb --------------------------------------------------- */

noinline u64 bn_divrem_1(u64 *q, const u64 *a, size_t n, u64 d)
{
	unsigned int s;
	u64 v, r, dn;
	size_t i;

	if (!n)
		return 0;
	s = bn_clz(d);
	dn = d << s;
	v = bn_invert_limb(dn);
	if (s == 0) {
		r = 0;
		for (i = n; i-- > 0;) {
			u64 qi = bn_udiv_preinv(&r, r, a[i], dn, v);

			if (q)
				q[i] = qi;
		}
		return r;
	}
	r = a[n - 1] >> (64 - s);
	for (i = n; i-- > 0;) {
		u64 nl = a[i] << s;
		u64 qi;

		if (i > 0)
			nl |= a[i - 1] >> (64 - s);
		qi = bn_udiv_preinv(&r, r, nl, dn, v);
		if (q)
			q[i] = qi;
	}
	return r >> s;
}

/*
 * r = a / d for a small odd d dividing a exactly: each quotient limb is the
 * limb (less the borrow) times d's inverse modulo 2^64, the borrow the high
 * half of quotient limb times d.  One body for both divisors.
 */
static __always_inline void divexact_odd(u64 *r, const u64 *a, size_t n, u64 d, u64 dinv)
{
	u64 c = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		u64 ai = a[i];
		u64 s = ai - c;
		u64 qi;

		c = ai < c;
		qi = s * dinv;
		r[i] = qi;
		c += (u64)(((bn_u128)qi * d) >> 64);
	}
}

noinline void bn_divexact_by3(u64 *r, const u64 *a, size_t n)
{
	divexact_odd(r, a, n, 3, 0xAAAAAAAAAAAAAAABULL);
}

noinline void bn_divexact_by5(u64 *r, const u64 *a, size_t n)
{
	divexact_odd(r, a, n, 5, 0xCCCCCCCCCCCCCCCDULL);
}

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

static size_t bn_invert_step_itch(size_t n, int exact);

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
	h = (n + 1) / 2;
	here = bn_invert_step_itch(n, exact);
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
	Nw = __bn_ntt_len(n + 3);
	if (Nw > m + 1 || Nw >= __bn_ntt_len(n + h + 1))
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
static size_t bn_invert_step_itch(size_t n, int exact)
{
	size_t h = (n + 1) / 2, m = n + h, here, fix;

	here = (m + 1) + (h + m + 2) + bn_mul_itch(m + 1, h + 1);
	fix = exact ? (2 * n + 2) + bn_mul_itch(n + 1, n) : 0;
	return fix > here ? fix : here;
}

/*
 * One Newton step: v (n + 1 limbs) ~ floor(B^(2n) / d) from vh (h + 1
 * limbs) ~ floor(B^(2h) / the top h = ceil(n/2) limbs of d), in scratch
 * @scr of bn_invert_step_itch(n, exact); then, if @exact, the fix-up to
 * the exact floor.
 */
static int bn_invert_step(u64 *v, const u64 *d, size_t n, int exact, const u64 *vh, u64 *scr)
{
	size_t h = (n + 1) / 2, m = n + h, en, cn, at;
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
	size_t h = (n + 1) / 2;
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
	return bn_invert_step(v, d, n, exact, scr, scr + h + 1);
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

/* ---- Barrett division ---------------------------------------------------- */

/* limb j of x << s (x has xn limbs; j may be xn) */
static inline u64 bn_shifted_limb(const u64 *x, size_t xn, size_t j, unsigned int s)
{
	u64 lo = j < xn ? x[j] << s : 0;

	if (s && j > 0 && j - 1 < xn)
		lo |= x[j - 1] >> (64 - s);
	return lo;
}

/* dv's fields, and dh = the top T limbs of d << s (v uninitialised) */
static int bn_divisor_prep(struct bn_divisor *dv, const u64 *d, size_t dn, size_t T)
{
	size_t off = dn - T, i;

	dv->d = d;
	dv->dn = dn;
	dv->T = T;
	dv->s = bn_clz(d[dn - 1]);
	dv->dh = bn_limbs_alloc(2 * T + 1);
	if (!dv->dh)
		return -ENOMEM;
	dv->v = dv->dh + T;
	for (i = 0; i < T; i++)
		dv->dh[i] = bn_shifted_limb(d, dn, off + i, dv->s);
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
 * vh (h + 1 limbs) ~ floor(B^(2h) / the top h limbs of D), D = d << s, d =
 * e^2, from e's inverse: with D1 = e << s1 (T1 limbs) and v1 ~ B^(2 T1) /
 * D1, D = D1^2 2^(s - 2 s1), so B^(2h) / (D / B^(T - h)) = v1^2 / 2^E with
 * E = 64 (4 T1 - T - h) - (2 s1 - s). v1 a few units off gives vh a few
 * units off (twice the relative error, at h ~ T1 limbs), as good as a
 * recursive approximate inversion's. @sq: 2 T1 + 2 limbs and the square's
 * scratch. Nonzero when the sizes do not line up.
 */
static int bn_invert_half_from_sq(u64 *vh, size_t T, unsigned int s, const struct bn_divisor *half,
				  u64 *sq)
{
	size_t h = (T + 1) / 2, T1 = half->T, sn = 2 * (T1 + 1), off, have, i;
	long E = 64L * ((long)(4 * T1) - (long)(T + h)) - (2L * half->s - (long)s);

	if (E <= 0 || (size_t)E / 64 >= sn)
		return -1;
	bn_sqr_n(sq, half->v, T1 + 1, sq + sn);
	off = (size_t)E / 64;
	have = sn - off < h + 2 ? sn - off : h + 2;
	if (E % 64)
		bn_rshift(sq + off, sq + off, have, (unsigned int)(E % 64));
	for (i = 0; i <= h; i++)
		vh[i] = i < have ? sq[off + i] : 0;
	return vh[h] > 2; /* an inverse of h limbs is at most 2 B^h: else not usable */
}

/*
 * dv for d = e^2 (dn limbs, T = dn) from e's divisor @half (T = its dn,
 * the approximate inverse): the inverse of d's top half from half's
 * squared (1/d = (1/e)^2), then one Newton step, instead of inverting
 * d's top half afresh (about half of an inversion's work). The D&C
 * conversion's powers are such squares. Falls back to
 * bn_divisor_init_inv() when the sizes do not line up.
 */
noinline int bn_divisor_init_sq(struct bn_divisor *dv, const u64 *d, size_t dn,
				const struct bn_divisor *half)
{
	size_t T = dn, h = (T + 1) / 2, T1 = half->T, step, square, fresh, itch;
	u64 *mem;
	int err;

	if (half->T != half->dn || T1 < BN_DIVISOR_SQ_MIN || T < 2 * T1 - 1 || T > 2 * T1)
		return bn_divisor_init_inv(dv, d, dn, dn, 0);
	err = bn_divisor_prep(dv, d, dn, T);
	if (err)
		return err;
	/* past vh: the square's, then the step's; or, should the square not serve, vh's afresh */
	step = bn_invert_step_itch(T, 0);
	square = 2 * (T1 + 1) + bn_sqr_n_itch(T1 + 1);
	fresh = bn_invert_itch(h, 0);
	itch = step > square ? step : square;
	itch = fresh > itch ? fresh : itch;
	mem = bn_limbs_alloc(h + 1 + itch);
	if (!mem) {
		bn_divisor_release(dv);
		return -ENOMEM;
	}
	if (bn_invert_half_from_sq(mem, T, dv->s, half, mem + h + 1))
		err = bn_invert_rec(mem, dv->dh + T - h, h, 0, mem + h + 1); /* vh afresh */
	if (!err)
		err = bn_invert_step(dv->v, dv->dh, T, 0, mem, mem + h + 1);
	bn_mem_free(mem);
	if (err)
		bn_divisor_release(dv);
	return err;
}

/*
 * q (xn - dn + 1 limbs) = x / d, r (dn limbs) = x mod d.  The estimate
 * floor(N_top * v / B^(T+1)) of the top of x << s by dh is off by a few
 * units at most; the exact remainder x - q d fixes it in both directions.
 */
#define BN_DIVREM_MAX_FIXUPS 8

/* The limbs of q's estimate and of the working remainder for x of xn limbs. */
static void bn_divrem_sizes(size_t T, size_t dn, size_t xn, size_t *qen, size_t *W)
{
	size_t qn = xn - dn + 1;

	*qen = (T + 1 > qn ? T + 1 : qn) + 1;
	*W = (xn > dn + *qen ? xn : dn + *qen) + 1;
}

/*
 * The length Nw of a transform that gives qe d modulo B^Nw - 1, when the
 * full product would take a longer one (both operands NTT-sized), else 0.
 * x - qe d is small (a few d at most, far below B^(Nw - 1) / 2), so its
 * residue modulo B^Nw - 1 (Nw >= dn + 3) gives it exactly; the low limb,
 * computed directly, catches the coarse-inverse case where it would not.
 */
static size_t bn_divrem_wrap_len(size_t qen, size_t dn, size_t W)
{
	size_t Nw;

	if (qen < BN_MUL_NTT_THRESHOLD || dn < BN_MUL_NTT_THRESHOLD)
		return 0;
	Nw = __bn_ntt_len(dn + 3);
	if (Nw > W || qen > Nw || Nw >= __bn_ntt_len(qen + dn))
		return 0;
	return Nw;
}

noinline size_t bn_divrem_itch_sizes(size_t T, size_t dn, size_t xn)
{
	size_t qen, W, Nw;
	size_t prod, m;

	bn_divrem_sizes(T, dn, xn, &qen, &W);
	/*
	 * qe and R, then two phases in the same place: the estimate (its
	 * product with v: 2T + 2 limbs, and that product's scratch; the top of
	 * x it multiplies waits in R), then the scratch of qe * d, a product
	 * of exactly qen by dn limbs (qe with its leading zeros) made in R,
	 * or of that product modulo B^Nw - 1
	 */
	prod = 2 * T + 2 + bn_mul_n_itch(T + 1);
	Nw = bn_divrem_wrap_len(qen, dn, W);
	if (Nw)
		m = __bn_ntt_itch(Nw, 0);
	else
		m = __bn_mul_itch_at(qen > dn ? qen : dn, qen < dn ? qen : dn);
	return qen + W + (m > prod ? m : prod);
}

/*
 * R (W limbs, two's complement) = x - qe d from qe d modulo B^Nw - 1:
 * its complement is -qe d, plus x's Nw-limb pieces, carries wrapped; then
 * the representative nearest 0. Nonzero when the low limb disagrees with
 * x - qe d computed directly (|x - qe d| too large for Nw limbs).
 */
static int bn_divrem_wrapped(u64 *R, size_t Nw, size_t W, const u64 *x, size_t xn,
			     const u64 *qe, size_t qen, const u64 *d, size_t dn, u64 *scr)
{
	size_t i;

	bn_mulmod_bnm1(R, Nw, qe, qen, d, dn, scr);
	for (i = 0; i < Nw; i++)
		R[i] = ~R[i];
	for (i = 0; i < xn; i += Nw)
		bn_add_mod_bnm1(R, Nw, x + i, xn - i < Nw ? xn - i : Nw);
	/* D in [0, B^Nw - 1]: past half of it, D - (B^Nw - 1) = (D + 1) - B^Nw */
	if (R[Nw - 1] >> 63) {
		u64 top = bn_add_1(R, R, Nw, 1) ? 0 : ~0ULL;

		for (i = Nw; i < W; i++)
			R[i] = top;
	} else {
		bn_zero(R + Nw, W - Nw);
	}
	return R[0] != x[0] - qe[0] * d[0];
}

noinline int bn_divrem_with_scr(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x,
				size_t xn, u64 *mem)
{
	size_t dn = dv->dn, T = dv->T, off = dn - T;
	size_t qn = xn - dn + 1, Nn = xn + 1 - off, qen, qsz, W, Nw, i;
	unsigned int fixups = 0;
	u64 *N, *prod, *qe, *R, *scr;

	/* x < d B^dn: a limb of x << s past 2T limbs must be zero */
	for (i = 2 * T; i < Nn; i++)
		if (bn_shifted_limb(x, xn, off + i, dv->s))
			return -EINVAL;
	if (Nn > 2 * T)
		Nn = 2 * T;
	bn_divrem_sizes(T, dn, xn, &qen, &W);
	qe = mem;
	R = qe + qen;
	scr = R + W;
	/* the estimate: N, the top 2T limbs of x << s, in R (W > 2T) until qe is known */
	N = R;
	prod = scr;
	for (i = 0; i < Nn; i++)
		N[i] = bn_shifted_limb(x, xn, off + i, dv->s);
	bn_zero(N + Nn, 2 * T - Nn);
	bn_mul_n(prod, N + T - 1, dv->v, T + 1, prod + 2 * T + 2);
	bn_copyi(qe, prod + T + 1, T + 1);
	bn_zero(qe + T + 1, qen - (T + 1));
	qsz = bn_normalized_size(qe, qen);

	/* R = x - qe * d, two's complement in W limbs: qe * d (qen + dn < W limbs) in R, negated, + x */
	Nw = bn_divrem_wrap_len(qen, dn, W);
	if (qsz && Nw) {
		if (bn_divrem_wrapped(R, Nw, W, x, xn, qe, qen, dv->d, dn, scr))
			return -EAGAIN;
	} else if (qsz) {
		if (qen >= dn)
			bn_mul(R, qe, qen, dv->d, dn, scr);
		else
			bn_mul(R, dv->d, dn, qe, qen, scr);
		bn_zero(R + qen + dn, W - qen - dn);
		bn_neg_inplace(R, W);
		bn_add(R, R, W, x, xn);
	} else {
		bn_copyi(R, x, xn);
		bn_zero(R + xn, W - xn);
	}
	/*
	 * The estimate is off by a few units at most; a larger error means the
	 * approximate inverse was too coarse for this divisor (fuzz_bn found
	 * sparse divisors that needed ~2^60 steps). Give up and let the caller
	 * retry with the exact inverse instead of looping.
	 */
	while (R[W - 1] >> 63) {
		if (++fixups > BN_DIVREM_MAX_FIXUPS)
			return -EAGAIN;
		bn_add(R, R, W, dv->d, dn);
		bn_sub_1(qe, qe, qen, 1);
	}
	while (bn_cmp(R, W, dv->d, dn) >= 0) {
		if (++fixups > BN_DIVREM_MAX_FIXUPS)
			return -EAGAIN;
		bn_sub(R, R, W, dv->d, dn);
		bn_add_1(qe, qe, qen, 1);
	}
	bn_copyi(q, qe, qn);
	bn_copyi(r, R, dn);
	return 0;
}

int bn_divrem_with(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x, size_t xn)
{
	u64 *mem;
	int err;

	if (xn < dv->dn)
		return -EINVAL;
	mem = bn_limbs_alloc(bn_divrem_itch(dv, xn));
	if (!mem)
		return -ENOMEM;
	err = bn_divrem_with_scr(dv, q, r, x, xn, mem);
	bn_mem_free(mem);
	return err;
}

noinline int bn_divrem_by_scr(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x, size_t xn,
			      u64 *mem)
{
	struct bn_divisor exact;
	int err = mem ? bn_divrem_with_scr(dv, q, r, x, xn, mem) : bn_divrem_with(dv, q, r, x, xn);

	if (err != -EAGAIN)
		return err;
	/* rare: the approximate inverse was too coarse; the exact one, allocated now */
	err = bn_divisor_init_inv(&exact, dv->d, dv->dn, dv->T, 1);
	if (err)
		return err;
	err = mem ? bn_divrem_with_scr(&exact, q, r, x, xn, mem)
		  : bn_divrem_with(&exact, q, r, x, xn);
	bn_divisor_release(&exact);
	return err == -EAGAIN ? -EIO : err;
}

noinline int bn_divrem(u64 *q, u64 *r, const u64 *x, size_t xn, const u64 *d, size_t dn)
{
	struct bn_divisor dv;
	size_t qn, T;
	int err;

	if (!dn || !d[dn - 1] || xn < dn || xn > 2 * dn)
		return -EINVAL;
	if (dn == 1) {
		r[0] = bn_divrem_1(q, x, xn, d[0]);
		return 0;
	}
	qn = xn - dn + 1;
	T = qn + 1 < dn ? qn + 1 : dn;
	/* the quotient must fit dn limbs */
	if (T == dn && xn == 2 * dn && bn_cmp_n(x + dn, d, dn) >= 0)
		return -EINVAL;
	err = bn_divisor_init(&dv, d, dn, T);
	if (err)
		return err;
	err = bn_divrem_by(&dv, q, r, x, xn);
	bn_divisor_release(&dv);
	return err;
}
