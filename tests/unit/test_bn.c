// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of the fibdrv big-number library and algorithm registry,
 * everything checked against GMP.  One line per check group:
 * "PASS name", "FAIL name: reason" or "SKIP name: why"; exit 1 on a FAIL.
 *
 * Built twice: -O2 (full ranges) and with ASan+UBSan and -DBN_TEST_REDUCED
 * (all n up to 1500 instead of 5000, fewer random operands, n up to 10^6).
 */
#include <gmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fib_algo.h"
#include "bn_impl.h"

#ifdef BN_TEST_REDUCED
#define ALL_N_MAX 1500
#define RAND_ITERS 3
#define BIG_N 1000000ULL
#else
#define ALL_N_MAX 5000
#define RAND_ITERS 10
#define BIG_N 10000000ULL
#endif

static int failures;
static char fail_msg[512];
static int group_failed;

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (group_failed++)
		return;	/* keep the first reason */
	va_start(ap, fmt);
	vsnprintf(fail_msg, sizeof(fail_msg), fmt, ap);
	va_end(ap);
}

static void group_begin(void)
{
	group_failed = 0;
	fail_msg[0] = 0;
}

static void group_end(const char *name)
{
	size_t cur, peak;

	bn_mem_stats(&cur, &peak);
	if (!group_failed && cur != 0)
		fail("%zu bytes still allocated (leak)", cur);
	if (group_failed) {
		printf("FAIL %s: %s\n", name, fail_msg);
		failures++;
	} else {
		printf("PASS %s\n", name);
	}
	fflush(stdout);
}

/* ---- random operands ------------------------------------------------------ */

static u64 rng_state = 0x243f6a8885a308d3ULL;

