// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_ntt.c - multiplication by number-theoretic transforms: the product
 * above Toom-3, integer arithmetic only (no FPU in the kernel).
 *
 * The limbs of each operand are the coefficients of a polynomial; their
 * product's coefficients (cyclic convolution of length N, at least the
 * product's size: below) are each below min(an, bn) * 2^128, so
 * three primes p < 2^62 with 3 2^40 | p - 1 recover them exactly by the
 * Chinese remainder theorem (p1 p2 p3 > 2^185). Per prime: the forward
 * transform (decimation in frequency, natural order in, bit-reversed out),
 * the pointwise product, the inverse transform (decimation in time,
 * bit-reversed in, natural out); then one pass combines the three
 * residues of each coefficient (Garner) and adds it at its limb.
 *
 * The length N is 2^k or 3 2^k, whichever is the smaller at least the
 * product's size (padding wastes at most a third, not half): a length
 * 3M runs one radix-3 stage over the thirds and three power-of-two
 * transforms of M points.
 *
 * Residues are kept lazily reduced (below 2p or 4p: the butterflies,
 * below); twiddles are in Montgomery form (w R mod p, R = 2^64), so one
 * Montgomery product d * (w R) R^-1 = d w needs no conversion of the
 * data. The transforms go two stages at a time and recurse on quarters
 * once larger than NTT_BLOCK, so each sub-transform runs in cache.
 * Scratch: two residue vectors, the second operand's transform, a twiddle
 * table and a block's, bn_ntt_itch(); the first prime's residues wait in r
 * itself (the recombination reads each before it writes that limb). Never
 * allocates, never fails (layer 1 of bn.h).
 */
#include "bn_impl.h"

/*
 * Sub-transforms at most BN_NTT_BLOCK long (bn_impl.h) run their stages in
 * a loop (in L1/L2), with the twiddles of a transform of that length
 * copied after the table (tw + M / 2, M the power-of-two length): there
 * they are contiguous, in the table they are M / BN_NTT_BLOCK apart.
 */
#define NTT_BLOCK BN_NTT_BLOCK

struct ntt_prime {
	u64 p, g;   /* the prime and a generator of its multiplicative group */
	u64 pinv;   /* p^-1 mod 2^64 */
	u64 r1, r2; /* R mod p, R^2 mod p */
};

/* p - 1 = c 3 2^40 (and more): lengths 2^k and 3 2^k, k <= 40; p1 > p2 > p3 */
static const u64 ntt_p[3] = {0x3fffc00000000001ULL, 0x3fff840000000001ULL, 0x3fff810000000001ULL};
static const u64 ntt_g[3] = {11, 19, 5};

/* a b R^-1 mod p in [0, p), for a b < p 2^64 */
static inline u64 mont_mul(u64 a, u64 b, const struct ntt_prime *P)
{
	bn_u128 t = (bn_u128)a * b;
	u64 hi = (u64)(t >> 64), m = (u64)t * P->pinv;
	u64 mh = (u64)(((bn_u128)m * P->p) >> 64);

	return hi >= mh ? hi - mh : hi - mh + P->p;
}

/* a mod p for a < 2p */
static inline u64 mod_once(u64 a, u64 p)
{
	return a >= p ? a - p : a;
}

static inline u64 mod_add(u64 a, u64 b, u64 p)
{
	return mod_once(a + b, p);
}

static inline u64 mod_sub(u64 a, u64 b, u64 p)
{
	return a >= b ? a - b : a - b + p;
}

/* x^e in Montgomery form, for x in Montgomery form */
static u64 mont_pow(u64 x, u64 e, const struct ntt_prime *P)
{
	u64 r = P->r1;

	for (; e; e >>= 1) {
		if (e & 1)
			r = mont_mul(r, x, P);
		x = mont_mul(x, x, P);
	}
	return r;
}

static void ntt_prime_init(struct ntt_prime *P, int i)
{
	u64 inv, r;
	int k;

	P->p = ntt_p[i];
	P->g = ntt_g[i];
	inv = P->p; /* right to 3 bits; each Newton step doubles them */
	for (k = 0; k < 5; k++)
		inv *= 2 - P->p * inv;
	P->pinv = inv;
	P->r1 = (0 - P->p) % P->p; /* 2^64 mod p, without a 128-bit division */
	r = P->r1;
	for (k = 0; k < 64; k++)
		r = mod_add(r, r, P->p);
	P->r2 = r;
}

