// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the BPF side's histogram bucket (bpf/hist.bpf.h), compiled
 * here on the host, against the bounds user space reads the buckets with
 * (src/fibtrace/model/aggregate.c, ft_hist_bounds) and against __builtin_clzll:
 * every value falls into a bucket whose bounds hold it, at every
 * sub-bucket setting and in linear mode.
 */
#include <stdint.h>
#include <stdio.h>

#include "model/aggregate.h"

/* bpf/fibtrace.bpf.c's const volatile knobs, variables here */
static __u32 hist_bits;
static __u64 lin_min, lin_step, lin_buckets;

#include "../../bpf/hist.bpf.h"

static int failures;

static void check(const char *name, int ok)
{
	printf("%s hist.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static __u64 next_rand(__u64 *s)
{
	__u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Values around every power of two, then random ones of every magnitude. */
static __u64 value(unsigned int i, __u64 *seed)
{
	if (i < 3 * 64)
		return ((__u64)1 << (i / 3)) + (i % 3) - 1;
	if (i == 3 * 64)
		return UINT64_MAX;
	if (i == 3 * 64 + 1)
		return 0;
	return next_rand(seed) >> (next_rand(seed) % 64);
}

#define VALUES 20000u

static int in_bounds(const struct ft_hist_cfg *cfg, __u64 v)
{
	__u64 lo, hi;
	unsigned int idx = hist_index(v) & (FT_HIST_SLOTS - 1);

	if (idx >= ft_hist_nbuckets(cfg))
		return 0;
	ft_hist_bounds(cfg, idx, &lo, &hi);
	return lo <= v && v <= hi;
}

int main(void)
{
	struct ft_hist_cfg cfg = {0};
	unsigned int i, bad = 0;
	__u64 seed = 1, v;

	for (i = 0; i < VALUES; i++) {
		v = value(i, &seed);
		bad += v && log2_u64(v) != 63u - (unsigned int)__builtin_clzll(v);
	}
	check("log2_u64.clz", bad == 0);
	for (cfg.bits = 0; cfg.bits <= FT_HIST_MAX_BITS; cfg.bits++) {
		char name[32];

		hist_bits = cfg.bits;
		seed = 1;
		for (bad = 0, i = 0; i < VALUES; i++)
			bad += !in_bounds(&cfg, value(i, &seed));
		snprintf(name, sizeof(name), "log2.bits%u.in_bounds", cfg.bits);
		check(name, bad == 0);
	}
	cfg = (struct ft_hist_cfg){
		.linear = true, .lin_min = 100, .lin_step = 10, .lin_buckets = 5};
	lin_min = cfg.lin_min;
	lin_step = cfg.lin_step;
	lin_buckets = cfg.lin_buckets;
	seed = 1;
	for (bad = 0, i = 0; i < VALUES; i++)
		bad += !in_bounds(&cfg, i < 300 ? i : value(i, &seed));
	check("linear.in_bounds", bad == 0);
	return failures != 0;
}
