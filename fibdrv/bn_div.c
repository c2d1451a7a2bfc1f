// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_div.c - division: by a single limb (bn_divrem_1, with a precomputed
 * inverse) and Barrett division (bn_divrem, and bn_divrem_with for the
 * divisors that bn_dec.c prepares once and reuses; their inverses are
 * bn_inv.c's). Exact division by 3 and 5 is bn_divexact.c's, scratch
 * comes from bn_mem.c.
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

/* ---- Barrett division ---------------------------------------------------- */

/*
 * q (xn - dn + 1 limbs) = x / d, r (dn limbs) = x mod d.  The estimate
 * floor(N_top * v / B^(T+1)) of the top of x << s by dh is off by a few
 * units at most; the exact remainder x - q d fixes it in both directions.
 */
#define BN_DIVREM_MAX_FIXUPS 32

/* The limbs of q's estimate and of the working remainder for x of xn limbs. */
static void bn_divrem_sizes(size_t T, size_t dn, size_t xn, size_t *qen, size_t *W)
{
	size_t qn = xn - dn + 1;

	*qen = (T + 1 > qn ? T + 1 : qn) + 1;
	*W = (xn > dn + *qen ? xn : dn + *qen) + 1;
	/* the estimate's 2T limbs of x wait in R: more than dn + qen when d is padded */
	if (*W <= 2 * T)
		*W = 2 * T + 1;
}

/*
 * The length Nw of a transform that gives qe d modulo B^Nw - 1, when the
 * full product would take a longer one (both operands NTT-sized), else 0.
 * x - qe d is small (a few d at most, far below B^(Nw - 1) / 2), so its
 * residue modulo B^Nw - 1 (Nw >= dn + 3) gives it exactly; the low limb,
 * computed directly, catches the coarse-inverse case where it would not.
 */
static __always_inline size_t bn_divrem_wrap_len(size_t qen, size_t dn, size_t W)
{
	size_t Nw;

	if (qen < BN_MUL_NTT_THRESHOLD || dn < BN_MUL_NTT_THRESHOLD)
		return 0;
	Nw = __bn_bnm1_size((qen > dn ? qen : dn) + 3, qen, dn);
	if (Nw > W || __bn_bnm1_shape(Nw).N >= __bn_ntt_shape(qen, dn).N)
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
		m = __bn_bnm1_itch(Nw);
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
	size_t dn = dv->dn, T = dv->T;
	long off = (long)dn - (long)T; /* negative for a padded divisor */
	size_t qn = xn - dn + 1, Nn = (size_t)((long)xn + 1 - off), qen, qsz, W, Nw, i;
	unsigned int fixups = 0;
	u64 *N, *prod, *qe, *R, *scr;

	/* x < d B^dn: a limb of x << s past 2T limbs must be zero */
	for (i = 2 * T; i < Nn; i++)
		if (bn_shifted_limb(x, xn, off + (long)i, dv->s))
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
		N[i] = bn_shifted_limb(x, xn, off + (long)i, dv->s);
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
		/* qe's leading zeros left out: a short quotient's product is that much shorter */
		if (qsz >= dn)
			bn_mul(R, qe, qsz, dv->d, dn, scr);
		else
			bn_mul(R, dv->d, dn, qe, qsz, scr);
		bn_zero(R + qsz + dn, W - qsz - dn);
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

#if BN_MEM_ACCOUNTING
static unsigned long bn_divrem_retried;

unsigned long bn_divrem_retries(void)
{
	return bn_divrem_retried;
}
#endif

noinline int bn_divrem_by_scr(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x, size_t xn,
			      u64 *mem)
{
	struct bn_divisor exact;
	int err = mem ? bn_divrem_with_scr(dv, q, r, x, xn, mem) : bn_divrem_with(dv, q, r, x, xn);

	if (err != -EAGAIN)
		return err;
	/* rare: the approximate inverse was too coarse; the exact one, allocated now */
#if BN_MEM_ACCOUNTING
	bn_divrem_retried++;
#endif
	err = bn_divisor_init_inv(&exact, dv->d, dv->dn, dv->T, 1);
	if (err)
		return err;
	err = mem ? bn_divrem_with_scr(&exact, q, r, x, xn, mem)
		  : bn_divrem_with(&exact, q, r, x, xn);
	bn_divisor_release(&exact);
	return err == -EAGAIN ? -EIO : err;
}

/*
 * bn_divrem_by_scr for a quotient shorter than dv's inverse serves (qn + 1
 * < T): the top T' = qn + 1 limbs of dh and T' + 1 of v, which are within
 * a few units of dh's top limbs' inverse (v / B^(T - T') = B^(T + T') / dh,
 * and dh's limbs below those change that by less than 4), so the estimate
 * is a product of T' + 1 limbs instead of T + 1. Same scratch or less.
 */
static int bn_divrem_short(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x, size_t xn,
			   u64 *mem)
{
	struct bn_divisor top = *dv;
	size_t qn = xn - dv->dn + 1;

	if (qn + 1 >= dv->T)
		return bn_divrem_by_scr(dv, q, r, x, xn, mem);
	top.T = qn + 1;
	top.dh = dv->dh + (dv->T - top.T);
	top.v = dv->v + (dv->T - top.T);
	return bn_divrem_by_scr(&top, q, r, x, xn, mem);
}

/*
 * The scratch of bn_divrem_long_scr: a block's working dividend (T + dn
 * limbs) and one block's division, when x needs more than one block.
 */
noinline size_t bn_divrem_long_itch(size_t T, size_t dn, size_t xn)
{
	if (xn < dn + T)
		return bn_divrem_itch_sizes(T, dn, xn);
	return T + dn + bn_divrem_itch_sizes(T, dn, T + dn);
}

/*
 * bn_divrem_by_scr for a quotient of any length (dv->T >= dv->dn): one
 * Barrett division by dv takes at most T + dn limbs whose top dn are
 * below d, so from the top, a first block of qh (1..T) quotient limbs
 * (dn + qh - 1 limbs of x, its estimate by bn_divrem_short), then blocks
 * of T, each dividing the previous remainder followed by the next T limbs
 * of x. Each block's limbs of x are read (copied to w) before its
 * quotient is written, at or above them: q may be x.
 */
noinline int bn_divrem_long_scr(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x,
				size_t xn, u64 *mem)
{
	size_t dn = dv->dn, b = dv->T, qn = xn - dn + 1, pos;
	u64 *w = mem, *scr = mem + b + dn, keep;
	int err;

	if (b < dn || xn < dn + b)
		return bn_divrem_short(dv, q, r, x, xn, mem);
	pos = qn - ((qn - 1) % b + 1);
	err = bn_divrem_short(dv, q + pos, w + b, x + pos, xn - pos, scr);
	while (!err && pos) {
		pos -= b;
		bn_copyi(w, x + pos, b);
		/* the block's quotient has b + 1 limbs, the top one 0 (its top dn < d) */
		keep = q[pos + b];
		err = bn_divrem_by_scr(dv, q + pos, w + b, w, b + dn, scr);
		if (!err && q[pos + b])
			err = -EIO;
		q[pos + b] = keep;
	}
	if (!err)
		bn_copyi(r, w + b, dn);
	return err;
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