static inline u64 to_mont(u64 x, const struct ntt_prime *P)
{
	return mont_mul(x, P->r2, P);
}

/* the primitive n-th root of unity in Montgomery form (n | p - 1) */
static u64 ntt_root(size_t n, const struct ntt_prime *P)
{
	return mont_pow(to_mont(P->g, P), (P->p - 1) / n, P);
}

/* after the table of a length N > NTT_BLOCK, the twiddles of a length NTT_BLOCK */
static void ntt_twiddles_block(u64 *tw, size_t N)
{
	size_t k, s = N / NTT_BLOCK;

	if (N > NTT_BLOCK)
		for (k = 0; k < NTT_BLOCK / 2; k++)
			tw[N / 2 + k] = tw[k * s];
}

/*
 * tw[j] = w^j R mod p, j < N/2, w a primitive N-th root of unity. The
 * inverse transform's table is the same read backwards and negated, since
 * w^(N/2) = -1: w^-j = -w^(N/2 - j) (ntt_twiddles_invert(), in place).
 */
static void ntt_twiddles(u64 *tw, size_t N, const struct ntt_prime *P)
{
	u64 w = ntt_root(N, P), w2 = mont_mul(w, w, P), w4 = mont_mul(w2, w2, P);
	size_t j;

	tw[0] = P->r1;
	for (j = 1; j < N / 2 && j < 4; j++)
		tw[j] = mont_mul(tw[j - 1], w, P);
	/* then four chains of w^4 steps: independent products, not one chain */
	for (; j < N / 2; j++)
		tw[j] = mont_mul(tw[j - 4], w4, P);
	ntt_twiddles_block(tw, N);
}

static void ntt_twiddles_invert(u64 *tw, size_t N, const struct ntt_prime *P)
{
	size_t j, h = N / 2;

	if (h < 2)
		return; /* w^0 alone */
	for (j = 1; j < h - j; j++) {
		u64 t = tw[j];

		tw[j] = P->p - tw[h - j];
		tw[h - j] = P->p - t;
	}
	if (j == h - j)
		tw[j] = P->p - tw[j];
	ntt_twiddles_block(tw, N);
}

/*
 * The butterflies keep residues lazily reduced (Harvey, "Faster arithmetic
 * for number-theoretic transforms", 2014): 4p < 2^64, and a Montgomery
 * product of a < 4p by w < p, hi - mh + p, lies in (0, 2p) without its
 * final correction. Decimation in frequency takes x, y in [0, 2p) and
 * gives (x + y, (x - y) w) in [0, 2p); decimation in time takes them in
 * [0, 4p) and gives (x + y w, x - y w) in [0, 4p). With w = 1 (the first
 * of every block) both are (x + y, x - y), no product. The inverse
 * transform's output, in [0, 4p), is reduced where it is read: by the
 * inverse radix-3 stage, else by bn_ntt_crt()'s exact Montgomery product.
 */
struct ntt_mod {
	u64 p, p2, pinv; /* p, 2p, p^-1 mod 2^64 */
};

static inline struct ntt_mod ntt_mod_of(const struct ntt_prime *P)
{
	return (struct ntt_mod){P->p, 2 * P->p, P->pinv};
}

/* a w R^-1 mod p in (0, 2p), for a w < p 2^64 */
static inline u64 mont_lazy(u64 a, u64 w, struct ntt_mod m)
{
	bn_u128 t = (bn_u128)a * w;
	u64 q = (u64)t * m.pinv;

	return (u64)(t >> 64) - (u64)(((bn_u128)q * m.p) >> 64) + m.p;
}

/* a in [0, 4p) to [0, 2p) */
static inline u64 red2p(u64 a, struct ntt_mod m)
{
	return a >= m.p2 ? a - m.p2 : a;
}

static inline void bfly_dif(u64 *x, u64 *y, u64 w, struct ntt_mod m)
{
	u64 u = *x, v = *y;

	*x = red2p(u + v, m);
	*y = mont_lazy(u - v + m.p2, w, m);
}

static inline void bfly_dif_one(u64 *x, u64 *y, struct ntt_mod m)
{
	u64 u = *x, v = *y;

	*x = red2p(u + v, m);
	*y = red2p(u - v + m.p2, m);
}

static inline void bfly_dit(u64 *x, u64 *y, u64 w, struct ntt_mod m)
{
	u64 u = red2p(*x, m), v = mont_lazy(*y, w, m);

	*x = u + v;
	*y = u - v + m.p2;
}

