// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_ntt.c - number-theoretic transforms modulo one of three primes, the
 * stages of the products above Toom-4 (bn_ntt_mul.c), integer arithmetic
 * only (no FPU in the kernel).
 *
 * An operand's pieces (limbs or 80-88 bits, __bn_ntt_shape() says which)
 * are the coefficients of a polynomial; per prime p < 2^62 (3 2^40 |
 * p - 1): the forward transform (decimation in frequency, natural order
 * in, bit-reversed out), the pointwise product, the inverse transform
 * (decimation in time, bit-reversed in, natural out).
 *
 * The length N is 2^k or 3 2^k, whichever is the smaller at least the
 * product's points (padding wastes at most a third, not half): a length
 * 3M runs one radix-3 stage over the thirds and three power-of-two
 * transforms of M points.
 *
 * Residues are kept lazily reduced (below 2p or 4p: the butterflies,
 * below); twiddles are in Montgomery form (w R mod p, R = 2^64), so one
 * Montgomery product d * (w R) R^-1 = d w needs no conversion of the
 * data. The transforms go two stages at a time and recurse on quarters
 * once larger than NTT_BLOCK, so each sub-transform runs in cache. Never
 * allocates, never fails (layer 1 of bn.h).
 */
#include "bn_ntt_impl.h"

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

/*
 * x[0..n) = the @bits-bit pieces of a (an limbs) mod p, fully reduced, n =
 * __bn_ntt_pts(an, bits), 64 < bits <= 88: piece i is bits [bits i,
 * bits i + bits) of a. With p = 2^62 - d, d < 2^47, a step v -> (v mod
 * 2^62) + (v >> 62) d keeps v mod p: a piece below 2^88 falls below 2^62
 * + 2^73 after one step, below 2^62 + 2^59 < 2p after the second.
 */
static size_t ntt_read_pieces(u64 *x, const u64 *a, size_t an, unsigned int bits, u64 p)
{
	const u64 m62 = (1ULL << 62) - 1, d = (1ULL << 62) - p;
	const u64 hmask = (1ULL << (bits - 64)) - 1;
	size_t i, n = __bn_ntt_pts(an, bits);

	for (i = 0; i < n; i++) {
		size_t pos = i * bits, j = pos / 64;
		unsigned int s = pos % 64;
		u64 l1 = j + 1 < an ? a[j + 1] : 0, l2 = j + 2 < an ? a[j + 2] : 0;
		u64 lo = s ? a[j] >> s | l1 << (64 - s) : a[j];
		u64 hi = (s ? l1 >> s | l2 << (64 - s) : l1) & hmask;
		bn_u128 t = (bn_u128)(lo & m62) + (bn_u128)(hi << 2 | lo >> 62) * d;
		u64 v = ((u64)t & m62) + (u64)(t >> 62) * d;

		x[i] = mod_once(v, p);
	}
	return n;
}

/*
 * x = a mod p, read in @bits-bit pieces (64: limbs), zero-padded to N
 * points, then transformed (bit-reversed order)
 */
noinline void bn_ntt_fwd(u64 *x, const u64 *a, size_t an, unsigned int bits, size_t N,
			 const u64 *tw, int prime)
{
	struct ntt_prime P;
	size_t i, n = an, M = ntt_pow2(N);

	ntt_prime_init(&P, prime);
	/*
	 * a limb mod p, fully (the radix-3 stage wants [0, p)), without a
	 * branch on the limb: p = 2^62 - d, d < 2^47, so v - (v >> 62) p =
	 * (v mod 2^62) + (v >> 62) d < 2p (a limb can reach 4p + 2^48: 4p <
	 * 2^64 here, a loop of subtractions ran up to four times)
	 */
	if (bits > 64)
		n = ntt_read_pieces(x, a, an, bits, P.p);
	else
		for (i = 0; i < an; i++) {
			u64 v = a[i];

			x[i] = mod_once(v - (v >> 62) * P.p, P.p);
		}
	bn_zero(x + n, N - n);
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
