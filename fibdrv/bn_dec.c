// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_dec.c - division (Newton inverse + Barrett) and conversions:
 * decimal (quadratic and divide-and-conquer), binary limbs.
 */
#include "bn_impl.h"

#define BN_P19 10000000000000000000ULL	/* 10^19, top bit set */
#define BN_DC_MAXLV 40

/* ---- Newton inverse ---------------------------------------------------- */

/*
 * v = floor(B^(2n) / d), n + 1 limbs, d normalised.  One Newton step from
 * the exact inverse of the top h = ceil(n/2) limbs, then an exact fix-up
 * against d * v, so every level returns the exact floor.
 */
static int bn_invert_rec(u64 *v, const u64 *d, size_t n, int exact)
{
	size_t h, m, en, cn, pn, itch, i;
	u64 *mem, *vh, *pd, *prod, *P, *scr;
	int neg, err;

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
	h = (n + 1) / 2;
	m = n + h;
	itch = bn_mul_itch(n + 1, n + 1);
	/* vh: h+1, pd: m+1, prod: h+1+m+1, P: 2n+2 */
	mem = bn_limbs_alloc((h + 1) + (m + 1) + (h + m + 2) + (2 * n + 2) + itch);
	if (!mem)
		return -ENOMEM;
	vh = mem;
	pd = vh + h + 1;
	prod = pd + m + 1;
	P = prod + h + m + 2;
	scr = P + 2 * n + 2;

	err = bn_invert_rec(vh, d + n - h, h, exact);
	if (err)
		goto out;
	/* pd = d * vh; E = B^(n+h) - pd, |E| < 4 B^n */
	bn_mul(pd, d, n, vh, h + 1, scr);
	if (pd[m] == 0) {
		neg = 0;
		bn_neg_inplace(pd, m);
	} else {
		neg = 1;
		pd[m] -= 1;
	}
	en = bn_normalized_size(pd, m + 1);
	/* correction = floor(vh * |E| / B^(2h)) */
	cn = 0;
	if (en) {
		if (en >= h + 1)
			bn_mul(prod, pd, en, vh, h + 1, scr);
		else
			bn_mul(prod, vh, h + 1, pd, en, scr);
		if (h + 1 + en > 2 * h)
			cn = bn_normalized_size(prod + 2 * h, h + 1 + en - 2 * h);
	}
	bn_zero(v, n - h);
	bn_copyi(v + n - h, vh, h + 1);
	if (cn > n + 1) {
		err = -EINVAL;	/* cannot happen: |correction| < 8 B^(n-h) */
		goto out;
	}
	if (cn) {
		if (neg)
			bn_sub(v, v, n + 1, prod + 2 * h, cn);
		else
			bn_add(v, v, n + 1, prod + 2 * h, cn);
	}
	/*
	 * Exact fix-up: compare d * v with B^(2n).  Barrett division only
	 * needs v within a few units (it corrects its quotient both ways), so
	 * the divisors skip this full product (exact == 0).
	 */
	if (!exact) {
		err = 0;
		goto out;
	}
	bn_mul(P, v, n + 1, d, n, scr);
	pn = 2 * n;
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
	err = 0;
out:
	bn_mem_free(mem);
	return err;
}

noinline int bn_invert(u64 *v, const u64 *d, size_t n)
{
	return bn_invert_rec(v, d, n, 1);
}

/* v within a few units of floor(B^(2n) / d) */
static int bn_invert_approx(u64 *v, const u64 *d, size_t n)
{
	return bn_invert_rec(v, d, n, 0);
}

/* ---- Barrett division ---------------------------------------------------- */

struct bn_divisor {
	const u64 *d;	/* the divisor as given (not owned) */
	size_t dn;
	size_t T;	/* dh = top T limbs of d << s */
	unsigned int s;
	u64 *dh;	/* T limbs, normalised */
	u64 *v;		/* T + 1 limbs: floor(B^(2T) / dh) */
};

static void bn_divisor_release(struct bn_divisor *dv)
{
	bn_mem_free(dv->dh);
	dv->dh = NULL;
	dv->v = NULL;
}

