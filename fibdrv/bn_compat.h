/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bn_compat.h - the only place where the big-number library differs
 * between the kernel module and user space, and the only file of the
 * library that tests __KERNEL__ (fibdrv_uapi.h, which fib_algo.h includes
 * for the format constants, picks its own ioctl headers).  It decides:
 *
 *   - the types (u64, s64, u32, u8) and likely(), unlikely(), noinline,
 *     __noipa (the kernel's, from compiler_attributes.h);
 *   - the system allocator: kvmalloc/kvfree or malloc/free;
 *   - bn_should_stop(): bn_resched() + fatal_signal_pending(), or 0;
 *   - bn_resched(): cond_resched_tasks_rcu_qs() alone, inside one
 *     product, or nothing;
 *   - bn_cpu_has_mulx_adx(): the BMI2+ADX check (boot_cpu_has or cpuid);
 *   - BN_MEM_ACCOUNTING: 1 in user space, where bn_mem.c counts the live
 *     bytes (bn_mem_stats) and tests can make an allocation fail
 *     (bn_mem_fail_after); 0 in the kernel, where allocation goes straight
 *     to kvmalloc and the statistics are zero.
 */
#ifndef FIBDRV_BN_COMPAT_H
#define FIBDRV_BN_COMPAT_H

#ifdef __KERNEL__

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>

#include <asm/cpufeature.h>

#define BN_MEM_ACCOUNTING 0

/* mulx (BMI2) and adcx/adox (ADX) for the multiplication inner loops */
static inline int bn_cpu_has_mulx_adx(void)
{
	return boot_cpu_has(X86_FEATURE_BMI2) && boot_cpu_has(X86_FEATURE_ADX);
}

/*
 * Charged to the caller's memory cgroup (__GFP_ACCOUNT): a read's scratch
 * is the reading task's (about 4 MiB at F(10^6)), so a reader over its cgroup's
 * memory.max gets ENOMEM instead of taking kernel memory outside its limit;
 * __GFP_RETRY_MAYFAIL makes that ENOMEM rather than the cgroup's OOM killer.
 */
static inline void *bn_sys_alloc(size_t bytes)
{
	return kvmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
}

static inline void bn_sys_free(void *p)
{
	kvfree(p);
}

/*
 * Yield the CPU if needed, and report a quiescent state to RCU Tasks. A
 * tracer detaching (kprobe.multi, fentry, any ftrace trampoline) waits for
 * every task to pass one, and a task computing in the kernel passes none
 * until it returns to user space just as a scheduler tick lands: while a
 * 2-second read ran back to back, fibtrace's kprobe.multi detach took
 * 5-58 s on 6.12 instead of 0.2 s. Wherever cond_resched() may run, a
 * voluntary context switch may happen anyway, so the report claims no
 * more than that.
 */
static inline void bn_resched(void)
{
	cond_resched_tasks_rcu_qs();
}

/* Yield as bn_resched(); tell the caller to give up on a fatal signal. */
static inline int bn_should_stop(void)
{
	bn_resched();
	return fatal_signal_pending(current);
}

#else /* user space */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
/* as the kernel's compiler_attributes.h: nothing where the compiler lacks it (clang) */
#ifndef __noipa
#if defined(__has_attribute)
#if __has_attribute(__noipa__)
#define __noipa __attribute__((__noipa__))
#endif
#endif
#endif
#ifndef __noipa
#define __noipa
#endif

#define BN_MEM_ACCOUNTING 1

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

static inline void bn_resched(void)
{
}

#if defined(__x86_64__)
#include <cpuid.h>
static inline int bn_cpu_has_mulx_adx(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b & (1u << 8)) && (b & (1u << 19)); /* BMI2, ADX */
}
#else
static inline int bn_cpu_has_mulx_adx(void)
{
	return 0;
}
#endif

#endif /* __KERNEL__ */

#endif /* FIBDRV_BN_COMPAT_H */
