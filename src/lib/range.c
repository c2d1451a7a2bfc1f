// SPDX-License-Identifier: GPL-2.0
#include "range.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int parse_u64(const char *text, uint64_t *out)
{
	char *end;

	if (!text || *text < '0' || *text > '9')
		return -1;
	errno = 0;
	*out = strtoull(text, &end, 10);
	return errno || *end ? -1 : 0;
}

int parse_u64_range(const char *text, struct u64_range *out)
{
	char first[32], last[32], step[32] = "1";
	const char *colon = strchr(text, ':');
	const char *colon2;
	size_t len;

	if (!colon)
		return -1;
	len = (size_t)(colon - text);
	if (len >= sizeof(first))
		return -1;
	memcpy(first, text, len);
	first[len] = '\0';
	colon2 = strchr(colon + 1, ':');
	len = colon2 ? (size_t)(colon2 - colon - 1) : strlen(colon + 1);
	if (len >= sizeof(last))
		return -1;
	memcpy(last, colon + 1, len);
	last[len] = '\0';
	if (colon2) {
		if (strlen(colon2 + 1) >= sizeof(step))
			return -1;
		strcpy(step, colon2 + 1);
	}
	if (parse_u64(first, &out->first) || parse_u64(last, &out->last) ||
	    parse_u64(step, &out->step))
		return -1;
	if (out->first > out->last || !out->step)
		return -1;
	/* 0:2^64-1 holds 2^64 values: no count holds that many */
	return (out->last - out->first) / out->step == UINT64_MAX ? -2 : 0;
}

const char *u64_range_why(int err)
{
	return err == -2 ? "2^64 values, more than can be counted: a larger STEP or a narrower A:B"
			 : "want A:B[:STEP], A <= B, STEP > 0";
}

uint64_t u64_range_count(const struct u64_range *range)
{
	return (range->last - range->first) / range->step + 1;
}

uint64_t u64_mul_sat(uint64_t a, uint64_t b)
{
	uint64_t p;

	return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}
