// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn.c - limb primitives, multiplication (schoolbook, Karatsuba, Toom-3,
 * with dedicated squarings) and the struct bn value type.
 *
 * Limb primitives never allocate and never fail; every traced function is
 * noinline so that it keeps a stable symbol (see docs/bignum.md).
 */
#include "bn_impl.h"

/* ---- additions and subtractions ------------------------------------ */

#if defined(__x86_64__)
/*
 * adc/sbb chains: gcc does not keep the carry in CF with C code, which
 * makes these 2-3x slower than the four-way unrolled loops below.
 */
noinline u64 bn_add_n(u64 *r, const u64 *a, const u64 *b, size_t n)
{
	u64 cy = 0;
	size_t i = 0;

	if (n >= 4) {
		size_t blocks = n / 4;
		u64 t0, t1, t2, t3;

		__asm__ volatile(
			"clc\n\t"
			"1:\n\t"
			"movq (%[a],%[i],8), %[t0]\n\t"
			"movq 8(%[a],%[i],8), %[t1]\n\t"
			"movq 16(%[a],%[i],8), %[t2]\n\t"
			"movq 24(%[a],%[i],8), %[t3]\n\t"
			"adcq (%[b],%[i],8), %[t0]\n\t"
			"adcq 8(%[b],%[i],8), %[t1]\n\t"
			"adcq 16(%[b],%[i],8), %[t2]\n\t"
			"adcq 24(%[b],%[i],8), %[t3]\n\t"
			"movq %[t0], (%[r],%[i],8)\n\t"
			"movq %[t1], 8(%[r],%[i],8)\n\t"
			"movq %[t2], 16(%[r],%[i],8)\n\t"
			"movq %[t3], 24(%[r],%[i],8)\n\t"
			"leaq 4(%[i]), %[i]\n\t"
			"decq %[blocks]\n\t"
			"jnz 1b\n\t"
			"adcq $0, %[cy]\n\t"
			: [i] "+r"(i), [blocks] "+r"(blocks), [cy] "+r"(cy),
			  [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),
			  [t3] "=&r"(t3)
			: [a] "r"(a), [b] "r"(b), [r] "r"(r)
			: "cc", "memory");
	}
	for (; i < n; i++) {
		bn_u128 t = (bn_u128)a[i] + b[i] + cy;

		r[i] = (u64)t;
		cy = (u64)(t >> 64);
	}
	return cy;
}

noinline u64 bn_sub_n(u64 *r, const u64 *a, const u64 *b, size_t n)
{
	u64 bw = 0;
	size_t i = 0;

	if (n >= 4) {
		size_t blocks = n / 4;
		u64 t0, t1, t2, t3;

		__asm__ volatile(
			"clc\n\t"
			"1:\n\t"
			"movq (%[a],%[i],8), %[t0]\n\t"
			"movq 8(%[a],%[i],8), %[t1]\n\t"
			"movq 16(%[a],%[i],8), %[t2]\n\t"
			"movq 24(%[a],%[i],8), %[t3]\n\t"
			"sbbq (%[b],%[i],8), %[t0]\n\t"
			"sbbq 8(%[b],%[i],8), %[t1]\n\t"
			"sbbq 16(%[b],%[i],8), %[t2]\n\t"
			"sbbq 24(%[b],%[i],8), %[t3]\n\t"
			"movq %[t0], (%[r],%[i],8)\n\t"
			"movq %[t1], 8(%[r],%[i],8)\n\t"
			"movq %[t2], 16(%[r],%[i],8)\n\t"
			"movq %[t3], 24(%[r],%[i],8)\n\t"
			"leaq 4(%[i]), %[i]\n\t"
			"decq %[blocks]\n\t"
			"jnz 1b\n\t"
			"adcq $0, %[bw]\n\t"
			: [i] "+r"(i), [blocks] "+r"(blocks), [bw] "+r"(bw),
			  [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),
			  [t3] "=&r"(t3)
			: [a] "r"(a), [b] "r"(b), [r] "r"(r)
			: "cc", "memory");
	}
	for (; i < n; i++) {
		u64 ai = a[i], bi = b[i];
		u64 d = ai - bi - bw;

		bw = (ai < bi) | ((ai == bi) & bw);
		r[i] = d;
	}
	return bw;
}
#else
noinline u64 bn_add_n(u64 *r, const u64 *a, const u64 *b, size_t n)
{
	u64 cy = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		bn_u128 t = (bn_u128)a[i] + b[i] + cy;

		r[i] = (u64)t;
		cy = (u64)(t >> 64);
	}
	return cy;
}

