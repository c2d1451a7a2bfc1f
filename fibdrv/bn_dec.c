// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_dec.c - the decimal conversion, as GMP's get_str.c: limbs to ASCII
 * digits (bn_to_dec, the one entry), its bound (bn_dec_bound), the
 * digits of base-10^19 chunks, the quadratic conversion (bn_to_dec_simple)
 * and the divide-and-conquer one (bn_to_dec_dc): x divided by the powers
 * 10^(19 * 2^k), kept for the conversion with their Barrett divisors
 * (bn_div.c, bn_inv.c), down to leaves that the quadratic conversion
 * turns into digits. At the top, x is halved (a tree) or, from
 * BN_DEC_CHAIN_MIN limbs, divided again and again by one smaller power (a
 * chain: less memory). Limb layer: struct bn's conversions are in
 * bn_val_conv.c.
 */
#include "bn_impl.h"

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

/*
 * __noipa: gcc sees it is const, and bn_to_dec_dc here calls it twice with
 * the same n: it would keep the first result, the second call missing
 * from fibtrace's counts.
 */
noinline __noipa size_t bn_dec_bound(size_t n)
{
	/* 64 log10(2) = 19.2659... */
	return n * 19 + (n * 267 + 999) / 1000 + 2;
}

/* t (n limbs, destroyed) into base-10^19 chunks, least significant first: one pass each */
noinline long bn_dec_chunks(u64 *t, size_t n, u64 *chunks)
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
noinline size_t bn_dec_emit(const u64 *chunks, size_t cnt, char *out, size_t pad)
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
	if (cnt >= 0)
		cnt = (long)bn_dec_emit(t + n, (size_t)cnt, buf, 0);
	bn_mem_free(t);
	return cnt;
}

/* ---- decimal: divide and conquer ------------------------------------------ */

#define BN_DC_MAXLV 40

/*
 * One conversion's state. Its scratch is one allocation (bn_dc_scratch),
 * at the tree's first division or before the chain's: the leaves' buffer,
 * one division's scratch (the largest; divisions never overlap) and a
 * stack of the quotient-remainder pairs the recursion keeps: nothing is
 * allocated inside the recursion.
 */
struct bn_dc {
	u64 *p[BN_DC_MAXLV]; /* 10^(19 * 2^k) = p[k] B^pz[k] */
	size_t pn[BN_DC_MAXLV], pz[BN_DC_MAXLV];
	struct bn_divisor dv[BN_DC_MAXLV]; /* of p[k], T = bn_dc_dvT(k), built on demand */
	int nlv;
	u64 *leaf; /* scratch for the leaves */
	u64 *dscr; /* a division's or a top step's inversion's scratch */
	size_t dscrn;
	u64 *stack; /* quotient-remainder pairs, last in first out */
	size_t sp, scap;
	size_t n;  /* the limbs converted */
	int chain; /* 1: bn_dc_chain, by p[nlv - 1] from the top */
};

#define BN_DC_LEAF_LIMBS (2 * BN_DEC_DC_THRESHOLD + 2)

/* @n limbs on the stack; NULL (never: bn_dc_scratch sized it) past its end. */
static u64 *bn_dc_push(struct bn_dc *c, size_t n)
{
	u64 *at = c->stack + c->sp;

	if (c->sp + n > c->scap)
		return NULL;
	c->sp += n;
	return at;
}

/* the limbs of 10^(19 * 2^k), its low zero limbs included */
static size_t bn_dc_full(const struct bn_dc *c, int k)
{
	return c->pn[k] + c->pz[k];
}

/*
 * The limbs of p[k]'s kept inverse. Quotients by 10^(19 * 2^k) are about
 * 1.45 times p[k]'s length: below the NTT threshold p[k]'s own (quotients
 * by blocks, bn_divrem_long_scr: products of p[k]'s size and under cost
 * less than one of the quotient's); from it the power's full size, p[k]
 * padded with zero limbs (one estimate of the quotient's length:
 * transforms cost by length, and q p[k] is then taken modulo B^N - 1).
 */
static size_t bn_dc_dvT(const struct bn_dc *c, int k)
{
	if (c->chain && k == c->nlv - 1)
		return c->pn[k]; /* the chain's: by blocks of pn[k], the least scratch */
	return c->pn[k] < BN_MUL_NTT_THRESHOLD ? c->pn[k] : bn_dc_full(c, k);
}

/* The limbs of inverse dividing x (xn limbs) by 10^(19 * 2^k) takes: at most the quotient's + 1. */
static size_t bn_dc_T(const struct bn_dc *c, int k, size_t xn)
{
	size_t T = bn_dc_dvT(c, k), qn = xn - bn_dc_full(c, k) + 1;

	return qn + 1 < T ? qn + 1 : T;
}