static u64 rnd(void)
{
	u64 x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* random limbs with runs of all-ones / zero limbs and bit patterns */
static void rnd_limbs(u64 *x, size_t n)
{
	size_t i;
	int kind = (int)(rnd() % 6);

	for (i = 0; i < n; i++) {
		switch (kind) {
		case 0: x[i] = ~0ULL; break;
		case 1: x[i] = rnd() % 4 ? ~0ULL : rnd(); break;
		case 2: x[i] = rnd() % 4 ? 0 : rnd(); break;
		case 3: x[i] = rnd() >> (rnd() % 64); break;
		default: x[i] = rnd(); break;
		}
	}
	if (n && kind != 2 && x[n - 1] == 0)
		x[n - 1] = 1;
}

static void to_mpz(mpz_t z, const u64 *x, size_t n)
{
	mpz_import(z, n, -1, sizeof(u64), 0, 0, x);
}

/* r (n limbs) == z ? */
static int eq_mpz(const u64 *r, size_t n, const mpz_t z)
{
	mpz_t t;
	int eq;

	mpz_init(t);
	to_mpz(t, r, n);
	eq = mpz_cmp(t, z) == 0;
	mpz_clear(t);
	return eq;
}

static u64 *xalloc(size_t n)
{
	u64 *p = malloc((n ? n : 1) * sizeof(u64));

	if (!p) {
		printf("FAIL test.alloc: out of memory\n");
		exit(1);
	}
	return p;
}

static const size_t edge_sizes[] = {
	0,
	1,
	2,
	3,
	4,
	5,
	7,
	8,
	9,
	15,
	16,
	17,
	BN_MUL_KARATSUBA_THRESHOLD - 1,
	BN_MUL_KARATSUBA_THRESHOLD,
	BN_MUL_KARATSUBA_THRESHOLD + 1,
	BN_SQR_KARATSUBA_THRESHOLD - 1,
	BN_SQR_KARATSUBA_THRESHOLD,
	BN_SQR_KARATSUBA_THRESHOLD + 1,
	2 * BN_MUL_KARATSUBA_THRESHOLD + 1,
	BN_MUL_TOOM3_THRESHOLD - 1,
	BN_MUL_TOOM3_THRESHOLD,
	BN_MUL_TOOM3_THRESHOLD + 1,
	BN_SQR_TOOM3_THRESHOLD - 1,
	BN_SQR_TOOM3_THRESHOLD,
	BN_SQR_TOOM3_THRESHOLD + 1,
	3 * BN_MUL_TOOM3_THRESHOLD + 2,
	3 * BN_SQR_TOOM3_THRESHOLD + 1,
	1000,
	2500,
	BN_MUL_TOOM4_THRESHOLD - 1,
	BN_MUL_TOOM4_THRESHOLD,
	BN_MUL_TOOM4_THRESHOLD + 1,
	BN_SQR_TOOM4_THRESHOLD - 1,
	BN_SQR_TOOM4_THRESHOLD,
	BN_SQR_TOOM4_THRESHOLD + 1,
	4 * BN_MUL_TOOM4_THRESHOLD + 2,
	4 * BN_SQR_TOOM4_THRESHOLD + 3,
};
#define NEDGE (sizeof(edge_sizes) / sizeof(edge_sizes[0]))

/* ---- primitives ------------------------------------------------------------ */

static u64 rnd_limb(void)
{
	u64 w;

	rnd_limbs(&w, 1);
	return w;
}

static void test_addsub(void)
{
	size_t e, it, n, bn;
	mpz_t za, zb, zr;

	mpz_inits(za, zb, zr, NULL);
	group_begin();
	for (e = 0; e < NEDGE; e++) {
		for (it = 0; it < 4; it++) {
			u64 *a, *b, *r, c, w;

			n = edge_sizes[e];
			bn = n ? rnd() % (n + 1) : 0;
			a = xalloc(n + 1);
			b = xalloc(n + 1);
			r = xalloc(n + 2);
			rnd_limbs(a, n);
			rnd_limbs(b, n);
			to_mpz(za, a, n);
			to_mpz(zb, b, n);
			c = bn_add_n(r, a, b, n);
			r[n] = c;
			mpz_add(zr, za, zb);
			if (!eq_mpz(r, n + 1, zr))
				fail("bn_add_n n=%zu", n);
			memcpy(r, a, n * 8);
			r[n] = bn_add_n(r, r, b, n);
			if (!eq_mpz(r, n + 1, zr))
				fail("bn_add_n aliased n=%zu", n);
			c = bn_sub_n(r, a, b, n);
			mpz_sub(zr, za, zb);
			if ((mpz_sgn(zr) < 0) != (int)c)
				fail("bn_sub_n borrow n=%zu", n);
			mpz_fdiv_r_2exp(zr, zr, 64 * n);
			if (!eq_mpz(r, n, zr))
				fail("bn_sub_n n=%zu", n);
			to_mpz(zb, b, bn);
			r[n] = bn_add(r, a, n, b, bn);
			mpz_add(zr, za, zb);
			if (!eq_mpz(r, n + 1, zr))
				fail("bn_add n=%zu bn=%zu", n, bn);
			c = bn_sub(r, a, n, b, bn);
			mpz_sub(zr, za, zb);
			if ((mpz_sgn(zr) < 0) != (int)c)
				fail("bn_sub borrow n=%zu", n);
			mpz_fdiv_r_2exp(zr, zr, 64 * n);
			if (!eq_mpz(r, n, zr))
				fail("bn_sub n=%zu bn=%zu", n, bn);
			w = rnd_limb();
			c = bn_add_1(r, a, n, w);
			r[n] = c;
			mpz_add_ui(zr, za, w);
			if (n && !eq_mpz(r, n + 1, zr))
				fail("bn_add_1 n=%zu", n);
			c = bn_sub_1(r, a, n, w);
			mpz_sub_ui(zr, za, w);
			if (n && (mpz_sgn(zr) < 0) != (int)c)
				fail("bn_sub_1 borrow n=%zu", n);
			mpz_fdiv_r_2exp(zr, zr, 64 * n);
			if (n && !eq_mpz(r, n, zr))
				fail("bn_sub_1 n=%zu", n);
			if (bn_cmp(a, n, b, bn) != (mpz_cmp(za, zb) > 0) - (mpz_cmp(za, zb) < 0))
				fail("bn_cmp n=%zu bn=%zu", n, bn);
			free(a);
			free(b);
			free(r);
		}
	}
	group_end("bn.add_sub_cmp");
	mpz_clears(za, zb, zr, NULL);
}

static void test_shift_mul1_div1(void)
{
	size_t e, it, n;
	mpz_t za, zr, zq;

	mpz_inits(za, zr, zq, NULL);
	group_begin();
	for (e = 0; e < NEDGE; e++) {
		for (it = 0; it < 4; it++) {
			unsigned int cnt = 1 + (unsigned int)(rnd() % 63);
			u64 *a, *r, c, w, d;

			n = edge_sizes[e];
			a = xalloc(n + 1);
			r = xalloc(n + 2);
			rnd_limbs(a, n);
			to_mpz(za, a, n);
			r[n] = bn_lshift(r, a, n, cnt);
			mpz_mul_2exp(zr, za, cnt);
			if (n && !eq_mpz(r, n + 1, zr))
				fail("bn_lshift n=%zu cnt=%u", n, cnt);
			c = bn_rshift(r, a, n, cnt);
			mpz_fdiv_q_2exp(zr, za, cnt);
			if (!eq_mpz(r, n, zr) || (n && c != a[0] << (64 - cnt)))
				fail("bn_rshift n=%zu cnt=%u", n, cnt);
			w = rnd_limb();
			r[n] = bn_mul_1(r, a, n, w);
			mpz_mul_ui(zr, za, w);
			if (!eq_mpz(r, n + 1, zr))
				fail("bn_mul_1 n=%zu", n);
			/* addmul_1: r = a + a*w */
			memcpy(r, a, n * 8);
			r[n] = bn_addmul_1(r, a, n, w);
			mpz_add(zr, zr, za);
			if (!eq_mpz(r, n + 1, zr))
				fail("bn_addmul_1 n=%zu", n);
			/* submul_1: r = r - a*w = a, borrow 0 */
			c = bn_submul_1(r, a, n, w);
			if (c != r[n] || !eq_mpz(r, n, za))
				fail("bn_submul_1 n=%zu", n);
			/* divrem_1 with normalised and unnormalised divisors */
			d = it & 1 ? (rnd() | (1ULL << 63)) : (rnd() >> (rnd() % 64));
			if (it == 2)
				d = 10000000000000000000ULL;
			if (!d)
				d = 3;
			w = bn_divrem_1(r, a, n, d);
			mpz_tdiv_qr_ui(zq, zr, za, d);
			if (!eq_mpz(r, n, zq) || mpz_cmp_ui(zr, w))
				fail("bn_divrem_1 n=%zu d=%llu", n, d);
			/* divexact_by3 of 3a */
			r[n] = bn_mul_1(r, a, n, 3);
			bn_divexact_by3(r, r, n + 1);
			if (!eq_mpz(r, n + 1, za))
				fail("bn_divexact_by3 n=%zu", n);
			/* divexact_by5 of 5a */
			r[n] = bn_mul_1(r, a, n, 5);
			bn_divexact_by5(r, r, n + 1);
			if (!eq_mpz(r, n + 1, za))
				fail("bn_divexact_by5 n=%zu", n);
			free(a);
			free(r);
		}
	}
	group_end("bn.shift_mul1_divrem1_divexact3_5");
	mpz_clears(za, zr, zq, NULL);
}

/* scratch with a guard zone: catches writes past the documented itch */
#define GUARD 8
#define GUARD_VAL 0x5a5a5a5a5a5a5a5aULL

static u64 *guarded(size_t n)
{
	u64 *p = xalloc(n + GUARD);
	size_t i;

	for (i = 0; i < n + GUARD; i++)
		p[i] = GUARD_VAL;
	return p;
}

static int guard_ok(const u64 *p, size_t n)
{
	size_t i;

	for (i = n; i < n + GUARD; i++)
		if (p[i] != GUARD_VAL)
			return 0;
	return 1;
}

enum {
	M_BASE,
	M_SQRBASE,
	M_KARA,
	M_SQRKARA,
	M_TOOM,
	M_SQRTOOM,
	M_TOOM4,
	M_SQRTOOM4,
	M_MULN,
	M_SQRN,
	M_MUL,
	M_NTT,
	M_SQRNTT
};
static const char *mul_names[] = {"bn_mul_basecase",  "bn_sqr_basecase", "bn_mul_karatsuba",
				  "bn_sqr_karatsuba", "bn_mul_toom3",	 "bn_sqr_toom3",
				  "bn_mul_toom4",     "bn_sqr_toom4",	 "bn_mul_n",
				  "bn_sqr_n",	      "bn_mul",		 "bn_mul_ntt",
				  "bn_sqr_ntt"};

/* @ones: every limb 2^64 - 1, the largest convolution coefficients */
static void check_mul_fill(int which, size_t an, size_t bn, int ones)
{
	int sq = which == M_SQRBASE || which == M_SQRKARA || which == M_SQRTOOM ||
		 which == M_SQRTOOM4 || which == M_SQRN || which == M_SQRNTT;
	size_t rn = an + (sq ? an : bn), itch = bn_mul_itch(an, bn);
	u64 *a, *b, *r, *s;
	mpz_t za, zb, zr;

	if (which == M_NTT || which == M_SQRNTT)
		itch = bn_ntt_itch(rn, sq); /* exactly: the guard checks it */
	a = xalloc(an);
	b = xalloc(bn);
	r = guarded(rn);
	s = guarded(itch);
	mpz_inits(za, zb, zr, NULL);
	rnd_limbs(a, an);
	rnd_limbs(b, bn);
	if (ones) {
		memset(a, 0xff, an * sizeof(*a));
		memset(b, 0xff, bn * sizeof(*b));
	}
	switch (which) {
	case M_BASE: bn_mul_basecase(r, a, an, b, bn); break;
	case M_SQRBASE: bn_sqr_basecase(r, a, an); break;
	case M_KARA: bn_mul_karatsuba(r, a, b, an, s); break;
	case M_SQRKARA: bn_sqr_karatsuba(r, a, an, s); break;
	case M_TOOM: bn_mul_toom3(r, a, b, an, s); break;
	case M_SQRTOOM: bn_sqr_toom3(r, a, an, s); break;
	case M_TOOM4:
		bn_mul_toom4(r, a, b, an, s);
		break;
	case M_SQRTOOM4:
		bn_sqr_toom4(r, a, an, s);
		break;
	case M_MULN: bn_mul_n(r, a, b, an, s); break;
	case M_SQRN: bn_sqr_n(r, a, an, s); break;
	case M_MUL: bn_mul(r, a, an, b, bn, s); break;
	case M_NTT:
		bn_mul_ntt(r, a, an, b, bn, s);
		break;
	case M_SQRNTT:
		bn_sqr_ntt(r, a, an, s);
		break;
	}
	to_mpz(za, a, an);
	to_mpz(zb, sq ? a : b, sq ? an : bn);
	mpz_mul(zr, za, zb);
	if (!eq_mpz(r, rn, zr))
		fail("%s an=%zu bn=%zu wrong product", mul_names[which], an, bn);
	if (!guard_ok(r, rn) || !guard_ok(s, itch))
		fail("%s an=%zu bn=%zu wrote past its buffers", mul_names[which], an, bn);
	mpz_clears(za, zb, zr, NULL);
	free(a);
	free(b);
	free(r);
	free(s);
}

static void check_mul(int which, size_t an, size_t bn)
{
	check_mul_fill(which, an, bn, 0);
}

/* a b mod (B^N - 1) against GMP, in exactly bn_ntt_itch(N, 0) scratch; @ones: all limbs 2^64 - 1 */
static void check_mulmod_bnm1(size_t N, size_t an, size_t bn, int ones)
{
	size_t itch = bn_ntt_itch(N, 0);
	u64 *a = xalloc(an), *b = xalloc(bn), *r = guarded(N), *s = guarded(itch);
	mpz_t za, zb, zm, zr;

	mpz_inits(za, zb, zm, zr, NULL);
	rnd_limbs(a, an);
	rnd_limbs(b, bn);
	if (ones) {
		memset(a, 0xff, an * sizeof(*a));
		memset(b, 0xff, bn * sizeof(*b));
	}
	bn_mulmod_bnm1(r, N, a, an, b, bn, s);
	to_mpz(za, a, an);
	to_mpz(zb, b, bn);
	mpz_mul(zr, za, zb);
	mpz_set_ui(zm, 1);
	mpz_mul_2exp(zm, zm, 64 * N);
	mpz_sub_ui(zm, zm, 1);
	mpz_mod(zr, zr, zm);
	to_mpz(za, r, N); /* B^N - 1 is the other form of 0 */
	if (mpz_cmp(za, zm) == 0)
		mpz_set_ui(za, 0);
	if (mpz_cmp(za, zr) != 0)
		fail("bn_mulmod_bnm1 N=%zu an=%zu bn=%zu wrong", N, an, bn);
	if (!guard_ok(r, N) || !guard_ok(s, itch))
		fail("bn_mulmod_bnm1 N=%zu an=%zu bn=%zu wrote past its buffers", N, an, bn);
	mpz_clears(za, zb, zm, zr, NULL);
	free(a);
	free(b);
	free(r);
	free(s);
}

/*
 * The NTT (bn_ntt.c) on its own, at every small size, unbalanced, at and
 * around transform lengths (product sizes 2^k, 2^k + 1), with the largest
 * coefficients; and the dispatchers around its thresholds.
 */
static void test_ntt(void)
{
	static const size_t big[] = {1023, 1024, 1025, 2048, 4097, 33000};
	size_t n, i;

	group_begin();
	for (n = 1; n <= 80; n++) {
		check_mul(M_NTT, n, 1 + rnd() % n);
		check_mul(M_SQRNTT, n, n);
	}
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		check_mul(M_NTT, big[i], big[i] - big[i] / 3);
		check_mul_fill(M_NTT, big[i], big[i], 1);
		check_mul_fill(M_SQRNTT, big[i], big[i], 1);
		check_mul(M_SQRNTT, big[i], big[i]);
	}
	check_mul(M_NTT, 5000, 1);
	check_mul(M_NTT, 5000, 2);
	group_end("bn_mul_ntt/bn_sqr_ntt: sizes 1..80, 2^k +- 1, unbalanced, all-ones");
	group_begin();
	/* lengths 2^k and 3 2^k; operands up to N limbs (wrapping), one limb, all-ones */
	for (i = 0; i < 6; i++) {
		static const size_t lens[] = {4, 6, 64, 96, 1024, 12288};
		size_t N = lens[i];

		check_mulmod_bnm1(N, N, N, 0);
		check_mulmod_bnm1(N, N, N, 1);
		check_mulmod_bnm1(N, N - 1, N / 2 + 1, 0);
		check_mulmod_bnm1(N, N, 1, 0);
		check_mulmod_bnm1(N, 1, 1, 1);
	}
	group_end("bn_mulmod_bnm1: a b mod B^N - 1, N = 4..12288, full and short operands, all-ones");
	group_begin();
	for (n = BN_MUL_NTT_THRESHOLD - 1; n <= BN_MUL_NTT_THRESHOLD + 1; n++)
		check_mul(M_MULN, n, n);
	for (n = BN_SQR_NTT_THRESHOLD - 1; n <= BN_SQR_NTT_THRESHOLD + 1; n++)
		check_mul(M_SQRN, n, n);
	check_mul(M_MUL, 3 * BN_MUL_NTT_THRESHOLD + 7, BN_MUL_NTT_THRESHOLD + 5);
	check_mul(M_MUL, 2 * BN_MUL_NTT_THRESHOLD + 100, 2 * BN_MUL_NTT_THRESHOLD - 50);
	/* one transform of an + bn limbs (an < 2bn), at its edges and its worst
	 * padding: 6144 + 12287 limbs in 24576 points, past the slices' scratch */
	check_mul(M_MUL, BN_MUL_NTT_THRESHOLD + 1, BN_MUL_NTT_THRESHOLD);
	check_mul(M_MUL, 2 * BN_MUL_NTT_THRESHOLD - 1, BN_MUL_NTT_THRESHOLD);
	check_mul(M_MUL, 2 * BN_MUL_NTT_THRESHOLD, BN_MUL_NTT_THRESHOLD);
	if (BN_MUL_NTT_THRESHOLD <= 6144)
		check_mul_fill(M_MUL, 12287, 6144, 1);
	group_end("bn_mul_n/bn_sqr_n/bn_mul around the NTT thresholds");
}

