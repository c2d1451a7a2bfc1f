/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bn_x86.h - all the inline assembly of the big-number library (x86-64).
 *
 * bn_impl.h includes this file on x86-64 and bn_generic.h elsewhere; both
 * provide the same functions, which the generic .c files call:
 *
 *   bn_udiv_qrnnd()            128/64 division (divq)
 *   bn_add_n_x4(), bn_sub_n_x4()
 *                              adc/sbb chains: n mod 4 head limbs, then
 *                              4-limb blocks, all n limbs in one asm block
 *   bn_mul_k_ok()              may the BMI2/ADX kernels below be used (the
 *                              mulx rows, the shlx/shrx shifts)
 *   bn_mul_1_k(), bn_addmul_1_k()
 *                              a row, mulx + adcx/adox
 *   bn_addmul_rows_k()         a schoolbook product's rows, one asm block
 *   bn_sqr_diag_k()            a squaring's doubling and diagonal
 *   bn_lshift_blocks_k(), bn_rshift_blocks_k()
 *                              the shifts' 4-limb blocks, shlx/shrx
 */
#ifndef FIBDRV_BN_X86_H
#define FIBDRV_BN_X86_H

#include "bn_compat.h"

/* 128/64 division, nh < d.  Kernel-safe: no __udivti3. */
static inline u64 bn_udiv_qrnnd(u64 *rem, u64 nh, u64 nl, u64 d)
{
	u64 q, r;

	__asm__("divq %4" : "=a"(q), "=d"(r) : "a"(nl), "d"(nh), "rm"(d));
	*rem = r;
	return q;
}

/*
 * adc/sbb chains: gcc does not keep the carry in CF with C code, which
 * makes the plain C loops 2-3x slower than these four-way unrolled ones.
 * One body for both: insn is "adcq" or "sbbq". All n limbs in one asm
 * block: the n mod 4 head limbs in straight-line code chosen before any
 * arithmetic (the choice's compare or test leaves CF = 0), then the 4-limb
 * blocks (dec and lea keep CF); carry (borrow) out in cy (0 on entry).
 */
/* clang-format off */
#define BN_X86_AORS_LIMB(insn)							\
	"movq (%[a],%[i],8), %[t0]\n\t"					\
	insn " (%[b],%[i],8), %[t0]\n\t"					\
	"movq %[t0], (%[r],%[i],8)\n\t"					\
	"leaq 1(%[i]), %[i]\n\t"
#define BN_X86_AORS_N(insn, r_, a_, b_, n_, cy_)					\
	do {										\
		u64 t0, t1, t2, t3;							\
		size_t i = 0, c = (n_) & 3, blocks = (n_) / 4;				\
											\
		__asm__ volatile("cmpq $2, %[c]\n\t"					\
				 "je 12f\n\t"						\
				 "ja 13f\n\t"						\
				 "testq %[c], %[c]\n\t"				\
				 "jz 10f\n\t"						\
				 "jmp 11f\n\t"					\
				 "13:\n\t"						\
				 BN_X86_AORS_LIMB(insn)					\
				 "12:\n\t"						\
				 BN_X86_AORS_LIMB(insn)					\
				 "11:\n\t"						\
				 BN_X86_AORS_LIMB(insn)					\
				 "10:\n\t"						\
				 "jrcxz 4f\n\t"					\
				 "1:\n\t"						\
				 "movq (%[a],%[i],8), %[t0]\n\t"			\
				 "movq 8(%[a],%[i],8), %[t1]\n\t"			\
				 "movq 16(%[a],%[i],8), %[t2]\n\t"			\
				 "movq 24(%[a],%[i],8), %[t3]\n\t"			\
				 insn " (%[b],%[i],8), %[t0]\n\t"			\
				 insn " 8(%[b],%[i],8), %[t1]\n\t"			\
				 insn " 16(%[b],%[i],8), %[t2]\n\t"			\
				 insn " 24(%[b],%[i],8), %[t3]\n\t"			\
				 "movq %[t0], (%[r],%[i],8)\n\t"			\
				 "movq %[t1], 8(%[r],%[i],8)\n\t"			\
				 "movq %[t2], 16(%[r],%[i],8)\n\t"			\
				 "movq %[t3], 24(%[r],%[i],8)\n\t"			\
				 "leaq 4(%[i]), %[i]\n\t"				\
				 "decq %[blocks]\n\t"					\
				 "jnz 1b\n\t"						\
				 "4:\n\t"						\
				 "adcq $0, %[cy]\n\t"					\
				 : [i] "+r"(i), [blocks] "+c"(blocks), [cy] "+r"(cy_),	\
				   [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),	\
				   [t3] "=&r"(t3)					\
				 : [a] "r"(a_), [b] "r"(b_), [r] "r"(r_), [c] "r"(c)	\
				 : "cc", "memory");					\
	} while (0)
