/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bn_impl.h - private to the bn_*.c files (as gmp-impl.h is to GMP):
 * the machine-specific layer, single-limb division, the inline forms of a
 * few small exported functions, and the Barrett divisor that bn_inv.c
 * builds, bn_div.c divides by and bn_dec.c reuses.  Users of the library
 * include bn.h only.
 */
#ifndef FIBDRV_BN_IMPL_H
#define FIBDRV_BN_IMPL_H

#include "bn.h"

typedef unsigned __int128 bn_u128;

/*
 * The one place that picks the machine layer: the inline asm of bn_x86.h
 * or its plain C stand-in (BN_NO_ASM forces the latter, for testing).
 */
#if defined(__x86_64__) && !defined(BN_NO_ASM)
#include "bn_x86.h"
#else
#include "bn_generic.h"
#endif

/* v = floor((B^2 - 1) / d) - B for normalised d (top bit set) */
static inline u64 bn_invert_limb(u64 d)
{
	u64 r;

	return bn_udiv_qrnnd(&r, ~d, ~0ULL, d);
}

/* Moller-Granlund division of (nh, nl) by normalised d, nh < d. */
static inline u64 bn_udiv_preinv(u64 *rem, u64 nh, u64 nl, u64 d, u64 v)
{
	bn_u128 p = (bn_u128)nh * v;
	u64 q1, q0, r;

	p += ((bn_u128)(nh + 1) << 64) | nl;
	q1 = (u64)(p >> 64);
	q0 = (u64)p;
	r = nl - q1 * d;
	if (r > q0) {
		q1--;
		r += d;
	}
	if (unlikely(r >= d)) {
		q1++;
		r -= d;
	}
	*rem = r;
	return q1;
}

static inline unsigned int bn_clz(u64 x)
{
	return (unsigned int)__builtin_clzll(x);
}

