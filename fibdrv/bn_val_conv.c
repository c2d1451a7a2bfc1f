// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_val_conv.c - conversions of a struct bn (value layer): from decimal
 * digits (bn_from_dec), and binary limbs both ways (bn_to_bin,
 * bn_from_bin, bn_bin_size). The conversion to decimal works on limbs:
 * bn_dec.c.
 */
#include "bn_impl.h"

/* ---- decimal --------------------------------------------------------------- */

noinline int bn_from_dec(struct bn *x, const char *s, size_t len)
{
	size_t i, first, n = 0;
	int err;

	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
	err = bn_reserve(x, len / 19 + 2);
	if (err)
		return err;
	first = len % 19 ? len % 19 : 19;
	for (i = 0; i < len;) {
		size_t end = i == 0 ? first : i + 19;
		u64 chunk = 0, cy;

		for (; i < end; i++)
			chunk = chunk * 10 + (u64)(s[i] - '0');
		cy = bn_mul_1(x->limbs, x->limbs, n, BN_P19);
		if (cy)
			x->limbs[n++] = cy;
		cy = bn_add_1(x->limbs, x->limbs, n, chunk);
		if (cy)
			x->limbs[n++] = cy;
		if ((i & 0x3ffff) == 0 && bn_should_stop())
			return -EINTR;
	}
	x->size = bn_normalized_size(x->limbs, n);
	return 0;
}

/* ---- binary ---------------------------------------------------------------- */

size_t bn_bin_size(const struct bn *x)
{
	return bn_normalized_size(x->limbs, x->size) * sizeof(u64);
}

noinline long bn_to_bin(const struct bn *x, char *buf, size_t cap)
{
	size_t n = bn_normalized_size(x->limbs, x->size), i;
	unsigned int b;

	if (cap < n * sizeof(u64))
		return -ENOSPC;
	for (i = 0; i < n; i++) {
		u64 l = x->limbs[i];

		for (b = 0; b < 8; b++)
			buf[8 * i + b] = (char)(u8)(l >> (8 * b));
	}
	return (long)(n * sizeof(u64));
}

noinline int bn_from_bin(struct bn *x, const char *buf, size_t len)
{
	size_t n = (len + 7) / 8, i;
	int err = bn_reserve(x, n);

	if (err)
		return err;
	bn_zero(x->limbs, n);
	for (i = 0; i < len; i++)
		x->limbs[i / 8] |= (u64)(u8)buf[i] << (8 * (i % 8));
	x->size = bn_normalized_size(x->limbs, n);
	return 0;
}