/* clang-format on */

/* r = a + b (n limbs, any n); *cy (0 on entry) gets the carry out. Returns n. */
static inline size_t bn_add_n_x4(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *cy)
{
	BN_X86_AORS_N("adcq", r, a, b, n, *cy);
	return n;
}

/* r = a - b, as bn_add_n_x4(); *cy gets the borrow out */
static inline size_t bn_sub_n_x4(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *cy)
{
	BN_X86_AORS_N("sbbq", r, a, b, n, *cy);
	return n;
}

/*
 * mulx + adcx/adox: two independent carry chains (CF for the product
 * high limbs, OF for the addition of r), about 2x faster than the C loop.
 * One asm block per row, any length: n % 4 limbs one at a time, then
 * 4-limb blocks, the carries staying in CF/OF throughout.  The counters run
 * from -n up to 0 with lea/jrcxz, which keep the flags.  Used only when the
 * CPU has BMI2 and ADX.
 */
static inline int bn_use_mulx(void)
{
	static int state; /* 0 unknown, 1 yes, -1 no */

	if (unlikely(!state))
		state = bn_cpu_has_mulx_adx() ? 1 : -1;
	return state > 0;
}

static inline int bn_mul_k_ok(void)
{
	return bn_use_mulx();
}

/* clang-format off */
/*
 * One limb at off(base, idx, 8): mulx into lo and out, the previous high
 * limb (in) added along CF, r's limb (add_r) along OF, lo stored.
 */
#define BN_X86_MULX_LIMB(add_r, off, idx, in, out)				\
	"mulx " off "(%[ae]," idx ",8), %[lo], " out "\n\t"			\
	"adcx " in ", %[lo]\n\t"						\
	add_r(off "(%[re]," idx ",8)", "%[lo]")					\
	"movq %[lo], " off "(%[re]," idx ",8)\n\t"
/* one limb, then the high limb moves to cy: the head of a row */
#define BN_X86_MULX_1(add_r)							\
	BN_X86_MULX_LIMB(add_r, "", "%[i]", "%[cy]", "%[hi]")			\
	"movq %[hi], %[cy]\n\t"
/* four limbs at index c, the high limbs alternating between hi and cy */
#define BN_X86_MULX_4(add_r)							\
	BN_X86_MULX_LIMB(add_r, "", "%[c]", "%[cy]", "%[hi]")			\
	BN_X86_MULX_LIMB(add_r, "8", "%[c]", "%[hi]", "%[cy]")			\
	BN_X86_MULX_LIMB(add_r, "16", "%[c]", "%[cy]", "%[hi]")			\
	BN_X86_MULX_LIMB(add_r, "24", "%[c]", "%[hi]", "%[cy]")
#define BN_X86_ADD_R(src, dst) "adox " src ", " dst "\n\t"
#define BN_X86_NO_R(src, dst) ""
/*
 * The 4-limb blocks from limb i on, then the carries into cy: CF's, and
 * OF's when adding r (lo, free by then, holds the zero: mov keeps the
 * flags). The loop is 16-byte aligned.
 */