/* A division of xn limbs by 10^(19 * 2^k) (bn_divrem_long_z by p[k] B^pz[k]): its scratch. */
static size_t bn_dc_div_itch(const struct bn_dc *c, int k, size_t xn)
{
	size_t T = bn_dc_T(c, k, xn), dn = c->pn[k], yn = xn - c->pz[k], div;

	div = T >= dn ? bn_divrem_long_itch(T, dn, yn) : bn_divrem_itch_sizes(T, dn, yn);
	/* a divisor other than the kept one is inverted in the same scratch (before it exists) */
	return T < bn_dc_dvT(c, k) ? bn_max(div, bn_invert_itch(T, 0)) : div;
}

/* x (xn limbs, normalised) < 10^(19 * 2^k) = p[k] B^pz[k] */
static int bn_dc_below(const struct bn_dc *c, const u64 *x, size_t xn, int k)
{
	size_t full = bn_dc_full(c, k);

	return xn != full ? xn < full : bn_cmp_n(x + c->pz[k], c->p[k], c->pn[k]) < 0;
}

/*
 * The scratch of converting x of @n limbs, one allocation, from sizes
 * alone. Each top step (bn_dc_top) keeps xn + 1 limbs while x becomes its
 * quotient by the largest p[k] <= x: by sizes, the largest k with pn[k] <=
 * xn, or the one below when pn[k] == xn (both sized for; the next x from
 * the smaller). Under a top step at level k the padded halves (bn_dc_pad)
 * keep 2 pn[j] + 1 limbs at each level j < k and divide at most 2 pn[j]
 * limbs by p[j] (T = pn[j]), their divisors built before the allocation (a
 * top step's, whose T depends on x, when it divides). One division runs
 * at a time: the scratch is the largest one's. First, the first top
 * step's level by sizes: the largest k with 10^(19 * 2^k)'s limbs <= n.
 */
static int bn_dc_top_level(const struct bn_dc *c, size_t n)
{
	int k;

	for (k = c->nlv - 1; k > 0 && bn_dc_full(c, k) > n; k--)
		;
	return k;
}

/* The padded halves' under level @top: their stack; their divisions' scratch into @dscr. */
static size_t bn_dc_pads_sizes(const struct bn_dc *c, int top, size_t *dscr)
{
	size_t stack = 0;
	int k;

	for (k = 0; k < top; k++) { /* pads divide by p[k] under a top step above k */
		stack += 2 * bn_dc_full(c, k) + 1;
		*dscr = bn_max(*dscr, bn_dc_div_itch(c, k, 2 * bn_dc_full(c, k)));
	}
	return stack;
}

/* The tree's share of the scratch (above) for x of at most @n limbs. */
static void bn_dc_tree_sizes(const struct bn_dc *c, size_t n, size_t *stack, size_t *dscr)
{
	size_t xn = n;
	int k, top = bn_dc_top_level(c, n);

	for (k = top; k >= 0 && xn >= BN_DEC_DC_THRESHOLD; k--) {
		if (bn_dc_full(c, k) > xn)
			continue;
		*dscr = bn_max(*dscr, bn_dc_div_itch(c, k, xn));
		if (bn_dc_full(c, k) == xn && k > 0) {
			k--; /* p[k] may exceed x: the step divides by p[k - 1] */
			*dscr = bn_max(*dscr, bn_dc_div_itch(c, k, xn));
		}
		*stack += xn + 1;
		xn = xn - bn_dc_full(c, k) + 1;
	}
	*stack += bn_dc_pads_sizes(c, top, dscr);
}

/*
 * The chain's (bn_dc_chain): its quotient and remainder, each remainder's
 * padded halves, its divisions by p[L] (kept inverse, by blocks); then, in
 * the same place, the last quotient (< 10^(19 * 2^L): at most F limbs) and
 * the tree's for it.
 */
static void bn_dc_chain_sizes(const struct bn_dc *c, size_t n, size_t *stack, size_t *dscr)
{
	int L = c->nlv - 1;
	size_t F = bn_dc_full(c, L), xn, chain, tree = F;

	chain = n + 1 + bn_dc_pads_sizes(c, L, dscr);
	for (xn = n; xn >= F; xn -= F - 1)
		*dscr = bn_max(*dscr,
			       bn_divrem_long_itch(bn_dc_dvT(c, L), c->pn[L], xn - c->pz[L]));
	bn_dc_tree_sizes(c, F, &tree, dscr);
	*stack += bn_max(chain, tree);
}

