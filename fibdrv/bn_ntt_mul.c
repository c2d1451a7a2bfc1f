// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_ntt_mul.c - products by number-theoretic transforms (bn_ntt.c runs
 * the transforms): the twiddle tables, the three primes' passes, and the
 * recombination of each coefficient's residues into limbs.
 *
 * A full product cuts its operands into pieces of 80 to 88 bits, not
 * limbs, where that makes the transform shorter (__bn_ntt_shape()): a
 * coefficient of the product of two such polynomials is below min(na, nb)
 * 2^(2 bits), within the primes' range (p1 p2 p3 > 2^185) for
 * min(na, nb) up to __bn_ntt_cap(bits) (2^26 points at 80 bits, 2^10 at
 * 88), so the transform is 64/bits as long (F(10^7)'s last squares:
 * 98,304 points instead of 131,072; F(10^6)'s last product 8192 instead
 * of 12,288). A product modulo B^N - 1 keeps limbs: its cyclic
 * convolution wraps at a limb.
 */
#include "bn_ntt_impl.h"

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
 * r (rn limbs) = sum of coefficient i 2^(bits i), i < np, each coefficient
 * from its residues x[k][i] (each N R^-1 times the true residue): scaled,
 * then combined by Garner's method into three limbs, c = y1 + p1 (y2 + p2
 * y3), and added at its bit. x[0] may lie in r at r + rn - np: the limbs
 * written before coefficient i are those below bits i / 64 <= rn - np + i
 * (as bits (np - 1) < 64 rn), so no residue is overwritten before it is
 * read. What carries past limb rn - 1 goes to @carry (two limbs), or
 * nowhere when NULL (a full product has none).
 */
struct ntt_crt {
	struct ntt_prime P[3];
	u64 scale[3];	   /* (N R^-1)^-1 R per prime: mont_mul(v, scale) = v R / N */
	u64 c12, c13, c23; /* p1^-1 mod p2, p1^-1 mod p3, p2^-1 mod p3, Montgomery form */
};

/* coefficient i (three limbs, c[0] lowest) from its residues */
static __always_inline void ntt_crt_one(u64 c[3], u64 *const x[3], size_t i,
					const struct ntt_crt *C)
{
	const struct ntt_prime *P = C->P;
	u64 y1 = mont_mul(x[0][i], C->scale[0], &P[0]);
	u64 y2 = mont_mul(x[1][i], C->scale[1], &P[1]);
	u64 y3 = mont_mul(x[2][i], C->scale[2], &P[2]);
	bn_u128 t, lo, hi;

	/* p1 > p2 > p3 > p1 / 2: one subtraction reduces a residue to the next prime */
	y2 = mont_mul(mod_sub(y2, mod_once(y1, P[1].p), P[1].p), C->c12, &P[1]);
	y3 = mont_mul(mod_sub(y3, mod_once(y1, P[2].p), P[2].p), C->c13, &P[2]);
	y3 = mont_mul(mod_sub(y3, mod_once(y2, P[2].p), P[2].p), C->c23, &P[2]);
	/* c = y1 + p1 t, t = y2 + p2 y3 < p2 p3 < 2^124 */
	t = (bn_u128)P[1].p * y3 + y2;
	lo = (bn_u128)P[0].p * (u64)t + y1;
	hi = (bn_u128)P[0].p * (u64)(t >> 64) + (u64)(lo >> 64);
	c[0] = (u64)lo;
	c[1] = (u64)hi;
	c[2] = (u64)(hi >> 64);
}

/*
 * The recombination for pieces of @bits bits, a constant in each caller
 * (64: a coefficient per limb, no shifts): the running sum of the
 * coefficients not yet complete in acc[0..3], limb @out upwards.
 */
static __always_inline void ntt_crt_run(u64 *r, size_t rn, u64 *const x[3], size_t np,
					const unsigned int bits, const struct ntt_crt *C,
					u64 *carry)
{
	u64 acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
	size_t i, out = 0;

	for (i = 0; i < np; i++) {
		size_t pos = i * bits;
		unsigned int s = pos % 64;
		u64 c[3], c3 = 0;
		bn_u128 t;

		ntt_crt_one(c, x, i, C);
		if (s) { /* c < 2^186: c 2^s in four limbs */
			c3 = c[2] >> (64 - s);
			c[2] = c[2] << s | c[1] >> (64 - s);
			c[1] = c[1] << s | c[0] >> (64 - s);
			c[0] <<= s;
		}
		/* acc (limb pos / 64 up) += c 2^s: below 2^248 (three coefficients overlap) */
		t = (bn_u128)acc0 + c[0];
		acc0 = (u64)t;
		t = (bn_u128)acc1 + c[1] + (u64)(t >> 64);
		acc1 = (u64)t;
		t = (bn_u128)acc2 + c[2] + (u64)(t >> 64);
		acc2 = (u64)t;
		acc3 += c3 + (u64)(t >> 64);
		/*
		 * the limbs below the next coefficient's are complete: one, or two
		 * (bits > 64; past rn - 1 only after the last coefficient: none there)
		 */
		out = pos / 64;
		r[out++] = acc0;
		acc0 = acc1;
		acc1 = acc2;
		acc2 = acc3;
		acc3 = 0;
		if (bits > 64 && out < (pos + bits) / 64 && out < rn) {
			r[out++] = acc0;
			acc0 = acc1;
			acc1 = acc2;
			acc2 = 0;
		}
		if ((i & 0xffff) == 0xffff)
			bn_resched();
	}
	for (; out < rn; out++) {
		r[out] = acc0;
		acc0 = acc1;
		acc1 = acc2;
		acc2 = 0;
	}
	if (carry) {
		carry[0] = acc0;
		carry[1] = acc1;
	}
}