#define BN_X86_MULX_BLOCKS(add_r)						\
	"movq %[i], %[c]\n\t"							\
	"jrcxz 4f\n\t"								\
	".p2align 4\n\t"							\
	"3:\n\t"								\
	BN_X86_MULX_4(add_r)							\
	"leaq 4(%[c]), %[c]\n\t"						\
	"jrcxz 4f\n\t"								\
	"jmp 3b\n\t"								\
	"4:\n\t"								\
	"movl $0, %k[lo]\n\t"							\
	"adcx %[lo], %[cy]\n\t"							\
	add_r("%[lo]", "%[cy]")
#define BN_X86_MULX_1_NEXT(add_r)						\
	BN_X86_MULX_1(add_r)							\
	"leaq 1(%[i]), %[i]\n\t"
/*
 * A row from limb i = -n on, c = -(n mod 4) in rcx: the n mod 4 head
 * limbs singly, in straight-line code chosen before any arithmetic (a loop
 * of singles cost a misprediction at nearly every row of a squaring's
 * triangle, whose rows shorten by one), CF = OF = 0 from the test or the
 * xor of lo (the choice's cmp sets them); then 4-limb blocks, the carry
 * limb in cy. The counters go up to 0 with
 * lea/jrcxz, which keep the flags.
 */
#define BN_X86_MULX_ROW_LOOPS(add_r)						\
	"cmpq $-2, %[c]\n\t"							\
	"je 7f\n\t"								\
	"jl 8f\n\t"								\
	"testq %[c], %[c]\n\t"							\
	"jz 2f\n\t"								\
	"xorl %k[lo], %k[lo]\n\t"						\
	BN_X86_MULX_1_NEXT(add_r)						\
	"jmp 2f\n\t"								\
	"8:\n\t"								\
	"xorl %k[lo], %k[lo]\n\t"						\
	BN_X86_MULX_1_NEXT(add_r)						\
	"jmp 9f\n\t"								\
	"7:\n\t"								\
	"xorl %k[lo], %k[lo]\n\t"						\
	"9:\n\t"								\
	BN_X86_MULX_1_NEXT(add_r)						\
	BN_X86_MULX_1_NEXT(add_r)						\
	"2:\n\t"								\
	BN_X86_MULX_BLOCKS(add_r)
/*
 * r[0 .. n) = (add ? r : 0) + a * b; returns the carry limb.  One body
 * for both operations: add_r is BN_X86_ADD_R or BN_X86_NO_R.
 */
#define BN_X86_MULX_ROW(add_r, r_, a_, n_, b_, cy_)					\
	do {										\
		const u64 *ae = (a_) + (n_);						\
		u64 *re = (r_) + (n_);							\
		long i = -(long)(n_), c = -(long)((n_) & 3);				\
		u64 lo, hi;								\
											\
		__asm__ volatile(							\
			BN_X86_MULX_ROW_LOOPS(add_r)					\
			: [c] "+c"(c), [i] "+r"(i), [lo] "=&r"(lo), [hi] "=&r"(hi),	\
			  [cy] "+r"(cy_)						\
			: [ae] "r"(ae), [re] "r"(re), "d"(b_)				\
			: "cc", "memory");						\
	} while (0)
/* clang-format on */

/* clang-format off */
/*
 * The rows kernels' heads: h single limbs in straight-line code, the h of
 * a row fixed where the rows are laid out, not chosen per row.
 */
#define BN_X86_HEAD_0 ""
#define BN_X86_HEAD_1 BN_X86_MULX_1_NEXT(BN_X86_ADD_R)
#define BN_X86_HEAD_2 BN_X86_HEAD_1 BN_X86_HEAD_1
#define BN_X86_HEAD_3 BN_X86_HEAD_2 BN_X86_HEAD_1
/*
 * One row of r[.. re) += a[.. ae) * (bp), its length -nneg = 4k + h, the
 * head of h singles given: cy = CF = OF = 0 (xor), the head, the 4-limb blocks,
 * the carry limb stored at re; then re and bp move on by a limb (a
 * product's next row ends a limb further; so does a triangle's, which also
 * starts two further).
 */