static int bn_dc_scratch(struct bn_dc *c, size_t n)
{
	size_t stack = 64, dscr = 0, leaf;

	if (c->chain)
		bn_dc_chain_sizes(c, n, &stack, &dscr);
	else
		bn_dc_tree_sizes(c, n, &stack, &dscr);
	leaf = BN_DC_LEAF_LIMBS + bn_chunk_bound(BN_DC_LEAF_LIMBS);
	c->leaf = bn_limbs_alloc(leaf + dscr + stack);
	if (!c->leaf)
		return -ENOMEM;
	c->dscr = c->leaf + leaf;
	c->dscrn = dscr;
	c->stack = c->dscr + dscr;
	c->scap = stack;
	c->sp = 0;
	return 0;
}

/* w of bn_divisor_init_sq: p[k] B^(T - pn) = (p[k-1] B^(T1 - pn1))^2 B^w */
static long bn_dc_sq_shift(const struct bn_dc *c, int k, size_t T)
{
	return (long)T - (long)c->pn[k] - 2L * ((long)c->dv[k - 1].T - (long)c->pn[k - 1]) -
	       ((long)c->pz[k] - 2L * (long)c->pz[k - 1]);
}

static int bn_dc_divisor(struct bn_dc *c, int k, const struct bn_divisor **out)
{
	int err;

	if (!c->dv[k].dh) {
		size_t T = bn_dc_dvT(c, k);

		/* 10^(19 2^k) = (10^(19 2^(k-1)))^2: its inverse from the one below where built */
		if (k > 0 && c->dv[k - 1].dh)
			err = bn_divisor_init_sq(&c->dv[k], c->p[k], c->pn[k], T,
						 bn_dc_sq_shift(c, k, T), &c->dv[k - 1]);
		else
			err = bn_divisor_init(&c->dv[k], c->p[k], c->pn[k], T);
		if (err)
			return err;
	}
	*out = &c->dv[k];
	return 0;
}

/*
 * The padded halves' divisors, every level below the first top step's,
 * bottom up, each from the one below where it may: built before the top
 * step's and before the conversion's scratch, so that no inversion's
 * scratch coexists with it, and the top steps' divisors come from them.
 */
static int bn_dc_pad_divisors(struct bn_dc *c)
{
	const struct bn_divisor *dv;
	int k, top = bn_dc_top_level(c, c->n), err;

	for (k = 0; k < top; k++) {
		if (2 * bn_dc_full(c, k) < BN_DEC_DC_THRESHOLD)
			continue;
		err = bn_dc_divisor(c, k, &dv);
		if (err)
			return err;
	}
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
	if (bn_dc_below(c, x, xn, k - 1)) {
		memset(out, '0', half);
		return bn_dc_pad(c, x, xn, k - 1, out + half);
	}
	err = bn_dc_divisor(c, k - 1, &dv);
	if (err)
		return err;
	dn = bn_dc_full(c, k - 1);
	qn = xn - dn + 1;
	qr = bn_dc_push(c, qn + dn);
	if (!qr)
		return -EIO;
	err = bn_divrem_long_z(dv, qr, qr + qn, x, xn, c->pz[k - 1], c->dscr);
	if (!err)
		err = bn_dc_pad(c, qr, qn, k - 1, out);
	if (err >= 0)
		err = bn_dc_pad(c, qr + qn, dn, k - 1, out + half);
	c->sp -= qn + dn;
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
	/* largest k with 10^(19 * 2^k) <= x; then x < its square */
	for (k = c->nlv - 1; k > 0 && bn_dc_below(c, x, xn, k); k--)
		;
	dn = bn_dc_full(c, k);
	qn = xn - dn + 1;
	T = bn_dc_T(c, k, xn);
	tmp.dh = NULL;
	/* before the first top step's divisor: the pads', which it may start from */
	err = c->leaf ? 0 : bn_dc_pad_divisors(c);
	if (err)
		return err;
	if (T == bn_dc_dvT(c, k) || c->dv[k].dh) {
		/* kept, or built below: a short quotient's estimate from its top limbs */
		err = bn_dc_divisor(c, k, &dv);
	} else if (k > 0 && c->dv[k - 1].dh) {
		/* p[k]'s top T limbs' inverse from p[k-1]'s (the first top step) */
		err = bn_divisor_init_sq(&tmp, c->p[k], c->pn[k], T, bn_dc_sq_shift(c, k, T),
					 &c->dv[k - 1]);
		dv = &tmp;
	} else {
		/* no division runs now: the inversion in the division's scratch, once it exists */
		u64 *scr = c->leaf && bn_invert_itch(T, 0) <= c->dscrn ? c->dscr : NULL;

		err = bn_divisor_init_scr(&tmp, c->p[k], c->pn[k], T, 0, scr);
		dv = &tmp;
	}
	if (err)
		return err;
	/* the scratch once the first divisor is built: its inversion's scratch is gone */
	if (!c->leaf)
		err = bn_dc_scratch(c, c->n);
	qr = err ? NULL : bn_dc_push(c, qn + dn);
	if (!qr) {
		bn_divisor_release(&tmp);
		return err ? err : -EIO;
	}
	err = bn_divrem_long_z(dv, qr, qr + qn, x, xn, c->pz[k], c->dscr);
	bn_divisor_release(&tmp);
	len = err ? err : bn_dc_top(c, qr, qn, out);
	if (len >= 0)
		err = bn_dc_pad(c, qr + qn, dn, k, out + len);
	c->sp -= qn + dn;
	if (len < 0 || err < 0)
		return len < 0 ? len : err;
	return len + (long)((size_t)19 << k);
}