/* the larger of two sizes: the scratch bounds take it */
static inline size_t bn_max(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* two's complement negation in place */
static inline void bn_neg_inplace(u64 *x, size_t n)
{
	size_t i;

	for (i = 0; i < n && x[i] == 0; i++)
		;
	if (i == n)
		return;
	x[i] = -x[i];
	for (i++; i < n; i++)
		x[i] = ~x[i];
}

/*
 * Inline forms of small exported functions: bn_cmp.c and bn_mul.c build
 * the exported bn_cmp_n(), bn_normalized_size(), bn_cmp() and *_itch()
 * from them.  Inside the library only bn_cmp(), Karatsuba/Toom-3 (the
 * comparisons of bn_abs_sub_n() and bn_toom3_eval()) and the value layer
 * (sizes and scratch of bn_sub_val()/bn_mul_val()) use them; every other
 * caller calls the exported function.  Which one a caller uses shows in
 * fibtrace's per-function call counts: keep it.
 */
static inline int __bn_cmp_n(const u64 *a, const u64 *b, size_t n)
{
	while (n-- > 0) {
		if (a[n] != b[n])
			return a[n] > b[n] ? 1 : -1;
	}
	return 0;
}

static inline size_t __bn_normalized_size(const u64 *a, size_t n)
{
	while (n > 0 && a[n - 1] == 0)
		n--;
	return n;
}

/* the transform length of an rn-limb product by NTT: 2^k or 3 2^k >= rn */
static inline size_t __bn_ntt_len(size_t rn)
{
	size_t N = 1;

	while (N < rn)
		N <<= 1;
	return N >= 4 && 3 * (N / 4) >= rn ? 3 * (N / 4) : N;
}

/*
 * A full product by NTT reads its operands in pieces of 64 bits (limbs) or
 * of BN_NTT_BITS_MIN..BN_NTT_BITS_MAX bits (bn_ntt_mul.c): an limbs make
 * __bn_ntt_pts(an, bits) points. A coefficient of the product sums at most
 * min(na, nb) products of two pieces, so it stays below the three primes'
 * product P (p1 p2 p3 > 2^185.9998) while min(na, nb) <= __bn_ntt_cap(bits)
 * = floor((P - 1) / (2^bits - 1)^2) (checked against GMP by the unit tests).
 */
#define BN_NTT_BITS_MIN 80
#define BN_NTT_BITS_MAX 88

static inline size_t __bn_ntt_cap(unsigned int bits)
{
	static const u32 cap[] = {67103824, 16775956, 4193989, 1048497, 262124,
				  65531,    16382,    4095,    1023};

	return cap[bits - BN_NTT_BITS_MIN];
}

static inline size_t __bn_ntt_pts(size_t an, unsigned int bits)
{
	return (64 * an + bits - 1) / bits;
}

/*
 * The transform length of a full rn-limb product, at most: with 80-bit
 * pieces (allowed for every an + bn = rn while the shorter operand has at
 * most __bn_ntt_cap(80) points, 2^26), na + nb - 1 <= (64 rn + 78) / 80;
 * else limbs.
 */
static inline size_t __bn_ntt_prod_len(size_t rn)
{
	if (__bn_ntt_pts(rn / 2, BN_NTT_BITS_MIN) > __bn_ntt_cap(BN_NTT_BITS_MIN))
		return __bn_ntt_len(rn - 1);
	return __bn_ntt_len((64 * rn + 2 * (BN_NTT_BITS_MIN - 1)) / BN_NTT_BITS_MIN - 1);
}

/*
 * How a full an x bn product is transformed: in the pieces that make the
 * transform shortest, the narrowest of those (most margin below P), or in
 * limbs when pieces do not shorten it (limbs are cheaper to read and to
 * recombine). N <= __bn_ntt_prod_len(an + bn): 80 bits are among the
 * candidates whenever that bound counts on them.
 */
struct bn_ntt_shape {
	unsigned int bits; /* 64, or BN_NTT_BITS_MIN..BN_NTT_BITS_MAX */
	size_t np, N;	   /* the product's points, the transform length */
};

static inline struct bn_ntt_shape __bn_ntt_shape(size_t an, size_t bn)
{
	struct bn_ntt_shape best = {64, an + bn - 1, __bn_ntt_len(an + bn - 1)};
	unsigned int b;

	for (b = BN_NTT_BITS_MAX; b >= BN_NTT_BITS_MIN; b--) {
		size_t na = __bn_ntt_pts(an, b), nb = __bn_ntt_pts(bn, b);
		size_t N = __bn_ntt_len(na + nb - 1);

		if ((na < nb ? na : nb) > __bn_ntt_cap(b) || N > best.N ||
		    (N == best.N && best.bits == 64))
			continue;
		best = (struct bn_ntt_shape){b, na + nb - 1, N};
	}
	return best;
}

/*
 * Does a balanced n x n product take the NTT: from its threshold, and
 * below it from BN_NTT_FULL_MIN where the transform has at most 1.6 points
 * per limb (the widest pieces filling 4096 points: 2560-2784 limbs, where
 * it took 0.77-0.89 of Toom-4's time, 1.0-1.26 just past 2784).
 * bn_bench --tune and docs/bignum.md have the crossovers.
 */
static inline int __bn_ntt_pays(size_t n, size_t threshold)
{
	return n >= threshold || (n >= BN_NTT_FULL_MIN && 5 * __bn_ntt_shape(n, n).N <= 8 * n);
}

/* the sub-transforms that bn_ntt.c runs stage by stage, with their own twiddles */
#define BN_NTT_BLOCK 1024

/*
 * bn_ntt_mul.c: two residue vectors of a transform of length N (the third
 * waits in r), a twiddle table and a block's, the second operand's
 */
static inline size_t __bn_ntt_len_itch(size_t N, int sqr)
{
	return (sqr ? 2 : 3) * N + N / 2 + BN_NTT_BLOCK / 2;
}

/* a full product of rn limbs */
static inline size_t __bn_ntt_itch(size_t rn, int sqr)
{
	return __bn_ntt_len_itch(__bn_ntt_prod_len(rn), sqr);
}

/*
 * A product modulo B^Nw - 1 (bn_mulmod_bnm1) is a cyclic convolution of
 * N points of @bits bits with bits N = 64 Nw: limbs (Nw a transform
 * length) or pieces of 80..88 bits (Nw = bits N / 64, never a transform
 * length: the shape is Nw's alone). {0, 0, 0} for no such Nw.
 */
static inline struct bn_ntt_shape __bn_bnm1_shape(size_t Nw)
{
	unsigned int b;

	if (__bn_ntt_len(Nw) == Nw)
		return (struct bn_ntt_shape){64, Nw, Nw};
	for (b = BN_NTT_BITS_MIN; b <= BN_NTT_BITS_MAX; b++) {
		size_t N = 64 * Nw / b;

		if (64 * Nw % b == 0 && __bn_ntt_len(N) == N)
			return (struct bn_ntt_shape){b, N, N};
	}
	return (struct bn_ntt_shape){0, 0, 0};
}

/*
 * The Nw >= @need whose product modulo B^Nw - 1 of an- and bn-limb
 * operands (at most Nw each) takes the shortest transform: limbs, or the
 * narrowest pieces reaching it within their cap.
 */
static inline size_t __bn_bnm1_size(size_t need, size_t an, size_t bn)
{
	size_t best = __bn_ntt_len(need), bestN = best;
	unsigned int b;

	for (b = BN_NTT_BITS_MAX; b >= BN_NTT_BITS_MIN; b--) {
		size_t N = __bn_ntt_len((64 * need + b - 1) / b);
		size_t na = __bn_ntt_pts(an, b), nb = __bn_ntt_pts(bn, b);

		if (N % 64 || N > bestN || (N == bestN && best == bestN) ||
		    (na < nb ? na : nb) > __bn_ntt_cap(b))
			continue;
		best = b * N / 64;
		bestN = N;
	}
	return best;
}

/* bn_mulmod_bnm1()'s scratch for Nw limbs */
static inline size_t __bn_bnm1_itch(size_t Nw)
{
	return __bn_ntt_len_itch(__bn_bnm1_shape(Nw).N, 0);
}

/*
 * Scratch bound for every balanced product of size <= n: Karatsuba needs
 * 4h + S(h) (3h squaring), Toom-3 16(k + 1) + S(k + 1), Toom-4 22(k + 1) + S(k + 1)
 * (17(k + 1) + S(k + 1) squaring); 10n + 200 dominates them all for
 * n >= 40 (checked in docs/bignum.md), and the smaller sizes use basecase.
 * Below its threshold the NTT's scratch, at most 3.5 (1.6 n) + 512 limbs
 * (__bn_ntt_pays()), stays under that too. Above it the NTT's, which
 * the Tooms' subproducts never reach, but never below the Tooms' bound
 * under the threshold: monotone in n.
 */
static inline size_t __bn_ntt_n_itch(size_t n, size_t threshold, int sqr)
{
	size_t ntt, below = 10 * (threshold - 1) + 200;

	if (n < threshold)
		return 10 * n + 200;
	ntt = __bn_ntt_itch(2 * n, sqr);
	return bn_max(ntt, below);
}

static inline size_t __bn_mul_n_itch(size_t n)
{
	return __bn_ntt_n_itch(n, BN_MUL_NTT_THRESHOLD, 0);
}

static inline size_t __bn_sqr_n_itch(size_t n)
{
	return __bn_ntt_n_itch(n, BN_SQR_NTT_THRESHOLD, 1);
}

/* bn_mul() of unequal NTT-sized operands, an < 2bn: one transform of an + bn */
static inline int __bn_mul_direct_ntt(size_t an, size_t bn)
{
	return an != bn && bn >= BN_MUL_NTT_THRESHOLD && an < 2 * bn;
}

/*
 * bn_mul(): a 2bn-limb product beside bn_mul_n()'s scratch, at each level
 * of its recursion on the last, shorter slice (sizes falling as in
 * Euclid's algorithm, at least halving every two levels: 4bn in all; a
 * direct transform down there, of at most 2bn limbs, needs no more than
 * bn_mul_n()'s of bn), or one transform's scratch where it multiplies
 * directly. The larger of the two, with an capped below 2bn: a bound for
 * every product of at most an by bn limbs (callers size by the largest;
 * the direct transform of 3bn limbs can pad to 4bn, past the other).
 */
static inline size_t __bn_mul_itch(size_t an, size_t bn);

/* r (N limbs) += b (bn <= N limbs) modulo B^N - 1: a carry out of limb N - 1 comes back at limb 0 */
static inline void bn_add_mod_bnm1(u64 *r, size_t N, const u64 *b, size_t bn)
{
	if (bn_add(r, r, N, b, bn))
		while (bn_add_1(r, r, N, 1))
			;
}

/* bn_mul()'s scratch for exactly an x bn limbs (an >= bn): not a bound for smaller sizes */
static inline size_t __bn_mul_itch_at(size_t an, size_t bn)
{
	if (__bn_mul_direct_ntt(an, bn))
		return __bn_ntt_itch(an + bn, 0);
	return __bn_mul_itch(bn, bn);
}

static inline size_t __bn_mul_itch(size_t an, size_t bn)
{
	size_t slices = 6 * bn + __bn_mul_n_itch(bn) + 400, direct;

	if (bn < BN_MUL_NTT_THRESHOLD)
		return slices;
	direct = __bn_ntt_itch((an < 2 * bn ? an : 2 * bn - 1) + bn, 0);
	return bn_max(direct, slices);
}

/* limb j of x << s; j may be negative (limbs below x's, zero) */
static inline u64 bn_shifted_limb(const u64 *x, size_t xn, long j, unsigned int s)
{
	u64 lo = j >= 0 && (size_t)j < xn ? x[j] << s : 0;

	if (s && j > 0 && (size_t)j - 1 < xn)
		lo |= x[j - 1] >> (64 - s);
	return lo;
}

/*
 * Barrett division (bn_div.c) by a divisor prepared once: the D&C decimal
 * conversion (bn_dec.c) divides by each power of 10^19 many times.
 */
struct bn_divisor {
	const u64 *d; /* the divisor as given (not owned) */
	size_t dn;
	size_t T; /* dh = top T limbs of d << s (T > dn: d padded with zero limbs) */
	unsigned int s;
	u64 *dh; /* T limbs, normalised */
	u64 *v;	 /* T + 1 limbs: floor(B^(2T) / dh) */
	/*
	 * v came from a Newton step started at a square's inverse
	 * (bn_divisor_init_sq): its error is about the square of the half's
	 * (Newton's quadratic convergence), too coarse to start another
	 */
	int from_sq;
};

/*
 * Prepare dv for d (dn limbs, d[dn - 1] != 0) from its top T limbs (T <
 * dn: for quotients shorter than d), or padded to T > dn limbs (quotients
 * longer than d: Barrett's estimate needs T >= qn - 1), with the exact
 * inverse (exact) or a cheaper one a few units off (enough for Barrett
 * division, which corrects its quotient both ways). The inversion runs in
 * @scr, bn_invert_itch(T, exact) limbs, or in scratch allocated for it
 * when @scr is NULL; dv->dh is allocated either way.
 */
int bn_divisor_init_scr(struct bn_divisor *dv, const u64 *d, size_t dn, size_t T, int exact,
			u64 *scr);
size_t bn_invert_itch(size_t n, int exact);

static inline int bn_divisor_init_inv(struct bn_divisor *dv, const u64 *d, size_t dn, size_t T,
				      int exact)
{
	return bn_divisor_init_scr(dv, d, dn, T, exact, NULL);
}

/* below this many limbs of e, bn_divisor_init_sq inverts afresh (it is cheap there) */
#ifndef BN_DIVISOR_SQ_MIN
#define BN_DIVISOR_SQ_MIN 16
#endif
/*
 * dv for d to T limbs (approximate inverse), where d B^(T - dn) is the
 * square of the number half inverts (e padded to half's T) times B^w: the
 * Newton iteration started from half's inverse squared.
 */
int bn_divisor_init_sq(struct bn_divisor *dv, const u64 *d, size_t dn, size_t T, long w,
		       const struct bn_divisor *half);
/*
 * q (xn - dn + 1 limbs) = x / d, r (dn limbs) = x mod d; -EAGAIN when an
 * approximate inverse was too coarse (retry with the exact one).
 */
int bn_divrem_with(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x, size_t xn);
/*
 * bn_divrem_with in caller scratch @mem of bn_divrem_itch(dv, xn) limbs
 * (no allocation), or allocated when @mem is NULL.
 */
size_t bn_divrem_itch_sizes(size_t T, size_t dn, size_t xn);
static inline size_t bn_divrem_itch(const struct bn_divisor *dv, size_t xn)
{
	return bn_divrem_itch_sizes(dv->T, dv->dn, xn);
}
int bn_divrem_with_scr(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x, size_t xn,
		       u64 *mem);
/*
 * bn_divrem_with(_scr), and on -EAGAIN once more with the exact inverse of
 * the same divisor (allocated then: rare): 0, -EINVAL, -ENOMEM, or -EIO
 * should even that fail (never seen); never -EAGAIN, which read() does not
 * document.
 */
int bn_divrem_by_scr(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x, size_t xn,
		     u64 *mem);

/*
 * The same for a quotient of any length (q: xn - dn + 1 limbs), by blocks
 * of T = dv->T quotient limbs when it is longer than T (dv->T >= dv->dn
 * then: d's inverse, or that of d padded with T - dn zero limbs); scratch
 * bn_divrem_long_itch(T, dn, xn) limbs. q may be x itself (the quotient
 * then replaces the dividend's low limbs); r is separate.
 */
size_t bn_divrem_long_itch(size_t T, size_t dn, size_t xn);
int bn_divrem_long_scr(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x, size_t xn,
		       u64 *mem);

/*
 * bn_divrem_long_scr by d B^z, @dv built for d: r's low z limbs are x's,
 * the rest x's high xn - z limbs' remainder by d (r: dn + z limbs, q: xn -
 * dn - z + 1). As GMP's mpn_get_str divides by a power of 10 without its
 * low zero limbs (10^m = 2^m 5^m): divisor and remainder about 30%
 * shorter, the quotient as long.
 */
static inline int bn_divrem_long_z(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x,
				   size_t xn, size_t z, u64 *mem)
{
	bn_copyi(r, x, z);
	return bn_divrem_long_scr(dv, q, r + z, x + z, xn - z, mem);
}

/* ---- decimal conversion (bn_dec.c; 10^19 also bn_val_conv.c's bn_from_dec) ---- */

#define BN_P19 10000000000000000000ULL /* 10^19, top bit set */

/* base-10^19 chunks of a number of n limbs: at most this many */
static inline size_t bn_chunk_bound(size_t n)
{
	return n + n / 32 + 2;
}

/* t (n limbs, destroyed) into base-10^19 chunks, least significant first: their count */
long bn_dec_chunks(u64 *t, size_t n, u64 *chunks);
/* the chunks' digits: pad == 0, no leading zeros ("0" for none); else exactly pad digits */
size_t bn_dec_emit(const u64 *chunks, size_t cnt, char *out, size_t pad);

#if BN_MEM_ACCOUNTING
/* tests: how many divisions bn_divrem_by_scr retried with the exact inverse */
unsigned long bn_divrem_retries(void);
#endif

static inline int bn_divrem_by(const struct bn_divisor *dv, u64 *q, u64 *r, const u64 *x, size_t xn)
{
	return bn_divrem_by_scr(dv, q, r, x, xn, NULL);
}

static inline int bn_divisor_init(struct bn_divisor *dv, const u64 *d, size_t dn, size_t T)
{
	return bn_divisor_init_inv(dv, d, dn, T, 0);
}

static inline void bn_divisor_release(struct bn_divisor *dv)
{
	bn_mem_free(dv->dh);
	dv->dh = NULL;
	dv->v = NULL;
}

#endif /* FIBDRV_BN_IMPL_H */
