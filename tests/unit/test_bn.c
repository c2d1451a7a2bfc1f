// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of the fibdrv big-number library and algorithm registry,
 * everything checked against GMP: the arithmetic here (additions, shifts,
 * every multiplication, the NTT), inversion and division in test_bn_div.c,
 * the conversions and algorithms in test_bn_fib.c, the harness in
 * bn_check.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bn_check.h"
#include "bn_ntt_impl.h"

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
	for (e = 0; e < nedge; e++) {
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
	for (e = 0; e < nedge; e++) {
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

/* the product (or square of a) by @which against GMP, with guards behind r and the scratch */
static void check_product(int which, const u64 *a, size_t an, const u64 *b, size_t bn)
{
	int sq = which == M_SQRBASE || which == M_SQRKARA || which == M_SQRTOOM ||
		 which == M_SQRTOOM4 || which == M_SQRN || which == M_SQRNTT;
	size_t rn = an + (sq ? an : bn), itch = bn_mul_itch(an, bn);
	u64 *r, *s;
	mpz_t za, zb, zr;

	if (which == M_NTT || which == M_SQRNTT)
		itch = bn_ntt_itch(rn, sq); /* exactly: the guard checks it */
	r = guarded(rn);
	s = guarded(itch);
	mpz_inits(za, zb, zr, NULL);
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
	free(r);
	free(s);
}

/*
 * Random operands; @ones 1: every limb 2^64 - 1, the largest convolution
 * coefficients; 2: every other limb of a, then b (past 4p for the NTT)
 * beside random ones
 */
static void fill_operands(u64 *a, size_t an, u64 *b, size_t bn, int ones)
{
	rnd_limbs(a, an);
	rnd_limbs(b, bn);
	if (ones == 1) {
		memset(a, 0xff, an * sizeof(*a));
		memset(b, 0xff, bn * sizeof(*b));
	}
	for (size_t i = 0; ones == 2 && i < an + bn; i += 2) /* every other limb 2^64 - 1 >= 4p */
		(i < an ? a : b)[i < an ? i : i - an] = ~0ULL;
}

/* check_product() of fill_operands() */
static void check_mul_fill(int which, size_t an, size_t bn, int ones)
{
	u64 *a = xalloc(an), *b = xalloc(bn);

	fill_operands(a, an, b, bn, ones);
	check_product(which, a, an, b, bn);
	free(a);
	free(b);
}

static void check_mul(int which, size_t an, size_t bn)
{
	check_mul_fill(which, an, bn, 0);
}

/* a b mod (B^N - 1) against GMP in exactly bn_mulmod_bnm1_itch(N) scratch, fill_operands() */
static void check_mulmod_bnm1(size_t N, size_t an, size_t bn, int ones)
{
	size_t itch = bn_mulmod_bnm1_itch(N);
	u64 *a = xalloc(an), *b = xalloc(bn), *r = guarded(N), *s = guarded(itch);
	mpz_t za, zb, zm, zr;

	mpz_inits(za, zb, zm, zr, NULL);
	fill_operands(a, an, b, bn, ones);
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
/*
 * The operands the fuzzer found (tests/fuzz/regressions/bn/
 * ntt-limb-past-4p-radix3): limbs past 4p (4p < 2^64 for these primes)
 * reduced to [p, 2p), which the radix-3 stage of a 192-point transform
 * does not take; the product came out wrong.
 */
static void check_ntt_limbs_past_4p(void)
{
	static const u64 a[] = {0x7878787878787864ULL, 0x7878787878787878ULL, 0x7878787878787878ULL,
				0x7878787878787878ULL, 0x7878787878787878ULL, 0x0000000000787878ULL,
				0x7878787878000000ULL};
	static const u64 head[] = {0x7878787878787878ULL, 0x0000000178787878ULL,
				   0x7878787800000000ULL, 0x7878787878787878ULL,
				   0xffffffffff000078ULL};
	u64 b[139];
	size_t i;

	for (i = 0; i < 139; i++)
		b[i] = i < 5 ? head[i] : ~0ULL;
	check_product(M_NTT, a, 7, b, 139);
}

/*
 * The pieces' widths (__bn_ntt_shape): each cap is the largest count of
 * points whose coefficients stay below the primes' product P, checked
 * with GMP; and for each width from 80 to 88 bits the largest n below
 * 8000 whose n x n product takes it (the most points, nearest its cap)
 * multiplied with all-ones operands, the largest coefficients.
 */
static void test_ntt_pieces(void)
{
	size_t n, widest[BN_NTT_BITS_MAX + 1] = {0};
	unsigned int b;
	mpz_t P, m, t;

	group_begin();
	mpz_inits(P, m, t, NULL);
	mpz_set_ui(P, 1);
	for (b = 0; b < 3; b++)
		mpz_mul_ui(P, P, ntt_p[b]);
	for (b = BN_NTT_BITS_MIN; b <= BN_NTT_BITS_MAX; b++) {
		mpz_ui_pow_ui(m, 2, b);
		mpz_sub_ui(m, m, 1);
		mpz_mul(m, m, m);
		mpz_mul_ui(t, m, __bn_ntt_cap(b));
		if (mpz_cmp(t, P) >= 0)
			fail("__bn_ntt_cap(%u) = %zu: its coefficients reach P", b,
			     __bn_ntt_cap(b));
		mpz_add(t, t, m);
		if (mpz_cmp(t, P) < 0)
			fail("__bn_ntt_cap(%u) = %zu: one more point still fits", b,
			     __bn_ntt_cap(b));
	}
	mpz_clears(P, m, t, NULL);
	for (n = 1; n < 8000; n++)
		widest[__bn_ntt_shape(n, n).bits] = n;
	for (b = BN_NTT_BITS_MIN; b <= BN_NTT_BITS_MAX; b++) {
		if (!widest[b]) {
			fail("no n x n product below 8000 limbs takes %u-bit pieces", b);
			continue;
		}
		check_mul_fill(M_SQRNTT, widest[b], widest[b], 1);
		check_mul_fill(M_NTT, widest[b], widest[b], 1);
		check_mul(M_NTT, widest[b], widest[b]);
	}
	group_end("NTT pieces: caps against GMP, each width 80..88 at its most points, all-ones");
}

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
	/* limbs past 4p beside others, at lengths 3 2^k (the radix-3 stage wants [0, p)) */
	check_mul_fill(M_NTT, 7, 139, 2);
	check_mul_fill(M_NTT, 139, 7, 2);
	check_mul_fill(M_SQRNTT, 48, 48, 2);
	check_mul_fill(M_NTT, 1025, 1025, 2);
	check_mul_fill(M_SQRNTT, 1025, 1025, 2);
	check_mul_fill(M_NTT, 4000, 4000, 2);
	check_ntt_limbs_past_4p();
	group_end("bn_mul_ntt/bn_sqr_ntt: sizes 1..80, 2^k +- 1, unbalanced, all-ones, past 4p");
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
	/* lengths __bn_bnm1_size() makes of 80..88-bit pieces (5403 -> 86 bits x 4096 = 5504 limbs)
	 */
	for (i = 0; i < 4; i++) {
		static const size_t need[] = {300, 1000, 5403, 9000};
		size_t N = __bn_bnm1_size(need[i], need[i], need[i]);

		if (__bn_bnm1_shape(N).bits == 64 && need[i] == 5403)
			fail("__bn_bnm1_size(5403) = %zu: limbs, not pieces", N);
		check_mulmod_bnm1(N, N, N, 0);
		check_mulmod_bnm1(N, N, N, 1);
		check_mulmod_bnm1(N, N - 1, N / 2 + 1, 0);
		check_mulmod_bnm1(N, N, 1, 0);
		check_mulmod_bnm1(N, 1, 1, 1);
	}
	group_end("bn_mulmod_bnm1: a b mod B^N - 1, N = 4..12288 in limbs and in pieces, full and "
		  "short operands, all-ones");
	group_begin();
	for (n = BN_MUL_NTT_THRESHOLD - 1; n <= BN_MUL_NTT_THRESHOLD + 1; n++)
		check_mul(M_MULN, n, n);
	for (n = BN_SQR_NTT_THRESHOLD - 1; n <= BN_SQR_NTT_THRESHOLD + 1; n++)
		check_mul(M_SQRN, n, n);
	/* every size where __bn_ntt_pays() changes its mind, and the size below */
	for (n = BN_NTT_FULL_MIN; n <= BN_SQR_NTT_THRESHOLD + 1; n++) {
		if (__bn_ntt_pays(n, BN_MUL_NTT_THRESHOLD) !=
		    __bn_ntt_pays(n - 1, BN_MUL_NTT_THRESHOLD)) {
			check_mul(M_MULN, n - 1, n - 1);
			check_mul(M_MULN, n, n);
		}
		if (__bn_ntt_pays(n, BN_SQR_NTT_THRESHOLD) !=
		    __bn_ntt_pays(n - 1, BN_SQR_NTT_THRESHOLD)) {
			check_mul(M_SQRN, n - 1, n - 1);
			check_mul(M_SQRN, n, n);
		}
	}
	check_mul(M_MUL, 3 * BN_MUL_NTT_THRESHOLD + 7, BN_MUL_NTT_THRESHOLD + 5);
	check_mul(M_MUL, 2 * BN_MUL_NTT_THRESHOLD + 100, 2 * BN_MUL_NTT_THRESHOLD - 50);
	/* one transform of an + bn limbs (an < 2bn), at its edges and its worst
	 * padding: 6144 + 12287 limbs in 24576 points, past the slices' scratch */
	check_mul(M_MUL, BN_MUL_NTT_THRESHOLD + 1, BN_MUL_NTT_THRESHOLD);
	check_mul(M_MUL, 2 * BN_MUL_NTT_THRESHOLD - 1, BN_MUL_NTT_THRESHOLD);
	check_mul(M_MUL, 2 * BN_MUL_NTT_THRESHOLD, BN_MUL_NTT_THRESHOLD);
	if (BN_MUL_NTT_THRESHOLD <= 6144)
		check_mul_fill(M_MUL, 12287, 6144, 1);
	group_end("bn_mul_n/bn_sqr_n/bn_mul around the NTT thresholds and full transforms");
}

static void test_mul(void)
{
	size_t e, n, it;
	int w;

	for (w = M_BASE; w <= M_MUL; w++) {
		group_begin();
		for (e = 0; e < nedge; e++) {
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

int main(void)
{
	clock_t t0 = clock();

	test_addsub();
	test_shift_mul1_div1();
	test_mul();
	test_ntt();
	test_ntt_pieces();
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