/*
 * x (xn limbs, normalised) without leading zeros into buf (@bound bytes, at
 * least its digits), when x is many times P = 10^(19 * 2^L) (L the top
 * level, P about 1/BN_DEC_CHAIN_PARTS of x): divided by P again and again,
 * each quotient over its dividend, each remainder's 19 * 2^L digits into
 * the end of buf, from the last; then the last quotient (< P) at buf's
 * start, the remainders' digits moved down after it. Only divisions of
 * about P's size and one copy of x are held, not a top step's halves.
 */
static long bn_dc_chain(struct bn_dc *c, const u64 *x, size_t xn, char *buf, size_t bound)
{
	const struct bn_divisor *dv;
	int L = c->nlv - 1;
	size_t F = bn_dc_full(c, L), z = c->pz[L], D = (size_t)19 << L, pos = bound, qn;
	const u64 *y = x, *from;
	u64 *cur, *r;
	long len;
	int err;

	err = bn_dc_pad_divisors(c);
	if (!err)
		err = bn_dc_divisor(c, L, &dv);
	if (!err)
		err = bn_dc_scratch(c, xn);
	if (err)
		return err;
	cur = bn_dc_push(c, xn - F + 1);
	r = bn_dc_push(c, F);
	if (!cur || !r)
		return -EIO;
	while (!bn_dc_below(c, y, xn, L)) {
		if (bn_should_stop())
			return -EINTR;
		qn = xn - F + 1;
		bn_copyi(r, y, z); /* P's zero limbs: x's low z limbs are r's */
		from = y + z;
		if (y == cur) { /* in place: the dividend moved down to cur first */
			bn_copyi(cur, cur + z, xn - z);
			from = cur;
		}
		err = bn_divrem_long_scr(dv, cur, r + z, from, xn - z, c->dscr);
		if (err)
			return err;
		pos -= D;
		len = bn_dc_pad(c, r, F, L, buf + pos);
		if (len < 0)
			return len;
		y = cur;
		xn = bn_normalized_size(cur, qn);
	}
	if (y == cur)
		c->sp = F; /* the last quotient (< P: F limbs at most) stays, the rest is free */
	len = bn_dc_top(c, y, xn, buf);
	if (len < 0)
		return len;
	memmove(buf + len, buf + pos, bound - pos);
	return len + (long)(bound - pos);
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
	c->p[0] = bn_limbs_alloc(1);
	if (!c->p[0])
		goto out;
	c->p[0][0] = BN_P19;
	c->pn[0] = 1;
	c->nlv = 1;
	/*
	 * 10^(19 * 2^(k+1)) >= B^(2 full - 2): stop once that exceeds x; for a
	 * chain (bn_dc_chain), once it exceeds 1/BN_DEC_CHAIN_PARTS of x
	 */
	c->chain = n >= BN_DEC_CHAIN_MIN;
	while (c->nlv < BN_DC_MAXLV && 2 * bn_dc_full(c, c->nlv - 1) - 2 < n &&
	       (!c->chain || 2 * bn_dc_full(c, c->nlv - 1) * BN_DEC_CHAIN_PARTS <= n)) {
		size_t pn = c->pn[c->nlv - 1], w = 0;
		/* the power kept for the whole conversion; its scratch only while squaring */
		u64 *sq = bn_limbs_alloc(2 * pn), *scr = bn_limbs_alloc(bn_sqr_n_itch(pn));

		if (!sq || !scr) {
			bn_mem_free(sq);
			bn_mem_free(scr);
			goto out;
		}
		bn_sqr_n(sq, c->p[c->nlv - 1], pn, scr);
		bn_mem_free(scr);
		/* the low zero limbs dropped (10^m = 2^m 5^m: m / 64 of them) */
		pn = bn_normalized_size(sq, 2 * pn);
		while (!sq[w])
			w++;
		bn_copyi(sq, sq + w, pn - w);
		c->p[c->nlv] = sq;
		c->pn[c->nlv] = pn - w;
		c->pz[c->nlv] = 2 * c->pz[c->nlv - 1] + w;
		c->nlv++;
	}
	c->n = n;
	/* either allocates the scratch: the top at its first division, the chain before it */
	ret = c->chain ? bn_dc_chain(c, a, n, buf, bn_dec_bound(n)) : bn_dc_top(c, a, n, buf);
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