static inline void bfly_dit_one(u64 *x, u64 *y, struct ntt_mod m)
{
	u64 u = red2p(*x, m), v = red2p(*y, m);

	*x = u + v;
	*y = u - v + m.p2;
}

/*
 * Two stages at once (radix 2^2): the points j, j + q, j + 2q, j + 3q of a
 * block of 4q, by the butterflies of the stage of length 2q (twiddles W^j
 * and W^(j + q), W = w_4q) and of the stage of length q (W^2j), with
 * W^k = tw[k st]. Half the loads and stores of two radix-2 stages; j = 0
 * (@one) multiplies by W^q alone. Decimation in frequency runs the stage
 * of length 2q first, decimation in time last.
 */
static __always_inline void dif4(u64 *x, size_t q, const u64 *tw, size_t j, size_t st, int one,
				 struct ntt_mod m)
{
	u64 *x1 = x + q, *x2 = x1 + q, *x3 = x2 + q;

	if (one) {
		bfly_dif_one(x, x2, m);
		bfly_dif(x1, x3, tw[q * st], m);
		bfly_dif_one(x, x1, m);
		bfly_dif_one(x2, x3, m);
		return;
	}
	bfly_dif(x, x2, tw[j * st], m);
	bfly_dif(x1, x3, tw[(j + q) * st], m);
	bfly_dif(x, x1, tw[2 * j * st], m);
	bfly_dif(x2, x3, tw[2 * j * st], m);
}

static __always_inline void dit4(u64 *x, size_t q, const u64 *tw, size_t j, size_t st, int one,
				 struct ntt_mod m)
{
	u64 *x1 = x + q, *x2 = x1 + q, *x3 = x2 + q;

	if (one) {
		bfly_dit_one(x, x1, m);
		bfly_dit_one(x2, x3, m);
		bfly_dit_one(x, x2, m);
		bfly_dit(x1, x3, tw[q * st], m);
		return;
	}
	bfly_dit(x, x1, tw[2 * j * st], m);
	bfly_dit(x2, x3, tw[2 * j * st], m);
	bfly_dit(x, x2, tw[j * st], m);
	bfly_dit(x1, x3, tw[(j + q) * st], m);
}

/*
 * The two stages of dif4() (@dit 0) or dit4() over the blocks of 4q
 * points in a[0 .. n): one body, inlined into each direction's pass.
 */
static __always_inline void ntt4_pass(u64 *a, size_t n, size_t q, const u64 *tw, size_t st, int dit,
				      struct ntt_mod m)
{
	size_t blk, j;

	for (blk = 0; blk < n; blk += 4 * q) {
		if (dit) /* j = 0 apart: its first twiddles are 1 */
			dit4(a + blk, q, tw, 0, st, 1, m);
		else
			dif4(a + blk, q, tw, 0, st, 1, m);
		for (j = 1; j < q; j++) {
			if (dit)
				dit4(a + blk + j, q, tw, j, st, 0, m);
			else
				dif4(a + blk + j, q, tw, j, st, 0, m);
		}
	}
}

static void ntt_dif4_pass(u64 *a, size_t n, size_t q, const u64 *tw, size_t st, struct ntt_mod m)
{
	ntt4_pass(a, n, q, tw, st, 0, m);
}

static void ntt_dit4_pass(u64 *a, size_t n, size_t q, const u64 *tw, size_t st, struct ntt_mod m)
{
	ntt4_pass(a, n, q, tw, st, 1, m);
}

/*
 * The stages of a transform of n points, w_n^k = tw[k ts]: pairs of
 * stages, and with an odd number of stages one of length 1 (no twiddles),
 * last in frequency, first in time.
 */
static void ntt_dif_loop(u64 *a, size_t n, const u64 *tw, size_t ts, struct ntt_mod m)
{
	size_t q, blk;

	for (q = n / 4; q >= 1; q /= 4)
		ntt_dif4_pass(a, n, q, tw, ts * n / (4 * q), m);
	if (n & 0xaaaaaaaaaaaaaaaaULL) /* an odd power of two */
		for (blk = 0; blk < n; blk += 2)
			bfly_dif_one(a + blk, a + blk + 1, m);
}

