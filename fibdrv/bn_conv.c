// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_conv.c - conversions: decimal (its digits, the quadratic conversion;
 * divide and conquer in bn_dec_dc.c) and binary limbs, both ways.
 */
#include "bn_impl.h"


/* ---- decimal: digits ------------------------------------------------------ */

static const char bn_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline void bn_put2(char *p, u32 v)
{
	p[0] = bn_pairs[2 * v];
	p[1] = bn_pairs[2 * v + 1];
}

static inline void bn_put8(char *p, u32 v)
{
	u32 hi = v / 10000, lo = v % 10000;

	bn_put2(p, hi / 100);
	bn_put2(p + 2, hi % 100);
	bn_put2(p + 4, lo / 100);
	bn_put2(p + 6, lo % 100);
}

/* exactly 19 digits, leading zeros included */
static inline void bn_put19(char *p, u64 v)
{
	u64 top = v / 10000000000000000ULL, rest = v % 10000000000000000ULL;
	u32 t = (u32)top;

	p[0] = (char)('0' + t / 100);
	bn_put2(p + 1, t % 100);
	bn_put8(p + 3, (u32)(rest / 100000000ULL));
	bn_put8(p + 11, (u32)(rest % 100000000ULL));
}

/* v without leading zeros ("0" for 0); returns the count */
static size_t bn_put_var(char *p, u64 v)
{
	char tmp[19];
	size_t k = 0;

	bn_put19(tmp, v);
	while (k < 18 && tmp[k] == '0')
		k++;
	memcpy(p, tmp + k, 19 - k);
	return 19 - k;
}

noinline size_t bn_dec_bound(size_t n)
{
	/* 64 log10(2) = 19.2659... */
	return n * 19 + (n * 267 + 999) / 1000 + 2;
}

/*
 * Split t (n limbs, destroyed) into base-10^19 chunks, least significant
 * first.  Quadratic: one bn_divrem_1-like pass per chunk.
 */
noinline long bn_dec_chunks(u64 *t, size_t n, u64 *chunks)
{
	const u64 v = bn_invert_limb(BN_P19);
	size_t c = 0, i;

	n = bn_normalized_size(t, n);
	while (n > 0) {
		u64 r = 0;

		for (i = n; i-- > 0;)
			t[i] = bn_udiv_preinv(&r, r, t[i], BN_P19, v);
		chunks[c++] = r;
		if (t[n - 1] == 0)
			n--;
		if ((c & 1023) == 0 && bn_should_stop())
			return -EINTR;
	}
	return (long)c;
}

/* pad == 0: no leading zeros ("0" for no chunk); else exactly pad digits */
noinline size_t bn_dec_emit(const u64 *chunks, size_t cnt, char *out, size_t pad)
{
	size_t len = 0, i;

	if (pad) {
		len = pad - 19 * cnt;
		memset(out, '0', len);
	} else if (cnt == 0) {
		out[0] = '0';
		return 1;
	} else {
		len = bn_put_var(out, chunks[--cnt]);
	}
	for (i = cnt; i-- > 0; len += 19)
		bn_put19(out + len, chunks[i]);
	return len;
}

noinline long bn_to_dec_simple(const u64 *a, size_t n, char *buf, size_t cap)
{
	u64 *t;
	long cnt;
	size_t len;

	n = bn_normalized_size(a, n);
	if (cap < bn_dec_bound(n))
		return -ENOSPC;
	if (!n) {
		buf[0] = '0';
		return 1;
	}
	t = bn_limbs_alloc(n + bn_chunk_bound(n));
	if (!t)
		return -ENOMEM;
	bn_copyi(t, a, n);
	cnt = bn_dec_chunks(t, n, t + n);
	if (cnt < 0) {
		bn_mem_free(t);
		return cnt;
	}
	len = bn_dec_emit(t + n, (size_t)cnt, buf, 0);
	bn_mem_free(t);
	return (long)len;
}

noinline long bn_to_dec(const u64 *a, size_t n, char *buf, size_t cap)
{
	return bn_to_dec_dc(a, n, buf, cap);
}

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