static void test_mul(void)
{
	size_t e, n, it;
	int w;

	for (w = M_BASE; w <= M_MUL; w++) {
		group_begin();
		for (e = 0; e < NEDGE; e++) {
			n = edge_sizes[e];
			if (n == 0)
				continue;
			if ((w == M_KARA || w == M_SQRKARA) && n < 2)
				continue;
			if ((w == M_TOOM || w == M_SQRTOOM) && (n < 5))
				continue;
			if ((w == M_TOOM4 || w == M_SQRTOOM4) && n < 10)
				continue;
			for (it = 0; it < 3; it++) {
				size_t bn = n;

				if (w == M_BASE || w == M_MUL)
					bn = 1 + rnd() % n;
				check_mul(w, n, bn);
			}
		}
		for (it = 0; it < (size_t)RAND_ITERS * 4; it++) {
			n = 1 + rnd() % 700;
			if ((w == M_KARA || w == M_SQRKARA) && n < 2)
				n = 2;
			if ((w == M_TOOM || w == M_SQRTOOM) && n < 5)
				n = 5;
			if ((w == M_TOOM4 || w == M_SQRTOOM4) && n < 10)
				n = 10;
			check_mul(w, n, (w == M_BASE || w == M_MUL) ? 1 + rnd() % n : n);
		}
		if (w == M_MULN || w == M_SQRN || w == M_MUL)
			check_mul(w, 20000, w == M_MUL ? 7777 : 20000);
		group_end(mul_names[w]);
	}
}

