/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bn_compat.h - the only place where the big-number library differs
 * between the kernel module and user space.
 */
#ifndef FIBDRV_BN_COMPAT_H
#define FIBDRV_BN_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/compiler.h>
#include <linux/string.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <asm/cpufeature.h>

/* mulx (BMI2) and adcx/adox (ADX) for the multiplication inner loops */
static inline int bn_cpu_has_mulx_adx(void)
{
	return boot_cpu_has(X86_FEATURE_BMI2) && boot_cpu_has(X86_FEATURE_ADX);
}

static inline void *bn_sys_alloc(size_t bytes)
{
	return kvmalloc(bytes, GFP_KERNEL);
}

static inline void bn_sys_free(void *p)
{
	kvfree(p);
}

/* Yield the CPU if needed; tell the caller to give up on a fatal signal. */
static inline int bn_should_stop(void)
{
	cond_resched();
	return fatal_signal_pending(current);
}

#else /* user space */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

/* Same widths (and the same C types) as the kernel's, so %llu works in both. */
typedef unsigned long long u64;
typedef long long s64;
typedef unsigned int u32;
typedef unsigned char u8;

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef noinline
#define noinline __attribute__((noinline))
#endif

static inline void *bn_sys_alloc(size_t bytes)
{
	return malloc(bytes);
}

static inline void bn_sys_free(void *p)
{
	free(p);
}

static inline int bn_should_stop(void)
{
	return 0;
}

#if defined(__x86_64__)
#include <cpuid.h>
static inline int bn_cpu_has_mulx_adx(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b & (1u << 8)) && (b & (1u << 19));	/* BMI2, ADX */
}
#else
static inline int bn_cpu_has_mulx_adx(void)
{
	return 0;
}
#endif

#endif /* __KERNEL__ */

#endif /* FIBDRV_BN_COMPAT_H */