/* limb j of x << s (x has xn limbs; j may be xn) */
static inline u64 bn_shifted_limb(const u64 *x, size_t xn, size_t j, unsigned int s)
{
	u64 lo = j < xn ? x[j] << s : 0;

	if (s && j > 0 && j - 1 < xn)
		lo |= x[j - 1] >> (64 - s);
	return lo;
}

static int bn_divisor_init_inv(struct bn_divisor *dv, const u64 *d, size_t dn, size_t T,
			       int exact)
{
	size_t off = dn - T, i;
	int err;

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
	err = exact ? bn_invert(dv->v, dv->dh, T) : bn_invert_approx(dv->v, dv->dh, T);
	if (err)
		bn_divisor_release(dv);
	return err;
}

static int bn_divisor_init(struct bn_divisor *dv, const u64 *d, size_t dn, size_t T)
{
	return bn_divisor_init_inv(dv, d, dn, T, 0);
}

/*
 * q (xn - dn + 1 limbs) = x / d, r (dn limbs) = x mod d.  The estimate
 * floor(N_top * v / B^(T+1)) of the top of x << s by dh is off by a few
 * units at most; the exact remainder x - q d fixes it in both directions.
 */
#define BN_DIVREM_MAX_FIXUPS 8

static int bn_divrem_with(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x,
			  size_t xn)
{
	size_t dn = dv->dn, T = dv->T, off = dn - T;
	size_t qn = xn - dn + 1, Nn = xn + 1 - off, qen, qsz, psz, W, itch, i;
	unsigned int fixups = 0;
	u64 *mem, *N, *prod, *qe, *p, *R, *scr;

	/* x < d B^dn: a limb of x << s past 2T limbs must be zero */
	for (i = 2 * T; i < Nn; i++)
		if (bn_shifted_limb(x, xn, off + i, dv->s))
			return -EINVAL;
	if (Nn > 2 * T)
		Nn = 2 * T;
	qen = (T + 1 > qn ? T + 1 : qn) + 1;
	W = (xn > dn + qen ? xn : dn + qen) + 1;
	itch = bn_mul_itch(W, W);
	mem = bn_limbs_alloc(2 * T + (2 * T + 2) + qen + (dn + qen) + W + itch);
	if (!mem)
		return -ENOMEM;
	N = mem;
	prod = N + 2 * T;
	qe = prod + 2 * T + 2;
	p = qe + qen;
	R = p + dn + qen;
	scr = R + W;

	for (i = 0; i < Nn; i++)
		N[i] = bn_shifted_limb(x, xn, off + i, dv->s);
	bn_zero(N + Nn, 2 * T - Nn);
	bn_mul_n(prod, N + T - 1, dv->v, T + 1, scr);
	bn_copyi(qe, prod + T + 1, T + 1);
	bn_zero(qe + T + 1, qen - (T + 1));
	qsz = bn_normalized_size(qe, qen);

	/* R = x - qe * d, two's complement in W limbs */
	bn_copyi(R, x, xn);
	bn_zero(R + xn, W - xn);
	if (qsz) {
		if (qsz >= dn)
			bn_mul(p, qe, qsz, dv->d, dn, scr);
		else
			bn_mul(p, dv->d, dn, qe, qsz, scr);
		psz = qsz + dn;
		bn_sub(R, R, W, p, psz);
	}
	/*
	 * The estimate is off by a few units at most; a larger error means the
	 * approximate inverse was too coarse for this divisor (fuzz_bn found
	 * sparse divisors that needed ~2^60 steps). Give up and let the caller
	 * retry with the exact inverse instead of looping.
	 */
	while (R[W - 1] >> 63) {
		if (++fixups > BN_DIVREM_MAX_FIXUPS)
			goto retry;
		bn_add(R, R, W, dv->d, dn);
		bn_sub_1(qe, qe, qen, 1);
	}
	while (bn_cmp(R, W, dv->d, dn) >= 0) {
		if (++fixups > BN_DIVREM_MAX_FIXUPS)
			goto retry;
		bn_sub(R, R, W, dv->d, dn);
		bn_add_1(qe, qe, qen, 1);
	}
	bn_copyi(q, qe, qn);
	bn_copyi(r, R, dn);
	bn_mem_free(mem);
	return 0;
retry:
	bn_mem_free(mem);
	return -EAGAIN;
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
	err = bn_divrem_with(&dv, q, r, x, xn);
	bn_divisor_release(&dv);
	if (err != -EAGAIN)
		return err;
	err = bn_divisor_init_inv(&dv, d, dn, T, 1);
	if (err)
		return err;
	err = bn_divrem_with(&dv, q, r, x, xn);
	bn_divisor_release(&dv);
	return err == -EAGAIN ? -EIO : err;
}

