/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bn.h - big-number library of fibdrv, layered like GMP (a file of a layer
 * calls only into its own layer or those below; scripts/layers-fibdrv.sh):
 *
 *   0. the allocator (bn_mem.c): every allocation of the library goes
 *      through bn_mem_alloc()/bn_mem_free();
 *   1. the limb layer (GMP's mpn): arrays of u64 limbs, least significant
 *      first, explicit lengths. Its primitives (bn_add_n, bn_mul_basecase,
 *      bn_sqr_toom3, ...) take caller-provided scratch, never allocate,
 *      never fail; division by a multi-limb number and the conversion to
 *      decimal (below, "conversions") may allocate and may fail;
 *   2. struct bn, a value that owns its limbs (bn_init, bn_reserve, ...),
 *      and its conversions (bn_from_dec, binary).
 *
 * Functions that can fail return 0 (or a non-negative size) on success and
 * a negative errno (-ENOMEM, -EINTR, -EINVAL, -ENOSPC, ...) on failure.
 * The library's private helpers are in bn_impl.h.  See docs/bignum.md.
 */
#ifndef FIBDRV_BN_H
#define FIBDRV_BN_H

#include "bn_compat.h"

#define BN_LIMB_BITS 64

/*
 * Thresholds (in limbs) of the multiplication dispatchers, measured with
 * build/bench/bn_bench --tune on the project machine (AMD EPYC, gcc 12 -O2).
 * See docs/bignum.md for the measurement.
 */
#ifndef BN_MUL_KARATSUBA_THRESHOLD
#define BN_MUL_KARATSUBA_THRESHOLD 26
#endif
#ifndef BN_SQR_KARATSUBA_THRESHOLD
#define BN_SQR_KARATSUBA_THRESHOLD 36
#endif
#ifndef BN_MUL_TOOM3_THRESHOLD
#define BN_MUL_TOOM3_THRESHOLD 170
#endif
#ifndef BN_SQR_TOOM3_THRESHOLD
#define BN_SQR_TOOM3_THRESHOLD 240
#endif
#ifndef BN_MUL_TOOM4_THRESHOLD
#define BN_MUL_TOOM4_THRESHOLD 250
#endif
#ifndef BN_SQR_TOOM4_THRESHOLD
#define BN_SQR_TOOM4_THRESHOLD 1400
#endif
#ifndef BN_MUL_NTT_THRESHOLD
#define BN_MUL_NTT_THRESHOLD 3400
#endif
#ifndef BN_SQR_NTT_THRESHOLD
#define BN_SQR_NTT_THRESHOLD 3500
#endif
/*
 * Below those, bn_mul_n()/bn_sqr_n() still take the NTT from this many
 * limbs where its transform has at most 1.6 points per limb of n: its
 * cost steps with the length (2^k or 3 2^k points), Toom-4's grows
 * smoothly (__bn_ntt_pays()).
 */
#ifndef BN_NTT_FULL_MIN
#define BN_NTT_FULL_MIN 2400
#endif
/* Below this many limbs the D&C decimal conversion uses the simple one. */
#ifndef BN_DEC_DC_THRESHOLD
#define BN_DEC_DC_THRESHOLD 24
#endif
/*
 * From this many limbs the D&C conversion divides by a power of about
 * 1/BN_DEC_CHAIN_PARTS of x's size, again and again (a chain), instead of
 * halving x at the top: smaller divisions, less memory, a little more time.
 */
#ifndef BN_DEC_CHAIN_MIN
#define BN_DEC_CHAIN_MIN 8192
#endif
#ifndef BN_DEC_CHAIN_PARTS
#define BN_DEC_CHAIN_PARTS 4
#endif

/* ---- layer 0: the allocator (bn_mem.c) ------------------------------ */

/* The single allocation policy: kvmalloc in the kernel, malloc outside. */
void *bn_mem_alloc(size_t bytes);
void bn_mem_free(void *p);
u64 *bn_limbs_alloc(size_t n); /* NULL on overflow or out of memory */
/* live and peak bytes (zero without BN_MEM_ACCOUNTING, i.e. in the kernel) */
void bn_mem_stats(size_t *cur, size_t *peak);
void bn_mem_reset_peak(void);
#if BN_MEM_ACCOUNTING
/* tests: make the allocation after the next 'allocations' ones fail (-1: off) */
void bn_mem_fail_after(long allocations);
#endif

/* ---- layer 1: limb primitives -------------------------------------- */

/* r = a + b (n limbs each), returns the carry (0/1). r may alias a or b. */
u64 bn_add_n(u64 *r, const u64 *a, const u64 *b, size_t n);
/* r = a + b with an >= bn; returns carry. r may alias a. */
u64 bn_add(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn);
/* r = a + b (single limb), returns carry. */
u64 bn_add_1(u64 *r, const u64 *a, size_t n, u64 b);
/* r = a - b, returns the borrow (0/1). */
u64 bn_sub_n(u64 *r, const u64 *a, const u64 *b, size_t n);
u64 bn_sub(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn);
u64 bn_sub_1(u64 *r, const u64 *a, size_t n, u64 b);
/* r = a << cnt (0 < cnt < 64), returns the bits shifted out on top. */
u64 bn_lshift(u64 *r, const u64 *a, size_t n, unsigned int cnt);
/* r = a >> cnt (0 < cnt < 64), returns the bits shifted out (in the top). */
u64 bn_rshift(u64 *r, const u64 *a, size_t n, unsigned int cnt);
/* r = a * b, returns the high limb. */
u64 bn_mul_1(u64 *r, const u64 *a, size_t n, u64 b);
/* r += a * b, returns the carry limb. */
u64 bn_addmul_1(u64 *r, const u64 *a, size_t n, u64 b);
/* r -= a * b, returns the borrow limb. */
u64 bn_submul_1(u64 *r, const u64 *a, size_t n, u64 b);
/* q = a / d, returns a mod d (d != 0). q may alias a; q may be NULL. */
u64 bn_divrem_1(u64 *q, const u64 *a, size_t n, u64 d);
/* r = a / 3 where 3 divides a exactly (also for two's complement a). */
void bn_divexact_by3(u64 *r, const u64 *a, size_t n);
/* r = a / 5 where 5 divides a exactly (Toom-4). */
void bn_divexact_by5(u64 *r, const u64 *a, size_t n);
/* compare a and b (n limbs each): -1, 0, 1 */
int bn_cmp_n(const u64 *a, const u64 *b, size_t n);
/* compare a (an limbs) and b (bn limbs), both may have leading zeros */
int bn_cmp(const u64 *a, size_t an, const u64 *b, size_t bn);
/* number of limbs without leading zero limbs */
size_t bn_normalized_size(const u64 *a, size_t n);

/* r = 0 (n limbs) */
static inline void bn_zero(u64 *r, size_t n)
{
	if (n)
		memset(r, 0, n * sizeof(u64));
}

/* r = a (n limbs); r and a may overlap. */
static inline void bn_copyi(u64 *r, const u64 *a, size_t n)
{
	if (n)
		memmove(r, a, n * sizeof(u64));
}

/*
 * Multiplication.  r must not overlap the inputs and has room for
 * an + bn (or 2n) limbs.  "scratch" has at least the number of limbs
 * given by the matching *_itch() function.
 */
void bn_mul_basecase(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn);
void bn_sqr_basecase(u64 *r, const u64 *a, size_t n);
void bn_mul_karatsuba(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *scratch);
void bn_sqr_karatsuba(u64 *r, const u64 *a, size_t n, u64 *scratch);
void bn_mul_toom3(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *scratch);
void bn_sqr_toom3(u64 *r, const u64 *a, size_t n, u64 *scratch);
void bn_mul_toom4(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *scratch);
void bn_sqr_toom4(u64 *r, const u64 *a, size_t n, u64 *scratch);
/*
 * Number-theoretic transforms (bn_ntt.c, bn_ntt_mul.c): r = a b, an + bn limbs, or a^2,
 * 2n limbs; scratch bn_ntt_itch(product limbs, squaring?) limbs.  The
 * stages, exported to be traced and tested: a transform per prime (0..2),
 * the pointwise product, the inverse, the Chinese-remainder recombination.
 */
void bn_mul_ntt(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn, u64 *scratch);
void bn_sqr_ntt(u64 *r, const u64 *a, size_t n, u64 *scratch);
size_t bn_ntt_itch(size_t rn, int sqr);
void bn_ntt_fwd(u64 *x, const u64 *a, size_t an, unsigned int bits, size_t N, const u64 *tw,
		int prime);
void bn_ntt_pointwise(u64 *x, const u64 *y, size_t N, int prime);
void bn_ntt_inv(u64 *x, size_t N, const u64 *tw, int prime);
void bn_ntt_crt(u64 *r, size_t rn, u64 *const x[3], size_t np, unsigned int bits, size_t N,
		u64 *carry);
/*
 * r (N limbs) = a b mod (B^N - 1), an, bn <= N, N a transform length (2^k
 * or 3 2^k) or one that __bn_bnm1_size() gives (bn_impl.h); scratch
 * bn_mulmod_bnm1_itch(N)
 */
size_t bn_mulmod_bnm1_itch(size_t N);
void bn_mulmod_bnm1(u64 *r, size_t N, const u64 *a, size_t an, const u64 *b, size_t bn,
		    u64 *scratch);
/* balanced dispatchers: pick basecase / Karatsuba / Toom-3 / NTT by size */
void bn_mul_n(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *scratch);
void bn_sqr_n(u64 *r, const u64 *a, size_t n, u64 *scratch);
/* general product, an >= bn >= 1 */
void bn_mul(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn, u64 *scratch);

size_t bn_mul_n_itch(size_t n);
size_t bn_sqr_n_itch(size_t n);
size_t bn_mul_itch(size_t an, size_t bn);

/* ---- layer 2: values ------------------------------------------------ */

struct bn {
	u64 *limbs;  /* least significant first */
	size_t size; /* significant limbs; 0 means the value 0 */
	size_t cap;  /* allocated limbs */
};

/* clang-format off */
#define BN_INIT { NULL, 0, 0 }
/* clang-format on */

int bn_init(struct bn *x, size_t cap);
void bn_release(struct bn *x);		  /* frees, leaves x == BN_INIT */
int bn_reserve(struct bn *x, size_t cap); /* keeps the value */
int bn_set_u64(struct bn *x, u64 v);
int bn_copy(struct bn *dst, const struct bn *src);
int bn_cmp_val(const struct bn *a, const struct bn *b);
int bn_add_val(struct bn *r, const struct bn *a, const struct bn *b);
/* r = a - b, -EINVAL if a < b */
int bn_sub_val(struct bn *r, const struct bn *a, const struct bn *b);
/* r = a * b with the fastest multiplication; r may alias a or b */
int bn_mul_val(struct bn *r, const struct bn *a, const struct bn *b);
int bn_sqr_val(struct bn *r, const struct bn *a);

/*
 * ---- conversions and division, which may allocate ----------------------
 * limbs to decimal: bn_dec.c (layer 1); struct bn from decimal and binary:
 * bn_val_conv.c (layer 2); division and inverse: bn_div.c, bn_inv.c (layer 1)
 */

/* upper bound of the decimal digits of an n-limb number (>= 1) */
size_t bn_dec_bound(size_t n);
/*
 * Decimal conversion of a (n limbs, leading zeros allowed) into buf:
 * ASCII digits, most significant first, no sign, no NUL; 0 gives "0".
 * Returns the number of digits, or -ENOSPC when cap < bn_dec_bound(n),
 * -ENOMEM, -EINTR.
 */
long bn_to_dec_simple(const u64 *a, size_t n, char *buf, size_t cap);
long bn_to_dec_dc(const u64 *a, size_t n, char *buf, size_t cap);
long bn_to_dec(const u64 *a, size_t n, char *buf, size_t cap); /* best */
/* Parse len ASCII digits (no sign); -EINVAL on a non-digit or len == 0. */
int bn_from_dec(struct bn *x, const char *s, size_t len);
/*
 * Binary: little-endian u64 limbs, minimal length (no zero top limb),
 * so the value 0 is 0 bytes.  bn_to_bin returns bytes written or -ENOSPC.
 */
size_t bn_bin_size(const struct bn *x);
long bn_to_bin(const struct bn *x, char *buf, size_t cap);
int bn_from_bin(struct bn *x, const char *buf, size_t len);

/*
 * Barrett division by a normalised-on-the-fly divisor, used by the
 * D&C conversion; exposed for tests.  q gets xn - dn + 1 limbs, r gets
 * dn limbs.  Requires dn >= 1, d[dn-1] != 0, xn >= dn.  Allocates.
 */
int bn_divrem(u64 *q, u64 *r, const u64 *x, size_t xn, const u64 *d, size_t dn);
/* v (n + 1 limbs) = floor(B^(2n) / d) for normalised d (top bit set). */
int bn_invert(u64 *v, const u64 *d, size_t n);

#endif /* FIBDRV_BN_H */