noinline u64 bn_sub_n(u64 *r, const u64 *a, const u64 *b, size_t n)
{
	u64 bw = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		u64 ai = a[i], bi = b[i];
		u64 d = ai - bi - bw;

		bw = (ai < bi) | ((ai == bi) & bw);
		r[i] = d;
	}
	return bw;
}
#endif

noinline u64 bn_add_1(u64 *r, const u64 *a, size_t n, u64 b)
{
	size_t i;

	for (i = 0; i < n; i++) {
		u64 s = a[i] + b;

		b = s < b;
		r[i] = s;
		if (!b) {
			if (r != a)
				bn_copyi(r + i + 1, a + i + 1, n - i - 1);
			return 0;
		}
	}
	return b;
}

noinline u64 bn_sub_1(u64 *r, const u64 *a, size_t n, u64 b)
{
	size_t i;

	for (i = 0; i < n; i++) {
		u64 ai = a[i];

		r[i] = ai - b;
		b = ai < b;
		if (!b) {
			if (r != a)
				bn_copyi(r + i + 1, a + i + 1, n - i - 1);
			return 0;
		}
	}
	return b;
}

noinline u64 bn_add(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn)
{
	u64 cy = bn_add_n(r, a, b, bn);

	return bn_add_1(r + bn, a + bn, an - bn, cy);
}

noinline u64 bn_sub(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn)
{
	u64 bw = bn_sub_n(r, a, b, bn);

	return bn_sub_1(r + bn, a + bn, an - bn, bw);
}

noinline u64 bn_lshift(u64 *r, const u64 *a, size_t n, unsigned int cnt)
{
	unsigned int tnc = 64 - cnt;
	u64 out, hi;
	size_t i;

	if (!n)
		return 0;
	hi = a[n - 1];
	out = hi >> tnc;
	for (i = n - 1; i > 0; i--) {
		u64 lo = a[i - 1];

		r[i] = (hi << cnt) | (lo >> tnc);
		hi = lo;
	}
	r[0] = hi << cnt;
	return out;
}

noinline u64 bn_rshift(u64 *r, const u64 *a, size_t n, unsigned int cnt)
{
	unsigned int tnc = 64 - cnt;
	u64 out, lo;
	size_t i;

	if (!n)
		return 0;
	lo = a[0];
	out = lo << tnc;
	for (i = 0; i + 1 < n; i++) {
		u64 hi = a[i + 1];

		r[i] = (lo >> cnt) | (hi << tnc);
		lo = hi;
	}
	r[n - 1] = lo >> cnt;
	return out;
}

int bn_cmp_n(const u64 *a, const u64 *b, size_t n)
{
	while (n-- > 0) {
		if (a[n] != b[n])
			return a[n] > b[n] ? 1 : -1;
	}
	return 0;
}

size_t bn_normalized_size(const u64 *a, size_t n)
{
	while (n > 0 && a[n - 1] == 0)
		n--;
	return n;
}

int bn_cmp(const u64 *a, size_t an, const u64 *b, size_t bn)
{
	an = bn_normalized_size(a, an);
	bn = bn_normalized_size(b, bn);
	if (an != bn)
		return an > bn ? 1 : -1;
	return bn_cmp_n(a, b, an);
}

/* ---- single-limb multiplication and division ------------------------ */

static u64 bn_mul_1_c(u64 *r, const u64 *a, size_t n, u64 b)
{
	u64 cy = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		bn_u128 t = (bn_u128)a[i] * b + cy;

		r[i] = (u64)t;
		cy = (u64)(t >> 64);
	}
	return cy;
}

static u64 bn_addmul_1_c(u64 *r, const u64 *a, size_t n, u64 b)
{
	u64 cy = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		bn_u128 t = (bn_u128)a[i] * b + r[i] + cy;

		r[i] = (u64)t;
		cy = (u64)(t >> 64);
	}
	return cy;
}

#if defined(__x86_64__)
/*
 * mulx + adcx/adox: two independent carry chains (CF for the product
 * high limbs, OF for the addition of r), about 2x faster than the C loop.
 * The loop counter runs from -n up to 0 with lea/jrcxz, which keep the
 * flags.  Used only when the CPU has BMI2 and ADX.
 */
static int bn_mulx_state;	/* 0 unknown, 1 yes, -1 no */

static inline int bn_use_mulx(void)
{
	if (unlikely(!bn_mulx_state))
		bn_mulx_state = bn_cpu_has_mulx_adx() ? 1 : -1;
	return bn_mulx_state > 0;
}