/* a sub-transform of n points, w_n^k = tw[k ts] */
static void ntt_dif(u64 *a, size_t n, const u64 *tw, size_t ts, struct ntt_mod m)
{
	size_t q = n / 4;

	if (n <= NTT_BLOCK) {
		if (ts > 1) /* the block's own twiddles, after the table */
			ntt_dif_loop(a, n, tw + n * ts / 2, NTT_BLOCK / n, m);
		else
			ntt_dif_loop(a, n, tw, 1, m);
		return;
	}
	ntt_dif4_pass(a, n, q, tw, ts, m);
	bn_resched();
	ntt_dif(a, q, tw, 4 * ts, m);
	ntt_dif(a + q, q, tw, 4 * ts, m);
	ntt_dif(a + 2 * q, q, tw, 4 * ts, m);
	ntt_dif(a + 3 * q, q, tw, 4 * ts, m);
}

static void ntt_dit_loop(u64 *a, size_t n, const u64 *tw, size_t ts, struct ntt_mod m)
{
	size_t q = 1, blk;

	if (n & 0xaaaaaaaaaaaaaaaaULL) {
		for (blk = 0; blk < n; blk += 2)
			bfly_dit_one(a + blk, a + blk + 1, m);
		q = 2;
	}
	for (; 4 * q <= n; q *= 4)
		ntt_dit4_pass(a, n, q, tw, ts * n / (4 * q), m);
}

static void ntt_dit(u64 *a, size_t n, const u64 *tw, size_t ts, struct ntt_mod m)
{
	size_t q = n / 4;

	if (n <= NTT_BLOCK) {
		if (ts > 1) /* the block's own twiddles, after the table */
			ntt_dit_loop(a, n, tw + n * ts / 2, NTT_BLOCK / n, m);
		else
			ntt_dit_loop(a, n, tw, 1, m);
		return;
	}
	ntt_dit(a, q, tw, 4 * ts, m);
	ntt_dit(a + q, q, tw, 4 * ts, m);
	ntt_dit(a + 2 * q, q, tw, 4 * ts, m);
	ntt_dit(a + 3 * q, q, tw, 4 * ts, m);
	ntt_dit4_pass(a, n, q, tw, ts, m);
	bn_resched();
}

/*
 * The radix-3 stage of a length 3M: thirds a0, a1, a2 become
 * (a0 + a1 + a2, (a0 + e a1 + e^2 a2) w^j, (a0 + e^2 a1 + e a2) w^2j),
 * e = w^M a cube root of unity, w the N-th root (@inverse: the inverse
 * stage, for w^-1: twiddles first, then the sums). With e^2 = -1 - e,
 * u = e a1 + e^2 a2 = e (a1 - a2) - a2 gives the second sum a0 + u, the
 * third a0 - a1 - a2 - u: one product for the sums. The twiddle w^j is
 * w^k (a run of NTT_R3_RUN powers, k = j mod the run) times the run's
 * base w^(j - k): products independent of each other, not a chain.
 */
#define NTT_R3_RUN 16

static void ntt_radix3(u64 *x, size_t M, int inverse, const struct ntt_prime *P)
{
	u64 w = ntt_root(3 * M, P), e, run[NTT_R3_RUN], wrun, base = P->r1, p = P->p;
	size_t j, k;

	if (inverse)
		w = mont_pow(w, 3 * M - 1, P);
	e = mont_pow(w, M, P);
	run[0] = P->r1;
	for (k = 1; k < NTT_R3_RUN; k++)
		run[k] = mont_mul(run[k - 1], w, P);
	wrun = mont_mul(run[NTT_R3_RUN - 1], w, P);
	for (j = 0; j < M; j++) {
		u64 a0 = x[j], a1 = x[j + M], a2 = x[j + 2 * M], u, s, wj, w2j;

		k = j % NTT_R3_RUN;
		if (j && !k)
			base = mont_mul(base, wrun, P);
		wj = mont_mul(run[k], base, P);
		w2j = mont_mul(wj, wj, P);
		if (inverse) { /* from the lazy transforms, in [0, 4p) */
			a0 = mod_once(a0 >= 2 * p ? a0 - 2 * p : a0, p);
			a1 = mont_mul(a1, wj, P);
			a2 = mont_mul(a2, w2j, P);
		}
		u = mod_sub(mont_mul(mod_sub(a1, a2, p), e, P), a2, p);
		s = mod_add(a1, a2, p);
		x[j] = mod_add(a0, s, p);
		a1 = mod_sub(mod_sub(a0, s, p), u, p);
		a0 = mod_add(a0, u, p);
		if (!inverse) {
			a0 = mont_mul(a0, wj, P);
			a1 = mont_mul(a1, w2j, P);
		}
		x[j + M] = a0;
		x[j + 2 * M] = a1;
		if ((j & 0xffff) == 0xffff)
			bn_resched();
	}
}

