// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the big-number library and every Fibonacci algorithm
 * against GMP. Built with ASan and UBSan by `make fuzz`; any difference
 * traps, so libFuzzer saves the input as a crash file.
 *
 * Input layout: op (1 byte), pattern (1), size of a (2), size of b (2),
 * seed (8), then bytes that overwrite the low limbs of a and then b. The
 * operands are grown from the seed so that short inputs reach the Karatsuba
 * and Toom-3 sizes; the pattern byte picks random, all-ones, sparse or
 * top-bit-only limbs, the carry-heavy shapes that break arithmetic.
 */
#include <gmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bn_impl.h"
#include "fib_algo.h"
#include "fuzz_check.h"

#define MAX_LIMBS 600 /* above the Toom-3 thresholds */

enum op {
	OP_ADD,
	OP_SUB,
	OP_MUL,
	OP_SQR,
	OP_TO_DEC,
	OP_FROM_DEC,
	OP_DIVREM,
	OP_BIN,
	OP_FIB,
	OP_NTT,
	OP_COUNT
};

struct operands {
	u64 *a, *b;
	size_t an, bn;
};

static u64 splitmix(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void fill(u64 *x, size_t n, unsigned int pattern, u64 *seed)
{
	for (size_t i = 0; i < n; i++) {
		switch (pattern % 4) {
		case 0:
			x[i] = splitmix(seed);
			break;
		case 1:
			x[i] = ~0ULL;
			break;
		case 2:
			x[i] = splitmix(seed) % 7 == 0 ? splitmix(seed) : 0;
			break;
		default:
			x[i] = 1ULL << 63;
			break;
		}
	}
	if (n)
		x[n - 1] |= 1; /* keep the stated size significant */
}

static void to_mpz(mpz_t z, const u64 *x, size_t n)
{
	mpz_import(z, n, -1, sizeof(u64), 0, 0, x);
}

static void check_limbs(const u64 *x, size_t n, const mpz_t want)
{
	mpz_t got;

	mpz_init(got);
	to_mpz(got, x, n);
	CHECK(mpz_cmp(got, want) == 0);
	mpz_clear(got);
}

static void check_value(const struct bn *x, const mpz_t want)
{
	check_limbs(x->limbs, x->size, want);
}

static int set_value(struct bn *x, const u64 *limbs, size_t n)
{
	if (bn_init(x, n ? n : 1))
		return -1;
	memcpy(x->limbs, limbs, n * sizeof(u64));
	x->size = bn_normalized_size(x->limbs, n);
	return 0;
}

static void fuzz_arith(enum op op, const struct operands *o, mpz_t za, mpz_t zb, mpz_t want)
{
	struct bn a = BN_INIT, b = BN_INIT, r = BN_INIT;
	int ret;

	CHECK(!set_value(&a, o->a, o->an) && !set_value(&b, o->b, o->bn));
	switch (op) {
	case OP_ADD:
		ret = bn_add_val(&r, &a, &b);
		mpz_add(want, za, zb);
		break;
	case OP_SUB:
		ret = bn_sub_val(&r, &a, &b);
		if (mpz_cmp(za, zb) < 0) {
			CHECK(ret == -EINVAL);
			goto out;
		}
		mpz_sub(want, za, zb);
		break;
	case OP_MUL:
		/* in place too: r aliases a */
		ret = bn_copy(&r, &a) || bn_mul_val(&r, &r, &b);
		mpz_mul(want, za, zb);
		break;
	default:
		ret = bn_sqr_val(&r, &a);
		mpz_mul(want, za, za);
		break;
	}
	CHECK(ret == 0);
	check_value(&r, want);
out:
	bn_release(&a);
	bn_release(&b);
	bn_release(&r);
}

/*
 * The NTT product and square, and Toom-4's, directly (the
 * dispatchers reach them only above a thousand limbs): every length up to
 * MAX_LIMBS (Toom-4 from 10), both radixes, with the largest of their
 * scratch sizes and a guard limb behind it.
 */
static void fuzz_ntt(const struct operands *o, mpz_t za, mpz_t zb, mpz_t want)
{
	size_t an = o->an ? o->an : 1, bn = o->bn ? o->bn : 1, itch, sq;
	u64 *r, *s;

	itch = bn_ntt_itch(an + bn, 0);
	sq = bn_ntt_itch(2 * an, 1);
	itch = itch > sq ? itch : sq;
	sq = bn_mul_itch(an > bn ? an : bn, an > bn ? an : bn); /* Toom-4 from 10 limbs */
	itch = itch > sq ? itch : sq;
	r = calloc(2 * (an > bn ? an : bn), sizeof(u64));
	s = calloc(itch + 1, sizeof(u64));
	CHECK(r && s);
	s[itch] = 0x5a5a5a5a5a5a5a5aULL;
	bn_mul_ntt(r, o->a, an, o->b, bn, s);
	mpz_mul(want, za, zb);
	check_limbs(r, an + bn, want);
	bn_sqr_ntt(r, o->a, an, s);
	mpz_mul(want, za, za);
	check_limbs(r, 2 * an, want);
	if (an >= 10) {
		bn_sqr_toom4(r, o->a, an, s);
		check_limbs(r, 2 * an, want);
	}
	if (an >= 10 && bn >= 10) { /* Toom-4's product is balanced: the low m limbs of each */
		size_t m = an < bn ? an : bn;
		mpz_t lo;

		bn_mul_toom4(r, o->a, o->b, m, s);
		mpz_init(lo);
		mpz_tdiv_r_2exp(want, za, 64 * m);
		mpz_tdiv_r_2exp(lo, zb, 64 * m);
		mpz_mul(want, want, lo);
		mpz_clear(lo);
		check_limbs(r, 2 * m, want);
	}
	CHECK(s[itch] == 0x5a5a5a5a5a5a5a5aULL);
	free(r);
	free(s);
}

static void fuzz_to_dec(const struct operands *o, mpz_t za)
{
	size_t cap = bn_dec_bound(o->an ? o->an : 1);
	char *want = mpz_get_str(NULL, 10, za);
	size_t want_len = strlen(want);
	char *buf = malloc(cap);
	long (*convert[])(const u64 *, size_t, char *, size_t) = { bn_to_dec_simple, bn_to_dec_dc, bn_to_dec };

	CHECK(buf != NULL);
	for (size_t i = 0; i < sizeof(convert) / sizeof(convert[0]); i++) {
		long len = convert[i](o->a, o->an, buf, cap);

		CHECK(len == (long)want_len && !memcmp(buf, want, want_len));
	}
	free(buf);
	free(want);
}

static void fuzz_from_dec(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct bn x = BN_INIT;
	mpz_t want;
	size_t len = 0;

	CHECK(text != NULL);
	for (size_t i = 0; i < size; i++)
		text[len++] = (char)('0' + data[i] % 10);
	text[len] = '\0';
	mpz_init(want);
	if (len == 0) {
		CHECK(bn_from_dec(&x, text, 0) == -EINVAL);
	} else {
		CHECK(bn_from_dec(&x, text, len) == 0);
		mpz_set_str(want, text, 10);
		check_value(&x, want);
	}
	bn_release(&x);
	mpz_clear(want);
	free(text);
}

/*
 * A quotient longer than d, as the conversion divides by its powers:
 * how 0: by d padded with zero limbs to T = qn + 1 limbs (its inverse to
 * T limbs), one step; 1: by blocks of dn limbs (bn_divrem_long_scr); 2:
 * by blocks of a padded divisor's T > dn limbs, q written over x (the
 * conversion's chain)
 */
static void fuzz_divrem_long(const struct operands *o, size_t dn, int how, mpz_t za, mpz_t zb)
{
	size_t qn = o->an - dn + 1, T = how == 0 && qn + 1 > dn ? qn + 1 : dn;
	size_t itch;
	u64 *q = calloc(o->an, sizeof(u64)), *r = calloc(dn, sizeof(u64)), *scr;
	struct bn_divisor dv;
	mpz_t wq, wr;

	if (how == 2)
		T = dn + 1 + o->an % (dn + 1);
	itch = how ? bn_divrem_long_itch(T, dn, o->an) : bn_divrem_itch_sizes(T, dn, o->an);
	scr = calloc(itch, sizeof(u64));
	CHECK(q && r && scr);
	CHECK(bn_divisor_init(&dv, o->b, dn, T) == 0);
	if (how == 2) {
		memcpy(q, o->a, o->an * sizeof(u64));
		CHECK(bn_divrem_long_scr(&dv, q, r, q, o->an, scr) == 0);
	} else {
		CHECK((how ? bn_divrem_long_scr(&dv, q, r, o->a, o->an, scr)
			   : bn_divrem_by_scr(&dv, q, r, o->a, o->an, scr)) == 0);
	}
	mpz_inits(wq, wr, NULL);
	mpz_tdiv_qr(wq, wr, za, zb);
	check_limbs(q, qn, wq);
	check_limbs(r, dn, wr);
	mpz_clears(wq, wr, NULL);
	bn_divisor_release(&dv);
	free(q);
	free(r);
	free(scr);
}

static void fuzz_divrem(const struct operands *o, mpz_t za, mpz_t zb)
{
	size_t dn = bn_normalized_size(o->b, o->bn);
	u64 *q, *r;
	int ret;
	mpz_t wq, wr;

	if (dn == 0 || o->an < dn)
		return;
	fuzz_divrem_long(o, dn, 0, za, zb);
	fuzz_divrem_long(o, dn, 1, za, zb);
	fuzz_divrem_long(o, dn, 2, za, zb);
	q = calloc(o->an - dn + 1, sizeof(u64));
	r = calloc(dn, sizeof(u64));
	CHECK(q && r);
	ret = bn_divrem(q, r, o->a, o->an, o->b, dn);
	/* Its domain (bn_div.c): x < B^(2 dn) with a quotient of at most dn limbs. */
	if (o->an > 2 * dn || (dn > 1 && o->an == 2 * dn && bn_cmp_n(o->a + dn, o->b, dn) >= 0)) {
		CHECK(ret == -EINVAL);
		goto out;
	}
	CHECK(ret == 0);
	mpz_inits(wq, wr, NULL);
	mpz_tdiv_qr(wq, wr, za, zb);
	check_limbs(q, o->an - dn + 1, wq);
	check_limbs(r, dn, wr);
	mpz_clears(wq, wr, NULL);
out:
	free(q);
	free(r);
}

static void fuzz_bin(const struct operands *o, mpz_t za)
{
	struct bn x = BN_INIT, back = BN_INIT;
	size_t size;
	char *buf;

	CHECK(!set_value(&x, o->a, o->an));
	size = bn_bin_size(&x);
	buf = malloc(size + 1);
	CHECK(buf != NULL);
	CHECK(bn_to_bin(&x, buf, size) == (long)size);
	if (size)
		CHECK(bn_to_bin(&x, buf, size - 1) < 0);
	CHECK(bn_from_bin(&back, buf, size) == 0);
	check_value(&back, za);
	bn_release(&x);
	bn_release(&back);
	free(buf);
}

static void fuzz_fib(const uint8_t *data, size_t size)
{
	const struct fib_algo *algo;
	struct fib_value value = FIB_VALUE_INIT;
	char *buf;
	long len;
	u64 n;
	mpz_t want, got;

	if (size < 3)
		return;
	algo = &fib_algos[data[0] % fib_algo_count];
	n = ((u64)data[1] << 8 | data[2]) % 4000;
	if (n > algo->max_n) {
		CHECK(fib_compute(algo, n, &value) < 0);
		return;
	}
	CHECK(fib_compute(algo, n, &value) == 0);
	mpz_inits(want, got, NULL);
	mpz_fib_ui(want, n);
	for (int format = FIBDRV_FORMAT_DEC; format <= FIBDRV_FORMAT_BIN; format++) {
		len = fib_format_size(&value, format);
		CHECK(len >= 0);
		buf = malloc(len + 1);
		CHECK(buf != NULL);
		CHECK(fib_format(&value, format, buf, len) == len);
		if (len)
			CHECK(fib_format(&value, format, buf, len - 1) < 0);
		if (format == FIBDRV_FORMAT_DEC) {
			buf[len] = '\0';
			CHECK(mpz_set_str(got, buf, 10) == 0);
		} else {
			mpz_import(got, len / 8, -1, 8, 0, 0, buf);
		}
		CHECK(mpz_cmp(got, want) == 0);
		free(buf);
	}
	fib_value_release(&value);
	mpz_clears(want, got, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct operands o;
	mpz_t za, zb, want;
	unsigned int pattern;
	enum op op;
	u64 seed = 0;

	if (size < 14)
		return 0;
	op = data[0] % OP_COUNT;
	if (op == OP_FROM_DEC) {
		fuzz_from_dec(data + 1, size - 1);
		return 0;
	}
	if (op == OP_FIB) {
		fuzz_fib(data + 1, size - 1);
		return 0;
	}
	pattern = data[1];
	o.an = (data[2] | (size_t)data[3] << 8) % MAX_LIMBS;
	o.bn = (data[4] | (size_t)data[5] << 8) % MAX_LIMBS;
	if (op == OP_ADD || op == OP_MUL || op == OP_DIVREM) {
		/* the primitives want an >= bn >= 1 where it matters */
		if (o.bn == 0)
			o.bn = 1;
		if (o.an < o.bn)
			o.an = o.bn;
	}
	memcpy(&seed, data + 6, 8);
	o.a = calloc(o.an + 1, sizeof(u64));
	o.b = calloc(o.bn + 1, sizeof(u64));
	CHECK(o.a && o.b);
	fill(o.a, o.an, pattern, &seed);
	fill(o.b, o.bn, pattern >> 2, &seed);
	data += 14;
	size -= 14;
	memcpy(o.a, data, size < o.an * 8 ? size : o.an * 8);
	if (size > o.an * 8)
		memcpy(o.b, data + o.an * 8, size - o.an * 8 < o.bn * 8 ? size - o.an * 8 : o.bn * 8);

	mpz_inits(za, zb, want, NULL);
	to_mpz(za, o.a, o.an);
	to_mpz(zb, o.b, o.bn);
	switch (op) {
	case OP_TO_DEC:
		fuzz_to_dec(&o, za);
		break;
	case OP_DIVREM:
		fuzz_divrem(&o, za, zb);
		break;
	case OP_BIN:
		fuzz_bin(&o, za);
		break;
	case OP_NTT:
		fuzz_ntt(&o, za, zb, want);
		break;
	default:
		fuzz_arith(op, &o, za, zb, want);
		break;
	}
	mpz_clears(za, zb, want, NULL);
	free(o.a);
	free(o.b);
	return 0;
}