/* r[0 .. 4 blocks) += a * b, the first carry in is cy */
static u64 bn_addmul_1_mulx4(u64 *r, const u64 *a, size_t blocks, u64 b, u64 cy)
{
	const u64 *ae = a + 4 * blocks;
	u64 *re = r + 4 * blocks;
	long i = -4 * (long)blocks;
	u64 lo, hi, zero;

	__asm__ volatile(
		"xorl %k[zero], %k[zero]\n\t"	/* CF = OF = 0 */
		"1:\n\t"
		"mulx (%[ae],%[i],8), %[lo], %[hi]\n\t"
		"adcx %[cy], %[lo]\n\t"
		"adox (%[re],%[i],8), %[lo]\n\t"
		"movq %[lo], (%[re],%[i],8)\n\t"
		"mulx 8(%[ae],%[i],8), %[lo], %[cy]\n\t"
		"adcx %[hi], %[lo]\n\t"
		"adox 8(%[re],%[i],8), %[lo]\n\t"
		"movq %[lo], 8(%[re],%[i],8)\n\t"
		"mulx 16(%[ae],%[i],8), %[lo], %[hi]\n\t"
		"adcx %[cy], %[lo]\n\t"
		"adox 16(%[re],%[i],8), %[lo]\n\t"
		"movq %[lo], 16(%[re],%[i],8)\n\t"
		"mulx 24(%[ae],%[i],8), %[lo], %[cy]\n\t"
		"adcx %[hi], %[lo]\n\t"
		"adox 24(%[re],%[i],8), %[lo]\n\t"
		"movq %[lo], 24(%[re],%[i],8)\n\t"
		"leaq 4(%[i]), %[i]\n\t"
		"jrcxz 2f\n\t"
		"jmp 1b\n\t"
		"2:\n\t"
		"adcx %[zero], %[cy]\n\t"
		"adox %[zero], %[cy]\n\t"
		: [i] "+c"(i), [lo] "=&r"(lo), [hi] "=&r"(hi), [cy] "+r"(cy),
		  [zero] "=&r"(zero)
		: [ae] "r"(ae), [re] "r"(re), "d"(b)
		: "cc", "memory");
	return cy;
}

static u64 bn_mul_1_mulx4(u64 *r, const u64 *a, size_t blocks, u64 b, u64 cy)
{
	const u64 *ae = a + 4 * blocks;
	u64 *re = r + 4 * blocks;
	long i = -4 * (long)blocks;
	u64 lo, hi, zero;

	__asm__ volatile(
		"xorl %k[zero], %k[zero]\n\t"	/* CF = 0 */
		"1:\n\t"
		"mulx (%[ae],%[i],8), %[lo], %[hi]\n\t"
		"adcx %[cy], %[lo]\n\t"
		"movq %[lo], (%[re],%[i],8)\n\t"
		"mulx 8(%[ae],%[i],8), %[lo], %[cy]\n\t"
		"adcx %[hi], %[lo]\n\t"
		"movq %[lo], 8(%[re],%[i],8)\n\t"
		"mulx 16(%[ae],%[i],8), %[lo], %[hi]\n\t"
		"adcx %[cy], %[lo]\n\t"
		"movq %[lo], 16(%[re],%[i],8)\n\t"
		"mulx 24(%[ae],%[i],8), %[lo], %[cy]\n\t"
		"adcx %[hi], %[lo]\n\t"
		"movq %[lo], 24(%[re],%[i],8)\n\t"
		"leaq 4(%[i]), %[i]\n\t"
		"jrcxz 2f\n\t"
		"jmp 1b\n\t"
		"2:\n\t"
		"adcx %[zero], %[cy]\n\t"
		: [i] "+c"(i), [lo] "=&r"(lo), [hi] "=&r"(hi), [cy] "+r"(cy),
		  [zero] "=&r"(zero)
		: [ae] "r"(ae), [re] "r"(re), "d"(b)
		: "cc", "memory");
	return cy;
}
#endif

noinline u64 bn_mul_1(u64 *r, const u64 *a, size_t n, u64 b)
{
#if defined(__x86_64__)
	if (n >= 8 && bn_use_mulx()) {
		size_t head = n & 3;
		u64 cy = bn_mul_1_c(r, a, head, b);

		return bn_mul_1_mulx4(r + head, a + head, n / 4, b, cy);
	}
#endif
	return bn_mul_1_c(r, a, n, b);
}

noinline u64 bn_addmul_1(u64 *r, const u64 *a, size_t n, u64 b)
{
#if defined(__x86_64__)
	if (n >= 8 && bn_use_mulx()) {
		size_t head = n & 3;
		u64 cy = bn_addmul_1_c(r, a, head, b);

		return bn_addmul_1_mulx4(r + head, a + head, n / 4, b, cy);
	}
#endif
	return bn_addmul_1_c(r, a, n, b);
}