#define BN_X86_ROW(head)							\
	"movq (%[bp]), %%rdx\n\t"						\
	"movq %[nneg], %[i]\n\t"						\
	"xorl %k[cy], %k[cy]\n\t" /* and CF = OF = 0 */			\
	head									\
	BN_X86_MULX_BLOCKS(BN_X86_ADD_R)					\
	"movq %[cy], (%[re])\n\t"						\
	"leaq 8(%[re]), %[re]\n\t"						\
	"leaq 8(%[bp]), %[bp]\n\t"
/* a product's m rows, all of one length and so one head */
#define BN_X86_PRODUCT_ROWS(head)						\
	__asm__ volatile("5:\n\t"						\
			 BN_X86_ROW(head)					\
			 "decq %[m]\n\t"					\
			 "jnz 5b\n\t"						\
			 : [c] "=&c"(c), [i] "=&r"(i), [lo] "=&r"(lo), [hi] "=&r"(hi), \
			   [cy] "=&r"(cy), [re] "+r"(re), [bp] "+r"(b), [m] "+r"(m), \
			   "=&d"(bj)						\
			 : [ae] "r"(ae), [nneg] "r"(nneg)			\
			 : "cc", "memory")
/* a triangle's row, a limb shorter than the one before; the last ends it */
#define BN_X86_TRIANGLE_ROW(head)						\
	BN_X86_ROW(head)							\
	"incq %[nneg]\n\t"							\
	"decq %[m]\n\t"								\
	"jz 9f\n\t"
/* clang-format on */

/*
 * The rows j = 0 .. m - 1 of a schoolbook product or squaring: r[j .. j +
 * n_j) += (the last n_j limbs of a[0 .. n)) * b[j], the carry limb to
 * r[j + n_j], n_j = n - shrink j >= 1 (shrink 0: a product's rows; 1: a
 * squaring's triangle, each row a limb shorter and starting a limb
 * further into a). One asm block for all of them: a row's setup in C (its
 * pointers, the call of the row kernel, the carry's store) cost about a
 * quarter of a 16-limb row, and choosing each row's head of n_j mod 4
 * singles as the row starts (three compares and branches) up to a fifth
 * of a 13- to 20-limb row. So the heads are laid out once: a product's
 * rows all have n's head (one of four copies of the loop, chosen in C);
 * a triangle's rows cycle through the four heads as they shorten, so its
 * loop holds four rows, heads 3, 2, 1, 0, entered at the first row's.
 */
static inline void bn_addmul_rows_k(u64 *r, const u64 *a, size_t n, const u64 *b, size_t m,
				    long shrink)
{
	const u64 *ae = a + n;
	u64 *re = r + n;
	long nneg = -(long)n, i, c;
	u64 lo, hi, cy, bj;

	if (!m)
		return;
	if (!shrink) {
		switch (n & 3) {
		case 0:
			BN_X86_PRODUCT_ROWS(BN_X86_HEAD_0);
			break;
		case 1:
			BN_X86_PRODUCT_ROWS(BN_X86_HEAD_1);
			break;
		case 2:
			BN_X86_PRODUCT_ROWS(BN_X86_HEAD_2);
			break;
		default:
			BN_X86_PRODUCT_ROWS(BN_X86_HEAD_3);
			break;
		}
		return;
	}
	/* clang-format off */
	__asm__ volatile(
		"movq %[nneg], %[c]\n\t"
		"negq %[c]\n\t"
		"andq $3, %[c]\n\t"
		"cmpq $2, %[c]\n\t"
		"je 12f\n\t"
		"ja 13f\n\t"
		"testq %[c], %[c]\n\t"
		"jz 10f\n\t"
		"jmp 11f\n\t"
		"13:\n\t" BN_X86_TRIANGLE_ROW(BN_X86_HEAD_3)
		"12:\n\t" BN_X86_TRIANGLE_ROW(BN_X86_HEAD_2)
		"11:\n\t" BN_X86_TRIANGLE_ROW(BN_X86_HEAD_1)
		"10:\n\t" BN_X86_TRIANGLE_ROW(BN_X86_HEAD_0)
		"jmp 13b\n\t"
		"9:\n\t"
		: [c] "=&c"(c), [i] "=&r"(i), [lo] "=&r"(lo), [hi] "=&r"(hi), [cy] "=&r"(cy),
		  [re] "+r"(re), [bp] "+r"(b), [m] "+r"(m), [nneg] "+r"(nneg), "=&d"(bj)
		: [ae] "r"(ae)
		: "cc", "memory");
	/* clang-format on */
}

