// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of the decimal and binary conversions, fib_value, the
 * algorithm registry and the eight algorithms, against GMP (bn_check.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bn_check.h"

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

void test_dec(void)
{
	static const char *names[] = { "bn_to_dec_simple", "bn_to_dec_dc", "bn_to_dec" };
	size_t it, n, k;
	int which;
	mpz_t z, p;

	unsigned long retries = bn_divrem_retries();

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
		/* the powers' approximate inverses are close enough for every division by them */
		if (which == 2 && bn_divrem_retries() != retries)
			fail("%lu divisions by powers of 10 retried with the exact inverse",
			     bn_divrem_retries() - retries);
		group_end(names[which]);
	}

	/*
	 * the chain (bn_dc_chain) from BN_DEC_CHAIN_MIN limbs: at its threshold,
	 * where the top power's level changes, and 10^k - 1, 10^k, 10^k + 1
	 * (a remainder of zeros, a last quotient of 1) at chain sizes
	 */
	group_begin();
	{
#ifdef BN_TEST_REDUCED
		static const size_t sizes[] = { BN_DEC_CHAIN_MIN, BN_DEC_CHAIN_MIN + 1 };
#else
		static const size_t sizes[] = { BN_DEC_CHAIN_MIN - 1, BN_DEC_CHAIN_MIN,
						BN_DEC_CHAIN_MIN + 1,	  2 * BN_DEC_CHAIN_MIN + 3,
						4 * BN_DEC_CHAIN_MIN + 1, 7 * BN_DEC_CHAIN_MIN + 5 };
#endif
		size_t i;

		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			u64 *x = xalloc(sizes[i]);

			rnd_limbs(x, sizes[i]);
			x[sizes[i] - 1] |= 1ULL << (rnd() % 64);
			to_mpz(z, x, sizes[i]);
			check_dec("bn_to_dec_dc (chain)", x, sizes[i], z, 1);
			free(x);
		}
		for (i = 0; i < 3; i++) {
			size_t xn;
			u64 *x;

			/* multiples of 19 * 2^14 digits: a power the chain divides by */
			mpz_ui_pow_ui(z, 10, 19 * ((size_t)1 << 14) * (i + 2));
			if (i == 0)
				mpz_sub_ui(z, z, 1);
			else if (i == 2)
				mpz_add_ui(z, z, 1);
			xn = (mpz_sizeinbase(z, 2) + 63) / 64;
			x = xalloc(xn);
			memset(x, 0, xn * 8);
			mpz_export(x, NULL, -1, 8, 0, 0, z);
			check_dec("bn_to_dec_dc (chain, 10^k)", x, xn, z, 1);
			free(x);
		}
	}
	group_end("bn_to_dec_dc.chain");

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

void test_values(void)
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

void test_algorithms(void)
{
	unsigned int i;
	char name[128];
	mpz_t zf;

	mpz_init(zf);
	for (i = 0; i < fib_algo_count; i++) {
		const struct fib_algo *a = &fib_algos[i];
		unsigned long n, lim = a->max_n < ALL_N_MAX ? a->max_n : ALL_N_MAX;
		unsigned long retries;
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
		retries = bn_divrem_retries();
		for (it = 0; it < 3; it++) {
			u64 cap = a->max_n < BIG_N ? a->max_n : BIG_N;

			n = it == 0 ? cap : 1000000 + rnd() % (cap - 1000000);
			if (!compute_check(a, n, zf, a->max_n >= 100000000))
				break;
		}
		/* the conversion's divisions by the powers of 10, none retried with the exact
		 * inverse */
		if (bn_divrem_retries() != retries)
			fail("%s: %lu divisions retried with the exact inverse", a->name,
			     bn_divrem_retries() - retries);
		snprintf(name, sizeof(name), "%s.n_to_%llu", a->name,
			 a->max_n < BIG_N ? a->max_n : BIG_N);
		group_end(name);
	}
	mpz_clear(zf);
}

/*
 * bn_to_dec_dc of x with its k-th allocation failing, k = 0, 1, ... until
 * it succeeds: -ENOMEM and nothing leaked each time. Returns that k (the
 * allocations the conversion makes), or 200 when it never succeeded.
 */
static long dec_dc_enomem(const char *what, const u64 *x, size_t xn)
{
	char *out = malloc(bn_dec_bound(xn));
	long k, r = 0;

	for (k = 0; k < 200; k++) {
		size_t cur, peak, before;

		bn_mem_stats(&before, &peak);
		bn_mem_fail_after(k);
		r = bn_to_dec_dc(x, xn, out, bn_dec_bound(xn));
		bn_mem_fail_after(-1);
		bn_mem_stats(&cur, &peak);
		if (r < 0 && r != -ENOMEM)
			fail("bn_to_dec_dc of %s: errno %ld", what, r);
		if (cur != before)
			fail("bn_to_dec_dc of %s leaked after failing allocation %ld", what, k);
		if (r > 0)
			break;
	}
	if (r <= 0)
		fail("bn_to_dec_dc of %s failed with every allocation allowed", what);
	free(out);
	return k;
}

void test_registry(void)
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
		k = dec_dc_enomem("F(10^5)", w.num.limbs, w.num.size);
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
	{
		/* the chain's (bn_dc_chain): a random x of BN_DEC_CHAIN_MIN limbs */
		size_t xn = BN_DEC_CHAIN_MIN;
		u64 *x = xalloc(xn);

		rnd_limbs(x, xn);
		x[xn - 1] |= 1;
		dec_dc_enomem("a chain's x", x, xn);
		free(x);
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
void test_result_size(void)
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