noinline u64 bn_submul_1(u64 *r, const u64 *a, size_t n, u64 b)
{
	u64 cy = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		bn_u128 t = (bn_u128)a[i] * b + cy;
		u64 lo = (u64)t, ri = r[i];

		cy = (u64)(t >> 64) + (ri < lo);
		r[i] = ri - lo;
	}
	return cy;
}

noinline u64 bn_divrem_1(u64 *q, const u64 *a, size_t n, u64 d)
{
	unsigned int s;
	u64 v, r, dn;
	size_t i;

	if (!n)
		return 0;
	s = bn_clz(d);
	dn = d << s;
	v = bn_invert_limb(dn);
	if (s == 0) {
		r = 0;
		for (i = n; i-- > 0;) {
			u64 qi = bn_udiv_preinv(&r, r, a[i], dn, v);

			if (q)
				q[i] = qi;
		}
		return r;
	}
	r = a[n - 1] >> (64 - s);
	for (i = n; i-- > 0;) {
		u64 nl = a[i] << s;
		u64 qi;

		if (i > 0)
			nl |= a[i - 1] >> (64 - s);
		qi = bn_udiv_preinv(&r, r, nl, dn, v);
		if (q)
			q[i] = qi;
	}
	return r >> s;
}

#define BN_INV3 0xAAAAAAAAAAAAAAABULL

noinline void bn_divexact_by3(u64 *r, const u64 *a, size_t n)
{
	u64 c = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		u64 ai = a[i];
		u64 s = ai - c;
		u64 qi;

		c = ai < c;
		qi = s * BN_INV3;
		r[i] = qi;
		c += (u64)(((bn_u128)qi * 3) >> 64);
	}
}

/* ---- schoolbook ------------------------------------------------------ */

noinline void bn_mul_basecase(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn)
{
	size_t j;

	r[an] = bn_mul_1(r, a, an, b[0]);
	for (j = 1; j < bn; j++)
		r[an + j] = bn_addmul_1(r + j, a, an, b[j]);
}

noinline void bn_sqr_basecase(u64 *r, const u64 *a, size_t n)
{
	u64 top, cy;
	size_t i;

	if (n == 1) {
		bn_u128 p = (bn_u128)a[0] * a[0];

		r[0] = (u64)p;
		r[1] = (u64)(p >> 64);
		return;
	}
	/* off-diagonal products a[i] * a[j], i < j */
	r[0] = 0;
	r[n] = bn_mul_1(r + 1, a + 1, n - 1, a[0]);
	for (i = 1; i + 1 < n; i++)
		r[n + i] = bn_addmul_1(r + 2 * i + 1, a + i + 1, n - i - 1, a[i]);
	r[2 * n - 1] = 0;
	/* double them and add the squares a[i]^2 */
	top = 0;
	cy = 0;
	for (i = 0; i < n; i++) {
		bn_u128 p = (bn_u128)a[i] * a[i];
		u64 x0 = r[2 * i], x1 = r[2 * i + 1];
		u64 d0 = (x0 << 1) | top;
		u64 d1 = (x1 << 1) | (x0 >> 63);
		bn_u128 t;

		top = x1 >> 63;
		t = (bn_u128)d0 + (u64)p + cy;
		r[2 * i] = (u64)t;
		t = (bn_u128)d1 + (u64)(p >> 64) + (u64)(t >> 64);
		r[2 * i + 1] = (u64)t;
		cy = (u64)(t >> 64);
	}
}

/* ---- helpers for the subquadratic algorithms ------------------------- */

/* r = |a - b| (n limbs each); returns 1 when a < b. */
static int bn_abs_sub_n(u64 *r, const u64 *a, const u64 *b, size_t n)
{
	if (bn_cmp_n(a, b, n) >= 0) {
		bn_sub_n(r, a, b, n);
		return 0;
	}
	bn_sub_n(r, b, a, n);
	return 1;
}

/* r (an limbs) = |a - b| with an >= bn; returns 1 when a < b. */
static int bn_abs_sub(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn)
{
	if (an == bn)
		return bn_abs_sub_n(r, a, b, an);
	if (bn_cmp(a, an, b, bn) >= 0) {
		bn_sub(r, a, an, b, bn);
		return 0;
	}
	/* a < b: the top an - bn limbs of a are zero */
	bn_sub_n(r, b, a, bn);
	bn_zero(r + bn, an - bn);
	return 1;
}