/* ---- division and inverse --------------------------------------------------- */

/* bn_invert of an n-limb divisor against GMP: @kind 0 random, 1 B^n / 2, 2 all-ones */
static void check_invert(size_t n, int kind)
{
	u64 *d = xalloc(n), *v = xalloc(n + 1);
	mpz_t zd, zx;

	mpz_inits(zd, zx, NULL);
	rnd_limbs(d, n);
	if (kind)
		memset(d, kind == 1 ? 0 : 0xff, n * 8);
	d[n - 1] |= 1ULL << 63;
	if (bn_invert(v, d, n)) {
		fail("bn_invert n=%zu failed", n);
	} else {
		to_mpz(zd, d, n);
		mpz_set_ui(zx, 1);
		mpz_mul_2exp(zx, zx, 128 * n);
		mpz_tdiv_q(zx, zx, zd);
		if (!eq_mpz(v, n + 1, zx))
			fail("bn_invert n=%zu wrong", n);
	}
	mpz_clears(zd, zx, NULL);
	free(d);
	free(v);
}

/* bn_divrem of x (xn limbs) by d (n limbs) against GMP */
static void check_divrem(const u64 *x, size_t xn, const u64 *d, size_t n)
{
	u64 *q = xalloc(xn - n + 1), *r = xalloc(n);
	mpz_t zd, zx, zq, zr;
	int err;

	mpz_inits(zd, zx, zq, zr, NULL);
	to_mpz(zd, d, n);
	to_mpz(zx, x, xn);
	err = bn_divrem(q, r, x, xn, d, n);
	mpz_tdiv_qr(zq, zr, zx, zd);
	if (err)
		fail("bn_divrem xn=%zu dn=%zu error %d", xn, n, err);
	else if (!eq_mpz(q, xn - n + 1, zq) || !eq_mpz(r, n, zr))
		fail("bn_divrem xn=%zu dn=%zu wrong", xn, n);
	mpz_clears(zd, zx, zq, zr, NULL);
	free(q);
	free(r);
}

/*
 * bn_divisor_init_sq: d = e^2's inverse started from e's (the conversion's
 * powers), within a few units of floor(B^(2 dn) / dh) as Barrett needs;
 * e's top limb cut by @cut bits (the shifts of e and d differ)
 */
static void check_divisor_sq(size_t T1, unsigned int cut)
{
	u64 *e = xalloc(T1), *d = xalloc(2 * T1), *s = xalloc(bn_sqr_n_itch(T1));
	struct bn_divisor he = {0}, hd = {0};
	size_t dn;
	mpz_t zd, zv, zw;

	mpz_inits(zd, zv, zw, NULL);
	rnd_limbs(e, T1);
	e[T1 - 1] = (e[T1 - 1] | 1ULL << 63) >> cut;
	bn_sqr_n(d, e, T1, s);
	dn = bn_normalized_size(d, 2 * T1);
	if (bn_divisor_init_inv(&he, e, T1, T1, 0) || bn_divisor_init_sq(&hd, d, dn, &he)) {
		fail("bn_divisor_init_sq T1=%zu failed", T1);
	} else {
		to_mpz(zd, hd.dh, dn);
		mpz_set_ui(zw, 1);
		mpz_mul_2exp(zw, zw, 128 * dn);
		mpz_tdiv_q(zw, zw, zd);
		to_mpz(zv, hd.v, dn + 1);
		mpz_sub(zv, zv, zw);
		if (mpz_cmpabs_ui(zv, 8) > 0)
			fail("bn_divisor_init_sq T1=%zu cut=%u: inverse %s units off", T1, cut,
			     mpz_sgn(zv) > 0 ? "many" : "-many");
	}
	bn_divisor_release(&he);
	bn_divisor_release(&hd);
	mpz_clears(zd, zv, zw, NULL);
	free(e);
	free(d);
	free(s);
}

