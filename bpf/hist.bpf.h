/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fibtrace BPF side: the histogram bucket of a duration (bpf/fibtrace.h:
 * log2 buckets with 2^hist_bits linear sub-buckets, or linear buckets).
 * Included by fibtrace.bpf.c after its const volatile knobs.
 */
#ifndef FIBTRACE_HIST_BPF_H
#define FIBTRACE_HIST_BPF_H

/*
 * floor(log2(v)) for v > 0 without a branch (BPF has no count of leading
 * zeros): smear the top bit down, keep it alone, and multiply by a de
 * Bruijn sequence, whose top six bits are then distinct for each of the 64
 * powers of two. A comparison would compile to a branch, and the verifier
 * walks both sides of each (five steps forked every traced exit's
 * verification 32 ways). About 20 instructions against the 37 of the
 * five arithmetic steps it replaces (make bench-parts).
 */
static const __u8 log2_debruijn[64] = {
	63, 0,	58, 1,	59, 47, 53, 2,	60, 39, 48, 27, 54, 33, 42, 3,
	61, 51, 37, 40, 49, 18, 28, 20, 55, 30, 34, 11, 43, 14, 22, 4,
	62, 57, 46, 52, 38, 26, 32, 41, 50, 36, 17, 19, 29, 10, 13, 21,
	56, 45, 25, 31, 35, 16, 9,  12, 44, 24, 15, 8,	23, 7,	6,  5,
};

static __always_inline __u32 log2_u64(__u64 v)
{
	v |= v >> 1;
	v |= v >> 2;
	v |= v >> 4;
	v |= v >> 8;
	v |= v >> 16;
	v |= v >> 32;
	return log2_debruijn[((v - (v >> 1)) * 0x07EDD5E59A4E28C2ULL) >> 58];
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