/* ---- decimal: digits ------------------------------------------------------ */

static const char bn_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline void bn_put2(char *p, u32 v)
{
	p[0] = bn_pairs[2 * v];
	p[1] = bn_pairs[2 * v + 1];
}

static inline void bn_put8(char *p, u32 v)
{
	u32 hi = v / 10000, lo = v % 10000;

	bn_put2(p, hi / 100);
	bn_put2(p + 2, hi % 100);
	bn_put2(p + 4, lo / 100);
	bn_put2(p + 6, lo % 100);
}

/* exactly 19 digits, leading zeros included */
static inline void bn_put19(char *p, u64 v)
{
	u64 top = v / 10000000000000000ULL, rest = v % 10000000000000000ULL;
	u32 t = (u32)top;

	p[0] = (char)('0' + t / 100);
	bn_put2(p + 1, t % 100);
	bn_put8(p + 3, (u32)(rest / 100000000ULL));
	bn_put8(p + 11, (u32)(rest % 100000000ULL));
}

/* v without leading zeros ("0" for 0); returns the count */
static size_t bn_put_var(char *p, u64 v)
{
	char tmp[19];
	size_t k = 0;

	bn_put19(tmp, v);
	while (k < 18 && tmp[k] == '0')
		k++;
	memcpy(p, tmp + k, 19 - k);
	return 19 - k;
}

size_t bn_dec_bound(size_t n)
{
	/* 64 log10(2) = 19.2659... */
	return n * 19 + (n * 267 + 999) / 1000 + 2;
}

static inline size_t bn_chunk_bound(size_t n)
{
	return n + n / 32 + 2;
}

/*
 * Split t (n limbs, destroyed) into base-10^19 chunks, least significant
 * first.  Quadratic: one bn_divrem_1-like pass per chunk.
 */
static long bn_dec_chunks(u64 *t, size_t n, u64 *chunks)
{
	const u64 v = bn_invert_limb(BN_P19);
	size_t c = 0, i;

	n = bn_normalized_size(t, n);
	while (n > 0) {
		u64 r = 0;

		for (i = n; i-- > 0;)
			t[i] = bn_udiv_preinv(&r, r, t[i], BN_P19, v);
		chunks[c++] = r;
		if (t[n - 1] == 0)
			n--;
		if ((c & 1023) == 0 && bn_should_stop())
			return -EINTR;
	}
	return (long)c;
}

/* pad == 0: no leading zeros ("0" for no chunk); else exactly pad digits */
static size_t bn_dec_emit(const u64 *chunks, size_t cnt, char *out, size_t pad)
{
	size_t len = 0, i;

	if (pad) {
		len = pad - 19 * cnt;
		memset(out, '0', len);
	} else if (cnt == 0) {
		out[0] = '0';
		return 1;
	} else {
		len = bn_put_var(out, chunks[--cnt]);
	}
	for (i = cnt; i-- > 0; len += 19)
		bn_put19(out + len, chunks[i]);
	return len;
}

noinline long bn_to_dec_simple(const u64 *a, size_t n, char *buf, size_t cap)
{
	u64 *t;
	long cnt;
	size_t len;

	n = bn_normalized_size(a, n);
	if (cap < bn_dec_bound(n))
		return -ENOSPC;
	if (!n) {
		buf[0] = '0';
		return 1;
	}
	t = bn_limbs_alloc(n + bn_chunk_bound(n));
	if (!t)
		return -ENOMEM;
	bn_copyi(t, a, n);
	cnt = bn_dec_chunks(t, n, t + n);
	if (cnt < 0) {
		bn_mem_free(t);
		return cnt;
	}
	len = bn_dec_emit(t + n, (size_t)cnt, buf, 0);
	bn_mem_free(t);
	return (long)len;
}

/* ---- decimal: divide and conquer ------------------------------------------ */

