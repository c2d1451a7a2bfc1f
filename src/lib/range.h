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
/*
 * "A:B" or "A:B:STEP" with A <= B and STEP > 0; 0 on success, -1 when
 * malformed, -2 when it holds 2^64 values (0:18446744073709551615), which
 * u64_range_count could not return.
 */
int parse_u64_range(const char *text, struct u64_range *out);
/* What is wrong with a range parse_u64_range refused with @err, and what to do. */
const char *u64_range_why(int err);
/* How many values the range holds (a parsed range: never 0, never wrapped). */
uint64_t u64_range_count(const struct u64_range *range);
/* a * b, or UINT64_MAX when that overflows (a count of reads, say). */
uint64_t u64_mul_sat(uint64_t a, uint64_t b);

#endif