noinline void bn_ntt_crt(u64 *r, size_t rn, u64 *const x[3], size_t np, unsigned int bits, size_t N,
			 u64 *carry)
{
	struct ntt_crt C;
	struct ntt_prime *P = C.P;
	int k;

	for (k = 0; k < 3; k++) {
		ntt_prime_init(&P[k], k);
		/* (N R^-1)^-1 in Montgomery form: N^-1 R^2 */
		C.scale[k] = mont_pow(to_mont(N % P[k].p, &P[k]), P[k].p - 2, &P[k]);
		C.scale[k] = mont_mul(C.scale[k], P[k].r2, &P[k]);
	}
	C.c12 = mont_pow(to_mont(P[0].p % P[1].p, &P[1]), P[1].p - 2, &P[1]);
	C.c13 = mont_pow(to_mont(P[0].p % P[2].p, &P[2]), P[2].p - 2, &P[2]);
	C.c23 = mont_pow(to_mont(P[1].p % P[2].p, &P[2]), P[2].p - 2, &P[2]);
	if (bits == 64)
		ntt_crt_run(r, rn, x, np, 64, &C, carry);
	else
		ntt_crt_run(r, rn, x, np, bits, &C, carry);
}

size_t bn_ntt_itch(size_t rn, int sqr)
{
	return __bn_ntt_itch(rn, sqr);
}

size_t bn_mulmod_bnm1_itch(size_t Nw)
{
	return __bn_bnm1_itch(Nw);
}

/*
 * r (rn limbs) = the np coefficients of the product of a and b (b NULL:
 * a^2), read in @bits-bit pieces, by transforms of length N. Prime 0 runs
 * in the vector prime 1 then reuses; its np residues (the rest are the
 * zero padding's) wait at the top of r, which does not overlap a or b.
 * Prime 2 runs in the second vector, so a product holds three vectors at
 * most (two for a square) beside the twiddles.
 */
static void ntt_product(u64 *r, size_t rn, size_t np, unsigned int bits, size_t N, const u64 *a,
			size_t an, const u64 *b, size_t bn, u64 *scratch, u64 *carry)
{
	u64 *v[2] = {scratch, scratch + N};
	u64 *tw = scratch + 2 * N, *y = tw + N / 2 + NTT_BLOCK / 2;
	u64 *x[3] = {r + rn - np, v[0], v[1]};
	struct ntt_prime P;
	int k;

	for (k = 0; k < 3; k++) {
		u64 *w = v[k == 2];

		ntt_prime_init(&P, k);
		ntt_twiddles(tw, ntt_pow2(N), &P);
		bn_ntt_fwd(w, a, an, bits, N, tw, k);
		if (b) {
			bn_ntt_fwd(y, b, bn, bits, N, tw, k);
			bn_ntt_pointwise(w, y, N, k);
		} else {
			bn_ntt_pointwise(w, w, N, k);
		}
		ntt_twiddles_invert(tw, ntt_pow2(N), &P);
		bn_ntt_inv(w, N, tw, k);
		if (k == 0)
			bn_copyi(x[0], w, np);
	}
	bn_ntt_crt(r, rn, x, np, bits, N, carry);
}

/* r = a b (an + bn limbs), an, bn >= 1; scratch bn_ntt_itch(an + bn, 0) */
noinline void bn_mul_ntt(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn, u64 *scratch)
{
	struct bn_ntt_shape sh = __bn_ntt_shape(an, bn);

	ntt_product(r, an + bn, sh.np, sh.bits, sh.N, a, an, b, bn, scratch, NULL);
}

/* r = a^2 (2n limbs); scratch bn_ntt_itch(2n, 1) */
noinline void bn_sqr_ntt(u64 *r, const u64 *a, size_t n, u64 *scratch)
{
	struct bn_ntt_shape sh = __bn_ntt_shape(n, n);

	ntt_product(r, 2 * n, sh.np, sh.bits, sh.N, a, n, NULL, n, scratch, NULL);
}

/*
 * r (Nw limbs) = a b mod (B^Nw - 1), 1 <= an, bn <= Nw, Nw a transform
 * length (limbs) or bits N / 64 for a length N and pieces of 80..88 bits
 * within their cap (__bn_bnm1_size() picks it, __bn_bnm1_shape() reads
 * it back): the cyclic convolution of N points (2^(bits N) = B^Nw = 1:
 * each coefficient still sums at most min(na, nb) products, within the
 * three primes' range), its carry past limb Nw - 1 (below 2^(186 - 64)
 * with limbs, 2^(186 - 80) with pieces: two limbs) added back at limb 0.
 * r may come out as B^Nw - 1, the other form of 0. Scratch
 * bn_mulmod_bnm1_itch(Nw). GMP's mpn_mulmod_bnm1 serves its division the
 * same way (the product modulo B^N - 1 where the caller knows the result
 * is small).
 */
noinline void bn_mulmod_bnm1(u64 *r, size_t Nw, const u64 *a, size_t an, const u64 *b, size_t bn,
			     u64 *scratch)
{
	struct bn_ntt_shape sh = __bn_bnm1_shape(Nw);
	u64 carry[2];

	ntt_product(r, Nw, sh.np, sh.bits, sh.N, a, an, b, bn, scratch, carry);
	bn_add_mod_bnm1(r, Nw, carry, 2);
}
