/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fibtrace BPF side: the histogram bucket of a duration (bpf/fibtrace.h:
 * log2 buckets with 2^hist_bits linear sub-buckets, or linear buckets).
 * Included by fibtrace.bpf.c after its const volatile knobs.
 */
#ifndef FIBTRACE_HIST_BPF_H
#define FIBTRACE_HIST_BPF_H

/*
 * One step of log2_u64: 1 when x (below 2^(2k)) has a bit at k or above,
 * else 0, by arithmetic: (x >> k) + 2^k - 1 reaches 2^k only when
 * x >> k >= 1. A comparison would compile to a branch, and the verifier
 * walks both sides of each: the five steps forked every traced exit's
 * verification 32 ways (13,800 instructions processed per fexit program
 * on 6.1, 100 ms each under emulation). The barrier keeps clang from
 * turning the sum back into a comparison.
 */
static __always_inline __u64 log2_step(__u64 x, int k)
{
	__u64 t = x >> k;

	asm volatile("" : "+r"(t));
	return (t + (1ULL << k) - 1) >> k;
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0, s;

	s = log2_step(v, 32) << 5;
	v >>= s;
	r |= s;
	s = log2_step(v, 16) << 4;
	v >>= s;
	r |= s;
	s = log2_step(v, 8) << 3;
	v >>= s;
	r |= s;
	s = log2_step(v, 4) << 2;
	v >>= s;
	r |= s;
	s = log2_step(v, 2) << 1;
	v >>= s;
	r |= s;
	return r | (__u32)(v >> 1);
}

static __always_inline __u32 hist_index(__u64 v)
{
	__u32 b = hist_bits & FT_HIST_MAX_BITS, l;
	__u64 idx;

	if (lin_step) {
		if (v < lin_min)
			return 0;
		idx = (v - lin_min) / lin_step + 1;
		return idx > lin_buckets + 1 ? lin_buckets + 1 : idx;
	}
	if (v < (1ULL << b))
		return v;
	l = log2_u64(v);
	idx = ((__u64)(l - b + 1) << b) + ((v >> (l - b)) - (1ULL << b));
	return idx;
}

#endif
