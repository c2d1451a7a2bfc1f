// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_mul_1.c - multiplication by a single limb (bn_mul_1, bn_addmul_1,
 * bn_submul_1) and the schoolbook product and squaring built on it.  The
 * faster products are in bn_mul.c.
 */
#include "bn_impl.h"

/* ---- by a single limb ------------------------------------------------- */

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

/*
 * The machine layer's row kernel when it may, else the C loop.  One body
 * for the traced entry points and for the schoolbook products' first
 * rows, which call it inline (a call per row cost a fifth of a 27-limb
 * row); their other rows run in addmul_rows() below.
 */
static __always_inline u64 mul_1_row(u64 *r, const u64 *a, size_t n, u64 b)
{
	if (bn_mul_k_ok())
		return bn_mul_1_k(r, a, n, b);
	return bn_mul_1_c(r, a, n, b);
}

static __always_inline u64 addmul_1_row(u64 *r, const u64 *a, size_t n, u64 b)
{
	if (bn_mul_k_ok())
		return bn_addmul_1_k(r, a, n, b);
	return bn_addmul_1_c(r, a, n, b);
}

noinline u64 bn_mul_1(u64 *r, const u64 *a, size_t n, u64 b)
{
	return mul_1_row(r, a, n, b);
}

noinline u64 bn_addmul_1(u64 *r, const u64 *a, size_t n, u64 b)
{
	return addmul_1_row(r, a, n, b);
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

/* ---- schoolbook ------------------------------------------------------- */

/*
 * Rows between bn_resched() calls: the schoolbook products run on operands
 * of any size when a caller asks for them (bn-fdouble at n = 3 * 10^6:
 * 33,000 limbs, ~10^9 limb products, 0.3-0.5 s in one call); 64 rows of
 * that are 2 * 10^6 (about 1 ms). Below 64 rows no call is made.
 */
#define BN_RESCHED_ROWS 64

/*
 * Rows k = 0 .. m - 1: r[k (1 + shrink) ..) += a[k shrink .. n) * b[k],
 * the carry limb to r[n + k]: a product's rows (shrink 0), or a squaring's
 * triangle (shrink 1: each row a limb shorter, a limb further into a and
 * two further into r). One body for both: the machine layer's, all rows
 * in one asm block, else the C row; bn_resched() every BN_RESCHED_ROWS.
 */
static __always_inline void addmul_rows(u64 *r, const u64 *a, size_t n, const u64 *b, size_t m,
					size_t shrink)
{
	size_t j, c, k;

	for (j = 0; j < m; j += c) {
		c = m - j < BN_RESCHED_ROWS ? m - j : BN_RESCHED_ROWS;
		if (j)
			bn_resched();
		if (bn_mul_k_ok()) {
			bn_addmul_rows_k(r + j * (1 + shrink), a + j * shrink, n - j * shrink,
					 b + j, c, (long)shrink);
			continue;
		}
		for (k = j; k < j + c; k++)
			r[n + k] = bn_addmul_1_c(r + k * (1 + shrink), a + k * shrink,
						 n - k * shrink, b[k]);
	}
}

noinline void bn_mul_basecase(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn)
{
	r[an] = mul_1_row(r, a, an, b[0]);
	addmul_rows(r + 1, a, an, b + 1, bn - 1, 0);
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
	/* off-diagonal products a[i] * a[j], i < j: row i is a[i + 1 ..) * a[i] at 2i + 1 */
	r[0] = 0;
	r[n] = mul_1_row(r + 1, a + 1, n - 1, a[0]);
	addmul_rows(r + 3, a + 2, n - 2, a + 1, n - 2, 1);
	r[2 * n - 1] = 0;
	/* double them and add the squares a[i]^2 */
	if (bn_mul_k_ok()) {
		bn_sqr_diag_k(r, a, n);
		return;
	}
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