/* r[0 .. n) += a * b; returns the carry limb (any n, 0 included) */
static inline u64 bn_addmul_1_k(u64 *r, const u64 *a, size_t n, u64 b)
{
	u64 cy = 0;

	BN_X86_MULX_ROW(BN_X86_ADD_R, r, a, n, b, cy);
	return cy;
}

/* r[0 .. n) = a * b; returns the carry limb */
static inline u64 bn_mul_1_k(u64 *r, const u64 *a, size_t n, u64 b)
{
	u64 cy = 0;

	BN_X86_MULX_ROW(BN_X86_NO_R, r, a, n, b, cy);
	return cy;
}

/*
 * The 4-limb blocks of the shifts (bn_shift.c), with BMI2's shlx/shrx: the
 * counts in any register, where shl/shr want %cl for both and gcc reloads
 * it at every limb. Same CPU check as the mulx rows (BMI2 with ADX).
 */
/* clang-format off */
#define BN_X86_SHL2(hi, lo, at)							\
	"shlxq %[cnt], " hi ", %[t]\n\t"					\
	"shrxq %[tnc], " lo ", %[u]\n\t"					\
	"orq %[u], %[t]\n\t"							\
	"movq %[t], " at "\n\t"
/* clang-format on */

/*
 * r[i], r[i - 1], ... from the top down while i >= 4, hi = a[i] on entry:
 * r[j] = (a[j] << cnt) | (a[j - 1] >> (64 - cnt)), four limbs read before
 * any is written (r may be a, or above it). Returns the new i; *hi = a[i].
 */
static inline size_t bn_lshift_blocks_k(u64 *r, const u64 *a, size_t i, u64 *hi, unsigned int cnt)
{
	u64 l0, l1, l2, l3, t, u, h = *hi, c = cnt, tc = 64 - cnt;

	if (i < 4)
		return i;
	/* clang-format off */
	__asm__ volatile("1:\n\t"
			 "movq -8(%[a],%[i],8), %[l3]\n\t"
			 "movq -16(%[a],%[i],8), %[l2]\n\t"
			 "movq -24(%[a],%[i],8), %[l1]\n\t"
			 "movq -32(%[a],%[i],8), %[l0]\n\t"
			 BN_X86_SHL2("%[h]", "%[l3]", "(%[r],%[i],8)")
			 BN_X86_SHL2("%[l3]", "%[l2]", "-8(%[r],%[i],8)")
			 BN_X86_SHL2("%[l2]", "%[l1]", "-16(%[r],%[i],8)")
			 BN_X86_SHL2("%[l1]", "%[l0]", "-24(%[r],%[i],8)")
			 "movq %[l0], %[h]\n\t"
			 "subq $4, %[i]\n\t"
			 "cmpq $4, %[i]\n\t"
			 "jae 1b\n\t"
			 : [i] "+r"(i), [h] "+r"(h), [l0] "=&r"(l0), [l1] "=&r"(l1),
			   [l2] "=&r"(l2), [l3] "=&r"(l3), [t] "=&r"(t), [u] "=&r"(u)
			 : [a] "r"(a), [r] "r"(r), [cnt] "r"(c), [tnc] "r"(tc)
			 : "cc", "memory");
	/* clang-format on */
	*hi = h;
	return i;
}