/* the power-of-two part of a length: N itself, or N / 3 */
static size_t ntt_pow2(size_t N)
{
	return N & (N - 1) ? N / 3 : N;
}

/* x = a mod p, zero-padded to N points, then transformed (bit-reversed order) */
noinline void bn_ntt_fwd(u64 *x, const u64 *a, size_t an, size_t N, const u64 *tw, int prime)
{
	struct ntt_prime P;
	size_t i, M = ntt_pow2(N);

	ntt_prime_init(&P, prime);
	/*
	 * a limb mod p, fully (the radix-3 stage wants [0, p)), without a
	 * branch on the limb: p = 2^62 - d, d < 2^47, so v - (v >> 62) p =
	 * (v mod 2^62) + (v >> 62) d < 2p (a limb can reach 4p + 2^48: 4p <
	 * 2^64 here, a loop of subtractions ran up to four times)
	 */
	for (i = 0; i < an; i++) {
		u64 v = a[i];

		x[i] = mod_once(v - (v >> 62) * P.p, P.p);
	}
	bn_zero(x + an, N - an);
	if (M != N)
		ntt_radix3(x, M, 0, &P);
	for (i = 0; i < N; i += M)
		ntt_dif(x + i, M, tw, 1, ntt_mod_of(&P));
}

/*
 * x = x * y pointwise (y == x: squares), times R^-1 (undone by
 * bn_ntt_crt); forward transforms in [0, 2p), products in (0, 2p)
 */
noinline void bn_ntt_pointwise(u64 *x, const u64 *y, size_t N, int prime)
{
	struct ntt_prime P;
	struct ntt_mod m;
	size_t i;

	ntt_prime_init(&P, prime);
	m = ntt_mod_of(&P);
	for (i = 0; i < N; i++)
		x[i] = mont_lazy(x[i], y[i], m);
}

/* the inverse transform of x, natural order out, not yet divided by N */
noinline void bn_ntt_inv(u64 *x, size_t N, const u64 *tw, int prime)
{
	struct ntt_prime P;
	size_t i, M = ntt_pow2(N);

	ntt_prime_init(&P, prime);
	for (i = 0; i < N; i += M)
		ntt_dit(x + i, M, tw, 1, ntt_mod_of(&P));
	if (M != N)
		ntt_radix3(x, M, 1, &P);
}

/*
 * r (rn limbs) = sum of coefficient i * 2^(64 i), each coefficient from
 * its residues x[k][i] (each N R^-1 times the true residue): scaled, then
 * combined by Garner's method into three limbs, c = y1 + p1 (y2 + p2 y3).
 * x[0] may be r: limb i is written after residue i is read. What carries
 * past limb rn - 1 goes to @carry (two limbs), or nowhere when NULL (a
 * full product has none).
 */
noinline void bn_ntt_crt(u64 *r, size_t rn, u64 *const x[3], size_t N, u64 *carry)
{
	struct ntt_prime P[3];
	u64 scale[3], c12, c13, c23, acc0 = 0, acc1 = 0, acc2 = 0;
	size_t i;
	int k;

	for (k = 0; k < 3; k++) {
		ntt_prime_init(&P[k], k);
		/* (N R^-1)^-1 in Montgomery form: N^-1 R^2, so mont_mul(v, .) = v R / N */
		scale[k] = mont_pow(to_mont(N % P[k].p, &P[k]), P[k].p - 2, &P[k]);
		scale[k] = mont_mul(scale[k], P[k].r2, &P[k]);
	}
	/* p1^-1 mod p2, p1^-1 mod p3, p2^-1 mod p3, in Montgomery form */
	c12 = mont_pow(to_mont(P[0].p % P[1].p, &P[1]), P[1].p - 2, &P[1]);
	c13 = mont_pow(to_mont(P[0].p % P[2].p, &P[2]), P[2].p - 2, &P[2]);
	c23 = mont_pow(to_mont(P[1].p % P[2].p, &P[2]), P[2].p - 2, &P[2]);
	for (i = 0; i < rn; i++) {
		u64 y1 = mont_mul(x[0][i], scale[0], &P[0]);
		u64 y2 = mont_mul(x[1][i], scale[1], &P[1]);
		u64 y3 = mont_mul(x[2][i], scale[2], &P[2]);
		bn_u128 t, lo, hi;

		/* p1 > p2 > p3 > p1 / 2: one subtraction reduces a residue to the next prime */
		y2 = mont_mul(mod_sub(y2, mod_once(y1, P[1].p), P[1].p), c12, &P[1]);
		y3 = mont_mul(mod_sub(y3, mod_once(y1, P[2].p), P[2].p), c13, &P[2]);
		y3 = mont_mul(mod_sub(y3, mod_once(y2, P[2].p), P[2].p), c23, &P[2]);
		/* c = y1 + p1 t, t = y2 + p2 y3 < p2 p3 < 2^124 */
		t = (bn_u128)P[1].p * y3 + y2;
		lo = (bn_u128)P[0].p * (u64)t + y1;
		hi = (bn_u128)P[0].p * (u64)(t >> 64) + (u64)(lo >> 64);
		/* acc += c (three limbs); limb i is done */
		t = (bn_u128)acc0 + (u64)lo;
		acc0 = (u64)t;
		t = (bn_u128)acc1 + (u64)hi + (u64)(t >> 64);
		acc1 = (u64)t;
		acc2 += (u64)(hi >> 64) + (u64)(t >> 64);
		r[i] = acc0;
		acc0 = acc1;
		acc1 = acc2;
		acc2 = 0;
		if ((i & 0xffff) == 0xffff)
			bn_resched();
	}
	if (carry) {
		carry[0] = acc0;
		carry[1] = acc1;
	}
}

