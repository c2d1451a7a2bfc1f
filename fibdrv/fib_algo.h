/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fib_algo.h - the one registry of Fibonacci algorithms, iterated by the
 * fibdrv device, the user-space tools and the tests.  See docs/bignum.md.
 */
#ifndef FIBDRV_FIB_ALGO_H
#define FIBDRV_FIB_ALGO_H

#include "bn.h"
#include "fibdrv_uapi.h" /* enum fib_format: FIBDRV_FORMAT_DEC, FIBDRV_FORMAT_BIN */

/*
 * Result of a computation.  Start from FIB_VALUE_INIT (or all zero bytes);
 * fib_compute() releases what the value held before.  The number is kept
 * as a struct bn (num) or, for str-add, as decimal digits (dec); the other
 * representation is computed and cached on the first fib_format_size() /
 * fib_format() asking for it, so those two functions modify the value and
 * need the caller's lock if the value is shared.
 */
struct fib_value {
	u64 n;
	struct bn num; /* valid when has_num */
	char *dec;     /* decimal digits, no NUL; valid when has_dec */
	size_t dec_len;
	u8 has_num;
	u8 has_dec;
};

/* clang-format off */
#define FIB_VALUE_INIT { .n = 0 }
/* clang-format on */

#define FIB_ALGO_U64 0x1 /* result limited to u64: n > max_n -> -EOVERFLOW */

struct fib_algo {
	const char *name;
	u64 max_n; /* largest n accepted (fib_compute checks it) */
	int (*compute)(u64 n, struct fib_value *out); /* no cap check */
	const char *summary;
	unsigned int flags; /* FIB_ALGO_* */
};

extern const struct fib_algo fib_algos[];
extern const unsigned int fib_algo_count;

/*
 * Look an algorithm up by name; len is the name length (the name need not be
 * NUL-terminated; one trailing '\n' is ignored).  NULL when unknown.
 */
const struct fib_algo *fib_algo_find(const char *name, size_t len);
/* bn-fdouble-karatsuba */
const struct fib_algo *fib_algo_default(void);

/*
 * out = F(n).  Returns 0, or -EINVAL (NULL argument), -EOVERFLOW (n > max_n
 * of a FIB_ALGO_U64 algorithm: F(n) does not fit 64 bits), -E2BIG (n above
 * the cap of a big-number algorithm), -ENOMEM, -EINTR (fatal signal).
 * On failure out is left empty (released).
 */
/* 0 when algorithm @a accepts n; else -E2BIG (-EOVERFLOW for the u64 ones). */
int fib_check_n(const struct fib_algo *a, u64 n);
/*
 * Bytes of F(n) in format @f, from a formula, without computing F(n)
 * (fib_value.c says why it is exact); -EAGAIN in the rare case the formula
 * cannot decide (then compute and ask fib_format_size()), -EINVAL for a bad
 * format.
 */
long fib_result_size(u64 n, enum fib_format f);
int fib_compute(const struct fib_algo *a, u64 n, struct fib_value *out);

/*
 * Exact size in bytes of the formatted value: decimal = ASCII digits, no
 * sign, no NUL, no newline, F(0) = "0"; binary = little-endian u64 limbs,
 * minimal length, F(0) = 0 bytes.  Negative errno on failure (-EINVAL for
 * an empty value or unknown format, -ENOMEM, -EINTR).
 */
long fib_format_size(struct fib_value *v, enum fib_format f);
/*
 * Write exactly fib_format_size() bytes to buf and return that count;
 * -ENOSPC (nothing written) when cap is smaller.  Never writes past cap.
 */
long fib_format(struct fib_value *v, enum fib_format f, char *buf, size_t cap);
/* Free everything; v becomes FIB_VALUE_INIT.  Safe on an empty value. */
void fib_value_release(struct fib_value *v);

/* the algorithm entry points (also reachable through fib_algos[]) */
int fib_iter64(u64 n, struct fib_value *out);
int fib_fdouble64(u64 n, struct fib_value *out);
int fib_fdouble64_clz(u64 n, struct fib_value *out);
int fib_str_add(u64 n, struct fib_value *out);
int fib_bn_iter(u64 n, struct fib_value *out);
int fib_bn_fdouble(u64 n, struct fib_value *out);
int fib_bn_fdouble_sqr(u64 n, struct fib_value *out);
int fib_bn_fdouble_karatsuba(u64 n, struct fib_value *out);

#endif /* FIBDRV_FIB_ALGO_H */