/* exact arithmetic right shift by one (two's complement) */
static void bn_sar1(u64 *x, size_t n)
{
	u64 sign = x[n - 1] & (1ULL << 63);

	bn_rshift(x, x, n, 1);
	x[n - 1] |= sign;
}

/* r[0 .. rn) += a[0 .. an), ignoring what would carry past rn */
static void bn_add_into(u64 *r, size_t rn, const u64 *a, size_t an)
{
	u64 cy;

	if (an > rn)
		an = rn;
	cy = bn_add_n(r, r, a, an);
	if (cy && rn > an)
		bn_add_1(r + an, r + an, rn - an, cy);
}

/* ---- Karatsuba ------------------------------------------------------- */

/*
 * a = a1 B^h + a0, h = ceil(n/2).  a0 b1 + a1 b0 = a0 b0 + a1 b1 - (a0 - a1)(b0 - b1).
 * scratch: 6h limbs + bn_mul_n_itch(h).
 */
noinline void bn_mul_karatsuba(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *scratch)
{
	size_t h = (n + 1) / 2, l = n - h;
	u64 *da = scratch, *db = da + h, *z1 = db + h, *t = z1 + 2 * h;
	u64 *next = t + 2 * h;
	int sa, sb;
	u64 c;

	sa = bn_abs_sub(da, a, h, a + h, l);
	sb = bn_abs_sub(db, b, h, b + h, l);
	bn_mul_n(z1, da, db, h, next);
	bn_mul_n(r, a, b, h, next);
	bn_mul_n(r + 2 * h, a + h, b + h, l, next);

	c = bn_add(t, r, 2 * h, r + 2 * h, 2 * l);
	if (sa == sb)
		c -= bn_sub_n(t, t, z1, 2 * h);
	else
		c += bn_add_n(t, t, z1, 2 * h);
	/* r[h .. 2n) += t + c B^(2h) */
	c += bn_add_n(r + h, r + h, t, 2 * h);
	if (2 * n > 3 * h)
		bn_add_1(r + 3 * h, r + 3 * h, 2 * n - 3 * h, c);
}

/* scratch: 5h limbs + bn_sqr_n_itch(h) */
noinline void bn_sqr_karatsuba(u64 *r, const u64 *a, size_t n, u64 *scratch)
{
	size_t h = (n + 1) / 2, l = n - h;
	u64 *da = scratch, *z1 = da + h, *t = z1 + 2 * h;
	u64 *next = t + 2 * h;
	u64 c;

	bn_abs_sub(da, a, h, a + h, l);
	bn_sqr_n(z1, da, h, next);
	bn_sqr_n(r, a, h, next);
	bn_sqr_n(r + 2 * h, a + h, l, next);

	c = bn_add(t, r, 2 * h, r + 2 * h, 2 * l);
	c -= bn_sub_n(t, t, z1, 2 * h);
	c += bn_add_n(r + h, r + h, t, 2 * h);
	if (2 * n > 3 * h)
		bn_add_1(r + 3 * h, r + 3 * h, 2 * n - 3 * h, c);
}

/* ---- Toom-3 ---------------------------------------------------------- */

/*
 * Evaluate a = a2 x^2 + a1 x + a0 (k, k, l limbs) at 1, -1, -2.
 * p1, pm1, pm2 get k + 1 limbs; returns the signs of a(-1), a(-2) in
 * bits 0 and 1.  tmp: 2(k + 1) limbs.
 */
static int bn_toom3_eval(u64 *p1, u64 *pm1, u64 *pm2, const u64 *a, size_t k,
			 size_t l, u64 *tmp)
{
	const u64 *a0 = a, *a1 = a + k, *a2 = a + 2 * k;
	u64 *u = tmp, *v = tmp + k + 1;
	int signs = 0;

	/* s = a0 + a2 in p1, a(1) = s + a1, a(-1) = s - a1 */
	p1[k] = bn_add(p1, a0, k, a2, l);
	if (p1[k] == 0 && bn_cmp_n(p1, a1, k) < 0) {
		bn_sub_n(pm1, a1, p1, k);
		pm1[k] = 0;
		signs |= 1;
	} else {
		pm1[k] = p1[k] - bn_sub_n(pm1, p1, a1, k);
	}
	p1[k] += bn_add_n(p1, p1, a1, k);

	/* a(-2) = (a0 + 4 a2) - 2 a1 */
	u[l] = bn_lshift(u, a2, l, 2);
	bn_zero(u + l + 1, k - l);
	u[k] += bn_add_n(u, u, a0, k);
	v[k] = bn_lshift(v, a1, k, 1);
	if (bn_abs_sub_n(pm2, u, v, k + 1))
		signs |= 2;
	return signs;
}

