/* SPDX-License-Identifier: GPL-2.0 */
/* Parsing of the numeric command-line arguments shared by the tools. */
#ifndef FIBTRACE_RANGE_H
#define FIBTRACE_RANGE_H

#include <stdint.h>

/* An inclusive range of n: first, first + step, ... up to last. */
struct u64_range {
	uint64_t first;
	uint64_t last;
	uint64_t step;
};

/* Decimal digits only (no sign, no spaces); 0 on success, -1 otherwise. */
int parse_u64(const char *text, uint64_t *out);
/* "A:B" or "A:B:STEP" with A <= B and STEP > 0; 0 on success. */
int parse_u64_range(const char *text, struct u64_range *out);
/* How many values the range holds. */
uint64_t u64_range_count(const struct u64_range *range);

#endif
