/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bn_ntt_impl.h - arithmetic modulo the NTT's three primes, shared by the
 * transforms (bn_ntt.c) and the products around them (bn_ntt_mul.c):
 * Montgomery products (R = 2^64), powers, each prime's constants.
 */
#ifndef BN_NTT_IMPL_H
#define BN_NTT_IMPL_H

#include "bn_impl.h"

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
static inline u64 mont_pow(u64 x, u64 e, const struct ntt_prime *P)
{
	u64 r = P->r1;

	for (; e; e >>= 1) {
		if (e & 1)
			r = mont_mul(r, x, P);
		x = mont_mul(x, x, P);
	}
	return r;
}

static inline void ntt_prime_init(struct ntt_prime *P, int i)
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
static inline u64 ntt_root(size_t n, const struct ntt_prime *P)
{
	return mont_pow(to_mont(P->g, P), (P->p - 1) / n, P);
}

/*
 * Sub-transforms at most BN_NTT_BLOCK long (bn_impl.h) run their stages in
 * a loop (in L1/L2), with the twiddles of a transform of that length
 * copied after the table (tw + M / 2, M the power-of-two length): there
 * they are contiguous, in the table they are M / BN_NTT_BLOCK apart.
 */
#define NTT_BLOCK BN_NTT_BLOCK

/* the power-of-two part of a length: N itself, or N / 3 */
static inline size_t ntt_pow2(size_t N)
{
	return N & (N - 1) ? N / 3 : N;
}

#endif
