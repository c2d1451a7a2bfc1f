// SPDX-License-Identifier: GPL-2.0
/* A histogram drawn as funclatency draws it: see report_int.h. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "model/aggregate.h"
#include "report_int.h"

static void print_stars(FILE *f, __u64 val, __u64 max, int width)
{
	int n = max ? (int)((double)val * width / max) : 0, i;

	if (val && !n)
		n = 1; /* a non-empty bucket is never blank */
	for (i = 0; i < width; i++)
		fputc(i < n ? '*' : ' ', f);
}

void ft_text_hist(FILE *f, const struct ft_hist_cfg *cfg, const __u64 *hist)
{
	unsigned int i, first = UINT32_MAX, last = 0, n = ft_hist_nbuckets(cfg);
	__u64 max = 0, lo, hi;

	for (i = 0; i < n; i++) {
		if (!hist[i])
			continue;
		if (first == UINT32_MAX)
			first = i;
		last = i;
		if (hist[i] > max)
			max = hist[i];
	}
	if (first == UINT32_MAX)
		return;
	fprintf(f, "%24s : %-10s distribution\n", "nsecs", "count");
	for (i = first; i <= last; i++) {
		char range[64];

		ft_hist_bounds(cfg, i, &lo, &hi);
		if (hi == UINT64_MAX)
			snprintf(range, sizeof(range), "%" PRIu64 " -> inf", (uint64_t)lo);
		else
			snprintf(range, sizeof(range), "%" PRIu64 " -> %" PRIu64, (uint64_t)lo,
				 (uint64_t)hi);
		fprintf(f, "%24s : %-10" PRIu64 " |", range, (uint64_t)hist[i]);
		print_stars(f, hist[i], max, 40);
		fprintf(f, "|\n");
	}
}