static void test_invert_divrem(void)
{
	size_t it, n, xn;

	group_begin();
	for (it = 0; it < 60 * (size_t)RAND_ITERS; it++) {
		n = it < 20 ? it + 1 : 1 + rnd() % (it % 7 ? 200 : 3000);
		check_invert(n, it % 5 < 3 ? (int)(it % 5) : 0);
	}
	group_end("bn_invert");

	/* where the Newton step's d vh is taken modulo B^Nw - 1 (n, h + 1 past the NTT threshold) */
	group_begin();
	for (it = 0; it < 6; it++)
		check_invert(2 * BN_MUL_NTT_THRESHOLD + 1 + rnd() % BN_MUL_NTT_THRESHOLD, (int)(it % 3));
	group_end("bn_invert past the NTT threshold (d vh modulo B^Nw - 1)");

	group_begin();
	for (it = 0; it < 12; it++) {
		static const size_t t1[] = {BN_DIVISOR_SQ_MIN, 17, 33, 100, 1001, BN_MUL_NTT_THRESHOLD + 3};

		check_divisor_sq(t1[it % 6], it < 6 ? 0 : (unsigned int)(1 + rnd() % 63));
	}
	group_end("bn_divisor_init_sq: a square's inverse from its root's, a few units off at most");

	group_begin();
	for (it = 0; it < 80 * (size_t)RAND_ITERS; it++) {
		u64 *d, *x;

		n = it < 30 ? it / 3 + 1 : 1 + rnd() % (it % 9 ? 150 : 2000);
		xn = n + rnd() % (n + 1);
		d = xalloc(n);
		x = xalloc(xn);
		rnd_limbs(d, n);
		if (!d[n - 1])
			d[n - 1] = 1;
		if (it % 4 == 0)
			d[n - 1] >>= rnd() % 64;
		if (!d[n - 1])
			d[n - 1] = 1;
		rnd_limbs(x, xn);
		if (xn == 2 * n && bn_cmp_n(x + n, d, n) >= 0)
			x[xn - 1] = 0;	/* keep the quotient within n limbs */
		if (xn == 2 * n && bn_cmp_n(x + n, d, n) >= 0)
			memset(x + n, 0, n * 8);
		check_divrem(x, xn, d, n);
		free(d);
		free(x);
	}
	{
		u64 d[2] = { 5, 1 }, x[5] = { 1, 2, 3, 4, 5 }, q[4], r[2];

		if (bn_divrem(q, r, x, 5, d, 2) != -EINVAL)
			fail("bn_divrem accepted xn > 2 dn");
		if (bn_divrem(q, r, x, 4, d, 2) != -EINVAL)
			fail("bn_divrem accepted a quotient longer than dn limbs");
	}
	group_end("bn_divrem");

	/*
	 * Divisors past the NTT threshold, quotients too: q d modulo B^Nw - 1
	 * (bn_divrem_wrap_len); random, B^n / 2 and all-ones divisors (the
	 * approximate inverse's hardest), x up to 2 dn limbs
	 */
	group_begin();
	for (it = 0; it < 6; it++) {
		u64 *d, *x;

		n = BN_MUL_NTT_THRESHOLD + 1 + rnd() % (2 * BN_MUL_NTT_THRESHOLD);
		xn = it < 3 ? 2 * n : n + BN_MUL_NTT_THRESHOLD + rnd() % (n - BN_MUL_NTT_THRESHOLD);
		d = xalloc(n);
		x = xalloc(xn);
		rnd_limbs(d, n);
		if (it % 3 == 1)
			memset(d, 0, n * 8);
		else if (it % 3 == 2)
			memset(d, 0xff, n * 8);
		d[n - 1] |= 1ULL << 63;
		rnd_limbs(x, xn);
		if (xn == 2 * n)
			memset(x + n, 0, n * 8); /* the quotient within n limbs */
		if (xn == 2 * n)
			rnd_limbs(x + n, n - 1);
		check_divrem(x, xn, d, n);
		free(d);
		free(x);
	}
	group_end("bn_divrem past the NTT threshold (q d modulo B^Nw - 1)");
}

/* ---- conversions --------------------------------------------------------- */

static int check_dec(const char *what, const u64 *x, size_t n, const mpz_t z, int which)
{
	size_t cap = bn_dec_bound(n);
	char *buf = malloc(cap + 1), *g = mpz_get_str(NULL, 10, z);
	long len;
	int ok;

	if (which == 0)
		len = bn_to_dec_simple(x, n, buf, cap);
	else if (which == 1)
		len = bn_to_dec_dc(x, n, buf, cap);
	else
		len = bn_to_dec(x, n, buf, cap);
	ok = len == (long)strlen(g) && !memcmp(buf, g, (size_t)len);
	if (!ok)
		fail("%s n=%zu: got %ld digits, want %zu", what, n, len, strlen(g));
	/* the bound is that of the normalised size */
	cap = bn_dec_bound(bn_normalized_size(x, n));
	if (ok && (which == 0 ? bn_to_dec_simple : which == 1 ? bn_to_dec_dc : bn_to_dec)(
			  x, n, buf, cap - 1) != -ENOSPC)
		fail("%s n=%zu: accepted cap < bn_dec_bound", what, n);
	free(buf);
	free(g);
	return ok;
}