struct bn_dc {
	u64 *p[BN_DC_MAXLV];	/* p[k] = 10^(19 * 2^k) */
	size_t pn[BN_DC_MAXLV];
	struct bn_divisor dv[BN_DC_MAXLV];	/* T = pn[k], built on demand */
	int nlv;
	u64 *leaf;		/* scratch for the leaves */
};

#define BN_DC_LEAF_LIMBS (2 * BN_DEC_DC_THRESHOLD + 2)

static int bn_dc_divisor(struct bn_dc *c, int k, const struct bn_divisor **out)
{
	int err;

	if (!c->dv[k].dh) {
		err = bn_divisor_init(&c->dv[k], c->p[k], c->pn[k], c->pn[k]);
		if (err)
			return err;
	}
	*out = &c->dv[k];
	return 0;
}

static long bn_dc_leaf(struct bn_dc *c, const u64 *x, size_t xn, char *out, size_t pad)
{
	long cnt;

	bn_copyi(c->leaf, x, xn);
	cnt = bn_dec_chunks(c->leaf, xn, c->leaf + xn);
	if (cnt < 0)
		return cnt;
	return (long)bn_dec_emit(c->leaf + xn, (size_t)cnt, out, pad);
}

/* exactly 19 * 2^k digits of x < 10^(19 * 2^k) */
static long bn_dc_pad(struct bn_dc *c, const u64 *x, size_t xn, int k, char *out)
{
	const struct bn_divisor *dv;
	size_t dn, qn, half = (size_t)19 << (k - 1 < 0 ? 0 : k - 1);
	u64 *qr;
	long err;

	xn = bn_normalized_size(x, xn);
	if (k == 0 || xn < BN_DEC_DC_THRESHOLD)
		return bn_dc_leaf(c, x, xn, out, (size_t)19 << k);
	if (bn_should_stop())
		return -EINTR;
	dn = c->pn[k - 1];
	if (xn < dn || (xn == dn && bn_cmp_n(x, c->p[k - 1], dn) < 0)) {
		memset(out, '0', half);
		return bn_dc_pad(c, x, xn, k - 1, out + half);
	}
	err = bn_dc_divisor(c, k - 1, &dv);
	if (err)
		return err;
	qn = xn - dn + 1;
	qr = bn_limbs_alloc(qn + dn);
	if (!qr)
		return -ENOMEM;
	err = bn_divrem_with(dv, qr, qr + qn, x, xn);
	if (!err)
		err = bn_dc_pad(c, qr, qn, k - 1, out);
	if (err >= 0)
		err = bn_dc_pad(c, qr + qn, dn, k - 1, out + half);
	bn_mem_free(qr);
	return err < 0 ? err : (long)(2 * half);
}

/* x without leading zeros; returns the number of digits */
static long bn_dc_top(struct bn_dc *c, const u64 *x, size_t xn, char *out)
{
	const struct bn_divisor *dv;
	struct bn_divisor tmp;
	size_t dn, qn, T;
	long len, err;
	u64 *qr;
	int k;

	xn = bn_normalized_size(x, xn);
	if (xn < BN_DEC_DC_THRESHOLD)
		return bn_dc_leaf(c, x, xn, out, 0);
	if (bn_should_stop())
		return -EINTR;
	/* largest k with p[k] <= x; then x < p[k+1] = p[k]^2 */
	for (k = c->nlv - 1; k > 0; k--) {
		if (c->pn[k] < xn ||
		    (c->pn[k] == xn && bn_cmp_n(c->p[k], x, xn) <= 0))
			break;
	}
	dn = c->pn[k];
	qn = xn - dn + 1;
	T = qn + 1 < dn ? qn + 1 : dn;
	tmp.dh = NULL;
	if (T == dn) {
		err = bn_dc_divisor(c, k, &dv);
	} else {
		err = bn_divisor_init(&tmp, c->p[k], dn, T);
		dv = &tmp;
	}
	if (err)
		return err;
	qr = bn_limbs_alloc(qn + dn);
	if (!qr) {
		bn_divisor_release(&tmp);
		return -ENOMEM;
	}
	err = bn_divrem_with(dv, qr, qr + qn, x, xn);
	bn_divisor_release(&tmp);
	len = 0;
	if (!err) {
		len = bn_dc_top(c, qr, qn, out);
		if (len < 0)
			err = len;
	}
	if (!err) {
		err = bn_dc_pad(c, qr + qn, dn, k, out + len);
		if (err > 0)
			err = 0;
	}
	bn_mem_free(qr);
	return err < 0 ? err : len + (long)((size_t)19 << k);
}