size_t bn_ntt_itch(size_t rn, int sqr)
{
	return __bn_ntt_itch(rn, sqr);
}

/*
 * Prime 0 runs in the vector prime 1 then reuses; its first rn residues
 * (the rest are the zero padding's) wait in r, which does not overlap a
 * or b. Prime 2 runs in the second vector, so a product holds three
 * vectors at most (two for a square) beside the twiddles.
 */
static void ntt_product(u64 *r, size_t rn, size_t N, const u64 *a, size_t an, const u64 *b,
			size_t bn, u64 *scratch, u64 *carry)
{
	u64 *v[2] = {scratch, scratch + N};
	u64 *tw = scratch + 2 * N, *y = tw + N / 2 + NTT_BLOCK / 2;
	u64 *x[3] = {r, v[0], v[1]};
	struct ntt_prime P;
	int k;

	for (k = 0; k < 3; k++) {
		u64 *w = v[k == 2];

		ntt_prime_init(&P, k);
		ntt_twiddles(tw, ntt_pow2(N), &P);
		bn_ntt_fwd(w, a, an, N, tw, k);
		if (b) {
			bn_ntt_fwd(y, b, bn, N, tw, k);
			bn_ntt_pointwise(w, y, N, k);
		} else {
			bn_ntt_pointwise(w, w, N, k);
		}
		ntt_twiddles_invert(tw, ntt_pow2(N), &P);
		bn_ntt_inv(w, N, tw, k);
		if (k == 0)
			bn_copyi(r, w, rn);
	}
	bn_ntt_crt(r, rn, x, N, carry);
}

/* r = a b (an + bn limbs), an, bn >= 1; scratch bn_ntt_itch(an + bn, 0) */
noinline void bn_mul_ntt(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn, u64 *scratch)
{
	ntt_product(r, an + bn, __bn_ntt_len(an + bn), a, an, b, bn, scratch, NULL);
}

/* r = a^2 (2n limbs); scratch bn_ntt_itch(2n, 1) */
noinline void bn_sqr_ntt(u64 *r, const u64 *a, size_t n, u64 *scratch)
{
	ntt_product(r, 2 * n, __bn_ntt_len(2 * n), a, n, NULL, n, scratch, NULL);
}

/*
 * r (N limbs) = a b mod (B^N - 1), N a transform length (__bn_ntt_len(N)
 * == N), 1 <= an, bn <= N: the cyclic convolution of length N (B^N = 1: each
 * coefficient still sums at most min(an, bn) products, within the three
 * primes' range), its carry past limb N - 1 added back at limb 0. r may
 * come out as B^N - 1, the other form of 0. Scratch bn_ntt_itch(N, 0).
 * GMP's mpn_mulmod_bnm1 serves its division the same way (the product
 * modulo B^N - 1 where the caller knows the result is small).
 */
noinline void bn_mulmod_bnm1(u64 *r, size_t N, const u64 *a, size_t an, const u64 *b, size_t bn,
			     u64 *scratch)
{
	u64 carry[2];

	ntt_product(r, N, N, a, an, b, bn, scratch, carry);
	bn_add_mod_bnm1(r, N, carry, 2);
}