static void test_dec(void)
{
	static const char *names[] = { "bn_to_dec_simple", "bn_to_dec_dc", "bn_to_dec" };
	size_t it, n, k;
	int which;
	mpz_t z, p;

	mpz_inits(z, p, NULL);
	for (which = 0; which < 3; which++) {
		group_begin();
		for (it = 0; it < 40 * (size_t)RAND_ITERS; it++) {
			u64 *x;

			n = it < 60 ? it : 1 + rnd() % (it % 10 ? 300 : 4000);
			x = xalloc(n + 1);
			rnd_limbs(x, n);
			to_mpz(z, x, n);
			check_dec(names[which], x, n, z, which);
			free(x);
		}
		/* 10^k - 1, 10^k, 10^k + 1 around the powers 10^(19 2^j) */
		for (k = 1; k <= (which == 0 ? 4000u : 40000u); k = k < 40 ? k + 1 : k * 3 / 2) {
			size_t ks[3] = { k, 19 * k, 19 * ((size_t)1 << (k % 12)) };
			size_t j;
			int delta;

			for (j = 0; j < 3; j++) {
				for (delta = -1; delta <= 1; delta++) {
					size_t xn;
					u64 *x;

					mpz_ui_pow_ui(z, 10, ks[j]);
					if (delta < 0)
						mpz_sub_ui(z, z, 1);
					else if (delta > 0)
						mpz_add_ui(z, z, 1);
					xn = (mpz_sizeinbase(z, 2) + 63) / 64;
					x = xalloc(xn + 1);
					memset(x, 0, (xn + 1) * 8);
					mpz_export(x, NULL, -1, 8, 0, 0, z);
					check_dec(names[which], x, xn + (delta == 0), z, which);
					free(x);
				}
			}
		}
		group_end(names[which]);
	}

	group_begin();
	for (it = 0; it < 30 * (size_t)RAND_ITERS; it++) {
		struct bn x = BN_INIT, y = BN_INIT;
		char *s, *bin;
		long len;

		n = 1 + rnd() % 500;
		s = malloc(n + 1);
		for (k = 0; k < n; k++)
			s[k] = (char)('0' + rnd() % 10);
		if (it % 3 == 0)
			s[0] = '0';
		s[n] = 0;
		mpz_set_str(z, s, 10);
		if (bn_from_dec(&x, s, n) || !eq_mpz(x.limbs, x.size, z))
			fail("bn_from_dec len=%zu", n);
		if (x.size && x.limbs[x.size - 1] == 0)
			fail("bn_from_dec: size not normalised");
		bin = malloc(bn_bin_size(&x) + 1);
		len = bn_to_bin(&x, bin, bn_bin_size(&x));
		if (len != (long)bn_bin_size(&x) || len != (long)(8 * x.size))
			fail("bn_to_bin size");
		if (x.size && bn_to_bin(&x, bin, bn_bin_size(&x) - 1) != -ENOSPC)
			fail("bn_to_bin accepted a short buffer");
		if (bn_from_bin(&y, bin, (size_t)len) || bn_cmp_val(&x, &y))
			fail("bn_from_bin round trip");
		free(bin);
		free(s);
		bn_release(&x);
		bn_release(&y);
	}
	{
		struct bn x = BN_INIT;

		if (bn_from_dec(&x, "12a", 3) != -EINVAL || bn_from_dec(&x, "", 0) != -EINVAL)
			fail("bn_from_dec accepted a non-digit or an empty string");
		bn_release(&x);
	}
	group_end("bn_from_dec_bin");
	mpz_clears(z, p, NULL);
}

/* ---- value type -------------------------------------------------------- */

static void test_values(void)
{
	size_t it;
	mpz_t za, zb, zr;

	mpz_inits(za, zb, zr, NULL);
	group_begin();
	for (it = 0; it < 50 * (size_t)RAND_ITERS; it++) {
		struct bn a = BN_INIT, b = BN_INIT, r = BN_INIT;
		size_t an = rnd() % 300, bn = rnd() % 300;

		if (bn_init(&a, an + 1) || bn_init(&b, bn + 1)) {
			fail("bn_init");
			break;
		}
		rnd_limbs(a.limbs, an);
		rnd_limbs(b.limbs, bn);
		a.size = bn_normalized_size(a.limbs, an);
		b.size = bn_normalized_size(b.limbs, bn);
		to_mpz(za, a.limbs, a.size);
		to_mpz(zb, b.limbs, b.size);
		if (bn_add_val(&r, &a, &b) || (mpz_add(zr, za, zb), !eq_mpz(r.limbs, r.size, zr)))
			fail("bn_add_val");
		if (bn_mul_val(&r, &a, &b) || (mpz_mul(zr, za, zb), !eq_mpz(r.limbs, r.size, zr)))
			fail("bn_mul_val");
		if (bn_sqr_val(&r, &a) || (mpz_mul(zr, za, za), !eq_mpz(r.limbs, r.size, zr)))
			fail("bn_sqr_val");
		if (r.size && r.limbs[r.size - 1] == 0)
			fail("size not normalised");
		if (mpz_cmp(za, zb) >= 0) {
			if (bn_sub_val(&r, &a, &b) || (mpz_sub(zr, za, zb), !eq_mpz(r.limbs, r.size, zr)))
				fail("bn_sub_val");
		} else if (bn_sub_val(&r, &a, &b) != -EINVAL) {
			fail("bn_sub_val of a negative result");
		}
		/* aliasing: a = a + a, a = a * b */
		if (bn_add_val(&a, &a, &a) || (mpz_add(za, za, za), !eq_mpz(a.limbs, a.size, za)))
			fail("bn_add_val aliased");
		if (bn_mul_val(&a, &a, &b) || (mpz_mul(za, za, zb), !eq_mpz(a.limbs, a.size, za)))
			fail("bn_mul_val aliased");
		if (bn_copy(&r, &a) || bn_cmp_val(&r, &a))
			fail("bn_copy");
		if (bn_set_u64(&r, 0) || r.size != 0 || bn_set_u64(&r, 42) || r.size != 1 ||
		    r.limbs[0] != 42)
			fail("bn_set_u64");
		if (bn_reserve(&r, 1000) || r.cap < 1000 || r.limbs[0] != 42)
			fail("bn_reserve");
		bn_release(&a);
		bn_release(&b);
		bn_release(&r);
		if (a.limbs || a.size || a.cap)
			fail("bn_release");
	}
	group_end("bn.values");
	mpz_clears(za, zb, zr, NULL);
}

/* ---- algorithms -------------------------------------------------------- */