/* W (L limbs, two's complement) = |x| * |y| with sign neg */
static void bn_toom3_point(u64 *w, const u64 *x, const u64 *y, size_t k1, int neg,
			   int square, u64 *next)
{
	if (square)
		bn_sqr_n(w, x, k1, next);
	else
		bn_mul_n(w, x, y, k1, next);
	if (neg)
		bn_neg_inplace(w, 2 * k1);
}

/*
 * Interpolation (Bodrato's sequence for the points 0, 1, -1, -2, inf) on
 * two's complement numbers of L = 2k + 2 limbs, then recomposition.
 * r holds w0 in [0, 2k) and winf in [4k, 2n).
 */
static void bn_toom3_interpolate(u64 *r, size_t n, size_t k, size_t l, u64 *w1,
				 u64 *wm1, u64 *wm2, u64 *tmp)
{
	size_t L = 2 * k + 2;
	const u64 *w0 = r, *winf = r + 4 * k;
	u64 *t1 = w1, *t2 = wm1, *t3 = wm2;

	/* t3 = (wm2 - w1) / 3 */
	bn_sub_n(t3, wm2, w1, L);
	bn_divexact_by3(t3, t3, L);
	/* t1 = (w1 - wm1) / 2 */
	bn_sub_n(t1, w1, wm1, L);
	bn_sar1(t1, L);
	/* t2 = wm1 - w0 */
	bn_sub(t2, wm1, L, w0, 2 * k);
	/* t3 = (t2 - t3) / 2 + 2 winf */
	bn_sub_n(t3, t2, t3, L);
	bn_sar1(t3, L);
	tmp[2 * l] = bn_lshift(tmp, winf, 2 * l, 1);
	bn_add(t3, t3, L, tmp, 2 * l + 1);
	/* t2 = t2 + t1 - winf */
	bn_add_n(t2, t2, t1, L);
	bn_sub(t2, t2, L, winf, 2 * l);
	/* t1 = t1 - t3 */
	bn_sub_n(t1, t1, t3, L);

	bn_zero(r + 2 * k, 2 * k);
	bn_add_into(r + k, 2 * n - k, t1, L);
	bn_add_into(r + 2 * k, 2 * n - 2 * k, t2, L);
	bn_add_into(r + 3 * k, 2 * n - 3 * k, t3, L);
}

static inline size_t bn_toom3_k(size_t n)
{
	return (n + 2) / 3;
}

/* scratch: 16(k + 1) limbs + bn_mul_n_itch(k + 1) */
noinline void bn_mul_toom3(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *scratch)
{
	size_t k = bn_toom3_k(n), l = n - 2 * k, k1 = k + 1, L = 2 * k + 2;
	u64 *p1 = scratch, *pm1 = p1 + k1, *pm2 = pm1 + k1;
	u64 *q1 = pm2 + k1, *qm1 = q1 + k1, *qm2 = qm1 + k1;
	u64 *w1 = qm2 + k1, *wm1 = w1 + L, *wm2 = wm1 + L, *tmp = wm2 + L;
	u64 *next = tmp + L;
	int sa, sb;

	sa = bn_toom3_eval(p1, pm1, pm2, a, k, l, tmp);
	sb = bn_toom3_eval(q1, qm1, qm2, b, k, l, tmp);
	bn_toom3_point(w1, p1, q1, k1, 0, 0, next);
	bn_toom3_point(wm1, pm1, qm1, k1, (sa ^ sb) & 1, 0, next);
	bn_toom3_point(wm2, pm2, qm2, k1, ((sa ^ sb) >> 1) & 1, 0, next);
	bn_mul_n(r, a, b, k, next);
	bn_mul_n(r + 4 * k, a + 2 * k, b + 2 * k, l, next);
	bn_toom3_interpolate(r, n, k, l, w1, wm1, wm2, tmp);
}

noinline void bn_sqr_toom3(u64 *r, const u64 *a, size_t n, u64 *scratch)
{
	size_t k = bn_toom3_k(n), l = n - 2 * k, k1 = k + 1, L = 2 * k + 2;
	u64 *p1 = scratch, *pm1 = p1 + k1, *pm2 = pm1 + k1;
	u64 *w1 = pm2 + k1, *wm1 = w1 + L, *wm2 = wm1 + L, *tmp = wm2 + L;
	u64 *next = tmp + L;

	bn_toom3_eval(p1, pm1, pm2, a, k, l, tmp);
	bn_toom3_point(w1, p1, NULL, k1, 0, 1, next);
	bn_toom3_point(wm1, pm1, NULL, k1, 0, 1, next);
	bn_toom3_point(wm2, pm2, NULL, k1, 0, 1, next);
	bn_sqr_n(r, a, k, next);
	bn_sqr_n(r + 4 * k, a + 2 * k, l, next);
	bn_toom3_interpolate(r, n, k, l, w1, wm1, wm2, tmp);
}

