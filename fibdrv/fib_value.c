// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fib_value.c - struct fib_value: fib_compute() runs an algorithm of the
 * registry into one, fib_format_size()/fib_format() convert it to decimal
 * or binary (caching the other representation), fib_value_release().
 */
#include "fib_algo.h"

noinline void fib_value_release(struct fib_value *v)
{
	if (!v)
		return;
	bn_release(&v->num);
	bn_mem_free(v->dec);
	v->dec = NULL;
	v->dec_len = 0;
	v->has_num = 0;
	v->has_dec = 0;
	v->n = 0;
}

noinline int fib_check_n(const struct fib_algo *a, u64 n)
{
	if (n > a->max_n)
		return (a->flags & FIB_ALGO_U64) ? -EOVERFLOW : -E2BIG;
	return 0;
}

noinline int fib_compute(const struct fib_algo *a, u64 n, struct fib_value *out)
{
	int err;

	if (!a || !out)
		return -EINVAL;
	fib_value_release(out);
	err = fib_check_n(a, n);
	if (err)
		return err;
	err = a->compute(n, out);
	if (err)
		fib_value_release(out);
	return err;
}

long fib_format_size(struct fib_value *v, enum fib_format f)
{
	long len;
	int err;

	if (!v || (!v->has_num && !v->has_dec))
		return -EINVAL;
	switch (f) {
	case FIBDRV_FORMAT_DEC:
		if (!v->has_dec) {
			size_t cap = bn_dec_bound(v->num.size);
			char *buf = bn_mem_alloc(cap);

			if (!buf)
				return -ENOMEM;
			len = bn_to_dec(v->num.limbs, v->num.size, buf, cap);
			if (len < 0) {
				bn_mem_free(buf);
				return len;
			}
			v->dec = buf;
			v->dec_len = (size_t)len;
			v->has_dec = 1;
		}
		return (long)v->dec_len;
	case FIBDRV_FORMAT_BIN:
		if (!v->has_num) {
			err = bn_from_dec(&v->num, v->dec, v->dec_len);
			if (err) {
				bn_release(&v->num);
				return err;
			}
			v->has_num = 1;
		}
		return (long)bn_bin_size(&v->num);
	}
	return -EINVAL;
}

noinline long fib_format(struct fib_value *v, enum fib_format f, char *buf, size_t cap)
{
	long size = fib_format_size(v, f);

	if (size < 0)
		return size;
	if ((size_t)size > cap)
		return -ENOSPC;
	if (f == FIBDRV_FORMAT_DEC) {
		memcpy(buf, v->dec, (size_t)size);
		return size;
	}
	return bn_to_bin(&v->num, buf, cap);
}

/*
 * The size of F(n) without computing it. F(n) = phi^n / sqrt5 rounded, so
 * log_b F(n) = n log_b(phi) - log_b(sqrt5) + d with |d| < phi^-2n / ln(b),
 * negligible for n > 93. In 64.64 fixed point, with the constants truncated
 * (error below 2^-64 each), x = n log_b(phi) - log_b(sqrt5) is off by less
 * than (n + 1) 2^-64 < 2^-30: floor(x) is exact unless x lies within 2^-30
 * of an integer, which is reported (-EAGAIN) instead of guessed.
 */
#define FIB_LOG10_PHI 0x358036c82451b7f3ULL /* 0.20898764024997873... */
#define FIB_LOG10_SQRT5 0x5977d95ec10c0219ULL /* 0.34948500216800940... */
#define FIB_LOG2_PHI 0xb1b9d68a8e53425dULL /* 0.69424191363061730... */
#define FIB_LOG2_SQRT5 0x2934f0979a3715fcULL /* 1.16096404744368117... - 1 */
#define FIB_SIZE_MARGIN (1ULL << 34) /* 2^-30 */
#define FIB_SIZE_EXACT_N 93 /* F(93) is the largest that fits a u64 */

/* floor(n a - (c_int + c_frac)) + 1, all 0.64 fixed point but c_int; -EAGAIN if too close. */
static long fib_log_digits(u64 n, u64 a, u64 c_int, u64 c_frac)
{
	unsigned __int128 x = (unsigned __int128)n * a;
	unsigned __int128 c = ((unsigned __int128)c_int << 64) | c_frac;
	u64 frac;

	if (x <= c)
		return -EAGAIN;
	x -= c;
	frac = (u64)x;
	if (frac < FIB_SIZE_MARGIN || frac > ~0ULL - FIB_SIZE_MARGIN)
		return -EAGAIN;
	return (long)(x >> 64) + 1;
}

/* Small n: from the value itself. */
static long fib_small_size(u64 n, enum fib_format f)
{
	u64 a = 0, b = 1, t, i;
	long digits = 1;

	for (i = 0; i < n; i++) {
		t = a + b; /* wraps only past F(94), which is never used */
		a = b;
		b = t;
	}
	if (f == FIBDRV_FORMAT_BIN)
		return a ? 8 : 0;
	for (; a >= 10; a /= 10)
		digits++;
	return digits;
}

long fib_result_size(u64 n, enum fib_format f)
{
	long bits;

	if (f != FIBDRV_FORMAT_DEC && f != FIBDRV_FORMAT_BIN)
		return -EINVAL;
	if (n <= FIB_SIZE_EXACT_N)
		return fib_small_size(n, f);
	if (f == FIBDRV_FORMAT_DEC)
		return fib_log_digits(n, FIB_LOG10_PHI, 0, FIB_LOG10_SQRT5);
	bits = fib_log_digits(n, FIB_LOG2_PHI, 1, FIB_LOG2_SQRT5);
	return bits < 0 ? bits : (bits + 63) / 64 * (long)sizeof(u64);
}