noinline long bn_to_dec_dc(const u64 *a, size_t n, char *buf, size_t cap)
{
	struct bn_dc *c;
	long ret;
	int k;

	n = bn_normalized_size(a, n);
	if (n < BN_DEC_DC_THRESHOLD)
		return bn_to_dec_simple(a, n, buf, cap);
	if (cap < bn_dec_bound(n))
		return -ENOSPC;
	c = bn_mem_alloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	ret = -ENOMEM;
	c->leaf = bn_limbs_alloc(BN_DC_LEAF_LIMBS + bn_chunk_bound(BN_DC_LEAF_LIMBS));
	c->p[0] = bn_limbs_alloc(1);
	if (!c->leaf || !c->p[0])
		goto out;
	c->p[0][0] = BN_P19;
	c->pn[0] = 1;
	c->nlv = 1;
	/* p[k+1] >= B^(2 pn[k] - 2): stop once that exceeds x */
	while (c->nlv < BN_DC_MAXLV && 2 * c->pn[c->nlv - 1] - 2 < n) {
		size_t pn = c->pn[c->nlv - 1];
		u64 *sq = bn_limbs_alloc(2 * pn + bn_sqr_n_itch(pn));

		if (!sq)
			goto out;
		bn_sqr_n(sq, c->p[c->nlv - 1], pn, sq + 2 * pn);
		c->p[c->nlv] = sq;
		c->pn[c->nlv] = bn_normalized_size(sq, 2 * pn);
		c->nlv++;
	}
	ret = bn_dc_top(c, a, n, buf);
out:
	for (k = 0; k < BN_DC_MAXLV; k++) {
		bn_mem_free(c->p[k]);
		bn_divisor_release(&c->dv[k]);
	}
	bn_mem_free(c->leaf);
	bn_mem_free(c);
	return ret;
}

noinline long bn_to_dec(const u64 *a, size_t n, char *buf, size_t cap)
{
	return bn_to_dec_dc(a, n, buf, cap);
}

noinline int bn_from_dec(struct bn *x, const char *s, size_t len)
{
	size_t i, first, n = 0;
	int err;

	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
	err = bn_reserve(x, len / 19 + 2);
	if (err)
		return err;
	first = len % 19 ? len % 19 : 19;
	for (i = 0; i < len;) {
		size_t end = i == 0 ? first : i + 19;
		u64 chunk = 0, cy;

		for (; i < end; i++)
			chunk = chunk * 10 + (u64)(s[i] - '0');
		cy = bn_mul_1(x->limbs, x->limbs, n, BN_P19);
		if (cy)
			x->limbs[n++] = cy;
		cy = bn_add_1(x->limbs, x->limbs, n, chunk);
		if (cy)
			x->limbs[n++] = cy;
		if ((i & 0x3ffff) == 0 && bn_should_stop())
			return -EINTR;
	}
	x->size = bn_normalized_size(x->limbs, n);
	return 0;
}

/* ---- binary ---------------------------------------------------------------- */

size_t bn_bin_size(const struct bn *x)
{
	return bn_normalized_size(x->limbs, x->size) * sizeof(u64);
}

noinline long bn_to_bin(const struct bn *x, char *buf, size_t cap)
{
	size_t n = bn_normalized_size(x->limbs, x->size), i;
	unsigned int b;

	if (cap < n * sizeof(u64))
		return -ENOSPC;
	for (i = 0; i < n; i++) {
		u64 l = x->limbs[i];

		for (b = 0; b < 8; b++)
			buf[8 * i + b] = (char)(u8)(l >> (8 * b));
	}
	return (long)(n * sizeof(u64));
}

noinline int bn_from_bin(struct bn *x, const char *buf, size_t len)
{
	size_t n = (len + 7) / 8, i;
	int err = bn_reserve(x, n);

	if (err)
		return err;
	bn_zero(x->limbs, n);
	for (i = 0; i < len; i++)
		x->limbs[i / 8] |= (u64)(u8)buf[i] << (8 * (i % 8));
	x->size = bn_normalized_size(x->limbs, n);
	return 0;
}