/* ---- dispatchers ----------------------------------------------------- */

/*
 * Scratch bound for every balanced product of size <= n: Karatsuba needs
 * 6h + S(h), Toom-3 16(k + 1) + S(k + 1); 10n + 200 dominates both for
 * n >= 40 (checked in docs/bignum.md), and the smaller sizes use basecase.
 */
size_t bn_mul_n_itch(size_t n)
{
	return 10 * n + 200;
}

size_t bn_sqr_n_itch(size_t n)
{
	return 10 * n + 200;
}

size_t bn_mul_itch(size_t an, size_t bn)
{
	(void)an;
	return 18 * bn + 400;
}

noinline void bn_mul_n(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *scratch)
{
	if (n < BN_MUL_KARATSUBA_THRESHOLD)
		bn_mul_basecase(r, a, n, b, n);
	else if (n < BN_MUL_TOOM3_THRESHOLD)
		bn_mul_karatsuba(r, a, b, n, scratch);
	else
		bn_mul_toom3(r, a, b, n, scratch);
}

noinline void bn_sqr_n(u64 *r, const u64 *a, size_t n, u64 *scratch)
{
	if (n < BN_SQR_KARATSUBA_THRESHOLD)
		bn_sqr_basecase(r, a, n);
	else if (n < BN_SQR_TOOM3_THRESHOLD)
		bn_sqr_karatsuba(r, a, n, scratch);
	else
		bn_sqr_toom3(r, a, n, scratch);
}

/* a x b, an >= bn >= 1: balanced products of bn-limb slices of a */
noinline void bn_mul(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn, u64 *scratch)
{
	u64 *tmp, *next;
	size_t off;

	if (bn < BN_MUL_KARATSUBA_THRESHOLD) {
		bn_mul_basecase(r, a, an, b, bn);
		return;
	}
	if (an == bn) {
		if (a == b)
			bn_sqr_n(r, a, an, scratch);
		else
			bn_mul_n(r, a, b, an, scratch);
		return;
	}
	tmp = scratch;
	next = tmp + 2 * bn;
	bn_mul_n(r, a, b, bn, next);
	for (off = bn; off < an; off += bn) {
		size_t len = an - off < bn ? an - off : bn;
		u64 cy;

		if (len == bn)
			bn_mul_n(tmp, a + off, b, bn, next);
		else
			bn_mul(tmp, b, bn, a + off, len, next);
		/* r[off .. off + bn) holds the top of the previous product */
		cy = bn_add_n(r + off, r + off, tmp, bn);
		bn_copyi(r + off + bn, tmp + bn, len);
		bn_add_1(r + off + bn, r + off + bn, len, cy);
	}
}

/* ---- allocation: the one place ---------------------------------------- */

#ifdef __KERNEL__
void *bn_mem_alloc(size_t bytes)
{
	return bn_sys_alloc(bytes);
}

void bn_mem_free(void *p)
{
	if (p)
		bn_sys_free(p);
}

void bn_mem_stats(size_t *cur, size_t *peak)
{
	*cur = 0;
	*peak = 0;
}

void bn_mem_reset_peak(void)
{
}
#else
/* user space: count the live bytes so benchmarks can report peak memory */
static size_t bn_mem_cur, bn_mem_peak;
#define BN_MEM_HDR 16

static long bn_mem_countdown = -1;

void bn_mem_fail_after(long allocations)
{
	bn_mem_countdown = allocations;
}

void *bn_mem_alloc(size_t bytes)
{
	unsigned char *p;

	if (bn_mem_countdown >= 0 && bn_mem_countdown-- == 0)
		return NULL;
	if (bytes > ((size_t)-1) - BN_MEM_HDR)
		return NULL;
	p = bn_sys_alloc(bytes + BN_MEM_HDR);
	if (!p)
		return NULL;
	memcpy(p, &bytes, sizeof(bytes));
	bn_mem_cur += bytes;
	if (bn_mem_cur > bn_mem_peak)
		bn_mem_peak = bn_mem_cur;
	return p + BN_MEM_HDR;
}