/*
 * r[i], r[i + 1], ... from the bottom up while i + 4 < n, lo = a[i] on
 * entry: r[j] = (a[j + 1] << (64 - cnt)) | (a[j] >> cnt), four limbs read
 * before any is written (r may be a, or below it). Returns the new i;
 * *lo = a[i].
 */
static inline size_t bn_rshift_blocks_k(u64 *r, const u64 *a, size_t i, size_t n, u64 *lo,
					unsigned int cnt)
{
	u64 h1, h2, h3, h4, t, u, l = *lo, c = cnt, tc = 64 - cnt;

	if (i + 4 >= n)
		return i;
	/* clang-format off */
	__asm__ volatile("1:\n\t"
			 "movq 8(%[a],%[i],8), %[h1]\n\t"
			 "movq 16(%[a],%[i],8), %[h2]\n\t"
			 "movq 24(%[a],%[i],8), %[h3]\n\t"
			 "movq 32(%[a],%[i],8), %[h4]\n\t"
			 BN_X86_SHL2("%[h1]", "%[l]", "(%[r],%[i],8)")
			 BN_X86_SHL2("%[h2]", "%[h1]", "8(%[r],%[i],8)")
			 BN_X86_SHL2("%[h3]", "%[h2]", "16(%[r],%[i],8)")
			 BN_X86_SHL2("%[h4]", "%[h3]", "24(%[r],%[i],8)")
			 "movq %[h4], %[l]\n\t"
			 "addq $4, %[i]\n\t"
			 "leaq 4(%[i]), %[t]\n\t"
			 "cmpq %[n], %[t]\n\t"
			 "jb 1b\n\t"
			 : [i] "+r"(i), [l] "+r"(l), [h1] "=&r"(h1), [h2] "=&r"(h2),
			   [h3] "=&r"(h3), [h4] "=&r"(h4), [t] "=&r"(t), [u] "=&r"(u)
			 : [a] "r"(a), [r] "r"(r), [n] "r"(n), [cnt] "r"(tc), [tnc] "r"(c)
			 : "cc", "memory");
	/* clang-format on */
	*lo = l;
	return i;
}

/*
 * r[0 .. 2n) = 2 r + the squares a[i]^2 at limb 2i: the diagonal of a
 * squaring.  adcx x, x doubles along the CF chain (the top bit of each limb
 * carries into the next), adox adds the squares along OF.  The result must
 * fit in 2n limbs (it does for a square's off-diagonal half).
 */
static inline void bn_sqr_diag_k(u64 *r, const u64 *a, size_t n)
{
	const u64 *ae = a + n;
	long c = -(long)n;
	u64 lo, hi, x0, x1, d;

	__asm__ volatile("xorl %k[lo], %k[lo]\n\t" /* CF = OF = 0 */
			 "jrcxz 2f\n\t"
			 "1:\n\t"
			 "movq (%[ae],%[c],8), %[d]\n\t"
			 "mulx %[d], %[lo], %[hi]\n\t"
			 "movq (%[r]), %[x0]\n\t"
			 "movq 8(%[r]), %[x1]\n\t"
			 "adcx %[x0], %[x0]\n\t"
			 "adox %[lo], %[x0]\n\t"
			 "adcx %[x1], %[x1]\n\t"
			 "adox %[hi], %[x1]\n\t"
			 "movq %[x0], (%[r])\n\t"
			 "movq %[x1], 8(%[r])\n\t"
			 "leaq 16(%[r]), %[r]\n\t"
			 "leaq 1(%[c]), %[c]\n\t"
			 "jrcxz 2f\n\t"
			 "jmp 1b\n\t"
			 "2:\n\t"
			 : [c] "+c"(c), [r] "+r"(r), [lo] "=&r"(lo), [hi] "=&r"(hi), [x0] "=&r"(x0),
			   [x1] "=&r"(x1), [d] "=&d"(d)
			 : [ae] "r"(ae)
			 : "cc", "memory");
}

#endif /* FIBDRV_BN_X86_H */