/* v == F(n)?  both formats, exact sizes, guard bytes */
static int check_value(const struct fib_algo *a, struct fib_value *v, unsigned long n, mpz_t zf,
		       int check_dec_fmt)
{
	long size, len;
	char *buf, *g;
	int f;

	mpz_fib_ui(zf, n);
	for (f = 0; f < 2; f++) {
		if (f == 0 && !check_dec_fmt)
			continue;
		size = fib_format_size(v, (enum fib_format)f);
		if (size < 0) {
			fail("%s n=%lu format %d size error %ld", a->name, n, f, size);
			return 0;
		}
		buf = malloc((size_t)size + 1);
		buf[size] = 0x7f;
		len = fib_format(v, (enum fib_format)f, buf, (size_t)size);
		if (len != size || buf[size] != 0x7f) {
			fail("%s n=%lu format %d wrote %ld of %ld bytes", a->name, n, f, len, size);
			free(buf);
			return 0;
		}
		if (f == 0) {
			g = mpz_get_str(NULL, 10, zf);
			if ((size_t)len != strlen(g) || memcmp(buf, g, (size_t)len)) {
				fail("%s n=%lu decimal differs from GMP", a->name, n);
				free(g);
				free(buf);
				return 0;
			}
			free(g);
		} else {
			mpz_t t;
			int ok;

			mpz_init(t);
			mpz_import(t, (size_t)len, -1, 1, 0, 0, buf);
			ok = mpz_cmp(t, zf) == 0 && (len == 0 || buf[len - 1] != 0 || 1) &&
			     len % 8 == 0 && (len == 0 || ((const u64 *)(const void *)buf)[len / 8 - 1]);
			mpz_clear(t);
			if (!ok) {
				fail("%s n=%lu binary differs from GMP (or not minimal)", a->name, n);
				free(buf);
				return 0;
			}
		}
		free(buf);
	}
	return 1;
}

static int compute_check(const struct fib_algo *a, unsigned long n, mpz_t zf, int dec)
{
	struct fib_value v = FIB_VALUE_INIT;
	int err = fib_compute(a, n, &v), ok;

	if (err) {
		fail("%s n=%lu error %d", a->name, n, err);
		return 0;
	}
	ok = check_value(a, &v, n, zf, dec);
	fib_value_release(&v);
	return ok;
}

static void test_algorithms(void)
{
	unsigned int i;
	char name[128];
	mpz_t zf;

	mpz_init(zf);
	for (i = 0; i < fib_algo_count; i++) {
		const struct fib_algo *a = &fib_algos[i];
		unsigned long n, lim = a->max_n < ALL_N_MAX ? a->max_n : ALL_N_MAX;
		clock_t t0;
		int it;

		group_begin();
		for (n = 0; n <= lim; n++)
			if (!compute_check(a, n, zf, 1))
				break;
		snprintf(name, sizeof(name), "%s.all_n_0_%lu", a->name, lim);
		group_end(name);

		if (a->max_n <= ALL_N_MAX)
			continue;
		group_begin();
		t0 = clock();
		for (it = 0; it < 6; it++) {
			u64 cap = a->max_n < 1000000 ? a->max_n : 1000000;

			n = ALL_N_MAX + rnd() % (cap - ALL_N_MAX + 1);
			if (it == 0)
				n = cap;
			/* the slow ones: a single large n is enough */
			if (it > 0 && a->max_n < 1000000)
				break;
			if (!compute_check(a, n, zf, 1))
				break;
			if ((double)(clock() - t0) / CLOCKS_PER_SEC > 8)
				break;
		}
		snprintf(name, sizeof(name), "%s.random_n_to_%llu", a->name,
			 a->max_n < 1000000 ? a->max_n : 1000000ULL);
		group_end(name);

		if (a->max_n < 5000000)
			continue;
#ifdef BN_TEST_REDUCED
		printf("SKIP %s.n_to_10^7: reduced range in the sanitizer build\n", a->name);
		continue;
#endif
		group_begin();
		for (it = 0; it < 3; it++) {
			u64 cap = a->max_n < BIG_N ? a->max_n : BIG_N;

			n = it == 0 ? cap : 1000000 + rnd() % (cap - 1000000);
			if (!compute_check(a, n, zf, a->max_n >= 100000000))
				break;
		}
		snprintf(name, sizeof(name), "%s.n_to_%llu", a->name,
			 a->max_n < BIG_N ? a->max_n : BIG_N);
		group_end(name);
	}
	mpz_clear(zf);
}

