/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fibtrace BPF side: the histogram bucket of a duration (bpf/fibtrace.h:
 * log2 buckets with 2^hist_bits linear sub-buckets, or linear buckets).
 * Included by fibtrace.bpf.c after its const volatile knobs.
 */
#ifndef FIBTRACE_HIST_BPF_H
#define FIBTRACE_HIST_BPF_H

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xFFFFFFFFULL) << 5;
	v >>= s;
	r |= s;
	s = (v > 0xFFFF) << 4;
	v >>= s;
	r |= s;
	s = (v > 0xFF) << 3;
	v >>= s;
	r |= s;
	s = (v > 0xF) << 2;
	v >>= s;
	r |= s;
	s = (v > 0x3) << 1;
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
