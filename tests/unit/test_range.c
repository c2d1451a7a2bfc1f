// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the command-line number parsing shared by the tools. */
#include <stdio.h>
#include <string.h>

#include "range.h"

static int failures;

static void check(const char *name, int ok)
{
	printf("%s range.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static int range_is(const char *text, uint64_t first, uint64_t last, uint64_t step)
{
	struct u64_range r;

	return !parse_u64_range(text, &r) && r.first == first && r.last == last && r.step == step;
}

int main(void)
{
	struct u64_range r;
	uint64_t v;

	check("u64.plain", !parse_u64("93", &v) && v == 93);
	check("u64.max", !parse_u64("18446744073709551615", &v) && v == UINT64_MAX);
	check("u64.overflow", parse_u64("18446744073709551616", &v) != 0);
	check("u64.rejects-sign-space-junk", parse_u64("-1", &v) && parse_u64(" 1", &v) &&
						     parse_u64("1x", &v) && parse_u64("", &v));
	check("range.a-b", range_is("0:92", 0, 92, 1));
	check("range.a-b-step", range_is("10:1000:10", 10, 1000, 10));
	check("range.single", range_is("5:5", 5, 5, 1));
	check("range.rejects-reversed", parse_u64_range("9:1", &r) != 0);
	check("range.rejects-zero-step", parse_u64_range("0:9:0", &r) != 0);
	check("range.rejects-malformed", parse_u64_range("9", &r) && parse_u64_range(":9", &r) &&
						 parse_u64_range("1:", &r) &&
						 parse_u64_range("1:2:3:4", &r));
	/* 0:2^64-1 holds 2^64 values: refused (-2), not counted as 0 */
	check("range.rejects-2^64-values",
	      parse_u64_range("0:18446744073709551615", &r) == -2 &&
		      parse_u64_range("0:18446744073709551615:1", &r) == -2);
	check("range.why-2^64",
	      !strcmp(u64_range_why(-2),
		      "2^64 values, more than can be counted: a larger STEP or a narrower A:B") &&
		      !strcmp(u64_range_why(-1), "want A:B[:STEP], A <= B, STEP > 0"));
	check("range.largest-countable",
	      range_is("1:18446744073709551615", 1, UINT64_MAX, 1) &&
		      range_is("0:18446744073709551615:2", 0, UINT64_MAX, 2));
	check("range.malformed-is-minus-1", parse_u64_range("9:1", &r) == -1);
	r = (struct u64_range){1, UINT64_MAX, 1};
	check("count.largest", u64_range_count(&r) == UINT64_MAX);
	r = (struct u64_range){0, UINT64_MAX, 2};
	check("count.half", u64_range_count(&r) == (UINT64_MAX >> 1) + 1);
	check("mul_sat", u64_mul_sat(3, 5) == 15 && u64_mul_sat(UINT64_MAX, 2) == UINT64_MAX &&
				 u64_mul_sat(1ULL << 32, 1ULL << 32) == UINT64_MAX &&
				 u64_mul_sat(UINT64_MAX, 1) == UINT64_MAX &&
				 u64_mul_sat(0, UINT64_MAX) == 0);
	r = (struct u64_range){0, 92, 1};
	check("count.0-92", u64_range_count(&r) == 93);
	r = (struct u64_range){10, 1000, 10};
	check("count.step", u64_range_count(&r) == 100);
	r = (struct u64_range){0, 10, 3};
	check("count.uneven", u64_range_count(&r) == 4);
	return failures ? 1 : 0;
}