void bn_mem_free(void *ptr)
{
	unsigned char *p = ptr;
	size_t bytes;

	if (!p)
		return;
	p -= BN_MEM_HDR;
	memcpy(&bytes, p, sizeof(bytes));
	bn_mem_cur -= bytes;
	bn_sys_free(p);
}

void bn_mem_stats(size_t *cur, size_t *peak)
{
	*cur = bn_mem_cur;
	*peak = bn_mem_peak;
}

void bn_mem_reset_peak(void)
{
	bn_mem_peak = bn_mem_cur;
}
#endif

u64 *bn_limbs_alloc(size_t n)
{
	if (n == 0)
		n = 1;
	if (n > ((size_t)-1) / sizeof(u64) / 2)
		return NULL;
	return bn_mem_alloc(n * sizeof(u64));
}

/* ---- struct bn --------------------------------------------------------- */

noinline int bn_init(struct bn *x, size_t cap)
{
	x->limbs = NULL;
	x->size = 0;
	x->cap = 0;
	if (!cap)
		return 0;
	x->limbs = bn_limbs_alloc(cap);
	if (!x->limbs)
		return -ENOMEM;
	x->cap = cap;
	return 0;
}

noinline void bn_release(struct bn *x)
{
	bn_mem_free(x->limbs);
	x->limbs = NULL;
	x->size = 0;
	x->cap = 0;
}

noinline int bn_reserve(struct bn *x, size_t cap)
{
	u64 *p;

	if (cap <= x->cap)
		return 0;
	p = bn_limbs_alloc(cap);
	if (!p)
		return -ENOMEM;
	bn_copyi(p, x->limbs, x->size);
	bn_mem_free(x->limbs);
	x->limbs = p;
	x->cap = cap;
	return 0;
}

int bn_set_u64(struct bn *x, u64 v)
{
	int err = bn_reserve(x, 1);

	if (err)
		return err;
	x->limbs[0] = v;
	x->size = v ? 1 : 0;
	return 0;
}

int bn_copy(struct bn *dst, const struct bn *src)
{
	int err;

	if (dst == src)
		return 0;
	err = bn_reserve(dst, src->size);
	if (err)
		return err;
	bn_copyi(dst->limbs, src->limbs, src->size);
	dst->size = src->size;
	return 0;
}

int bn_cmp_val(const struct bn *a, const struct bn *b)
{
	return bn_cmp(a->limbs, a->size, b->limbs, b->size);
}

noinline int bn_add_val(struct bn *r, const struct bn *a, const struct bn *b)
{
	const struct bn *big = a, *small = b;
	u64 cy;
	int err;

	if (a->size < b->size) {
		big = b;
		small = a;
	}
	err = bn_reserve(r, big->size + 1);	/* a, b may alias r: reserve copies */
	if (err)
		return err;
	cy = bn_add(r->limbs, big->limbs, big->size, small->limbs, small->size);
	r->limbs[big->size] = cy;
	r->size = big->size + (cy ? 1 : 0);
	return 0;
}

noinline int bn_sub_val(struct bn *r, const struct bn *a, const struct bn *b)
{
	int err;

	if (bn_cmp_val(a, b) < 0)
		return -EINVAL;
	if (!a->size) /* 0 - 0: r may own no limbs to point into */
		return bn_set_u64(r, 0);
	err = bn_reserve(r, a->size);
	if (err)
		return err;
	bn_sub(r->limbs, a->limbs, a->size, b->limbs, b->size);
	r->size = bn_normalized_size(r->limbs, a->size);
	return 0;
}

noinline int bn_mul_val(struct bn *r, const struct bn *a, const struct bn *b)
{
	const struct bn *big = a, *small = b;
	size_t rn, itch;
	u64 *t;

	if (a->size < b->size) {
		big = b;
		small = a;
	}
	if (!small->size)
		return bn_set_u64(r, 0);
	rn = big->size + small->size;
	itch = a == b ? bn_sqr_n_itch(big->size) : bn_mul_itch(big->size, small->size);
	t = bn_limbs_alloc(rn + itch);
	if (!t)
		return -ENOMEM;
	if (a == b)
		bn_sqr_n(t, a->limbs, a->size, t + rn);
	else
		bn_mul(t, big->limbs, big->size, small->limbs, small->size, t + rn);
	if (bn_reserve(r, rn)) {
		bn_mem_free(t);
		return -ENOMEM;
	}
	bn_copyi(r->limbs, t, rn);
	r->size = bn_normalized_size(r->limbs, rn);
	bn_mem_free(t);
	return 0;
}

int bn_sqr_val(struct bn *r, const struct bn *a)
{
	return bn_mul_val(r, a, a);
}
