/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bn_x86.h - all the inline assembly of the big-number library (x86-64).
 *
 * bn_impl.h includes this file on x86-64 and bn_generic.h elsewhere; both
 * provide the same functions, which the generic .c files call:
 *
 *   bn_udiv_qrnnd()            128/64 division (divq)
 *   bn_add_n_x4(), bn_sub_n_x4()
 *                              adc/sbb chains over 4-limb blocks
 *   bn_mul_x4_ok()             may bn_mul_1_x4()/bn_addmul_1_x4() be used
 *   bn_mul_1_x4(), bn_addmul_1_x4()
 *                              mulx + adcx/adox over 4-limb blocks
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
 * One body for both: insn is "adcq" or "sbbq".  Processes blocks * 4 limbs
 * from limb i on (i advances), carry in 0, carry (borrow) out in cy.
 */
/* clang-format off */
#define BN_X86_AORS_X4(insn, r_, a_, b_, i_, blocks_, cy_)				\
	do {										\
		u64 t0, t1, t2, t3;							\
											\
		__asm__ volatile("clc\n\t"						\
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
				 "adcq $0, %[cy]\n\t"					\
				 : [i] "+r"(i_), [blocks] "+r"(blocks_), [cy] "+r"(cy_),	\
				   [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),	\
				   [t3] "=&r"(t3)					\
				 : [a] "r"(a_), [b] "r"(b_), [r] "r"(r_)		\
				 : "cc", "memory");					\
	} while (0)
/* clang-format on */

/*
 * r = a + b on the first 4 * (n / 4) limbs (none when n < 4); *cy (0 on
 * entry) gets the carry out.  Returns the number of limbs done.
 */
static inline size_t bn_add_n_x4(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *cy)
{
	size_t i = 0;

	if (n >= 4) {
		size_t blocks = n / 4;

		BN_X86_AORS_X4("adcq", r, a, b, i, blocks, *cy);
	}
	return i;
}

/* r = a - b, as bn_add_n_x4(); *cy gets the borrow out */
static inline size_t bn_sub_n_x4(u64 *r, const u64 *a, const u64 *b, size_t n, u64 *cy)
{
	size_t i = 0;

	if (n >= 4) {
		size_t blocks = n / 4;

		BN_X86_AORS_X4("sbbq", r, a, b, i, blocks, *cy);
	}
	return i;
}

/*
 * mulx + adcx/adox: two independent carry chains (CF for the product
 * high limbs, OF for the addition of r), about 2x faster than the C loop.
 * The loop counter runs from -n up to 0 with lea/jrcxz, which keep the
 * flags.  Used only when the CPU has BMI2 and ADX, for n >= 8 limbs.
 */
static inline int bn_use_mulx(void)
{
	static int state; /* 0 unknown, 1 yes, -1 no */

	if (unlikely(!state))
		state = bn_cpu_has_mulx_adx() ? 1 : -1;
	return state > 0;
}

static inline int bn_mul_x4_ok(size_t n)
{
	return n >= 8 && bn_use_mulx();
}

/* r[0 .. 4 blocks) += a * b, the first carry in is cy; returns the carry */
static inline u64 bn_addmul_1_x4(u64 *r, const u64 *a, size_t blocks, u64 b, u64 cy)
{
	const u64 *ae = a + 4 * blocks;
	u64 *re = r + 4 * blocks;
	long i = -4 * (long)blocks;
	u64 lo, hi, zero;

	__asm__ volatile(
		"xorl %k[zero], %k[zero]\n\t" /* CF = OF = 0 */
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
		: [i] "+c"(i), [lo] "=&r"(lo), [hi] "=&r"(hi), [cy] "+r"(cy), [zero] "=&r"(zero)
		: [ae] "r"(ae), [re] "r"(re), "d"(b)
		: "cc", "memory");
	return cy;
}

/* r[0 .. 4 blocks) = a * b + cy; returns the carry limb */
static inline u64 bn_mul_1_x4(u64 *r, const u64 *a, size_t blocks, u64 b, u64 cy)
{
	const u64 *ae = a + 4 * blocks;
	u64 *re = r + 4 * blocks;
	long i = -4 * (long)blocks;
	u64 lo, hi, zero;

	__asm__ volatile(
		"xorl %k[zero], %k[zero]\n\t" /* CF = 0 */
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
		: [i] "+c"(i), [lo] "=&r"(lo), [hi] "=&r"(hi), [cy] "+r"(cy), [zero] "=&r"(zero)
		: [ae] "r"(ae), [re] "r"(re), "d"(b)
		: "cc", "memory");
	return cy;
}

#endif /* FIBDRV_BN_X86_H */
