// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_mem.c - the allocator: every allocation of the library, in the limb
 * layer (scratch of divisions and conversions) and in the value layer
 * (struct bn's limbs), goes through bn_mem_alloc()/bn_mem_free() and
 * bn_limbs_alloc() here, as GMP's memory.c. It calls nothing else of the
 * library. noinline: a call inlined into a caller would be missing from
 * fibtrace's counts.
 */
#include "bn_impl.h"

#if !BN_MEM_ACCOUNTING
/* the kernel: straight to kvmalloc/kvfree, nothing counted */
noinline void *bn_mem_alloc(size_t bytes)
{
	return bn_sys_alloc(bytes);
}

noinline void bn_mem_free(void *p)
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
/*
 * user space: count the live bytes so benchmarks can report peak memory,
 * and let tests make an allocation fail
 */
static size_t bn_mem_cur, bn_mem_peak;
#define BN_MEM_HDR 16

static long bn_mem_countdown = -1;

void bn_mem_fail_after(long allocations)
{
	bn_mem_countdown = allocations;
}

noinline void *bn_mem_alloc(size_t bytes)
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

noinline void bn_mem_free(void *ptr)
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
#endif /* BN_MEM_ACCOUNTING */

noinline u64 *bn_limbs_alloc(size_t n)
{
	if (n == 0)
		n = 1;
	if (n > ((size_t)-1) / sizeof(u64) / 2)
		return NULL;
	return bn_mem_alloc(n * sizeof(u64));
}