static void test_registry(void)
{
	const struct fib_algo *d = fib_algo_default();
	struct fib_value v = FIB_VALUE_INIT;
	static const char *names[] = { "iter64", "fdouble64", "fdouble64-clz", "str-add",
				       "bn-iter", "bn-fdouble", "bn-fdouble-sqr",
				       "bn-fdouble-karatsuba" };
	char buf[64];
	unsigned int i;
	long r;

	group_begin();
	if (fib_algo_count != 8)
		fail("fib_algo_count %u", fib_algo_count);
	for (i = 0; i < 8; i++) {
		size_t l = strlen(names[i]);

		memcpy(buf, names[i], l);
		buf[l] = '\n';
		buf[l + 1] = 'X';	/* not NUL-terminated within len */
		if (fib_algo_find(names[i], l) != &fib_algos[i] ||
		    fib_algo_find(buf, l + 1) != &fib_algos[i] || fib_algo_find(buf, l) != &fib_algos[i])
			fail("fib_algo_find(%s)", names[i]);
		if (fib_algo_find(buf, l - 1) || fib_algo_find(buf, l + 2))
			fail("fib_algo_find accepted a prefix or trailing junk of %s", names[i]);
	}
	if (fib_algo_find("nope", 4) || fib_algo_find("", 0) || fib_algo_find(NULL, 3))
		fail("fib_algo_find found an unknown name");
	if (strcmp(d->name, "bn-fdouble-karatsuba"))
		fail("default is %s", d->name);
	for (i = 0; i < 3; i++) {
		if (fib_algos[i].max_n != 93 || fib_compute(&fib_algos[i], 94, &v) != -EOVERFLOW)
			fail("%s: n = 94 must give -EOVERFLOW", fib_algos[i].name);
		if (fib_compute(&fib_algos[i], 93, &v) || v.num.size != 1 ||
		    v.num.limbs[0] != 12200160415121876738ULL)
			fail("%s: F(93)", fib_algos[i].name);
	}
	for (i = 3; i < 8; i++)
		if (fib_algos[i].max_n == ~0ULL ||
		    fib_compute(&fib_algos[i], fib_algos[i].max_n + 1, &v) != -E2BIG)
			fail("%s: n > max_n must give -E2BIG", fib_algos[i].name);
	if (d->max_n < 10000000)
		fail("default cap below 10^7");
	if (fib_compute(NULL, 1, &v) != -EINVAL || fib_compute(d, 1, NULL) != -EINVAL)
		fail("fib_compute accepted NULL");
	if (v.has_num || v.has_dec)
		fail("failed compute left a value");
	/* empty value, bad format, short buffers, F(0) */
	if (fib_format_size(&v, FIBDRV_FORMAT_DEC) != -EINVAL)
		fail("empty value formatted");
	if (fib_compute(d, 0, &v) || fib_format_size(&v, FIBDRV_FORMAT_BIN) != 0 ||
	    fib_format_size(&v, FIBDRV_FORMAT_DEC) != 1 ||
	    fib_format(&v, FIBDRV_FORMAT_DEC, buf, 1) != 1 || buf[0] != '0')
		fail("F(0): dec \"0\", bin 0 bytes");
	if (fib_format_size(&v, (enum fib_format)7) != -EINVAL)
		fail("unknown format accepted");
	for (i = 0; i < 8; i++) {
		int f;

		for (f = 0; f < 2; f++) {
			long size;

			if (fib_compute(&fib_algos[i], 90, &v))
				fail("%s F(90)", fib_algos[i].name);
			size = fib_format_size(&v, (enum fib_format)f);
			memset(buf, 0x7f, sizeof(buf));
			r = fib_format(&v, (enum fib_format)f, buf, (size_t)size - 1);
			if (r != -ENOSPC || buf[size - 1] != 0x7f || buf[0] != 0x7f)
				fail("%s format %d: cap one short gave %ld or wrote", fib_algos[i].name, f, r);
		}
	}
	fib_value_release(&v);
	fib_value_release(&v);	/* twice is fine */
	group_end("fib.registry_errnos_exact_size");

	/* allocation failures: every path frees what it took */
	group_begin();
	for (i = 3; i < 8; i++) {
		long k;

		for (k = 0; k < 40; k++) {
			int err, f;

			bn_mem_fail_after(k);
			err = fib_compute(&fib_algos[i], 3000, &v);
			for (f = 0; !err && f < 2; f++) {
				r = fib_format_size(&v, (enum fib_format)f);
				if (r < 0 && r != -ENOMEM)
					fail("%s: format errno %ld under allocation failure",
					     fib_algos[i].name, r);
			}
			bn_mem_fail_after(-1);
			if (err && err != -ENOMEM)
				fail("%s: errno %d under allocation failure", fib_algos[i].name, err);
			fib_value_release(&v);
			{
				size_t cur, peak;

				bn_mem_stats(&cur, &peak);
				if (cur)
					fail("%s: %zu bytes leaked after failing allocation %ld",
					     fib_algos[i].name, cur, k);
			}
		}
	}
	{
		/* D&C conversion of F(10^5) with each of its first allocations failing */
		struct fib_value w = FIB_VALUE_INIT;
		long k;

		if (fib_compute(d, 100000, &w))
			fail("F(10^5)");
		for (k = 0; k < 200; k++) {
			size_t cur, peak, before;
			char *out = malloc(bn_dec_bound(w.num.size));

			bn_mem_stats(&before, &peak);
			bn_mem_fail_after(k);
			r = bn_to_dec_dc(w.num.limbs, w.num.size, out, bn_dec_bound(w.num.size));
			bn_mem_fail_after(-1);
			bn_mem_stats(&cur, &peak);
			if (r < 0 && r != -ENOMEM)
				fail("bn_to_dec_dc errno %ld", r);
			if (cur != before)
				fail("bn_to_dec_dc leaked after failing allocation %ld", k);
			free(out);
			if (r > 0)
				break;
		}
		/*
		 * k allocations made by the conversion that succeeded: the powers,
		 * their divisors' Newton inversions and one scratch, per level (81
		 * for F(10^5)'s 1085 limbs), not two per division as when each node
		 * of the recursion allocated its own (217).
		 */
		if (k > 100)
			fail("bn_to_dec_dc of F(10^5) made %ld allocations (at most 100)", k);
		fib_value_release(&w);
	}
	group_end("fib.enomem_paths_free_everything");
}

/* One n: the formula's size against the formatted value's, both formats. */
static void check_result_size(const struct fib_algo *a, u64 n, long *undecided)
{
	struct fib_value v = FIB_VALUE_INIT;
	int f;

	if (fib_compute(a, n, &v)) {
		fail("F(%llu) failed", (unsigned long long)n);
		return;
	}
	for (f = FIBDRV_FORMAT_DEC; f <= FIBDRV_FORMAT_BIN; f++) {
		long want = fib_format_size(&v, (enum fib_format)f);
		long got = fib_result_size(n, (enum fib_format)f);

		if (got == -EAGAIN)
			(*undecided)++;
		else if (got != want)
			fail("F(%llu) format %d: formula %ld, value %ld", (unsigned long long)n, f,
			     got, want);
	}
	fib_value_release(&v);
}

/* fib_result_size() (FIBDRV_IOC_RESULT_SIZE) against the computed values. */
static void test_result_size(void)
{
	const struct fib_algo *a = fib_algo_default();
	long undecided = 0;
	u64 n;
	int i;

	group_begin();
	for (n = 0; n <= 3000; n++)
		check_result_size(a, n, &undecided);
#ifndef BN_TEST_REDUCED
	for (i = 0; i < 300; i++)
		check_result_size(a, 3000 + rnd() % 400000, &undecided);
	check_result_size(a, 1000000, &undecided);
#endif
	(void)i;
	if (fib_result_size(5, (enum fib_format)7) != -EINVAL)
		fail("unknown format accepted");
	if (undecided > 2)
		fail("%ld sizes left undecided (expected about 2^-29 of them)", undecided);
	group_end("fib.result_size_formula");
}

int main(void)
{
	clock_t t0 = clock();

	test_addsub();
	test_shift_mul1_div1();
	test_mul();
	test_ntt();
	test_invert_divrem();
	test_dec();
	test_values();
	test_registry();
	test_algorithms();
	test_result_size();
	fprintf(stderr, "unit_bn: %d failure(s), %.1f s CPU\n", failures,
		(double)(clock() - t0) / CLOCKS_PER_SEC);
	return failures ? 1 : 0;
}
